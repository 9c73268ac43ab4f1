// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl bench report, on the host: the pages of `make bench` from the
 * guests' documents (gupctl bench --json), one per boot, in boot order.
 * Two tables and a plot:
 *  - our driver beside the kernel's gup_test, per flavour and operation:
 *    the medians of the same boot, and their ratio (±5 % is agreement);
 *  - each policy's cost: per operation and flavour, the median pin ns per
 *    page over the boots, and its ratio to stock taken boot by boot (the
 *    job boots the flavours round-robin: round r of each flavour against
 *    round r of stock), with the spread of those ratios;
 *  - an SVG of the median pin ns per page, by operation and flavour.
 * TCG inflates every absolute time: the ratios are the result.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench/ops.h"
#include "bench/report.h"
#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/cell.h"

#define MAX_FLAVOURS	16
#define MAX_ROUNDS	64
#define AGREE		0.05	/* ours and gup_test within ±5 % */

struct bflavour {
	const char *name, *release;
	json_t *docs[MAX_ROUNDS];	/* round by round, in boot order */
	unsigned int round[MAX_ROUNDS];	/* each doc's round: FLAVOUR.ROUND.json */
	unsigned int nr;
};

struct breport {
	const char *md, *svg;
	const char *from;		/* the results directory, if given */
	struct bflavour fl[MAX_FLAVOURS];
	unsigned int nr_fl;
	json_t *first;			/* the first document: size, repetitions */
};

static const char * const report_usage[] = {
	"gupctl bench report --md FILE --svg FILE [--from DIR] BENCH.json...",
	"",
	"The pin benchmark pages from gupctl bench --json documents, one per boot,",
	"in boot order (docs/performance.md).  --from names the results directory",
	"on the page, with the commit and date of its run.json when it has one.",
	NULL
};

/* The op @name of @doc's "ops", or NULL. */
static json_t *doc_op(json_t *doc, const char *name)
{
	json_t *op;
	size_t i;

	json_array_foreach(json_object_get(doc, "ops"), i, op)
		if (!strcmp(json_string_value(json_object_get(op, "name")) ?: "", name))
			return op;
	return NULL;
}

/* @doc's median of @side ("ours", "gup_test") @what ("pin_ns_per_page"), < 0 if none. */
static double doc_median(json_t *doc, const char *op, const char *side, const char *what)
{
	json_t *m = json_object_get(json_object_get(json_object_get(doc_op(doc, op), side),
						    what), "median");

	return json_is_number(m) ? json_number_value(m) : -1;
}

/*
 * The round of FLAVOUR.ROUND.json (jobs/bench.sh's names), or @dflt: a
 * failed boot leaves its round out, and the ratios pair rounds by number.
 */
static unsigned int path_round(const char *path, unsigned int dflt)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *end = strstr(base, ".json"), *dot;
	unsigned long v;
	char *e;

	if (!end || end[5] || end == base)
		return dflt;
	for (dot = end - 1; dot > base && *dot != '.'; dot--)
		;
	if (*dot != '.' || dot + 1 == end)
		return dflt;
	v = strtoul(dot + 1, &e, 10);
	return e == end && v > 0 && v <= UINT_MAX ? v : dflt;
}

static int load(struct breport *r, const char *path)
{
	json_error_t e;
	json_t *doc = json_load_file(path, 0, &e);
	const char *name;
	unsigned int i;

	if (!doc) {
		fprintf(stderr, "gupctl bench report: %s:%d: %s\n", path, e.line, e.text);
		return GUPCTL_EXIT_USAGE;
	}
	name = json_string_value(json_object_get(doc, "flavour"));
	if (!name || !json_is_array(json_object_get(doc, "ops"))) {
		fprintf(stderr, "gupctl bench report: %s: not a gupctl bench --json document with a flavour\n",
			path);
		json_decref(doc);
		return GUPCTL_EXIT_USAGE;
	}
	for (i = 0; i < r->nr_fl && strcmp(r->fl[i].name, name); i++)
		;
	if (i == MAX_FLAVOURS || (i < r->nr_fl && r->fl[i].nr == MAX_ROUNDS)) {
		fprintf(stderr, "gupctl bench report: %s: too many flavours or rounds\n", path);
		json_decref(doc);
		return GUPCTL_EXIT_USAGE;
	}
	if (i == r->nr_fl) {
		r->fl[i].name = name;
		r->fl[i].release = json_string_value(json_object_get(doc, "kernel_release"));
		r->nr_fl++;
	}
	r->fl[i].round[r->fl[i].nr] = path_round(path, r->fl[i].nr + 1);
	r->fl[i].docs[r->fl[i].nr++] = doc;
	if (!r->first)
		r->first = doc;
	return 0;
}

/* The median over @f's rounds of @side's median @what of @op; < 0 if none. */
static double rounds_median(const struct bflavour *f, const char *op, const char *side,
			    const char *what, struct bench_stats *st)
{
	double v[MAX_ROUNDS];
	unsigned int i, n = 0;

	for (i = 0; i < f->nr; i++) {
		v[n] = doc_median(f->docs[i], op, side, what);
		n += v[n] >= 0;
	}
	if (!n)
		return -1;
	bench_stats(v, n, st);
	return st->median;
}

/*
 * The pin medians of @nop in @num[i] over those of @dop in @den[i], for
 * each i < @n where both were measured: their median (min..max) in @st;
 * false if none.
 */
static bool median_ratios(json_t * const *num, const char *nop, json_t * const *den,
			  const char *dop, unsigned int n, struct bench_stats *st)
{
	double v[MAX_ROUNDS], a, b;
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		a = doc_median(num[i], nop, "ours", "pin_ns_per_page");
		b = doc_median(den[i], dop, "ours", "pin_ns_per_page");
		if (a >= 0 && b > 0)
			v[k++] = a / b;
	}
	if (!k)
		return false;
	bench_stats(v, k, st);
	return true;
}

/* @f against @base, round by round: the ratios of @op's pin medians. */
static bool policy_ratio(const struct bflavour *f, const struct bflavour *base,
			 const char *op, struct bench_stats *st)
{
	json_t *num[MAX_ROUNDS], *den[MAX_ROUNDS];
	unsigned int i, j, n = 0;

	for (i = 0; i < f->nr; i++) {
		for (j = 0; j < base->nr && base->round[j] != f->round[i]; j++)
			;
		if (j == base->nr)
			continue;
		num[n] = f->docs[i];
		den[n++] = base->docs[j];
	}
	return median_ratios(num, op, den, op, n, st);
}

static void md_xcheck(const struct breport *r, FILE *f)
{
	static const char * const what[] = { "pin_ns_per_page", "unpin_ns_per_page" };
	unsigned int i, j, k, agree = 0, n = 0;
	struct bench_stats st;

	fputs("## Our driver beside the kernel's gup_test\n\n"
	      "Medians over every round of the flavour (each round a boot, each boot the\n"
	      "same operation timed by both, interleaved), ns per page.\n\n"
	      "| flavour | operation | gup_test | pin: ours | pin: gup_test | ours / gup_test | unpin: ours | unpin: gup_test | ours / gup_test |\n"
	      "|---|---|---|---:|---:|---:|---:|---:|---:|\n", f);
	for (i = 0; i < r->nr_fl; i++) {
		for (j = 0; j < bench_nr_ops; j++) {
			const struct bench_op *op = &bench_ops[j];

			if (!op->gup_test)
				continue;
			fprintf(f, "| `%s` | `%s` | `%s` |", r->fl[i].name, op->name, op->gup_test);
			for (k = 0; k < 2; k++) {
				double ours = rounds_median(&r->fl[i], op->name, "ours", what[k], &st);
				double gt = rounds_median(&r->fl[i], op->name, "gup_test", what[k], &st);

				if (ours < 0 || gt < 0) {
					fputs(" not run | not run | |", f);
					continue;
				}
				if (gt == 0) {	/* below the clock's resolution */
					fprintf(f, " %.1f | 0 | |", ours);
					continue;
				}
				n++;
				agree += ours / gt >= 1 - AGREE && ours / gt <= 1 + AGREE;
				fprintf(f, " %.1f | %.1f | %.3f%s |", ours, gt, ours / gt,
					ours / gt >= 1 - AGREE && ours / gt <= 1 + AGREE ? "" : " **outside ±5 %**");
			}
			fputc('\n', f);
		}
	}
	fprintf(f, "\n%u of %u medians agree within ±5 %%.\n\n", agree, n);
}

static void md_policies(const struct breport *r, FILE *f)
{
	const struct bflavour *base = NULL;
	struct bench_stats st;
	unsigned int i, j;

	for (i = 0; i < r->nr_fl; i++)
		if (!strcmp(r->fl[i].name, "stock"))
			base = &r->fl[i];
	fputs("## What each policy's checks cost\n\n"
	      "Pin, ns per page: the median over the flavour's rounds; beside it, the\n"
	      "ratio to stock taken round by round (round r of the flavour against round r\n"
	      "of stock, booted one after the other), as median (min..max).\n\n| operation |", f);
	for (i = 0; i < r->nr_fl; i++)
		fprintf(f, " `%s` |", r->fl[i].name);
	fputs("\n|---|", f);
	for (i = 0; i < r->nr_fl; i++)
		fputs("---:|", f);
	fputc('\n', f);
	for (j = 0; j < bench_nr_ops; j++) {
		fprintf(f, "| `%s` |", bench_ops[j].name);
		for (i = 0; i < r->nr_fl; i++) {
			double m = rounds_median(&r->fl[i], bench_ops[j].name, "ours",
						 "pin_ns_per_page", &st);

			if (m < 0) {
				fputs(" not run |", f);
				continue;
			}
			fprintf(f, " %.1f", m);
			if (base && base != &r->fl[i] &&
			    policy_ratio(&r->fl[i], base, bench_ops[j].name, &st))
				fprintf(f, " ×%.3f (%.3f..%.3f)", st.median, st.min, st.max);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
	if (!base)
		fputs("\nNo `stock` documents: no ratios.\n", f);
	fputc('\n', f);
}

/*
 * Within one boot: an operation where a policy's check runs, over one
 * where it does not or returns early.  A boot's own speed (TCG's, the
 * host's) cancels in such a ratio; comparing a flavour's with stock's
 * leaves what the check costs.  The checks are named after the series'
 * code (patches/gup-v1, gup-v7, gup-v9).
 */
static const struct bench_pair {
	const char *op, *control, *what;
} bench_pairs[] = {
	{ "pin-fast:write,longterm:anon", "pin-fast:write:anon",
	  "LONGTERM on anonymous memory, fast path: every check returns early (anon)" },
	{ "pin-fast:write,longterm:shmem", "pin-fast:write:shmem",
	  "LONGTERM and WRITE of a file-backed (shmem) page, fast path: v7's folio_longterm_write_pin_allowed(), v9's folio_fast_pin_allowed() read the folio's mapping" },
	{ "pin:write,longterm:shmem", "pin:write,longterm:anon",
	  "the slow path on shmem against anon: v7's and v9's vma_needs_dirty_tracking(), v1's check_vma_flags() test" },
};

/* @f's ratio @p->op / @p->control of each boot; false if none. */
static bool pair_ratio(const struct bflavour *f, const struct bench_pair *p,
		       struct bench_stats *st)
{
	return median_ratios(f->docs, p->op, f->docs, p->control, f->nr, st);
}

static void md_within_boot(const struct breport *r, FILE *f)
{
	struct bench_stats st, base;
	unsigned int i, j, b;

	fputs("## The checks, measured within each boot\n\n"
	      "An operation where a policy's check runs over its control in the same boot\n"
	      "(the boot's own speed cancels), as median (min..max) over the flavour's\n"
	      "rounds; then that median over stock's.\n\n| operation / control | what runs |", f);
	for (i = 0; i < r->nr_fl; i++)
		fprintf(f, " `%s` |", r->fl[i].name);
	fputs("\n|---|---|", f);
	for (i = 0; i < r->nr_fl; i++)
		fputs("---:|", f);
	fputc('\n', f);
	for (j = 0; j < sizeof(bench_pairs) / sizeof(bench_pairs[0]); j++) {
		const struct bench_pair *p = &bench_pairs[j];
		bool have_base = false;

		for (b = 0; b < r->nr_fl; b++)
			if (!strcmp(r->fl[b].name, "stock"))
				have_base = pair_ratio(&r->fl[b], p, &base);
		fprintf(f, "| `%s` / `%s` | %s |", p->op, p->control, p->what);
		for (i = 0; i < r->nr_fl; i++) {
			if (!pair_ratio(&r->fl[i], p, &st)) {
				fputs(" not run |", f);
				continue;
			}
			fprintf(f, " %.3f (%.3f..%.3f)", st.median, st.min, st.max);
			if (have_base && strcmp(r->fl[i].name, "stock") && base.median > 0)
				fprintf(f, " ×%.3f", st.median / base.median);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

/* DIR/run.json, or NULL when there is none (yet: the job writes it last). */
static json_t *run_json_of(const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/run.json", dir);
	return json_load_file(path, 0, NULL);
}

static int write_md(const struct breport *r)
{
	FILE *f = fopen(r->md, "we");
	unsigned int i;

	if (!f) {
		fprintf(stderr, "gupctl bench report: cannot write %s: %s\n", r->md, strerror(errno));
		return GUPCTL_EXIT_USAGE;
	}
	fputs("<!-- generated by `make bench` (gupctl bench report); do not edit:\n"
	      "     the prose is docs/performance.md -->\n"
	      "# Pin benchmarks: the figures\n\n", f);
	fprintf(f, "%lld MiB a repetition, %lld page(s) per GUP call, %lld repetitions a boot, clocksource `%s`; ",
		json_integer_value(json_object_get(r->first, "size_bytes")) >> 20,
		json_integer_value(json_object_get(r->first, "pages_per_call")),
		json_integer_value(json_object_get(r->first, "repetitions")),
		json_string_value(json_object_get(r->first, "clocksource")) ?: "unknown");
	if (r->from) {
		json_t *run = run_json_of(r->from);

		fprintf(f, "From `%s`", r->from);
		if (run)
			fprintf(f, " (commit `%s`, %s)",
				json_string_value(json_object_get(run, "commit")) ?: "?",
				json_string_value(json_object_get(run, "date")) ?: "?");
		fputs(". ", f);
		json_decref(run);
	}
	fputs("rounds per flavour:", f);
	for (i = 0; i < r->nr_fl; i++)
		fprintf(f, "%s `%s` %u (%s)", i ? "," : "", r->fl[i].name, r->fl[i].nr,
			r->fl[i].release ?: "?");
	fputs(". Under TCG: compare ratios, not absolute times.\n\n"
	      "![median pin ns per page by operation and flavour](bench.svg)\n\n", f);
	md_xcheck(r, f);
	md_policies(r, f);
	md_within_boot(r, f);
	return fclose(f) ? GUPCTL_EXIT_USAGE : 0;
}

/* Horizontal bars: one group per operation, one bar per flavour. */
static int write_svg(const struct breport *r)
{
	static const char * const colours[] = {
		"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
	};
	const int label_w = 230, plot_w = 480, bar_h = 12, gap = 10, top = 40;
	struct bench_stats st;
	double max = 0, m;
	unsigned int i, j;
	int y, h;
	FILE *f = fopen(r->svg, "we");

	if (!f) {
		fprintf(stderr, "gupctl bench report: cannot write %s: %s\n", r->svg, strerror(errno));
		return GUPCTL_EXIT_USAGE;
	}
	for (j = 0; j < bench_nr_ops; j++)
		for (i = 0; i < r->nr_fl; i++) {
			m = rounds_median(&r->fl[i], bench_ops[j].name, "ours", "pin_ns_per_page", &st);
			max = m > max ? m : max;
		}
	h = top + bench_nr_ops * (r->nr_fl * bar_h + gap) + 30;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n",
		label_w + plot_w + 80, h);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"0\" y=\"14\" font-size=\"13\" font-weight=\"bold\">Pin, ns per page (median over rounds; TCG: compare ratios)</text>\n");
	for (i = 0; i < r->nr_fl; i++)
		fprintf(f, "<rect x=\"%d\" y=\"20\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"29\">%s</text>\n",
			label_w + i * 90, colours[i % 6], label_w + i * 90 + 14, r->fl[i].name);
	y = top;
	for (j = 0; j < bench_nr_ops; j++) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", label_w - 6,
			y + r->nr_fl * bar_h / 2 + 4, bench_ops[j].name);
		for (i = 0; i < r->nr_fl; i++, y += bar_h) {
			m = rounds_median(&r->fl[i], bench_ops[j].name, "ours", "pin_ns_per_page", &st);
			if (m < 0 || max <= 0)
				continue;
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>"
				"<text x=\"%.1f\" y=\"%d\" font-size=\"9\">%.0f</text>\n",
				label_w, y, m / max * plot_w, bar_h - 2, colours[i % 6],
				label_w + m / max * plot_w + 3, y + bar_h - 3, m);
		}
		y += gap;
	}
	fputs("</svg>\n", f);
	return fclose(f) ? GUPCTL_EXIT_USAGE : 0;
}

int bench_report(int argc, char **argv)
{
	struct breport r = { 0 };
	const struct gopt opts[] = {
		GOPT_STRING(0, "md", &r.md, "FILE", "write the markdown page"),
		GOPT_STRING(0, "svg", &r.svg, "FILE", "write the SVG plot"),
		GOPT_STRING(0, "from", &r.from, "DIR", "the results directory the documents came from"),
		GOPT_END()
	};
	unsigned int i, j;
	int ret, argi;

	ret = gopt_parse("bench report", argc, argv, opts, report_usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (!r.md || !r.svg)
		return usage_error("bench report", "needs --md FILE and --svg FILE");
	if (argi >= argc)
		return usage_error("bench report", "no BENCH.json: give gupctl bench --json documents");
	for (ret = 0; !ret && argi < argc; argi++)
		ret = load(&r, argv[argi]);
	if (!ret)
		ret = write_md(&r) ?: write_svg(&r);
	if (!ret)
		printf("wrote %s and %s\n", r.md, r.svg);
	for (i = 0; i < r.nr_fl; i++)
		for (j = 0; j < r.fl[i].nr; j++)
			json_decref(r.fl[i].docs[j]);
	return ret;
}
