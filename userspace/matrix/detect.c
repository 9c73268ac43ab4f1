// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl detect: the running kernel's GUP policy.  policy_detect() names
 * a candidate from the kernel's facts (release, the series' symbols, the
 * driver's features: lib/kernel.h); model/probe.h derives the decisive
 * matrix cells of the release's policies; each runs here through the
 * matrix's own cell runner (matrix_run_one(), a marker "gup-lab: detect
 * cell N" before each, N the matrix index), and probe_judge() gives the
 * verdict: the candidate, another policy of the release, or none.
 * Without a device: --plan prints the probes and every model's answer,
 * --simulate MODEL judges MODEL's own answers as if measured.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/kernel.h"
#include "lib/kmsg.h"
#include "lib/mounts.h"
#include "lib/options.h"
#include "lib/util.h"
#include "matrix/detect.h"
#include "matrix/dirs.h"
#include "matrix/run.h"
#include "model/cell.h"
#include "model/detect.h"
#include "model/policy.h"
#include "model/probe.h"

struct detect_opts {
	const char *json;
	const char *dir[MATRIX_NR_DIRS];
	const char *release;		/* --release: no kernel read */
	const char *candidate;		/* --candidate, with --release */
	const char *simulate;		/* --simulate MODEL */
	bool plan;
};

static const char * const detect_usage[] = {
	"gupctl detect [--json FILE] [--ext4-dir DIR]",
	"gupctl detect --plan [--release R]",
	"gupctl detect --simulate MODEL --release R [--candidate POLICY] [--json FILE]",
	"",
	"The running kernel's GUP policy: the candidate its facts name (release,",
	"the series' symbols in /proc/kallsyms, the driver's features), confirmed",
	"or refuted by the decisive matrix cells of its release's policies",
	"(userspace/model/probe.c derives them).  Verdict: the candidate if every",
	"probe is as it predicts, else the release's policy that predicts them",
	"all, else none (gupctl matrix --policy none).  KTAP on stdout; exit 0",
	"when every probe ran, whatever the verdict.",
	NULL
};

static int parse_opts(int argc, char **argv, struct detect_opts *o)
{
	int ret, argi;
	const struct gopt opts[] = {
		GOPT_STRING(0, "json", &o->json, "FILE",
			    "write the verdict, the facts and every probe as JSON"),
		GOPT_STRING(0, "ext4-dir", &o->dir[MATRIX_DIR_EXT4], "DIR", MATRIX_EXT4_HELP),
		GOPT_BOOL(0, "plan", &o->plan,
			  "print the probes and each model's answer, run nothing (no device)"),
		GOPT_STRING(0, "release", &o->release, "R",
			    "with --plan or --simulate: the kernel release (6.1.N, 6.12.N), not uname's"),
		GOPT_STRING(0, "simulate", &o->simulate, "MODEL",
			    "judge MODEL's answers (--plan lists the models) as measured; no device"),
		GOPT_STRING(0, "candidate", &o->candidate, "POLICY",
			    "with --simulate: the candidate the facts would name"),
		GOPT_END()
	};

	memset(o, 0, sizeof(*o));
	matrix_dir_defaults(o->dir);
	ret = gopt_parse("detect", argc, argv, opts, detect_usage, &argi);
	if (ret)
		return ret;
	if (argi < argc)
		return usage_error("detect", "unexpected argument '%s'", argv[argi]);
	if (o->simulate && o->plan)
		return usage_error("detect", "--plan or --simulate, not both");
	if (o->simulate && !o->release)
		return usage_error("detect", "--simulate needs --release");
	if ((o->release || o->candidate) && !o->simulate && !o->plan)
		return usage_error("detect", "--release and --candidate go with --plan or --simulate");
	if (o->candidate && !policy_lookup(o->candidate))
		return usage_error("detect", "unknown --candidate '%s': give one of: %s",
				   o->candidate, policy_names());
	if (!o->dir[MATRIX_DIR_EXT4][0])
		return usage_error("detect", "empty --ext4-dir");
	return 0;
}

/* The facts as JSON. */
static json_t *facts_json(const struct kernel_facts *k, const char *why)
{
	json_t *syms = json_array();

	if (k->syms >= 0) {
		if (k->syms & KSYM_DIRTY_TRACKING)
			json_array_append_new(syms, json_string("vma_needs_dirty_tracking"));
		if (k->syms & KSYM_FAST_PIN_ALLOWED)
			json_array_append_new(syms, json_string("folio_fast_pin_allowed"));
	}
	return json_pack("{s:s, s:o, s:s, s:o, s:s}",
			 "release", k->release,
			 "kallsyms", k->syms < 0 ? json_string(errno_name(k->syms)) : syms,
			 "driver", k->driver ? errno_name(k->driver) : "answered",
			 "driver_features", k->driver ? json_null() :
					    json_integer(k->driver_features),
			 "candidate_why", why);
}

struct detect_run {
	const struct detect_opts *o;
	struct probe_plan plan;
	struct probe_measure m[PROBE_MAX];
	struct matrix_one one[PROBE_MAX];
	struct probe_verdict v;
	const char *release;
	char release_buf[65];
	const char *candidate;
	char candidate_why[256];
	char evidence[768];
	unsigned int nr_failed;		/* probes that could not run */
};

/* One human sentence: the facts, the probe counts, the verdict. */
static void say_evidence(struct detect_run *d)
{
	const struct probe_plan *p = &d->plan;
	size_t n, i;

	n = snprintf(d->evidence, sizeof(d->evidence), "release %s, candidate %s (%s); ",
		     d->release, d->candidate ?: "none", d->candidate_why);
	if (p->kernel == POLICY_KERNEL_COUNT || !p->nr) {
		snprintf(d->evidence + n, sizeof(d->evidence) - n,
			 "no policy the lab models is of this release: no probe run, policy none");
		return;
	}
	n += snprintf(d->evidence + n, sizeof(d->evidence) - n, "%u probes", p->nr);
	if (d->nr_failed && n < sizeof(d->evidence))
		n += snprintf(d->evidence + n, sizeof(d->evidence) - n, " (%u could not run)",
			      d->nr_failed);
	for (i = 0; i < p->nr_models && n < sizeof(d->evidence); i++)
		n += snprintf(d->evidence + n, sizeof(d->evidence) - n, "%s %s %u of %u",
			      i ? "," : ", as predicted by:", p->models[i].name,
			      d->v.matched[i], p->nr);
	if (n >= sizeof(d->evidence))
		return;
	if (d->v.candidate_confirmed)
		snprintf(d->evidence + n, sizeof(d->evidence) - n, ": %s confirmed",
			 d->v.policy);
	else if (d->v.policy)
		snprintf(d->evidence + n, sizeof(d->evidence) - n,
			 ": not %s but %s, whose predictions all match",
			 d->candidate ?: "the candidate", d->v.policy);
	else
		snprintf(d->evidence + n, sizeof(d->evidence) - n,
			 ": no policy of %s predicts them all: none",
			 p->kernel == POLICY_KERNEL_73 ? "7.3" :
			 p->kernel == POLICY_KERNEL_612 ? "6.12" : "6.1");
}

static json_t *probes_json(const struct detect_run *d, bool measured)
{
	const struct probe_plan *p = &d->plan;
	json_t *a = json_array(), *exp, *ok, *j;
	char desc[160], buf[64];
	unsigned int i, mi;

	for (i = 0; i < p->nr; i++) {
		exp = json_object();
		ok = json_array();
		for (mi = 0; mi < p->nr_models; mi++) {
			struct expectation e = probe_expect(p, mi, i);

			json_object_set_new(exp, p->models[mi].name,
					    json_string(probe_expect_str(&e, buf, sizeof(buf))));
			if (measured && probe_matches(&e, &d->m[i]))
				json_array_append_new(ok, json_string(p->models[mi].name));
		}
		j = json_pack("{s:s, s:i, s:s, s:b, s:o, s:o}",
			      "cell", matrix_cell_str(p->probes[i].cell, desc, sizeof(desc)),
			      "index", p->probes[i].cell + 1, "why", p->probes[i].why,
			      "sanity", p->probes[i].sanity,
			      "measured", !measured ? json_null() :
			      json_string(probe_measure_str(&d->m[i], buf, sizeof(buf))),
			      "expected", exp);
		if (measured)
			json_object_set_new(j, "as_predicted_by", ok);
		else
			json_decref(ok);
		if (measured && d->one[i].setup_failed)
			json_object_set_new(j, "why_not_run", json_string(d->one[i].why));
		json_array_append_new(a, j);
	}
	return a;
}

static int write_json(const struct detect_run *d, json_t *facts)
{
	FILE *f = jsonfile_open(d->o->json, "detect");
	json_t *doc;

	if (!f) {
		json_decref(facts);
		return GUPCTL_EXIT_USAGE;
	}
	doc = json_pack("{s:s, s:s?, s:s?, s:b, s:s, s:s?, s:o, s:o}",
			"job", "detect", "policy", d->v.policy,
			"candidate", d->candidate,
			"candidate_confirmed", d->v.candidate_confirmed,
			"evidence", d->evidence, "simulated", d->o->simulate,
			"facts", facts ?: json_null(), "probes", probes_json(d, true));
	return jsonfile_dump(doc, f, d->o->json, "detect");
}

/* KTAP: a line per probe (ok: it ran), the verdict as a comment. */
static void print_ktap(const struct detect_run *d)
{
	const struct probe_plan *p = &d->plan;
	char desc[160], buf[64], mb[64];
	unsigned int i, mi;

	for (i = 0; i < p->nr; i++) {
		matrix_cell_str(p->probes[i].cell, desc, sizeof(desc));
		if (d->one[i].setup_failed)
			printf("not ok %u %s # setup failed: %s: %s\n", i + 1, desc,
			       errno_name(d->one[i].err), d->one[i].why);
		else
			printf("ok %u %s # measured %s;", i + 1, desc,
			       probe_measure_str(&d->m[i], mb, sizeof(mb)));
		if (d->one[i].setup_failed) {
			fflush(stdout);
			continue;
		}
		for (mi = 0; mi < p->nr_models; mi++) {
			struct expectation e = probe_expect(p, mi, i);

			printf("%s %s %s", mi ? "," : " predicted:", p->models[mi].name,
			       probe_expect_str(&e, buf, sizeof(buf)));
		}
		putchar('\n');
		fflush(stdout);
	}
	printf("# detect: policy %s: %s\n", d->v.policy ?: POLICY_NONE, d->evidence);
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:0 error:0\n",
	       p->nr - d->nr_failed, d->nr_failed);
}

/* --plan: the probes and each model's answer. */
static int print_plan(const struct probe_plan *p)
{
	char desc[160], buf[64];
	unsigned int i, mi;

	printf("# %u models:", p->nr_models);
	for (mi = 0; mi < p->nr_models; mi++)
		printf(" %s%s", p->models[mi].name, p->models[mi].named ? "" :
		       p->models[mi].fn == policy_reference(p->kernel) ?
		       " (reference: no file write policy, never a verdict)" :
		       " (hypothesis: another release's semantics, never a verdict)");
	printf("\n# %u probes\n", p->nr);
	for (i = 0; i < p->nr; i++) {
		printf("%u\t%s\t", p->probes[i].cell + 1,
		       matrix_cell_str(p->probes[i].cell, desc, sizeof(desc)));
		for (mi = 0; mi < p->nr_models; mi++) {
			struct expectation e = probe_expect(p, mi, i);

			printf("%s%s=%s", mi ? " " : "", p->models[mi].name,
			       probe_expect_str(&e, buf, sizeof(buf)));
		}
		printf("\t%s\n", p->probes[i].why);
	}
	return GUPCTL_EXIT_OK;
}

/* The model named @name of @p, or -1. */
static int model_index(const struct probe_plan *p, const char *name)
{
	unsigned int mi;

	for (mi = 0; mi < p->nr_models; mi++)
		if (!strcmp(p->models[mi].name, name))
			return mi;
	return -1;
}

static int simulate(struct detect_run *d)
{
	int mi = model_index(&d->plan, d->o->simulate);
	unsigned int i;

	if (mi < 0)
		return usage_error("detect", "--simulate '%s' is no model of release %s",
				   d->o->simulate, d->release);
	probe_simulate(&d->plan, d->plan.models[mi].fn, d->m);
	for (i = 0; i < d->plan.nr; i++)
		d->one[i].measured = d->m[i].outcome;
	snprintf(d->candidate_why, sizeof(d->candidate_why), "simulated: %s's predictions as measurements",
		 d->o->simulate);
	probe_judge(&d->plan, d->candidate, d->m, &d->v);
	say_evidence(d);
	printf("KTAP version 1\n# gup-lab detect release=%s candidate=%s simulated=%s\n1..%u\n",
	       d->release, d->candidate ?: "none", d->o->simulate, d->plan.nr);
	print_ktap(d);
	return d->o->json ? write_json(d, NULL) : GUPCTL_EXIT_OK;
}

/* Run every probe on this kernel. */
static int measure(struct detect_run *d)
{
	struct kmsg_marker marks = { .step = "detect", .on = true };
	char why[256];
	struct gupdev dev;
	unsigned int i;
	int ret;

	if (lab_fs_ready(d->o->dir[MATRIX_DIR_EXT4], matrix_dirs[MATRIX_DIR_EXT4].fs,
			 matrix_dirs[MATRIX_DIR_EXT4].magic, why, sizeof(why)))
		return usage_error("detect", "--ext4-dir %s: %s", d->o->dir[MATRIX_DIR_EXT4], why);
	ret = gupctl_open_device(&dev, "detect");
	if (ret)
		return ret;
	for (i = 0; i < d->plan.nr; i++) {
		matrix_run_one(&dev, d->o->dir, &marks, d->plan.probes[i].cell,
			       d->plan.probes[i].report, &d->one[i]);
		d->m[i].outcome = d->one[i].measured;
		d->m[i].err = d->one[i].err;
		d->nr_failed += d->one[i].setup_failed || d->one[i].unpin_err;
	}
	if (d->plan.nr)
		kmsg_marker_mark(&marks, KMSG_MARK_END);
	gupdev_close(&dev);
	return 0;
}

int cmd_detect(int argc, char **argv)
{
	struct detect_opts o;
	struct kernel_facts kf;
	struct detect_run *d;
	enum policy_kernel k;
	int ret;

	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	d = calloc(1, sizeof(*d));
	if (!d) {
		fprintf(stderr, "gupctl detect: out of memory (ENOMEM)\n");
		return GUPCTL_EXIT_USAGE;
	}
	d->o = &o;
	if (o.release || o.plan) {
		if (!o.release)
			kernel_facts_read(&kf);
		snprintf(d->release_buf, sizeof(d->release_buf), "%s", o.release ?: kf.release);
		d->release = d->release_buf;
		d->candidate = o.candidate;
		k = probe_kernel_of(d->release);
		if (k == POLICY_KERNEL_COUNT)
			ret = usage_error("detect", "release '%s' is neither 6.1.N, 6.12.N nor 7.3.N: no policy to probe",
					  d->release);
		else if (probe_plan(k, &d->plan))
			ret = usage_error("detect", "no probe plan for release %s", d->release);
		else
			ret = o.plan ? print_plan(&d->plan) : simulate(d);
		free(d);
		return ret;
	}

	kernel_facts_read(&kf);
	d->release = kf.release[0] ? kf.release : "unknown";
	d->candidate = policy_detect(&kf, d->candidate_why, sizeof(d->candidate_why));
	k = d->candidate ? policy_kernel(d->candidate) : probe_kernel_of(kf.release);
	printf("KTAP version 1\n# gup-lab detect kernel=%s candidate=%s (%s)\n",
	       d->release, d->candidate ?: "none", d->candidate_why);
	if (k != POLICY_KERNEL_COUNT && probe_plan(k, &d->plan)) {
		ret = usage_error("detect", "no probe plan for release %s", d->release);
		free(d);
		return ret;
	}
	printf("1..%u\n", d->plan.nr);
	fflush(stdout);
	ret = d->plan.nr ? measure(d) : 0;
	if (ret) {
		free(d);
		return ret;
	}
	probe_judge(&d->plan, d->candidate, d->m, &d->v);
	say_evidence(d);
	print_ktap(d);
	ret = o.json ? write_json(d, facts_json(&kf, d->candidate_why)) : 0;
	if (!ret && d->nr_failed)
		ret = GUPCTL_EXIT_REFUSED;
	free(d);
	return ret;
}
