// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl xcheck: cross-check the matrix with the kernel's own gup_test
 * (tools/testing/selftests/vm/gup_test, CONFIG_GUP_TEST) for the cells its
 * options can express, against the policy's expectation and, given the
 * matrix's JSON, against what our driver measured for the same cell.  The
 * guide: docs/gupctl.md, "gupctl xcheck".
 *
 * gup_test maps 1 MiB (2 MiB for hugetlb, 4 MiB for THP) and pins it a
 * page per call; a refused pin shows as "truncated (size: 0)", not as an
 * ioctl error.  The cells it cannot express are counted per reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/kmsg.h"
#include "lib/mounts.h"
#include "lib/options.h"
#include "lib/util.h"
#include "matrix/dirs.h"
#include "matrix/json.h"
#include "matrix/xcheck.h"
#include "model/cell.h"
#include "model/policy.h"

#define XCHECK_FILE_SIZE	(1 << 20)
#define XCHECK_MAX_ARGS		20

/* Why a cell is not cross-checked (not_checked()), in the order tested. */
enum xcheck_skip {
	SKIP_NO_POLICY,
	SKIP_NOT_APPLICABLE,
	SKIP_QUICK,
	SKIP_NO_FS,
	SKIP_DRIVER,
	SKIP_WARN,
	SKIP_ALLOW_BROKEN,
	SKIP_METHOD,
	SKIP_READ_ONLY,
	SKIP_READ_FAULTED,
	SKIP_WRITTEN_BACK,
	SKIP_TOUCH_FAST,
	SKIP_ZERO_PAGE,
	SKIP_TOUCH_STALE,
	SKIP_NO_TOUCH,
	SKIP_COUNT
};

static const char * const skip_reasons[SKIP_COUNT] = {
	[SKIP_NO_POLICY]	= "policy none: no expectation to check gup_test against (the matrix measured every cell, none compared); nor does gup_test run, so that no WARN of its own lands on the console",
	[SKIP_NOT_APPLICABLE]	= "not applicable: the matrix does not run it either",
	[SKIP_QUICK]		= "not in the quick subset: the matrix (--quick, make check) did not run it; make matrix checks it",
	[SKIP_NO_FS]		= "its scratch file system (xfs, btrfs) is not there: the matrix fails its cells, saying why",
	[SKIP_DRIVER]		= "refused by our driver before GUP is called: nothing of the kernel's to compare",
	[SKIP_WARN]		= "the policy expects a WARN_ON_ONCE: the matrix re-arms and checks it, gup_test would find it spent",
	[SKIP_ALLOW_BROKEN]	= "FOLL_ALLOW_BROKEN_FILE_MAPPING: gup_test has no option for it (only the gup-v1 kernel defines it)",
	[SKIP_METHOD]		= "the remote and unlocked methods: gup_test has no command for them",
	[SKIP_READ_ONLY]	= "PROT_READ mappings: gup_test maps PROT_READ|PROT_WRITE",
	[SKIP_READ_FAULTED]	= "read-faulted: gup_test writes each page, or lets GUP fault it in (-z)",
	[SKIP_WRITTEN_BACK]	= "written-back: gup_test cannot fsync() between its write fault and its pin",
	[SKIP_TOUCH_FAST]	= "untouched with a fast method: -z adds FOLL_TOUCH, which 6.1's internal_get_user_pages_fast() rejects with WARN_ON_ONCE and -EINVAL (its gup_flags mask; the line is each series' own)",
	[SKIP_ZERO_PAGE]	= "a read pin of untouched anonymous memory: the zero page, which 6.1.192 does not pin, so gup_test's verify_dma_pinned() WARNs (mm/gup_test.c:51, in every 6.1 flavour's tree: patches/gup-test-longterm adds a line above it)",
	[SKIP_NO_TOUCH]		= "untouched: this gup_test has no -z (7.3's tools/testing/selftests/mm/gup_test.c dropped its FOLL_TOUCH and answers -z 'Wrong argument', :175-176), and it writes each page it does not let GUP fault in",
	[SKIP_TOUCH_STALE]	= "untouched pins: gup_test -z passes its own copy of FOLL_TOUCH (0x02, tools/testing/selftests/mm/gup_test.c:22), which is not this kernel's (6.12: FOLL_TOUCH is 1 << 16, mm/internal.h:1334; 0x02 is FOLL_GET): a pin WARNs in is_valid_gup_args() (mm/gup.c:2620) and fails",
};

struct xcheck {
	const char *policy_name;
	policy_fn policy;		/* NULL: --policy none */
	const char *gup_test;		/* path of the gup_test binary */
	const char *matrix_path;	/* our matrix's JSON, or NULL */
	struct mflavour *matrix;	/* that JSON, read once */
	bool quick;			/* --quick: the quick subset's backings */
	const char *json_path;		/* --json, or NULL */
	FILE *json;
	json_t *cells;			/* what --json gets */
	const char *dir[MATRIX_NR_DIRS];/* --ext4-dir etc. */
	const char *file[BACKING_COUNT];/* file for file backings */
	bool no_fs[BACKING_COUNT];	/* its scratch file system is not there */
	unsigned int foll_longterm;	/* FOLL_LONGTERM of the running kernel */
	unsigned int foll_force;	/* FOLL_FORCE of the running kernel */
	unsigned int foll_touch;	/* FOLL_TOUCH of the running kernel */
	unsigned int tool_foll_touch;	/* what gup_test -z passes as FOLL_TOUCH */
	struct kmsg_marker marks;	/* the cells' markers on /dev/kmsg */
	int n, failed;
	unsigned int nr_skipped[SKIP_COUNT];
};

static const char * const xcheck_usage[] = {
	"gupctl xcheck --policy POLICY --gup-test PATH [OPTIONS]",
	NULL
};

/* 0: options valid; GOPT_HELP: help printed; otherwise an exit code. */
static int parse_args(struct xcheck *x, int argc, char **argv)
{
	static char paths[MATRIX_NR_DIRS][4096];
	char why[256];
	unsigned int i;
	int ret, argi, d;
	const struct gopt opts[] = {
		GOPT_STRING(0, "policy", &x->policy_name, "POLICY", matrix_policy_help()),
		GOPT_STRING(0, "gup-test", &x->gup_test, "PATH",
			    "gup_test built from the running kernel's tree (required)"),
		GOPT_STRING(0, "matrix", &x->matrix_path, "FILE",
			    "this boot's gupctl matrix --json: compare with our driver"),
		GOPT_BOOL(0, "quick", &x->quick,
			  "only the backings of gupctl matrix --quick (a quick --matrix implies it)"),
		GOPT_STRING(0, "json", &x->json_path, "FILE",
			    "write the cross-check as JSON"),
		GOPT_UINT(0, "foll-longterm", &x->foll_longterm, "HEX",
			  "FOLL_LONGTERM of the running kernel, for gup_test -F (0x10000)"),
		GOPT_UINT(0, "foll-force", &x->foll_force, "HEX",
			  "FOLL_FORCE of the running kernel, for gup_test -F (0x10)"),
		GOPT_UINT(0, "foll-touch", &x->foll_touch, "HEX",
			  "FOLL_TOUCH of the running kernel (0x02)"),
		GOPT_UINT(0, "tool-foll-touch", &x->tool_foll_touch, "HEX",
			  "gup_test -z's FOLL_TOUCH (0x02; not the kernel's or 0, no -z: skip)"),
		GOPT_STRING(0, "ext4-dir", &x->dir[MATRIX_DIR_EXT4], "DIR", MATRIX_EXT4_HELP),
		GOPT_STRING(0, "tmpfs-dir", &x->dir[MATRIX_DIR_TMPFS], "DIR", MATRIX_TMPFS_HELP),
		GOPT_STRING(0, "ramfs-dir", &x->dir[MATRIX_DIR_RAMFS], "DIR", MATRIX_RAMFS_HELP),
		GOPT_STRING(0, "xfs-dir", &x->dir[MATRIX_DIR_XFS], "DIR", MATRIX_XFS_HELP),
		GOPT_STRING(0, "btrfs-dir", &x->dir[MATRIX_DIR_BTRFS], "DIR", MATRIX_BTRFS_HELP),
		GOPT_END()
	};

	/* 6.1's include/linux/mm.h:3100 and 3091; the job reads the tree's. */
	x->foll_longterm = 0x10000;
	x->foll_force = 0x10;
	x->foll_touch = 0x02;
	x->tool_foll_touch = 0x02;
	matrix_dir_defaults(x->dir);
	ret = gopt_parse("xcheck", argc, argv, opts, xcheck_usage, &argi);
	if (ret)
		return ret;
	if (argi < argc)
		return usage_error("xcheck", "unexpected argument '%s'", argv[argi]);
	if (!x->policy_name || !x->gup_test)
		return usage_error("xcheck", "--policy and --gup-test are required");
	x->policy = policy_lookup(x->policy_name);
	if (!x->policy && !policy_is_none(x->policy_name))
		return usage_error("xcheck", "unknown --policy '%s': give one of: %s, or %s",
				   x->policy_name, policy_names(), POLICY_NONE);
	if (!x->foll_longterm)
		return usage_error("xcheck",
				   "bad --foll-longterm 0: give the kernel's FOLL_LONGTERM");
	if (!x->foll_force)
		return usage_error("xcheck",
				   "bad --foll-force 0: give the kernel's FOLL_FORCE");
	for (d = 0; d < MATRIX_NR_DIRS; d++) {
		if (!x->dir[d][0])
			return usage_error("xcheck", "empty %s", matrix_dirs[d].option);
		if ((size_t)snprintf(paths[d], sizeof(paths[d]), "%s/gup-xcheck.dat",
				     x->dir[d]) >= sizeof(paths[d]))
			return usage_error("xcheck", "%s too long", matrix_dirs[d].option);
	}
	for (i = 0; i < BACKING_COUNT; i++) {
		d = matrix_backing_dir(i);
		x->file[i] = d < 0 ? NULL : paths[d];
		x->no_fs[i] = d >= 0 && matrix_dirs[d].scratch &&
			      lab_fs_ready(x->dir[d], matrix_dirs[d].fs, matrix_dirs[d].magic,
					   why, sizeof(why));
	}
	return 0;
}

/* gup_test's command for a method and our flags, or NULL: it has none. */
static const char *gup_test_cmd(unsigned int method, unsigned int flags)
{
	switch (method) {
	case GUP_PIN_METHOD_PIN:
		return flags & GUP_PIN_FLAG_LONGTERM ? "-L" : "-b";
	case GUP_PIN_METHOD_PIN_FAST:
		return "-a";
	case GUP_PIN_METHOD_GET:
		return "-U";
	case GUP_PIN_METHOD_GET_FAST:
		return "-u";
	}
	return NULL;
}

/*
 * Why gup_test cannot run cell @c, whose expectation is @e; SKIP_COUNT:
 * it can.  gup_test maps PROT_READ|PROT_WRITE and either writes each page
 * or passes -z (FOLL_TOUCH: GUP faults the page in).  -z with a fast
 * method trips 6.1's GUP-fast flag check; a read pin of untouched
 * anonymous memory gets the zero page, which 6.1.192 no longer pins
 * (try_grab_folio() returns early for it), so gup_test's
 * verify_dma_pinned() WARNs "is NOT dma-pinned".
 */
static enum xcheck_skip not_checked(const struct xcheck *x, const struct cell *c,
				    const struct expectation *e)
{
	const struct backing_spec *b = backing_spec(c->backing);

	if (e->outcome == OUTCOME_NOT_APPLICABLE)
		return SKIP_NOT_APPLICABLE;
	/* --quick, or --matrix of a quick run: only its backings were run */
	if ((x->quick || (x->matrix && x->matrix->quick)) &&
	    !matrix_quick_backing(c->backing))
		return SKIP_QUICK;
	if (x->no_fs[c->backing])
		return SKIP_NO_FS;
	if (e->by_driver)
		return SKIP_DRIVER;
	if (e->report.kind)
		return SKIP_WARN;
	if (c->flags & GUP_PIN_FLAG_ALLOW_BROKEN)
		return SKIP_ALLOW_BROKEN;
	if (!gup_test_cmd(c->method, c->flags))
		return SKIP_METHOD;
	if (b->read_only)
		return SKIP_READ_ONLY;
	if (c->state == STATE_READ)
		return SKIP_READ_FAULTED;
	if (c->state == STATE_WRITEBACK)
		return SKIP_WRITTEN_BACK;
	/*
	 * Where the tool's FOLL_TOUCH is the kernel's (6.1), GUP-fast rejects
	 * it; where it is not (6.12: 0x02 is FOLL_GET), a get_user_pages*()
	 * call accepts FOLL_GET (mm/gup.c:2744, 3552) and only a pin fails.
	 */
	if (c->state == STATE_NONE && !x->tool_foll_touch)
		return SKIP_NO_TOUCH;
	if (c->state == STATE_NONE && x->foll_touch == x->tool_foll_touch &&
	    method_is_fast(c->method))
		return SKIP_TOUCH_FAST;
	if (c->state == STATE_NONE && x->foll_touch != x->tool_foll_touch &&
	    method_is_pin(c->method))
		return SKIP_TOUCH_STALE;
	if (c->state == STATE_NONE && method_is_pin(c->method) &&
	    b->kind == TARGET_ANON && !(c->flags & GUP_PIN_FLAG_WRITE))
		return SKIP_ZERO_PAGE;
	return SKIP_COUNT;
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
	char fflags[32], size[8], line[512];
	unsigned int foll = 0;
	int argc = 0, pipefd[2], status;
	bool truncated = false, partial = false;
	FILE *p;
	pid_t pid;

	argv[argc++] = x->gup_test;
	argv[argc++] = gup_test_cmd(c->method, c->flags);
	/* -F sets the raw FOLL_* bits (then -w adds FOLL_WRITE, -z FOLL_TOUCH). */
	if ((c->flags & GUP_PIN_FLAG_LONGTERM) && c->method != GUP_PIN_METHOD_PIN)
		foll |= x->foll_longterm;	/* -L adds it for pin_user_pages */
	if (c->flags & GUP_PIN_FLAG_FORCE)
		foll |= x->foll_force;
	if (foll) {
		snprintf(fflags, sizeof(fflags), "%#x", foll);
		argv[argc++] = "-F";
		argv[argc++] = fflags;
	}
	argv[argc++] = c->flags & GUP_PIN_FLAG_WRITE ? "-w" : "-W";
	if (c->state == STATE_NONE)
		argv[argc++] = "-z";	/* GUP faults the pages in */
	/* A THP needs a 2 MiB aligned range: 4 MiB holds one wherever it lands. */
	snprintf(size, sizeof(size), "%d", c->backing == BACKING_HUGETLB ? 2 :
		 backing_spec(c->backing)->thp ? 4 : 1);
	argv[argc++] = "-m";
	argv[argc++] = size;
	if (c->backing == BACKING_HUGETLB)
		argv[argc++] = "-H";
	if (backing_spec(c->backing)->thp)
		argv[argc++] = "-t";	/* MADV_HUGEPAGE */
	/* The backing's mapping; but gup_test's -H is private anonymous memory. */
	if (!backing_spec(c->backing)->private && c->backing != BACKING_HUGETLB)
		argv[argc++] = "-S";
	if (x->file[c->backing]) {
		argv[argc++] = "-f";
		argv[argc++] = x->file[c->backing];
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

/* Our driver's measured outcome for cell @idx in the matrix JSON, or NULL. */
static const char *driver_outcome(const struct xcheck *x, unsigned int idx)
{
	const struct mcell *mc;

	if (!x->matrix)
		return NULL;
	mc = &x->matrix->cells[idx];
	return mc->present ? matrix_outcome_name(mc->measured) : NULL;
}

static const char *expected_outcome(const struct expectation *e)
{
	return e->outcome == OUTCOME_PINNED ? "pinned" : "refused";
}

/* The cell's marker on the console; the first failure turns them off. */
/* One entry of --json's "cells". */
static void record(struct xcheck *x, unsigned int idx, const char *got,
		   const char *err, const struct expectation *e,
		   const char *ours, bool ok)
{
	json_t *j;

	if (!x->cells)
		return;
	j = matrix_json_cell_id(idx);
	json_object_set_new(j, "gup_test", got ? json_string(got) : json_null());
	json_object_set_new(j, "error", err ? json_string(err) : json_null());
	json_object_set_new(j, "expected", json_string(expected_outcome(e)));
	json_object_set_new(j, "matrix", ours ? json_string(ours) : json_null());
	json_object_set_new(j, "agree", json_boolean(ok));
	json_array_append_new(x->cells, j);
}

static void check_cell(struct xcheck *x, unsigned int idx)
{
	const char *got = "error", *ours;
	enum xcheck_skip skip;
	struct expectation e;
	char desc[160];
	struct cell c;
	bool ok;
	int ret;

	matrix_cell(idx, &c);
	if (!x->policy) {
		x->nr_skipped[SKIP_NO_POLICY]++;
		return;
	}
	e = x->policy(&c);
	skip = not_checked(x, &c, &e);
	if (skip != SKIP_COUNT) {
		x->nr_skipped[skip]++;
		return;
	}
	kmsg_marker_mark(&x->marks, idx);
	if (x->file[c.backing]) {
		ret = make_file(x->file[c.backing]);
		if (ret) {
			printf("not ok %d - %s: cannot create: %s\n", ++x->n,
			       x->file[c.backing], errno_name(ret));
			record(x, idx, NULL, errno_name(ret), &e,
			       driver_outcome(x, idx), false);
			x->failed++;
			return;
		}
	}
	ret = run_gup_test(x, &c, &got);
	ours = driver_outcome(x, idx);
	ok = !ret && !strcmp(got, expected_outcome(&e)) &&
	     (!ours || !strcmp(ours, got));
	printf("%s %d - gup_test %s: %s, expected %s", ok ? "ok" : "not ok",
	       ++x->n, matrix_cell_str(idx, desc, sizeof(desc)),
	       ret ? errno_name(ret) : got, expected_outcome(&e));
	if (x->matrix)
		printf(", our driver %s", ours ? ours : "(no matrix row)");
	printf("\n");
	record(x, idx, ret ? NULL : got, ret ? errno_name(ret) : NULL, &e,
	       ours, ok);
	if (!ok) {
		printf("# reason for the expectation: %s\n", e.reason);
		x->failed++;
	}
}

/* 0, or an exit code: the --matrix document, of this policy. */
static int read_matrix(struct xcheck *x)
{
	int ret;

	x->matrix = calloc(1, sizeof(*x->matrix));
	if (!x->matrix)
		return usage_error("xcheck", "out of memory (ENOMEM)");
	ret = matrix_json_load(x->matrix_path, x->matrix, "xcheck");
	if (!ret && strcmp(x->matrix->policy, x->policy_name))
		ret = usage_error("xcheck", "--matrix %s is of policy %s, not --policy %s",
				  x->matrix_path, x->matrix->policy, x->policy_name);
	return ret;
}

/* The cells not cross-checked, per reason: TAP comments or --json's list. */
static json_t *not_checked_report(const struct xcheck *x)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; i < SKIP_COUNT; i++) {
		if (!x->nr_skipped[i])
			continue;
		printf("# not cross-checked: %u cells: %s\n", x->nr_skipped[i],
		       skip_reasons[i]);
		json_array_append_new(a, json_pack("{s:s, s:i}", "reason", skip_reasons[i],
						   "cells", x->nr_skipped[i]));
	}
	return a;
}

static int write_json(struct xcheck *x, double wall, json_t *not_checked)
{
	char fl[32], ff[32];
	json_t *doc;

	snprintf(fl, sizeof(fl), "%#x", x->foll_longterm);
	snprintf(ff, sizeof(ff), "%#x", x->foll_force);
	doc = json_pack("{s:s, s:s, s:s, s:s, s:{s:f}, s:i, s:i, s:O, s:O}",
			"policy", x->policy_name, "gup_test", x->gup_test,
			"foll_longterm", fl, "foll_force", ff,
			"wall_seconds", "xcheck", wall,
			"checked", x->n, "disagree", x->failed,
			"cells", x->cells, "not_checked", not_checked);
	return jsonfile_dump(doc, x->json, x->json_path, "xcheck");
}

int cmd_xcheck(int argc, char **argv)
{
	struct xcheck x = { .marks = { .step = "xcheck", .on = true } };
	json_t *skipped;
	unsigned int i;
	double start;
	int status, ret = parse_args(&x, argc, argv);

	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (access(x.gup_test, X_OK))
		return usage_error("xcheck", "%s: %s: build it from the kernel tree",
				   x.gup_test, errno_name(-errno));
	if (x.matrix_path) {
		ret = read_matrix(&x);
		if (ret)
			goto out;
	}
	if (x.json_path) {
		ret = GUPCTL_EXIT_USAGE;
		x.cells = json_array();
		x.json = jsonfile_open(x.json_path, "xcheck");
		if (!x.cells || !x.json)
			goto out;
	}
	printf("TAP version 13\n# gup_test cross-check\n");
	start = now_seconds();
	for (i = 0; i < MATRIX_NR_CELLS; i++)
		check_cell(&x, i);
	kmsg_marker_mark(&x.marks, KMSG_MARK_END);
	for (i = 0; i < BACKING_COUNT; i++)
		if (x.file[i] && !x.no_fs[i])
			unlink(x.file[i]);
	printf("1..%d\n# %d cells cross-checked, %d disagree\n", x.n, x.n, x.failed);
	skipped = not_checked_report(&x);
	ret = x.failed ? GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK;
	if (x.json) {
		status = write_json(&x, now_seconds() - start, skipped);
		x.json = NULL;		/* closed */
		ret = status ?: ret;
	}
	json_decref(skipped);
out:
	if (x.json)
		fclose(x.json);
	json_decref(x.cells);
	if (x.matrix)
		matrix_json_free(x.matrix);
	free(x.matrix);
	return ret;
}
