// SPDX-License-Identifier: GPL-2.0
/*
 * judge (host only): gupctl consumers judge.
 *
 * judge: one flavour's consumers document (FLAVOUR.json) and KTAP from the
 * guest's measurements, the cells' files the host read back from the
 * scratch images (ext4, xfs, btrfs: jobs/consumers.sh, qemu/read-image.sh),
 * and the console's kernel reports, each attributed to the
 * consumers cell whose marker precedes it (console/'s readers).
 * Every expectation comes from consumer_expect() (consumers/cells.c), never
 * from a run.  Policy none (model/measured.h): no expectation; a cell that
 * ran is measured, a kernel report during it its finding.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>

#include "console/kreports.h"
#include "console/markers.h"
#include "consumers/cells.h"
#include "consumers/judge.h"
#include "consumers/run.h"
#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/cell.h"
#include "model/measured.h"


struct judge_opts {
	const char *flavour, *policy, *guest, *console, *reports, *src, *disk;
	const char *kernel_verdict, *input_hash, *json, *ktap, *not_run;
	const char *config, *source;
	bool quick;
	bool none;			/* policy none: measured only */
};

/* One cell as judged. */
struct jcell {
	struct consumer_cell c;
	struct consumer_expectation e;
	json_t *guest;			/* the guest's cell, or NULL */
	const char *outcome;		/* measured: "ok", an errno name, "not-run" */
	enum cons_data mapping, file, disk, read;
	unsigned int nr_reports, nr_expected;
	unsigned int nr_findings;	/* policy none: its reports, listed */
	bool report_seen;		/* the expected report came */
	bool match, data_lost;
	/*
	 * the kernel lacks the interface's option or the file system's:
	 * expected not run, a KTAP SKIP; @skip_option names it
	 */
	char skip[160];
	const char *skip_option;
	char verdict[96];		/* ok, EFAULT, WARN EIO, DATA LOST, ... */
	char note[512];
};

static enum cons_data guest_data(json_t *m, const char *key)
{
	json_t *v = json_object_get(m, key);
	enum cons_data d;

	if (json_is_null(v))
		return CONS_DATA_NONE;
	if (!json_is_string(v) || cons_data_parse(json_string_value(v), &d))
		return CONS_DATA_MISSING;
	return d;
}

/* The host's read of cell @index's file from its image: its first @len bytes. */
static enum cons_data disk_data(const char *dir, unsigned int index, size_t len)
{
	char path[4096], buf[CONS_PAGE], want[CONS_PAGE];
	size_t n;
	FILE *f;

	if (!dir)
		return CONS_DATA_MISSING;
	snprintf(path, sizeof(path), "%s/%u.dat", dir, index + 1);
	f = fopen(path, "re");
	if (!f)
		return CONS_DATA_MISSING;
	n = fread(buf, 1, len, f);
	fclose(f);
	if (n != len)
		return CONS_DATA_OTHER;
	consumer_pattern(index, true, want, len);
	if (!memcmp(buf, want, len))
		return CONS_DATA_NEW;
	consumer_pattern(index, false, want, len);
	return memcmp(buf, want, len) ? CONS_DATA_OTHER : CONS_DATA_OLD;
}

static json_t *data_json(enum cons_data d)
{
	return d == CONS_DATA_NONE ? json_null() : json_string(cons_data_name(d));
}

/* Does the view hold what the expectation says (a view not expected: yes)? */
static bool view_ok(enum cons_data want, enum cons_data got)
{
	return want == CONS_DATA_NONE || want == got;
}

static void note(struct jcell *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct jcell *j, const char *fmt, ...)
{
	size_t n = strlen(j->note);
	va_list ap;

	if (n && n + 2 < sizeof(j->note)) {
		strcpy(j->note + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(j->note + n, sizeof(j->note) - n, fmt, ap);
	va_end(ap);
}

/* Is report @k, during cell @j, the one the cell expects?  @why says. */
static bool report_expected(const struct judge_opts *o, const struct kreport *k,
			    const struct jcell *j, char *why, size_t size)
{
	char r[800];
	bool ok = report_matches(&j->e.report, k, o->src, r, sizeof(r));

	snprintf(why, size, "its cell %s", r);
	return ok;
}

/* Attribute every report; fill each cell's counts.  -1 on a read error. */
static json_t *attribute(const struct judge_opts *o, struct jcell *cells,
			 unsigned int n, unsigned int *unexpected)
{
	struct markers ms = { 0 };
	struct kreports k;
	json_t *out = json_array();
	unsigned int i;
	char why[1024];

	*unexpected = 0;
	if (!o->reports || !o->console)
		return out;
	if (kreports_load(o->reports, "consumers judge", &k))
		return NULL;
	if (read_markers(o->console, "consumers judge", &ms)) {
		kreports_free(&k);
		return NULL;
	}
	for (i = 0; i < k.nr; i++) {
		const struct kreport *r = &k.r[i];
		const struct marker *m = marker_before(&ms, r->line);
		struct jcell *j = NULL;
		bool expected = false;

		if (!m)
			snprintf(why, sizeof(why), "before the first marker: no cell was running");
		else if (strcmp(m->step, CONS_MARK_STEP))
			snprintf(why, sizeof(why), "during step '%s', not consumers", m->step);
		else if (m->index == KMSG_MARK_END)
			snprintf(why, sizeof(why), "after the last cell");
		else if ((unsigned int)m->index >= n)
			snprintf(why, sizeof(why), "cell %d is not one of the %u judged", m->index + 1, n);
		else
			j = &cells[m->index];
		if (j && o->none) {
			/* policy none: nothing expects it, nothing forbids it */
			snprintf(why, sizeof(why), "a finding of its cell (" MEASURED_ONLY ")");
			j->nr_reports++;
			j->nr_findings++;
		} else if (j) {
			expected = report_expected(o, r, j, why, sizeof(why));
			j->nr_reports++;
			if (expected) {
				j->nr_expected++;
				j->report_seen = true;
			}
		}
		*unexpected += !expected && !(j && o->none);
		json_array_append_new(out, json_pack("{s:s, s:s, s:s?, s:i, s:o, s:b, s:s}",
			"kind", r->kind, "title", r->title, "location", r->location,
			"console_line", r->line,
			"cell", j ? json_integer(m->index + 1) : json_null(),
			"expected", expected, "note", why));
		if (j && o->none)
			json_object_set_new(json_array_get(out, json_array_size(out) - 1),
					    "finding", json_true());
	}
	free(ms.m);
	kreports_free(&k);
	return out;
}

/* The length of @why's first clause: up to " (", ": " or "; ". */
static int short_why(const char *why)
{
	size_t n;

	for (n = 0; why[n]; n++)
		if ((why[n] == ' ' && why[n + 1] == '(') ||
		    ((why[n] == ':' || why[n] == ';') && why[n + 1] == ' '))
			break;
	return (int)n;
}

static void judge_cell(const struct judge_opts *o, struct jcell *j, unsigned int i)
{
	const struct consumer *k = &consumers[j->c.iface];
	const struct consumer_expectation *e = &j->e;
	json_t *m = json_object_get(j->guest, "measured");
	const char *unsupported = json_string_value(json_object_get(j->guest, "unsupported"));
	const char *setup = json_string_value(json_object_get(j->guest, "setup_error"));
	const char *why_not = unsupported ?: setup ? "its set-up failed" : "no measurement";
	bool writes = k->writes;

	j->outcome = j->guest ? json_string_value(json_object_get(m, "outcome")) : NULL;
	if (!j->outcome)
		j->outcome = "not-run";
	j->mapping = j->guest ? guest_data(m, "mapping") : CONS_DATA_MISSING;
	j->file = j->guest ? guest_data(m, "file") : CONS_DATA_MISSING;
	j->read = j->guest ? guest_data(m, "read") : CONS_DATA_MISSING;
	/* policy none: every file on a scratch file system is read back */
	j->disk = (o->none ? !consumer_fs_of(j->c.backing) : e->disk == CONS_DATA_NONE) ?
		  CONS_DATA_NONE : disk_data(o->disk, i, k->len);

	if (j->skip[0]) {
		/* never a pass: KTAP's SKIP, and the cell must not have run */
		j->match = !strcmp(j->outcome, "not-run");
		if (!j->match)
			note(j, "expected not run (%s), measured %s", j->skip, j->outcome);
		snprintf(j->verdict, sizeof(j->verdict), "not run: no %s", j->skip_option);
		return;
	}
	if (!strcmp(j->outcome, "not-run") && (unsupported || setup))
		note(j, "the guest did not run it: %s", unsupported ?: setup);
	if (o->none) {
		/* measured: a cell that ran; its reports are findings (WARN) */
		j->match = strcmp(j->outcome, "not-run");
		if (!j->match)
			snprintf(j->verdict, sizeof(j->verdict), "not run: %.*s",
				 short_why(why_not), why_not);
		else
			snprintf(j->verdict, sizeof(j->verdict), "%s%s",
				 j->nr_reports ? "WARN " : "", j->outcome);
		if (!j->match && !j->note[0])
			note(j, "not run: %s (" MEASURED_ONLY ")", why_not);
		return;
	}

	j->match = !strcmp(j->outcome, consumer_expected_outcome(e));
	if (!j->match)
		note(j, "expected %s, measured %s", consumer_expected_outcome(e), j->outcome);
	/* a cell not run has nothing to read back: its outcome says enough */
	if (strcmp(j->outcome, "not-run") &&
	    (!view_ok(e->mapping, j->mapping) || !view_ok(e->file, j->file) ||
	     !view_ok(e->disk, j->disk) || !view_ok(e->read, j->read))) {
		j->match = false;
		note(j, "reads back: mapping %s (expected %s), file %s (%s), disk %s (%s), read %s (%s)",
		     cons_data_name(j->mapping), cons_data_name(e->mapping),
		     cons_data_name(j->file), cons_data_name(e->file),
		     cons_data_name(j->disk), cons_data_name(e->disk),
		     cons_data_name(j->read), cons_data_name(e->read));
	}
	if (e->report.kind && !j->report_seen && strcmp(j->outcome, "not-run")) {
		j->match = false;
		note(j, "the expected %s (%s: '%s') was not seen", e->report.kind,
		     e->report.file, e->report.text);
	}
	if (j->nr_reports > j->nr_expected) {
		j->match = false;
		note(j, "%u kernel report(s) no expectation explains",
		     j->nr_reports - j->nr_expected);
	}
	/* success, and a view that must hold the new bytes does not */
	j->data_lost = writes && !strcmp(j->outcome, "ok") &&
		       ((e->disk == CONS_DATA_NEW && j->disk != CONS_DATA_NEW) ||
			(e->file == CONS_DATA_NEW && j->file != CONS_DATA_NEW));
	if (j->data_lost)
		snprintf(j->verdict, sizeof(j->verdict), "DATA LOST");
	else if (!strcmp(j->outcome, "not-run"))
		/* why, in short: "not run: no btrfs mounted at /mnt/btrfs" */
		snprintf(j->verdict, sizeof(j->verdict), "not run: %.*s",
			 short_why(why_not), why_not);
	else
		snprintf(j->verdict, sizeof(j->verdict), "%s%s",
			 j->nr_reports ? "WARN " : "", j->outcome);
}

static json_t *cell_json(const struct jcell *j, unsigned int index)
{
	const struct consumer_expectation *e = &j->e;
	json_t *m = json_object_get(j->guest, "measured");
	char flags[64];

	return json_pack("{s:i, s:s, s:s, s:s, s:{s:s, s:s, s:o}, "
			 "s:{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s}, "
			 "s:{s:s, s:O, s:O, s:O, s:o, s:o, s:o, s:o, s:i, s:O}, "
			 "s:s, s:b, s:b, s:s?, s:s?}",
		"index", index + 1,
		"interface", consumers[j->c.iface].name,
		"backing", backing_name(j->c.backing),
		"state", state_name(j->c.state),
		"gup",
		"method", gup_method_name(e->gup.method),
		"flags", gup_flags_str(e->gup.flags, flags, sizeof(flags)),
		"matrix_cell", e->matrix_index < 0 ? json_null() : json_integer(e->matrix_index + 1),
		"expected",
		"outcome", j->skip[0] ? "not-run" : consumer_expected_outcome(e),
		"bytes", e->ok ? json_integer(e->bytes) : json_null(),
		"errno", e->ok ? json_null() : json_string(errno_name(e->err)),
		"kernel_report", e->report.kind ?
			json_pack("{s:s, s:s, s:s}", "kind", e->report.kind,
				  "file", e->report.file, "text", e->report.text) : json_null(),
		"mapping", data_json(e->mapping), "file", data_json(e->file),
		"disk", data_json(e->disk), "read", data_json(e->read),
		"reason", e->reason,
		"measured",
		"outcome", j->outcome,
		"bytes", json_object_get(m, "bytes") ?: json_null(),
		"errno", json_object_get(m, "errno") ?: json_null(),
		"register_errno", json_object_get(m, "register_errno") ?: json_null(),
		"mapping", data_json(j->mapping), "file", data_json(j->file),
		"disk", data_json(j->disk), "read", data_json(j->read),
		"kernel_reports", j->nr_reports,
		"setup_error", json_object_get(j->guest, "setup_error") ?: json_null(),
		"verdict", j->verdict, "match", j->match, "data_lost", j->data_lost,
		"note", j->note[0] ? j->note : j->skip[0] ? j->skip : NULL,
		"skip", j->skip[0] ? j->skip : NULL);
}

/* The guest's cell @i, if it is the cell we think (same names). */
static json_t *guest_cell(json_t *doc, unsigned int i, const struct consumer_cell *c)
{
	json_t *cells = json_object_get(doc, "cells"), *g;
	size_t k;

	json_array_foreach(cells, k, g) {
		if (json_integer_value(json_object_get(g, "index")) != i + 1)
			continue;
		if (strcmp(json_string_value(json_object_get(g, "interface")) ?: "",
			   consumers[c->iface].name) ||
		    strcmp(json_string_value(json_object_get(g, "backing")) ?: "",
			   backing_name(c->backing)) ||
		    strcmp(json_string_value(json_object_get(g, "state")) ?: "",
			   state_name(c->state)))
			return NULL;
		return g;
	}
	return NULL;
}

int consumers_judge(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl consumers judge --flavour F --policy P --json OUT [OPTIONS]",
		"",
		"Judge one flavour's consumers run on the host: every cell against consumer_expect().",
		NULL
	};
	struct judge_opts o = { 0 };
	const struct gopt opts[] = {
		GOPT_STRING(0, "flavour", &o.flavour, "F", "the flavour (patches/flavours)"),
		GOPT_STRING(0, "policy", &o.policy, "P",
			    "its gup column: the policy to expect from, or none: measured, no policy to compare"),
		GOPT_STRING(0, "source", &o.source, "V",
			    "its source column (6.1, 6.12): recorded for policy none"),
		GOPT_STRING(0, "guest", &o.guest, "FILE", "the guest's gupctl consumers run --json"),
		GOPT_STRING(0, "console", &o.console, "LOG", "the boot's console (its markers)"),
		GOPT_STRING(0, "reports", &o.reports, "FILE", "qemu/scan-console.sh --reports of it"),
		GOPT_STRING(0, "src", &o.src, "DIR", "the flavour's source tree (report lines)"),
		GOPT_STRING(0, "disk", &o.disk, "DIR", "the cells' files as the host read them from the images (DIR/N.dat)"),
		GOPT_STRING(0, "kernel-verdict", &o.kernel_verdict, "V", "the runner's verdict"),
		GOPT_STRING(0, "input-hash", &o.input_hash, "H", "the kernel's cache key"),
		GOPT_STRING(0, "not-run", &o.not_run, "WHY", "the guest did not run: say why"),
		GOPT_STRING(0, "config", &o.config, "FILE", "the kernel's .config: an interface or file system whose option it lacks is expected not run (SKIP)"),
		GOPT_BOOL(0, "quick", &o.quick, "the quick subset was run (make check)"),
		GOPT_STRING(0, "json", &o.json, "OUT", "write the flavour's document here"),
		GOPT_STRING(0, "ktap", &o.ktap, "OUT", "write one KTAP line per cell here"),
		GOPT_END()
	};
	struct consumer_cell cc[CONS_MAX_CELLS];
	struct jcell *cells;
	unsigned int n, i, mism = 0, lost = 0, ran = 0, unexpected = 0, warns = 0, skipped = 0;
	unsigned int measured = 0, findings = 0;
	enum policy_kernel pk;
	json_t *guest = NULL, *reports, *arr, *doc, *cj;
	char name[160], line[512];
	int ret, argi;
	FILE *f;

	ret = gopt_parse("consumers judge", argc, argv, opts, usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (argi < argc)
		return usage_error("consumers judge", "unexpected argument '%s'", argv[argi]);
	if (!o.flavour || !o.policy || !o.json)
		return usage_error("consumers judge", "give --flavour, --policy and --json");
	if (!measured_policy_ok(o.policy))
		return usage_error("consumers judge", "unknown policy '%s': %s, or %s", o.policy,
				   policy_names(), POLICY_NONE);
	o.none = policy_is_none(o.policy);
	if (o.guest && !o.not_run) {
		guest = jsonfile_read_object(o.guest, "consumers judge");
		if (!guest)
			return GUPCTL_EXIT_USAGE;
	}
	n = consumer_cells(o.quick, cc, CONS_MAX_CELLS);
	cells = calloc(n, sizeof(*cells));
	if (!cells)
		return GUPCTL_EXIT_USAGE;
	for (i = 0; i < n; i++) {
		const struct consumer_fs *fs = consumer_fs_of(cc[i].backing);
		const struct consumer *k = &consumers[cc[i].iface];

		cells[i].c = cc[i];
		if (!o.none)
			consumer_expect(o.policy, &cc[i], &cells[i].e);
		cells[i].guest = guest ? guest_cell(guest, i, &cc[i]) : NULL;
		if (o.config && !consumer_config_has(o.config, k->config)) {
			cells[i].skip_option = k->config;
			snprintf(cells[i].skip, sizeof(cells[i].skip),
				 "this kernel has no %s", k->config);
		} else if (o.config && fs && !consumer_config_has(o.config, fs->config)) {
			cells[i].skip_option = fs->config;
			snprintf(cells[i].skip, sizeof(cells[i].skip),
				 "this kernel has no %s (%s, in patches/config.fragment)",
				 fs->config, fs->name);
		}
	}
	reports = attribute(&o, cells, n, &unexpected);
	if (!reports) {
		free(cells);
		json_decref(guest);
		return GUPCTL_EXIT_USAGE;
	}
	arr = json_array();
	f = o.ktap ? fopen(o.ktap, "we") : NULL;
	if (f)
		fprintf(f, "KTAP version 1\n1..%u\n", n);
	for (i = 0; i < n; i++) {
		struct jcell *j = &cells[i];

		judge_cell(&o, j, i);
		ran += strcmp(j->outcome, "not-run") != 0;
		skipped += j->skip[0] && j->match;
		mism += !j->match;
		lost += j->data_lost;
		warns += j->nr_expected;
		findings += j->nr_findings;
		cj = cell_json(j, i);
		if (o.none && !j->skip[0]) {
			/* no expectation: the cell's words are the measurement's */
			json_object_set_new(cj, "expected", json_null());
			json_object_set_new(cj, "measured_only", json_true());
			json_object_set_new(cj, "reason", json_string(MEASURED_ONLY));
		}
		json_array_append_new(arr, cj);
		consumer_cell_str(&j->c, name, sizeof(name));
		measured += o.none && !j->skip[0] && j->match;
		if (f && j->skip[0] && j->match)
			fprintf(f, "ok %u %s # SKIP %s\n", i + 1, name, j->skip);
		else if (f && o.none && j->match)
			fprintf(f, "%s\n", measured_ktap(line, sizeof(line), i + 1, name, j->verdict));
		else if (f)
			fprintf(f, "%sok %u %s: %s%s%s\n", j->match ? "" : "not ", i + 1, name,
				j->verdict, j->match ? "" : " # ", j->match ? "" : j->note);
		if (!j->match)
			printf("# %s: cell %u %s: %s\n", o.flavour, i + 1, name, j->note);
	}
	if (f) {
		fprintf(f, "# consumers: %u cells, %u ran, %u as expected, ", n, ran,
			n - mism - skipped - measured);
		if (o.none)
			fprintf(f, "%u " MEASURED_ONLY ", ", measured);
		fprintf(f, "%u not, %u DATA LOST, %u skipped (no kernel option)\n",
			mism, lost, skipped);
		fclose(f);
	}
	pk = measured_kernel(o.policy, o.source);
	doc = json_pack("{s:s, s:s, s:s, s:s?, s:o, s:s?, s:s?, s:s?, s:b, s:{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b}, s:o, s:o}",
		"job", "consumers", "flavour", o.flavour, "policy", o.policy,
		"source", pk == POLICY_KERNEL_COUNT ? NULL :
			  consumer_src_name(pk == POLICY_KERNEL_73 ? CONS_SRC_73 :
					    pk == POLICY_KERNEL_612 ? CONS_SRC_612 : CONS_SRC_61),
		"kernel_release", json_incref(json_object_get(guest, "kernel_release") ?: json_null()),
		"input_hash", o.input_hash, "kernel_verdict", o.kernel_verdict,
		"why_not_run", o.not_run, "quick", o.quick,
		"summary", "cells", n, "ran", ran, "skipped", skipped, "mismatches", mism,
		"data_lost", lost,
		"kernel_reports", (int)json_array_size(reports),
		"expected_kernel_reports", warns,
		"unexpected_kernel_reports", unexpected,
		"passed", !mism && !unexpected && ran + skipped == n,
		"cells", arr, "kernel_reports", reports);
	/* policy none's counts: only its documents have them */
	if (doc && o.none) {
		json_t *s = json_object_get(doc, "summary");

		json_object_set_new(s, "measured_only", json_integer(measured));
		json_object_set_new(s, "findings", json_integer(findings));
	}
	f = jsonfile_open(o.json, "consumers judge");
	ret = f ? jsonfile_dump(doc, f, o.json, "consumers judge") : GUPCTL_EXIT_USAGE;
	json_decref(doc);
	json_decref(guest);
	free(cells);
	printf("# %s: consumers: %u cells, %u ran, %u as expected, ", o.flavour, n, ran,
	       n - mism - skipped - measured);
	if (o.none)
		printf("%u " MEASURED_ONLY " (%u kernel report(s) in them: findings), ",
		       measured, findings);
	printf("%u not, %u DATA LOST, %u skipped (no kernel option), %u unexpected kernel report(s)\n",
	       mism, lost, skipped, unexpected);
	if (ret)
		return ret;
	return !mism && !unexpected && ran + skipped == n ? GUPCTL_EXIT_OK : GUPCTL_EXIT_REFUSED;
}
