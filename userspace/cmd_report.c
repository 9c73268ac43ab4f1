// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl report: turn the TSVs of gupctl matrix runs (one per flavour) into
 * a markdown page and a self-contained SVG heatmap.  Runs on the host: no
 * device, no kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gupctl.h"
#include "matrix_tsv.h"
#include "policy.h"

#define NR_ROWS		(BACKING_COUNT * STATE_COUNT)
#define NR_COLS		(GUP_PIN_METHOD_COUNT * MATRIX_NR_FLAGS)

struct report_opts {
	const char *md, *svg, *learned;
	const char **meta;		/* KEY=VALUE */
	unsigned int nr_meta;
	const char **not_run;		/* flavour names */
	unsigned int nr_not_run;
	char **tsv;
	unsigned int nr_tsv;
};

struct report {
	struct report_opts o;
	struct rflavour *fl;		/* o.nr_tsv of them, in argument order */
	char *learned;			/* the --learned file, NULL if absent */
	size_t learned_len;
};

static const char * const method_short[GUP_PIN_METHOD_COUNT] = {
	[GUP_PIN_METHOD_PIN]		= "pin",
	[GUP_PIN_METHOD_PIN_FAST]	= "pinF",
	[GUP_PIN_METHOD_GET]		= "get",
	[GUP_PIN_METHOD_GET_FAST]	= "getF",
};

/* Indexed like matrix_flags(): none, WRITE, LONGTERM, WRITE|LONGTERM. */
static const char * const flags_short[MATRIX_NR_FLAGS] = { "", " W", " L", " LW" };

enum {
	OPT_MD = 256, OPT_SVG, OPT_LEARNED, OPT_META, OPT_NOT_RUN,
};

static const struct option report_options[] = {
	{ "md",		required_argument,	NULL, OPT_MD },
	{ "svg",	required_argument,	NULL, OPT_SVG },
	{ "learned",	required_argument,	NULL, OPT_LEARNED },
	{ "meta",	required_argument,	NULL, OPT_META },
	{ "not-run",	required_argument,	NULL, OPT_NOT_RUN },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

void cmd_report_help(FILE *f)
{
	fprintf(f,
"usage: gupctl report --md FILE --svg FILE [OPTIONS] TSV...\n"
"\n"
"Read the TSV of one gupctl matrix run per flavour (in the order given)\n"
"and write the measured GUP matrix as markdown and as an SVG heatmap.  No\n"
"device needed: it runs on the host.\n"
"\n"
"The markdown: a header with the meta data and, per flavour, its policy,\n"
"kernel, cells and wall time; a legend; per flavour a table (rows backing x\n"
"state, columns method x flags), its mismatch count and every mismatch with\n"
"its reason; the cells whose measured outcome differs between flavours;\n"
"then the learned file under \"What we learned\".  The SVG: one %ux%u panel\n"
"per flavour, coloured by measured outcome, mismatches outlined.\n"
"\n"
"Options:\n"
"  --md FILE         the markdown to write (required)\n"
"  --svg FILE        the SVG to write (required)\n"
"  --learned FILE    markdown appended verbatim under \"What we learned\";\n"
"                    skipped if FILE does not exist\n"
"  --meta KEY=VALUE  shown in both headers, in order (e.g. date=...,\n"
"                    commit=..., kernel=...); repeatable\n"
"  --not-run FLAVOUR a flavour without results, listed as not run;\n"
"                    repeatable\n"
"  -h, --help        this help\n"
"\n"
"TSV: a header line naming the columns, one line per cell, lines starting\n"
"with '#' are comments (kernel=... and wall_seconds=... are picked up).\n"
"Cells missing from a TSV are left blank.\n"
"\n"
"Symbols: P pinned, F EFAULT, I EINVAL, another errno by its name, 0 no\n"
"error but no page, %s not run (not applicable, or setup failed), a !\n"
"suffix where measured differs from expected.\n"
"\n"
"Exit status: 0 written, 1 written but some cell of some TSV is a\n"
"mismatch, 2 usage error, unreadable or malformed input, or an output that\n"
"could not be written.\n", NR_ROWS, NR_COLS, "\u00b7");
}

/* ---- Options ---- */

static bool valid_meta(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");

	return n && s[n] == '=';
}

/* 0: options valid; -1: help printed; otherwise an exit code. */
static int parse_report_opts(int argc, char **argv, struct report_opts *o)
{
	unsigned int i, j;
	int c;

	memset(o, 0, sizeof(*o));
	o->meta = calloc(argc, sizeof(*o->meta));
	o->not_run = calloc(argc, sizeof(*o->not_run));
	if (!o->meta || !o->not_run) {
		fprintf(stderr, "gupctl report: out of memory (ENOMEM)\n");
		return GUPCTL_EXIT_USAGE;
	}

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", report_options, NULL)) != -1) {
		switch (c) {
		case 'h':
			cmd_report_help(stdout);
			return -1;
		case OPT_MD:
			o->md = optarg;
			break;
		case OPT_SVG:
			o->svg = optarg;
			break;
		case OPT_LEARNED:
			o->learned = optarg;
			break;
		case OPT_META:
			if (!valid_meta(optarg))
				return usage_error("report", "bad --meta '%s': give KEY=VALUE, KEY of letters, digits, '.', '_', '-'",
						   optarg);
			o->meta[o->nr_meta++] = optarg;
			break;
		case OPT_NOT_RUN:
			if (!matrix_valid_flavour(optarg))
				return usage_error("report", "bad --not-run '%s': a flavour name is 1 to 63 letters, digits, '.', '_' or '-'",
						   optarg);
			o->not_run[o->nr_not_run++] = optarg;
			break;
		case ':':
			return usage_error("report", "option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			if (optopt)
				return usage_error("report", "unknown option '-%c'", optopt);
			return usage_error("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	o->tsv = argv + optind;
	o->nr_tsv = argc - optind;
	if (!o->md)
		return usage_error("report", "no --md FILE: where should the markdown go?");
	if (!o->svg)
		return usage_error("report", "no --svg FILE: where should the SVG go?");
	if (!strcmp(o->md, o->svg))
		return usage_error("report", "--md and --svg name the same file '%s'", o->md);
	if (!o->nr_tsv)
		return usage_error("report", "no TSV: give the TSV of at least one matrix run");
	for (i = 0; i < o->nr_not_run; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(o->not_run[i], o->not_run[j]))
				return usage_error("report", "--not-run %s given twice",
						   o->not_run[i]);
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
static const char *symbol(const struct rcell *c)
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

static void describe_measured(char *buf, size_t size, const struct rcell *c)
{
	switch (c->measured) {
	case MATRIX_PINNED:
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

static const char *describe_expected(const struct rcell *c)
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

/* "pin_user_pages_fast WRITE|LONGTERM ext4-shared write-faulted" */
static void describe_cell(char *buf, size_t size, unsigned int idx)
{
	struct cell c;
	char flags[64];

	matrix_cell(idx, &c);
	snprintf(buf, size, "%s %s %s %s", gup_method_name(c.method),
		 gup_flags_str(c.flags, flags, sizeof(flags)),
		 backing_name(c.backing), state_name(c.state));
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

static void md_header(const struct report *r, FILE *f)
{
	unsigned int i;

	fprintf(f,
"# The GUP matrix, measured\n"
"\n"
"<!-- Generated by gupctl report; do not edit: rerun make matrix, or edit\n"
"     docs/matrix-learned.md for the last section. -->\n"
"\n"
"Generated by `gupctl report` from real runs of `gupctl matrix` on each\n"
"flavour's kernel booted under QEMU: every cell was set up and pinned\n"
"through `/dev/gup_test`, and its expected outcome was computed beforehand\n"
"from the flavour's GUP policy (`userspace/policy.c`), never from a run.\n"
"\n");
	for (i = 0; i < r->o.nr_meta; i++) {
		const char *eq = strchr(r->o.meta[i], '=');

		fprintf(f, "- %.*s: ", (int)(eq - r->o.meta[i]), r->o.meta[i]);
		md_puts(f, eq + 1);
		fputc('\n', f);
	}
	if (r->o.nr_meta)
		fputc('\n', f);

	fprintf(f,
"| flavour | policy | kernel | cells | run | not applicable | mismatches | wall time |\n"
"|---|---|---|--:|--:|--:|--:|--:|\n");
	for (i = 0; i < r->o.nr_tsv; i++) {
		const struct rflavour *fl = &r->fl[i];

		fprintf(f, "| `%s` | ", fl->name);
		md_puts(f, fl->policy);
		fputs(" | ", f);
		md_puts(f, fl->kernel[0] ? fl->kernel : "?");
		fprintf(f, " | %u of %u | %u | %u | %u | ", fl->nr_present,
			MATRIX_NR_CELLS, fl->nr_run, fl->nr_not_applicable,
			fl->nr_mismatch);
		if (fl->wall[0]) {
			md_puts(f, fl->wall);
			fputs(" s", f);
		} else {
			fputc('?', f);
		}
		fputs(" |\n", f);
	}
	for (i = 0; i < r->o.nr_not_run; i++)
		fprintf(f, "| `%s` | not run | | | | | | |\n", r->o.not_run[i]);
	fputc('\n', f);
	if (r->o.nr_not_run) {
		fputs("Not run (no results):", f);
		for (i = 0; i < r->o.nr_not_run; i++)
			fprintf(f, "%s `%s`", i ? "," : "", r->o.not_run[i]);
		fputs(".\n\n", f);
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
"| `!` after a symbol | measured differs from what the policy expected |\n"
"| blank | not in the results |\n"
"\n");
}

static void md_flavour(const struct rflavour *fl, FILE *f)
{
	char label[64], what[160], measured[96];
	unsigned int row, col, idx;

	fprintf(f, "## Flavour `%s`\n\nPolicy `", fl->name);
	md_puts(f, fl->policy);
	fputs("`, kernel `", f);
	md_puts(f, fl->kernel[0] ? fl->kernel : "?");
	fprintf(f, "`: %u cells in the results, %u run, %u not applicable.\n\n",
		fl->nr_present, fl->nr_run, fl->nr_not_applicable);

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
			const struct rcell *c = &fl->cells[cell_at(row, col)];

			if (!c->present) {
				fputs(" |", f);
				continue;
			}
			fprintf(f, " %s%s |", symbol(c), rcell_mismatch(c) ? "!" : "");
		}
		fputc('\n', f);
	}

	fprintf(f, "\nMismatches: %u%s\n", fl->nr_mismatch,
		fl->nr_mismatch ? "" : ".");
	if (fl->nr_mismatch)
		fputc('\n', f);
	for (idx = 0; idx < MATRIX_NR_CELLS; idx++) {
		const struct rcell *c = &fl->cells[idx];

		if (!c->present || !rcell_mismatch(c))
			continue;
		describe_cell(what, sizeof(what), idx);
		describe_measured(measured, sizeof(measured), c);
		fprintf(f, "- `%s`: measured %s, expected %s: ", what, measured,
			describe_expected(c));
		md_puts(f, c->reason);
		fputc('\n', f);
	}
	fputc('\n', f);
}

/* Do the flavours that ran cell @idx disagree on its measured outcome? */
static bool cell_disagrees(const struct report *r, unsigned int idx)
{
	const char *first = NULL;
	unsigned int i;

	for (i = 0; i < r->o.nr_tsv; i++) {
		const struct rcell *c = &r->fl[i].cells[idx];

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
	if (r->o.nr_tsv < 2) {
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
	for (i = 0; i < r->o.nr_tsv; i++)
		fprintf(f, " `%s` |", r->fl[i].name);
	fputs(" where not pinned: expected, why |\n|---|---|---|---|", f);
	for (i = 0; i < r->o.nr_tsv; i++)
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
		for (i = 0; i < r->o.nr_tsv; i++) {
			const struct rcell *c = &r->fl[i].cells[idx];

			if (c->present)
				fprintf(f, " %s%s |", symbol(c),
					rcell_mismatch(c) ? "!" : "");
			else
				fputs(" |", f);
		}
		sep = false;
		for (i = 0; i < r->o.nr_tsv; i++) {
			const struct rcell *c = &r->fl[i].cells[idx];

			if (!c->present || c->measured == MATRIX_PINNED)
				continue;
			fprintf(f, "%s`%s`: ", sep ? "<br>" : " ", r->fl[i].name);
			if (rcell_mismatch(c)) {
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
	for (i = 0; i < r->o.nr_tsv; i++)
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

static enum svg_class svg_class_of(const struct rcell *c)
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

static void svg_cell(FILE *f, const struct rflavour *fl, unsigned int row,
		     unsigned int col)
{
	unsigned int idx = cell_at(row, col);
	const struct rcell *c = &fl->cells[idx];
	enum svg_class cls = svg_class_of(c);
	bool mismatch = c->present && rcell_mismatch(c);
	int x = SVG_LABEL_W + col * SVG_CW + col / MATRIX_NR_FLAGS * SVG_GAPX;
	int y = SVG_PTITLE_H + SVG_COLLAB_H + row * SVG_CH + row / STATE_COUNT * SVG_GAPY;
	char what[160], measured[96];
	const char *sym = c->present ? symbol(c) : "";

	describe_cell(what, sizeof(what), idx);
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
		fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\" font-size=\"9\" text-anchor=\"middle\">%s</text>",
			x + SVG_CW / 2, y + SVG_CH - 4, svg_classes[cls].ink, sym);
	fputs("</g>\n", f);
}

static void svg_panel(FILE *f, const struct rflavour *fl, int px, int py)
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
	xml_puts(f, fl->kernel[0] ? fl->kernel : "?");
	if (fl->wall[0]) {
		fputs(", ", f);
		xml_puts(f, fl->wall);
		fputs(" s", f);
	}
	fprintf(f, ", %u run, %u mismatch%s</text>\n", fl->nr_run,
		fl->nr_mismatch, fl->nr_mismatch == 1 ? "" : "es");

	for (col = 0; col < NR_COLS; col++) {
		x = SVG_LABEL_W + col * SVG_CW + col / MATRIX_NR_FLAGS * SVG_GAPX +
		    SVG_CW / 2 + 3;
		y = SVG_PTITLE_H + SVG_COLLAB_H - 4;
		col_label(label, sizeof(label), col);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" transform=\"rotate(-90 %d %d)\">%s</text>\n",
			x, y, x, y, label);
	}
	for (row = 0; row < NR_ROWS; row++) {
		y = SVG_PTITLE_H + SVG_COLLAB_H + row * SVG_CH +
		    row / STATE_COUNT * SVG_GAPY + SVG_CH - 4;
		row_label(label, sizeof(label), row);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">%s</text>\n",
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
	unsigned int i, n = r->o.nr_tsv;
	int width = 2 * SVG_MARGIN + n * SVG_PANEL_W + (n - 1) * SVG_PANEL_GAP;
	int legend_w, legend_rows, height, title_h, y;

	if (width < 2 * SVG_MARGIN + 5 * SVG_LEGEND_ITEM)
		width = 2 * SVG_MARGIN + 5 * SVG_LEGEND_ITEM;
	legend_w = width - 2 * SVG_MARGIN;
	legend_rows = (SVG_CLASS_COUNT + 1 + legend_w / SVG_LEGEND_ITEM - 1) /
		      (legend_w / SVG_LEGEND_ITEM);
	/* The title, then lines: meta, the axes (two), flavours not run. */
	title_h = 24 + SVG_TITLE_LINE * (2 + !!r->o.nr_meta + !!r->o.nr_not_run) + 10;
	height = SVG_MARGIN + title_h + SVG_PANEL_H + 24 +
		 legend_rows * SVG_LEGEND_ROW + SVG_MARGIN;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
		width, height, width, height);
	fputs("<title>The GUP matrix, measured</title>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		width, height);
	y = SVG_MARGIN + 14;
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"16\" font-weight=\"bold\">The GUP matrix, measured: what pin_user_pages() &amp; friends took</text>\n",
		SVG_MARGIN, y);
	y += 4;
	if (r->o.nr_meta) {
		y += SVG_TITLE_LINE;
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">", SVG_MARGIN, y);
		for (i = 0; i < r->o.nr_meta; i++) {
			fputs(i ? "   " : "", f);
			xml_puts(f, r->o.meta[i]);
		}
		fputs("</text>\n", f);
	}
	y += SVG_TITLE_LINE;
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">rows: the page's backing, then what user space did to it before the pin</text>\n",
		SVG_MARGIN, y);
	y += SVG_TITLE_LINE;
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">columns: pin/pinF = pin_user_pages(_fast), get/getF = get_user_pages(_fast); W FOLL_WRITE, L FOLL_LONGTERM</text>\n",
		SVG_MARGIN, y);
	if (r->o.nr_not_run) {
		y += SVG_TITLE_LINE;
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">not run:", SVG_MARGIN, y);
		for (i = 0; i < r->o.nr_not_run; i++)
			fprintf(f, "%s %s", i ? "," : "", r->o.not_run[i]);
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

static int check_flavours(const struct report *r)
{
	unsigned int i, j;

	for (i = 0; i < r->o.nr_tsv; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(r->fl[i].name, r->fl[j].name))
				return usage_error("report", "flavour %s is in both %s and %s: one TSV per flavour",
						   r->fl[i].name, r->fl[j].path,
						   r->fl[i].path);
		for (j = 0; j < r->o.nr_not_run; j++)
			if (!strcmp(r->fl[i].name, r->o.not_run[j]))
				return usage_error("report", "flavour %s has results (%s) and is given as --not-run",
						   r->fl[i].name, r->fl[i].path);
	}
	return 0;
}

static void free_report(struct report *r)
{
	unsigned int i, idx;

	if (r->fl)
		for (i = 0; i < r->o.nr_tsv; i++)
			for (idx = 0; idx < MATRIX_NR_CELLS; idx++)
				free(r->fl[i].cells[idx].reason);
	free(r->fl);
	free(r->learned);
	free(r->o.meta);
	free(r->o.not_run);
}

int cmd_report(int argc, char **argv)
{
	struct report r;
	unsigned int i, mismatches = 0;
	int ret;

	memset(&r, 0, sizeof(r));
	ret = parse_report_opts(argc, argv, &r.o);
	if (ret) {
		free_report(&r);
		return ret < 0 ? GUPCTL_EXIT_OK : ret;
	}
	r.fl = calloc(r.o.nr_tsv, sizeof(*r.fl));
	if (!r.fl) {
		fprintf(stderr, "gupctl report: out of memory (ENOMEM)\n");
		ret = GUPCTL_EXIT_USAGE;
		goto out;
	}
	for (i = 0; i < r.o.nr_tsv && !ret; i++)
		ret = matrix_read_tsv(r.o.tsv[i], &r.fl[i], "report");
	ret = ret ?: check_flavours(&r);
	ret = ret ?: read_learned(&r);
	ret = ret ?: write_file("md", r.o.md, write_md, &r);
	ret = ret ?: write_file("svg", r.o.svg, write_svg, &r);
	if (ret)
		goto out;

	for (i = 0; i < r.o.nr_tsv; i++) {
		mismatches += r.fl[i].nr_mismatch;
		printf("%s: %u cells, %u run, %u not applicable, %u mismatch%s\n",
		       r.fl[i].name, r.fl[i].nr_present, r.fl[i].nr_run,
		       r.fl[i].nr_not_applicable, r.fl[i].nr_mismatch,
		       r.fl[i].nr_mismatch == 1 ? "" : "es");
	}
	for (i = 0; i < r.o.nr_not_run; i++)
		printf("%s: not run\n", r.o.not_run[i]);
	printf("wrote %s and %s\n", r.o.md, r.o.svg);
	ret = mismatches ? GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK;
out:
	free_report(&r);
	return ret;
}
