// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl report, on the host: the flavour's results document after a boot
 * (--collect, matrix_collect.c), and from results the markdown page and
 * the self-contained SVG heatmap of the matrix.  The guide: docs/gupctl.md,
 * "gupctl report".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gupctl.h"
#include "matrix_json.h"
#include "options.h"
#include "policy.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_ROWS		(BACKING_COUNT * STATE_COUNT)
#define NR_COLS		(GUP_PIN_METHOD_COUNT * MATRIX_NR_FLAGS)

struct report_opts {
	struct collect_opts c;		/* --collect */
	const char *boot_seconds;
	const char *md, *svg, *learned;	/* the pages */
	char **inputs;			/* a results directory or FLAVOUR.json */
	unsigned int nr_inputs;
};

/* A flavour run.json lists as not run. */
struct not_run {
	const char *name, *why;
};

struct report {
	struct report_opts o;
	const char *dir;		/* the results directory, or NULL */
	json_t *run;			/* its run.json */
	struct mflavour *fl;		/* nr_fl of them, in run order */
	unsigned int nr_fl;
	struct not_run *not_run;
	unsigned int nr_not_run;
	char *learned;			/* the --learned file, NULL if absent */
	size_t learned_len;
};

static const char * const method_short[GUP_PIN_METHOD_COUNT] = {
	[GUP_PIN_METHOD_PIN]		= "pin",
	[GUP_PIN_METHOD_PIN_FAST]	= "pinF",
	[GUP_PIN_METHOD_GET]		= "get",
	[GUP_PIN_METHOD_GET_FAST]	= "getF",
};

/* Indexed like the flag sets: none, WRITE, LONGTERM, WRITE|LONGTERM. */
static const char * const flags_short[MATRIX_NR_FLAGS] = { "", " W", " L", " LW" };

/* ---- Options ---- */

static const char * const report_usage[] = {
	"gupctl report --md FILE --svg FILE [--learned FILE] RESULTS...",
	"gupctl report --collect FILE --flavour NAME --policy POLICY [OPTIONS]",
	NULL
};

static int check_collect_opts(struct report_opts *o)
{
	const struct { const char *v, *name; } req[] = {
		{ o->c.flavour, "--flavour" }, { o->c.policy, "--policy" },
		{ o->c.ext4, "--ext4" }, { o->c.input_hash, "--input-hash" },
		{ o->c.verdict, "--kernel-verdict" },
		{ o->boot_seconds, "--boot-seconds" },
		{ o->c.console, "--console" }, { o->c.reports, "--reports" },
	};
	unsigned int i;
	char *end;

	if (o->md || o->svg || o->learned || o->nr_inputs)
		return usage_error("report",
				   "--collect writes one document: no --md, --svg, --learned or RESULTS with it");
	for (i = 0; i < ARRAY_SIZE(req); i++)
		if (!req[i].v)
			return usage_error("report", "--collect needs %s", req[i].name);
	if (!matrix_valid_flavour(o->c.flavour))
		return usage_error("report",
				   "bad --flavour '%s': 1 to 63 letters, digits, '.', '_' or '-'",
				   o->c.flavour);
	if (!policy_lookup(o->c.policy))
		return usage_error("report", "unknown --policy '%s': give one of: %s",
				   o->c.policy, policy_names());
	o->c.boot_seconds = strtod(o->boot_seconds, &end);
	if (end == o->boot_seconds || *end || o->c.boot_seconds < 0)
		return usage_error("report", "bad --boot-seconds '%s': give seconds",
				   o->boot_seconds);
	return 0;
}

/* 0: options valid; GOPT_HELP: help printed; otherwise an exit code. */
static int parse_report_opts(int argc, char **argv, struct report_opts *o)
{
	int ret, argi;
	const struct gopt opts[] = {
		GOPT_GROUP("The pages, from a results directory or FLAVOUR.json files"),
		GOPT_STRING(0, "md", &o->md, "FILE", "write the markdown page"),
		GOPT_STRING(0, "svg", &o->svg, "FILE", "write the SVG heatmap"),
		GOPT_STRING(0, "learned", &o->learned, "FILE",
			    "append FILE under \"What we learned\" (if it exists)"),
		GOPT_GROUP("The flavour's results document, after its boot"),
		GOPT_STRING(0, "collect", &o->c.out, "FILE", "write FLAVOUR.json"),
		GOPT_STRING(0, "flavour", &o->c.flavour, "NAME", "the flavour (required)"),
		GOPT_STRING(0, "policy", &o->c.policy, "POLICY",
			    "its gup column of patches/flavours (required)"),
		GOPT_STRING(0, "ext4", &o->c.ext4, "BEHAVIOUR",
			    "its ext4 column of patches/flavours (required)"),
		GOPT_STRING(0, "input-hash", &o->c.input_hash, "HASH",
			    "the kernel's cache key (required)"),
		GOPT_STRING(0, "kernel-verdict", &o->c.verdict, "VERDICT",
			    "qemu/run.sh's verdict of the boot (required)"),
		GOPT_STRING(0, "boot-seconds", &o->boot_seconds, "SECONDS",
			    "the boot's wall time (required)"),
		GOPT_STRING(0, "console", &o->c.console, "FILE",
			    "the boot's serial console (required)"),
		GOPT_STRING(0, "reports", &o->c.reports, "FILE",
			    "its kernel reports: qemu/scan-console.sh --reports (required)"),
		GOPT_STRING(0, "matrix", &o->c.matrix, "FILE",
			    "the guest's matrix document, if it wrote one"),
		GOPT_STRING(0, "xcheck", &o->c.xcheck, "FILE",
			    "the guest's cross-check document, if it wrote one"),
		GOPT_END()
	};

	memset(o, 0, sizeof(*o));
	ret = gopt_parse("report", argc, argv, opts, report_usage, &argi);
	if (ret)
		return ret;
	o->inputs = argv + argi;
	o->nr_inputs = argc - argi;
	if (o->c.out)
		return check_collect_opts(o);
	if (!o->md)
		return usage_error("report", "no --md FILE: where should the markdown go?");
	if (!o->svg)
		return usage_error("report", "no --svg FILE: where should the SVG go?");
	if (!strcmp(o->md, o->svg))
		return usage_error("report", "--md and --svg name the same file '%s'", o->md);
	if (!o->nr_inputs)
		return usage_error("report",
				   "no RESULTS: give a results directory (make matrix) or FLAVOUR.json files");
	return 0;
}

/* Read the --learned file whole; absent is fine. */
static int read_learned(struct report *r)
{
	size_t cap = 0, n;
	char buf[4096], *p;
	FILE *f;

	if (!r->o.learned)
		return 0;
	f = fopen(r->o.learned, "re");
	if (!f && errno == ENOENT)
		return 0;
	if (!f) {
		fprintf(stderr, "gupctl report: cannot open --learned %s: %s (%s)\n",
			r->o.learned, errno_name(errno), strerror(errno));
		return GUPCTL_EXIT_USAGE;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (r->learned_len + n + 1 > cap) {
			cap = (r->learned_len + n + 1) * 2;
			p = realloc(r->learned, cap);
			if (!p) {
				fclose(f);
				fprintf(stderr, "gupctl report: out of memory (ENOMEM)\n");
				return GUPCTL_EXIT_USAGE;
			}
			r->learned = p;
		}
		memcpy(r->learned + r->learned_len, buf, n);
		r->learned_len += n;
	}
	if (ferror(f)) {
		fprintf(stderr, "gupctl report: reading --learned %s failed: %s (%s)\n",
			r->o.learned, errno_name(errno), strerror(errno));
		fclose(f);
		return GUPCTL_EXIT_USAGE;
	}
	fclose(f);
	if (!r->learned) {		/* an empty file: an empty section */
		r->learned = strdup("");
		if (!r->learned)
			return GUPCTL_EXIT_USAGE;
	} else {
		r->learned[r->learned_len] = '\0';
	}
	return 0;
}

/* ---- Cells as text ---- */

/* The measured outcome as a table symbol, without the mismatch mark. */
static const char *symbol(const struct mcell *c)
{
	switch (c->measured) {
	case MATRIX_PINNED:
		return "P";
	case MATRIX_NONE_PINNED:
		return "0";
	case MATRIX_REFUSED:
		if (!strcmp(c->meas_err, "EFAULT"))
			return "F";
		if (!strcmp(c->meas_err, "EINVAL"))
			return "I";
		return c->meas_err;
	default:
		return "\u00b7";
	}
}

static void describe_measured(char *buf, size_t size, const struct mcell *c)
{
	switch (c->measured) {
	case MATRIX_PINNED:
		if (c->unpin_err[0])
			snprintf(buf, size, "pinned, but the unpin failed: %s",
				 c->unpin_err);
		else
			snprintf(buf, size, "pinned");
		break;
	case MATRIX_NONE_PINNED:
		snprintf(buf, size, "none pinned (no error, no page)");
		break;
	case MATRIX_REFUSED:
		snprintf(buf, size, "%s", c->meas_err);
		break;
	default:
		if (c->meas_err[0])
			snprintf(buf, size, "not run (setup failed: %s)", c->meas_err);
		else
			snprintf(buf, size, "not run");
	}
}

static const char *describe_expected(const struct mcell *c)
{
	switch (c->expected) {
	case MATRIX_PINNED:
		return "pinned";
	case MATRIX_REFUSED:
		return c->exp_err;
	case MATRIX_NONE_PINNED:
		return "none pinned";
	default:
		return "not run (not applicable)";
	}
}

static unsigned int cell_at(unsigned int row, unsigned int col)
{
	return row * NR_COLS + col;	/* see matrix_index() */
}

static void col_label(char *buf, size_t size, unsigned int col)
{
	snprintf(buf, size, "%s%s", method_short[col / MATRIX_NR_FLAGS],
		 flags_short[col % MATRIX_NR_FLAGS]);
}

static void row_label(char *buf, size_t size, unsigned int row)
{
	snprintf(buf, size, "%s %s", backing_name(row / STATE_COUNT),
		 state_name(row % STATE_COUNT));
}

/* ---- Markdown ---- */

/* Text safe inside a markdown table cell. */
static void md_puts(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '|': case '\\': case '*': case '`': case '[': case ']':
			fputc('\\', f);
			fputc(*s, f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '\n': case '\r': case '\t':
			fputc(' ', f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* A string of run.json (@key, or @key.@sub), or NULL. */
static const char *run_str(const struct report *r, const char *key,
			   const char *sub)
{
	json_t *v = json_object_get(r->run, key);

	return json_string_value(sub ? json_object_get(v, sub) : v);
}

/* Seconds as "1.2 s", or "?". */
static void md_seconds(FILE *f, double s)
{
	if (s < 0)
		fputc('?', f);
	else
		fprintf(f, "%.1f s", s);
}

/* Where the results came from: the directory and its run.json. */
static void md_source(const struct report *r, FILE *f)
{
	json_t *wall = json_object_get(r->run, "wall_seconds");
	unsigned int i;

	if (!r->dir) {
		fputs("- results: ", f);
		for (i = 0; i < r->nr_fl; i++) {
			fprintf(f, "%s`", i ? ", " : "");
			md_puts(f, r->fl[i].path);
			fputc('`', f);
		}
		fputs(" (no run.json: commit and date unknown)\n\n", f);
		return;
	}
	fputs("- results: `", f);
	md_puts(f, r->dir);
	fputs("`\n- commit: ", f);
	md_puts(f, run_str(r, "commit", NULL) ?: "?");
	fputs("\n- date: ", f);
	md_puts(f, run_str(r, "date", NULL) ?: "?");
	fputs("\n- kernel source: ", f);
	md_puts(f, run_str(r, "source_package", "name") ?: "?");
	fputc(' ', f);
	md_puts(f, run_str(r, "source_package", "version") ?: "?");
	fputs("\n- job wall time: ", f);
	md_seconds(f, json_is_number(wall) ? json_number_value(wall) : -1);
	fputs("\n\n", f);
}

static void md_header(const struct report *r, FILE *f)
{
	unsigned int i;

	fprintf(f,
"# The GUP matrix, measured\n"
"\n"
"<!-- Generated by gupctl report (make docs); do not edit: rerun make\n"
"     matrix and make docs, or edit docs/matrix-learned.md for the last\n"
"     section. -->\n"
"\n"
"Generated by `gupctl report` from real runs of `gupctl matrix` on each\n"
"flavour's kernel booted under QEMU: every cell was set up and pinned\n"
"through `/dev/gup_test`, and its expected outcome was computed beforehand\n"
"from the flavour's GUP policy (`userspace/policy.c`), never from a run.\n"
"\n");
	md_source(r, f);

	fprintf(f,
"| flavour | policy | kernel | cells | run | not applicable | mismatches | gup_test disagrees | kernel reports | wall time |\n"
"|---|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
	for (i = 0; i < r->nr_fl; i++) {
		const struct mflavour *fl = &r->fl[i];

		fprintf(f, "| `%s` | ", fl->name);
		md_puts(f, fl->policy);
		fputs(" | ", f);
		md_puts(f, fl->kernel ?: "?");
		fprintf(f, " | %u of %u | %u | %u | %u | ", fl->nr_present,
			MATRIX_NR_CELLS, fl->nr_run, fl->nr_not_applicable,
			fl->nr_mismatch);
		if (fl->xcheck_nr < 0)
			fputs("not run", f);
		else
			fprintf(f, "%d of %d", fl->xcheck_disagree, fl->xcheck_nr);
		fprintf(f, " | %u | ", fl->nr_reports);
		md_seconds(f, fl->wall_matrix);
		fputs(" |\n", f);
	}
	for (i = 0; i < r->nr_not_run; i++)
		fprintf(f, "| `%s` | not run | | | | | | | | |\n", r->not_run[i].name);
	fputc('\n', f);
	for (i = 0; i < r->nr_not_run; i++) {
		fprintf(f, "Not run: `%s`: ", r->not_run[i].name);
		md_puts(f, r->not_run[i].why ?: "no reason recorded");
		fputs("\n\n", f);
	}
}

static void md_legend(FILE *f)
{
	unsigned int m;

	fprintf(f,
"## Legend\n"
"\n"
"Rows: what backs the pinned page, and what user space did to it before\n"
"the pin (untouched, read-faulted, write-faulted).  Columns: the GUP call,\n");
	for (m = 0; m < GUP_PIN_METHOD_COUNT; m++)
		fprintf(f, "`%s` %s(), ", method_short[m], gup_method_name(m));
	fprintf(f,
"with FOLL_WRITE (`W`), FOLL_LONGTERM (`L`), both (`LW`) or neither.\n"
"\n"
"| symbol | measured outcome |\n"
"|---|---|\n"
"| `P` | pinned: the page was taken |\n"
"| `F` | refused with EFAULT |\n"
"| `I` | refused with EINVAL |\n"
"| an errno name | refused with that errno |\n"
"| `0` | no error, but no page pinned |\n"
"| `\u00b7` | not run: not applicable to this cell (or its setup failed: then with `!`) |\n"
"| `!` after a symbol | the cell did not go as the policy expected (outcome, errno, setup or unpin) |\n"
"| blank | not in the results |\n"
"\n");
}

static void md_xcheck(const struct mflavour *fl, FILE *f)
{
	fputs("Cross-check with the kernel's own `gup_test`: ", f);
	if (fl->xcheck_nr < 0)
		fputs("not in the results.\n\n", f);
	else if (!fl->xcheck_disagree)
		fprintf(f, "it agrees on all %d cells it can express.\n\n",
			fl->xcheck_nr);
	else
		fprintf(f,
			"%d of the %d cells it can express disagree (the flavour's FLAVOUR.json lists them).\n\n",
			fl->xcheck_disagree, fl->xcheck_nr);
}

/* The kernel reports on the console, with the cell that was running. */
static void md_reports(const struct mflavour *fl, FILE *f)
{
	char what[160];
	unsigned int i;

	if (!fl->verdict)		/* not a FLAVOUR.json: no console */
		return;
	if (!fl->nr_reports) {
		fputs("Kernel reports on the console: none.\n\n", f);
		return;
	}
	fprintf(f, "Kernel reports on the console: %u, %u of them not expected:\n\n",
		fl->nr_reports, fl->nr_unexpected);
	for (i = 0; i < fl->nr_reports; i++) {
		const struct mreport *rep = &fl->reports[i];

		fprintf(f, "- %s", rep->expected ? "expected" : "**not expected**");
		fputs(" `", f);
		md_puts(f, rep->kind);
		fputs("` ", f);
		if (rep->cell != MATRIX_MARK_NONE) {
			fprintf(f, "during %s cell %d `", rep->step, rep->cell + 1);
			md_puts(f, matrix_cell_str(rep->cell, what, sizeof(what)));
			fputs("`", f);
		} else if (rep->step) {
			fputs("after ", f);
			md_puts(f, rep->step);
			fputs("'s last cell", f);
		} else {
			fputs("before the first cell", f);
		}
		fputs(": ", f);
		md_puts(f, rep->title);
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void md_flavour(const struct mflavour *fl, FILE *f)
{
	char label[64], what[160], measured[96];
	unsigned int row, col, idx;

	fprintf(f, "## Flavour `%s`\n\nPolicy `", fl->name);
	md_puts(f, fl->policy);
	fputs("`, kernel `", f);
	md_puts(f, fl->kernel ?: "?");
	fprintf(f, "`: %u cells in the results, %u run, %u not applicable.",
		fl->nr_present, fl->nr_run, fl->nr_not_applicable);
	if (fl->verdict) {
		fputs(" Kernel verdict of the boot: ", f);
		md_puts(f, fl->verdict);
		fputs("; the matrix took ", f);
		md_seconds(f, fl->wall_matrix);
		fputs(" in the guest, the boot ", f);
		md_seconds(f, fl->wall_boot);
		fputs(" from QEMU start to exit.", f);
	}
	fputs("\n\n", f);

	fputs("| backing | state |", f);
	for (col = 0; col < NR_COLS; col++) {
		col_label(label, sizeof(label), col);
		fprintf(f, " %s |", label);
	}
	fputs("\n|---|---|", f);
	for (col = 0; col < NR_COLS; col++)
		fputs(":-:|", f);
	fputc('\n', f);
	for (row = 0; row < NR_ROWS; row++) {
		fprintf(f, "| %s | %s |", backing_name(row / STATE_COUNT),
			state_name(row % STATE_COUNT));
		for (col = 0; col < NR_COLS; col++) {
			const struct mcell *c = &fl->cells[cell_at(row, col)];

			if (!c->present) {
				fputs(" |", f);
				continue;
			}
			fprintf(f, " %s%s |", symbol(c), c->match ? "" : "!");
		}
		fputc('\n', f);
	}

	fprintf(f, "\nMismatches: %u%s\n", fl->nr_mismatch,
		fl->nr_mismatch ? "" : ".");
	if (fl->nr_mismatch)
		fputc('\n', f);
	for (idx = 0; idx < MATRIX_NR_CELLS; idx++) {
		const struct mcell *c = &fl->cells[idx];

		if (!c->present || c->match)
			continue;
		matrix_cell_str(idx, what, sizeof(what));
		describe_measured(measured, sizeof(measured), c);
		fprintf(f, "- `%s`: measured %s, expected %s: ", what, measured,
			describe_expected(c));
		md_puts(f, c->reason);
		fputc('\n', f);
	}
	fputc('\n', f);
	md_xcheck(fl, f);
	md_reports(fl, f);
}

/* Do the flavours that ran cell @idx disagree on its measured outcome? */
static bool cell_disagrees(const struct report *r, unsigned int idx)
{
	const char *first = NULL;
	unsigned int i;

	for (i = 0; i < r->nr_fl; i++) {
		const struct mcell *c = &r->fl[i].cells[idx];

		if (!c->present)
			continue;
		if (!first)
			first = symbol(c);
		else if (strcmp(first, symbol(c)))
			return true;
	}
	return false;
}

static void md_disagreements(const struct report *r, FILE *f)
{
	unsigned int i, idx, nr = 0;
	char flags[64], measured[96];
	struct cell cl;
	bool sep;

	fputs("## Where flavours disagree\n\n", f);
	if (r->nr_fl < 2) {
		fputs("Only one flavour in the results: nothing to compare.\n\n", f);
		return;
	}
	for (idx = 0; idx < MATRIX_NR_CELLS; idx++)
		nr += cell_disagrees(r, idx);
	if (!nr) {
		fputs("The flavours measured the same outcome in every cell they all ran.\n\n", f);
		return;
	}
	fprintf(f, "The %u cell%s whose measured outcome differs between flavours (cells\n"
		"a flavour has no result for are not compared), with what the policy\n"
		"of each flavour that did not pin expected, and why.\n\n",
		nr, nr == 1 ? "" : "s");
	fputs("| method | flags | backing | state |", f);
	for (i = 0; i < r->nr_fl; i++)
		fprintf(f, " `%s` |", r->fl[i].name);
	fputs(" where not pinned: expected, why |\n|---|---|---|---|", f);
	for (i = 0; i < r->nr_fl; i++)
		fputs(":-:|", f);
	fputs("---|\n", f);

	for (idx = 0; idx < MATRIX_NR_CELLS; idx++) {
		if (!cell_disagrees(r, idx))
			continue;
		matrix_cell(idx, &cl);
		fprintf(f, "| %s | ", gup_method_name(cl.method));
		/* WRITE|LONGTERM: the '|' would end the table cell. */
		md_puts(f, gup_flags_str(cl.flags, flags, sizeof(flags)));
		fprintf(f, " | %s | %s |", backing_name(cl.backing),
			state_name(cl.state));
		for (i = 0; i < r->nr_fl; i++) {
			const struct mcell *c = &r->fl[i].cells[idx];

			if (c->present)
				fprintf(f, " %s%s |", symbol(c),
					c->match ? "" : "!");
			else
				fputs(" |", f);
		}
		sep = false;
		for (i = 0; i < r->nr_fl; i++) {
			const struct mcell *c = &r->fl[i].cells[idx];

			if (!c->present || c->measured == MATRIX_PINNED)
				continue;
			fprintf(f, "%s`%s`: ", sep ? "<br>" : " ", r->fl[i].name);
			if (!c->match) {
				describe_measured(measured, sizeof(measured), c);
				fprintf(f, "measured %s, ", measured);
			}
			fprintf(f, "expected %s: ", describe_expected(c));
			md_puts(f, c->reason);
			sep = true;
		}
		fputs(" |\n", f);
	}
	fputc('\n', f);
}

static void write_md(const struct report *r, FILE *f)
{
	unsigned int i;

	md_header(r, f);
	md_legend(f);
	for (i = 0; i < r->nr_fl; i++)
		md_flavour(&r->fl[i], f);
	md_disagreements(r, f);
	if (r->learned) {
		fputs("## What we learned\n\n", f);
		fwrite(r->learned, 1, r->learned_len, f);
		if (r->learned_len && r->learned[r->learned_len - 1] != '\n')
			fputc('\n', f);
	}
}

/* ---- SVG ---- */

#define SVG_MARGIN	20
#define SVG_TITLE_LINE	16	/* a line under the title */
#define SVG_PANEL_GAP	36
#define SVG_PTITLE_H	38	/* panel title: two lines */
#define SVG_COLLAB_H	48	/* rotated column labels */
#define SVG_LABEL_W	172	/* row labels */
#define SVG_CW		28
#define SVG_CH		16
#define SVG_GAPX	6	/* between methods */
#define SVG_GAPY	5	/* between backings */
#define SVG_GRID_W	(NR_COLS * SVG_CW + (GUP_PIN_METHOD_COUNT - 1) * SVG_GAPX)
#define SVG_GRID_H	(NR_ROWS * SVG_CH + (BACKING_COUNT - 1) * SVG_GAPY)
#define SVG_PANEL_W	(SVG_LABEL_W + SVG_GRID_W)
#define SVG_PANEL_H	(SVG_PTITLE_H + SVG_COLLAB_H + SVG_GRID_H)
#define SVG_LEGEND_ITEM	150
#define SVG_LEGEND_ROW	22

enum svg_class {
	SVG_PINNED, SVG_EFAULT, SVG_EINVAL, SVG_ERRNO, SVG_NONE_PINNED,
	SVG_NOT_RUN, SVG_MISSING, SVG_CLASS_COUNT
};

static const struct {
	const char *fill;
	const char *ink;		/* text on it */
	const char *label;		/* legend */
} svg_classes[SVG_CLASS_COUNT] = {
	[SVG_PINNED]	  = { "#2e9e4f", "#ffffff", "P pinned" },
	[SVG_EFAULT]	  = { "#d73027", "#ffffff", "F EFAULT" },
	[SVG_EINVAL]	  = { "#7f93b5", "#ffffff", "I EINVAL" },
	[SVG_ERRNO]	  = { "#f28e2b", "#000000", "E other errno" },
	[SVG_NONE_PINNED] = { "#9467bd", "#ffffff", "0 no error, no page" },
	[SVG_NOT_RUN]	  = { "#e0e0e0", "#000000", "not run" },
	[SVG_MISSING]	  = { "#ffffff", "#000000", "not in the results" },
};

static enum svg_class svg_class_of(const struct mcell *c)
{
	if (!c->present)
		return SVG_MISSING;
	switch (c->measured) {
	case MATRIX_PINNED:
		return SVG_PINNED;
	case MATRIX_NONE_PINNED:
		return SVG_NONE_PINNED;
	case MATRIX_REFUSED:
		if (!strcmp(c->meas_err, "EFAULT"))
			return SVG_EFAULT;
		if (!strcmp(c->meas_err, "EINVAL"))
			return SVG_EINVAL;
		return SVG_ERRNO;
	default:
		return SVG_NOT_RUN;
	}
}

static void xml_puts(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			/* XML 1.0 allows no C0 controls but tab and newlines. */
			fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
		}
	}
}

/* A swatch: the cell rectangle of class @cls at (@x, @y). */
static void svg_swatch(FILE *f, int x, int y, enum svg_class cls, bool mismatch)
{
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"",
		x, y, SVG_CW - 2, SVG_CH - 2, svg_classes[cls].fill);
	if (mismatch)
		fputs(" stroke=\"#000000\" stroke-width=\"2.5\"", f);
	else if (cls == SVG_MISSING)
		fputs(" stroke=\"#bbbbbb\" stroke-dasharray=\"2,2\"", f);
}

static void svg_cell(FILE *f, const struct mflavour *fl, unsigned int row,
		     unsigned int col)
{
	unsigned int idx = cell_at(row, col);
	const struct mcell *c = &fl->cells[idx];
	enum svg_class cls = svg_class_of(c);
	bool mismatch = c->present && !c->match;
	int x = SVG_LABEL_W + col * SVG_CW + col / MATRIX_NR_FLAGS * SVG_GAPX;
	int y = SVG_PTITLE_H + SVG_COLLAB_H + row * SVG_CH + row / STATE_COUNT * SVG_GAPY;
	char what[160], measured[96];
	const char *sym = c->present ? symbol(c) : "";

	matrix_cell_str(idx, what, sizeof(what));
	fprintf(f, "<g class=\"cell%s\">", mismatch ? " mismatch" : "");
	svg_swatch(f, x + 1, y + 1, cls, mismatch);
	fputs("><title>", f);
	xml_puts(f, fl->name);
	fputs(": ", f);
	xml_puts(f, what);
	if (c->present) {
		describe_measured(measured, sizeof(measured), c);
		fputs(": measured ", f);
		xml_puts(f, measured);
		fputs(", expected ", f);
		xml_puts(f, describe_expected(c));
		fputs(": ", f);
		xml_puts(f, c->reason);
	} else {
		fputs(": not in the results", f);
	}
	fputs("</title></rect>", f);
	if (cls == SVG_ERRNO)
		sym = "E";
	if (cls != SVG_NOT_RUN && cls != SVG_MISSING)
		fprintf(f,
			"<text x=\"%d\" y=\"%d\" fill=\"%s\" font-size=\"9\" text-anchor=\"middle\">%s</text>",
			x + SVG_CW / 2, y + SVG_CH - 4, svg_classes[cls].ink, sym);
	fputs("</g>\n", f);
}

static void svg_panel(FILE *f, const struct mflavour *fl, int px, int py)
{
	char label[96];
	unsigned int row, col;
	int x, y;

	fprintf(f, "<g class=\"panel\" id=\"panel-%s\" transform=\"translate(%d,%d)\">\n",
		fl->name, px, py);
	fprintf(f, "<text x=\"%d\" y=\"14\" font-size=\"13\" font-weight=\"bold\">",
		SVG_LABEL_W);
	xml_puts(f, fl->name);
	fputs(" (policy ", f);
	xml_puts(f, fl->policy);
	fputs(")</text>\n", f);
	fprintf(f, "<text x=\"%d\" y=\"30\" font-size=\"10\">kernel ", SVG_LABEL_W);
	xml_puts(f, fl->kernel ?: "?");
	if (fl->wall_matrix >= 0)
		fprintf(f, ", %.1f s", fl->wall_matrix);
	fprintf(f, ", %u run, %u mismatch%s, %u kernel report%s</text>\n",
		fl->nr_run, fl->nr_mismatch, fl->nr_mismatch == 1 ? "" : "es",
		fl->nr_reports, fl->nr_reports == 1 ? "" : "s");

	for (col = 0; col < NR_COLS; col++) {
		x = SVG_LABEL_W + col * SVG_CW + col / MATRIX_NR_FLAGS * SVG_GAPX +
		    SVG_CW / 2 + 3;
		y = SVG_PTITLE_H + SVG_COLLAB_H - 4;
		col_label(label, sizeof(label), col);
		fprintf(f,
			"<text x=\"%d\" y=\"%d\" font-size=\"10\" transform=\"rotate(-90 %d %d)\">%s</text>\n",
			x, y, x, y, label);
	}
	for (row = 0; row < NR_ROWS; row++) {
		y = SVG_PTITLE_H + SVG_COLLAB_H + row * SVG_CH +
		    row / STATE_COUNT * SVG_GAPY + SVG_CH - 4;
		row_label(label, sizeof(label), row);
		fprintf(f,
			"<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">%s</text>\n",
			SVG_LABEL_W - 6, y, label);
	}
	for (row = 0; row < NR_ROWS; row++)
		for (col = 0; col < NR_COLS; col++)
			svg_cell(f, fl, row, col);
	fputs("</g>\n", f);
}

static void svg_legend(FILE *f, int x0, int y0, int width)
{
	int per_row = width / SVG_LEGEND_ITEM, i, x, y;

	if (per_row < 1)
		per_row = 1;
	fprintf(f, "<g class=\"legend\" transform=\"translate(%d,%d)\">\n", x0, y0);
	for (i = 0; i <= SVG_CLASS_COUNT; i++) {
		x = i % per_row * SVG_LEGEND_ITEM;
		y = i / per_row * SVG_LEGEND_ROW;
		if (i < SVG_CLASS_COUNT)
			svg_swatch(f, x, y, i, false);
		else
			svg_swatch(f, x, y, SVG_NOT_RUN, true);
		fputs("/>", f);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\">%s</text>\n",
			x + SVG_CW + 4, y + SVG_CH - 5,
			i < SVG_CLASS_COUNT ? svg_classes[i].label :
			"outline: not as expected");
	}
	fputs("</g>\n", f);
}

static void write_svg(const struct report *r, FILE *f)
{
	unsigned int i, n = r->nr_fl;
	int width = 2 * SVG_MARGIN + n * SVG_PANEL_W + (n - 1) * SVG_PANEL_GAP;
	int legend_w, legend_rows, height, title_h, y;

	if (width < 2 * SVG_MARGIN + 5 * SVG_LEGEND_ITEM)
		width = 2 * SVG_MARGIN + 5 * SVG_LEGEND_ITEM;
	legend_w = width - 2 * SVG_MARGIN;
	legend_rows = (SVG_CLASS_COUNT + 1 + legend_w / SVG_LEGEND_ITEM - 1) /
		      (legend_w / SVG_LEGEND_ITEM);
	/* The title, then lines: the source, the axes (two), flavours not run. */
	title_h = 24 + SVG_TITLE_LINE * (3 + !!r->nr_not_run) + 10;
	height = SVG_MARGIN + title_h + SVG_PANEL_H + 24 +
		 legend_rows * SVG_LEGEND_ROW + SVG_MARGIN;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
		width, height, width, height);
	fputs("<title>The GUP matrix, measured</title>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		width, height);
	y = SVG_MARGIN + 14;
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" font-size=\"16\" font-weight=\"bold\">The GUP matrix, measured: what pin_user_pages() &amp; friends took</text>\n",
		SVG_MARGIN, y);
	y += 4;
	y += SVG_TITLE_LINE;
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">results: ", SVG_MARGIN, y);
	if (r->dir) {
		xml_puts(f, r->dir);
		fputs(", commit ", f);
		xml_puts(f, run_str(r, "commit", NULL) ?: "?");
		fputs(", ", f);
		xml_puts(f, run_str(r, "date", NULL) ?: "?");
	} else {
		for (i = 0; i < r->nr_fl; i++) {
			fputs(i ? ", " : "", f);
			xml_puts(f, r->fl[i].path);
		}
	}
	fputs("</text>\n", f);
	y += SVG_TITLE_LINE;
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" font-size=\"11\">rows: the page's backing, then what user space did to it before the pin</text>\n",
		SVG_MARGIN, y);
	y += SVG_TITLE_LINE;
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" font-size=\"11\">columns: pin/pinF = pin_user_pages(_fast), get/getF = get_user_pages(_fast); W FOLL_WRITE, L FOLL_LONGTERM</text>\n",
		SVG_MARGIN, y);
	if (r->nr_not_run) {
		y += SVG_TITLE_LINE;
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">not run:", SVG_MARGIN, y);
		for (i = 0; i < r->nr_not_run; i++)
			fprintf(f, "%s %s", i ? "," : "", r->not_run[i].name);
		fputs("</text>\n", f);
	}
	for (i = 0; i < n; i++)
		svg_panel(f, &r->fl[i], SVG_MARGIN + i * (SVG_PANEL_W + SVG_PANEL_GAP),
			  SVG_MARGIN + title_h);
	svg_legend(f, SVG_MARGIN, SVG_MARGIN + title_h + SVG_PANEL_H + 24,
		   legend_w);
	fputs("</svg>\n", f);
}

/* ---- Main ---- */

static int write_file(const char *what, const char *path,
		      void (*write)(const struct report *, FILE *),
		      const struct report *r)
{
	FILE *f = fopen(path, "we");
	int err;

	if (!f) {
		fprintf(stderr, "gupctl report: cannot open --%s %s: %s (%s)\n",
			what, path, errno_name(errno), strerror(errno));
		return GUPCTL_EXIT_USAGE;
	}
	write(r, f);
	err = fflush(f) || ferror(f) ? (errno ?: EIO) : 0;
	if (fclose(f) && !err)
		err = errno;
	if (err) {
		fprintf(stderr, "gupctl report: writing %s failed: %s (%s)\n", path,
			errno_name(err), strerror(err));
		return GUPCTL_EXIT_USAGE;
	}
	return 0;
}

/* Load FLAVOUR.json @path as the next flavour. */
static int load_flavour(struct report *r, const char *path)
{
	struct mflavour *fl = &r->fl[r->nr_fl];
	unsigned int i;
	int ret;

	ret = matrix_json_load(path, fl, "report");
	r->nr_fl++;			/* free it whatever happened */
	if (ret)
		return ret;
	for (i = 0; i + 1 < r->nr_fl; i++)
		if (!strcmp(r->fl[i].name, fl->name))
			return usage_error("report",
					   "flavour %s is in both %s and %s: one document per flavour",
					   fl->name, r->fl[i].path, path);
	return 0;
}

/* A results directory: run.json names the flavours, in run order. */
static int load_dir(struct report *r, const char *dir)
{
	const char *name, *why;
	char path[4096];
	size_t i, n;
	json_t *fls, *e;
	int ret;

	r->dir = dir;
	snprintf(path, sizeof(path), "%s/run.json", dir);
	r->run = matrix_json_read_file(path, "report");
	if (!r->run)
		return GUPCTL_EXIT_USAGE;
	fls = json_object_get(r->run, "flavours");
	if (!json_is_array(fls))
		return usage_error("report",
				   "%s: no \"flavours\" array: not a results directory of make matrix?",
				   path);
	n = json_array_size(fls);
	r->fl = calloc(n + 1, sizeof(*r->fl));
	r->not_run = calloc(n + 1, sizeof(*r->not_run));
	if (!r->fl || !r->not_run)
		return usage_error("report", "out of memory (ENOMEM)");
	json_array_foreach(fls, i, e) {
		name = json_string_value(json_object_get(e, "name"));
		why = json_string_value(json_object_get(e, "why_not_run"));
		if (!name || !matrix_valid_flavour(name) ||
		    !json_is_boolean(json_object_get(e, "ran")))
			return usage_error("report",
					   "%s: flavours[%zu]: want a flavour \"name\" and a boolean \"ran\"",
					   path, i);
		if (!json_is_true(json_object_get(e, "ran"))) {
			r->not_run[r->nr_not_run++] = (struct not_run){ name, why };
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s.json", dir, name);
		ret = load_flavour(r, path);
		if (ret)
			return ret;
	}
	return 0;
}

static int load_inputs(struct report *r)
{
	struct stat st;
	unsigned int i;
	int ret;

	if (!stat(r->o.inputs[0], &st) && S_ISDIR(st.st_mode)) {
		if (r->o.nr_inputs > 1)
			return usage_error("report",
					   "give one results directory, or FLAVOUR.json files");
		return load_dir(r, r->o.inputs[0]);
	}
	r->fl = calloc(r->o.nr_inputs, sizeof(*r->fl));
	if (!r->fl)
		return usage_error("report", "out of memory (ENOMEM)");
	for (i = 0; i < r->o.nr_inputs; i++) {
		ret = load_flavour(r, r->o.inputs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static void free_report(struct report *r)
{
	unsigned int i;

	for (i = 0; i < r->nr_fl; i++)
		matrix_json_free(&r->fl[i]);
	free(r->fl);
	free(r->not_run);
	free(r->learned);
	json_decref(r->run);
}

int cmd_report(int argc, char **argv)
{
	struct report r;
	unsigned int i, failed = 0;
	int ret;

	memset(&r, 0, sizeof(r));
	ret = parse_report_opts(argc, argv, &r.o);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (r.o.c.out)
		return matrix_collect(&r.o.c);

	ret = load_inputs(&r) ?:
	      read_learned(&r) ?:
	      write_file("md", r.o.md, write_md, &r) ?:
	      write_file("svg", r.o.svg, write_svg, &r);
	if (ret)
		goto out;

	for (i = 0; i < r.nr_fl; i++) {
		const struct mflavour *fl = &r.fl[i];

		failed += matrix_flavour_failed(fl);
		printf("%s: %u cells, %u run, %u not applicable, ", fl->name,
		       fl->nr_present, fl->nr_run, fl->nr_not_applicable);
		printf("%u mismatch%s, %u kernel report%s\n", fl->nr_mismatch,
		       fl->nr_mismatch == 1 ? "" : "es", fl->nr_reports,
		       fl->nr_reports == 1 ? "" : "s");
	}
	for (i = 0; i < r.nr_not_run; i++)
		printf("%s: not run: %s\n", r.not_run[i].name,
		       r.not_run[i].why ?: "no reason recorded");
	printf("wrote %s and %s\n", r.o.md, r.o.svg);
	ret = failed || r.nr_not_run ? GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK;
out:
	free_report(&r);
	return ret;
}
