// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl repro judge (host only): one cell of the ext4-2018 reproduction,
 * judged from what its boot left behind:
 *
 *   - the guest's facts (gupctl repro ext4-2018 --json: pinned or errno,
 *     the guest's reads, the last step begun);
 *   - the runner's report (qemu/run.sh --report's JSON: the kernel
 *     verdict, the guest's exit status);
 *   - the console's kernel reports as qemu/scan-console.sh --reports lists
 *     them (console/kreports.h), each with its trace, trimmed, from the console
 *     symbolised by decode_stacktrace.sh (or raw), found by its line;
 *     and the file systems' own lines, which are no kernel reports:
 *     ext4's warnings, btrfs' errors (6.12's "is marked dirty without
 *     notifying the fs");
 *   - the file as the host read it back from its file system's image
 *     (qemu/read-image.sh: debugfs, xfs_db, btrfs restore): the guest's page
 *     cache cannot fool that read.
 *
 * The expected outcome comes from model/repro.c (repro_expect()); this file
 * only measures and compares.  Policy none (model/measured.h): nothing is
 * expected ("expected": null); a cell that ran is "measured", the kernel
 * reports of its slice its findings.  Output: the cell's JSON (docs/results.md).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "console/kreports.h"
#include "lib/jsonfile.h"
#include "lib/util.h"
#include "model/cell.h"
#include "model/measured.h"
#include "repro/cells.h"
#include "repro/judge.h"

#define JUDGE_MAX_FRAMES	10
#define JUDGE_REPORT_LINES	120	/* a report longer than this has ended */

struct judge_opts {
	struct repro_cell cell;
	struct repro_flavour fl;
	const char *flavour;
	const char *guest_json;
	const char *report;
	const char *reports;
	const char *console;
	const char *decoded;
	const char *host_read;
	const char *runner_log;
	const char *not_run;
	const char *console_name;
	const char *out;
};

/*
 * Paths from the source root on: "../src/fs/x.c" and, decoded,
 * "/var/cache/gup-lab/kernels/F-HASH/build/../src/fs/x.c" become "fs/x.c"
 * (as qemu/scan-console.sh shows them), in place.
 */
static void strip_src_paths(char *line)
{
	char *p = line, *start;

	while ((p = strstr(p, "src/"))) {
		start = p;
		while (start > line && !strchr(" (", start[-1]))
			start--;
		memmove(start, p + 4, strlen(p + 4) + 1);
		p = start;
	}
}

/* The line without "[    3.374473] " in front. */
static char *strip_time(char *line)
{
	char *p = line;

	if (*p != '[')
		return line;
	p = strchr(p, ']');
	if (!p)
		return line;
	p++;
	while (*p == ' ')
		p++;
	return p;
}

/*
 * One trace frame: "fn+0x12/0x40 (dir/file.c:N ...)" or, decoded,
 * "fn (path/src/dir/file.c:N)".  The location is the last file:line of
 * the line (the innermost inlined call comes first), from the source root
 * on; a module's frame gets the module's name.
 */
static json_t *frame(const char *s)
{
	char fn[128], loc[256] = "", *p;
	const char *c, *start, *best = NULL;
	size_t n, best_len = 0;

	while (*s == '?' || *s == ' ')
		s++;
	n = strcspn(s, " ");
	snprintf(fn, sizeof(fn), "%.*s", (int)n, s);
	p = strstr(fn, "+0x");
	if (p)
		*p = '\0';
	/* the last "word.c:123" (or .h, .S) */
	for (c = s; (c = strchr(c, ':')); c++) {
		if (c - s < 2 || (c[-2] != '.' || !strchr("chS", c[-1])) ||
		    !(c[1] >= '0' && c[1] <= '9'))
			continue;
		start = c;
		while (start > s && (isalnum((unsigned char)start[-1]) ||
				     strchr("_./-", start[-1])))
			start--;
		best = start;
		best_len = c + 1 + strspn(c + 1, "0123456789") - start;
	}
	if (best)
		snprintf(loc, sizeof(loc), "%.*s", (int)best_len, best);
	else if (strstr(s, " gup_pin_test") || strstr(s, "[gup_pin_test]"))
		snprintf(loc, sizeof(loc), "gup_pin_test.ko");
	return json_pack("{s:s, s:s?}", "function", fn, "location", loc[0] ? loc : NULL);
}

/*
 * Leftovers the guess unwinder finds on the stack (every frame is a '?'
 * guess): interrupt entry and scheduler frames, not the report's path.
 */
static bool frame_is_noise(const char *fn)
{
	static const char * const noise[] = {
		"asm_", "__wake_up", "update_", "set_next_entity", "schedule",
		"__schedule", "pick_next", "finish_task_switch",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(noise); i++)
		if (!strncmp(fn, noise[i], strlen(noise[i])))
			return true;
	return false;
}

/* The trace ends at the system call or at the driver's ioctl handler. */
static bool frame_is_last(json_t *f)
{
	const char *fn = json_string_value(json_object_get(f, "function"));
	const char *loc = json_string_value(json_object_get(f, "location"));
	size_t n = strlen(fn);

	return !strncmp(fn, "__x64_sys_", 10) || !strcmp(fn, "do_syscall_64") ||
	       (n > 6 && !strcmp(fn + n - 6, "_ioctl") && loc &&
		!strcmp(loc, "gup_pin_test.ko"));
}

struct report_parse {
	json_t *rep;			/* the report being read */
	bool rip, in_trace, trace_done, frames_done;
};

static void add_frame(struct report_parse *rp, const char *s)
{
	json_t *frames = json_object_get(rp->rep, "frames");
	json_t *f;

	if (rp->frames_done)
		return;
	f = frame(s);
	if (frame_is_noise(json_string_value(json_object_get(f, "function")))) {
		json_decref(f);
		return;
	}
	json_array_append_new(frames, f);
	if (frame_is_last(f) || json_array_size(frames) >= JUDGE_MAX_FRAMES)
		rp->frames_done = true;
}

/* A line of a report after its first: the RIP, the call trace. */
static void trace_line(struct report_parse *rp, const char *line)
{
	const char *p;

	if (rp->trace_done)
		return;
	p = rp->rip ? NULL : strstr(line, "RIP: ");
	if (p && strchr(p + 5, ':')) {
		rp->rip = true;
		add_frame(rp, strchr(p + 5, ':') + 1);
	} else if (strstr(line, "Call Trace:")) {
		rp->in_trace = true;
	} else if (rp->in_trace && strstr(line, "</TASK>")) {
		rp->in_trace = false;
		rp->trace_done = true;
	} else if (rp->in_trace && !strstr(line, "<TASK>")) {
		add_frame(rp, line);
	}
}

/* A console's lines, without time stamps, paths from the source root on. */
struct console {
	char **line;
	size_t nr;
};

static void console_free(struct console *c)
{
	while (c->nr)
		free(c->line[--c->nr]);
	free(c->line);
	c->line = NULL;
}

static int console_read(const char *path, struct console *c)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *s, **more;
	size_t size = 0, cap = 0;
	ssize_t n;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	if (!f)
		return -errno;
	while (!ret && (n = getline(&line, &size, f)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' ||
				 line[n - 1] == ' '))
			line[--n] = '\0';
		s = strip_time(line);
		strip_src_paths(s);
		if (c->nr == cap) {
			cap = cap ? 2 * cap : 256;
			more = realloc(c->line, cap * sizeof(*more));
			if (!more) {
				ret = -ENOMEM;
				break;
			}
			c->line = more;
		}
		c->line[c->nr] = strdup(s);
		if (!c->line[c->nr++])
			ret = -ENOMEM;
	}
	free(line);
	fclose(f);
	if (ret)
		console_free(c);
	return ret;
}

/*
 * Report @i of @k as the cell's JSON, its "frames" from @c: the RIP first,
 * then the call trace without the guess unwinder's leftovers, up to the
 * system call or the driver's ioctl.  The report's lines are those after
 * its first, up to the next report, the end of the trace or
 * JUDGE_REPORT_LINES.
 */
static json_t *report_json(const struct kreports *k, size_t i, const struct console *c)
{
	const struct kreport *r = &k->r[i];
	struct report_parse rp = { 0 };
	size_t n, end = r->line + JUDGE_REPORT_LINES;

	if (i + 1 < k->nr && k->r[i + 1].line <= end)
		end = k->r[i + 1].line - 1;
	rp.rep = json_pack("{s:s, s:i, s:s, s:s?, s:i, s:[]}", "kind", r->kind,
			   "severity", r->severity, "title", r->title, "location", r->location,
			   "console_line", r->line, "frames");
	/* c->line[n] is console line n + 1: from the line after the first */
	for (n = r->line; rp.rep && n < end && n < c->nr; n++) {
		if (!strncmp(c->line[n], "---[ end trace", 14))
			break;
		trace_line(&rp, c->line[n]);
	}
	return rp.rep;
}

/*
 * The message of a file system's console line "PREFIX (device vdb): MSG",
 * "@level: MSG" if @level is given, or NULL if the line is no such line.
 */
static json_t *fs_line(const char *line, const char *prefix, const char *level)
{
	const char *p = strstr(line, prefix), *msg;

	if (!p)
		return NULL;
	msg = strstr(p, "): ");
	msg = msg ? msg + 3 : line;
	return level ? json_sprintf("%s: %s", level, msg) : json_string(msg);
}

/*
 * The console's kernel reports (@reports: scan-console.sh --reports of
 * @console) with their traces from @decoded, which has the console's
 * lines one for one (jobs/repro.sh); or from @console if @decoded is
 * missing or has other lines.  ext4's warnings and btrfs' errors and
 * warnings too.  0, or -errno.
 */
static int read_reports(const struct judge_opts *o, json_t *reports, json_t *ext4,
			json_t *btrfs)
{
	struct console raw, dec = { 0 }, *c = &raw;
	struct kreports k;
	json_t *line;
	size_t i;
	int ret;

	ret = console_read(o->console, &raw);
	if (ret)
		return ret;
	if (kreports_load(o->reports, "repro judge", &k)) {
		console_free(&raw);
		return -EINVAL;
	}
	if (o->decoded && !access(o->decoded, F_OK)) {
		ret = console_read(o->decoded, &dec);
		if (!ret && dec.nr == raw.nr)
			c = &dec;
		else
			fprintf(stderr,
				"gupctl repro judge: %s: %s: the traces come from %s, not symbolised\n",
				o->decoded,
				ret ? strerror(-ret) : "not the console's lines one for one",
				o->console);
	}
	for (i = 0; i < k.nr; i++)
		json_array_append_new(reports, report_json(&k, i, c));
	for (i = 0; i < c->nr; i++) {
		line = fs_line(c->line[i], "EXT4-fs warning", NULL);
		if (line) {
			json_array_append_new(ext4, line);
			continue;
		}
		line = fs_line(c->line[i], "BTRFS error", "error");
		if (!line)
			line = fs_line(c->line[i], "BTRFS warning", "warning");
		if (line)
			json_array_append_new(btrfs, line);
	}
	kreports_free(&k);
	console_free(&raw);
	console_free(&dec);
	return 0;
}

/* What the runner's report says; @verdict NULL: there is none. */
struct runner {
	json_t *doc;
	const char *verdict;	/* kernel_verdict */
	json_t *status;		/* guest_status: a number, or null */
	bool timed_out;
};

/*
 * qemu/run.sh --report's JSON at @path: 0 (a missing file leaves
 * @r->verdict NULL), or GUPCTL_EXIT_USAGE after saying what is wrong.
 */
static int runner_read(const char *path, struct runner *r)
{
	json_t *t;

	memset(r, 0, sizeof(*r));
	if (!path || access(path, F_OK))
		return 0;
	r->doc = jsonfile_read(path, "repro judge");
	if (!r->doc)
		return GUPCTL_EXIT_USAGE;
	r->verdict = json_string_value(json_object_get(r->doc, "kernel_verdict"));
	r->status = json_object_get(r->doc, "guest_status");
	t = json_object_get(r->doc, "timed_out");
	r->timed_out = json_is_true(t);
	if (r->verdict && (json_is_integer(r->status) || json_is_null(r->status)) &&
	    json_is_boolean(t))
		return 0;
	fprintf(stderr,
		"gupctl repro judge: %s: want \"kernel_verdict\" (string), \"guest_status\" (number or null) and \"timed_out\" (bool) (qemu/run.sh --report)\n",
		path);
	json_decref(r->doc);
	memset(r, 0, sizeof(*r));
	return GUPCTL_EXIT_USAGE;
}

/* The host's read: "missing" (no file, empty) or how its first page compares. */
static const char *host_read(const char *path)
{
	size_t ps = getpagesize(), len = 0;
	char *buf = calloc(1, ps);
	const char *ret = "missing";
	FILE *f = path ? fopen(path, "r") : NULL;

	if (f && buf) {
		len = fread(buf, 1, ps, f);
		/* A short file is no page of either pattern. */
		if (len == ps)
			ret = repro_classify(buf, ps);
		else if (len)
			ret = "other";
	}
	if (f)
		fclose(f);
	free(buf);
	return ret;
}

/* The last lines of a file, joined with " / ", for a cell that did not run. */
static json_t *tail_of(const char *path, unsigned int nr)
{
	char lines[8][256], out[1024] = "";
	unsigned int n = 0, i;
	FILE *f = path ? fopen(path, "r") : NULL;

	if (!f)
		return json_null();
	while (fgets(lines[n % 8], sizeof(lines[0]), f))
		n++;
	fclose(f);
	for (i = n > nr ? n - nr : 0; i < n; i++) {
		lines[i % 8][strcspn(lines[i % 8], "\n")] = '\0';
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s",
			 out[0] ? " / " : "", lines[i % 8]);
	}
	return json_string(out);
}

static const char *str_of(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/* "N NAME" of the guest's last step into @buf, or "none". */
static const char *last_step(json_t *guest, char *buf, size_t size)
{
	json_t *s = json_object_get(guest, "last_step");

	if (!json_is_object(s))
		return "none";
	snprintf(buf, size, "%lld %s", json_integer_value(json_object_get(s, "number")),
		 str_of(s, "name"));
	return buf;
}

static void upper(char *s)
{
	for (; *s; s++)
		*s = toupper((unsigned char)*s);
}

/* Does a line of @lines (a file system's, read_reports()) say @what? */
static bool fs_said(json_t *lines, const char *what)
{
	size_t i;
	json_t *w;

	json_array_foreach(lines, i, w)
		if (strstr(json_string_value(w), what))
			return true;
	return false;
}

/* The file systems' own lines on the console (read_reports()). */
struct fs_lines {
	json_t *ext4;	/* EXT4-fs warnings */
	json_t *btrfs;	/* BTRFS errors and warnings */
};

/*
 * Where the kernel was clean and no file system said a word: the host's
 * read, and whether the guest's cache told the same (the write never
 * reached the file) or NEW (the cache lies, the disk lost it).
 */
static void measure_quiet(json_t *reads, const char *host, const char *host_uc,
			  char *out, size_t size)
{
	const char *cache = str_of(reads, "guest");

	if (!strcmp(host, "new"))
		snprintf(out, size, REPRO_OUT_NO_LOSS);
	else if (cache && !strcmp(cache, "new"))
		snprintf(out, size, REPRO_OUT_SILENT, host_uc);
	else if (cache && !strcmp(cache, host))
		snprintf(out, size, REPRO_OUT_DROPPED, host_uc);
	else
		snprintf(out, size, "clean + host reads %s, guest cache %s", host_uc,
			 cache ? cache : "none");
}

/*
 * The measured outcome, in the words of the expectations: what the
 * kernel said (BUG first: it ends the run), the pin's answer, then the
 * host's read with the kernel's verdict and the file system's lines.
 */
static void measure(json_t *guest, json_t *reports, const struct fs_lines *fs,
		    const char *not_run, const struct runner *run, const char *host,
		    char *out, size_t size)
{
	const char *pinned = str_of(guest, "pinned"), *loc = NULL, *step;
	const char *verdict = run->verdict, *fsync = str_of(guest, "fsync");
	json_t *reads = json_object_get(guest, "reads"), *r;
	char step_buf[64], host_uc[32], status[32] = "none";
	bool nobuf = fs_said(fs->ext4, REPRO_EXT4_NO_BUFFERS);
	bool refused = fs_said(fs->btrfs, REPRO_BTRFS_REFUSED);
	size_t i;

	if (json_is_integer(run->status))
		snprintf(status, sizeof(status), "%lld",
			 (long long)json_integer_value(run->status));

	snprintf(host_uc, sizeof(host_uc), "%s", host);
	upper(host_uc);
	json_array_foreach(reports, i, r) {
		if (!strcmp(str_of(r, "kind"), "bug") &&
		    strstr(str_of(r, "title"), "kernel BUG at")) {
			loc = str_of(r, "location");
			break;
		}
	}
	if (not_run) {
		snprintf(out, size, "not run (%s)", not_run);
	} else if (loc) {
		step = last_step(guest, step_buf, sizeof(step_buf));
		snprintf(out, size, "BUG (%s)%s%s", loc,
			 strcmp(step + strcspn(step, " "), " fsync") ? " at step " : "",
			 strcmp(step + strcspn(step, " "), " fsync") ? step : "");
	} else if (pinned && strcmp(pinned, "yes")) {
		snprintf(out, size, "blocked (%s)%s%s", pinned,
			 strcmp(verdict, "clean") ? " + kernel " : "",
			 strcmp(verdict, "clean") ? verdict : "");
	} else if (!json_is_object(reads)) {
		snprintf(out, size, "not run (guest status %s%s, verdict %s, last step %s)",
			 status, run->timed_out ? ", timed out" : "", verdict,
			 last_step(guest, step_buf, sizeof(step_buf)));
	} else if (!strcmp(verdict, "warning") && strcmp(host, "new") && nobuf) {
		snprintf(out, size, REPRO_OUT_EXT4_LOST, host_uc);
	} else if (!strcmp(verdict, "clean") && strcmp(host, "new") && refused) {
		snprintf(out, size, REPRO_OUT_BTRFS_LOST, host_uc, fsync ? fsync : "none");
	} else if (!strcmp(verdict, "clean") && !nobuf && !refused) {
		measure_quiet(reads, host, host_uc, out, size);
	} else {
		snprintf(out, size, "%s + host reads %s%s%s", verdict, host_uc,
			 nobuf ? " (ext4 warned: no buffers)" : "",
			 refused ? " (btrfs: marked dirty without notifying the fs)" : "");
	}
}

/* Is @rep one of the reports @e expects? */
static bool report_expected(const struct repro_expectation *e, json_t *rep)
{
	json_t *frames = json_object_get(rep, "frames");
	const char *loc = str_of(rep, "location");
	const char *top = str_of(json_array_get(frames, 0), "function");
	unsigned int i;

	for (i = 0; i < e->nr_reports; i++) {
		if (strcmp(e->reports[i].kind, str_of(rep, "kind")))
			continue;
		if (!e->reports[i].where[0] || (loc && !strcmp(loc, e->reports[i].where)) ||
		    (top && !strcmp(top, e->reports[i].where)))
			return true;
	}
	return false;
}

static json_t *expected_json(const struct repro_expectation *e)
{
	json_t *reps = json_array();
	unsigned int i;

	for (i = 0; i < e->nr_reports; i++)
		json_array_append_new(reps, json_pack("{s:s, s:s, s:s}", "kind", e->reports[i].kind,
						      "where", e->reports[i].where,
						      "why", e->reports[i].why));
	return json_pack("{s:s, s:s, s:o}", "outcome", e->outcome, "reason", e->reason,
			 "kernel_reports", reps);
}

/*
 * The measured side: the outcome, the reads (the guest's and the host's),
 * the runner's verdict, the guest's facts as it left them, ext4's warnings
 * and btrfs' errors.
 */
static json_t *measured_json(const char *outcome, json_t *guest, const char *host,
			     const struct runner *run, const struct fs_lines *fs,
			     json_t *runner_said)
{
	static const char * const facts[] = {
		"last_step", "fsync", "buffers_after_pin", "private_after_pin", "move_ext",
		"swapext", "writeback", "failed",
	};
	json_t *reads = json_object_get(guest, "reads"), *m, *v;
	size_t i;

	m = json_pack("{s:s, s:s?, s:{s:s?, s:s?, s:s?, s:s}, s:O?, s:s?, s:s?}",
		      "outcome", outcome, "pinned", str_of(guest, "pinned"),
		      "reads", "guest", str_of(reads, "guest"),
		      "direct", str_of(reads, "direct"),
		      "evicted", str_of(reads, "evicted"), "host", host,
		      "guest_status", run->status, "kernel_verdict", run->verdict,
		      "kernel_release", str_of(guest, "kernel_release"));
	for (i = 0; m && i < ARRAY_SIZE(facts); i++) {
		v = json_object_get(guest, facts[i]);
		json_object_set(m, facts[i], v ? v : json_null());
	}
	json_object_set(m, "ext4_warnings", fs->ext4);
	json_object_set(m, "btrfs_errors", fs->btrfs);
	json_object_set_new(m, "runner_said", runner_said);
	return m;
}

/* Read the guest's facts; an object (empty if there are none) or NULL on error. */
static json_t *load_guest(const struct judge_opts *o, const char *label)
{
	json_t *g;

	if (!o->guest_json || access(o->guest_json, F_OK))
		return json_object();
	g = jsonfile_read_object(o->guest_json, "repro judge");
	if (!g)
		return NULL;
	if (!str_of(json_object_get(g, "cell"), "label") ||
	    strcmp(str_of(json_object_get(g, "cell"), "label"), label)) {
		fprintf(stderr, "gupctl repro judge: %s is the facts of cell '%s', not '%s'\n",
			o->guest_json, str_of(json_object_get(g, "cell"), "label"), label);
		json_decref(g);
		return NULL;
	}
	return g;
}

/* One line per report for the job's log: kind, location, frames. */
static void print_reports(json_t *reports)
{
	size_t i, j;
	json_t *r, *f;

	json_array_foreach(reports, i, r) {
		printf("   kernel %s%s: %s", json_is_true(json_object_get(r, "expected")) ? "" :
		       json_is_true(json_object_get(r, "finding")) ? "finding, " : "UNEXPECTED ",
		       str_of(r, "kind"),
		       str_of(r, "location") ? str_of(r, "location") : str_of(r, "title"));
		json_array_foreach(json_object_get(r, "frames"), j, f)
			printf("%s%s", j ? " < " : ": ", str_of(f, "function"));
		putchar('\n');
	}
}

/*
 * Why the cell counts as not run, or NULL: it was not booted, or a boot
 * input is missing.  Reads the runner's report into @run.
 */
static const char *not_run_why(const struct judge_opts *o, struct runner *run)
{
	if (o->not_run)
		return o->not_run;
	if (!run->verdict)
		return "no run report";
	if (!o->console || access(o->console, R_OK))
		return "no console";
	if (!o->reports || access(o->reports, R_OK))
		return "no list of the console's kernel reports";
	return NULL;
}

static int judge(const struct judge_opts *o)
{
	struct repro_expectation e;
	struct runner run = { 0 };
	char label[REPRO_LABEL_MAX], meas[256];
	const char *host, *not_run;
	json_t *guest, *reports = json_array(), *r, *cell = NULL, *said;
	struct fs_lines fs = { json_array(), json_array() };
	bool match, none = policy_is_none(o->fl.policy);
	size_t i;
	int ret;

	repro_cell_label(&o->cell, label, sizeof(label));
	/* policy none: nothing expected (e stays empty), the cell is measured */
	if (!none)
		repro_expect(o->fl.policy, o->fl.ext4, o->fl.bug_site, &o->cell, &e);
	else
		memset(&e, 0, sizeof(e));
	guest = load_guest(o, label);
	ret = guest ? 0 : GUPCTL_EXIT_USAGE;
	if (!ret && !o->not_run)
		ret = runner_read(o->report, &run);
	if (ret)
		goto out;
	not_run = not_run_why(o, &run);
	if (!not_run && read_reports(o, reports, fs.ext4, fs.btrfs)) {
		ret = GUPCTL_EXIT_USAGE;
		goto out;
	}
	if (not_run)
		run.verdict = NULL;
	host = not_run ? "missing" : host_read(o->host_read);
	measure(guest, reports, &fs, not_run, &run, host, meas, sizeof(meas));

	/* none: a cell that ran is measured; its slice's reports its findings */
	match = none ? !not_run && strncmp(meas, "not run", 7) : !strcmp(meas, e.outcome);
	json_array_foreach(reports, i, r) {
		json_object_set_new(r, "cell", json_string(label));
		json_object_set_new(r, "expected", json_boolean(report_expected(&e, r)));
		if (none)
			json_object_set_new(r, "finding", json_true());
		else
			match &= report_expected(&e, r);
	}
	cell = json_pack("{s:s, s:s?, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:b}",
			 "cell", label, "flavour", o->flavour,
			 "policy", o->fl.policy, "ext4", repro_ext4_choices[o->fl.ext4],
			 "fs", repro_fs_choices[o->cell.fs],
			 "route", repro_route_choices[o->cell.route],
			 "route_title", repro_route_title(&o->cell),
			 "method", repro_method_choices[o->cell.method],
			 "longterm", !!(o->cell.flags & GUP_PIN_FLAG_LONGTERM),
			 "write", !!(o->cell.flags & GUP_PIN_FLAG_WRITE));
	if (cell) {
		json_object_set_new(cell, "expected", none ? json_null() : expected_json(&e));
		if (none) {
			json_object_set_new(cell, "measured_only", json_true());
			json_object_set_new(cell, "reason", json_string(MEASURED_ONLY));
			json_object_set_new(cell, "verdict", json_string(match ? MEASURED_VERDICT :
									 "not run"));
		}
		said = run.verdict ? json_null() : tail_of(o->runner_log, 3);
		json_object_set_new(cell, "measured", measured_json(meas, guest, host, &run,
								    &fs, said));
		json_object_set(cell, "kernel_reports", reports);
		json_object_set_new(cell, "match", json_boolean(match));
		json_object_set_new(cell, "console", json_string(o->console_name ?
								 o->console_name : o->console));
	}
	if (!cell) {
		fprintf(stderr, "gupctl repro judge: out of memory\n");
		ret = GUPCTL_EXIT_USAGE;
		goto out;
	}
	ret = o->out ? json_dump_file(cell, o->out, JSON_INDENT(2)) :
	      json_dumpf(cell, stdout, JSON_INDENT(2));
	if (ret) {
		fprintf(stderr, "gupctl repro judge: cannot write %s: %s\n",
			o->out ? o->out : "stdout", strerror(errno));
		ret = GUPCTL_EXIT_USAGE;
		goto out;
	}
	if (o->out && none) {
		printf("   %s: measured %s (" MEASURED_ONLY ")\n",
		       match ? "MEASURED" : "NOT RUN", meas);
		print_reports(reports);
	} else if (o->out) {
		printf("   %s: measured %s%s%s\n", match ? "MATCH" : "MISMATCH", meas,
		       match ? "" : ", expected ", match ? "" : e.outcome);
		print_reports(reports);
	}
	ret = match ? GUPCTL_EXIT_OK : GUPCTL_EXIT_REFUSED;
out:
	json_decref(cell);
	json_decref(guest);
	json_decref(run.doc);
	json_decref(reports);
	json_decref(fs.ext4);
	json_decref(fs.btrfs);
	return ret;
}

int repro_judge(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl repro judge --policy P --ext4 B [CELL] [INPUTS] [-o CELL.json]",
		NULL
	};
	struct judge_opts o = {
		.cell = REPRO_CELL_DEFAULT,
		.fl = REPRO_FLAVOUR_UNSET,
	};
	const struct gopt opts[] = {
		GOPT_GROUP("The cell (as given to gupctl repro ext4-2018)"),
		REPRO_GOPT_FS(&o.cell),
		REPRO_GOPT_ROUTE(&o.cell),
		REPRO_GOPT_METHOD(&o.cell),
		REPRO_GOPT_LONGTERM(&o.cell),
		REPRO_GOPT_WRITE(&o.cell),
		GOPT_GROUP("The flavour"),
		GOPT_STRING(0, "flavour", &o.flavour, "F", "its name (patches/flavours)"),
		REPRO_GOPT_POLICY(&o.fl),
		REPRO_GOPT_EXT4(&o.fl),
		REPRO_GOPT_SOURCE(&o.fl),
		REPRO_GOPT_SITE(&o.fl),
		GOPT_GROUP("What the boot left (a missing one: the cell did not run)"),
		GOPT_STRING(0, "guest-json", &o.guest_json, "FILE", "the guest's facts (--json)"),
		GOPT_STRING(0, "report", &o.report, "FILE", "qemu/run.sh --report's JSON"),
		GOPT_STRING(0, "console", &o.console, "FILE", "the serial console"),
		GOPT_STRING(0, "reports", &o.reports, "FILE",
			    "qemu/scan-console.sh --reports of the console"),
		GOPT_STRING(0, "decoded", &o.decoded, "FILE",
			    "the console through decode_stacktrace.sh (read instead)"),
		GOPT_STRING(0, "host-read", &o.host_read, "FILE",
			    "the file as qemu/read-image.sh read it from its fs's image"),
		GOPT_STRING(0, "runner-log", &o.runner_log, "FILE",
			    "qemu/run.sh's output, quoted when there is no report"),
		GOPT_STRING(0, "not-run", &o.not_run, "WHY",
			    "the cell was not booted, because WHY"),
		GOPT_GROUP("Output"),
		GOPT_STRING(0, "console-name", &o.console_name, "NAME",
			    "the console's name in the JSON (default: --console)"),
		GOPT_STRING('o', "out", &o.out, "FILE",
			    "write the cell's JSON to FILE and a summary to stdout"),
		GOPT_END()
	};
	int ret = repro_parse("repro judge", argc, argv, opts, usage);

	if (ret >= 0)
		return ret;
	ret = repro_check_opts("repro judge", &o.cell, &o.fl, true);
	if (ret)
		return ret;
	return judge(&o);
}
