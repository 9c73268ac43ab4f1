// SPDX-License-Identifier: GPL-2.0
/*
 * report (host only): gupctl repro report, a results directory of `make repro` into the markdown of
 * docs/repro-ext4-2018-results.md (`make docs` runs it), a row per cell with its file system.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "console/lines.h"
#include "explorer/page.h"
#include "explorer/table.h"
#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/util.h"
#include "model/cell.h"
#include "model/measured.h"
#include "repro/cells.h"
#include "repro/report.h"

/* @s fit for a markdown table cell into @buf: '|' escaped, "-" if empty. */
static const char *md_cell(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	if (!s || !*s)
		s = "-";
	for (; *s && n + 3 < size; s++) {
		if (*s == '|')
			buf[n++] = '\\';
		buf[n++] = *s;
	}
	buf[n] = '\0';
	return buf;
}

/* Index of @s in @list (appended if new), 1-based. */
static size_t number_of(json_t *list, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v)
		if (!strcmp(json_string_value(v), s))
			return i + 1;
	json_array_append_new(list, json_string(s));
	return json_array_size(list);
}

/* A report as one line: "WARNING at LOC: fn (loc) ← fn (loc) ...". */
static void report_line(json_t *r, char *buf, size_t size)
{
	const char *kind = repro_json_str(r, "kind"), *loc = repro_json_str(r, "location");
	json_t *f;
	size_t i, n;

	if (!strcmp(kind, "warning") || !strcmp(kind, "bug"))
		n = snprintf(buf, size, "%s at %s", !strcmp(kind, "bug") ? "BUG" : "WARNING",
			     loc ? loc : "?");
	else
		n = snprintf(buf, size, "%s", repro_json_str(r, "title"));
	json_array_foreach(json_object_get(r, "frames"), i, f) {
		if (n >= size)
			break;
		n += snprintf(buf + n, size - n, "%s%s", i ? " ← " : ": ", repro_json_str(f, "function"));
		if (n < size && repro_json_str(f, "location"))
			n += snprintf(buf + n, size - n, " (%s)", repro_json_str(f, "location"));
	}
}

/* ext4's "FUNC:LINE: inode #12: comm gupctl: page 0 ..." without the inode and comm. */
static void ext4_line(const char *w, char *buf, size_t size)
{
	const char *msg = strstr(w, "page ");
	size_t n = strcspn(w, ":");

	n += w[n] ? 1 + strspn(w + n + 1, "0123456789") : 0;
	snprintf(buf, size, "ext4_warning in %.*s: %s", (int)n, w, msg ? msg : w);
}

/*
 * btrfs' "error: root 5 ino 266 folio 0 is marked dirty ..." and "error:
 * failed to submit blocks, root=5 inode=266 folio=0 submit_bitmap=0: -117"
 * without the root, inode and folio: one line for every cell that said it.
 */
static void btrfs_line(const char *w, char *buf, size_t size)
{
	const char *msg = strstr(w, REPRO_BTRFS_REFUSED), *err = strrchr(w, ':');
	size_t level = strcspn(w, ":");

	if (msg)
		snprintf(buf, size, "BTRFS %.*s: folio %s", (int)level, w, msg);
	else if (strstr(w, "failed to submit blocks") && err)
		snprintf(buf, size, "BTRFS %.*s: failed to submit blocks:%s", (int)level, w, err + 1);
	else
		snprintf(buf, size, "BTRFS %s", w);
}

struct md {
	FILE *f;
	json_t *reasons, *traces;
	unsigned int cells, matches, measured;
};

static void md_row(struct md *md, json_t *doc, json_t *cell)
{
	json_t *meas = json_object_get(cell, "measured"), *reads = json_object_get(meas, "reads");
	json_t *r, *w;
	char a[512], b[512], line[2048], refs[256] = "", reads_s[128];
	bool only = json_is_true(json_object_get(cell, "measured_only"));
	bool match = json_is_true(json_object_get(cell, "match"));
	size_t i, n = 0;

	json_array_foreach(json_object_get(doc, "kernel_reports"), i, r) {
		if (strcmp(repro_json_str(r, "cell") ?: "", repro_json_str(cell, "cell")))
			continue;
		report_line(r, line, sizeof(line));
		n += snprintf(refs + n, sizeof(refs) - n, "%sT%zu", n ? ", " : "",
			      number_of(md->traces, line));
	}
	json_array_foreach(json_object_get(meas, "ext4_warnings"), i, w) {
		ext4_line(json_string_value(w), line, sizeof(line));
		n += snprintf(refs + n, sizeof(refs) - n, "%sT%zu", n ? ", " : "",
			      number_of(md->traces, line));
	}
	json_array_foreach(json_object_get(meas, "btrfs_errors"), i, w) {
		btrfs_line(json_string_value(w), line, sizeof(line));
		n += snprintf(refs + n, sizeof(refs) - n, "%sT%zu", n ? ", " : "",
			      number_of(md->traces, line));
	}
	snprintf(reads_s, sizeof(reads_s), "%s / %s / %s",
		 repro_json_str(reads, "guest") ?: "-", repro_json_str(reads, "direct") ?: "-",
		 repro_json_str(reads, "host") ?: "-");
	/* a results directory from before xfs and btrfs: every cell is ext4's */
	fprintf(md->f, "| %s | %s | %s | `%s` | ", repro_json_str(doc, "flavour"),
		repro_json_str(cell, "fs") ?: "ext4",
		repro_json_str(cell, "route_title"), repro_json_str(cell, "cell"));
	/* policy none: nothing expected, the outcome is shown, not judged */
	if (only)
		fprintf(md->f, "%s | ", MEASURED_ONLY);
	else
		fprintf(md->f, "%s [%zu] | ",
			md_cell(repro_json_outcome(cell, "expected"), a, sizeof(a)),
			number_of(md->reasons,
				  repro_json_str(json_object_get(cell, "expected"), "reason") ?: "?"));
	fprintf(md->f, "%s | %s | %s | %s |\n", md_cell(repro_json_outcome(cell, "measured"), b, sizeof(b)),
		only ? (match ? "MEASURED" : "NOT RUN") : match ? "MATCH" : "MISMATCH",
		md_cell(reads_s, a, sizeof(a)), refs[0] ? refs : "-");
	md->cells++;
	md->matches += match && !only;
	md->measured += match && only;
}

/* The page: a header, the table (in @table), the reasons and the traces. */
static void write_page(FILE *f, const char *dir, json_t *run, const struct md *md,
		       FILE *table, const char *html)
{
	char buf[4096], sources[256];
	json_t *v;
	size_t i;

	run_json_sources(run, sources, sizeof(sources));

	fprintf(f, "<!-- Generated by `gupctl repro report` (make docs) from a results directory\n"
		"     of `make repro`: do not edit; run the job and make docs again. -->\n");
	fprintf(f, "# The ext4-2018 reproduction: measured\n\n");
	fprintf(f, "What [repro-ext4-2018.md](repro-ext4-2018.md) describes, on ext4 and on\n"
		"xfs and btrfs (the fs column), as\n"
		"`jobs/repro.sh` ran it on %s\n(results `%s`, commit `%s`, %s, %.0f s):\n"
		"%u cells, %u as expected",
		sources, dir,
		repro_json_str(run, "commit") ?: "?", repro_json_str(run, "date") ?: "?",
		json_number_value(json_object_get(run, "wall_seconds")),
		md->cells, md->matches);
	if (md->measured)
		fprintf(f, ", %u " MEASURED_ONLY " (a kernel of policy %s, which matches no\n"
			"policy the lab models: its outcomes are shown, not judged; a kernel\n"
			"report during such a cell is its finding)", md->measured, POLICY_NONE);
	fprintf(f, ".\n"
		"The reads column shows the guest's page cache, the guest's `O_DIRECT`\n"
		"read and the host's read of the image.\n");
	if (html)
		fprintf(f, "The run's explorer, to open in a browser: `%s`.\n", html);
	fputc('\n', f);
	rewind(table);
	while (fgets(buf, sizeof(buf), table))
		fputs(buf, f);
	fprintf(f, "\nWhy each outcome was expected (userspace/model/repro.c, repro_expect(), from\n"
		"the flavour's gup, ext4 and source columns and the cell's file system; line\n"
		"numbers are those of the flavour's tree, or of the version before them,\n"
		"6.1 (6.1.192) or 6.12 (6.12.118)):\n\n");
	json_array_foreach(md->reasons, i, v)
		fprintf(f, "%zu. %s\n", i + 1, json_string_value(v));
	if (!json_array_size(md->traces))
		return;
	fprintf(f, "\nKernel reports, ext4 warnings and btrfs errors, symbolised by the flavour's\n"
		"decode_stacktrace.sh and trimmed by `gupctl repro judge` (guess unwinder:\n"
		"interrupt and scheduler leftovers dropped; callers after the arrow):\n\n");
	json_array_foreach(md->traces, i, v)
		fprintf(f, "- **T%zu**: %s\n", i + 1, json_string_value(v));
}

/* ---- The explorer (explorer/table.h; docs/results.md, "The explorer") ---- */

/* @cell of flavour @doc as a table cell of column @col: the same words as md_row()'s. */
static void html_cell(json_t *t, const char *dir, json_t *doc, json_t *cell, unsigned int col)
{
	json_t *meas = json_object_get(cell, "measured"), *reads = json_object_get(meas, "reads");
	json_t *mine = json_array(), *r, *w, *c;
	bool only = json_is_true(json_object_get(cell, "measured_only"));
	bool match = json_is_true(json_object_get(cell, "match"));
	const char *key[] = { repro_json_str(cell, "fs") ?: "ext4",
			      repro_json_str(cell, "route_title"), repro_json_str(cell, "cell") };
	char line[2048], path[4096];
	size_t i;

	c = explorer_cell(t, key, col, repro_json_outcome(cell, "measured") ?: "?",
			  only ? EXPLORER_NOT_JUDGED : match);
	explorer_field(c, "expected", only ? MEASURED_ONLY : repro_json_outcome(cell, "expected"));
	explorer_field(c, "reason", repro_json_str(json_object_get(cell, "expected"), "reason"));
	explorer_field(c, "measured", repro_json_outcome(cell, "measured"));
	explorer_field(c, "result", only ? (match ? "MEASURED" : "NOT RUN") :
				    match ? "MATCH" : "MISMATCH");
	snprintf(line, sizeof(line), "%s / %s / %s",
		 repro_json_str(reads, "guest") ?: "-", repro_json_str(reads, "direct") ?: "-",
		 repro_json_str(reads, "host") ?: "-");
	explorer_field(c, "reads: guest cache / guest O_DIRECT / host", line);
	json_array_foreach(json_object_get(meas, "ext4_warnings"), i, w) {
		ext4_line(json_string_value(w), line, sizeof(line));
		explorer_field(c, "ext4 warning", line);
	}
	json_array_foreach(json_object_get(meas, "btrfs_errors"), i, w) {
		btrfs_line(json_string_value(w), line, sizeof(line));
		explorer_field(c, "btrfs error", line);
	}
	/* each report with its trace, as the page's T lines */
	json_array_foreach(json_object_get(doc, "kernel_reports"), i, r) {
		if (strcmp(repro_json_str(r, "cell") ?: "", repro_json_str(cell, "cell") ?: "") ||
		    strcmp(repro_json_str(r, "fs") ?: key[0], key[0]))
			continue;
		report_line(r, line, sizeof(line));
		json_array_append_new(mine, json_pack("{s:s, s:O?, s:O?}", "title", line,
			"expected", json_object_get(r, "expected"),
			"note", json_object_get(r, "note")));
	}
	explorer_reports(c, mine);
	json_decref(mine);
	if (repro_json_str(cell, "console")) {
		snprintf(path, sizeof(path), "%s/%s", dir, repro_json_str(cell, "console"));
		explorer_console(c, console_lines(path));
	}
}

/* The page: a column per flavour, a row per file system, route and cell. */
static int write_html(const char *dir, json_t *run, const char *out)
{
	static const char * const keys[] = { "fs", "route", "cell" };
	json_t *t = explorer_table("repro", "The ext4-2018 reproduction, measured: explorer",
				   dir, run, keys, ARRAY_SIZE(keys));
	char path[4096], summary[256];
	unsigned int col = 0, n, ok;
	json_t *fl, *doc, *cell;
	size_t i, j;
	int ret;

	json_array_foreach(json_object_get(run, "flavours"), i, fl) {
		snprintf(path, sizeof(path), "%s/%s.json", dir, repro_json_str(fl, "name"));
		doc = json_is_true(json_object_get(fl, "ran")) ?
		      jsonfile_read_object(path, "repro report") : NULL;
		if (!doc) {
			explorer_not_run(t, repro_json_str(fl, "name"),
					 repro_json_str(fl, "why_not_run") ?: "no results");
			continue;
		}
		n = ok = 0;
		json_array_foreach(json_object_get(doc, "cells"), j, cell) {
			n++;
			ok += json_is_true(json_object_get(cell, "match"));
		}
		snprintf(summary, sizeof(summary), "%u cells, %u as expected (or measured), "
			 "kernel verdict %s", n, ok, repro_json_str(doc, "kernel_verdict") ?: "?");
		explorer_column(t, repro_json_str(fl, "name"), repro_json_str(doc, "policy"),
				repro_json_str(doc, "kernel_release"), summary, NULL);
		json_array_foreach(json_object_get(doc, "cells"), j, cell)
			html_cell(t, dir, doc, cell, col);
		col++;
		json_decref(doc);
	}
	snprintf(path, sizeof(path), "repro: %s", dir);
	ret = explorer_write("repro report", out, path, t);
	json_decref(t);
	return ret;
}

static int report(const char *dir, const char *out, const char *html)
{
	char path[4096], buf[1024];
	json_t *run, *fl, *doc, *cell;
	const char *v;
	struct md md = { .reasons = json_array(), .traces = json_array() };
	FILE *f;
	size_t i, j;
	int ret = GUPCTL_EXIT_OK;

	snprintf(path, sizeof(path), "%s/run.json", dir);
	run = jsonfile_read_object(path, "repro report");
	if (run && strcmp(repro_json_str(run, "job") ?: "", "repro")) {
		fprintf(stderr, "gupctl repro report: %s is a run of '%s', not of repro\n", path,
			repro_json_str(run, "job"));
		ret = GUPCTL_EXIT_USAGE;
	}
	md.f = tmpfile();
	if (!run || !md.f || ret)
		goto done;
	fprintf(md.f, "| flavour | fs | route | cell | expected | measured | result | %s |\n",
		"reads: guest cache / guest O_DIRECT / host | kernel reports");
	fprintf(md.f, "|---|---|---|---|---|---|---|---|---|\n");
	json_array_foreach(json_object_get(run, "flavours"), i, fl) {
		snprintf(path, sizeof(path), "%s/%s.json", dir, repro_json_str(fl, "name"));
		doc = json_is_true(json_object_get(fl, "ran")) ? jsonfile_read_object(path, "repro report") : NULL;
		if (!doc) {
			v = repro_json_str(fl, "why_not_run") ?: "no results";
			fprintf(md.f, "| %s | - | - | - | - | not run: %s | - | - | - |\n",
				repro_json_str(fl, "name"), md_cell(v, buf, sizeof(buf)));
			if (json_is_true(json_object_get(fl, "ran")))
				ret = GUPCTL_EXIT_USAGE;
			continue;
		}
		json_array_foreach(json_object_get(doc, "cells"), j, cell)
			md_row(&md, doc, cell);
		json_decref(doc);
	}
	f = out ? fopen(out, "w") : stdout;
	if (f) {
		write_page(f, dir, run, &md, md.f, html);
		if (out && fclose(f))
			f = NULL;
	}
	if (!f) {
		fprintf(stderr, "gupctl repro report: cannot write %s: %s\n", out, strerror(errno));
		ret = GUPCTL_EXIT_USAGE;
	}
done:
	if (!run || !md.f)
		ret = GUPCTL_EXIT_USAGE;
	if (md.f)
		fclose(md.f);
	json_decref(run);
	json_decref(md.reasons);
	json_decref(md.traces);
	return ret;
}

int repro_report(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl repro report --results DIR [-o FILE] [--html FILE]",
		NULL
	};
	const char *dir = NULL, *out = NULL, *html = NULL;
	const struct gopt opts[] = {
		GOPT_STRING(0, "results", &dir, "DIR", "a results directory of jobs/repro.sh"),
		GOPT_STRING('o', "out", &out, "FILE", "write the markdown here (default stdout)"),
		GOPT_STRING(0, "html", &html, "FILE",
			    "write the explorer here, and no markdown unless -o (docs/results.md)"),
		GOPT_END()
	};
	int ret = repro_parse("repro report", argc, argv, opts, usage);
	json_t *run;
	char path[4096];

	if (ret >= 0)
		return ret;
	if (!dir)
		return usage_error("repro report", "no --results DIR");
	if (!html || out) {
		ret = report(dir, out, html);
		if (ret || !html)
			return ret;
	}
	snprintf(path, sizeof(path), "%s/run.json", dir);
	run = jsonfile_read_object(path, "repro report");
	if (!run)
		return GUPCTL_EXIT_USAGE;
	if (strcmp(repro_json_str(run, "job") ?: "", "repro")) {
		fprintf(stderr, "gupctl repro report: %s is a run of '%s', not of repro\n", path,
			repro_json_str(run, "job") ?: "?");
		json_decref(run);
		return GUPCTL_EXIT_USAGE;
	}
	ret = write_html(dir, run, html);
	json_decref(run);
	return ret;
}
