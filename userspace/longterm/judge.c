// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl longterm (host only): the mm selftests' gup_longterm, judged
 * against the flavour's policy (longterm/predict.h has the model).
 *
 *   expect  each test's predicted verdict, and the matrix cell it asks
 *   judge   the guest's KTAP against the prediction, one per run (from
 *           the scratch ext4, xfs and btrfs): every disagreement is
 *           printed as a finding, and a run that did not happen fails
 *           all its tests; FLAVOUR.longterm.json; exit 0 only when every
 *           verdict is the predicted one
 *   report  the table test x flavour (docs/longterm.md) from results
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "console/kreports.h"
#include "console/markers.h"
#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/mounts.h"
#include "lib/options.h"
#include "lib/util.h"
#include "longterm/judge.h"
#include "longterm/predict.h"
#include "model/cell.h"

/* The step of the markers the guest writes around the run (lib/kmsg.h). */
#define LT_MARK_STEP	"longterm"

/* One run of the suite, from /mnt/FS: its KTAP and status, or why not run. */
struct lt_run_opt {
	const char *ktap, *status, *not_run;
};

struct lt_opts {
	const char *flavour, *policy, *kdir, *hugetlb, *suite;
	const char *json, *reports, *console, *md, *policies;
	struct lt_run_opt run[LT_FS_COUNT];	/* ext4's: --ktap, --status */
};

/* A measured result line. */
struct lt_measured {
	enum lt_verdict verdict;	/* LT_MISSING: no line */
	unsigned int number;
	char text[160];			/* what follows the number */
};

struct lt_run {
	struct lt_kernel k;
	struct lt_test tests[LT_MAX_TESTS];
	struct lt_prediction pred[LT_MAX_TESTS];
	struct lt_measured meas[LT_MAX_TESTS];
	unsigned int nr;
	/* each run judged: its tests tests[first..first+count) */
	bool judged[LT_FS_COUNT];
	unsigned int first[LT_FS_COUNT], count[LT_FS_COUNT];
	int plan[LT_FS_COUNT];		/* its KTAP's 1..N, -1: none */
	json_t *findings;
	unsigned int nr_disagree, nr_unknown;
};

static const char * const longterm_usage[] = {
	"gupctl longterm expect --policy P --kernel-dir DIR [--hugetlb FILE] [--suite 6.12|7.3]",
	"gupctl longterm judge --policy P --kernel-dir DIR --ktap FILE [--xfs-ktap FILE|--xfs-not-run WHY]",
	"                      [--btrfs-ktap FILE|--btrfs-not-run WHY] [--json FILE] [OPTIONS]",
	"gupctl longterm report --md FILE [--policies FILE] RESULTS_DIR",
	"",
	"The mm selftests' gup_longterm (6.12's on every flavour, a 7.3 kernel's own",
	"beside it), predicted from the flavour's GUP policy and judged",
	"(docs/longterm-guide.md).",
	NULL
};

static int opts_check(const char *cmd, const struct lt_opts *o)
{
	if (!o->policy)
		return usage_error(cmd, "give --policy (the flavour's gup column)");
	if (!o->kdir)
		return usage_error(cmd, "give --kernel-dir (patches/build-flavour.sh's directory)");
	return 0;
}

static void finding(struct lt_run *r, const char *kind, int test, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Print "# finding (KIND): ..." and keep it for --json. */
static void finding(struct lt_run *r, const char *kind, int test, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("# finding (%s): %s\n", kind, buf);
	json_array_append_new(r->findings, json_pack("{s:s, s:o, s:s}", "kind", kind,
						     "test", test < 0 ? json_null() :
						     json_integer(test + 1), "text", buf));
}

/* Predict the tests of the runs @r->judged[] names, in the order of enum lt_fs. */
static int load(const char *cmd, const struct lt_opts *o, struct lt_run *r)
{
	char why[4200];
	unsigned int i, fs;
	int ret;

	ret = lt_kernel_load(&r->k, o->policy, o->kdir, o->hugetlb, why, sizeof(why));
	if (ret) {
		fprintf(stderr, "gupctl %s: %s\n", cmd, why);
		return GUPCTL_EXIT_USAGE;
	}
	if (o->suite && lt_suite_parse(o->suite, &r->k.suite))
		return usage_error(cmd, "--suite %s: the suites modelled are %s and %s",
				   o->suite, lt_suite_name(LT_SUITE_612), lt_suite_name(LT_SUITE_73));
	for (fs = 0; fs < LT_FS_COUNT; fs++) {
		r->plan[fs] = -1;
		r->first[fs] = r->nr;
		if (r->judged[fs])
			r->count[fs] = lt_tests(&r->k, fs, r->tests + r->nr,
						ARRAY_SIZE(r->tests) - r->nr);
		r->nr += r->count[fs];
	}
	for (i = 0; i < r->nr; i++) {
		lt_predict(&r->k, &r->tests[i], &r->pred[i]);
		r->meas[i].verdict = LT_MISSING;
	}
	r->findings = json_array();
	return 0;
}

static const char *predicted_str(const struct lt_prediction *p)
{
	return p->or_skip ? (p->verdict == LT_OK ? "ok|skip" : "not ok|skip") :
	       lt_verdict_name(p->verdict);
}

static int cmd_expect(int argc, char **argv)
{
	struct lt_opts o = { 0 };
	const struct gopt opts[] = {
		GOPT_STRING(0, "policy", &o.policy, "P", "the flavour's GUP policy (patches/flavours' gup column)"),
		GOPT_STRING(0, "kernel-dir", &o.kdir, "DIR", "the flavour's kernel directory: src/ (its tree), build/.config"),
		GOPT_STRING(0, "hugetlb", &o.hugetlb, "FILE", "the guest's huge pages: lines 'SIZE_KB NR FREE'"),
		GOPT_STRING(0, "suite", &o.suite, "V", "the gup_longterm.c: 6.12 (default) or 7.3"),
		GOPT_END()
	};
	struct lt_run *r;
	unsigned int i;
	char cell[160];
	int ret, argi;

	ret = gopt_parse("longterm expect", argc, argv, opts, longterm_usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (argi < argc)
		return usage_error("longterm expect", "unexpected argument '%s'", argv[argi]);
	ret = opts_check("longterm expect", &o);
	if (ret)
		return ret;
	r = calloc(1, sizeof(*r));
	if (!r)
		return GUPCTL_EXIT_USAGE;
	for (i = 0; i < LT_FS_COUNT; i++)
		r->judged[i] = true;
	ret = load("longterm expect", &o, r);
	for (i = 0; !ret && i < r->nr; i++) {
		const struct lt_prediction *p = &r->pred[i];

		if (p->has_cell && p->matrix_index >= 0)
			snprintf(cell, sizeof(cell), "cell %d %s", p->matrix_index + 1,
				 matrix_cell_str(p->matrix_index, cell + 64, sizeof(cell) - 64));
		else
			snprintf(cell, sizeof(cell), "no pin");
		printf("%2u %-11s %s [run from %s]\n   %s%s%s\n   because %s\n", i + 1,
		       predicted_str(p), r->tests[i].name, lt_fs_dir(r->tests[i].fs),
		       cell, p->cell_note ? "; " : "",
		       p->cell_note ?: "", p->reason);
	}
	json_decref(r->findings);
	free(r);
	return ret;
}

/* Read run @fs's KTAP: each result line after its "# [RUN] " line. */
static int read_ktap(const char *path, struct lt_run *r, enum lt_fs fs)
{
	unsigned int first = r->first[fs], end = first + r->count[fs];
	char *line = NULL, name[LT_NAME_LEN] = "", *p;
	size_t cap = 0, len;
	unsigned int i, num;
	bool not;
	FILE *f = fopen(path, "re");

	if (!f) {
		fprintf(stderr, "gupctl longterm judge: --ktap %s: %s\n", path, strerror(errno));
		return GUPCTL_EXIT_USAGE;
	}
	while (getline(&line, &cap, f) >= 0) {
		len = strcspn(line, "\r\n");
		line[len] = '\0';
		if (!strncmp(line, "# [RUN] ", 8)) {
			snprintf(name, sizeof(name), "%s", line + 8);
			continue;
		}
		if (sscanf(line, "1..%u", &num) == 1) {
			r->plan[fs] = num;
			continue;
		}
		not = !strncmp(line, "not ", 4);
		p = line + (not ? 4 : 0);
		if (strncmp(p, "ok ", 3) || sscanf(p + 3, "%u", &num) != 1)
			continue;
		p += 3 + strspn(p + 3, "0123456789");
		p += strspn(p, " ");
		for (i = first; i < end && strcmp(r->tests[i].name, name); i++)
			;
		if (i == end) {
			finding(r, "unexpected-test", -1,
				"KTAP test %u '%s' of the run from %s is not one the suite runs on this kernel as the judge enumerates it (%s)",
				num, name[0] ? name : "(no [RUN] line)", lt_fs_dir(fs), line);
			r->nr_disagree++;
			continue;
		}
		r->meas[i].verdict = not ? LT_NOT_OK : !strncmp(p, "# SKIP", 6) ? LT_SKIP : LT_OK;
		r->meas[i].number = num;
		snprintf(r->meas[i].text, sizeof(r->meas[i].text), "%s", p);
		name[0] = '\0';
	}
	free(line);
	fclose(f);
	return 0;
}

/*
 * The console lines of the run's markers, in every job's format
 * (jobs/guest/matrix.sh writes "gup-lab: longterm cell 1" before the
 * suite and "gup-lab: longterm end" after it; console/markers.c reads
 * them): 0 if absent.
 */
static void find_marks(const char *console, unsigned int *start, unsigned int *end)
{
	struct markers ms = { 0 };
	unsigned int i;

	*start = *end = 0;
	if (read_markers(console, "longterm judge", &ms))
		return;
	for (i = 0; i < ms.nr; i++) {
		if (strcmp(ms.m[i].step, LT_MARK_STEP))
			continue;
		if (ms.m[i].index == 0)
			*start = ms.m[i].line;
		else if (ms.m[i].index == KMSG_MARK_END && *start)
			*end = ms.m[i].line;
	}
	free(ms.m);
}

/*
 * Kernel reports during the run.  The policies' WARN_ON_ONCE fire once a
 * boot: a report is consistent with the prediction when some test that
 * ran predicts a report of its kind.  Every report is a finding.
 */
static json_t *judge_reports(const struct lt_opts *o, struct lt_run *r, int *bad)
{
	unsigned int start, end, i, j;
	char src[4096], why[800];
	struct kreports k;
	json_t *a = json_array();
	bool predicted;

	*bad = 0;
	if (!o->reports || !o->console)
		return a;
	if (kreports_load(o->reports, "longterm judge", &k)) {
		*bad = GUPCTL_EXIT_USAGE;
		return a;
	}
	snprintf(src, sizeof(src), "%s/src", o->kdir);
	find_marks(o->console, &start, &end);
	for (i = 0; i < k.nr; i++) {
		if (!start || k.r[i].line < start || (end && k.r[i].line > end))
			continue;
		/* As the matrix judges: kind, file, and the text on its line. */
		for (j = 0, predicted = false; j < r->nr && !predicted; j++)
			predicted = report_matches(&r->pred[j].policy.report, &k.r[i],
						   src, why, sizeof(why));
		json_array_append_new(a, json_pack("{s:s, s:s, s:s?, s:i, s:b}",
						   "kind", k.r[i].kind, "title", k.r[i].title,
						   "location", k.r[i].location,
						   "console_line", k.r[i].line,
						   "predicted", predicted));
		finding(r, "kernel-report", -1, "%s during gup_longterm (console line %u): %s: %s",
			k.r[i].kind, k.r[i].line, k.r[i].title, predicted ?
			"a test's policy expects this report (its kind, file and source line)" :
			policy_is_none(o->policy) && !strcmp(k.r[i].kind, "warning") ?
			"policy none: no policy to expect it, a finding (the matrix's rule: a WARNING is measured, anything worse fails)" :
			"no test's policy expects it");
		if (!predicted && !(policy_is_none(o->policy) && !strcmp(k.r[i].kind, "warning")))
			r->nr_disagree++;
	}
	kreports_free(&k);
	return a;
}

static json_t *cell_json(const struct lt_prediction *p)
{
	char flags[64];

	if (!p->has_cell)
		return json_null();
	return json_pack("{s:o, s:s, s:s, s:s, s:s, s:s?}",
			 "index", p->matrix_index >= 0 ? json_integer(p->matrix_index + 1) :
			 json_null(),
			 "method", gup_method_name(p->cell.method),
			 "flags", gup_flags_str(p->cell.flags, flags, sizeof(flags)),
			 "backing", backing_name(p->cell.backing),
			 "state", state_name(p->cell.state), "note", p->cell_note);
}

static json_t *policy_json(const struct lt_prediction *p)
{
	if (!p->policy.reason)
		return json_null();
	return json_pack("{s:s, s:s?, s:s, s:b}",
			 "outcome", p->policy.outcome == OUTCOME_PINNED ? "pinned" : "refused",
			 "errno", p->policy.outcome == OUTCOME_REFUSED ?
			 errno_name(p->policy.err) : NULL,
			 "reason", p->policy.reason, "kernel_report", !!p->policy.report.kind);
}

static json_t *test_json(const struct lt_run *r, unsigned int i, bool agree)
{
	const struct lt_prediction *p = &r->pred[i];
	const struct lt_measured *m = &r->meas[i];
	const struct lt_test *t = &r->tests[i];

	return json_pack("{s:i, s:s, s:s, s:s, s:s, s:o, s:s, s:s?, s:o, s:o, s:s?, s:{s:s, s:b, s:s},"
			 " s:{s:s, s:o, s:s}, s:o}",
			 "index", i + 1, "name", t->name, "case", t->c->desc,
			 "local_fs", lt_fs_name(t->fs),
			 "backing", lt_backing_name(t->backing),
			 "huge_kb", t->huge_kb ? json_integer(t->huge_kb) : json_null(),
			 "suite_expects", p->should_work ? "works" : "fails", "via", p->via,
			 "cell", cell_json(p), "policy", policy_json(p),
			 "call", !p->policy.reason ? NULL :
			 p->outcome == OUTCOME_PINNED ? "pinned" : errno_name(p->err),
			 "predicted", "verdict", lt_verdict_name(p->verdict),
			 "or_skip", p->or_skip, "reason", p->reason,
			 "measured", "verdict", lt_verdict_name(m->verdict),
			 "number", m->verdict == LT_MISSING ? json_null() : json_integer(m->number),
			 "text", m->text,
			 "agree", p->verdict == LT_UNKNOWN ? json_null() : json_boolean(agree));
}

static int write_json(const char *path, json_t *doc)
{
	if (json_dump_file(doc, path, JSON_INDENT(2) | JSON_ENSURE_ASCII)) {
		fprintf(stderr, "gupctl longterm judge: cannot write --json %s\n", path);
		return GUPCTL_EXIT_USAGE;
	}
	return 0;
}

/* A run's exit status as given (--status N), null if not given or < 0. */
static json_t *status_json(const char *status)
{
	int n = status ? atoi(status) : -1;

	return n < 0 ? json_null() : json_integer(n);
}

static int cmd_judge(int argc, char **argv)
{
	struct lt_opts o = { 0 };
	const struct gopt opts[] = {
		GOPT_GROUP("The flavour"),
		GOPT_STRING(0, "flavour", &o.flavour, "F", "its name, for the document"),
		GOPT_STRING(0, "policy", &o.policy, "P", "its GUP policy (patches/flavours' gup column)"),
		GOPT_STRING(0, "kernel-dir", &o.kdir, "DIR", "its kernel directory: src/ (its tree), build/.config"),
		GOPT_STRING(0, "hugetlb", &o.hugetlb, "FILE", "the guest's huge pages before the run: lines 'SIZE_KB NR FREE'"),
		GOPT_STRING(0, "suite", &o.suite, "V", "the gup_longterm.c the guest ran: 6.12 (default) or 7.3"),
		GOPT_GROUP("What the guest measured"),
		GOPT_STRING(0, "ktap", &o.run[LT_FS_EXT4].ktap, "FILE", "gup_longterm's output, run from " LAB_EXT4_DIR),
		GOPT_STRING(0, "status", &o.run[LT_FS_EXT4].status, "N", "its exit status"),
		GOPT_STRING(0, "xfs-ktap", &o.run[LT_FS_XFS].ktap, "FILE", "its output run from " LAB_XFS_DIR),
		GOPT_STRING(0, "xfs-status", &o.run[LT_FS_XFS].status, "N", "that run's exit status"),
		GOPT_STRING(0, "xfs-not-run", &o.run[LT_FS_XFS].not_run, "WHY", "why there is no run from " LAB_XFS_DIR " (its tests fail)"),
		GOPT_STRING(0, "btrfs-ktap", &o.run[LT_FS_BTRFS].ktap, "FILE", "its output run from " LAB_BTRFS_DIR),
		GOPT_STRING(0, "btrfs-status", &o.run[LT_FS_BTRFS].status, "N", "that run's exit status"),
		GOPT_STRING(0, "btrfs-not-run", &o.run[LT_FS_BTRFS].not_run, "WHY", "why there is no run from " LAB_BTRFS_DIR " (its tests fail)"),
		GOPT_STRING(0, "reports", &o.reports, "FILE", "qemu/scan-console.sh --reports of the boot"),
		GOPT_STRING(0, "console", &o.console, "FILE", "the boot's console (the run's markers)"),
		GOPT_GROUP("Output"),
		GOPT_STRING(0, "json", &o.json, "FILE", "the judgement (FLAVOUR.longterm.json, docs/results.md)"),
		GOPT_END()
	};
	unsigned int i, count[LT_VERDICT_COUNT] = { 0 }, nr_agree = 0, nr_or_skip = 0;
	json_t *tests, *reports, *doc, *runs;
	struct lt_run *r;
	int ret, argi, rbad;
	unsigned int fs;
	bool agree;

	ret = gopt_parse("longterm judge", argc, argv, opts, longterm_usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (argi < argc)
		return usage_error("longterm judge", "unexpected argument '%s'", argv[argi]);
	ret = opts_check("longterm judge", &o);
	if (ret)
		return ret;
	if (!o.run[LT_FS_EXT4].ktap)
		return usage_error("longterm judge", "give --ktap (gup_longterm's output)");
	for (fs = LT_FS_XFS; fs < LT_FS_COUNT; fs++)
		if (o.run[fs].ktap && o.run[fs].not_run)
			return usage_error("longterm judge", "give --%s-ktap or --%s-not-run, not both",
					   lt_fs_name(fs), lt_fs_name(fs));
	r = calloc(1, sizeof(*r));
	if (!r)
		return GUPCTL_EXIT_USAGE;
	/* a run neither given nor said not run is not judged */
	for (fs = 0; fs < LT_FS_COUNT; fs++)
		r->judged[fs] = o.run[fs].ktap || o.run[fs].not_run;
	ret = load("longterm judge", &o, r);
	for (fs = 0; !ret && fs < LT_FS_COUNT; fs++)
		if (o.run[fs].ktap)
			ret = read_ktap(o.run[fs].ktap, r, fs);
	if (ret) {
		json_decref(r->findings);
		free(r);
		return ret;
	}
	for (fs = 0; fs < LT_FS_COUNT; fs++) {
		if (o.run[fs].not_run) {
			finding(r, "not-run", -1, "no run from %s: %s: its %u tests are missing, each a disagreement",
				lt_fs_dir(fs), o.run[fs].not_run, r->count[fs]);
		} else if (r->judged[fs] && r->plan[fs] != (int)r->count[fs]) {
			finding(r, "plan", -1, "the KTAP of the run from %s plans %d tests, the judge enumerates %u (10 cases x (3 + huge page sizes))",
				lt_fs_dir(fs), r->plan[fs], r->count[fs]);
			r->nr_disagree++;
		}
	}
	tests = json_array();
	for (i = 0; i < r->nr; i++) {
		const struct lt_prediction *p = &r->pred[i];
		const struct lt_measured *m = &r->meas[i];

		agree = lt_agrees(p, m->verdict);
		count[m->verdict]++;
		if (o.run[r->tests[i].fs].not_run) {
			r->nr_disagree++;	/* the run's finding says why */
		} else if (p->verdict == LT_UNKNOWN) {
			r->nr_unknown++;
		} else if (!agree) {
			r->nr_disagree++;
			finding(r, "disagree", i, "test %u '%s' (from %s): measured %s%s%s, predicted %s: %s",
				i + 1, r->tests[i].name, lt_fs_dir(r->tests[i].fs),
				lt_verdict_name(m->verdict),
				m->text[0] ? ": " : "", m->text, predicted_str(p), p->reason);
		} else {
			nr_agree++;
			if (p->or_skip && m->verdict == LT_SKIP) {
				nr_or_skip++;
				finding(r, "suite", i, "test %u '%s': skip (%s) where the call was refused (%s): the suite read a stale errno, not the registration's",
					i + 1, r->tests[i].name, m->text,
					errno_name(p->err));
			}
		}
		json_array_append_new(tests, test_json(r, i, agree));
	}
	if (r->nr_unknown && policy_is_none(o.policy))
		finding(r, "measured", -1, "%u of %u tests recorded as measured, not judged: policy %s (gupctl detect matched the kernel to no policy)",
			r->nr_unknown, r->nr, o.policy);
	else if (r->nr_unknown)
		finding(r, "unknown", -1, "%u of %u tests not predicted: no policy function '%s' in userspace/model/policy.c yet",
			r->nr_unknown, r->nr, o.policy);
	reports = judge_reports(&o, r, &rbad);
	if (rbad) {
		ret = rbad;
		goto out;
	}
	runs = json_array();
	for (fs = 0; fs < LT_FS_COUNT; fs++)
		if (r->judged[fs])
			json_array_append_new(runs, json_pack("{s:s, s:s, s:i, s:o, s:o, s:s?}",
				"local_fs", lt_fs_name(fs), "dir", lt_fs_dir(fs),
				"tests", r->count[fs],
				"plan", r->plan[fs] < 0 ? json_null() : json_integer(r->plan[fs]),
				"exit_status", status_json(o.run[fs].status),
				"not_run", o.run[fs].not_run));
	printf("# gup_longterm on %s (policy %s): %u ok, %u not ok, %u skip, %u missing; %u agree (%u by an accepted skip), %u disagree, %u not predicted\n",
	       o.flavour ?: "?", o.policy, count[LT_OK], count[LT_NOT_OK], count[LT_SKIP],
	       count[LT_MISSING], nr_agree, nr_or_skip, r->nr_disagree, r->nr_unknown);
	doc = json_pack("{s:s, s:s?, s:s, s:b, s:{s:s, s:s, s:o, s:o}, s:{s:s, s:b, s:b, s:b},"
			" s:o, s:o, s:o, s:o, s:o,"
			" s:{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b}}",
			"job", "matrix", "flavour", o.flavour, "policy", o.policy,
			"policy_known", r->k.fn != NULL,
			"suite", "name", "gup_longterm", "source", lt_suite_name(r->k.suite),
			"plan", r->plan[LT_FS_EXT4] < 0 ? json_null() :
			json_integer(r->plan[LT_FS_EXT4]),
			"exit_status", status_json(o.run[LT_FS_EXT4].status),
			"kernel", "source", r->k.version == 7 && r->k.patchlevel == 3 ? "7.3" :
			r->k.patchlevel == 1 ? "6.1" :
			r->k.patchlevel == 12 ? "6.12" : "other",
			"gup_test", r->k.gup_test, "longterm_ioctls", r->k.longterm_ioctls,
			"io_uring", r->k.io_uring,
			"hugetlb", json_array(), "runs", runs, "tests", tests,
			"kernel_reports", reports,
			"findings", json_incref(r->findings),
			"summary", "tests", r->nr, "ok", count[LT_OK], "not_ok", count[LT_NOT_OK],
			"skip", count[LT_SKIP], "missing", count[LT_MISSING], "agree", nr_agree,
			"agree_by_skip", nr_or_skip, "disagree", r->nr_disagree,
			"not_predicted", r->nr_unknown,
			"all_agree", !r->nr_disagree && !r->nr_unknown);
	if (policy_is_none(o.policy))
		json_object_set_new(json_object_get(doc, "summary"), "measured_only",
				    json_integer(r->nr_unknown));
	for (i = 0; i < r->k.nr_huge; i++)
		json_array_append_new(json_object_get(doc, "hugetlb"),
				      json_pack("{s:I, s:I, s:b}", "size_kb", (json_int_t)r->k.huge[i].kb,
						"free", (json_int_t)r->k.huge[i].free,
						"tested", lt_huge_tested(&r->k, i)));
	ret = o.json ? write_json(o.json, doc) : 0;
	json_decref(doc);
	/* policy none: its tests are measured, not judged; only a disagreement fails */
	if (!ret)
		ret = r->nr_disagree || (r->nr_unknown && !policy_is_none(o.policy)) ? 1 : 0;
out:
	json_decref(r->findings);
	free(r);
	return ret;
}

/* ---- report: docs/longterm.md from a results directory ---- */

#define LT_MAX_FLAVOURS	16

struct lt_col {
	const char *name;
	json_t *doc;		/* FLAVOUR.longterm.json, NULL: none */
	json_t *own;		/* FLAVOUR.longterm-own.json: the kernel's own suite */
};

static const char *cell_mark(json_t *t)
{
	json_t *agree = json_object_get(t, "agree");

	return json_is_null(agree) ? "?" : json_is_true(agree) ? "=" : "**≠**";
}

/* The table of verdicts per flavour (docs/longterm.md and docs/policies.md). */
static void write_summary(FILE *f, struct lt_col *cols, unsigned int nc)
{
	unsigned int c;
	json_t *s;

	fprintf(f, "| flavour | policy | ok | not ok | skip | missing | agree | disagree | not predicted |\n");
	fprintf(f, "|---|---|---|---|---|---|---|---|---|\n");
	for (c = 0; c < nc; c++) {
		if (!cols[c].doc) {
			fprintf(f, "| `%s` | — | — | — | — | — | — | — | — |\n", cols[c].name);
			continue;
		}
		s = json_object_get(cols[c].doc, "summary");
		fprintf(f, "| `%s` | %s | %lld | %lld | %lld | %lld | %lld | %lld | %lld |\n",
			cols[c].name,
			json_string_value(json_object_get(cols[c].doc, "policy")),
			json_integer_value(json_object_get(s, "ok")),
			json_integer_value(json_object_get(s, "not_ok")),
			json_integer_value(json_object_get(s, "skip")),
			json_integer_value(json_object_get(s, "missing")),
			json_integer_value(json_object_get(s, "agree")),
			json_integer_value(json_object_get(s, "disagree")),
			json_integer_value(json_object_get(s, "not_predicted")));
	}
}

/* @dir's FLAVOUR.longterm.json for each flavour of its run.json: 0, or -ENOENT. */
static int load_cols(const char *dir, struct lt_col *cols, unsigned int *nc)
{
	char path[4096];
	json_t *run, *fl, *x;
	size_t i;

	*nc = 0;
	snprintf(path, sizeof(path), "%s/run.json", dir);
	run = json_load_file(path, 0, NULL);
	fl = json_object_get(run, "flavours");
	if (!json_is_array(fl)) {
		json_decref(run);
		return -ENOENT;
	}
	json_array_foreach(fl, i, x) {
		const char *name = json_string_value(json_object_get(x, "name"));

		if (*nc == LT_MAX_FLAVOURS || !name)
			continue;
		cols[*nc].name = strdup(name);
		snprintf(path, sizeof(path), "%s/%s.longterm.json", dir, name);
		cols[*nc].doc = json_load_file(path, 0, NULL);
		snprintf(path, sizeof(path), "%s/%s.longterm-own.json", dir, name);
		cols[*nc].own = json_load_file(path, 0, NULL);
		(*nc)++;
	}
	json_decref(run);
	return 0;
}

static void free_cols(struct lt_col *cols, unsigned int nc)
{
	unsigned int c;

	for (c = 0; c < nc; c++) {
		free((char *)cols[c].name);
		json_decref(cols[c].doc);
		json_decref(cols[c].own);
	}
}

/* docs/policies.md's section: the verdicts per flavour, appended. */
static void longterm_policies_section(FILE *f, const char *dir)
{
	struct lt_col cols[LT_MAX_FLAVOURS];
	unsigned int nc;

	fprintf(f, "\n## The mm selftests' verdicts per flavour\n\n");
	if (!dir || load_cols(dir, cols, &nc)) {
		fprintf(f, "Not in these results: gup_longterm runs in a `make matrix` run (its run.json lists the flavours).\n");
		return;
	}
	fprintf(f, "6.12's `tools/testing/selftests/mm/gup_longterm.c` (with one patch: `fallocate()` retried on `EINTR`), in each flavour's matrix boot, each verdict judged against the one `userspace/model/policy.c` predicts for the same call.  Every test, every flavour and the findings: [longterm.md](longterm.md); how to read them: [longterm-guide.md](longterm-guide.md).\n\n");
	write_summary(f, cols, nc);
	free_cols(cols, nc);
}

/* A test's run: its "local_fs" (a document from before the runs: ext4). */
static const char *test_fs(json_t *t)
{
	return json_string_value(json_object_get(t, "local_fs")) ?: "ext4";
}

/*
 * The rows of the table: every test of the run from ext4, and of the runs
 * from xfs and btrfs their local tmpfile's (their other tests are the ext4
 * run's again: memfd, /tmp and hugetlb files; a disagreement among them
 * is a finding all the same).
 */
static bool md_row(json_t *t)
{
	return !strcmp(test_fs(t), "ext4") ||
	       !strcmp(json_string_value(json_object_get(t, "backing")) ?: "", "local tmpfile");
}

/* The table test x flavour of @cols' documents, and their findings (@h: "##"...). */
static void write_tests(FILE *f, struct lt_col *cols, unsigned int nc, const char *h)
{
	json_t *ref = NULL, *t, *s, *x;
	unsigned int c;
	size_t i;

	for (c = 0; c < nc && !ref; c++)
		if (cols[c].doc)
			ref = json_object_get(cols[c].doc, "tests");
	fprintf(f, "\n| test |");
	for (c = 0; c < nc; c++)
		fprintf(f, " `%s` |", cols[c].name);
	fprintf(f, "\n|---|");
	for (c = 0; c < nc; c++)
		fprintf(f, "---|");
	fprintf(f, "\n");
	json_array_foreach(ref, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		const char *fs = test_fs(t);

		if (!md_row(t))
			continue;
		if (strcmp(fs, "ext4"))
			fprintf(f, "| %s, from /mnt/%s |", name, fs);
		else
			fprintf(f, "| %s |", name);
		for (c = 0; c < nc; c++) {
			json_t *ts = cols[c].doc ? json_object_get(cols[c].doc, "tests") : NULL;
			size_t j;

			x = NULL;
			json_array_foreach(ts, j, s)
				if (!strcmp(json_string_value(json_object_get(s, "name")), name) &&
				    !strcmp(test_fs(s), fs))
					x = s;
			if (!x) {
				fprintf(f, " — |");
				continue;
			}
			fprintf(f, " %s %s |",
				json_string_value(json_object_get(json_object_get(x, "measured"),
								  "verdict")),
				cell_mark(x));
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\n%s Findings\n\n", h);
	for (c = 0; c < nc; c++) {
		json_t *fs = cols[c].doc ? json_object_get(cols[c].doc, "findings") : NULL;

		json_array_foreach(fs, i, x)
			fprintf(f, "- `%s` (%s): %s\n", cols[c].name,
				json_string_value(json_object_get(x, "kind")),
				json_string_value(json_object_get(x, "text")));
	}
}

/*
 * The kernels' own suites (a 7.3 kernel's: FLAVOUR.longterm-own.json),
 * as columns of their own, or nothing when the run has none.
 */
static void write_own(FILE *f, struct lt_col *cols, unsigned int nc)
{
	struct lt_col own[LT_MAX_FLAVOURS];
	unsigned int c, n = 0;

	for (c = 0; c < nc; c++)
		if (cols[c].own)
			own[n++] = (struct lt_col){ .name = cols[c].name, .doc = cols[c].own };
	if (!n)
		return;
	fprintf(f, "\n## Each kernel's own suite\n\n");
	fprintf(f, "A 7.3 kernel also runs its own tree's `tools/testing/selftests/mm/gup_longterm.c` (7.3.4's), the same three ways, after 6.12's, judged against the same policy: its tests are 6.12's, it reports each by its name (`log_test_result()`) and runs only the huge page sizes that `hugetlb_setup(2, ...)` gave two free pages.\n\n");
	write_summary(f, own, n);
	write_tests(f, own, n, "###");
}

static void write_md(FILE *f, const char *dir, struct lt_col *cols, unsigned int nc)
{
	fprintf(f, "# gup_longterm on every flavour\n\n");
	fprintf(f, "<!-- generated by `gupctl longterm report` (make docs) from %s: do not edit -->\n\n",
		dir);
	fprintf(f, "The mm selftests' own test of FOLL_LONGTERM (6.12's `tools/testing/selftests/mm/gup_longterm.c`, with one patch: `fallocate()` retried on `EINTR`), run in each flavour's matrix boot; each verdict beside the one `userspace/model/policy.c` predicts for the same call.  How to read it: [longterm-guide.md](longterm-guide.md).\n\n");
	fprintf(f, "The suite runs once from each scratch file system, `/mnt/ext4`, `/mnt/xfs` and `/mnt/btrfs`: its \"local tmpfile\" is made in the cwd.  The table has every test of the run from ext4 and the local tmpfile's tests of the other two (their other tests repeat the first run's files; a disagreement among them is in the findings).  `=` the verdict is the predicted one, **≠** it is not (a finding), `?` not predicted (no policy function yet), `—` the flavour has no judgement in these results.\n\n");
	write_summary(f, cols, nc);
	write_tests(f, cols, nc, "##");
	write_own(f, cols, nc);
}

/* longterm_policies_section() at the end of @path. */
static int append_policies_section(const char *path, const char *dir)
{
	FILE *f = fopen(path, "ae");

	if (!f) {
		fprintf(stderr, "gupctl longterm report: --policies %s: %s\n", path, strerror(errno));
		return GUPCTL_EXIT_USAGE;
	}
	longterm_policies_section(f, dir);
	if (fclose(f)) {
		fprintf(stderr, "gupctl longterm report: writing %s: %s\n", path, strerror(errno));
		return GUPCTL_EXIT_USAGE;
	}
	return 0;
}

static int cmd_report_md(int argc, char **argv)
{
	struct lt_opts o = { 0 };
	const struct gopt opts[] = {
		GOPT_STRING(0, "md", &o.md, "FILE", "write the page (docs/longterm.md) to FILE"),
		GOPT_STRING(0, "policies", &o.policies, "FILE",
			    "append the verdicts per flavour to FILE (docs/policies.md, from gupctl report)"),
		GOPT_END()
	};
	struct lt_col cols[LT_MAX_FLAVOURS];
	unsigned int nc = 0;
	int ret, argi;
	FILE *f;

	ret = gopt_parse("longterm report", argc, argv, opts, longterm_usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (argi + 1 != argc)
		return usage_error("longterm report", "give one RESULTS_DIR (a matrix run)");
	if (!o.md)
		return usage_error("longterm report", "give --md FILE");
	if (load_cols(argv[argi], cols, &nc)) {
		fprintf(stderr, "gupctl longterm report: %s/run.json: no \"flavours\" (not a matrix run)\n",
			argv[argi]);
		return GUPCTL_EXIT_USAGE;
	}
	f = fopen(o.md, "we");
	if (!f) {
		fprintf(stderr, "gupctl longterm report: --md %s: %s\n", o.md, strerror(errno));
		ret = GUPCTL_EXIT_USAGE;
	} else {
		write_md(f, argv[argi], cols, nc);
		if (fclose(f)) {
			fprintf(stderr, "gupctl longterm report: writing %s: %s\n", o.md,
				strerror(errno));
			ret = GUPCTL_EXIT_USAGE;
		}
	}
	free_cols(cols, nc);
	if (!ret && o.policies)
		ret = append_policies_section(o.policies, argv[argi]);
	return ret;
}

int cmd_longterm(int argc, char **argv)
{
	static const struct gopt_cmd sub[] = {
		GOPT_CMD("expect", cmd_expect, "each test's prediction"),
		GOPT_CMD("judge", cmd_judge, "a flavour's verdicts against the predictions"),
		GOPT_CMD("report", cmd_report_md, "the page of a matrix run"),
		GOPT_CMD_END()
	};
	return gopt_cmd_main("longterm", sub, longterm_usage, argc, argv);
}
