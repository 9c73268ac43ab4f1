// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl report, on the host: the flavour's results document after a boot
 * (--collect, matrix/collect.c), and from results the markdown page and
 * the self-contained SVG heatmap of the matrix.  The guide: docs/gupctl.md,
 * "gupctl report".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "console/kreports.h"
#include "console/lines.h"
#include "console/markers.h"
#include "explorer/page.h"
#include "lib/groups.h"
#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/kmsg.h"
#include "lib/options.h"
#include "lib/util.h"
#include "matrix/collect.h"
#include "matrix/json.h"
#include "matrix/report.h"
#include "matrix/report_policies.h"
#include "model/cell.h"
#include "model/policy.h"


struct report_opts {
	struct collect_opts c;		/* --collect */
	const char *boot_seconds;
	const char *md, *svg, *learned;	/* the pages */
	const char *html;		/* the explorer */
	const char *policies;		/* docs/policies.md, optional */
	const char *findings;		/* --findings: the reports, judged */
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

/* ---- Options ---- */

static const char * const report_usage[] = {
	"gupctl report --md FILE --svg FILE [--learned FILE] [--html FILE] RESULTS...",
	"gupctl report --html FILE RESULTS...",
	"gupctl report --collect FILE --flavour NAME --policy POLICY [OPTIONS]",
	"gupctl report --findings FILE --policy POLICY --reports FILE --src TREE",
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
		{ o->c.src, "--src" },
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
				   "bad --flavour '%s': 1 to 63 letters, digits, '.', '_', '+', '@' or '-'",
				   o->c.flavour);
	if (!policy_lookup(o->c.policy) && !policy_is_none(o->c.policy))
		return usage_error("report", "unknown --policy '%s': give one of: %s, or %s",
				   o->c.policy, policy_names(), POLICY_NONE);
	o->c.boot_seconds = strtod(o->boot_seconds, &end);
	if (end == o->boot_seconds || *end || o->c.boot_seconds < 0)
		return usage_error("report", "bad --boot-seconds '%s': give seconds",
				   o->boot_seconds);
	return 0;
}

static int check_findings_opts(const struct report_opts *o)
{
	if (o->md || o->svg || o->learned || o->nr_inputs)
		return usage_error("report",
				   "--findings writes one document: no --md, --svg, --learned or RESULTS with it");
	if (!o->c.policy || !o->c.reports || !o->c.src)
		return usage_error("report", "--findings needs --policy, --reports and --src");
	if (!policy_lookup(o->c.policy))
		return usage_error("report", "unknown --policy '%s': give one of: %s",
				   o->c.policy, policy_names());
	return 0;
}

/*
 * --findings: the reports of a boot no cell attributes (make soak's fuzz
 * boot), each with the series' own finding it is (series_findings[]) or
 * null.  Exit 0 when every report is one, 1 when any is not.
 */
static int write_findings(const struct report_opts *o)
{
	json_t *a = series_findings_json(o->c.reports, o->c.policy, o->c.src), *j;
	size_t i, ours = 0;

	if (!a)
		return GUPCTL_EXIT_USAGE;
	json_array_foreach(a, i, j)
		ours += json_is_null(json_object_get(j, "series_finding"));
	if (json_dump_file(a, o->findings, JSON_INDENT(1) | JSON_PRESERVE_ORDER)) {
		fprintf(stderr, "gupctl report: cannot write %s\n", o->findings);
		json_decref(a);
		return GUPCTL_EXIT_USAGE;
	}
	printf("%zu kernel report%s: %zu the series' own, %zu not\n", json_array_size(a),
	       json_array_size(a) == 1 ? "" : "s", json_array_size(a) - ours, ours);
	json_decref(a);
	return ours ? GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK;
}

/* 0: options valid; GOPT_HELP: help printed; otherwise an exit code. */
static int parse_report_opts(int argc, char **argv, struct report_opts *o)
{
	int ret, argi;
	const struct gopt opts[] = {
		GOPT_GROUP("The pages, from a results directory or FLAVOUR.json files"),
		GOPT_STRING(0, "md", &o->md, "FILE", "write the markdown page"),
		GOPT_STRING(0, "svg", &o->svg, "FILE", "write the SVG heatmap"),
		GOPT_STRING(0, "html", &o->html, "FILE",
			    "write the results explorer (alone, or with --md and --svg)"),
		GOPT_STRING(0, "policies", &o->policies, "FILE",
			    "also write the policies side by side (docs/policies.md)"),
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
		GOPT_STRING(0, "src", &o->c.src, "TREE",
			    "the flavour's source tree, for the lines of kernel reports (required)"),
		GOPT_STRING(0, "matrix", &o->c.matrix, "FILE",
			    "the guest's matrix document, if it wrote one"),
		GOPT_STRING(0, "xcheck", &o->c.xcheck, "FILE",
			    "the guest's cross-check document, if it wrote one"),
		GOPT_GROUP("A boot's kernel reports, outside the matrix (make soak)"),
		GOPT_STRING(0, "findings", &o->findings, "FILE",
			    "write --reports, each marked with the series' own finding it is"),
		GOPT_END()
	};

	memset(o, 0, sizeof(*o));
	ret = gopt_parse("report", argc, argv, opts, report_usage, &argi);
	if (ret)
		return ret;
	o->inputs = argv + argi;
	o->nr_inputs = argc - argi;
	if (o->c.out && o->findings)
		return usage_error("report", "--collect or --findings, not both");
	if (o->c.out)
		return check_collect_opts(o);
	if (o->findings)
		return check_findings_opts(o);
	if (o->html && !o->md && !o->svg)
		goto inputs;
	if (!o->md)
		return usage_error("report", "no --md FILE: where should the markdown go?");
	if (!o->svg)
		return usage_error("report", "no --svg FILE: where should the SVG go?");
	if (!strcmp(o->md, o->svg))
		return usage_error("report", "--md and --svg name the same file '%s'", o->md);
inputs:
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

/*
 * A cell as one character: its measured outcome, how it was refused, and
 * whether it went as expected.  The legend (md_legend(), svg_legend())
 * reads this table; the SVG colours come from it too.
 */
struct sym {
	char c;
	const char *meaning;
	const char *fill, *ink;		/* SVG: the cell's colour, its letter's */
};

static const struct sym syms[] = {
	{ 'P', "pinned: the page was taken",
	  "#2e9e4f", "#ffffff" },
	{ 'e', "refused with EFAULT by the kernel",
	  "#d73027", "#ffffff" },
	{ 'E', "refused with EFAULT, and the kernel WARNING the policy expects",
	  "#d73027", "#ffffff" },
	{ 'i', "refused with EINVAL by the kernel",
	  "#4a6fa5", "#ffffff" },
	{ 'I', "refused with EINVAL, and the kernel WARNING the policy expects",
	  "#4a6fa5", "#ffffff" },
	{ 'o', "refused with EOPNOTSUPP by the kernel",
	  "#f28e2b", "#000000" },
	{ 'O', "refused with EOPNOTSUPP, and the kernel WARNING the policy expects",
	  "#f28e2b", "#000000" },
	{ 'x', "refused with another errno (the flavour's FLAVOUR.json names it)",
	  "#8c564b", "#ffffff" },
	{ 'X', "refused with another errno, and the kernel WARNING the policy expects",
	  "#8c564b", "#ffffff" },
	{ 'd', "refused by gup_pin_test before GUP is called (the reason says why)",
	  "#bcbd22", "#000000" },
	{ '0', "no error, but no page pinned",
	  "#9467bd", "#ffffff" },
	{ '-', "not run: not applicable (the reason says why: it cannot be set up, or another cell stands for it)",
	  "#e6e6e6", "#e6e6e6" },
	{ '!', "not as the policy expected (outcome, errno, setup, unpin, THP, WARNING): see the flavour's mismatches",
	  NULL, NULL },
	{ '?', "not in the results",
	  "#ffffff", "#ffffff" },
};

/* Does symbol @c stand for a refusal with the expected kernel WARNING? */
static bool sym_warns(char c)
{
	return c >= 'A' && c <= 'Z' && c != 'P';
}

/*
 * The measured outcome as a symbol.  @as_expected: the cell matched, so
 * the expectation tells how it was refused (by the driver, with a WARNING).
 */
static char measured_sym(const struct mcell *c, bool as_expected)
{
	char s;

	if (!c->present)
		return '?';
	switch (c->measured) {
	case MATRIX_PINNED:
		return 'P';
	case MATRIX_NONE_PINNED:
		return '0';
	case MATRIX_NOT_RUN:
		return '-';
	default:
		break;
	}
	if (as_expected && c->by_driver)
		return 'd';
	if (!strcmp(c->meas_err, "EFAULT"))
		s = 'e';
	else if (!strcmp(c->meas_err, "EINVAL"))
		s = 'i';
	else if (!strcmp(c->meas_err, "EOPNOTSUPP"))
		s = 'o';
	else
		s = 'x';
	return as_expected && c->report.kind ? s - 'a' + 'A' : s;
}

/* The symbol a page shows: '!' for a cell not as expected. */
static char cell_sym(const struct mcell *c)
{
	if (c->present && !c->match)
		return '!';
	return measured_sym(c, true);
}

/*
 * The grid of a page: a row per backing and state, a column per flag mix,
 * in each a string of one symbol per method: the pin methods, a space,
 * the get methods (each group in the uapi's order).
 */
#define NR_ROWS		(BACKING_COUNT * STATE_COUNT)
#define CELL_STR_LEN	(GUP_PIN_METHOD_COUNT + 2)

static unsigned int method_order[GUP_PIN_METHOD_COUNT];
static unsigned int nr_pin_methods;

static void init_method_order(void)
{
	unsigned int m, n = 0;

	for (m = 0; m < GUP_PIN_METHOD_COUNT; m++)
		if (method_is_pin(m))
			method_order[n++] = m;
	nr_pin_methods = n;
	for (m = 0; m < GUP_PIN_METHOD_COUNT; m++)
		if (!method_is_pin(m))
			method_order[n++] = m;
}

/* The index of the cell at @row, flag mix @f and the @k-th method shown. */
static unsigned int grid_cell(unsigned int row, unsigned int f, unsigned int k)
{
	struct cell c = {
		.method = method_order[k],
		.flags = matrix_flag_sets[f],
		.backing = row / STATE_COUNT,
		.state = row % STATE_COUNT,
	};

	return matrix_index(&c);
}

/* The symbols of row @row, flag mix @f, as a string of CELL_STR_LEN. */
static char *cell_str(const struct mflavour *fl, unsigned int row,
		      unsigned int f, char buf[CELL_STR_LEN])
{
	unsigned int k, n = 0;

	for (k = 0; k < GUP_PIN_METHOD_COUNT; k++) {
		if (k == nr_pin_methods && k)
			buf[n++] = ' ';
		buf[n++] = cell_sym(&fl->cells[grid_cell(row, f, k)]);
	}
	buf[n] = '\0';
	return buf;
}

/* "W", "WLF", "none": the flag mix's letters (md_legend() names them). */
static const char *flags_label(unsigned int f)
{
	static char buf[MATRIX_NR_FLAGS][8];
	static const struct { unsigned int bit; char c; } letters[] = {
		{ GUP_PIN_FLAG_WRITE, 'W' }, { GUP_PIN_FLAG_LONGTERM, 'L' },
		{ GUP_PIN_FLAG_FORCE, 'F' }, { GUP_PIN_FLAG_ALLOW_BROKEN, 'A' },
	};
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(letters); i++)
		if (matrix_flag_sets[f] & letters[i].bit)
			buf[f][n++] = letters[i].c;
	snprintf(buf[f] + n, sizeof(buf[f]) - n, "%s", n ? "" : "none");
	return buf[f];
}

static const char *row_backing(unsigned int row)
{
	return backing_name(row / STATE_COUNT);
}

static const char *row_state(unsigned int row)
{
	return state_name(row % STATE_COUNT);
}

/* Is every cell of @row not applicable (and as expected)? */
static bool row_not_applicable(const struct mflavour *fl, unsigned int row)
{
	unsigned int f, k;

	for (f = 0; f < MATRIX_NR_FLAGS; f++)
		for (k = 0; k < GUP_PIN_METHOD_COUNT; k++)
			if (cell_sym(&fl->cells[grid_cell(row, f, k)]) != '-')
				return false;
	return true;
}

/* The flavour the others are compared with: stock, or the first. */
static const struct mflavour *reference(const struct report *r)
{
	unsigned int i;

	for (i = 0; i < r->nr_fl; i++)
		if (!strcmp(r->fl[i].name, "stock"))
			return &r->fl[i];
	return r->nr_fl ? &r->fl[0] : NULL;
}

/*
 * Does cell @idx of @fl show another symbol than the reference's?  Cells
 * either has no result for, or calls not applicable, are not compared: a
 * policy that decides a cell by the method and flags alone runs it once.
 */
static bool differs(const struct mflavour *ref, const struct mflavour *fl,
		    unsigned int idx)
{
	char a = cell_sym(&ref->cells[idx]), b = cell_sym(&fl->cells[idx]);

	return fl != ref && a != b && a != '?' && b != '?' && a != '-' && b != '-';
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
	char sources[256];
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
	fputc('`', f);
	if (r->o.html) {
		fputs(" (explorer, to open in a browser: `", f);
		md_puts(f, r->o.html);
		fputs("`)", f);
	}
	fputs("\n- commit: ", f);
	md_puts(f, run_str(r, "commit", NULL) ?: "?");
	fputs("\n- date: ", f);
	md_puts(f, run_str(r, "date", NULL) ?: "?");
	fputs("\n- kernel sources: ", f);
	run_json_sources(r->run, sources, sizeof(sources));
	md_puts(f, sources);
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
"from the flavour's GUP policy (`userspace/model/policy.c`), never from a run.\n"
"\n");
	md_source(r, f);

	fprintf(f,
"| flavour | policy | kernel | cells | run | not applicable | mismatches | gup_test disagrees | kernel reports expected | unexpected | wall time |\n"
"|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
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
		if (fl->verdict && fl->nr_series)
			fprintf(f, " | %u | %u (+ %u the series' own) | ",
				mflavour_expected_reports(fl), fl->nr_unexpected, fl->nr_series);
		else if (fl->verdict)
			fprintf(f, " | %u | %u | ", mflavour_expected_reports(fl),
				fl->nr_unexpected);
		else
			fputs(" | no console | no console | ", f);
		md_seconds(f, fl->wall_matrix);
		fputs(" |\n", f);
	}
	for (i = 0; i < r->nr_not_run; i++)
		fprintf(f, "| `%s` | not run | | | | | | | | | |\n", r->not_run[i].name);
	fputc('\n', f);
	for (i = 0; i < r->nr_not_run; i++) {
		fprintf(f, "Not run: `%s`: ", r->not_run[i].name);
		md_puts(f, r->not_run[i].why ?: "no reason recorded");
		fputs("\n\n", f);
	}
}

static void md_legend(FILE *f)
{
	unsigned int k, i;

	fputs("## Legend\n\n"
	      "One table per flavour. Rows: what backs the pinned page, and what user\n"
	      "space did to it before the pin. Columns: the flags, FOLL_WRITE (`W`),\n"
	      "FOLL_LONGTERM (`L`), FOLL_FORCE (`F`), FOLL_ALLOW_BROKEN_FILE_MAPPING\n"
	      "(`A`). In each, one symbol per GUP call, in this order: ", f);
	for (k = 0; k < GUP_PIN_METHOD_COUNT; k++)
		fprintf(f, "%s%s()", k ? (k == nr_pin_methods ? "; then " : ", ") : "",
			gup_method_name(method_order[k]));
	fputs(". So `PPPP ePPe` is pinned by every pin method, and refused\n"
	      "with EFAULT by the first and last get method.\n\n"
	      "| symbol | the cell |\n|---|---|\n", f);
	for (i = 0; i < ARRAY_SIZE(syms); i++)
		fprintf(f, "| `%c` | %s |\n", syms[i].c, syms[i].meaning);
	fputs("\nA WARNING is expected only where the policy derives one from the\n"
	      "kernel's code; it must appear on the console during that cell, at a\n"
	      "line of the flavour's source that holds the WARN's text.\n\n", f);
}

/* The symbol counts of every flavour. */
static void md_counts(const struct report *r, FILE *f)
{
	unsigned int i, s, idx, n;

	fputs("## Counts\n\nCells per symbol (see the legend).\n\n| flavour |", f);
	for (s = 0; s < ARRAY_SIZE(syms); s++)
		fprintf(f, " `%c` |", syms[s].c);
	fputs("\n|---|", f);
	for (s = 0; s < ARRAY_SIZE(syms); s++)
		fputs("--:|", f);
	fputc('\n', f);
	for (i = 0; i < r->nr_fl; i++) {
		fprintf(f, "| `%s` |", r->fl[i].name);
		for (s = 0; s < ARRAY_SIZE(syms); s++) {
			for (n = idx = 0; idx < MATRIX_NR_CELLS; idx++)
				n += cell_sym(&r->fl[i].cells[idx]) == syms[s].c;
			fprintf(f, " %u |", n);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

/* The gup_test cross-check: its verdict, then what it could not express. */
static void md_xcheck(const struct mflavour *fl, FILE *f)
{
	json_t *skipped = json_object_get(json_object_get(fl->doc, "xcheck"),
					  "not_checked"), *j;
	size_t i;

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
	json_array_foreach(skipped, i, j) {
		fprintf(f, "%s%lld cells: ", i ? "- " : "Not cross-checked:\n\n- ",
			(long long)json_integer_value(json_object_get(j, "cells")));
		md_puts(f, json_string_value(json_object_get(j, "reason")));
		fputc('\n', f);
	}
	if (json_array_size(skipped))
		fputc('\n', f);
}

/* Where report @rep came from: "during matrix cell 12 `...`". */
static void md_report_when(const struct mreport *rep, FILE *f)
{
	char what[160];

	if (rep->cell != KMSG_MARK_END) {
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
}

/*
 * The kernel reports on the console: each one no cell expected, in full;
 * the expected ones counted per location.
 */
static void md_reports(const struct mflavour *fl, FILE *f)
{
	unsigned int i, j, n;
	bool first = true;

	if (!fl->verdict)		/* not a FLAVOUR.json: no console */
		return;
	if (!fl->nr_reports) {
		fputs("Kernel reports on the console: none.\n\n", f);
		return;
	}
	fprintf(f, "Kernel reports on the console: %u expected, %u not expected",
		mflavour_expected_reports(fl), fl->nr_unexpected);
	if (fl->nr_series)
		fprintf(f, ", %u the series' own finding%s", fl->nr_series,
			fl->nr_series == 1 ? "" : "s");
	if (fl->nr_findings)
		fprintf(f, ", %u during cells with no policy to compare (findings)",
			fl->nr_findings);
	fputc('.', f);
	for (i = 0; i < fl->nr_reports; i++) {
		const struct mreport *rep = &fl->reports[i];

		if (!rep->expected)
			continue;
		for (j = 0; j < i; j++)
			if (fl->reports[j].expected &&
			    !strcmp(fl->reports[j].location ?: "", rep->location ?: ""))
				break;
		if (j < i)
			continue;	/* counted with the first at its location */
		for (n = 0, j = i; j < fl->nr_reports; j++)
			n += fl->reports[j].expected &&
			     !strcmp(fl->reports[j].location ?: "", rep->location ?: "");
		fprintf(f, "%s%u `", first ? " Expected, each during the cell that expects it: " : ", ", n);
		md_puts(f, rep->kind);
		fputs("` at `", f);
		md_puts(f, rep->location ?: "?");
		fputc('`', f);
		first = false;
	}
	fputs(first ? "\n\n" : ".\n\n", f);
	for (i = 0; i < fl->nr_reports; i++) {
		const struct mreport *rep = &fl->reports[i];

		if (rep->expected)
			continue;
		fputs(rep->series ? "- **the series' own finding** `" :
		      rep->finding ? "- **finding, " MATRIX_MEASURED_ONLY "** `" :
		      "- **not expected** `", f);
		md_puts(f, rep->kind);
		fputs("` ", f);
		md_report_when(rep, f);
		fputs(": ", f);
		md_puts(f, rep->title);
		if (rep->note) {
			fputs(" (", f);
			md_puts(f, rep->note);
			fputc(')', f);
		}
		fputc('\n', f);
	}
	if (fl->nr_unexpected || fl->nr_series || fl->nr_findings)
		fputc('\n', f);
}

/* Rows every cell of which is not applicable: named, not drawn. */
static void md_rows_not_applicable(const struct mflavour *fl, FILE *f)
{
	unsigned int row, other;
	const char *reason;
	bool sep;

	for (row = 0; row < NR_ROWS; row++) {
		if (!row_not_applicable(fl, row))
			continue;
		reason = fl->cells[grid_cell(row, 0, 0)].reason;
		for (other = 0; other < row; other++)
			if (row_not_applicable(fl, other) &&
			    !strcmp(fl->cells[grid_cell(other, 0, 0)].reason, reason))
				break;
		if (other < row)
			continue;	/* named with the first row of its reason */
		fputs("Not shown, every cell not applicable: ", f);
		for (sep = false, other = row; other < NR_ROWS; other++) {
			if (!row_not_applicable(fl, other) ||
			    strcmp(fl->cells[grid_cell(other, 0, 0)].reason, reason))
				continue;
			fprintf(f, "%s`%s %s`", sep ? ", " : "", row_backing(other),
				row_state(other));
			sep = true;
		}
		fputs(": ", f);
		md_puts(f, reason);
		fputs(".\n\n", f);
	}
}

static void md_grid(const struct mflavour *fl, FILE *f)
{
	char s[CELL_STR_LEN];
	unsigned int row, col;

	fputs("| backing | state |", f);
	for (col = 0; col < MATRIX_NR_FLAGS; col++)
		fprintf(f, " %s |", flags_label(col));
	fputs("\n|---|---|", f);
	for (col = 0; col < MATRIX_NR_FLAGS; col++)
		fputs(":-:|", f);
	fputc('\n', f);
	for (row = 0; row < NR_ROWS; row++) {
		if (row_not_applicable(fl, row))
			continue;
		fprintf(f, "| %s | %s |", row_backing(row), row_state(row));
		for (col = 0; col < MATRIX_NR_FLAGS; col++)
			fprintf(f, " `%s` |", cell_str(fl, row, col, s));
		fputc('\n', f);
	}
	fputc('\n', f);
	md_rows_not_applicable(fl, f);
}

static void md_mismatches(const struct mflavour *fl, FILE *f)
{
	char what[160], measured[96], expected[96];
	unsigned int idx;

	if (policy_is_none(fl->policy))
		fprintf(f, "Cells that did not run cleanly (policy %s: no cell is compared, so nothing else is a mismatch): %u%s\n",
			POLICY_NONE, fl->nr_mismatch, fl->nr_mismatch ? "" : ".");
	else
		fprintf(f, "Mismatches: %u%s\n", fl->nr_mismatch, fl->nr_mismatch ? "" : ".");
	if (fl->nr_mismatch)
		fputc('\n', f);
	for (idx = 0; idx < MATRIX_NR_CELLS; idx++) {
		const struct mcell *c = &fl->cells[idx];

		if (!c->present || c->match)
			continue;
		matrix_cell_str(idx, what, sizeof(what));
		mcell_measured_str(measured, sizeof(measured), c);
		mcell_expected_str(expected, sizeof(expected), c);
		fprintf(f, "- %u `%s`: measured %s, expected %s: ", idx + 1, what,
			measured, expected);
		md_puts(f, c->reason);
		if (c->note) {
			fputs(" **", f);
			md_puts(f, c->note);
			fputs("**", f);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void md_flavour(const struct mflavour *fl, FILE *f)
{
	fprintf(f, "## Flavour `%s`\n\nPolicy `", fl->name);
	md_puts(f, fl->policy);
	fputs("`, kernel `", f);
	md_puts(f, fl->kernel ?: "?");
	fprintf(f, "`: %u cells in the results, %u run, %u not applicable.",
		fl->nr_present, fl->nr_run, fl->nr_not_applicable);
	if (policy_is_none(fl->policy))
		fprintf(f, " Policy `%s`: %u cells " MATRIX_MEASURED_ONLY
			" (gupctl detect matched this kernel to no policy the lab models):"
			" each shows its measured outcome; none is a mismatch, a WARNING"
			" during a cell is listed as that cell's finding, and only a"
			" cell that did not run cleanly, or a report other than a"
			" WARNING, fails the flavour.", POLICY_NONE, fl->nr_measured_only);
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
	md_grid(fl, f);
	md_mismatches(fl, f);
	md_xcheck(fl, f);
	md_reports(fl, f);
}

/* Has cell @idx of @fl the same change from @ref as cell @other? */
static bool same_change(const struct mflavour *ref, const struct mflavour *fl,
			unsigned int idx, unsigned int other)
{
	return cell_sym(&ref->cells[idx]) == cell_sym(&ref->cells[other]) &&
	       cell_sym(&fl->cells[idx]) == cell_sym(&fl->cells[other]) &&
	       !strcmp(fl->cells[idx].reason, fl->cells[other].reason);
}

/* The cells of a flavour that differ from the reference: for groups_make(). */
struct differs_ctx {
	const struct mflavour *ref, *fl;
};

static bool differs_same_change(unsigned int a, unsigned int b, void *ctx)
{
	const struct differs_ctx *d = ctx;

	return same_change(d->ref, d->fl, a, b);
}

/* Why @fl differs from @ref: its cells grouped by change and reason. */
static void md_why_differs(const struct mflavour *ref, const struct mflavour *fl,
			   FILE *f)
{
	struct differs_ctx ctx = { ref, fl };
	unsigned int idx, k, n, nr = 0, items[MATRIX_NR_CELLS];
	struct groups g;

	for (idx = 0; idx < MATRIX_NR_CELLS; idx++)
		if (differs(ref, fl, idx))
			items[nr++] = idx;
	fprintf(f, "### `%s`: %u cell%s differ%s from `%s`\n\n", fl->name, nr,
		nr == 1 ? "" : "s", nr == 1 ? "s" : "", ref->name);
	if (!nr)
		return;
	if (groups_make(&g, items, nr, differs_same_change, &ctx)) {
		fputs("(out of memory: the groups are missing)\n\n", f);
		return;
	}
	fprintf(f, "Grouped by the change and `%s`'s reason for its outcome:\n\n",
		fl->name);
	for (k = 0; k < g.nr; k++) {
		idx = groups_first(&g, k);
		n = groups_size(&g, k);
		fprintf(f, "- `%c` \u2192 `%c`, %u cell%s: ", cell_sym(&ref->cells[idx]),
			cell_sym(&fl->cells[idx]), n, n == 1 ? "" : "s");
		md_puts(f, fl->cells[idx].reason);
		fputc('\n', f);
	}
	fputc('\n', f);
	groups_free(&g);
}

/*
 * What reviewers read: every grid cell (row and flag mix) in which a
 * flavour shows another symbol than the reference, then why.
 */
static void md_differences(const struct report *r, FILE *f)
{
	const struct mflavour *ref = reference(r);
	char s[CELL_STR_LEN];
	unsigned int i, row, col, k;
	bool any;

	fprintf(f, "## Where flavours differ from `%s`\n\n", ref ? ref->name : "?");
	if (r->nr_fl < 2) {
		fputs("Only one flavour in the results: nothing to compare.\n\n", f);
		return;
	}
	fprintf(f,
		"Every row and flag mix in which a flavour shows another symbol than `%s`,\n"
		"the symbols as in the flavours' tables. Cells either flavour has no\n"
		"result for (`?`) or does not run (`-`) are not compared.\n\n"
		"| backing | state | flags |", ref->name);
	for (i = 0; i < r->nr_fl; i++)
		fprintf(f, " `%s` |", r->fl[i].name);
	fputs("\n|---|---|---|", f);
	for (i = 0; i < r->nr_fl; i++)
		fputs(":-:|", f);
	fputc('\n', f);
	for (row = 0; row < NR_ROWS; row++) {
		for (col = 0; col < MATRIX_NR_FLAGS; col++) {
			any = false;
			for (i = 0; i < r->nr_fl && !any; i++)
				for (k = 0; k < GUP_PIN_METHOD_COUNT && !any; k++)
					any = differs(ref, &r->fl[i], grid_cell(row, col, k));
			if (!any)
				continue;
			fprintf(f, "| %s | %s | %s |", row_backing(row), row_state(row),
				flags_label(col));
			for (i = 0; i < r->nr_fl; i++)
				fprintf(f, " `%s` |", cell_str(&r->fl[i], row, col, s));
			fputc('\n', f);
		}
	}
	fputc('\n', f);
	for (i = 0; i < r->nr_fl; i++)
		if (&r->fl[i] != ref)
			md_why_differs(ref, &r->fl[i], f);
}

/*
 * The ext4 twin of cell @idx: the cell of the ext4 backing with the same
 * mapping (shared, private, read-only), state, method and flags; -1 if
 * @idx is not on xfs or btrfs.
 */
static int ext4_twin(unsigned int idx)
{
	const struct backing_spec *b;
	struct cell c;

	matrix_cell(idx, &c);
	b = backing_spec(c.backing);
	if (b->kind != TARGET_FILE ||
	    (b->fs_magic != XFS_SUPER_MAGIC && b->fs_magic != BTRFS_SUPER_MAGIC))
		return -1;
	c.backing = backing_find(TARGET_FILE, EXT4_SUPER_MAGIC, b->private, b->read_only);
	return c.backing == BACKING_COUNT ? -1 : matrix_index(&c);
}

/* Did cells @a and @b come out the same: outcome and errno? */
static bool same_measured(const struct mcell *a, const struct mcell *b)
{
	return a->measured == b->measured && !strcmp(a->meas_err, b->meas_err);
}

/*
 * Are cell @idx and its ext4 twin @t to be compared: both in @fl, neither
 * not applicable (a quick run's, or the policy's)?  One that should have
 * run and did not (its file system not there) is compared, and differs.
 */
static bool twins_compared(const struct mflavour *fl, unsigned int idx, int t)
{
	return t >= 0 && fl->cells[idx].present && fl->cells[t].present &&
	       (fl->cells[idx].expected != MATRIX_NOT_RUN || fl->cells[idx].measured_only) &&
	       (fl->cells[t].expected != MATRIX_NOT_RUN || fl->cells[t].measured_only);
}

/* ... and did both run? */
static bool twins_ran(const struct mflavour *fl, unsigned int idx, int t)
{
	return twins_compared(fl, idx, t) && fl->cells[idx].measured != MATRIX_NOT_RUN &&
	       fl->cells[t].measured != MATRIX_NOT_RUN;
}

/*
 * xfs and btrfs against ext4: each of their cells measured beside its
 * ext4 twin's, which every policy expects to be the same
 * (docs/filesystems-guide.md section 1.2); a difference is listed, a
 * finding whether or not the cell matched its expectation.
 */
static void md_twins(const struct report *r, FILE *f)
{
	static const unsigned long fss[] = { XFS_SUPER_MAGIC, BTRFS_SUPER_MAGIC };
	char what[160], m1[320], m2[320];
	unsigned int i, k, idx, run[2], same[2];
	int t;

	fputs("## xfs and btrfs against their ext4 twins\n\n"
	      "Each xfs or btrfs backing is the ext4 one with the same mapping on another\n"
	      "file system; the three `.mmap`s set vm_ops with `page_mkwrite` for every\n"
	      "mapping type and write a page back through `folio_mkclean()`, so every\n"
	      "policy expects the twin's outcome, cell for cell\n"
	      "([filesystems-guide.md](filesystems-guide.md) section 1.2). Per flavour, the\n"
	      "cells that ran on both and how many came out as their twin (outcome and\n"
	      "errno); each that did not is listed below the table.\n\n"
	      "| flavour | xfs cells | as ext4's | btrfs cells | as ext4's |\n"
	      "|---|--:|--:|--:|--:|\n", f);
	for (i = 0; i < r->nr_fl; i++) {
		const struct mflavour *fl = &r->fl[i];

		memset(run, 0, sizeof(run));
		memset(same, 0, sizeof(same));
		for (idx = 0; idx < MATRIX_NR_CELLS; idx++) {
			t = ext4_twin(idx);
			if (!twins_ran(fl, idx, t))
				continue;
			k = backing_spec(fl->cells[idx].cell.backing)->fs_magic != fss[0];
			run[k]++;
			same[k] += same_measured(&fl->cells[idx], &fl->cells[t]);
		}
		fprintf(f, "| `%s` | %u | %u | %u | %u |\n", fl->name, run[0], same[0],
			run[1], same[1]);
	}
	fputc('\n', f);
	for (i = 0; i < r->nr_fl; i++) {
		const struct mflavour *fl = &r->fl[i];

		for (idx = 0; idx < MATRIX_NR_CELLS; idx++) {
			t = ext4_twin(idx);
			if (!twins_compared(fl, idx, t) ||
			    same_measured(&fl->cells[idx], &fl->cells[t]))
				continue;
			mcell_measured_str(m1, sizeof(m1), &fl->cells[idx]);
			mcell_measured_str(m2, sizeof(m2), &fl->cells[t]);
			fprintf(f, "- `%s` %u `%s`: %s; its ext4 twin, %d: %s\n", fl->name,
				idx + 1, matrix_cell_str(idx, what, sizeof(what)), m1, t + 1, m2);
		}
	}
	fputc('\n', f);
}

static void write_md(const struct report *r, FILE *f)
{
	unsigned int i;

	md_header(r, f);
	md_legend(f);
	md_counts(r, f);
	md_differences(r, f);
	md_twins(r, f);
	for (i = 0; i < r->nr_fl; i++)
		md_flavour(&r->fl[i], f);
	if (r->learned) {
		fputs("## What we learned\n\n", f);
		fwrite(r->learned, 1, r->learned_len, f);
		if (r->learned_len && r->learned[r->learned_len - 1] != '\n')
			fputc('\n', f);
	}
}

/* ---- SVG ---- */

/*
 * One panel per flavour, stacked: the grid of the markdown tables, each
 * method a small square drawn by <use> of a symbol's definition; tooltips
 * on the cells that differ from the reference flavour and on mismatches.
 */
#define SVG_MARGIN	20
#define SVG_LINE	16	/* a line of text under the title */
#define SVG_LABEL_W	190	/* row labels */
#define SVG_CW		11	/* a method's square */
#define SVG_CH		13
#define SVG_PIN_GAP	3	/* between the pin and the get methods */
#define SVG_GROUP_GAP	9	/* between flag mixes */
#define SVG_GROUP_W	(GUP_PIN_METHOD_COUNT * SVG_CW + SVG_PIN_GAP)
#define SVG_GAPY	4	/* between backings */
#define SVG_PTITLE_H	36	/* panel title: two lines */
#define SVG_COLLAB_H	16	/* flag mix labels */
#define SVG_GRID_W	(MATRIX_NR_FLAGS * (SVG_GROUP_W + SVG_GROUP_GAP))
#define SVG_GRID_H	(NR_ROWS * SVG_CH + (BACKING_COUNT - 1) * SVG_GAPY)
#define SVG_PANEL_W	(SVG_LABEL_W + SVG_GRID_W)
#define SVG_PANEL_H	(SVG_PTITLE_H + SVG_COLLAB_H + SVG_GRID_H)
#define SVG_PANEL_GAP	28
#define SVG_LEGEND_W	695
#define SVG_LEGEND_ROW	18

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

/* The id of symbol @c's definition: "s" and its hex code (ids are names). */
static const char *svg_id(char c)
{
	static char id[8];

	snprintf(id, sizeof(id), "s%02x", (unsigned char)c);
	return id;
}

/* A definition per symbol: its square, its letter, a WARNING's corner. */
static void svg_defs(FILE *f)
{
	unsigned int i;

	fputs("<defs>\n", f);
	for (i = 0; i < ARRAY_SIZE(syms); i++) {
		const struct sym *s = &syms[i];

		if (!s->fill)
			continue;		/* '!': an outline over the measured one */
		fprintf(f, "<g id=\"%s\"><rect width=\"%d\" height=\"%d\" fill=\"%s\"%s/>",
			svg_id(s->c), SVG_CW - 1, SVG_CH - 1, s->fill,
			s->c == '?' ? " stroke=\"#bbbbbb\" stroke-width=\"0.5\"" : "");
		if (s->c != '-' && s->c != '?')
			fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\" font-size=\"9\" text-anchor=\"middle\">%c</text>",
				(SVG_CW - 1) / 2, SVG_CH - 4, s->ink, s->c);
		if (sym_warns(s->c))
			fprintf(f, "<path d=\"M%d 0h4v4z\" fill=\"#000000\"/>", SVG_CW - 5);
		fputs("</g>\n", f);
	}
	fputs("</defs>\n", f);
}

/*
 * A cell that only differs from the reference keeps the first words of its
 * reason in its tooltip, up to this many bytes: the reasons (file:line
 * chains, several hundred bytes) took a third of the picture's bytes, which
 * passed 2 MiB with a seventh flavour; docs/matrix.md has every reason whole,
 * and so does a mismatch's tooltip.
 */
#define SVG_REASON_MAX	200

/*
 * A tooltip: the cell, what was measured and expected, and why (@whole: the
 * whole reason, else its first SVG_REASON_MAX bytes, cut after a word, and
 * "...").
 */
static void svg_title(FILE *f, const struct mflavour *fl, unsigned int idx, bool whole)
{
	const struct mcell *c = &fl->cells[idx];
	char what[160], measured[96], expected[96], reason[SVG_REASON_MAX + sizeof(" ...")];
	const char *cut;

	mcell_measured_str(measured, sizeof(measured), c);
	mcell_expected_str(expected, sizeof(expected), c);
	fprintf(f, "<title>%s %u: ", fl->name, idx + 1);
	xml_puts(f, matrix_cell_str(idx, what, sizeof(what)));
	fprintf(f, ": measured %s, expected %s: ", measured, expected);
	if (whole || strlen(c->reason) <= SVG_REASON_MAX) {
		xml_puts(f, c->reason);
	} else {
		memcpy(reason, c->reason, SVG_REASON_MAX);
		reason[SVG_REASON_MAX] = '\0';
		cut = strrchr(reason, ' ');
		strcpy(cut ? (char *)cut : reason + SVG_REASON_MAX, " ...");
		xml_puts(f, reason);
	}
	if (c->note) {
		fputs(" ", f);
		xml_puts(f, c->note);
	}
	fputs("</title>", f);
}

static void svg_cell(FILE *f, const struct mflavour *ref, const struct mflavour *fl,
		     unsigned int row, unsigned int col, unsigned int k)
{
	unsigned int idx = grid_cell(row, col, k);
	const struct mcell *c = &fl->cells[idx];
	int x = SVG_LABEL_W + col * (SVG_GROUP_W + SVG_GROUP_GAP) + k * SVG_CW +
		(k >= nr_pin_methods ? SVG_PIN_GAP : 0);
	bool mismatch = c->present && !c->match;

	/* y is the row's group's (svg_row()): 43789 cells, each byte counts */
	fprintf(f, "<use href=\"#%s\" x=\"%d\"", svg_id(measured_sym(c, !mismatch)), x);
	if (mismatch || differs(ref, fl, idx)) {
		fputc('>', f);
		svg_title(f, fl, idx, mismatch);
		fputs("</use>", f);
	} else {
		fputs("/>", f);
	}
	if (mismatch) {
		fprintf(f, "<rect class=\"mismatch\" x=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000000\" stroke-width=\"2\">",
			x, SVG_CW - 1, SVG_CH - 1);
		svg_title(f, fl, idx, true);
		fputs("</rect>", f);
	}
}

/* One row of a panel: a group at the row's y, its cells on one line. */
static void svg_row(FILE *f, const struct mflavour *ref, const struct mflavour *fl,
		    unsigned int row)
{
	unsigned int col, k;

	fprintf(f, "<g transform=\"translate(0,%d)\">",
		SVG_PTITLE_H + SVG_COLLAB_H + row * SVG_CH + row / STATE_COUNT * SVG_GAPY);
	for (col = 0; col < MATRIX_NR_FLAGS; col++)
		for (k = 0; k < GUP_PIN_METHOD_COUNT; k++)
			svg_cell(f, ref, fl, row, col, k);
	fputs("</g>\n", f);
}

static void svg_panel(FILE *f, const struct mflavour *ref, const struct mflavour *fl,
		      int px, int py)
{
	unsigned int row, col;
	int x, y;

	fprintf(f, "<g class=\"panel\" id=\"panel-%s\" transform=\"translate(%d,%d)\">\n",
		fl->name, px, py);
	fprintf(f, "<text x=\"0\" y=\"14\" font-size=\"13\" font-weight=\"bold\">");
	xml_puts(f, fl->name);
	fputs(" (policy ", f);
	xml_puts(f, fl->policy);
	if (policy_is_none(fl->policy))
		fputs(": " MATRIX_MEASURED_ONLY, f);
	fputs(")</text>\n<text x=\"0\" y=\"30\" font-size=\"10\">kernel ", f);
	xml_puts(f, fl->kernel ?: "?");
	if (fl->wall_matrix >= 0)
		fprintf(f, ", matrix %.1f s", fl->wall_matrix);
	fprintf(f, ", %u of %u cells, %u run, %u mismatch%s", fl->nr_present,
		MATRIX_NR_CELLS, fl->nr_run, fl->nr_mismatch,
		fl->nr_mismatch == 1 ? "" : "es");
	if (fl->verdict)
		fprintf(f, ", kernel reports: %u expected, %u unexpected",
			mflavour_expected_reports(fl), fl->nr_unexpected);
	if (fl->verdict && fl->nr_series)
		fprintf(f, ", %u the series' own", fl->nr_series);
	fputs("</text>\n", f);

	for (col = 0; col < MATRIX_NR_FLAGS; col++) {
		x = SVG_LABEL_W + col * (SVG_GROUP_W + SVG_GROUP_GAP) + SVG_GROUP_W / 2;
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%s</text>\n",
			x, SVG_PTITLE_H + SVG_COLLAB_H - 4, flags_label(col));
	}
	for (row = 0; row < NR_ROWS; row++) {
		y = SVG_PTITLE_H + SVG_COLLAB_H + row * SVG_CH +
		    row / STATE_COUNT * SVG_GAPY + SVG_CH - 3;
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">%s %s</text>\n",
			SVG_LABEL_W - 6, y, row_backing(row), row_state(row));
	}
	for (row = 0; row < NR_ROWS; row++)
		svg_row(f, ref, fl, row);
	fputs("</g>\n", f);
}

/* The legend: a swatch per symbol; the mismatch outline. */
static int svg_legend(FILE *f, int x0, int y0, int width)
{
	int per_row = width / SVG_LEGEND_W, i, x, y, n = 0;

	if (per_row < 1)
		per_row = 1;
	fprintf(f, "<g class=\"legend\" transform=\"translate(%d,%d)\">\n", x0, y0);
	for (i = 0; i < (int)ARRAY_SIZE(syms); i++, n++) {
		x = n % per_row * SVG_LEGEND_W;
		y = n / per_row * SVG_LEGEND_ROW;
		if (syms[i].fill)
			fprintf(f, "<use href=\"#%s\" x=\"%d\" y=\"%d\"/>",
				svg_id(syms[i].c), x, y);
		else
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000000\" stroke-width=\"2\"/>",
				x, y, SVG_CW - 1, SVG_CH - 1);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\">%s%s</text>\n",
			x + SVG_CW + 5, y + SVG_CH - 3,
			syms[i].fill ? "" : "outline: ", syms[i].meaning);
	}
	fputs("</g>\n", f);
	return (n + per_row - 1) / per_row * SVG_LEGEND_ROW;
}

static void write_svg(const struct report *r, FILE *f)
{
	const struct mflavour *ref = reference(r);
	int width = 2 * SVG_MARGIN + SVG_PANEL_W;
	int legend_rows = (ARRAY_SIZE(syms) + (width - 2 * SVG_MARGIN) / SVG_LEGEND_W - 1) /
			  ((width - 2 * SVG_MARGIN) / SVG_LEGEND_W);
	int title_h = 24 + SVG_LINE * (4 + !!r->nr_not_run) + 10;
	int legend_h = legend_rows * SVG_LEGEND_ROW + 10;
	int height = SVG_MARGIN + title_h + legend_h +
		     r->nr_fl * (SVG_PANEL_H + SVG_PANEL_GAP) + SVG_MARGIN;
	unsigned int i, k;
	int y;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
		width, height, width, height);
	fputs("<title>The GUP matrix, measured</title>\n", f);
	svg_defs(f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		width, height);
	y = SVG_MARGIN + 14;
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" font-size=\"16\" font-weight=\"bold\">The GUP matrix, measured: what pin_user_pages() &amp; friends took</text>\n",
		SVG_MARGIN, y);
	y += 4 + SVG_LINE;
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
	y += SVG_LINE;
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" font-size=\"11\">rows: the page's backing, then what user space did to it before the pin; columns: the flags, W FOLL_WRITE, L FOLL_LONGTERM, F FOLL_FORCE, A FOLL_ALLOW_BROKEN_FILE_MAPPING</text>\n",
		SVG_MARGIN, y);
	y += SVG_LINE;
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">in each column, one square per call: ",
		SVG_MARGIN, y);
	for (k = 0; k < GUP_PIN_METHOD_COUNT; k++)
		fprintf(f, "%s%s", k ? (k == nr_pin_methods ? "; " : ", ") : "",
			gup_method_name(method_order[k]));
	fputs("</text>\n", f);
	y += SVG_LINE;
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">tooltips on mismatches and on the cells that differ from %s (their reasons cut at %d bytes); docs/matrix.md has every reason</text>\n",
		SVG_MARGIN, y, ref ? ref->name : "?", SVG_REASON_MAX);
	if (r->nr_not_run) {
		y += SVG_LINE;
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">not run:", SVG_MARGIN, y);
		for (i = 0; i < r->nr_not_run; i++)
			fprintf(f, "%s %s", i ? "," : "", r->not_run[i].name);
		fputs("</text>\n", f);
	}
	svg_legend(f, SVG_MARGIN, SVG_MARGIN + title_h, width - 2 * SVG_MARGIN);
	for (i = 0; i < r->nr_fl; i++)
		svg_panel(f, ref, &r->fl[i], SVG_MARGIN,
			  SVG_MARGIN + title_h + legend_h + i * (SVG_PANEL_H + SVG_PANEL_GAP));
	fputs("</svg>\n", f);
}

/* ---- Main ---- */

/* ---- The explorer (explorer/page.h; docs/results.md, "The explorer") ---- */

/* The index of @s in @strs, added if new (@seen maps a string to it). */
static json_int_t html_string(json_t *strs, json_t *seen, const char *s)
{
	json_t *v;

	if (!s)
		return -1;
	v = json_object_get(seen, s);
	if (v)
		return json_integer_value(v);
	json_array_append_new(strs, json_string(s));
	json_object_set_new(seen, s, json_integer(json_array_size(strs) - 1));
	return json_array_size(strs) - 1;
}

/*
 * The console of @fl (FLAVOUR.console.log beside FLAVOUR.json: in the
 * results directory, or beside a document given by its path) as lines,
 * and each cell's slice: from its marker to the next (console/lines.h).
 */
static json_t *html_console(const struct mflavour *fl, unsigned int *first,
			    unsigned int *last)
{
	size_t n = strlen(fl->path);
	char path[4096];
	json_t *lines;

	if (n < 5 || strcmp(fl->path + n - 5, ".json"))
		return json_array();
	snprintf(path, sizeof(path), "%.*s.console.log", (int)(n - 5), fl->path);
	lines = console_lines(path);
	if (json_array_size(lines))
		console_cell_lines(path, "matrix", json_array_size(lines), MATRIX_NR_CELLS,
				   first, last);
	return lines;
}

/* One flavour: its symbols, each cell's words and console slice, its reports. */
static json_t *html_flavour(const struct mflavour *fl)
{
	static unsigned int first[MATRIX_NR_CELLS], last[MATRIX_NR_CELLS];
	json_t *strs = json_array(), *seen = json_object(), *cells = json_array();
	char sym[MATRIX_NR_CELLS + 1], measured[96], expected[96];
	json_t *console, *doc;
	unsigned int i;

	memset(first, 0, sizeof(first));
	memset(last, 0, sizeof(last));
	console = html_console(fl, first, last);
	for (i = 0; i < MATRIX_NR_CELLS; i++) {
		const struct mcell *c = &fl->cells[i];

		sym[i] = cell_sym(c);
		if (!c->present) {
			json_array_append_new(cells, json_null());
			continue;
		}
		mcell_expected_str(expected, sizeof(expected), c);
		mcell_measured_str(measured, sizeof(measured), c);
		json_array_append_new(cells, json_pack("[I, I, I, I, i, i]",
			html_string(strs, seen, expected),
			html_string(strs, seen, c->reason),
			html_string(strs, seen, measured),
			html_string(strs, seen, c->note),
			(int)first[i], (int)last[i]));
	}
	sym[MATRIX_NR_CELLS] = '\0';
	json_decref(seen);
	doc = json_pack("{s:s, s:s, s:s?, s:s?, s:i, s:i, s:i, s:i, s:i, s:i}",
			"name", fl->name, "policy", fl->policy, "kernel", fl->kernel,
			"verdict", fl->verdict, "present", (int)fl->nr_present,
			"run", (int)fl->nr_run, "not_applicable", (int)fl->nr_not_applicable,
			"mismatches", (int)fl->nr_mismatch,
			"reports_expected", (int)mflavour_expected_reports(fl),
			"reports_unexpected", (int)fl->nr_unexpected);
	json_object_set_new(doc, "sym", json_string(sym));
	json_object_set_new(doc, "strings", strs);
	json_object_set_new(doc, "cells", cells);
	json_object_set(doc, "reports", json_object_get(fl->doc, "kernel_reports") ?: json_null());
	json_object_set_new(doc, "console", console);
	return doc;
}

/*
 * The page's data: the grid's layout (the markdown page's: a row per
 * backing and state, a column per flag mix, in each the methods in
 * method_order), the symbols, and each flavour.
 */
static json_t *html_data(const struct report *r)
{
	json_t *syms_j = json_array(), *rows = json_array(), *flags = json_array();
	json_t *methods = json_array(), *layout = json_array(), *names = json_array();
	json_t *fls = json_array(), *not_run = json_array(), *doc;
	unsigned int i, row, f, k;
	char buf[160];

	for (i = 0; i < ARRAY_SIZE(syms); i++)
		json_array_append_new(syms_j, json_pack("{s:s#, s:s, s:s?, s:s?}",
			"c", &syms[i].c, 1, "meaning", syms[i].meaning,
			"fill", syms[i].fill, "ink", syms[i].ink));
	for (row = 0; row < NR_ROWS; row++)
		json_array_append_new(rows, json_pack("{s:s, s:s}", "backing",
						      row_backing(row), "state", row_state(row)));
	for (f = 0; f < MATRIX_NR_FLAGS; f++)
		json_array_append_new(flags, json_string(flags_label(f)));
	for (k = 0; k < GUP_PIN_METHOD_COUNT; k++)
		json_array_append_new(methods, json_string(gup_method_name(method_order[k])));
	for (row = 0; row < NR_ROWS; row++)
		for (f = 0; f < MATRIX_NR_FLAGS; f++)
			for (k = 0; k < GUP_PIN_METHOD_COUNT; k++)
				json_array_append_new(layout, json_integer(grid_cell(row, f, k)));
	for (i = 0; i < MATRIX_NR_CELLS; i++)
		json_array_append_new(names, json_string(matrix_cell_str(i, buf, sizeof(buf))));
	for (i = 0; i < r->nr_fl; i++)
		json_array_append_new(fls, html_flavour(&r->fl[i]));
	for (i = 0; i < r->nr_not_run; i++)
		json_array_append_new(not_run, json_pack("{s:s, s:s?}", "name",
							 r->not_run[i].name, "why",
							 r->not_run[i].why));
	doc = json_pack("{s:s, s:s?, s:s?, s:s?}", "job", "matrix", "results", r->dir,
			"commit", run_str(r, "commit", NULL), "date", run_str(r, "date", NULL));
	json_object_set_new(doc, "symbols", syms_j);
	json_object_set_new(doc, "rows", rows);
	json_object_set_new(doc, "flags", flags);
	json_object_set_new(doc, "methods", methods);
	json_object_set_new(doc, "nr_pin_methods", json_integer(nr_pin_methods));
	json_object_set_new(doc, "layout", layout);
	json_object_set_new(doc, "cell_names", names);
	json_object_set_new(doc, "flavours", fls);
	json_object_set_new(doc, "not_run", not_run);
	return doc;
}

static void write_html(const struct report *r, FILE *f)
{
	json_t *data = html_data(r);
	char title[4200];

	snprintf(title, sizeof(title), "gup-lab matrix: %s", r->dir ?: "FLAVOUR.json files");
	explorer_page(f, title, data);
	json_decref(data);
}

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

/* docs/policies.md (report_policies.c) from the flavours of the run. */
static void write_policies(const struct report *r, FILE *f)
{
	const struct mflavour *fl[16];
	unsigned int i, n = 0;

	for (i = 0; i < r->nr_fl && n < ARRAY_SIZE(fl); i++)
		fl[n++] = &r->fl[i];
	write_policies_md(fl, n, r->dir ?: "the FLAVOUR.json files given", f);
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
	char path[4096], *fpath;
	size_t i, n;
	json_t *fls, *e;
	int ret;

	r->dir = dir;
	snprintf(path, sizeof(path), "%s/run.json", dir);
	r->run = jsonfile_read(path, "report");
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
		/*
		 * The document's path lives as long as the report (fl->path:
		 * the explorer finds the console beside it); free_report()
		 * frees it.  A path given on the command line is argv's.
		 */
		fpath = NULL;
		if (asprintf(&fpath, "%s/%s.json", dir, name) < 0)
			return usage_error("report", "out of memory (ENOMEM)");
		ret = load_flavour(r, fpath);
		/* not kept when the document could not be read */
		if (r->fl[r->nr_fl - 1].path != fpath)
			free(fpath);
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

	for (i = 0; i < r->nr_fl; i++) {
		/* load_dir()'s (a path of argv's otherwise) */
		if (r->dir)
			free((char *)r->fl[i].path);
		matrix_json_free(&r->fl[i]);
	}
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
	init_method_order();
	ret = parse_report_opts(argc, argv, &r.o);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (r.o.c.out)
		return matrix_collect(&r.o.c);
	if (r.o.findings)
		return write_findings(&r.o);

	ret = load_inputs(&r) ?:
	      read_learned(&r) ?:
	      (r.o.md ? write_file("md", r.o.md, write_md, &r) : 0) ?:
	      (r.o.svg ? write_file("svg", r.o.svg, write_svg, &r) : 0) ?:
	      (r.o.html ? write_file("html", r.o.html, write_html, &r) : 0) ?:
	      (r.o.policies ? write_file("policies", r.o.policies, write_policies, &r) : 0);
	if (ret)
		goto out;

	for (i = 0; i < r.nr_fl; i++) {
		const struct mflavour *fl = &r.fl[i];

		failed += matrix_flavour_failed(fl);
		printf("%s: %u cells, %u run, %u not applicable, ", fl->name,
		       fl->nr_present, fl->nr_run, fl->nr_not_applicable);
		if (policy_is_none(fl->policy))
			printf("%u " MATRIX_MEASURED_ONLY ", ", fl->nr_measured_only);
		printf("%u mismatch%s, kernel reports: %u expected, %u unexpected",
		       fl->nr_mismatch, fl->nr_mismatch == 1 ? "" : "es",
		       mflavour_expected_reports(fl), fl->nr_unexpected);
		if (fl->nr_series)
			printf(", %u the series' own finding%s", fl->nr_series,
			       fl->nr_series == 1 ? "" : "s");
		putchar('\n');
	}
	for (i = 0; i < r.nr_not_run; i++)
		printf("%s: not run: %s\n", r.not_run[i].name,
		       r.not_run[i].why ?: "no reason recorded");
	if (r.o.md)
		printf("wrote %s and %s\n", r.o.md, r.o.svg);
	if (r.o.html)
		printf("explorer: %s\n", r.o.html);
	ret = failed || r.nr_not_run ? GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK;
out:
	free_report(&r);
	return ret;
}
