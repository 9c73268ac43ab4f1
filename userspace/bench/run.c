// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl bench, in the guest: what GUP itself costs, per method, flags and
 * backing, timed inside the kernel by GUP_PIN_IOC_BENCH, beside the
 * kernel's own benchmark (mm/gup_test.c, driven by the selftests'
 * gup_test) for the same calls, in the same boot, interleaved.  Each
 * repetition maps its memory afresh and writes every page first, as
 * gup_test does; the figures are ns per page, median, min and max over the
 * repetitions.  The host side, `gupctl bench report`, is bench/report.c;
 * the guide is docs/performance.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "bench/ops.h"
#include "bench/report.h"
#include "bench/run.h"
#include "lib/gupdev.h"
#include "lib/options.h"
#include "lib/target.h"
#include "lib/util.h"
#include "model/cell.h"

#define MIB		(1UL << 20)

struct bench_opts {
	const char *size_arg, *json, *gup_test, *flavour;
	size_t size;
	unsigned int per_call, reps;
	const char **only;		/* --op NAME..., NULL: every op */
	unsigned int nr_only;
};

/* The samples of one op: ns per page, ours and gup_test's. */
struct bench_samples {
	double *pin, *unpin, *gt_pin, *gt_unpin;
	unsigned int nr, gt_nr;
};

static const char * const bench_usage[] = {
	"gupctl bench [OPTIONS]",
	"gupctl bench report --md FILE --svg FILE [--from DIR] BENCH.json...  (host)",
	"",
	"Time GUP in the kernel, per method, flags and backing; with --gup-test, the",
	"kernel's own benchmark of the same calls, interleaved (docs/performance.md).",
	NULL
};

static int op_cb(const struct gopt *opt, const char *arg)
{
	struct bench_opts *o = opt->data;
	const char **p;
	unsigned int i;

	for (i = 0; i < bench_nr_ops && strcmp(bench_ops[i].name, arg); i++)
		;
	if (i == bench_nr_ops) {
		fprintf(stderr, "gupctl bench: unknown --op '%s'; the operations are:\n", arg);
		for (i = 0; i < bench_nr_ops; i++)
			fprintf(stderr, "  %s\n", bench_ops[i].name);
		return GUPCTL_EXIT_USAGE;
	}
	p = realloc(o->only, (o->nr_only + 1) * sizeof(*p));
	if (!p)
		return usage_error("bench", "out of memory (ENOMEM)");
	o->only = p;
	o->only[o->nr_only++] = arg;
	return 0;
}

static bool op_selected(const struct bench_opts *o, const struct bench_op *op)
{
	unsigned int i;

	if (!o->nr_only)
		return true;
	for (i = 0; i < o->nr_only; i++)
		if (!strcmp(o->only[i], op->name))
			return true;
	return false;
}

/* One repetition of @op with our driver: fresh memory, every page written. */
static int run_ours(struct gupdev *dev, const struct bench_opts *o,
		    const struct bench_op *op, double *pin, double *unpin)
{
	struct target_spec spec = {
		.kind = op->kind,
		.private = op->kind == TARGET_ANON,
		.length = o->size,
		.prefault = TARGET_PREFAULT_WRITE,
	};
	struct gup_pin_bench b = {
		.len = o->size, .method = op->method, .flags = op->flags,
		.nr_per_call = o->per_call,
	};
	size_t nr = o->size / (size_t)getpagesize();
	struct target t;
	int ret = target_setup(&t, &spec);

	if (ret) {
		fprintf(stderr, "gupctl bench: %s: %s\n", op->name, t.err);
		return GUPCTL_EXIT_USAGE;
	}
	b.addr = (uintptr_t)t.addr;
	ret = gupdev_bench(dev, &b);
	target_teardown(&t);
	if (ret) {
		fprintf(stderr, "gupctl bench: %s: GUP_PIN_IOC_BENCH: %s (%s)\n", op->name,
			errno_name(ret), strerror(-ret));
		return GUPCTL_EXIT_REFUSED;
	}
	if (b.err || b.nr_taken != nr) {
		fprintf(stderr, "gupctl bench: %s: took %u of %zu pages%s%s\n", op->name,
			b.nr_taken, nr, b.err ? ": " : "", b.err ? errno_name(b.err) : "");
		return GUPCTL_EXIT_REFUSED;
	}
	*pin = (double)b.pin_ns / nr;
	*unpin = (double)b.unpin_ns / nr;
	return 0;
}

/*
 * One repetition of @op with the kernel's gup_test: "gup_test OPT -m MB -n
 * N -r 1", which prints "NAME: Time: get:G put:P us" (microseconds).
 */
static int run_gup_test(const struct bench_opts *o, const struct bench_op *op,
			double *pin, double *unpin)
{
	char mb[32], n[32], line[512];
	long long get_us = -1, put_us = -1;
	int fds[2], status;
	bool truncated = false;
	FILE *f;
	pid_t pid;

	snprintf(mb, sizeof(mb), "%zu", o->size / MIB);
	snprintf(n, sizeof(n), "%u", o->per_call);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		fprintf(stderr, "gupctl bench: pipe: %s\n", strerror(errno));
		return GUPCTL_EXIT_REFUSED;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "gupctl bench: fork: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return GUPCTL_EXIT_REFUSED;
	}
	if (!pid) {
		dup2(fds[1], STDOUT_FILENO);
		execl(o->gup_test, o->gup_test, op->gup_test, "-m", mb, "-n", n, "-r", "1",
		      (char *)NULL);
		fprintf(stderr, "gupctl bench: cannot run %s: %s\n", o->gup_test,
			strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		const char *t = strstr(line, "Time: get:");

		if (t)
			sscanf(t, "Time: get:%lld put:%lld us", &get_us, &put_us);
		truncated |= strstr(line, "truncated") != NULL;
	}
	if (f)
		fclose(f);
	else
		close(fds[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    get_us < 0 || put_us < 0 || truncated) {
		fprintf(stderr, "gupctl bench: %s: '%s %s -m %s -n %s' gave no full timing%s\n",
			op->name, o->gup_test, op->gup_test, mb, n,
			truncated ? " (truncated)" : "");
		return GUPCTL_EXIT_REFUSED;
	}
	*pin = get_us * 1000.0 / (o->size / (size_t)getpagesize());
	*unpin = put_us * 1000.0 / (o->size / (size_t)getpagesize());
	return 0;
}

static json_t *stats_json(double *v, unsigned int n)
{
	struct bench_stats st;
	json_t *samples = json_array();
	unsigned int i;

	for (i = 0; i < n; i++)
		json_array_append_new(samples, json_real(v[i]));
	bench_stats(v, n, &st);
	return json_pack("{s:f, s:f, s:f, s:o}", "median", st.median, "min", st.min,
			 "max", st.max, "samples", samples);
}

/* "pin 123.4 (120.1..130.2)" */
static void print_stats(const char *what, double *v, unsigned int n)
{
	struct bench_stats st;
	double *c = malloc(n * sizeof(*c));

	if (!c)
		return;
	memcpy(c, v, n * sizeof(*c));
	bench_stats(c, n, &st);
	printf(" %s %8.1f (%.1f..%.1f)", what, st.median, st.min, st.max);
	free(c);
}

static double median_of(const double *v, unsigned int n)
{
	struct bench_stats st;
	double *c = malloc(n * sizeof(*c));

	if (!c)
		return 0;
	memcpy(c, v, n * sizeof(*c));
	bench_stats(c, n, &st);
	free(c);
	return st.median;
}

/* a / b, or "-" where gup_test's time rounded to 0 us */
static void print_ratio(double a, double b)
{
	if (b > 0)
		printf("%.3f", a / b);
	else
		printf("-");
}

/* The op's line(s): ours, then gup_test's and the ratio. */
static void print_op(const struct bench_op *op, const struct bench_samples *s)
{
	printf("%-30s ours    ", op->name);
	print_stats("pin", s->pin, s->nr);
	print_stats("unpin", s->unpin, s->nr);
	putchar('\n');
	if (!s->gt_nr)
		return;
	printf("%-30s gup_test %s", "", op->gup_test);
	print_stats("pin", s->gt_pin, s->gt_nr);
	print_stats("unpin", s->gt_unpin, s->gt_nr);
	printf("  ours/gup_test: pin ");
	print_ratio(median_of(s->pin, s->nr), median_of(s->gt_pin, s->gt_nr));
	printf(" unpin ");
	print_ratio(median_of(s->unpin, s->nr), median_of(s->gt_unpin, s->gt_nr));
	putchar('\n');
}

static json_t *op_json(const struct bench_op *op, struct bench_samples *s)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s?, s:{s:o, s:o}, s:o}",
			 "name", op->name, "method", gup_method_name(op->method),
			 "flags", op->flags == GUP_PIN_FLAG_WRITE ? "WRITE" : "WRITE|LONGTERM",
			 "backing", op->kind == TARGET_ANON ? "anon-private" : "shmem",
			 "gup_test_option", op->gup_test,
			 "ours", "pin_ns_per_page", stats_json(s->pin, s->nr),
			 "unpin_ns_per_page", stats_json(s->unpin, s->nr),
			 "gup_test", !s->gt_nr ? json_null() :
			 json_pack("{s:o, s:o}",
				   "pin_ns_per_page", stats_json(s->gt_pin, s->gt_nr),
				   "unpin_ns_per_page", stats_json(s->gt_unpin, s->gt_nr)));
}

static int check_bench_opts(struct bench_opts *o)
{
	int ret;

	ret = target_parse_size(o->size_arg, &o->size);
	if (ret || !o->size || o->size % MIB)
		return usage_error("bench", "bad --size '%s': whole MiB, e.g. 32M (gup_test's -m counts MB)",
				   o->size_arg);
	if (!o->per_call)
		return usage_error("bench", "--pages-per-call must be at least 1");
	if (!o->reps)
		return usage_error("bench", "--reps must be at least 1");
	return 0;
}

/* The clock ktime_get() reads: "tsc", "refined-jiffies"...; NULL if unknown. */
static char *clocksource(char *buf, size_t size)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
	char *ok = f ? fgets(buf, size, f) : NULL;

	if (f)
		fclose(f);
	if (!ok)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static int bench_run(struct bench_opts *o)
{
	struct bench_samples *s = calloc(bench_nr_ops, sizeof(*s));
	json_t *ops = json_array(), *doc;
	struct gupdev dev;
	struct utsname u;
	unsigned int rep, i;
	char cs[64], *clock = clocksource(cs, sizeof(cs));
	int ret;

	if (!s) {
		fprintf(stderr, "gupctl bench: out of memory\n");
		return GUPCTL_EXIT_USAGE;
	}
	ret = gupctl_open_device(&dev, "bench");
	if (ret)
		goto out;
	if ((size_t)dev.ver.max_pages_total * getpagesize() < o->size) {
		ret = usage_error("bench", "--size %s is over the module's max_pages_total (%u pages)",
				  o->size_arg, dev.ver.max_pages_total);
		goto close;
	}
	for (i = 0; i < bench_nr_ops; i++) {
		s[i].pin = calloc(o->reps, sizeof(double));
		s[i].unpin = calloc(o->reps, sizeof(double));
		s[i].gt_pin = calloc(o->reps, sizeof(double));
		s[i].gt_unpin = calloc(o->reps, sizeof(double));
		if (!s[i].pin || !s[i].unpin || !s[i].gt_pin || !s[i].gt_unpin) {
			fprintf(stderr, "gupctl bench: out of memory for %u repetitions\n",
				o->reps);
			ret = GUPCTL_EXIT_USAGE;
			goto close;
		}
	}
	uname(&u);
	printf("# gupctl bench: %s, %zu MiB (%zu pages), %u page%s per call, %u repetitions, ns per page timed in the kernel (clocksource %s)\n",
	       u.release, o->size / MIB, o->size / getpagesize(), o->per_call,
	       o->per_call == 1 ? "" : "s", o->reps, clock ?: "unknown");
	/* Interleaved, and each pair in turn first: drift falls on both. */
	for (rep = 0; rep < o->reps; rep++) {
		fprintf(stderr, "# repetition %u of %u\n", rep + 1, o->reps);
		for (i = 0; i < bench_nr_ops; i++) {
			const struct bench_op *op = &bench_ops[i];
			bool gt = o->gup_test && op->gup_test, gt_first = gt && rep % 2;

			if (!op_selected(o, op))
				continue;
			ret = gt_first ? run_gup_test(o, op, &s[i].gt_pin[s[i].gt_nr],
						      &s[i].gt_unpin[s[i].gt_nr]) : 0;
			ret = ret ?: run_ours(&dev, o, op, &s[i].pin[s[i].nr],
					      &s[i].unpin[s[i].nr]);
			if (!ret && gt && !gt_first)
				ret = run_gup_test(o, op, &s[i].gt_pin[s[i].gt_nr],
						   &s[i].gt_unpin[s[i].gt_nr]);
			if (ret)
				goto close;
			s[i].nr++;
			s[i].gt_nr += gt;
		}
	}
	for (i = 0; i < bench_nr_ops; i++) {
		if (!s[i].nr)
			continue;
		print_op(&bench_ops[i], &s[i]);
		json_array_append_new(ops, op_json(&bench_ops[i], &s[i]));
	}
	if (o->json) {
		doc = json_pack("{s:s, s:s?, s:s?, s:s, s:s?, s:I, s:i, s:i, s:i, s:o}",
				"job", "bench", "flavour", o->flavour,
				"policy", getenv("GUP_LAB_POLICY"), "kernel_release", u.release,
				"clocksource", clock,
				"size_bytes", (json_int_t)o->size, "page_size", getpagesize(),
				"pages_per_call", o->per_call, "repetitions", o->reps,
				"ops", json_incref(ops));
		if (json_dump_file(doc, o->json, JSON_INDENT(1) | JSON_PRESERVE_ORDER)) {
			fprintf(stderr, "gupctl bench: cannot write %s\n", o->json);
			ret = GUPCTL_EXIT_USAGE;
		}
		json_decref(doc);
	}
close:
	gupdev_close(&dev);
out:
	for (i = 0; i < bench_nr_ops; i++) {
		free(s[i].pin);
		free(s[i].unpin);
		free(s[i].gt_pin);
		free(s[i].gt_unpin);
	}
	free(s);
	json_decref(ops);
	return ret;
}

static const struct gopt_cmd bench_subcommands[] = {
	GOPT_CMD_HOST("report", bench_report, "the figures of a results directory as a page"),
	GOPT_CMD_END()
};

int cmd_bench(int argc, char **argv)
{
	struct bench_opts o = { .size_arg = "32M", .per_call = 1, .reps = 9 };
	const struct gopt opts[] = {
		GOPT_GROUP("What to time"),
		GOPT_CALLBACK(0, "op", &o, "NAME", op_cb,
			      "one operation (repeatable; default all; a wrong NAME lists them)"),
		GOPT_STRING(0, "size", &o.size_arg, "BYTES",
			    "memory per repetition, whole MiB (default 32M)"),
		GOPT_UINT('n', "pages-per-call", &o.per_call, "N",
			  "pages per GUP call (default 1, as gup_test's -n)"),
		GOPT_UINT('r', "reps", &o.reps, "R", "repetitions (default 9)"),
		GOPT_GROUP("Beside the kernel's own benchmark"),
		GOPT_STRING(0, "gup-test", &o.gup_test, "PATH",
			    "the selftests' gup_test: run its -a, -L, -u interleaved with ours"),
		GOPT_GROUP("Output"),
		GOPT_STRING(0, "json", &o.json, "FILE", "also write the figures as JSON"),
		GOPT_STRING(0, "flavour", &o.flavour, "NAME", "the flavour, recorded in the JSON"),
		GOPT_END()
	};
	int ret, argi;

	ret = gopt_cmd_run("bench", bench_subcommands, argc - 1, argv + 1);
	if (ret != GOPT_CMD_NONE)
		return ret;
	ret = gopt_parse("bench", argc, argv, opts, bench_usage, &argi);
	if (ret)
		goto out;
	if (argi < argc) {
		ret = usage_error("bench", "unexpected argument '%s'", argv[argi]);
		goto out;
	}
	ret = check_bench_opts(&o) ?: bench_run(&o);
out:
	free(o.only);
	return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
}
