/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json: the matrix's JSON documents (docs/results.md), written and
 * read with jansson.  gupctl matrix writes a cell with matrix_json_cell();
 * xcheck and report read a document back with matrix_json_load(): the
 * guest's matrix document (gupctl matrix --json) or a flavour's results
 * document (FLAVOUR.json, gupctl report --collect).
 */
#ifndef MATRIX_JSON_H
#define MATRIX_JSON_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "lib/gupdev.h"
#include "lib/util.h"
#include "model/policy.h"

#define MATRIX_ERRNO_LEN	24
/* What a cell of a --policy none run says in KTAP, JSON and the pages. */
#define MATRIX_MEASURED_ONLY	"measured, no policy to compare"

/* One cell of a document. */
struct mcell {
	bool present;			/* read back: the document has it */
	struct cell cell;
	/*
	 * --policy none: no expectation ("expected": null); @expected is
	 * MATRIX_NOT_RUN, @reason NULL, @match: the cell ran cleanly.
	 */
	bool measured_only;
	enum matrix_outcome expected;
	char exp_err[MATRIX_ERRNO_LEN];	/* errno name if refused, "" if not */
	const char *reason;		/* why the policy expects it */
	bool by_driver;			/* refused by gup_pin_test before GUP */
	struct report_exp report;	/* the kernel report it expects, .kind NULL: none */
	enum matrix_outcome measured;
	char meas_err[MATRIX_ERRNO_LEN];	/* refusal or failed setup, "" */
	const char *why_not_run;	/* not run, its file system not there: why; NULL */
	char unpin_err[MATRIX_ERRNO_LEN];	/* a failed unpin, "" */
	bool match;			/* as expected, set by gupctl matrix */
	long thp_kb;			/* THP backing, pinned: PMD-mapped kB; -1 */
	/* Read back only: FLAVOUR.json's note on the cell, or NULL. */
	const char *note;
	/* Written, not read back: */
	int nr_pinned;			/* -1: no pin attempted */
	bool have_page;
	struct gup_page_state page;
};

/* A kernel report on the console, attributed to a marker (console/markers.h). */
struct mreport {
	const char *kind, *title;
	const char *location;		/* file:line, or NULL */
	const char *step;		/* NULL: before the first marker */
	int cell;			/* KMSG_MARK_END: none */
	bool expected;
	const char *series;		/* not expected: the series finding it is */
	/*
	 * Policy none: a WARNING during a cell, which no policy expects nor
	 * refuses: listed as a finding of that cell, not a failure.
	 */
	bool finding;
	const char *note;		/* why (not) expected, or NULL */
};

/* One document as read back; the strings point into @doc. */
struct mflavour {
	json_t *doc;
	const char *path;
	const char *name, *policy, *kernel, *verdict;	/* verdict: NULL */
	double wall_matrix, wall_boot;	/* seconds, < 0: not known */
	bool quick;			/* gupctl matrix --quick ran (absent: false) */
	/*
	 * The kernel's GUP policy as the guest detected it (model/detect.h):
	 * kernel_policy_read false if the document has none (older ones);
	 * kernel_policy NULL if the kernel showed none.
	 */
	bool kernel_policy_read;
	const char *kernel_policy, *kernel_policy_why;
	unsigned int nr_present, nr_run, nr_not_applicable, nr_mismatch;
	unsigned int nr_measured_only;	/* policy none: cells run, not compared */
	struct mcell cells[MATRIX_NR_CELLS];
	/* FLAVOUR.json only (absent: xcheck_nr < 0, no reports) */
	int xcheck_nr, xcheck_disagree;
	struct mreport *reports;
	/* expected: nr_reports - nr_unexpected - nr_series - nr_findings */
	unsigned int nr_reports, nr_unexpected, nr_series, nr_findings;
};

/* The reports of @fl its cells expected. */
static inline unsigned int mflavour_expected_reports(const struct mflavour *fl)
{
	return fl->nr_reports - fl->nr_unexpected - fl->nr_series - fl->nr_findings;
}

/* A cell's measured and expected outcomes in words, for pages and messages. */
void mcell_measured_str(char *buf, size_t size, const struct mcell *c);
void mcell_expected_str(char *buf, size_t size, const struct mcell *c);

/* The JSON of cell @idx (0-based; the document's "index" is idx + 1). */
json_t *matrix_json_cell(unsigned int idx, const struct mcell *c);
/* The identity fields of a cell, for other documents that name one. */
json_t *matrix_json_cell_id(unsigned int idx);

/*
 * Read a document into @fl (zeroed by the caller; free with
 * matrix_json_free()), checking every field.  0, or an exit code after a
 * message "gupctl CMD: PATH: WHERE: ..." on stderr.
 */
int matrix_json_load(const char *path, struct mflavour *fl, const char *cmd);
/* The same for a document in memory; @fl takes a reference on @doc. */
int matrix_json_parse(json_t *doc, const char *path, struct mflavour *fl,
		      const char *cmd);
void matrix_json_free(struct mflavour *fl);
/*
 * Did the flavour fail: cells missing, a mismatch, a disagreement, a
 * kernel report no cell expects, or a kernel verdict worse than the
 * expected WARNINGs?
 */
bool matrix_flavour_failed(const struct mflavour *fl);
/* Is the kernel's detected policy not the document's (the flavour table's)? */
bool matrix_flavour_mislabelled(const struct mflavour *fl);
/* The counts, for the document's "summary". */
json_t *matrix_json_summary(const struct mflavour *fl);


#endif /* MATRIX_JSON_H */
