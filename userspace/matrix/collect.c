// SPDX-License-Identifier: GPL-2.0
/*
 * collect: gupctl report --collect, on the host after each boot.
 * One flavour's results document (FLAVOUR.json, docs/results.md) from the
 * guest's matrix and xcheck documents, the run's facts, and the kernel
 * reports on the console, each attributed to the marker before it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console/kreports.h"
#include "console/markers.h"
#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/kmsg.h"
#include "matrix/collect.h"
#include "matrix/json.h"
#include "model/policy.h"

/* "gupctl report: PATH: MSG" (no PATH if NULL); GUPCTL_EXIT_USAGE. */
static int collect_error(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int collect_error(const char *path, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gupctl report: %s%s", path ?: "", path ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return GUPCTL_EXIT_USAGE;
}

/* report_matches() for the matrix's cell @mc (@idx), said of that cell. */
static bool report_expected(const struct collect_opts *o, const struct kreport *k,
			    unsigned int idx, const struct mcell *mc,
			    char *why, size_t size)
{
	char r[800];
	bool ok = report_matches(&mc->report, k, o->src, r, sizeof(r));

	snprintf(why, size, "cell %u %s", idx + 1, r);
	return ok;
}

/*
 * Why report @k, after marker @m (NULL: before the first), is not
 * attributed to a matrix cell: NULL if it is.
 */
static const char *no_cell(const struct marker *m, const struct mflavour *fl)
{
	if (!m)
		return "before the first marker: no cell was running";
	if (m->index == KMSG_MARK_END)
		return "after a step's last cell";
	if (strcmp(m->step, "matrix"))
		return "during a step that expects no kernel report";
	if (!fl->doc || !fl->cells[m->index].present)
		return "its cell is not in the matrix document: no expectation";
	return NULL;
}

/*
 * The kernel reports qemu/scan-console.sh --reports listed, each with the
 * step and cell of the marker before it.  A report is expected when the
 * matrix's cell (@fl: the guest's document, NULL if none came back)
 * expects it (report_expected()); any other fails the flavour.  @seen[idx]
 * is set for each cell that got its expected report.
 */
static int attribute_reports(const struct collect_opts *o, const struct markers *ms,
			     const struct mflavour *fl, bool *seen, json_t **out)
{
	const struct series_finding *series;
	const struct marker *m;
	struct kreports k;
	json_t *a, *cell;
	const char *why;
	char buf[1024];
	bool expected, finding;
	size_t i;
	int ret = kreports_load(o->reports, "report", &k);

	if (ret)
		return ret;
	a = json_array();
	for (i = 0; i < k.nr; i++) {
		m = marker_before(ms, k.r[i].line);
		cell = m && m->index != KMSG_MARK_END ?
		       json_integer(m->index + 1) : json_null();
		why = no_cell(m, fl);
		/*
		 * Policy none: a WARNING during a cell is that cell's finding
		 * (nothing expects or forbids it); an oops, a BUG, a hung task
		 * or a report outside the cells still fails the flavour.
		 */
		finding = !why && fl->cells[m->index].measured_only &&
			  !strcmp(k.r[i].kind, "warning");
		if (finding)
			snprintf(buf, sizeof(buf), MATRIX_MEASURED_ONLY ": a WARNING during cell %d, a finding of this kernel (WARN_ON_ONCE is not re-armed: the first cell to reach its site)",
				 m->index + 1);
		else if (!why && fl->cells[m->index].measured_only)
			why = "a report other than a WARNING during a cell of policy none: it fails the flavour, whatever the policy";
		expected = !why && !finding &&
			   report_expected(o, &k.r[i], m->index,
					   &fl->cells[m->index], buf, sizeof(buf));
		if (expected)
			seen[m->index] = true;
		/* not the lab's to expect, nor to fail on: a documented finding */
		series = expected ? NULL : series_finding_of(o->policy, &k.r[i], o->src);
		if (series) {
			snprintf(buf, sizeof(buf), "a finding of the series, not of the lab: %s (%s)",
				 series->what, series->doc);
			why = NULL;
		}
		json_array_append_new(a, json_pack("{s:s, s:s, s:s?, s:i, s:s?, s:o, s:b, s:o, s:b, s:s}",
						   "kind", k.r[i].kind, "title", k.r[i].title,
						   "location", k.r[i].location,
						   "console_line", k.r[i].line,
						   "step", m ? m->step : NULL,
						   "cell", cell,
						   "expected", expected,
						   "series_finding", series_json(series),
						   "no_policy_finding", finding,
						   "note", why ?: buf));
	}
	kreports_free(&k);
	*out = a;
	return 0;
}

/*
 * A cell that expects a kernel report and ran, but got none attributed,
 * did not go as expected: in the document's @cells, its match turns false
 * with a note.
 */
static void mark_missing_reports(json_t *cells, const struct mflavour *fl,
				 const bool *seen)
{
	const struct mcell *mc;
	json_int_t idx;
	char note[512];
	json_t *j;
	size_t i;

	json_array_foreach(cells, i, j) {
		idx = json_integer_value(json_object_get(j, "index")) - 1;
		if (idx < 0 || idx >= MATRIX_NR_CELLS)
			continue;	/* matrix_json_parse() checked them */
		mc = &fl->cells[idx];
		if (!mc->report.kind || seen[idx] || mc->measured == MATRIX_NOT_RUN)
			continue;
		snprintf(note, sizeof(note),
			 "the expected %s (%s, a line holding '%s') was not seen on the console during this cell",
			 mc->report.kind, mc->report.file, mc->report.text);
		json_object_set_new(j, "match", json_false());
		json_object_set_new(j, "note", json_string(note));
	}
}

/* The guest's --matrix document, checked, of the flavour and policy. */
static int read_matrix(const struct collect_opts *o, struct mflavour *m)
{
	int ret = matrix_json_load(o->matrix, m, "report");

	if (!ret && (strcmp(m->name, o->flavour) || strcmp(m->policy, o->policy)))
		ret = collect_error(o->matrix,
				    "of flavour %s policy %s, not --flavour %s --policy %s",
				    m->name, m->policy, o->flavour, o->policy);
	return ret;
}

/* The guest's --xcheck document: its counts and cells, of the policy. */
static int read_xcheck(const struct collect_opts *o, json_t **out)
{
	json_t *x = jsonfile_read(o->xcheck, "report");
	const char *policy;

	if (!x)
		return GUPCTL_EXIT_USAGE;
	policy = json_string_value(json_object_get(x, "policy"));
	if (!json_is_integer(json_object_get(x, "checked")) ||
	    !json_is_integer(json_object_get(x, "disagree")) ||
	    !json_is_array(json_object_get(x, "cells")) || !policy) {
		json_decref(x);
		return collect_error(o->xcheck,
				     "want \"policy\", \"checked\", \"disagree\" and \"cells\" (gupctl xcheck --json)");
	}
	if (strcmp(policy, o->policy)) {
		json_decref(x);
		return collect_error(o->xcheck, "of policy %s, not --policy %s",
				     policy, o->policy);
	}
	*out = x;
	return 0;
}

/*
 * The xcheck's judge step, on the host: each cross-checked cell agrees when
 * gup_test got what the policy expects and, where the matrix has the cell,
 * what our driver measured.  The guest's gupctl xcheck compares only the
 * first two (its matrix job does not pass --matrix: parsing the 4-5 MB
 * matrix document took 3.3-3.9 s of each TCG boot, this a few ms here);
 * "matrix" and "agree" are filled in here from the matrix document the
 * collect reads anyway, and "disagree" counted again.
 */
static void judge_xcheck(json_t *xcheck, const struct mflavour *m)
{
	json_t *cells = json_object_get(xcheck, "cells"), *j;
	int disagree = 0;
	size_t i;

	json_array_foreach(cells, i, j) {
		json_int_t index = json_integer_value(json_object_get(j, "index"));
		const char *got = json_string_value(json_object_get(j, "gup_test"));
		const char *want = json_string_value(json_object_get(j, "expected"));
		const char *ours = NULL;
		bool agree;

		if (m->doc && index >= 1 && index <= MATRIX_NR_CELLS &&
		    m->cells[index - 1].present)
			ours = matrix_outcome_name(m->cells[index - 1].measured);
		agree = got && want && !strcmp(got, want) && (!ours || !strcmp(ours, got));
		json_object_set_new(j, "matrix", ours ? json_string(ours) : json_null());
		json_object_set_new(j, "agree", json_boolean(agree));
		disagree += !agree;
	}
	json_object_set_new(xcheck, "disagree", json_integer(disagree));
}

static json_t *wall_json(const struct collect_opts *o, const struct mflavour *m,
			 json_t *xcheck)
{
	json_t *w = json_pack("{s:f}", "boot", o->boot_seconds);
	json_t *xw = json_object_get(json_object_get(xcheck, "wall_seconds"),
				     "xcheck");

	if (m->doc)
		json_object_set_new(w, "matrix", json_real(m->wall_matrix));
	if (json_is_number(xw))
		json_object_set(w, "xcheck", xw);
	return w;
}

#define COLLECT_MAX_PROBLEMS	5

/* One line of print_problems(): only the first few are printed. */
static void problem(unsigned int *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(unsigned int *n, const char *fmt, ...)
{
	va_list ap;

	if ((*n)++ >= COLLECT_MAX_PROBLEMS)
		return;
	fputs("  ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/*
 * What failed the flavour, a line each, the first few: cells not as
 * expected, kernel reports no cell expects, gup_test's disagreements.
 */
static void print_problems(const struct collect_opts *o, const struct mflavour *fl)
{
	char what[160], measured[96], expected[96];
	json_t *x = json_object_get(json_object_get(fl->doc, "xcheck"), "cells"), *j;
	unsigned int idx, n = 0;
	size_t i;

	if (matrix_flavour_mislabelled(fl))
		problem(&n, "mislabelled: the flavour table says its GUP policy is %s, but the kernel's is %s (%s)",
			fl->policy, fl->kernel_policy ?: "none the lab models",
			fl->kernel_policy_why);
	for (idx = 0; idx < MATRIX_NR_CELLS; idx++) {
		const struct mcell *c = &fl->cells[idx];

		if (!c->present || c->match)
			continue;
		mcell_measured_str(measured, sizeof(measured), c);
		mcell_expected_str(expected, sizeof(expected), c);
		problem(&n, "cell %u %s: measured %s, expected %s%s%s", idx + 1,
			matrix_cell_str(idx, what, sizeof(what)), measured, expected,
			c->note ? ": " : "", c->note ?: "");
	}
	for (i = 0; i < fl->nr_reports; i++) {
		const struct mreport *r = &fl->reports[i];

		if (r->expected || r->series || r->finding)
			continue;
		if (r->cell != KMSG_MARK_END)
			snprintf(what, sizeof(what), " during %s cell %d", r->step, r->cell + 1);
		else
			what[0] = '\0';
		problem(&n, "unexpected %s%s: %s (%s)", r->kind, what, r->title,
			r->note ?: "");
	}
	json_array_foreach(x, i, j)
		if (!json_is_true(json_object_get(j, "agree")))
			problem(&n, "gup_test disagrees on cell %lld: gup_test %s, expected %s, our driver %s",
				(long long)json_integer_value(json_object_get(j, "index")),
				json_string_value(json_object_get(j, "gup_test")) ?: "error",
				json_string_value(json_object_get(j, "expected")) ?: "?",
				json_string_value(json_object_get(j, "matrix")) ?: "-");
	if (fl->nr_present != MATRIX_NR_CELLS)
		problem(&n, "%u of %u cells missing", MATRIX_NR_CELLS - fl->nr_present,
			MATRIX_NR_CELLS);
	if (n > COLLECT_MAX_PROBLEMS)
		printf("  ... %u more in %s\n", n - COLLECT_MAX_PROBLEMS, o->out);
}

/* The line --collect prints, and what failed. */
static void print_summary(const struct collect_opts *o, const struct mflavour *fl)
{
	printf("%s: %u of %u cells, %u mismatch%s, ", fl->name, fl->nr_present,
	       MATRIX_NR_CELLS, fl->nr_mismatch, fl->nr_mismatch == 1 ? "" : "es");
	if (fl->xcheck_nr < 0)
		printf("no gup_test cross-check, ");
	else
		printf("gup_test: %d checked, %d disagree, ", fl->xcheck_nr,
		       fl->xcheck_disagree);
	if (fl->nr_measured_only)
		printf("%u " MATRIX_MEASURED_ONLY ", ", fl->nr_measured_only);
	printf("kernel reports: %u expected, %u unexpected, ",
	       mflavour_expected_reports(fl), fl->nr_unexpected);
	if (fl->nr_findings)
		printf("%u WARNING%s in cells with no policy (findings), ", fl->nr_findings,
		       fl->nr_findings == 1 ? "" : "s");
	if (fl->nr_series)
		printf("%u the series' own finding%s, ", fl->nr_series,
		       fl->nr_series == 1 ? "" : "s");
	printf("kernel verdict %s, ", o->verdict);
	if (fl->wall_matrix >= 0)
		printf("matrix %.1f s, ", fl->wall_matrix);
	printf("boot %.1f s: %s\n", o->boot_seconds,
	       matrix_flavour_failed(fl) ? "FAILED" : "passed");
	if (matrix_flavour_failed(fl))
		print_problems(o, fl);
}

int matrix_collect(const struct collect_opts *o)
{
	struct mflavour *m, *fl;
	struct markers ms = { 0 };
	json_t *doc = NULL, *xcheck = NULL, *reports = NULL, *cells;
	bool *seen;
	FILE *f;
	int ret;

	m = calloc(1, sizeof(*m));
	fl = calloc(1, sizeof(*fl));
	seen = calloc(MATRIX_NR_CELLS, sizeof(*seen));
	if (!m || !fl || !seen) {
		ret = collect_error(NULL, "out of memory (ENOMEM)");
		goto out;
	}
	ret = read_markers(o->console, "report", &ms) ?:
	      (o->matrix ? read_matrix(o, m) : 0) ?:
	      attribute_reports(o, &ms, m, seen, &reports) ?:
	      (o->xcheck ? read_xcheck(o, &xcheck) : 0);
	if (ret)
		goto out;
	if (xcheck)
		judge_xcheck(xcheck, m);
	cells = m->doc ? json_deep_copy(json_object_get(m->doc, "cells")) : json_array();
	if (cells)
		mark_missing_reports(cells, m, seen);

	doc = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:s, s:s, s:n, s:o, s:o, s:o, s:O}",
			"job", "matrix", "flavour", o->flavour,
			"policy", o->policy, "ext4", o->ext4,
			"kernel_release", m->doc ? m->kernel : NULL,
			"input_hash", o->input_hash,
			"kernel_verdict", o->verdict,
			"summary",
			"wall_seconds", wall_json(o, m, xcheck),
			"cells", cells,
			"xcheck", xcheck ? json_incref(xcheck) : json_null(),
			"kernel_reports", reports);
	/* make check's subset (gupctl matrix --quick), said where it is read */
	if (doc)
		json_object_set_new(doc, "quick", json_boolean(m->quick));
	/* the guest's reading of its kernel, for matrix_flavour_mislabelled() */
	if (doc && m->doc && json_object_get(m->doc, "kernel_policy"))
		json_object_set(doc, "kernel_policy", json_object_get(m->doc, "kernel_policy"));
	/* Read back what we wrote: checked, and counted for the summary. */
	ret = doc ? matrix_json_parse(doc, o->out, fl, "report") :
		    collect_error(NULL, "out of memory (ENOMEM)");
	if (ret)
		goto out;
	json_object_set_new(doc, "summary", matrix_json_summary(fl));
	f = jsonfile_open(o->out, "report");
	ret = f ? jsonfile_dump(doc, f, o->out, "report") : GUPCTL_EXIT_USAGE;
	if (ret)
		goto out;
	print_summary(o, fl);
	ret = matrix_flavour_failed(fl) ? GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK;
out:
	json_decref(doc);
	json_decref(xcheck);
	json_decref(reports);
	if (m)
		matrix_json_free(m);
	if (fl)
		matrix_json_free(fl);
	free(m);
	free(fl);
	free(seen);
	free(ms.m);
	return ret;
}
