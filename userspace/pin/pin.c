// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl pin: pin a range, report the kernel's answer and the page state,
 * hold, unpin.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "lib/gupdev.h"
#include "lib/kernel.h"
#include "lib/options.h"
#include "lib/target.h"
#include "lib/util.h"
#include "model/cell.h"
#include "model/detect.h"
#include "model/policy.h"
#include "pin/pin.h"

struct pin_opts {
	struct target_spec spec;
	const char *target;		/* FILE or target_opt, for messages */
	char target_opt[16];		/* "--anon", "--shmem", "--hugetlb" */
	unsigned int method;		/* enum gup_pin_method */
	char method_opt[16];		/* the option that chose it, "": default */
	unsigned int flags;		/* GUP_PIN_FLAG_* */
	unsigned int unpin_flags;	/* GUP_UNPIN_* */
	unsigned int prefault;		/* enum target_prefault */
	bool hold_given;
	unsigned int hold;		/* seconds */
	const char *then;		/* shell command, NULL: not given */
	const char *policy;		/* --policy, NULL: the kernel's */
};

/* What the policy expects of this pin. */
struct pin_expect {
	const char *policy;		/* NULL: unknown */
	char how[320];			/* how the policy was chosen */
	const char *none;		/* no expectation: why; else NULL */
	struct cell cell;
	struct expectation e;
};

static int set_target(struct pin_opts *o, enum target_kind kind,
		      const char *arg)
{
	if (o->target)
		return usage_error("pin", "two targets: '%s' and '%s' (give exactly one)",
				   o->target, arg);
	o->target = arg;
	o->spec.kind = kind;
	o->spec.path = kind == TARGET_FILE ? arg : NULL;
	return 0;
}

/* --anon, --shmem, --hugetlb: opt->bit is the target_kind. */
static int pin_target(const struct gopt *opt, const char *arg)
{
	struct pin_opts *o = opt->data;
	char name[sizeof(o->target_opt)];

	(void)arg;
	snprintf(name, sizeof(name), "--%s", opt->long_name);
	if (o->target)
		return set_target(o, opt->bit, name);	/* two targets */
	memcpy(o->target_opt, name, sizeof(name));
	return set_target(o, opt->bit, o->target_opt);
}

/* --fast, --get, --get-fast, --pin-remote, ...: opt->bit is the method. */
static int pin_method(const struct gopt *opt, const char *arg)
{
	struct pin_opts *o = opt->data;

	(void)arg;
	if (o->method_opt[0] && o->method != opt->bit)
		return usage_error("pin", "conflicting methods: %s and --%s (give one)",
				   o->method_opt, opt->long_name);
	o->method = opt->bit;
	snprintf(o->method_opt, sizeof(o->method_opt), "--%s", opt->long_name);
	return 0;
}

/* --offset, --length: opt->data is the size_t. */
static int pin_size(const struct gopt *opt, const char *arg)
{
	int ret = target_parse_size(arg, opt->data);

	if (ret == -ERANGE)
		return usage_error("pin", "size '%s' for --%s is too big", arg,
				   opt->long_name);
	if (ret)
		return usage_error("pin",
				   "bad size '%s' for --%s: give bytes with an optional K or M suffix (e.g. 4096, 8K, 2M)",
				   arg, opt->long_name);
	return 0;
}

static int pin_hold(const struct gopt *opt, const char *arg)
{
	struct pin_opts *o = opt->data;
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v > UINT_MAX)
		return usage_error("pin", "bad --hold '%s': give whole seconds (0 or more)",
				   arg);
	o->hold = v;
	o->hold_given = true;
	return 0;
}

static int pin_policy(const struct gopt *opt, const char *arg)
{
	struct pin_opts *o = opt->data;

	if (!policy_lookup(arg))
		return usage_error("pin", "bad --policy '%s': give %s", arg,
				   policy_names());
	o->policy = arg;
	return 0;
}

/* The checks that need every option; 0 or an exit code. */
static int check_pin_opts(struct pin_opts *o)
{
	size_t page = getpagesize();

	o->spec.prefault = o->prefault;
	if (!o->target)
		return usage_error("pin", "no target: give a FILE, --anon, --shmem or --hugetlb");
	if (o->hold_given && o->then)
		return usage_error("pin", "--hold and --then exclude each other: give one");
	if (o->spec.read_only && o->spec.prefault == TARGET_PREFAULT_WRITE)
		return usage_error("pin",
				   "--prefault write needs a writable mapping: drop --read-only or use --prefault read");
	if (!o->spec.length)
		return usage_error("pin", "--length must not be 0");
	if (o->spec.offset % page)
		return usage_error("pin", "--offset %zu (%#zx) is not page aligned (page size %zu)",
				   o->spec.offset, o->spec.offset, page);
	if (o->spec.length % page)
		return usage_error("pin", "--length %zu (%#zx) is not page aligned (page size %zu)",
				   o->spec.length, o->spec.length, page);
	if (o->spec.offset + o->spec.length < o->spec.offset)
		return usage_error("pin", "--offset + --length overflows");
	return 0;
}

/* 0: options valid; GOPT_HELP: help printed; otherwise an exit code. */
static int parse_pin_opts(int argc, char **argv, struct pin_opts *o)
{
	static const char * const usage[] = {
		"gupctl pin [OPTIONS] FILE",
		"gupctl pin [OPTIONS] --anon|--shmem|--hugetlb",
		"",
		"Pin pages, show the kernel's answer (and what the GUP policy expects)",
		"and the pages' state, then unpin.",
		NULL
	};
	char policy_help[80];
	const struct gopt opts[] = {
		GOPT_GROUP("Target (a FILE, or one of these)"),
		GOPT_CALLBACK_VAL(0, "anon", o, TARGET_ANON, pin_target,
				  "anonymous memory (MAP_PRIVATE)"),
		GOPT_CALLBACK_VAL(0, "shmem", o, TARGET_SHMEM, pin_target,
				  "a shmem memfd covering the range"),
		GOPT_CALLBACK_VAL(0, "hugetlb", o, TARGET_HUGETLB, pin_target,
				  "a hugetlb memfd of 2 MiB pages covering the range"),
		GOPT_GROUP("Method (default pin_user_pages)"),
		GOPT_CALLBACK_VAL(0, "fast", o, GUP_PIN_METHOD_PIN_FAST, pin_method,
				  gup_method_name(GUP_PIN_METHOD_PIN_FAST)),
		GOPT_CALLBACK_VAL(0, "get", o, GUP_PIN_METHOD_GET, pin_method,
				  gup_method_name(GUP_PIN_METHOD_GET)),
		GOPT_CALLBACK_VAL(0, "get-fast", o, GUP_PIN_METHOD_GET_FAST, pin_method,
				  gup_method_name(GUP_PIN_METHOD_GET_FAST)),
		GOPT_CALLBACK_VAL(0, "pin-remote", o, GUP_PIN_METHOD_PIN_REMOTE, pin_method,
				  gup_method_name(GUP_PIN_METHOD_PIN_REMOTE)),
		GOPT_CALLBACK_VAL(0, "get-remote", o, GUP_PIN_METHOD_GET_REMOTE, pin_method,
				  gup_method_name(GUP_PIN_METHOD_GET_REMOTE)),
		GOPT_CALLBACK_VAL(0, "pin-unlocked", o, GUP_PIN_METHOD_PIN_UNLOCKED, pin_method,
				  gup_method_name(GUP_PIN_METHOD_PIN_UNLOCKED)),
		GOPT_CALLBACK_VAL(0, "get-unlocked", o, GUP_PIN_METHOD_GET_UNLOCKED, pin_method,
				  gup_method_name(GUP_PIN_METHOD_GET_UNLOCKED)),
		GOPT_GROUP("GUP flags"),
		GOPT_BIT(0, "write", &o->flags, GUP_PIN_FLAG_WRITE, "FOLL_WRITE"),
		GOPT_BIT(0, "longterm", &o->flags, GUP_PIN_FLAG_LONGTERM,
			 "FOLL_LONGTERM (6.1: pin, fast, pin-remote only)"),
		GOPT_BIT(0, "force", &o->flags, GUP_PIN_FLAG_FORCE, "FOLL_FORCE"),
		GOPT_BIT(0, "allow-broken", &o->flags, GUP_PIN_FLAG_ALLOW_BROKEN,
			 "FOLL_ALLOW_BROKEN_FILE_MAPPING (if the kernel has it)"),
		GOPT_GROUP("Mapping and range"),
		GOPT_CALLBACK(0, "offset", &o->spec.offset, "BYTES", pin_size,
			      "start of the range in the mapping (default 0)"),
		GOPT_CALLBACK(0, "length", &o->spec.length, "BYTES", pin_size,
			      "bytes to pin (default one page)"),
		GOPT_BOOL(0, "private", &o->spec.private, "MAP_PRIVATE, not MAP_SHARED"),
		GOPT_BOOL(0, "read-only", &o->spec.read_only,
			  "PROT_READ only; a FILE is opened O_RDONLY"),
		GOPT_BOOL(0, "thp", &o->spec.thp,
			  "--anon/--shmem: 2 MiB aligned, MADV_HUGEPAGE"),
		GOPT_CHOICE(0, "prefault", &o->prefault, "MODE", target_prefault_names,
			    "touch each page of the range before the pin"),
		GOPT_GROUP("Expectation"),
		GOPT_CALLBACK(0, "policy", o, "NAME", pin_policy, policy_help),
		GOPT_GROUP("While pinned, and the unpin"),
		GOPT_CALLBACK(0, "hold", o, "SECONDS", pin_hold,
			      "stay pinned SECONDS, then unpin"),
		GOPT_STRING(0, "then", &o->then, "CMD",
			    "run sh -c CMD while pinned, then unpin"),
		GOPT_BIT(0, "dirty-on-unpin", &o->unpin_flags, GUP_UNPIN_DIRTY,
			 "unpin with GUP_UNPIN_DIRTY (pages marked dirty)"),
		GOPT_END()
	};
	int ret, argi;

	memset(o, 0, sizeof(*o));
	o->method = GUP_PIN_METHOD_PIN;
	o->spec.length = getpagesize();
	snprintf(policy_help, sizeof(policy_help),
		 "%s (else detected)", policy_names());

	ret = gopt_parse("pin", argc, argv, opts, usage, &argi);
	while (!ret && argi < argc)
		ret = set_target(o, TARGET_FILE, argv[argi++]);
	return ret ?: check_pin_opts(o);
}

/* The policy (given or the kernel's) and what it expects of this pin. */
static void pin_expectation(const struct pin_opts *o, const struct target *t,
			    struct pin_expect *x)
{
	struct kernel_facts kf;
	const char *detected;
	char why[256];

	kernel_facts_read(&kf);
	detected = policy_detect(&kf, why, sizeof(why));

	x->policy = o->policy ?: detected;
	if (o->policy)
		snprintf(x->how, sizeof(x->how), "--policy; the kernel's: %s, %s",
			 detected ?: "unknown", why);
	else
		snprintf(x->how, sizeof(x->how), "%s", why);
	x->none = x->policy ? NULL : "the policy is unknown: give --policy NAME";
	if (!x->none && pin_cell(t, o->method, o->flags, &x->cell, &x->none) == 0) {
		policy_fn expect = policy_lookup(x->policy);

		x->e = expect(&x->cell);
	}
}

/* "pinned", "refused EFAULT", "not applicable" */
static const char *expect_str(const struct expectation *e, char *buf, size_t size)
{
	if (e->outcome == OUTCOME_REFUSED)
		snprintf(buf, size, "refused %s", errno_name(e->err));
	else
		snprintf(buf, size, "%s", e->outcome == OUTCOME_PINNED ?
			 "pinned" : "not applicable");
	return buf;
}

/* The answer: as expected, a driver fact, or a cause not established. */
static void explain_refusal(const struct gupdev *dev, const struct target *t,
			    const struct pin_opts *o, const struct pin_expect *x,
			    int err)
{
	size_t nr = t->len / dev->ver.page_size;
	const char *name = errno_name(err);
	char buf[64];

	if (!x->none && x->e.outcome == OUTCOME_REFUSED && x->e.err == err) {
		printf("  %s, as policy %s expects: %s\n", name, x->policy, x->e.reason);
	} else if (err == EOPNOTSUPP && (o->flags & GUP_PIN_FLAG_ALLOW_BROKEN) &&
		   !(dev->ver.features & GUP_PIN_FEATURE_ALLOW_BROKEN)) {
		puts("  EOPNOTSUPP: driver: this kernel has no FOLL_ALLOW_BROKEN_FILE_MAPPING");
	} else if (err == EINVAL && (o->flags & GUP_PIN_FLAG_LONGTERM) &&
		   (!method_is_pin(o->method) || o->method == GUP_PIN_METHOD_PIN_UNLOCKED)) {
		puts("  EINVAL: 6.1's GUP refuses FOLL_LONGTERM here, with a WARN (is_valid_gup_flags(), get_user_pages_unlocked())");
	} else if (err == E2BIG && nr > dev->ver.max_pages_per_pin) {
		printf("  E2BIG: %zu pages exceed the module's max_pages_per_pin (%u): ",
		       nr, dev->ver.max_pages_per_pin);
		puts("pin fewer, or reload the module with a larger max_pages_per_pin");
	} else if (err == ENOSPC) {
		printf("  ENOSPC: %zu more pages would pass the module's max_pages_total (%u) ",
		       nr, dev->ver.max_pages_total);
		puts("for all pins together: release other pins (gupctl status lists them)");
	} else if (!x->none) {
		printf("  %s: cause not established: policy %s expects %s (%s)\n",
		       name, x->policy, expect_str(&x->e, buf, sizeof(buf)),
		       x->e.reason);
	} else {
		printf("  %s (%s): cause not established: %s\n", name,
		       strerror(err), x->none);
	}
}

static void print_pin_state(struct gupdev *dev, __u32 id, __u32 nr, const char *when)
{
	struct gup_page_state st[64];
	char flags[96];
	__u32 first, count, i;
	int ret;

	printf("page state %s:\n", when);
	printf("  %5s %10s %-7s %-10s %8s %8s  %s\n", "page", "index", "kind",
	       "fs", "mapcount", "refcount", "flags");
	for (first = 0; first < nr; first += count) {
		count = nr - first < 64 ? nr - first : 64;
		ret = gupdev_state(dev, id, first, st, &count);
		if (ret || !count) {
			printf("  GUP_PIN_IOC_STATE of pin %u page %u failed: %s (%s)\n",
			       id, first, errno_name(ret), strerror(-ret));
			return;
		}
		for (i = 0; i < count; i++)
			printf("  %5u %10llu %-7s %-10.16s %8d %8d  %s\n", first + i,
			       (unsigned long long)st[i].index,
			       gup_page_kind_name(st[i].kind),
			       st[i].fs_name[0] ? st[i].fs_name : "-",
			       st[i].mapcount, st[i].refcount,
			       gup_page_state_str(st[i].state, flags, sizeof(flags)));
	}
}

static void run_then(const char *cmd)
{
	int status;

	printf("running: sh -c '%s'\n", cmd);
	fflush(stdout);
	status = system(cmd);
	if (status < 0)
		printf("then: could not run sh: %s (%s)\n",
		       errno_name(errno), strerror(errno));
	else if (WIFEXITED(status))
		printf("then: exited with status %d\n", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("then: killed by signal %d (%s)\n", WTERMSIG(status),
		       strsignal(WTERMSIG(status)));
}

static void wait_for_unpin(const struct pin_opts *o)
{
	unsigned int left;
	char line[256];

	if (o->then) {
		run_then(o->then);
	} else if (o->hold_given) {
		printf("holding the pin %u s\n", o->hold);
		fflush(stdout);
		for (left = o->hold; left; )
			left = sleep(left);
	} else if (isatty(STDIN_FILENO)) {
		printf("pinned: press Enter to unpin ");
		fflush(stdout);
		while (fgets(line, sizeof(line), stdin) && !strchr(line, '\n'))
			;
	}
}

static void print_request(const struct pin_opts *o, const struct target *t,
			  const struct pin_expect *x)
{
	size_t page = getpagesize();
	char buf[256];

	printf("request: %s, flags %s\n", gup_method_name(o->method),
	       gup_flags_str(o->flags, buf, sizeof(buf)));
	printf("target:  %s (%s)\n", o->spec.path ?: target_kind_name(o->spec.kind),
	       target_describe(t, buf, sizeof(buf)));
	printf("range:   offset %#zx length %#zx (%zu page%s) at %p\n",
	       o->spec.offset, o->spec.length, o->spec.length / page,
	       o->spec.length == page ? "" : "s", t->addr);
	printf("policy:  %s (%s)\n", x->policy ?: "unknown", x->how);
	if (x->none)
		printf("expect:  nothing: %s\n", x->none);
	else
		printf("expect:  %s (matrix cell %s, %s)\n",
		       expect_str(&x->e, buf, sizeof(buf)),
		       backing_name(x->cell.backing), state_name(x->cell.state));
	if (!x->none && x->e.report.kind)
		printf("expect:  a kernel %s, %s: \"%s\"\n", x->e.report.kind,
		       x->e.report.file, x->e.report.text);
}

/*
 * Release pin @id with @flags.  A dirtying unpin the driver's write rule
 * refuses (EPERM, the pin stays) is said so, then released clean.
 */
static int unpin(struct gupdev *dev, __u32 id, unsigned int flags)
{
	int ret = gupdev_unpin(dev, id, flags);

	if (ret == -EPERM && (flags & GUP_UNPIN_DIRTY)) {
		fprintf(stderr,
			"gupctl pin: GUP_UNPIN_DIRTY refused (EPERM): the driver keeps a read pin clean unless it is of a writable MAP_SHARED file (docs/driver.md)\n");
		flags = 0;
		ret = gupdev_unpin(dev, id, flags);
		if (!ret) {
			printf("unpinned pin %u without dirtying\n", id);
			return GUPCTL_EXIT_REFUSED;
		}
	}
	if (ret) {
		fprintf(stderr,
			"gupctl pin: unpin of pin %u failed: %s (%s): the pin stays until gupctl exits (close() releases it)\n",
			id, errno_name(ret), strerror(-ret));
		return GUPCTL_EXIT_REFUSED;
	}
	printf("unpinned pin %u%s\n", id,
	       flags & GUP_UNPIN_DIRTY ? " with GUP_UNPIN_DIRTY" : "");
	return GUPCTL_EXIT_OK;
}

static int pin_and_hold(struct gupdev *dev, const struct pin_opts *o,
			const struct target *t, const struct pin_expect *x)
{
	struct gup_pin_req req;
	char buf[64];
	int ret;

	ret = gupdev_pin(dev, t->addr, t->len, o->method, o->flags, &req);
	if (ret) {
		printf("answer:  refused: %s (%s)\n", errno_name(ret), strerror(-ret));
		explain_refusal(dev, t, o, x, -ret);
		return GUPCTL_EXIT_REFUSED;
	}
	if (!req.nr_pinned)
		printf("answer:  pinned 0 of %u pages: nothing kept\n", req.nr_requested);
	else
		printf("answer:  pinned %u of %u pages, pin id %u%s\n", req.nr_pinned,
		       req.nr_requested, req.id,
		       req.nr_pinned < req.nr_requested ?
		       " (partial: the GUP call returned fewer pages)" : "");
	if (!x->none && x->e.outcome == OUTCOME_PINNED && req.nr_pinned)
		printf("  as policy %s expects: %s\n", x->policy, x->e.reason);
	else if (!x->none)
		printf("  not what policy %s expects: %s (%s)\n", x->policy,
		       expect_str(&x->e, buf, sizeof(buf)), x->e.reason);
	if (!req.nr_pinned)
		return GUPCTL_EXIT_REFUSED;
	print_pin_state(dev, req.id, req.nr_pinned, "after pin");

	wait_for_unpin(o);

	print_pin_state(dev, req.id, req.nr_pinned, "before unpin");
	return unpin(dev, req.id, o->unpin_flags);
}

int cmd_pin(int argc, char **argv)
{
	struct pin_expect x = { 0 };
	struct pin_opts o;
	struct target t;
	struct gupdev dev;
	int ret;

	ret = parse_pin_opts(argc, argv, &o);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (target_setup(&t, &o.spec)) {
		fprintf(stderr, "gupctl pin: %s\n", t.err);
		return GUPCTL_EXIT_USAGE;
	}
	pin_expectation(&o, &t, &x);
	print_request(&o, &t, &x);
	fflush(stdout);

	ret = gupctl_open_device(&dev, "pin");
	if (!ret) {
		ret = pin_and_hold(&dev, &o, &t, &x);
		gupdev_close(&dev);
	}
	target_teardown(&t);
	return ret;
}
