/* SPDX-License-Identifier: GPL-2.0 */
/*
 * matrix_json: the matrix's JSON documents (docs/results.md), written and
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

#include "gupctl.h"

#define MATRIX_ERRNO_LEN	24

/* One cell of a document. */
struct mcell {
	bool present;			/* read back: the document has it */
	struct cell cell;
	enum matrix_outcome expected;
	char exp_err[MATRIX_ERRNO_LEN];	/* errno name if refused, "" if not */
	const char *reason;		/* why the policy expects it */
	bool by_driver;			/* refused by gup_pin_test before GUP */
	struct report_exp report;	/* the kernel report it expects, .kind NULL: none */
	enum matrix_outcome measured;
	char meas_err[MATRIX_ERRNO_LEN];	/* refusal or failed setup, "" */
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

/* A kernel report on the console, attributed to a marker (gupctl.h). */
struct mreport {
	const char *kind, *title;
	const char *location;		/* file:line, or NULL */
	const char *step;		/* NULL: before the first marker */
	int cell;			/* MATRIX_MARK_NONE: none */
	bool expected;
	const char *series;		/* not expected: the series finding it is */
	const char *note;		/* why (not) expected, or NULL */
};

/* One document as read back; the strings point into @doc. */
struct mflavour {
	json_t *doc;
	const char *path;
	const char *name, *policy, *kernel, *verdict;	/* verdict: NULL */
	double wall_matrix, wall_boot;	/* seconds, < 0: not known */
	bool quick;			/* gupctl matrix --quick ran (absent: false) */
	unsigned int nr_present, nr_run, nr_not_applicable, nr_mismatch;
	struct mcell cells[MATRIX_NR_CELLS];
	/* FLAVOUR.json only (absent: xcheck_nr < 0, no reports) */
	int xcheck_nr, xcheck_disagree;
	struct mreport *reports;
	/* expected: nr_reports - nr_unexpected - nr_series */
	unsigned int nr_reports, nr_unexpected, nr_series;
};

/* The reports of @fl its cells expected. */
static inline unsigned int mflavour_expected_reports(const struct mflavour *fl)
{
	return fl->nr_reports - fl->nr_unexpected - fl->nr_series;
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
/* The counts, for the document's "summary". */
json_t *matrix_json_summary(const struct mflavour *fl);

/* Open @path for matrix_json_dump(); NULL after a message on stderr. */
FILE *matrix_json_open(const char *path, const char *cmd);
/*
 * Write @doc (NULL: a failed json_pack(), ENOMEM) indented to @f, sync and
 * close it: 0, or GUPCTL_EXIT_USAGE after a message naming @path.
 */
int matrix_json_dump(json_t *doc, FILE *f, const char *path, const char *cmd);
/* Read a JSON file; NULL after a message on stderr. */
json_t *matrix_json_read_file(const char *path, const char *cmd);
/* The same for a file that must hold one JSON object. */
json_t *matrix_json_read_object(const char *path, const char *cmd);
/*
 * A job's run.json: its kernel source packages ("source_packages", one per
 * source version the flavours were built from) as "NAME VERSION, ..." in
 * @buf; "?" if it names none.
 */
void run_json_sources(json_t *run, char *buf, size_t size);

/*
 * The console's markers (gupctl.h, matrix_mark()), read on the host
 * (matrix_collect.c; gupctl consumers judge reads them too).
 */
struct marker {
	unsigned int line;
	char step[MATRIX_STEP_LEN];
	int index;			/* MATRIX_MARK_NONE: an end marker */
};

struct markers {
	struct marker *m;
	unsigned int nr, cap;
};

/* A marker in @line: true with its step and index. */
bool parse_mark(const char *line, char step[MATRIX_STEP_LEN], int *index);
/* Every marker of the console @path, in console order (free ms->m). */
int read_markers(const char *path, struct markers *ms);
/* The last marker before console line @line, or NULL. */
const struct marker *marker_before(const struct markers *ms, unsigned int line);
/*
 * Does line @lineno of @file in the source tree @src hold @text?  If not,
 * @why says what the line reads (or why it could not be read).
 */
bool src_line_holds(const char *src, const char *file, unsigned long lineno,
		    const char *text, char *why, size_t size);
struct kreport;
struct report_exp;
/*
 * Is report @k the one @e expects (kind, file, and the text on its line in
 * the tree @src)?  @why says why or why not.
 */
bool report_matches(const struct report_exp *e, const struct kreport *k,
		    const char *src, char *why, size_t size);
struct series_finding;
/* The documented finding of @policy's series that @k is, or NULL. */
const struct series_finding *series_finding_of(const char *policy, const struct kreport *k,
					       const char *src);
/*
 * The kernel reports at @path (qemu/scan-console.sh --reports) of a boot
 * of @policy, each with its "series_finding" ({what, doc} or null); NULL
 * after saying on stderr why it could not.
 */
json_t *series_findings_json(const char *path, const char *policy, const char *src);

/* gupctl report --collect (matrix_collect.c, host only). */
struct collect_opts {
	const char *out;		/* FLAVOUR.json */
	const char *flavour, *policy, *ext4, *input_hash, *verdict;
	double boot_seconds;
	const char *matrix, *xcheck;	/* NULL: the guest wrote none */
	const char *console, *reports;
	const char *src;		/* the flavour's source tree */
};

/* Write o->out; 0 the flavour passed, 1 it failed, or an exit code. */
int matrix_collect(const struct collect_opts *o);

#endif /* MATRIX_JSON_H */
