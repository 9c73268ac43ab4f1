// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl xcheck: cross-check the matrix with the kernel's own gup_test
 * (tools/testing/selftests/vm/gup_test, CONFIG_GUP_TEST) for the cells its
 * options can express, against the policy's expectation and, given the
 * matrix TSV, against what our driver measured for the same cell.
 *
 * gup_test maps 1 MiB (2 MiB for hugetlb) and pins it a page per call; a
 * refused pin shows as "truncated (size: 0)", not as an ioctl error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gupctl.h"
#include "matrix_tsv.h"

#define XCHECK_FILE_SIZE	(1 << 20)
#define XCHECK_MAX_ARGS		16

struct xcheck {
	policy_fn policy;
	const char *gup_test;		/* path of the gup_test binary */
	const char *tsv;		/* our matrix's TSV, or NULL */
	struct rflavour *matrix;	/* that TSV, read once */
	const char *dirs[BACKING_COUNT];/* file for file backings */
	unsigned long foll_longterm;	/* FOLL_LONGTERM of the running kernel */
	int n, failed;
};

void cmd_xcheck_help(FILE *f)
{
	fprintf(f,
"usage: gupctl xcheck --policy POLICY --gup-test PATH [--tsv FILE]\n"
"                     [--foll-longterm HEX] [--ext4-dir DIR]\n"
"                     [--tmpfs-dir DIR] [--ramfs-dir DIR]\n"
"\n"
"Run the kernel's own gup_test for every matrix cell its options can\n"
"express (-b/-L/-a/-U/-u, -w/-W, -S, -f FILE, -H, -z) and print TAP: each\n"
"cell's gup_test outcome against POLICY's expectation and, with --tsv,\n"
"against our driver's measured outcome in that matrix TSV.\n"
"\n"
"Options:\n"
"  --policy POLICY      expectation functions: %s\n"
"  --gup-test PATH      gup_test built from the running kernel's tree\n"
"  --tsv FILE           the matrix TSV of this boot (gupctl matrix --tsv)\n"
"  --foll-longterm HEX  FOLL_LONGTERM of the running kernel, passed with\n"
"                       gup_test -F for pin_user_pages_fast (default 0x10000,\n"
"                       include/linux/mm.h in 6.1)\n"
"  --ext4-dir DIR       ext4 directory (default /mnt/ext4)\n"
"  --tmpfs-dir DIR      tmpfs directory (default /tmp)\n"
"  --ramfs-dir DIR      ramfs directory (default /mnt/ramfs)\n"
"  -h, --help           this help\n"
"\n"
"Not expressible, so not run: FOLL_LONGTERM with get methods, read-faulted\n"
"pages (gup_test writes each page or lets GUP fault it), PROT_READ\n"
"mappings (gup_test maps PROT_READ|PROT_WRITE), -z with fast methods\n"
"(FOLL_TOUCH: 6.1's GUP-fast WARNs and returns -EINVAL), read pins of\n"
"untouched anonymous memory (the zero page is not pinned in 6.1.192 and\n"
"gup_test WARNs \"is NOT dma-pinned\").  shmem is /dev/zero\n"
"MAP_SHARED and hugetlb is MAP_HUGETLB|MAP_ANONYMOUS (private), not memfds:\n"
"the same VMA kinds for the policies.\n"
"\n"
"Exit status: 0 all agree, 1 a disagreement or a gup_test failure,\n"
"2 usage error.\n", policy_names());
}

/* gup_test's command option for a method and our flags. */
static const char *gup_test_cmd(unsigned int method, unsigned int flags)
{
	bool longterm = flags & GUP_PIN_FLAG_LONGTERM;

	switch (method) {
	case GUP_PIN_METHOD_PIN:
		return longterm ? "-L" : "-b";
	case GUP_PIN_METHOD_PIN_FAST:
		return "-a";
	case GUP_PIN_METHOD_GET:
		return longterm ? NULL : "-U";
	case GUP_PIN_METHOD_GET_FAST:
		return longterm ? NULL : "-u";
	}
	return NULL;
}

/*
 * Cells gup_test cannot run without tripping a WARN of its own: -z adds
 * FOLL_TOUCH, which 6.1's internal_get_user_pages_fast() rejects with
 * WARN_ON_ONCE and -EINVAL; and a read pin of untouched private anonymous
 * memory gets the zero page, which 6.1.192 no longer pins (try_grab_folio()
 * returns early for it), so gup_test's verify_dma_pinned() WARNs "is NOT
 * dma-pinned".
 */
static bool expressible(const struct cell *c)
{
	bool fast = c->method == GUP_PIN_METHOD_PIN_FAST ||
		    c->method == GUP_PIN_METHOD_GET_FAST;
	bool pin = c->method == GUP_PIN_METHOD_PIN ||
		   c->method == GUP_PIN_METHOD_PIN_FAST;

	if (c->state == STATE_READ || c->backing == BACKING_EXT4_SHARED_RO ||
	    !gup_test_cmd(c->method, c->flags))
		return false;
	if (c->state == STATE_NONE && fast)
		return false;
	if (c->state == STATE_NONE && pin && c->backing == BACKING_ANON &&
	    !(c->flags & GUP_PIN_FLAG_WRITE))
		return false;
	return true;
}

static int make_file(const char *path)
{
	static char buf[XCHECK_FILE_SIZE];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	if (fd < 0)
		return -errno;
	memset(buf, 'x', sizeof(buf));
	n = write(fd, buf, sizeof(buf));
	close(fd);
	return n == (ssize_t)sizeof(buf) ? 0 : -EIO;
}

/*
 * Run gup_test for @c; *@out receives "pinned", "refused", "partial" or
 * "error".  Returns 0, or -errno if gup_test could not be run.
 */
static int run_gup_test(const struct xcheck *x, const struct cell *c,
			const char **out)
{
	const char *argv[XCHECK_MAX_ARGS];
	char fflags[32], line[512];
	int argc = 0, pipefd[2], status;
	bool truncated = false, partial = false;
	FILE *p;
	pid_t pid;

	argv[argc++] = x->gup_test;
	argv[argc++] = gup_test_cmd(c->method, c->flags);
	if (c->method == GUP_PIN_METHOD_PIN_FAST &&
	    (c->flags & GUP_PIN_FLAG_LONGTERM)) {
		snprintf(fflags, sizeof(fflags), "%#lx", x->foll_longterm);
		argv[argc++] = "-F";
		argv[argc++] = fflags;
	}
	argv[argc++] = c->flags & GUP_PIN_FLAG_WRITE ? "-w" : "-W";
	if (c->state == STATE_NONE)
		argv[argc++] = "-z";	/* GUP faults the pages in */
	argv[argc++] = "-m";
	argv[argc++] = c->backing == BACKING_HUGETLB ? "2" : "1";
	if (c->backing == BACKING_HUGETLB)
		argv[argc++] = "-H";
	if (c->backing != BACKING_ANON && c->backing != BACKING_HUGETLB &&
	    c->backing != BACKING_EXT4_PRIVATE)
		argv[argc++] = "-S";
	if (x->dirs[c->backing]) {
		argv[argc++] = "-f";
		argv[argc++] = x->dirs[c->backing];
	}
	argv[argc] = NULL;

	if (pipe(pipefd))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		close(pipefd[0]);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	close(pipefd[1]);
	p = fdopen(pipefd[0], "r");
	while (p && fgets(line, sizeof(line), p)) {
		char *t = strstr(line, "runcated (size: ");

		if (t) {
			truncated = true;
			partial = strtoll(t + 16, NULL, 10) > 0;
		}
	}
	if (p)
		fclose(p);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		*out = "error";
	else if (partial)
		*out = "partial";
	else
		*out = truncated ? "refused" : "pinned";
	return 0;
}

/* Our driver's measured outcome for @c in the matrix TSV, or NULL. */
static const char *driver_outcome(const struct xcheck *x, const struct cell *c)
{
	const struct rcell *rc;

	if (!x->matrix)
		return NULL;
	rc = &x->matrix->cells[matrix_index(c)];
	return rc->present ? matrix_outcome_name(rc->measured) : NULL;
}

static const char *expected_outcome(const struct expectation *e)
{
	return e->outcome == OUTCOME_PINNED ? "pinned" : "refused";
}

static void check_cell(struct xcheck *x, const struct cell *c)
{
	struct expectation e = x->policy(c);
	const char *got = "error", *ours;
	char flags[64];
	bool ok;
	int ret;

	if (e.outcome == OUTCOME_NOT_APPLICABLE)
		return;
	if (c->backing != BACKING_ANON && c->backing != BACKING_SHMEM &&
	    c->backing != BACKING_HUGETLB) {
		ret = make_file(x->dirs[c->backing]);
		if (ret) {
			printf("not ok %d - %s: cannot create: %s\n", ++x->n,
			       x->dirs[c->backing], errno_name(ret));
			x->failed++;
			return;
		}
	}
	ret = run_gup_test(x, c, &got);
	ours = driver_outcome(x, c);
	ok = !ret && !strcmp(got, expected_outcome(&e)) &&
	     (!ours || !strcmp(ours, got));
	printf("%s %d - gup_test %s %s %s %s: %s, expected %s, our driver %s\n",
	       ok ? "ok" : "not ok", ++x->n, gup_method_name(c->method),
	       gup_flags_str(c->flags, flags, sizeof(flags)),
	       backing_name(c->backing), state_name(c->state),
	       ret ? errno_name(ret) : got, expected_outcome(&e),
	       ours ? ours : "(no matrix row)");
	if (!ok) {
		printf("# reason for the expectation: %s\n", e.reason);
		x->failed++;
	}
}

static int parse_args(struct xcheck *x, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "gup-test", required_argument, NULL, 'g' },
		{ "tsv", required_argument, NULL, 't' },
		{ "foll-longterm", required_argument, NULL, 'l' },
		{ "ext4-dir", required_argument, NULL, 'e' },
		{ "tmpfs-dir", required_argument, NULL, 'm' },
		{ "ramfs-dir", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ext4 = "/mnt/ext4", *tmpfs = "/tmp", *ramfs = "/mnt/ramfs";
	static char paths[3][4096];
	char *end;
	int opt;

	x->foll_longterm = 0x10000;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			x->policy = policy_lookup(optarg);
			if (!x->policy)
				return usage_error("xcheck", "unknown policy '%s' (known: %s)",
						   optarg, policy_names());
			break;
		case 'g':
			x->gup_test = optarg;
			break;
		case 't':
			x->tsv = optarg;
			break;
		case 'l':
			x->foll_longterm = strtoul(optarg, &end, 0);
			if (*end || !x->foll_longterm)
				return usage_error("xcheck", "bad --foll-longterm '%s'", optarg);
			break;
		case 'e':
			ext4 = optarg;
			break;
		case 'm':
			tmpfs = optarg;
			break;
		case 'r':
			ramfs = optarg;
			break;
		case 'h':
			cmd_xcheck_help(stdout);
			return -1;
		default:
			return usage_error("xcheck", "unknown option");
		}
	}
	if (optind < argc)
		return usage_error("xcheck", "unexpected argument '%s'", argv[optind]);
	if (!x->policy || !x->gup_test)
		return usage_error("xcheck", "--policy and --gup-test are required");
	snprintf(paths[0], sizeof(paths[0]), "%s/gup-xcheck.dat", ext4);
	snprintf(paths[1], sizeof(paths[1]), "%s/gup-xcheck.dat", tmpfs);
	snprintf(paths[2], sizeof(paths[2]), "%s/gup-xcheck.dat", ramfs);
	x->dirs[BACKING_EXT4_SHARED] = paths[0];
	x->dirs[BACKING_EXT4_PRIVATE] = paths[0];
	x->dirs[BACKING_TMPFS] = paths[1];
	x->dirs[BACKING_RAMFS] = paths[2];
	return 0;
}

int cmd_xcheck(int argc, char **argv)
{
	struct xcheck x = { 0 };
	struct cell c;
	unsigned int i;
	int ret = parse_args(&x, argc, argv);

	if (ret)
		return ret < 0 ? GUPCTL_EXIT_OK : ret;
	if (access(x.gup_test, X_OK))
		return usage_error("xcheck", "%s: %s: build it from the kernel tree",
				   x.gup_test, errno_name(-errno));
	if (x.tsv) {
		x.matrix = calloc(1, sizeof(*x.matrix));
		if (!x.matrix)
			return usage_error("xcheck", "out of memory (ENOMEM)");
		ret = matrix_read_tsv(x.tsv, x.matrix, "xcheck");
		if (ret)
			return ret;
	}
	printf("TAP version 13\n# gup_test cross-check\n");
	for (i = 0; i < MATRIX_NR_CELLS; i++) {
		matrix_cell(i, &c);
		if (expressible(&c))
			check_cell(&x, &c);
	}
	for (i = 0; i < BACKING_COUNT; i++)
		if (x.dirs[i])
			unlink(x.dirs[i]);
	printf("1..%d\n# %d cells cross-checked, %d disagree\n", x.n, x.n, x.failed);
	return x.failed ? GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK;
}
