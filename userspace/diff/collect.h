/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collect: gupctl diff's operands read into sides (docs/gupctl.md, "gupctl
 * diff"): a side is every flavour document its run directories hold, one
 * per job and flavour (a matrix run gives two: its cells and gup_longterm's
 * verdicts).  Host only.
 */
#ifndef DIFF_COLLECT_H
#define DIFF_COLLECT_H

#include <stdbool.h>

#include <jansson.h>

#include "console/markers.h"

/* What a document holds: the jobs gupctl diff reads. */
enum diff_kind {
	DIFF_MATRIX,
	DIFF_LONGTERM,
	DIFF_REPRO,
	DIFF_CONSUMERS,
	DIFF_HOLDERS,
	DIFF_NR_KINDS
};

/* "matrix", "gup_longterm", ... */
const char *diff_kind_name(enum diff_kind kind);

/* One flavour's document of one run. */
struct diff_doc {
	enum diff_kind kind;
	char *dir;			/* the run directory, as named */
	char *flavour;
	char *path;			/* the document, NULL if not run */
	json_t *doc;			/* NULL: not run */
	json_t *cells;			/* its array of cells (tests) */
	char *why_not_run;		/* NULL if it ran */
	char *console;			/* the boot's console, for marker slices */
	struct markers ms;
	int ms_state;			/* 0 unread, 1 read, -1 unreadable */
};

struct diff_side {
	const char *operand;
	struct diff_doc *docs;
	unsigned int nr;
};

/*
 * Read @operand (FLAVOUR, DIR or DIR:FLAVOUR, several comma-separated)
 * into @s, a flavour looked up under @root (the results root).  0, or
 * GUPCTL_EXIT_USAGE after a message naming @name ("A", "B").
 */
int diff_side_collect(const char *name, const char *operand, const char *root,
		      struct diff_side *s);
void diff_side_free(struct diff_side *s);

/*
 * The console lines of cell @n (1..) of @step in @d's console: true with
 * @from and @to (0: to the end); false if the console has no such marker.
 */
bool diff_doc_slice(struct diff_doc *d, const char *step, int n,
		    unsigned int *from, unsigned int *to);

#endif /* DIFF_COLLECT_H */
