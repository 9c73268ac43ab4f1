// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl pin: pin a range, report the kernel's answer and the page state,
 * hold, unpin.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "gupctl.h"
#include "target.h"

struct pin_opts {
	struct target_spec spec;
	const char *target;		/* as given, for messages */
	unsigned int method;		/* enum gup_pin_method */
	const char *method_opt;		/* option that chose it, NULL: default */
	unsigned int flags;		/* GUP_PIN_FLAG_* */
	unsigned int unpin_flags;	/* GUP_UNPIN_* */
	long hold;			/* seconds, -1: not given */
	const char *then;		/* shell command, NULL: not given */
};

enum {
	OPT_LONGTERM = 256, OPT_WRITE, OPT_FORCE, OPT_FAST, OPT_GET,
	OPT_GET_FAST, OPT_OFFSET, OPT_LENGTH, OPT_PRIVATE, OPT_READ_ONLY,
	OPT_PREFAULT, OPT_DIRTY, OPT_HOLD, OPT_THEN, OPT_ANON, OPT_SHMEM,
	OPT_HUGETLB,
};

static const struct option pin_options[] = {
	{ "longterm",		no_argument,		NULL, OPT_LONGTERM },
	{ "write",		no_argument,		NULL, OPT_WRITE },
	{ "force",		no_argument,		NULL, OPT_FORCE },
	{ "fast",		no_argument,		NULL, OPT_FAST },
	{ "get",		no_argument,		NULL, OPT_GET },
	{ "get-fast",		no_argument,		NULL, OPT_GET_FAST },
	{ "offset",		required_argument,	NULL, OPT_OFFSET },
	{ "length",		required_argument,	NULL, OPT_LENGTH },
	{ "private",		no_argument,		NULL, OPT_PRIVATE },
	{ "read-only",		no_argument,		NULL, OPT_READ_ONLY },
	{ "prefault",		required_argument,	NULL, OPT_PREFAULT },
	{ "dirty-on-unpin",	no_argument,		NULL, OPT_DIRTY },
	{ "hold",		required_argument,	NULL, OPT_HOLD },
	{ "then",		required_argument,	NULL, OPT_THEN },
	{ "anon",		no_argument,		NULL, OPT_ANON },
	{ "shmem",		no_argument,		NULL, OPT_SHMEM },
	{ "hugetlb",		no_argument,		NULL, OPT_HUGETLB },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

void cmd_pin_help(FILE *f)
{
	fprintf(f,
"usage: gupctl pin [OPTIONS] TARGET\n"
"\n"
"Pin pages of TARGET through " GUP_PIN_TEST_DEVICE ", print the request, the\n"
"kernel's answer (pages pinned and pin id, or the errno and what it means\n"
"here) and the state of each pinned page, then unpin, printing the state\n"
"again just before.\n"
"\n"
"TARGET (exactly one):\n"
"  FILE             an existing regular file, opened O_RDWR and mapped\n"
"                   MAP_SHARED; it must cover the range (never grown)\n"
"  --anon           anonymous memory (always MAP_PRIVATE)\n"
"  --shmem          a memfd (shmem), sized to cover the range\n"
"  --hugetlb        a memfd with MFD_HUGETLB: 2 MiB pages, one or more\n"
"                   (needs free pages in /proc/sys/vm/nr_hugepages)\n"
"\n"
"Method (default pin_user_pages):\n"
"  --fast           pin_user_pages_fast\n"
"  --get            get_user_pages\n"
"  --get-fast       get_user_pages_fast\n"
"\n"
"GUP flags:\n"
"  --write          FOLL_WRITE\n"
"  --longterm       FOLL_LONGTERM (the driver refuses it with --get and\n"
"                   --get-fast: it needs FOLL_PIN)\n"
"  --force          FOLL_FORCE\n"
"\n"
"Mapping and range:\n"
"  --offset B       start of the range in the mapping (default 0)\n"
"  --length B       bytes to pin (default one page)\n"
"                   B: page aligned bytes, decimal or 0x hex, optional\n"
"                   K or M suffix (x1024, x1048576)\n"
"  --private        MAP_PRIVATE instead of MAP_SHARED\n"
"  --read-only      map PROT_READ only; a FILE is opened O_RDONLY\n"
"  --prefault MODE  touch each page of the range before pinning: none\n"
"                   (default), read, or write (rewrites a byte with itself)\n"
"\n"
"Unpin:\n"
"  --dirty-on-unpin release with GUP_UNPIN_DIRTY (pages marked dirty)\n"
"  --hold SECONDS   stay pinned SECONDS, then unpin\n"
"  --then 'CMD'     run sh -c 'CMD' while pinned, report its exit status,\n"
"                   then unpin (CMD's status does not change gupctl's)\n"
"                   Without --hold or --then: wait for Enter if stdin is a\n"
"                   terminal, else unpin at once.  Killing gupctl closes\n"
"                   the device, which releases the pin.\n"
"  -h, --help       this help\n"
"\n"
"Exit status: 0 pinned (also partially), 1 refused by the kernel (an errno\n"
"or no page pinned) or unpin failed, 2 usage error or unusable TARGET,\n"
"3 " GUP_PIN_TEST_DEVICE " missing or unusable, or of another ABI version.\n");
}

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

static int set_method(struct pin_opts *o, unsigned int method, const char *opt)
{
	if (o->method_opt && o->method != method)
		return usage_error("pin", "conflicting methods: %s and %s (give one)",
				   o->method_opt, opt);
	o->method = method;
	o->method_opt = opt;
	return 0;
}

static int set_size(const char *opt, const char *arg, size_t *out)
{
	int ret = target_parse_size(arg, out);

	if (ret == -ERANGE)
		return usage_error("pin", "size '%s' for %s is too big", arg, opt);
	if (ret)
		return usage_error("pin", "bad size '%s' for %s: give bytes with an optional K or M suffix (e.g. 4096, 8K, 2M)",
				   arg, opt);
	return 0;
}

/* 0: options valid; -1: help printed; otherwise an exit code. */
static int parse_pin_opts(int argc, char **argv, struct pin_opts *o)
{
	size_t page = getpagesize();
	char *end;
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	o->method = GUP_PIN_METHOD_PIN;
	o->spec.length = page;
	o->hold = -1;

	opterr = 0;
	optind = 1;
	while (!ret && (c = getopt_long(argc, argv, ":h", pin_options, NULL)) != -1) {
		switch (c) {
		case 'h':
			cmd_pin_help(stdout);
			return -1;
		case OPT_LONGTERM:
			o->flags |= GUP_PIN_FLAG_LONGTERM;
			break;
		case OPT_WRITE:
			o->flags |= GUP_PIN_FLAG_WRITE;
			break;
		case OPT_FORCE:
			o->flags |= GUP_PIN_FLAG_FORCE;
			break;
		case OPT_FAST:
			ret = set_method(o, GUP_PIN_METHOD_PIN_FAST, "--fast");
			break;
		case OPT_GET:
			ret = set_method(o, GUP_PIN_METHOD_GET, "--get");
			break;
		case OPT_GET_FAST:
			ret = set_method(o, GUP_PIN_METHOD_GET_FAST, "--get-fast");
			break;
		case OPT_OFFSET:
			ret = set_size("--offset", optarg, &o->spec.offset);
			break;
		case OPT_LENGTH:
			ret = set_size("--length", optarg, &o->spec.length);
			break;
		case OPT_PRIVATE:
			o->spec.private = true;
			break;
		case OPT_READ_ONLY:
			o->spec.read_only = true;
			break;
		case OPT_PREFAULT:
			if (target_parse_prefault(optarg, &o->spec.prefault))
				ret = usage_error("pin", "bad --prefault '%s': give none, read or write",
						  optarg);
			break;
		case OPT_DIRTY:
			o->unpin_flags |= GUP_UNPIN_DIRTY;
			break;
		case OPT_HOLD:
			errno = 0;
			o->hold = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || o->hold < 0)
				ret = usage_error("pin", "bad --hold '%s': give whole seconds (0 or more)",
						  optarg);
			break;
		case OPT_THEN:
			o->then = optarg;
			break;
		case OPT_ANON:
			ret = set_target(o, TARGET_ANON, "--anon");
			break;
		case OPT_SHMEM:
			ret = set_target(o, TARGET_SHMEM, "--shmem");
			break;
		case OPT_HUGETLB:
			ret = set_target(o, TARGET_HUGETLB, "--hugetlb");
			break;
		case ':':
			return usage_error("pin", "option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			if (optopt)
				return usage_error("pin", "unknown option '-%c'", optopt);
			return usage_error("pin", "unknown option '%s'", argv[optind - 1]);
		}
	}
	while (!ret && optind < argc)
		ret = set_target(o, TARGET_FILE, argv[optind++]);
	if (ret)
		return ret;

	if (!o->target)
		return usage_error("pin", "no target: give a FILE, --anon, --shmem or --hugetlb");
	if (o->hold >= 0 && o->then)
		return usage_error("pin", "--hold and --then exclude each other: give one");
	if (o->spec.read_only && o->spec.prefault == TARGET_PREFAULT_WRITE)
		return usage_error("pin", "--prefault write needs a writable mapping: drop --read-only or use --prefault read");
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

/* The refusal, explained only where the cause is established. */
static void explain_refusal(const struct gupdev *dev, const struct pin_opts *o,
			    const struct target *t, int policy, int err)
{
	size_t nr = t->len / dev->ver.page_size;
	bool write = o->flags & GUP_PIN_FLAG_WRITE;
	bool longterm = o->flags & GUP_PIN_FLAG_LONGTERM;
	bool force = o->flags & GUP_PIN_FLAG_FORCE;
	bool pin = o->method == GUP_PIN_METHOD_PIN ||
		   o->method == GUP_PIN_METHOD_PIN_FAST;
	bool shared = o->spec.kind != TARGET_ANON && !o->spec.private;
	/* v7 checks FOLL_WRITE with FOLL_PIN or FOLL_LONGTERM, any file VMA */
	bool policy_case = write && (pin || longterm) &&
			   target_is_dirty_tracked_file(t);
	const char *name = errno_name(err);
	const char *also = policy_case && policy == 1 ?
		"; this kernel's GUP file-write policy refuses it as well" : "";

	if (err == EINVAL && longterm && !pin) {
		printf("  EINVAL: FOLL_LONGTERM needs FOLL_PIN: the driver refuses it as 6.1's GUP would WARN\n");
	} else if (err == EFAULT && write && o->spec.read_only && !force) {
		printf("  EFAULT: the mapping is not writable (PROT_READ) and FOLL_FORCE was not given%s\n",
		       also);
	} else if (err == EFAULT && write && o->spec.read_only &&
		   o->spec.kind == TARGET_HUGETLB) {
		printf("  EFAULT: GUP does not support FOLL_FORCE|FOLL_WRITE on a non-writable hugetlb mapping\n");
	} else if (err == EFAULT && write && o->spec.read_only && shared) {
		printf("  EFAULT: FOLL_FORCE writes only through private (COW) mappings, and this non-writable mapping is shared%s\n",
		       also);
	} else if (err == EFAULT && policy_case && policy == 1) {
		printf("  EFAULT: this kernel refuses %swritable pins of dirty-tracked file mappings (GUP file-write policy, vma_needs_dirty_tracking present%s%s)\n",
		       longterm ? "long-term " : "",
		       longterm ? "" : "; the v7 slow path also refuses FOLL_PIN without FOLL_LONGTERM",
		       shared ? "" : "; v7 does not exempt MAP_PRIVATE");
	} else if (err == EFAULT && policy_case && policy < 0) {
		printf("  EFAULT: cause not established: the GUP file-write policy would explain it, but whether this kernel has it is unknown (/proc/kallsyms: %s)\n",
		       errno_name(policy));
	} else if (err == E2BIG && nr > dev->ver.max_pages_per_pin) {
		printf("  E2BIG: %zu pages exceed the module's max_pages_per_pin (%u): pin fewer, or reload the module with a larger max_pages_per_pin\n",
		       nr, dev->ver.max_pages_per_pin);
	} else if (err == ENOSPC) {
		printf("  ENOSPC: %zu more pages would pass the module's max_pages_total (%u) for all pins together: release other pins (gupctl status lists them)\n",
		       nr, dev->ver.max_pages_total);
	} else {
		printf("  %s: %s: no established cause in this context\n",
		       name, strerror(err));
	}
}

void print_pin_state(struct gupdev *dev, __u32 id, __u32 nr, const char *when)
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
	} else if (o->hold >= 0) {
		printf("holding the pin %ld s\n", o->hold);
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
			  int policy)
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
	if (policy < 0)
		printf("kernel:  GUP file-write policy unknown (/proc/kallsyms: %s)\n",
		       errno_name(policy));
	else
		printf("kernel:  GUP file-write policy %s (vma_needs_dirty_tracking %sin /proc/kallsyms)\n",
		       policy ? "present" : "absent", policy ? "" : "not ");
}

static int pin_and_hold(struct gupdev *dev, const struct pin_opts *o,
			const struct target *t, int policy)
{
	struct gup_pin_req req;
	int ret;

	ret = gupdev_pin(dev, t->addr, t->len, o->method, o->flags, &req);
	if (ret) {
		printf("answer:  refused: %s (%s)\n", errno_name(ret), strerror(-ret));
		explain_refusal(dev, o, t, policy, -ret);
		return GUPCTL_EXIT_REFUSED;
	}
	if (!req.nr_pinned) {
		printf("answer:  pinned 0 of %u pages: nothing kept\n", req.nr_requested);
		return GUPCTL_EXIT_REFUSED;
	}
	printf("answer:  pinned %u of %u pages, pin id %u%s\n", req.nr_pinned,
	       req.nr_requested, req.id,
	       req.nr_pinned < req.nr_requested ? " (partial: the GUP call returned fewer pages)" : "");
	print_pin_state(dev, req.id, req.nr_pinned, "after pin");

	wait_for_unpin(o);

	print_pin_state(dev, req.id, req.nr_pinned, "before unpin");
	ret = gupdev_unpin(dev, req.id, o->unpin_flags);
	if (ret) {
		fprintf(stderr, "gupctl pin: unpin of pin %u failed: %s (%s): the pin stays until gupctl exits (close() releases it)\n",
			req.id, errno_name(ret), strerror(-ret));
		return GUPCTL_EXIT_REFUSED;
	}
	printf("unpinned pin %u%s\n", req.id,
	       o->unpin_flags & GUP_UNPIN_DIRTY ? " with GUP_UNPIN_DIRTY" : "");
	return GUPCTL_EXIT_OK;
}

int cmd_pin(int argc, char **argv)
{
	struct pin_opts o;
	struct target t;
	struct gupdev dev;
	int ret, policy;

	ret = parse_pin_opts(argc, argv, &o);
	if (ret)
		return ret < 0 ? GUPCTL_EXIT_OK : ret;
	if (target_setup(&t, &o.spec)) {
		fprintf(stderr, "gupctl pin: %s\n", t.err);
		return GUPCTL_EXIT_USAGE;
	}
	policy = gup_file_write_policy();
	print_request(&o, &t, policy);
	fflush(stdout);

	ret = gupctl_open_device(&dev, "pin");
	if (!ret) {
		ret = pin_and_hold(&dev, &o, &t, policy);
		gupdev_close(&dev);
	}
	target_teardown(&t);
	return ret;
}
