/* SPDX-License-Identifier: GPL-2.0 */
/*
 * judge: gupctl diff's comparison.  The two sides' documents paired (by
 * job, then by flavour), their cells paired by what identifies them, and
 * each pair of cells held field by field on what was measured
 * (docs/gupctl.md, "gupctl diff": which fields count and why).  Host only.
 */
#ifndef DIFF_JUDGE_H
#define DIFF_JUDGE_H

#include <stdbool.h>

#include <jansson.h>

#include "diff/collect.h"

enum diff_state {
	DIFF_SAME,		/* measured the same */
	DIFF_DIFFER,		/* a counted field differs */
	DIFF_ONLY_A,		/* in A's document only */
	DIFF_ONLY_B,
	DIFF_NOT_RUN_A,		/* in both, not run in A */
	DIFF_NOT_RUN_B,
	DIFF_NOT_RUN_BOTH,
	DIFF_NR_STATES
};

/* Where a cell's console evidence is. */
struct diff_evidence {
	char *console;			/* a path (the run directory's joined); NULL: none */
	unsigned int from, to;		/* its lines (1..); from 0: the whole file; to 0: to the end */
};

/* A cell as one side has it. */
struct diff_cell {
	json_t *cell;			/* NULL: not on this side */
	json_t *measured;		/* the counted fields, {path: value} */
	char *words;			/* the measured outcome in words */
	const char *reason;		/* the side's reason for its outcome */
	const char *why_not_run;	/* NULL: it ran */
	struct diff_evidence ev;
};

struct diff_entry {
	unsigned int pair;
	enum diff_state state;
	char *key;			/* "file-ext4-shared write-faulted pin_user_pages WRITE" */
	char *group;			/* "pin_user_pages on file-ext4-shared" */
	long index;			/* its number in the document, -1: none */
	unsigned int pos;		/* its place in the documents, for the order */
	struct diff_cell s[2];
};

/* Two documents of one job compared; one may be missing (d[k] NULL). */
struct diff_pair {
	enum diff_kind kind;
	struct diff_doc *d[2];
	unsigned int count[DIFF_NR_STATES];
};

struct diff {
	struct diff_side side[2];
	struct diff_pair *pairs;
	unsigned int nr_pairs;
	struct diff_entry *e;		/* every entry but the DIFF_SAME and DIFF_NOT_RUN_BOTH */
	unsigned int nr;
	unsigned int count[DIFF_NR_STATES];
};

/* Pair and compare @df->side[]: 0, or GUPCTL_EXIT_USAGE after a message. */
int diff_compare(struct diff *df);
void diff_free(struct diff *df);

/* Cells compared: run on both sides. */
static inline unsigned int diff_compared(const unsigned int *count)
{
	return count[DIFF_SAME] + count[DIFF_DIFFER];
}

/* Are entries @a and @b the same change (the same pair, the same words both sides)? */
bool diff_same_change(const struct diff_entry *a, const struct diff_entry *b);

#endif /* DIFF_JUDGE_H */
