// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl holders report: docs/filesystems.md, generated from one results
 * directory of jobs/holders.sh (run.json, FLAVOUR.json, the consoles).
 * At its top, the answer the issue asks for, computed from the cells: what
 * loses data through real system calls, on which file system, per kernel.
 * Then one table per file system: holder x event rows, flavour columns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "console/lines.h"
#include "explorer/page.h"
#include "explorer/table.h"
#include "holders/report.h"
#include "lib/jsonfile.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/holders.h"
#include "model/measured.h"

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* Events that take the page out of the file: a dropped write is their design. */
static bool event_removes_page(const char *event, const char *fs)
{
	return !strcmp(event, "swapext") || !strcmp(event, "punch") ||
	       !strcmp(event, "truncate") || (!strcmp(event, "collapse") && strcmp(fs, "btrfs"));
}

/*
 * A holder that completed, a page still in the file, and the disk without
 * its bytes ("none": the host could not read the file, nothing is known).
 */
static bool cell_lost(json_t *cell)
{
	json_t *m = json_object_get(cell, "measured");

	return m && !json_is_true(json_object_get(m, "refused")) &&
	       !event_removes_page(str(cell, "event"), str(cell, "fs")) &&
	       strcmp(str(m, "disk"), "NEW") && strcmp(str(m, "disk"), "none");
}

/* FICLONE's clone got the holder's bytes: another file changed. */
static bool cell_clone_hit(json_t *cell)
{
	return !strcmp(str(json_object_get(cell, "measured"), "clone"), "NEW");
}

static const char *event_words(const char *e)
{
	static const struct { const char *name, *words; } w[] = {
		{ "none", "nothing" }, { "fsync", "fsync(2)" },
		{ "pageout", "fsync + madvise(MADV_PAGEOUT)" },
		{ "drop-caches", "fsync + drop_caches" },
		{ "move-ext-donor", "fsync + EXT4_IOC_MOVE_EXT, the file as donor" },
		{ "move-ext-orig", "fsync + EXT4_IOC_MOVE_EXT, the file as orig (e4defrag)" },
		{ "swapext", "XFS_IOC_SWAPEXT (xfs_fsr)" },
		{ "defrag", "fsync + BTRFS_IOC_DEFRAG_RANGE" },
		{ "punch", "fallocate(PUNCH_HOLE)" }, { "collapse", "fallocate(COLLAPSE_RANGE)" },
		{ "truncate", "ftruncate to 0 and back" }, { "ficlone", "ioctl(FICLONE)" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(w); i++)
		if (!strcmp(w[i].name, e))
			return w[i].words;
	return e;
}

static const char *holder_short(const char *h)
{
	return !strcmp(h, "odirect") ? "O_DIRECT read" :
	       !strcmp(h, "pvw") ? "process_vm_writev" : "io_uring read";
}

/*
 * One line per file system and event of @doc's cells that @pick selects:
 * the holders it happened with, what the host read, the console, and
 * each cell's console slice.  The number of cells said.
 */
static unsigned int answer_lines(FILE *out, json_t *doc, bool (*pick)(json_t *cell),
				 const char *what)
{
	json_t *cells = json_object_get(doc, "cells"), *c, *d;
	unsigned int n = 0;
	size_t i, j;

	json_array_foreach(cells, i, c) {
		bool first = true;

		if (!pick(c))
			continue;
		/* the first cell of its (fs, event) writes the line */
		for (j = 0; j < i && first; j++) {
			d = json_array_get(cells, j);
			first = !(pick(d) && !strcmp(str(d, "fs"), str(c, "fs")) &&
				  !strcmp(str(d, "event"), str(c, "event")));
		}
		n++;
		if (!first)
			continue;
		fprintf(out, "- %s, while held: %s: %s by", str(c, "fs"),
			event_words(str(c, "event")), what);
		for (j = i; j < json_array_size(cells); j++) {
			d = json_array_get(cells, j);
			if (pick(d) && !strcmp(str(d, "fs"), str(c, "fs")) &&
			    !strcmp(str(d, "event"), str(c, "event")))
				fprintf(out, "%s %s (`%s`)", j == i ? "" : ",",
					holder_short(str(d, "holder")), str(d, "console"));
		}
		d = json_object_get(c, "measured");
		fprintf(out, "; the host reads %s%s%s%s\n", str(d, "disk"),
			strcmp(str(d, "clone"), "none") ? ", the clone " : "",
			strcmp(str(d, "clone"), "none") ? str(d, "clone") : "",
			!strcmp(str(d, "report"), "ext4-lost") ?
			"; WARNING in ext4_dirty_folio, \"does not have buffers attached\"" :
			!strcmp(str(d, "report"), "btrfs-refused") ?
			"; \"marked dirty without notifying the fs\", fsync fails" : "");
	}
	return n;
}

/* The flavours whose answer comes first, newest kernel first. */
static const char * const newest[] = { "latest", "mainline" };

static bool is_newest(const char *flavour)
{
	size_t k;

	for (k = 0; k < ARRAY_SIZE(newest); k++)
		if (!strcmp(flavour, newest[k]))
			return true;
	return false;
}

/* The answer for one flavour: what lost data, what changed another file. */
static void answer(FILE *out, const char *flavour, json_t *doc)
{
	json_t *c;
	unsigned int ran = 0, lost, clones;
	size_t i;

	json_array_foreach(json_object_get(doc, "cells"), i, c)
		ran += !!json_object_get(c, "measured");
	fprintf(out, "\n**%s** (%u cells ran", flavour, ran);
	if (json_object_get(json_object_get(doc, "counts"), "measured_only"))
		fprintf(out, "; policy %s: %lld " MEASURED_ONLY ", each shown as measured, a kernel report during a cell its finding",
			POLICY_NONE, json_integer_value(json_object_get(json_object_get(doc, "counts"),
									"measured_only")));
	fprintf(out, "):\n\n");
	if (!ran)
		return;
	lost = answer_lines(out, doc, cell_lost, "the holder's write lost");
	clones = answer_lines(out, doc, cell_clone_hit,
			      "another file (the clone) changed");
	if (!lost && !clones)
		fprintf(out, "- no data lost, no other file changed.\n");
}

static json_t *find_cell(json_t *doc, const char *name)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(doc, "cells"), i, c)
		if (!strcmp(str(c, "name"), name))
			return c;
	return NULL;
}

/* What the host read and whether the holder was refused: a cell's outcome. */
static void outcome(json_t *cell, char *buf, size_t size)
{
	json_t *m = json_object_get(cell, "measured");

	snprintf(buf, size, "%s%s%s", json_is_true(json_object_get(m, "refused")) ?
		 "refused, " : "", str(m, "disk"),
		 strcmp(str(m, "report"), "none") ? " + report" : "");
}

/* The cells whose outcome on @doc differs from @base's (the first flavour's). */
static void policy_changes(FILE *out, const char *base_name, json_t *base, const char *name,
			   json_t *doc)
{
	char a[64], b[64];
	unsigned int n = 0, pass;
	json_t *c, *d;
	size_t i;

	for (pass = 0; pass < 2; pass++) {
		if (pass)
			fprintf(out, "- **%s** against %s: %s", name, base_name,
				n ? "" : "the same outcome in every cell both ran");
		n = 0;
		json_array_foreach(json_object_get(doc, "cells"), i, c) {
			d = find_cell(base, str(c, "name"));
			if (!d || !json_object_get(c, "measured") ||
			    !json_object_get(d, "measured"))
				continue;
			outcome(d, a, sizeof(a));
			outcome(c, b, sizeof(b));
			if (strcmp(a, b) && pass)
				fprintf(out, "%s`%s` %s → %s", n ? ", " : "", str(c, "name"), a, b);
			n += !!strcmp(a, b);
		}
	}
	fprintf(out, "\n");
}

/*
 * A cell as both pages show it: the host's read, the clone's, whether the
 * console said something; "not run".  The markdown table adds the verdict.
 */
static const char *cell_text(json_t *c, char *buf, size_t size)
{
	json_t *m = json_object_get(c, "measured");

	if (!strcmp(str(c, "verdict"), "not run"))
		return "not run";
	snprintf(buf, size, "%s%s%s%s%s",
		 json_is_true(json_object_get(m, "refused")) ? "refused, " : "", str(m, "disk"),
		 strcmp(str(m, "clone"), "none") ? ", clone " : "",
		 strcmp(str(m, "clone"), "none") ? str(m, "clone") : "",
		 strcmp(str(m, "report"), "none") ? " + report" : "");
	return buf;
}

/* A table cell: cell_text() and the verdict. */
static void table_cell(FILE *out, json_t *c)
{
	const char *v = str(c, "verdict");
	char buf[128];

	if (!c) {
		fprintf(out, " n/a |");
		return;
	}
	if (!strcmp(v, "not run")) {
		fprintf(out, " not run |");
		return;
	}
	/* policy none: measured, nothing to hold it against (no ✓, no ✗) */
	fprintf(out, " %s %s |", cell_text(c, buf, sizeof(buf)),
		!strcmp(v, "as expected") ? "✓" : !strcmp(v, MEASURED_VERDICT) ? "(measured)" :
		"✗ mismatch");
}

/* ---- The explorer (explorer/table.h; docs/results.md, "The explorer") ---- */

/* @o's fields as "key value, key value" (an expectation, a measurement). */
static void fields_text(json_t *o, char *buf, size_t size)
{
	const char *k;
	json_t *v;
	size_t n = 0;

	buf[0] = '\0';
	json_object_foreach(o, k, v) {
		char *s;

		if (!strcmp(k, "reason") || n >= size)
			continue;
		s = json_is_string(v) ? strdup(json_string_value(v)) : json_dumps(v, JSON_ENCODE_ANY);
		n += snprintf(buf + n, size - n, "%s%s %s", n ? ", " : "", k, s ?: "?");
		free(s);
	}
}

/* Flavour @name's cell @cell as column @col's. */
static void html_cell(json_t *t, const char *dir, json_t *cell, unsigned int col,
		      const char *const *key)
{
	const char *v = str(cell, "verdict");
	char text[128], buf[2048], path[4096];
	json_t *c, *x;
	size_t i;

	c = explorer_cell(t, key, col, cell_text(cell, text, sizeof(text)),
			  !strcmp(v, "as expected") ? 1 :
			  !strcmp(v, MEASURED_VERDICT) || !strcmp(v, "not run") ?
			  EXPLORER_NOT_JUDGED : 0);
	explorer_field(c, "verdict", v);
	explorer_field(c, "cell", str(cell, "name"));
	fields_text(json_object_get(cell, "expect"), buf, sizeof(buf));
	explorer_field(c, "expected", buf);
	explorer_field(c, "reason", json_string_value(json_object_get(json_object_get(cell, "expect"),
								   "reason")));
	fields_text(json_object_get(cell, "measured"), buf, sizeof(buf));
	explorer_field(c, "measured", buf);
	fields_text(json_object_get(cell, "guest"), buf, sizeof(buf));
	explorer_field(c, "in the guest", buf);
	json_array_foreach(json_object_get(cell, "differences"), i, x)
		explorer_field(c, "differs", json_string_value(x));
	json_array_foreach(json_object_get(cell, "unexpected_reports"), i, x)
		explorer_field(c, "unexpected report",
			       json_string_value(x) ?: json_string_value(json_object_get(x, "title")));
	if (*str(cell, "console")) {
		snprintf(path, sizeof(path), "%s/%s", dir, str(cell, "console"));
		explorer_console(c, console_lines(path));
	}
}

/* The page: a column per flavour, a row per file system, holder and event. */
static int write_html(const char *dir, const char *out)
{
	static const char * const keys[] = { "fs", "holder", "event" };
	char path[4096], name[64], summary[160];
	json_t *run, *fl, *doc, *t, *n;
	struct holders_cell c;
	unsigned int col = 0;
	size_t i;
	int ret;

	snprintf(path, sizeof(path), "%s/run.json", dir);
	run = jsonfile_read_object(path, "holders report");
	if (!run)
		return GUPCTL_EXIT_USAGE;
	if (strcmp(str(run, "job"), "holders")) {
		fprintf(stderr, "gupctl holders report: %s is a run of '%s', not of holders\n",
			path, str(run, "job"));
		json_decref(run);
		return GUPCTL_EXIT_USAGE;
	}
	t = explorer_table("holders", "What loses data through real system calls: explorer",
			   dir, run, keys, ARRAY_SIZE(keys));
	json_array_foreach(json_object_get(run, "flavours"), i, fl) {
		snprintf(path, sizeof(path), "%s/%s.json", dir, str(fl, "name"));
		/* (run.json of holders has no "ran": the document is the answer) */
		doc = json_load_file(path, 0, NULL);
		if (!json_is_object(doc)) {
			json_decref(doc);
			explorer_not_run(t, str(fl, "name"),
					 json_string_value(json_object_get(fl, "why_not_run")) ?:
					 "no results");
			continue;
		}
		n = json_object_get(doc, "counts");
		snprintf(summary, sizeof(summary), "%lld as expected, %lld mismatched, %lld not run",
			 json_integer_value(json_object_get(n, "as_expected")),
			 json_integer_value(json_object_get(n, "mismatched")),
			 json_integer_value(json_object_get(n, "not_run")));
		explorer_column(t, str(fl, "name"), str(doc, "policy"),
				json_string_value(json_object_get(doc, "kernel_release")),
				summary, NULL);
		for (c.fs = 0; c.fs < HOLDERS_FS_COUNT; c.fs++)
			for (c.holder = 0; c.holder < HOLDERS_HOLDER_COUNT; c.holder++)
				for (c.event = 0; c.event < HOLDERS_EV_COUNT; c.event++) {
					const char *key[] = { holders_fs_choices[c.fs],
						holders_holder_choices[c.holder],
						event_words(holders_event_choices[c.event]) };
					json_t *cell;

					if (!holders_cell_valid(&c))
						continue;
					holders_cell_name(&c, name, sizeof(name));
					cell = find_cell(doc, name);
					if (cell)
						html_cell(t, dir, cell, col, key);
				}
		col++;
		json_decref(doc);
	}
	snprintf(path, sizeof(path), "holders: %s", dir);
	ret = explorer_write("holders report", out, path, t);
	json_decref(t);
	json_decref(run);
	return ret;
}

static int write_page(const char *dir, FILE *out, const char *html)
{
	char path[4096], name[64];
	json_t *run, *fl, *docs[16] = { 0 }, *f;
	const char *flavours[16], *run_name;
	char real[4096];
	size_t nf = 0, i;
	struct holders_cell c;
	unsigned int k;

	/* the run's own name, also when given as results/holders/latest */
	if (!realpath(dir, real))
		snprintf(real, sizeof(real), "%s", dir);
	run_name = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	snprintf(path, sizeof(path), "%s/run.json", dir);
	run = jsonfile_read_object(path, "holders report");
	if (!run)
		return GUPCTL_EXIT_USAGE;
	json_array_foreach(json_object_get(run, "flavours"), i, fl) {
		if (nf == ARRAY_SIZE(docs))
			break;
		flavours[nf] = str(fl, "name");
		snprintf(path, sizeof(path), "%s/%s.json", dir, flavours[nf]);
		docs[nf++] = jsonfile_read_object(path, "holders report");
	}
	fprintf(out, "# What loses data through real system calls, on ext4, xfs, btrfs and ext4 "
		"data=journal\n\n"
		"<!-- generated by gupctl holders report from %s: do not edit -->\n\n"
		"> Generated from `make holders` (jobs/holders.sh), run %s at %s. No test driver is "
		"loaded in these guests: every pin is taken by the kernel's own code. "
		"Expectations and why: [filesystems-guide.md](filesystems-guide.md). "
		"The host reads each file from the powered-off guest's image without "
		"mounting it. A write dropped because the event took the page out of the file "
		"(punch, truncate, collapse, SWAPEXT) is by design and not counted as lost. "
		"Each cell's console is named as in the run's directory, results/holders/%s/ "
		"(results are not published: `make holders` makes your own).\n",
		run_name, str(run, "date"),
		str(run, "commit"), run_name);
	if (html)
		fprintf(out, "\nThe run's explorer, to open in a browser: `%s`.\n", html);
	/*
	 * The newest kernel first, "what loses data today" being the
	 * question: latest (7.3), then mainline (6.12), then the rest.
	 */
	fprintf(out, "\n## The answer\n");
	for (k = 0; k <= ARRAY_SIZE(newest); k++)
		for (i = 0; i < nf; i++)
			if (docs[i] && (k < ARRAY_SIZE(newest) ? !strcmp(flavours[i], newest[k]) :
					!is_newest(flavours[i])))
				answer(out, flavours[i], docs[i]);
	fprintf(out, "\n## What each policy changes\n\nEach flavour's cells whose outcome "
		"(the host's read, the holder refused, a report) differs from %s's:\n\n",
		nf ? flavours[0] : "?");
	for (i = 1; i < nf; i++)
		if (docs[0] && docs[i])
			policy_changes(out, flavours[0], docs[0], flavours[i], docs[i]);
	for (k = 0; k < HOLDERS_FS_COUNT; k++) {
		fprintf(out, "\n## %s%s\n\n| holder | event |", holders_fs_choices[k],
			k == HOLDERS_FS_EXT4J ? " (ext4 mounted data=journal)" : "");
		for (i = 0; i < nf; i++)
			fprintf(out, " %s |", flavours[i]);
		fprintf(out, "\n|---|---|");
		for (i = 0; i < nf; i++)
			fprintf(out, "---|");
		fputc('\n', out);
		c.fs = k;
		for (c.holder = 0; c.holder < HOLDERS_HOLDER_COUNT; c.holder++)
			for (c.event = 0; c.event < HOLDERS_EV_COUNT; c.event++) {
				if (!holders_cell_valid(&c))
					continue;
				holders_cell_name(&c, name, sizeof(name));
				fprintf(out, "| %s | %s |", holders_holder_choices[c.holder],
					event_words(holders_event_choices[c.event]));
				for (i = 0; i < nf; i++) {
					f = docs[i] ? find_cell(docs[i], name) : NULL;
					table_cell(out, f);
				}
				fputc('\n', out);
			}
	}
	fprintf(out, "\nEach cell: what the host read at the pinned page (NEW: the holder's "
		"bytes; OLD: the file's before; ZEROS; NEXT: the next page's, after a collapse; "
		"TMP: the other file's, after an extent swap), \"+ report\" when the console "
		"showed a warning or a file system's error line for it, and ✓ when all of it "
		"(and the holder's and fsync's results) is what the guide expects. Each "
		"flavour's cells, with reasons and the guest's every view of the page: "
		"FLAVOUR.json in the results directory.\n");
	for (i = 0; i < nf; i++)
		if (docs[i] && json_object_get(json_object_get(docs[i], "counts"), "measured_only"))
			break;
	if (i < nf)
		fprintf(out, "\n\"(measured)\": a cell of a kernel of policy %s (it matches no "
			"policy the lab models), " MEASURED_ONLY ": its outcome is shown, not "
			"judged; the kernel reports during it are its findings (FLAVOUR.json).\n",
			POLICY_NONE);
	for (i = 0; i < nf; i++)
		json_decref(docs[i]);
	json_decref(run);
	return GUPCTL_EXIT_OK;
}

int holders_report(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl holders report --results DIR [-o FILE] [--html FILE]",
		"",
		"docs/filesystems.md, and the explorer page, from a results directory of make holders.",
		NULL
	};
	const char *dir = NULL, *out = NULL, *html = NULL;
	const struct gopt opts[] = {
		GOPT_STRING(0, "results", &dir, "DIR", "a results directory of jobs/holders.sh"),
		GOPT_STRING('o', "out", &out, "FILE", "the page (default: stdout)"),
		GOPT_STRING(0, "html", &html, "FILE",
			    "write the explorer here, and no page unless -o (docs/results.md)"),
		GOPT_END()
	};
	FILE *f = stdout;
	int ret, argi;

	ret = gopt_parse("holders report", argc, argv, opts, usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (!dir)
		return usage_error("holders report", "--results is required");
	if (html && !out)
		return write_html(dir, html);
	if (html) {
		ret = write_html(dir, html);
		if (ret)
			return ret;
	}
	if (out)
		f = fopen(out, "w");
	if (!f) {
		perror(out);
		return GUPCTL_EXIT_USAGE;
	}
	ret = write_page(dir, f, html);
	if (f != stdout)
		fclose(f);
	return ret;
}
