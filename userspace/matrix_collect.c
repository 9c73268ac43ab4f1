// SPDX-License-Identifier: GPL-2.0
/*
 * matrix_collect: gupctl report --collect, on the host after each boot.
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

#include "kreports.h"
#include "matrix_json.h"

/* A marker on the console (gupctl.h, matrix_mark()). */
struct marker {
	unsigned int line;
	char step[MATRIX_STEP_LEN];
	int index;			/* MATRIX_MARK_NONE: an end marker */
};

struct markers {
	struct marker *m;
	unsigned int nr, cap;
};

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

/* A marker (matrix_mark()) in @line: true with its step and index. */
static bool parse_mark(const char *line, char step[MATRIX_STEP_LEN], int *index)
{
	const char *p = strstr(line, MATRIX_MARK_PREFIX);
	size_t n;
	char *end;
	long v;

	if (!p)
		return false;
	p += strlen(MATRIX_MARK_PREFIX);
	n = strspn(p, "abcdefghijklmnopqrstuvwxyz");
	if (!n || n >= MATRIX_STEP_LEN)
		return false;
	memcpy(step, p, n);
	step[n] = '\0';
	p += n;
	if (!strncmp(p, " end", 4) && strspn(p + 4, "\r\n") == strlen(p + 4)) {
		*index = MATRIX_MARK_NONE;
		return true;
	}
	if (strncmp(p, " cell ", 6))
		return false;
	v = strtol(p + 6, &end, 10);
	if (v < 1 || v > MATRIX_NR_CELLS || strspn(end, "\r\n") != strlen(end))
		return false;
	*index = v - 1;
	return true;
}

/* Every marker of the console @path, in console order. */
static int read_markers(const char *path, struct markers *ms)
{
	struct marker m, *p;
	unsigned int line = 0;
	char *buf = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return collect_error(path, "cannot open: %s (%s)",
				     errno_name(errno), strerror(errno));
	while (!ret && getline(&buf, &cap, f) >= 0) {
		line++;
		if (!parse_mark(buf, m.step, &m.index))
			continue;
		m.line = line;
		if (ms->nr == ms->cap) {
			ms->cap = ms->cap ? 2 * ms->cap : 1024;
			p = realloc(ms->m, ms->cap * sizeof(*p));
			if (!p) {
				ret = collect_error(NULL, "out of memory (ENOMEM)");
				break;
			}
			ms->m = p;
		}
		ms->m[ms->nr++] = m;
	}
	if (!ret && ferror(f))
		ret = collect_error(path, "reading failed: %s (%s)",
				    errno_name(errno), strerror(errno));
	free(buf);
	fclose(f);
	return ret;
}

/* The last marker before console line @line, or NULL. */
static const struct marker *marker_before(const struct markers *ms,
					  unsigned int line)
{
	const struct marker *last = NULL;
	unsigned int i;

	for (i = 0; i < ms->nr && ms->m[i].line < line; i++)
		last = &ms->m[i];
	return last;
}

/*
 * The kernel reports qemu/scan-console.sh --reports listed, each with the
 * step and cell of the marker before it.  The matrix expects no report at
 * all: every one is unexpected and fails the flavour.
 */
static int attribute_reports(const char *path, const struct markers *ms,
			     json_t **out)
{
	const struct marker *m;
	struct kreports k;
	json_t *a, *cell;
	size_t i;
	int ret = kreports_load(path, "report", &k);

	if (ret)
		return ret;
	a = json_array();
	for (i = 0; i < k.nr; i++) {
		m = marker_before(ms, k.r[i].line);
		cell = m && m->index != MATRIX_MARK_NONE ?
		       json_integer(m->index + 1) : json_null();
		json_array_append_new(a, json_pack("{s:s, s:s, s:s?, s:i, s:s?, s:o, s:b}",
						   "kind", k.r[i].kind, "title", k.r[i].title,
						   "location", k.r[i].location,
						   "console_line", k.r[i].line,
						   "step", m ? m->step : NULL,
						   "cell", cell,
						   "expected", false));
	}
	kreports_free(&k);
	*out = a;
	return 0;
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
	json_t *x = matrix_json_read_file(o->xcheck, "report");
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

int matrix_collect(const struct collect_opts *o)
{
	struct mflavour m = { 0 }, *fl;
	struct markers ms = { 0 };
	json_t *doc = NULL, *xcheck = NULL, *reports = NULL;
	FILE *f;
	int ret;

	fl = calloc(1, sizeof(*fl));
	if (!fl)
		return collect_error(NULL, "out of memory (ENOMEM)");
	ret = read_markers(o->console, &ms) ?:
	      attribute_reports(o->reports, &ms, &reports) ?:
	      (o->matrix ? read_matrix(o, &m) : 0) ?:
	      (o->xcheck ? read_xcheck(o, &xcheck) : 0);
	if (ret)
		goto out;

	doc = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:s, s:s, s:n, s:o, s:o, s:o, s:O}",
			"job", "matrix", "flavour", o->flavour,
			"policy", o->policy, "ext4", o->ext4,
			"kernel_release", m.doc ? m.kernel : NULL,
			"input_hash", o->input_hash,
			"kernel_verdict", o->verdict,
			"summary",
			"wall_seconds", wall_json(o, &m, xcheck),
			"cells", m.doc ? json_incref(json_object_get(m.doc, "cells")) :
					 json_array(),
			"xcheck", xcheck ? json_incref(xcheck) : json_null(),
			"kernel_reports", reports);
	/* Read back what we wrote: checked, and counted for the summary. */
	ret = doc ? matrix_json_parse(doc, o->out, fl, "report") :
		    collect_error(NULL, "out of memory (ENOMEM)");
	if (ret)
		goto out;
	json_object_set_new(doc, "summary", matrix_json_summary(fl));
	f = matrix_json_open(o->out, "report");
	ret = f ? matrix_json_dump(doc, f, o->out, "report") : GUPCTL_EXIT_USAGE;
	if (ret)
		goto out;

	printf("%s: %u of %u cells, %u mismatch%s, ", fl->name, fl->nr_present,
	       MATRIX_NR_CELLS, fl->nr_mismatch, fl->nr_mismatch == 1 ? "" : "es");
	if (fl->xcheck_nr < 0)
		printf("no gup_test cross-check, ");
	else
		printf("gup_test: %d checked, %d disagree, ", fl->xcheck_nr,
		       fl->xcheck_disagree);
	printf("%u kernel report%s, kernel verdict %s: %s\n", fl->nr_reports,
	       fl->nr_reports == 1 ? "" : "s", o->verdict,
	       matrix_flavour_failed(fl) ? "FAILED" : "passed");
	ret = matrix_flavour_failed(fl) ? GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK;
out:
	json_decref(doc);
	json_decref(xcheck);
	json_decref(reports);
	matrix_json_free(&m);
	matrix_json_free(fl);
	free(fl);
	free(ms.m);
	return ret;
}
