// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl holders judge: one real-interface cell, measured from what the
 * guest recorded (gupctl holders run's JSON), what the host read from the
 * image (never mounted: qemu/read-image.sh) and the cell's slice of the
 * console, then compared with the expectation written before the run
 * (gupctl holders cells).  gupctl holders collect: a flavour's judged
 * cells in one document and KTAP.  A cell of policy none (model/measured.h)
 * has no expectation: "measured" when it ran cleanly, the kernel reports
 * of its slice its "findings", a KTAP SKIP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "console/kreports.h"
#include "holders/judge.h"
#include "lib/jsonfile.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/holders.h"
#include "model/measured.h"

/* The console lines that say what became of the page (not kernel reports). */
#define EXT4_LOST_LINE		"does not have buffers attached"
#define BTRFS_REFUSED_LINE	"marked dirty without notifying the fs"

struct judge_opts {
	const char *cell, *guest, *host_read, *host_clone, *console, *reports;
	const char *console_name, *not_run, *out;
};

/* What page HOLDERS_PAGE of the file the host read holds ("none": no read). */
static const char *host_class(const char *path)
{
	char buf[HOLDERS_PAGE_SIZE];
	FILE *f;
	size_t n;

	if (!path)
		return "none";
	f = fopen(path, "rb");
	if (!f)
		return "none";
	memset(buf, 0, sizeof(buf));
	/* a file shorter than the page reads as zeros past its end, as in the guest */
	if (fseek(f, (long)HOLDERS_PAGE * HOLDERS_PAGE_SIZE, SEEK_SET) == 0)
		n = fread(buf, 1, sizeof(buf), f);
	else
		n = 0;
	fclose(f);
	(void)n;
	return holders_data_names[holders_classify(buf, sizeof(buf), HOLDERS_PAGE)];
}

static bool file_has(const char *path, const char *text)
{
	char line[1024];
	bool found = false;
	FILE *f = path ? fopen(path, "r") : NULL;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, text);
	fclose(f);
	return found;
}

/*
 * The cell's report class, and every kernel report that is not the
 * expected one (@unexpected); NULL when the list of kernel reports cannot
 * be read (said on stderr).  A WARNING is the expected one when its title
 * names the function the class names.  ext4-lost is both halves
 * (model/holders.h): the WARNING in ext4_dirty_folio() and writeback's
 * line; one without the other is a class of its own, never ext4-lost.
 */
static const char *measure_reports(const struct judge_opts *o, const char *expected,
				   json_t *unexpected)
{
	struct kreports k = { 0 };
	bool ext4_line = file_has(o->console, EXT4_LOST_LINE), ext4_warn = false;
	bool v1_warn = false;
	size_t i;

	if (o->reports && kreports_load(o->reports, "holders judge", &k))
		return NULL;
	for (i = 0; i < k.nr; i++) {
		const struct kreport *r = &k.r[i];
		bool warn = !strcmp(r->kind, "warning");
		bool ext4 = warn && strstr(r->title, "ext4_dirty_folio");
		bool v1 = warn && strstr(r->title, "check_vma_flags");

		ext4_warn |= ext4;
		v1_warn |= v1;
		if ((ext4 && !strcmp(expected, "ext4-lost")) ||
		    (v1 && !strcmp(expected, "gup-v1-warning")))
			continue;
		json_array_append_new(unexpected, json_pack("{s:s, s:s, s:I}", "kind", r->kind,
							     "title", r->title,
							     "line", (json_int_t)r->line));
	}
	kreports_free(&k);
	if (file_has(o->console, BTRFS_REFUSED_LINE))
		return "btrfs-refused";
	if (ext4_line && ext4_warn)
		return "ext4-lost";
	if (ext4_warn)
		return "ext4_dirty_folio WARNING without '" EXT4_LOST_LINE "'";
	if (ext4_line)
		return "'" EXT4_LOST_LINE "' without ext4_dirty_folio WARNING";
	return v1_warn ? "gup-v1-warning" : "none";
}

static const char *get_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* One difference between @want and @got, said with @what. */
static void differ(json_t *diffs, const char *what, const char *want, const char *got)
{
	if (strcmp(want, got))
		json_array_append_new(diffs, json_sprintf("%s: expected %s, measured %s",
							  what, want, got));
}

/*
 * Does the cell run (its "expect", or policy none's top-level "run"),
 * and why not (@why)?
 */
static bool cell_planned(json_t *cell, const char **why)
{
	json_t *expect = json_object_get(cell, "expect");

	if (json_is_true(json_object_get(cell, "measured_only"))) {
		*why = get_str(cell, "reason");
		return json_is_true(json_object_get(cell, "run"));
	}
	*why = get_str(expect, "reason");
	return json_is_true(json_object_get(expect, "run"));
}

static int judge_cell(const struct judge_opts *o)
{
	json_t *cell, *guest = NULL, *expect, *measured, *diffs, *unexpected, *findings, *doc;
	const char *verdict, *report, *why;
	bool refused, held, only;
	FILE *f;
	int ret;

	cell = jsonfile_read_object(o->cell, "holders judge");
	if (!cell)
		return GUPCTL_EXIT_USAGE;
	expect = json_object_get(cell, "expect");
	/* policy none: nothing expected; measured, its reports its findings */
	only = json_is_true(json_object_get(cell, "measured_only"));
	doc = json_deep_copy(cell);
	diffs = json_array();
	unexpected = json_array();
	findings = json_array();
	if (o->not_run || !cell_planned(cell, &why)) {
		verdict = "not run";
		json_object_set_new(doc, "why_not_run", json_string(o->not_run ? o->not_run : why));
		goto out;
	}
	guest = o->guest ? jsonfile_read_object(o->guest, "holders judge") : NULL;
	if (!guest) {
		verdict = "not run";
		json_object_set_new(doc, "why_not_run",
				    json_string("the guest left no facts for it (see its console slice)"));
		goto out;
	}
	held = json_is_true(json_object_get(guest, "held"));
	refused = json_integer_value(json_object_get(guest, "holder_result")) < 0;
	report = measure_reports(o, get_str(expect, "report"), only ? findings : unexpected);
	if (!report) {
		json_decref(guest);
		json_decref(diffs);
		json_decref(unexpected);
		json_decref(findings);
		json_decref(doc);
		json_decref(cell);
		return GUPCTL_EXIT_USAGE;
	}
	measured = json_pack("{s:b, s:b, s:b, s:b, s:s, s:s, s:s}", "held", held,
			     "refused", refused,
			     "event_fails", !json_is_null(json_object_get(guest, "event_error")),
			     "fsync_fails", !json_is_null(json_object_get(guest, "fsync_error")),
			     "disk", host_class(o->host_read),
			     "clone", o->host_clone ? host_class(o->host_clone) : "none",
			     "report", report);
	json_object_set_new(doc, "measured", measured);
	json_object_set(doc, "guest", guest);

	if (json_object_get(guest, "setup_error"))
		json_array_append_new(diffs, json_sprintf("the cell's setup failed: %s",
							  get_str(guest, "setup_error")));
	if (!held && !refused)
		json_array_append_new(diffs, json_string("the holder completed, but its pin was "
							 "never seen held: the event did not "
							 "run under it"));
	if (only) {
		/* no expectation to differ from: only a cell that did not run cleanly fails */
		verdict = json_array_size(diffs) ? "did not run cleanly" : MEASURED_VERDICT;
		goto out;
	}
	differ(diffs, "the holder", json_is_true(json_object_get(expect, "refused")) ?
	       "refused" : "let through", refused ? "refused" : "let through");
	differ(diffs, "the event", json_is_true(json_object_get(expect, "event_fails")) ?
	       "fails" : "succeeds", json_is_true(json_object_get(measured, "event_fails")) ?
	       "fails" : "succeeds");
	differ(diffs, "the fsync", json_is_true(json_object_get(expect, "fsync_fails")) ?
	       "fails" : "succeeds", json_is_true(json_object_get(measured, "fsync_fails")) ?
	       "fails" : "succeeds");
	differ(diffs, "the host's read", get_str(expect, "disk"), get_str(measured, "disk"));
	if (strcmp(get_str(expect, "clone"), "none"))
		differ(diffs, "the clone on the host", get_str(expect, "clone"),
		       get_str(measured, "clone"));
	differ(diffs, "the console", get_str(expect, "report"), report);
	if (json_array_size(unexpected))
		json_array_append_new(diffs, json_sprintf("%zu kernel report(s) no policy explains",
							  json_array_size(unexpected)));
	verdict = json_array_size(diffs) ? "mismatch" : "as expected";
out:
	json_object_set_new(doc, "verdict", json_string(verdict));
	json_object_set_new(doc, "differences", diffs);
	json_object_set_new(doc, "unexpected_reports", unexpected);
	if (only)
		json_object_set_new(doc, "findings", findings);
	else
		json_decref(findings);
	if (o->console_name)
		json_object_set_new(doc, "console", json_string(o->console_name));
	f = jsonfile_open(o->out, "holders judge");
	ret = f && !jsonfile_dump(doc, f, o->out, "holders judge") ? GUPCTL_EXIT_OK :
								     GUPCTL_EXIT_USAGE;
	printf("%s: %s\n", get_str(cell, "name"), verdict);
	json_decref(guest);
	json_decref(doc);
	json_decref(cell);
	return ret;
}

int holders_judge(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl holders judge --cell FILE -o FILE [--guest-json FILE] [--host-read FILE]",
		"                     [--host-clone FILE] [--console FILE] [--reports FILE]",
		"                     [--console-name NAME] [--not-run WHY]",
		"",
		"Judge one cell: its entry of gupctl holders cells against what was measured.",
		NULL
	};
	struct judge_opts o = { 0 };
	const struct gopt opts[] = {
		GOPT_STRING(0, "cell", &o.cell, "FILE", "the cell and its expectation (holders cells)"),
		GOPT_STRING(0, "guest-json", &o.guest, "FILE", "gupctl holders run's facts"),
		GOPT_STRING(0, "host-read", &o.host_read, "FILE", "the file, read from the image"),
		GOPT_STRING(0, "host-clone", &o.host_clone, "FILE", "the clone, read from the image"),
		GOPT_STRING(0, "console", &o.console, "FILE", "the cell's slice of the console"),
		GOPT_STRING(0, "reports", &o.reports, "FILE",
			    "its kernel reports (scan-console.sh --reports)"),
		GOPT_STRING(0, "console-name", &o.console_name, "NAME", "the slice, as results name it"),
		GOPT_STRING(0, "not-run", &o.not_run, "WHY", "the cell did not run, and why"),
		GOPT_STRING('o', "out", &o.out, "FILE", "the judged cell (JSON)"),
		GOPT_END()
	};
	int ret, argi;

	ret = gopt_parse("holders judge", argc, argv, opts, usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (!o.cell || !o.out)
		return usage_error("holders judge", "--cell and -o are required");
	if (argi != argc)
		return usage_error("holders judge", "unexpected operand '%s'", argv[argi]);
	return judge_cell(&o);
}

/* ---- collect ---- */

/* A measured cell in a few words: "disk OLD, refused, report ext4-lost". */
static void measured_what(json_t *m, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s, disk %s%s%s%s%s",
		 json_is_true(json_object_get(m, "refused")) ? "refused" : "let through",
		 json_is_true(json_object_get(m, "event_fails")) ? ", the event failed" : "",
		 json_is_true(json_object_get(m, "fsync_fails")) ? ", fsync failed" : "",
		 get_str(m, "disk"),
		 strcmp(get_str(m, "clone"), "none") ? ", clone " : "",
		 strcmp(get_str(m, "clone"), "none") ? get_str(m, "clone") : "",
		 strcmp(get_str(m, "report"), "none") ? ", console " : "",
		 strcmp(get_str(m, "report"), "none") ? get_str(m, "report") : "");
}

int holders_collect(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl holders collect --flavour F -o FILE CELL.json...",
		"",
		"A flavour's judged cells in one document (FILE), their KTAP on stdout.",
		"Exit status 1 when a cell that should have run mismatched or did not run.",
		NULL
	};
	const char *flavour = NULL, *out = NULL;
	const struct gopt opts[] = {
		GOPT_STRING(0, "flavour", &flavour, "F", "the flavour"),
		GOPT_STRING('o', "out", &out, "FILE", "the flavour's document"),
		GOPT_END()
	};
	json_t *doc, *cells, *cell;
	unsigned int n[4] = { 0 };	/* as expected, mismatch, not run, measured */
	bool failed = false, none = false;
	char line[512], what[160];
	int ret, argi, i;
	FILE *f;

	ret = gopt_parse("holders collect", argc, argv, opts, usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (!flavour || !out)
		return usage_error("holders collect", "--flavour and -o are required");
	cells = json_array();
	printf("KTAP version 1\n1..%d\n", argc - argi);
	for (i = argi; i < argc; i++) {
		const char *v, *name, *why;
		bool planned;

		cell = jsonfile_read_object(argv[i], "holders collect");
		if (!cell) {
			printf("not ok %d %s # unreadable\n", i - argi + 1, argv[i]);
			failed = true;
			continue;
		}
		v = get_str(cell, "verdict");
		name = get_str(cell, "name");
		planned = cell_planned(cell, &why);
		none |= json_is_true(json_object_get(cell, "measured_only"));
		if (!strcmp(v, MEASURED_VERDICT)) {
			n[3]++;
			measured_what(json_object_get(cell, "measured"), what, sizeof(what));
			printf("%s\n", measured_ktap(line, sizeof(line), i - argi + 1, name, what));
		} else if (!strcmp(v, "as expected")) {
			n[0]++;
			printf("ok %d %s\n", i - argi + 1, name);
		} else if (!strcmp(v, "not run")) {
			n[2]++;
			failed |= planned;
			printf("%s %d %s # SKIP %s\n", planned ? "not ok" : "ok", i - argi + 1, name,
			       get_str(cell, "why_not_run"));
		} else {
			n[1]++;
			failed = true;
			printf("not ok %d %s # %s\n", i - argi + 1, name,
			       json_string_value(json_array_get(json_object_get(cell, "differences"), 0)));
		}
		json_array_append_new(cells, cell);
	}
	printf("# %s: %u as expected, %u mismatched, %u not run", flavour, n[0], n[1], n[2]);
	if (none)
		printf(", %u " MEASURED_ONLY, n[3]);
	putchar('\n');
	doc = json_pack("{s:s, s:{s:i, s:i, s:i}, s:o}", "flavour", flavour, "counts",
			"as_expected", n[0], "mismatched", n[1], "not_run", n[2], "cells", cells);
	/* policy none's count: only its documents have it */
	if (doc && none)
		json_object_set_new(json_object_get(doc, "counts"), "measured_only",
				    json_integer(n[3]));
	f = jsonfile_open(out, "holders collect");
	ret = f && !jsonfile_dump(doc, f, out, "holders collect") ? 0 : GUPCTL_EXIT_USAGE;
	json_decref(doc);
	return ret ?: (failed ? GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK);
}
