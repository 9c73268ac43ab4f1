// SPDX-License-Identifier: GPL-2.0
/*
 * report (host only): gupctl consumers report, docs/consumers.md from a
 * results directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>

#include "console/kreports.h"
#include "console/lines.h"
#include "console/markers.h"
#include "consumers/cells.h"
#include "consumers/report.h"
#include "consumers/run.h"
#include "explorer/page.h"
#include "explorer/table.h"
#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/cell.h"
#include "model/measured.h"

#define REPORT_MAX_FLAVOURS	16

struct rflavour {
	const char *name;
	json_t *doc;		/* FLAVOUR.json, or NULL: not run */
	const char *why;	/* run.json's why_not_run, or NULL */
};

static json_t *rcell(const struct rflavour *f, unsigned int i)
{
	return json_array_get(json_object_get(f->doc, "cells"), i);
}

static const char *jstr(json_t *o, const char *path1, const char *path2);

/* The flavour's cell of @c's interface, backing and state, or NULL. */
static json_t *rfind(const struct rflavour *f, const struct consumer_cell *c)
{
	json_t *cells = json_object_get(f->doc, "cells"), *x;
	size_t i;

	json_array_foreach(cells, i, x)
		if (!strcmp(jstr(x, "interface", NULL) ?: "", consumers[c->iface].name) &&
		    !strcmp(jstr(x, "backing", NULL) ?: "", backing_name(c->backing)) &&
		    !strcmp(jstr(x, "state", NULL) ?: "", state_name(c->state)))
			return x;
	return NULL;
}

static const char *jstr(json_t *o, const char *path1, const char *path2)
{
	json_t *v = json_object_get(o, path1);

	if (path2)
		v = json_object_get(v, path2);
	return json_string_value(v);
}

/* Does @c's expectation name a kernel report (an object: kind, file, text)? */
static bool expects_report(json_t *c)
{
	json_t *r = json_object_get(json_object_get(c, "expected"), "kernel_report");

	return r && !json_is_null(r);
}

/*
 * A cell as both pages show it: the measured verdict, and the expectation
 * when it differs (@md: the verdict in bold, for the markdown table).
 */
static const char *verdict_text(json_t *c, bool md, char *buf, size_t size)
{
	const char *v = jstr(c, "verdict", NULL) ?: "?", *b = md ? "**" : "";

	/* policy none: the measurement, nothing to hold it against */
	if (json_is_true(json_object_get(c, "measured_only")))
		snprintf(buf, size, "%s%s", v,
			 json_is_true(json_object_get(c, "match")) ? " (measured)" : "");
	else if (json_is_true(json_object_get(c, "match")))
		snprintf(buf, size, "%s", v);
	else
		snprintf(buf, size, "%s%s%s (expected %s%s)", b, v, b,
			 expects_report(c) ? "WARN " : "",
			 jstr(c, "expected", "outcome") ?: "?");
	return buf;
}

/* A table cell: verdict_text(), or "-" for a cell not run. */
static void md_verdict(FILE *f, json_t *c)
{
	char buf[256];

	fprintf(f, " %s |", c ? verdict_text(c, true, buf, sizeof(buf)) : "-");
}

static void md_header(FILE *f, const struct rflavour *fl, unsigned int nf, const char *first)
{
	unsigned int k;

	fprintf(f, "| %s |", first);
	/* the flavour, without its overlays: the summary table names them */
	for (k = 0; k < nf; k++)
		fprintf(f, " %.*s |", (int)strcspn(fl[k].name, "+"), fl[k].name);
	fprintf(f, "\n|---|");
	for (k = 0; k < nf; k++)
		fprintf(f, "---|");
	fputc('\n', f);
}

/* The measured verdict and read-backs of a cell, to hold against its twin's. */
static void twin_key(json_t *c, char *buf, size_t size)
{
	snprintf(buf, size, "%s; mapping %s, file %s, disk %s, read %s",
		 jstr(c, "verdict", NULL) ?: "?",
		 jstr(c, "measured", "mapping") ?: "none", jstr(c, "measured", "file") ?: "none",
		 jstr(c, "measured", "disk") ?: "none", jstr(c, "measured", "read") ?: "none");
}

/*
 * Cell @c of flavour @fl and its ext4 twin's, either of them run: the
 * index of @c's file system in consumer_fss[] (xfs, btrfs), or -1 (ext4,
 * memory, neither run: a kernel without the interface runs neither).
 */
static int twin_pair(const struct rflavour *fl, const struct consumer_cell *c,
		     json_t **x, json_t **t)
{
	const struct consumer_fs *cfs = consumer_fs_of(c->backing);
	struct consumer_cell twin;

	if (!fl->doc || !cfs || cfs == &consumer_fss[CONS_FS_EXT4] ||
	    consumer_ext4_twin(c, &twin))
		return -1;
	*x = rfind(fl, c);
	*t = rfind(fl, &twin);
	if (!*x || !*t || (!strcmp(jstr(*x, "measured", "outcome") ?: "", "not-run") &&
			   !strcmp(jstr(*t, "measured", "outcome") ?: "", "not-run")))
		return -1;
	return cfs - consumer_fss;
}

/*
 * xfs and btrfs against ext4: per flavour, how many of each file system's
 * cells measured what their ext4 twin measured (the same interface,
 * mapping and state: verdict and every read-back), and each one that did
 * not.  Expected: all of them (consumers/cells.h, the guide).
 */
static void write_twins(FILE *f, const struct rflavour *fl, unsigned int nf,
			const struct consumer_cell *cc, unsigned int n)
{
	unsigned int k, i, fs, same[CONS_FS_COUNT], total[CONS_FS_COUNT];
	char a[256], b[256];
	bool any = false;
	json_t *x, *t;
	int p;

	fprintf(f, "\n## xfs and btrfs against their ext4 twins\n\n");
	fprintf(f, "Each xfs or btrfs cell against the ext4 cell of the same interface, mapping and "
		"state, where either ran: nothing happens to the file system during the call, so each "
		"is expected to measure what its twin measures (the verdict, and what the mapping, the "
		"file and the disk read back).\n\n");
	fprintf(f, "| flavour |");
	for (fs = CONS_FS_EXT4 + 1; fs < CONS_FS_COUNT; fs++)
		fprintf(f, " %s as ext4 |", consumer_fss[fs].name);
	fprintf(f, "\n|---|");
	for (fs = CONS_FS_EXT4 + 1; fs < CONS_FS_COUNT; fs++)
		fprintf(f, "---|");
	fputc('\n', f);
	for (k = 0; k < nf; k++) {
		memset(same, 0, sizeof(same));
		memset(total, 0, sizeof(total));
		for (i = 0; i < n; i++) {
			p = twin_pair(&fl[k], &cc[i], &x, &t);
			if (p < 0)
				continue;
			total[p]++;
			twin_key(x, a, sizeof(a));
			twin_key(t, b, sizeof(b));
			same[p] += !strcmp(a, b);
		}
		fprintf(f, "| %s |", fl[k].name);
		for (fs = CONS_FS_EXT4 + 1; fs < CONS_FS_COUNT; fs++)
			if (!fl[k].doc || !total[fs])
				fprintf(f, " - |");
			else
				fprintf(f, " %s%u of %u%s |", same[fs] == total[fs] ? "" : "**",
					same[fs], total[fs], same[fs] == total[fs] ? "" : "**");
		fputc('\n', f);
	}
	for (k = 0; k < nf; k++) {
		for (i = 0; i < n; i++) {
			if (twin_pair(&fl[k], &cc[i], &x, &t) < 0)
				continue;
			twin_key(x, a, sizeof(a));
			twin_key(t, b, sizeof(b));
			if (!strcmp(a, b))
				continue;
			if (!any)
				fprintf(f, "\nWhere a cell differs from its ext4 twin:\n\n");
			any = true;
			fprintf(f, "- %s, cell %lld %s %s %s: %s; its ext4 twin, cell %lld: %s\n",
				fl[k].name, json_integer_value(json_object_get(x, "index")),
				consumers[cc[i].iface].name, backing_name(cc[i].backing),
				state_name(cc[i].state), a,
				json_integer_value(json_object_get(t, "index")), b);
		}
	}
}

/*
 * The flavours of policy none: what was measured, not judged, and each
 * kernel report during a cell, that cell's finding.
 */
static void write_findings(FILE *f, const struct rflavour *fl, unsigned int nf)
{
	json_t *s, *r, *c;
	unsigned int k;
	size_t i;

	for (k = 0; k < nf; k++) {
		s = json_object_get(fl[k].doc, "summary");
		if (!json_object_get(s, "measured_only"))
			continue;
		fprintf(f, "\n%s, policy %s (a kernel that matches no policy the lab models): "
			"%lld cells " MEASURED_ONLY ", each shown as measured (its verdict and "
			"read-backs in %s.json); %lld kernel report(s) during its cells, each that "
			"cell's finding%s\n", fl[k].name, POLICY_NONE,
			json_integer_value(json_object_get(s, "measured_only")), fl[k].name,
			json_integer_value(json_object_get(s, "findings")),
			json_integer_value(json_object_get(s, "findings")) ? ":" : ".");
		json_array_foreach(json_object_get(fl[k].doc, "kernel_reports"), i, r) {
			if (!json_is_true(json_object_get(r, "finding")))
				continue;
			c = rcell(&fl[k], json_integer_value(json_object_get(r, "cell")) - 1);
			fprintf(f, "- cell %lld %s %s %s: %s `%s`\n",
				json_integer_value(json_object_get(r, "cell")),
				jstr(c, "interface", NULL) ?: "?", jstr(c, "backing", NULL) ?: "?",
				jstr(c, "state", NULL) ?: "?", jstr(r, "kind", NULL) ?: "?",
				jstr(r, "title", NULL) ?: "?");
		}
	}
}

static void write_md(FILE *f, const char *dir, json_t *run, struct rflavour *fl,
		     unsigned int nf, const char *html)
{
	struct consumer_cell cc[CONS_MAX_CELLS];
	unsigned int n, i, k, it, stock = nf;
	bool any;

	n = consumer_cells(false, cc, CONS_MAX_CELLS);
	/* stock, or stock with an overlay (stock+debug) */
	for (k = 0; k < nf; k++)
		if (!strncmp(fl[k].name, "stock", 5) &&
		    (fl[k].name[5] == '\0' || fl[k].name[5] == '+'))
			stock = k;
	fprintf(f, "<!-- generated by gupctl consumers report (jobs/docs.sh) from %s: do not edit -->\n", dir);
	fprintf(f, "# Real GUP users under every policy: measured\n\n");
	fprintf(f, "Generated by `make docs` from the consumers run `%s` (commit `%s`, %s).\n",
		dir, jstr(run, "commit", NULL) ?: "?", jstr(run, "date", NULL) ?: "?");
	if (html)
		fprintf(f, "Its explorer, to open in a browser: `%s`.\n", html);
	fprintf(f, "How to read it, and what each interface calls: [consumers-guide.md](consumers-guide.md).\n\n");
	fprintf(f, "A cell is what the interface did: `ok` (the bytes moved), the errno it returned, `WARN` "
		"before it when the kernel printed a WARNING during the cell, `DATA LOST` when it "
		"returned success but the file (read through the guest's page cache after fsync) or "
		"the disk (read by the host from the scratch image of the file's file system, ext4, xfs or btrfs, "
		"after the VM exited, never mounted) does not hold the new bytes. "
		"**Bold** cells differ from the expectation derived from the policy "
		"(`userspace/consumers/cells.c`, `userspace/model/policy.c`), which follows in brackets; "
		"`-` means not run in this run (a `--quick` run has a subset).\n\n");
	fprintf(f, "| flavour | policy | kernel | cells | ran | as expected | DATA LOST | kernel reports (unexpected) |\n");
	fprintf(f, "|---|---|---|---|---|---|---|---|\n");
	for (k = 0; k < nf; k++) {
		json_t *s = json_object_get(fl[k].doc, "summary");

		if (!fl[k].doc) {
			fprintf(f, "| %s | | not run | | | | | |\n", fl[k].name);
			continue;
		}
		fprintf(f, "| %s | %s | %s | %lld | %lld | ", fl[k].name,
			jstr(fl[k].doc, "policy", NULL) ?: "?",
			jstr(fl[k].doc, "kernel_release", NULL) ?: "?",
			json_integer_value(json_object_get(s, "cells")),
			json_integer_value(json_object_get(s, "ran")));
		/* policy none: its cells measured, none "as expected" */
		if (json_object_get(s, "measured_only"))
			fprintf(f, "%lld, %lld %s |", json_integer_value(json_object_get(s, "cells")) -
				json_integer_value(json_object_get(s, "mismatches")) -
				json_integer_value(json_object_get(s, "measured_only")),
				json_integer_value(json_object_get(s, "measured_only")), MEASURED_ONLY);
		else
			fprintf(f, "%lld |", json_integer_value(json_object_get(s, "cells")) -
				json_integer_value(json_object_get(s, "mismatches")));
		fprintf(f, " %lld | %lld (%lld) |\n",
			json_integer_value(json_object_get(s, "data_lost")),
			json_integer_value(json_object_get(s, "kernel_reports")),
			json_integer_value(json_object_get(s, "unexpected_kernel_reports")));
	}
	for (it = 0; it < CONS_COUNT; it++) {
		fprintf(f, "\n## %s\n\n%s.\n\n", consumers[it].name, consumers[it].title);
		for (k = 0; k < CONS_SRC_COUNT; k++) {
			char flags[64];
			const struct consumer_call *c = &consumers[it].call[k];

			fprintf(f, "- %s: `%s(%s)`: %s\n", consumer_src_name(k),
				gup_method_name(c->method),
				gup_flags_str(c->flags, flags, sizeof(flags)), c->path);
		}
		fprintf(f, "- gup-v1 (seed 005): %s\n\n",
			consumers[it].seed005 ? consumers[it].seed005 : consumers[it].seed005_why);
		md_header(f, fl, nf, "backing, state");
		for (i = 0; i < n; i++) {
			if (cc[i].iface != it)
				continue;
			fprintf(f, "| %s, %s |", backing_name(cc[i].backing), state_name(cc[i].state));
			for (k = 0; k < nf; k++)
				md_verdict(f, rfind(&fl[k], &cc[i]));
			fputc('\n', f);
		}
		/*
		 * Each expectation that differs from stock's, grouped by the
		 * policy's reason: the cells, then the first one's whole reason.
		 */
		any = false;
		for (k = 0; k < nf && stock < nf; k++) {
			const char *pol = jstr(fl[k].doc, "policy", NULL);
			const char *spol = jstr(fl[stock].doc, "policy", NULL) ?: "stock";
			struct consumer_expectation es, ek;
			bool done[CONS_MAX_CELLS] = { false };
			unsigned int g;

			if (k == stock || !pol)
				continue;
			for (i = 0; i < n; i++) {
				char what[96], reason[2048];
				const char *preason;

				if (done[i] || cc[i].iface != it || consumer_expect(pol, &cc[i], &ek) ||
				    consumer_expect(spol, &cc[i], &es) ||
				    (ek.ok == es.ok && ek.err == es.err &&
				     !ek.report.kind == !es.report.kind))
					continue;
				if (!any)
					fprintf(f, "\nWhere a flavour's expectation differs from stock's, and why:\n\n");
				any = true;
				snprintf(what, sizeof(what), "%s%s (stock %s%s)",
					 ek.report.kind ? "WARN " : "", consumer_expected_outcome(&ek),
					 es.report.kind ? "WARN " : "", consumer_expected_outcome(&es));
				snprintf(reason, sizeof(reason), "%s", ek.reason);
				preason = ek.policy.reason;
				fprintf(f, "- %s: %s on", fl[k].name, what);
				for (g = i; g < n; g++) {
					struct consumer_expectation eg, sg;
					char gwhat[96];

					if (cc[g].iface != it || consumer_expect(pol, &cc[g], &eg) ||
					    consumer_expect(spol, &cc[g], &sg))
						continue;
					snprintf(gwhat, sizeof(gwhat), "%s%s (stock %s%s)",
						 eg.report.kind ? "WARN " : "", consumer_expected_outcome(&eg),
						 sg.report.kind ? "WARN " : "", consumer_expected_outcome(&sg));
					if (strcmp(gwhat, what) || strcmp(eg.policy.reason, preason))
						continue;
					done[g] = true;
					fprintf(f, "%s %s %s", g == i ? "" : ",",
						backing_name(cc[g].backing), state_name(cc[g].state));
				}
				fprintf(f, ". The first: %s\n", reason);
			}
		}
	}
	write_twins(f, fl, nf, cc, n);
	fprintf(f, "\n## Findings: measured against expected\n\n");
	any = false;
	for (k = 0; k < nf; k++) {
		for (i = 0; i < n; i++) {
			json_t *c = rcell(&fl[k], i);

			if (!c || json_is_true(json_object_get(c, "match")))
				continue;
			any = true;
			fprintf(f, "- %s, cell %lld %s %s %s: %s; expected because: %s\n", fl[k].name,
				json_integer_value(json_object_get(c, "index")),
				jstr(c, "interface", NULL), jstr(c, "backing", NULL),
				jstr(c, "state", NULL), jstr(c, "note", NULL) ?: "?",
				jstr(c, "expected", "reason") ?: "?");
		}
	}
	if (!any)
		fprintf(f, "Every cell that ran is as expected.\n");
	write_findings(f, fl, nf);
}

/* ---- The explorer (explorer/table.h; docs/results.md, "The explorer") ---- */

/* What a cell measured, in one line: its verdict, errno and read-backs. */
static void measured_text(json_t *c, char *buf, size_t size)
{
	char key[256];
	json_t *m = json_object_get(c, "measured");

	twin_key(c, key, sizeof(key));
	snprintf(buf, size, "%s; outcome %s, %lld bytes%s%s%s%s", key,
		 jstr(m, "outcome", NULL) ?: "?",
		 json_integer_value(json_object_get(m, "bytes")),
		 jstr(m, "errno", NULL) ? ", errno " : "", jstr(m, "errno", NULL) ?: "",
		 jstr(m, "setup_error", NULL) ? ", setup error: " : "",
		 jstr(m, "setup_error", NULL) ?: "");
}

/* One flavour's column: its summary, console, and every cell it has. */
static void html_flavour(json_t *t, const char *dir, const struct rflavour *fl,
			 unsigned int col, const struct consumer_cell *cc, unsigned int n)
{
	static unsigned int first[CONS_MAX_CELLS], last[CONS_MAX_CELLS];
	json_t *s = json_object_get(fl->doc, "summary"), *lines, *x, *c, *r, *mine;
	char path[4096], summary[256], text[256], measured[512], expected[128];
	unsigned int i;
	size_t j;

	snprintf(summary, sizeof(summary), "%lld cells, %lld ran, %lld as expected, "
		 "%lld DATA LOST, %lld kernel reports (%lld unexpected)",
		 json_integer_value(json_object_get(s, "cells")),
		 json_integer_value(json_object_get(s, "ran")),
		 json_integer_value(json_object_get(s, "cells")) -
		 json_integer_value(json_object_get(s, "mismatches")) -
		 json_integer_value(json_object_get(s, "measured_only")),
		 json_integer_value(json_object_get(s, "data_lost")),
		 json_integer_value(json_object_get(s, "kernel_reports")),
		 json_integer_value(json_object_get(s, "unexpected_kernel_reports")));
	snprintf(path, sizeof(path), "%s/%s.console.log", dir, fl->name);
	memset(first, 0, sizeof(first));
	memset(last, 0, sizeof(last));
	lines = console_lines(path);
	if (json_array_size(lines))
		console_cell_lines(path, "consumers", json_array_size(lines), CONS_MAX_CELLS,
				   first, last);
	explorer_column(t, fl->name, jstr(fl->doc, "policy", NULL),
			jstr(fl->doc, "kernel_release", NULL), summary, lines);
	for (i = 0; i < n; i++) {
		const char *key[] = { consumers[cc[i].iface].name, backing_name(cc[i].backing),
				      state_name(cc[i].state) };
		json_int_t idx;

		x = rfind(fl, &cc[i]);
		if (!x)
			continue;
		idx = json_integer_value(json_object_get(x, "index"));
		c = explorer_cell(t, key, col, verdict_text(x, false, text, sizeof(text)),
				  json_is_true(json_object_get(x, "measured_only")) ?
				  EXPLORER_NOT_JUDGED : json_is_true(json_object_get(x, "match")));
		snprintf(expected, sizeof(expected), "%s%s",
			 expects_report(x) ? "WARN " : "",
			 jstr(x, "expected", "outcome") ?: "nothing (" POLICY_NONE ")");
		snprintf(text, sizeof(text), "%lld of %s.json", (long long)idx, fl->name);
		explorer_field(c, "cell", text);
		explorer_field(c, "expected", expected);
		explorer_field(c, "reason", jstr(x, "expected", "reason"));
		measured_text(x, measured, sizeof(measured));
		explorer_field(c, "measured", measured);
		explorer_field(c, "note", jstr(x, "note", NULL));
		explorer_field(c, "skipped", jstr(x, "skip", NULL));
		mine = json_array();
		json_array_foreach(json_object_get(fl->doc, "kernel_reports"), j, r)
			if (json_integer_value(json_object_get(r, "cell")) == idx)
				json_array_append(mine, r);
		explorer_reports(c, mine);
		json_decref(mine);
		if (idx >= 1 && idx <= CONS_MAX_CELLS)
			explorer_lines(c, first[idx - 1], last[idx - 1]);
	}
}

/* The page: a column per flavour that ran, a row per interface, mapping and state. */
static int write_html(const char *path, const char *dir, json_t *run,
		      const struct rflavour *fl, unsigned int nf)
{
	static const char * const keys[] = { "interface", "backing", "state" };
	struct consumer_cell cc[CONS_MAX_CELLS];
	unsigned int n = consumer_cells(false, cc, CONS_MAX_CELLS), k, col = 0;
	json_t *t = explorer_table("consumers", "The kernel's own GUP users, measured: explorer",
				   dir, run, keys, ARRAY_SIZE(keys));
	char title[4200];
	int ret;

	for (k = 0; k < nf; k++) {
		if (!fl[k].doc) {
			explorer_not_run(t, fl[k].name, fl[k].why ?: "no FLAVOUR.json");
			continue;
		}
		html_flavour(t, dir, &fl[k], col++, cc, n);
	}
	snprintf(title, sizeof(title), "consumers: %s", dir);
	ret = explorer_write("consumers report", path, title, t);
	json_decref(t);
	return ret;
}

int consumers_report(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl consumers report [--md FILE] [--html FILE] DIR",
		"",
		"docs/consumers.md, and the explorer page, from a consumers results directory",
		"(run.json, FLAVOUR.json, FLAVOUR.console.log).",
		NULL
	};
	const char *md = NULL, *html = NULL;
	const struct gopt opts[] = {
		GOPT_STRING(0, "md", &md, "FILE", "write the markdown page here"),
		GOPT_STRING(0, "html", &html, "FILE",
			    "write the explorer here (docs/results.md, \"The explorer\")"),
		GOPT_END()
	};
	struct rflavour fl[REPORT_MAX_FLAVOURS];
	char path[4096];
	unsigned int nf = 0, k;
	json_t *run, *v;
	size_t x;
	int ret, argi;
	FILE *f;

	ret = gopt_parse("consumers report", argc, argv, opts, usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if ((!md && !html) || argc - argi != 1)
		return usage_error("consumers report",
				   "give --md FILE or --html FILE (or both) and one results DIR");
	snprintf(path, sizeof(path), "%s/run.json", argv[argi]);
	run = jsonfile_read_object(path, "consumers report");
	if (!run)
		return GUPCTL_EXIT_USAGE;
	json_array_foreach(json_object_get(run, "flavours"), x, v) {
		if (nf == REPORT_MAX_FLAVOURS)
			break;
		fl[nf].name = json_string_value(json_object_get(v, "name"));
		if (!fl[nf].name)
			continue;
		fl[nf].why = json_string_value(json_object_get(v, "why_not_run"));
		snprintf(path, sizeof(path), "%s/%s.json", argv[argi], fl[nf].name);
		fl[nf].doc = json_load_file(path, 0, NULL);
		nf++;
	}
	ret = GUPCTL_EXIT_OK;
	if (md) {
		f = fopen(md, "we");
		if (f)
			write_md(f, argv[argi], run, fl, nf, html);
		if (!f || fclose(f)) {
			fprintf(stderr, "gupctl consumers report: cannot write %s: %s\n", md,
				errno_name(errno));
			ret = GUPCTL_EXIT_USAGE;
		}
	}
	if (html && !ret)
		ret = write_html(html, argv[argi], run, fl, nf);
	for (k = 0; k < nf; k++)
		json_decref(fl[k].doc);
	json_decref(run);
	return ret;
}
