// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl repro collect and gupctl repro report (host only).
 *
 * collect: one flavour's judged cells (gupctl repro judge -o CELL.json)
 * into FLAVOUR.json and FLAVOUR.ktap (docs/results.md).
 *
 * report: a results directory of `make repro` into the markdown of
 * docs/repro-ext4-2018-results.md (`make docs` runs it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/util.h"
#include "model/cell.h"
#include "repro/cells.h"

static const char *str_of(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

static const char *outcome_of(json_t *cell, const char *which)
{
	const char *s = str_of(json_object_get(cell, which), "outcome");

	return s ? s : "?";
}

/* ---- collect ---- */

/* A kernel report's severity (scan-console.sh's: 0 the most severe). */
static json_int_t severity(json_t *report)
{
	return json_integer_value(json_object_get(report, "severity"));
}

static int write_ktap(const char *path, json_t *doc)
{
	json_t *cells = json_object_get(doc, "cells"), *c;
	unsigned int bad = 0;
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -errno;
	fprintf(f, "KTAP version 1\n");
	fprintf(f, "# gup-lab repro ext4-2018 flavour=%s policy=%s ext4=%s kernel=%s\n",
		str_of(doc, "flavour"), str_of(doc, "policy"), str_of(doc, "ext4"),
		str_of(doc, "kernel_release") ? str_of(doc, "kernel_release") : "?");
	fprintf(f, "1..%zu\n", json_array_size(cells));
	json_array_foreach(cells, i, c) {
		if (json_is_true(json_object_get(c, "match"))) {
			fprintf(f, "ok %zu %s # %s\n", i + 1, str_of(c, "cell"),
				outcome_of(c, "measured"));
			continue;
		}
		bad++;
		if (strcmp(outcome_of(c, "measured"), outcome_of(c, "expected")))
			fprintf(f, "not ok %zu %s # MISMATCH measured %s, expected %s\n", i + 1,
				str_of(c, "cell"), outcome_of(c, "measured"),
				outcome_of(c, "expected"));
		else
			fprintf(f, "not ok %zu %s # UNEXPECTED kernel report (%s, as expected)\n",
				i + 1, str_of(c, "cell"), outcome_of(c, "measured"));
	}
	fprintf(f, "# repro: %zu cells, %zu as expected, %u mismatched or not run\n",
		json_array_size(cells), json_array_size(cells) - bad, bad);
	return fclose(f) ? -errno : 0;
}

/*
 * The flavour's document from its cells.  Its kernel verdict is the kind
 * of its most severe report (the verdict the runner gave that boot: the
 * same patterns), "clean" if cells booted without one, null if none did.
 */
static int collect(const char *input_hash, const char *release, const char *json_out,
		   const char *ktap_out, int nr, char **files)
{
	json_t *doc, *cells = json_array(), *reports = json_array(), *c, *r, *worst = NULL;
	const char *v, *first = NULL;
	bool all_match = true, booted = false;
	size_t j;
	int i, err;

	for (i = 0; i < nr; i++) {
		c = jsonfile_read_object(files[i], "repro collect");
		if (!c)
			goto bad;
		v = str_of(c, "flavour") ?: "";
		if (!first)
			first = v;
		if (strcmp(v, first)) {
			fprintf(stderr, "gupctl repro collect: %s is of flavour %s, not %s\n",
				files[i], v, first);
			json_decref(c);
			goto bad;
		}
		json_array_foreach(json_object_get(c, "kernel_reports"), j, r) {
			json_array_append(reports, r);
			if (!worst || severity(r) < severity(worst))
				worst = r;
		}
		json_object_del(c, "kernel_reports");
		booted |= !!str_of(json_object_get(c, "measured"), "kernel_verdict");
		if (!release)
			release = str_of(json_object_get(c, "measured"), "kernel_release");
		all_match &= json_is_true(json_object_get(c, "match"));
		json_array_append_new(cells, c);
	}
	c = json_array_get(cells, 0);
	doc = json_pack("{s:s, s:s?, s:s?, s:s?, s:s?, s:s, s:s?, s:O, s:O}",
			"job", "repro", "flavour", str_of(c, "flavour"),
			"policy", str_of(c, "policy"), "ext4", str_of(c, "ext4"),
			"kernel_release", release, "input_hash", input_hash,
			"kernel_verdict", worst ? str_of(worst, "kind") : booted ? "clean" : NULL,
			"cells", cells, "kernel_reports", reports);
	err = doc ? json_dump_file(doc, json_out, JSON_INDENT(2)) : -1;
	if (err) {
		fprintf(stderr, "gupctl repro collect: cannot write %s\n", json_out);
	} else if (ktap_out) {
		err = write_ktap(ktap_out, doc);
		if (err)
			fprintf(stderr, "gupctl repro collect: cannot write %s: %s\n", ktap_out,
				strerror(-err));
	}
	json_decref(doc);
	json_decref(cells);
	json_decref(reports);
	if (err)
		return GUPCTL_EXIT_USAGE;
	return all_match ? GUPCTL_EXIT_OK : GUPCTL_EXIT_REFUSED;
bad:
	json_decref(cells);
	json_decref(reports);
	return GUPCTL_EXIT_USAGE;
}

int repro_collect(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl repro collect --input-hash H --json F.json [--ktap F.ktap] CELL.json...",
		NULL
	};
	const char *input_hash = NULL, *release = NULL, *json_out = NULL, *ktap_out = NULL;
	const struct gopt opts[] = {
		GOPT_STRING(0, "input-hash", &input_hash, "H", "the flavour kernel's cache key"),
		GOPT_STRING(0, "kernel-release", &release, "R",
			    "the kernel's release (default: what the guest said)"),
		GOPT_STRING(0, "json", &json_out, "FILE", "write the flavour's document here"),
		GOPT_STRING(0, "ktap", &ktap_out, "FILE", "and one KTAP line per cell here"),
		GOPT_END()
	};
	int ret, argi;

	ret = gopt_parse("repro collect", argc, argv, opts, usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (!input_hash || !json_out)
		return usage_error("repro collect", "give --input-hash and --json");
	if (argi >= argc)
		return usage_error("repro collect", "no CELL.json given");
	return collect(input_hash, release, json_out, ktap_out, argc - argi, argv + argi);
}

/* ---- report ---- */

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
	const char *kind = str_of(r, "kind"), *loc = str_of(r, "location");
	json_t *f;
	size_t i, n;

	if (!strcmp(kind, "warning") || !strcmp(kind, "bug"))
		n = snprintf(buf, size, "%s at %s", !strcmp(kind, "bug") ? "BUG" : "WARNING",
			     loc ? loc : "?");
	else
		n = snprintf(buf, size, "%s", str_of(r, "title"));
	json_array_foreach(json_object_get(r, "frames"), i, f) {
		if (n >= size)
			break;
		n += snprintf(buf + n, size - n, "%s%s", i ? " ← " : ": ", str_of(f, "function"));
		if (n < size && str_of(f, "location"))
			n += snprintf(buf + n, size - n, " (%s)", str_of(f, "location"));
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

struct md {
	FILE *f;
	json_t *reasons, *traces;
	unsigned int cells, matches;
};

static void md_row(struct md *md, json_t *doc, json_t *cell)
{
	json_t *meas = json_object_get(cell, "measured"), *reads = json_object_get(meas, "reads");
	json_t *r, *w;
	char a[512], b[512], line[2048], refs[256] = "", reads_s[128];
	size_t i, n = 0;

	json_array_foreach(json_object_get(doc, "kernel_reports"), i, r) {
		if (strcmp(str_of(r, "cell") ?: "", str_of(cell, "cell")))
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
	snprintf(reads_s, sizeof(reads_s), "%s / %s / %s",
		 str_of(reads, "guest") ?: "-", str_of(reads, "direct") ?: "-",
		 str_of(reads, "host") ?: "-");
	fprintf(md->f, "| %s | %s | `%s` | %s [%zu] | ", str_of(doc, "flavour"),
		str_of(cell, "route_title"), str_of(cell, "cell"),
		md_cell(outcome_of(cell, "expected"), a, sizeof(a)),
		number_of(md->reasons, str_of(json_object_get(cell, "expected"), "reason") ?: "?"));
	fprintf(md->f, "%s | %s | %s | %s |\n", md_cell(outcome_of(cell, "measured"), b, sizeof(b)),
		json_is_true(json_object_get(cell, "match")) ? "MATCH" : "MISMATCH",
		md_cell(reads_s, a, sizeof(a)), refs[0] ? refs : "-");
	md->cells++;
	md->matches += json_is_true(json_object_get(cell, "match"));
}

/* The page: a header, the table (in @table), the reasons and the traces. */
static void write_page(FILE *f, const char *dir, json_t *run, const struct md *md,
		       FILE *table)
{
	char buf[4096], sources[256];
	json_t *v;
	size_t i;

	run_json_sources(run, sources, sizeof(sources));

	fprintf(f, "<!-- Generated by `gupctl repro report` (make docs) from a results directory\n"
		"     of `make repro`: do not edit; run the job and make docs again. -->\n");
	fprintf(f, "# The ext4-2018 reproduction: measured\n\n");
	fprintf(f, "What [repro-ext4-2018.md](repro-ext4-2018.md) describes, as\n"
		"`jobs/repro.sh` ran it on %s\n(results `%s`, commit `%s`, %s, %.0f s):\n"
		"%u cells, %u as expected.\n"
		"The reads column shows the guest's page cache, the guest's `O_DIRECT`\n"
		"read and the host's read of the image.\n\n",
		sources, dir,
		str_of(run, "commit") ?: "?", str_of(run, "date") ?: "?",
		json_number_value(json_object_get(run, "wall_seconds")),
		md->cells, md->matches);
	rewind(table);
	while (fgets(buf, sizeof(buf), table))
		fputs(buf, f);
	fprintf(f, "\nWhy each outcome was expected (userspace/policy.c, repro_expect(), from\n"
		"the flavour's gup and ext4 columns; line numbers are 6.1.192's):\n\n");
	json_array_foreach(md->reasons, i, v)
		fprintf(f, "%zu. %s\n", i + 1, json_string_value(v));
	if (!json_array_size(md->traces))
		return;
	fprintf(f, "\nKernel reports and ext4 warnings, symbolised by the flavour's\n"
		"decode_stacktrace.sh and trimmed by `gupctl repro judge` (guess unwinder:\n"
		"interrupt and scheduler leftovers dropped; callers after the arrow):\n\n");
	json_array_foreach(md->traces, i, v)
		fprintf(f, "- **T%zu**: %s\n", i + 1, json_string_value(v));
}

static int report(const char *dir, const char *out)
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
	if (run && strcmp(str_of(run, "job") ?: "", "repro")) {
		fprintf(stderr, "gupctl repro report: %s is a run of '%s', not of repro\n", path,
			str_of(run, "job"));
		ret = GUPCTL_EXIT_USAGE;
	}
	md.f = tmpfile();
	if (!run || !md.f || ret)
		goto done;
	fprintf(md.f, "| flavour | route | method + flags | expected | measured | result | %s |\n",
		"reads: guest cache / guest O_DIRECT / host | kernel reports");
	fprintf(md.f, "|---|---|---|---|---|---|---|---|\n");
	json_array_foreach(json_object_get(run, "flavours"), i, fl) {
		snprintf(path, sizeof(path), "%s/%s.json", dir, str_of(fl, "name"));
		doc = json_is_true(json_object_get(fl, "ran")) ? jsonfile_read_object(path, "repro report") : NULL;
		if (!doc) {
			v = str_of(fl, "why_not_run") ?: "no results";
			fprintf(md.f, "| %s | - | - | - | not run: %s | - | - | - |\n",
				str_of(fl, "name"), md_cell(v, buf, sizeof(buf)));
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
		write_page(f, dir, run, &md, md.f);
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
		"gupctl repro report --results DIR [-o FILE]",
		NULL
	};
	const char *dir = NULL, *out = NULL;
	const struct gopt opts[] = {
		GOPT_STRING(0, "results", &dir, "DIR", "a results directory of jobs/repro.sh"),
		GOPT_STRING('o', "out", &out, "FILE", "write the markdown here (default stdout)"),
		GOPT_END()
	};
	int ret = repro_parse("repro report", argc, argv, opts, usage);

	if (ret >= 0)
		return ret;
	if (!dir)
		return usage_error("repro report", "no --results DIR");
	return report(dir, out);
}
