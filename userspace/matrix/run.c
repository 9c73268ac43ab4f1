// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl matrix: run every cell of the GUP matrix (backing x state x method
 * x flags) on fresh memory, each against the outcome a GUP policy expects.
 * KTAP on stdout, a marker per cell on /dev/kmsg; the cells as JSON on
 * request (matrix/json.h).  The guide: docs/gupctl.md, "gupctl matrix".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/kernel.h"
#include "lib/kmsg.h"
#include "lib/mounts.h"
#include "lib/options.h"
#include "lib/target.h"
#include "lib/util.h"
#include "matrix/dirs.h"
#include "matrix/json.h"
#include "matrix/run.h"
#include "model/cell.h"
#include "model/detect.h"
#include "model/policy.h"

#define MATRIX_FILL_BYTE	0x5a	/* what a cell's file is filled with */

/* ---- Options ---- */

struct matrix_opts {
	const char *flavour;
	const char *policy;
	policy_fn expect;		/* NULL: --policy none */
	const char *dir[MATRIX_NR_DIRS];
	const char *json;
	bool expect_only;
	bool quick;
};

static const char * const matrix_usage[] = {
	"gupctl matrix --flavour NAME --policy POLICY [OPTIONS]",
	NULL
};

/* 0: options valid; GOPT_HELP: help printed; otherwise an exit code. */
static int parse_matrix_opts(int argc, char **argv, struct matrix_opts *o)
{
	unsigned int d;
	int ret, argi;
	const struct gopt opts[] = {
		GOPT_STRING(0, "flavour", &o->flavour, "NAME",
			    "the kernel flavour, recorded in the outputs (required)"),
		GOPT_STRING(0, "policy", &o->policy, "POLICY", matrix_policy_help()),
		GOPT_STRING(0, "ext4-dir", &o->dir[MATRIX_DIR_EXT4], "DIR", MATRIX_EXT4_HELP),
		GOPT_STRING(0, "tmpfs-dir", &o->dir[MATRIX_DIR_TMPFS], "DIR", MATRIX_TMPFS_HELP),
		GOPT_STRING(0, "ramfs-dir", &o->dir[MATRIX_DIR_RAMFS], "DIR", MATRIX_RAMFS_HELP),
		GOPT_STRING(0, "xfs-dir", &o->dir[MATRIX_DIR_XFS], "DIR", MATRIX_XFS_HELP),
		GOPT_STRING(0, "btrfs-dir", &o->dir[MATRIX_DIR_BTRFS], "DIR", MATRIX_BTRFS_HELP),
		GOPT_STRING(0, "json", &o->json, "FILE",
			    "write the cells as JSON (docs/results.md)"),
		GOPT_BOOL(0, "expect", &o->expect_only,
			  "print each cell's expected outcome and reason, run nothing"),
		GOPT_BOOL(0, "quick", &o->quick,
			  "only the backings of make check's subset; the rest say why not run"),
		GOPT_END()
	};

	memset(o, 0, sizeof(*o));
	matrix_dir_defaults(o->dir);
	ret = gopt_parse("matrix", argc, argv, opts, matrix_usage, &argi);
	if (ret)
		return ret;
	if (argi < argc)
		return usage_error("matrix", "unexpected argument '%s'", argv[argi]);
	if (!o->flavour)
		return usage_error("matrix", "no --flavour: name the kernel flavour (e.g. stock)");
	if (!matrix_valid_flavour(o->flavour))
		return usage_error("matrix",
				   "bad --flavour '%s': 1 to 63 letters, digits, '.', '_', '+', '@' or '-'",
				   o->flavour);
	if (!o->policy)
		return usage_error("matrix", "no --policy: give one of: %s, or %s",
				   policy_names(), POLICY_NONE);
	o->expect = policy_lookup(o->policy);
	if (!o->expect && !policy_is_none(o->policy))
		return usage_error("matrix", "unknown --policy '%s': give one of: %s, or %s",
				   o->policy, policy_names(), POLICY_NONE);
	for (d = 0; d < MATRIX_NR_DIRS; d++)
		if (!o->dir[d][0])
			return usage_error("matrix", "empty %s", matrix_dirs[d].option);
	return 0;
}

/* ---- One run ---- */

struct cell_result {
	struct cell cell;
	struct expectation exp;		/* computed before the pin */
	bool measured_only;		/* --policy none: no expectation */
	enum matrix_outcome measured;
	int err;			/* refusal, or setup failure; 0: none */
	bool setup_failed;
	const char *not_run;		/* its file system is not there: why */
	bool pin_attempted;
	__u32 nr_pinned;
	bool have_page;			/* @page is valid */
	struct gup_page_state page;
	int state_err;			/* GUP_PIN_IOC_STATE, 0 or -errno */
	int unpin_err;			/* GUP_PIN_IOC_UNPIN, 0 or -errno */
	long thp_kb;			/* THP backings: PMD-mapped kB, -errno */
	int warn_err;			/* re-arming WARN_ON_ONCE, 0 or -errno */
};

struct matrix_run {
	const struct matrix_opts *o;
	struct gupdev dev;
	char kernel[sizeof(((struct utsname *)0)->release)];
	const char *kernel_policy;	/* policy_detect()'s, NULL: none */
	char kernel_policy_why[256];	/* its evidence */
	size_t page;
	char *fill;			/* one page of MATRIX_FILL_BYTE */
	FILE *json;			/* --json, opened before the run */
	struct kmsg_marker marks;	/* the cells' markers on /dev/kmsg */
	struct cell_result *res;	/* MATRIX_NR_CELLS */
	/* a scratch file system that is not there: why, "" if it is */
	char dir_missing[MATRIX_NR_DIRS][256];
	unsigned int nr_ok, nr_mismatch, nr_setup_failed, nr_unpin_failed,
		     nr_skipped, nr_not_run, nr_measured_only;
	double wall;			/* seconds */
};

/* The memory of one cell. */
struct cell_target {
	struct target t;
	bool mapped;			/* t was set up */
	char path[PATH_MAX];		/* the file to unlink, "" if none */
	char err[PATH_MAX + 128];	/* why the setup failed */
};

/* Create @ct->path in @dir holding one page of MATRIX_FILL_BYTE. */
static int create_file(const struct matrix_run *r, const char *dir,
		       unsigned int n, struct cell_target *ct)
{
	size_t done = 0;
	ssize_t w;
	int fd, ret;

	if ((size_t)snprintf(ct->path, sizeof(ct->path), "%s/gupctl-matrix.%d.%u",
			     dir, (int)getpid(), n + 1) >= sizeof(ct->path)) {
		ct->path[0] = '\0';
		snprintf(ct->err, sizeof(ct->err), "directory name too long: %s", dir);
		return -ENAMETOOLONG;
	}
	fd = open(ct->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		snprintf(ct->err, sizeof(ct->err), "cannot create %s: %s",
			 ct->path, strerror(-ret));
		ct->path[0] = '\0';	/* not ours: do not unlink */
		return ret;
	}
	while (done < r->page) {
		w = write(fd, r->fill + done, r->page - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ret = w < 0 ? -errno : -EIO;
			snprintf(ct->err, sizeof(ct->err),
				 "cannot write one page to %s: %s", ct->path,
				 w < 0 ? strerror(-ret) : "short write");
			close(fd);
			return ret;
		}
		done += w;
	}
	if (close(fd) < 0) {
		ret = -errno;
		snprintf(ct->err, sizeof(ct->err), "cannot close %s: %s",
			 ct->path, strerror(-ret));
		return ret;
	}
	return 0;
}

static void cell_teardown(struct cell_target *ct)
{
	if (ct->mapped)
		target_teardown(&ct->t);
	ct->mapped = false;
	if (ct->path[0])
		unlink(ct->path);
	ct->path[0] = '\0';
}

/* 0, or -errno with the reason in ct->err; on failure nothing is left. */
static int cell_setup(const struct matrix_run *r, unsigned int n,
		      const struct cell *c, struct cell_target *ct)
{
	const struct backing_spec *b = backing_spec(c->backing);
	struct target_spec spec = {
		.kind = b->kind,
		.private = b->private,
		.read_only = b->read_only,
		.thp = b->thp,
		.offset = 0,
		.length = r->page,
		.prefault = state_prefault(c->state),
	};
	int d = matrix_backing_dir(c->backing);
	int ret;

	ct->mapped = false;
	ct->path[0] = '\0';
	ct->err[0] = '\0';
	if (spec.read_only && spec.prefault >= TARGET_PREFAULT_WRITE) {
		snprintf(ct->err, sizeof(ct->err),
			 "a PROT_READ mapping cannot be write-faulted from user space");
		return -EINVAL;
	}
	if (spec.kind == TARGET_FILE) {
		if (d < 0) {
			snprintf(ct->err, sizeof(ct->err),
				 "no directory option for file system magic %#lx",
				 b->fs_magic);
			return -EINVAL;
		}
		ret = create_file(r, r->o->dir[d], n, ct);
		if (ret) {
			cell_teardown(ct);
			return ret;
		}
		spec.path = ct->path;
	}
	/* Maps, then touches the page as the state says. */
	ret = target_setup(&ct->t, &spec);
	if (ret) {
		snprintf(ct->err, sizeof(ct->err), "%s", ct->t.err);
		cell_teardown(ct);
		return ret;
	}
	ct->mapped = true;
	return 0;
}

/* Pin, look, unpin (never dirtying: ext4 would WARN on a page without buffers). */
static void cell_pin(struct matrix_run *r, const struct cell_target *ct,
		     struct cell_result *res)
{
	struct gup_pin_req req;
	__u32 count = 1;
	int ret;

	res->pin_attempted = true;
	ret = gupdev_pin(&r->dev, ct->t.addr, r->page, res->cell.method,
			 res->cell.flags, &req);
	if (ret) {
		res->measured = MATRIX_REFUSED;
		res->err = -ret;
		return;
	}
	res->nr_pinned = req.nr_pinned;
	if (!req.nr_pinned) {
		res->measured = MATRIX_NONE_PINNED;
		return;
	}
	res->measured = MATRIX_PINNED;
	if (ct->t.spec.thp)
		res->thp_kb = target_thp_kb(&ct->t);
	res->state_err = gupdev_state(&r->dev, req.id, 0, &res->page, &count);
	res->have_page = !res->state_err && count == 1;
	res->unpin_err = gupdev_unpin(&r->dev, req.id, 0);
}

static bool cell_as_expected(const struct cell_result *res)
{
	if (res->measured_only)		/* ran: nothing to compare */
		return res->measured != MATRIX_NOT_RUN && !res->setup_failed;
	switch (res->exp.outcome) {
	case OUTCOME_PINNED:
		return res->measured == MATRIX_PINNED;
	case OUTCOME_REFUSED:
		return res->measured == MATRIX_REFUSED && res->err == res->exp.err;
	default:
		return res->measured == MATRIX_NOT_RUN && !res->setup_failed;
	}
}

static const char *measured_str(const struct cell_result *res)
{
	return res->measured == MATRIX_REFUSED ? errno_name(res->err) :
	       matrix_outcome_name(res->measured);
}

static const char *expected_str(const struct expectation *e)
{
	switch (e->outcome) {
	case OUTCOME_PINNED:
		return "pinned";
	case OUTCOME_REFUSED:
		return errno_name(e->err);
	default:
		return "not-run";
	}
}

static enum matrix_outcome expected_outcome(const struct expectation *e)
{
	switch (e->outcome) {
	case OUTCOME_PINNED:
		return MATRIX_PINNED;
	case OUTCOME_REFUSED:
		return MATRIX_REFUSED;
	default:
		return MATRIX_NOT_RUN;
	}
}

/*
 * A THP backing stands for GUP's huge-pmd paths only if the page came out
 * huge (THP can fall back to small pages, or be off).
 */
static bool cell_thp_missing(const struct cell_result *res)
{
	return backing_spec(res->cell.backing)->thp &&
	       res->measured == MATRIX_PINNED && res->thp_kb <= 0;
}

/* Did the cell go as expected (its KTAP "ok")? */
static bool cell_ok(const struct cell_result *res)
{
	return cell_as_expected(res) && !res->unpin_err &&
	       !cell_thp_missing(res) && !res->warn_err;
}

/* Print cell @n's KTAP result (and the diagnostics before it); count it. */
static void cell_report(struct matrix_run *r, unsigned int n,
			const struct cell_result *res, const char *setup_err)
{
	char desc[160], st[96];

	matrix_cell_str(n, desc, sizeof(desc));

	if (res->have_page)
		printf("# %u page: kind %s, fs %.16s, index %llu, mapcount %d, refcount %d, state %s\n",
		       n + 1, gup_page_kind_name(res->page.kind),
		       res->page.fs_name[0] ? res->page.fs_name : "-",
		       (unsigned long long)res->page.index, res->page.mapcount,
		       res->page.refcount,
		       gup_page_state_str(res->page.state, st, sizeof(st)));
	else if (res->state_err)
		printf("# %u GUP_PIN_IOC_STATE failed: %s (%s): page state not recorded\n",
		       n + 1, errno_name(res->state_err), strerror(-res->state_err));

	if (res->exp.outcome == OUTCOME_NOT_APPLICABLE && !res->setup_failed) {
		r->nr_skipped++;
		printf("ok %u %s # SKIP not applicable: %s\n", n + 1, desc,
		       res->exp.reason);
	} else if (res->not_run) {
		r->nr_not_run++;
		printf("not ok %u %s # not run: %s (expected %s: %s)\n", n + 1, desc,
		       res->not_run, expected_str(&res->exp), res->exp.reason);
	} else if (res->setup_failed) {
		r->nr_setup_failed++;
		printf("not ok %u %s # setup failed: %s: %s\n", n + 1, desc,
		       errno_name(res->err), setup_err);
	} else if (res->warn_err) {
		r->nr_setup_failed++;
		printf("not ok %u %s # setup failed: cannot re-arm WARN_ON_ONCE (%s): %s (%s)\n",
		       n + 1, desc, MATRIX_CLEAR_WARN_ONCE, errno_name(res->warn_err),
		       strerror(-res->warn_err));
	} else if (cell_thp_missing(res)) {
		r->nr_setup_failed++;
		printf("not ok %u %s # setup failed: the page is not a transparent huge page (%ld kB PMD-mapped): check /sys/kernel/mm/transparent_hugepage/{enabled,shmem_enabled}\n",
		       n + 1, desc, res->thp_kb);
	} else if (res->unpin_err) {
		r->nr_unpin_failed++;
		printf("not ok %u %s # unpin failed: %s (%s): the pin stays until gupctl exits; measured pinned, expected %s: %s\n",
		       n + 1, desc, errno_name(res->unpin_err),
		       strerror(-res->unpin_err), expected_str(&res->exp),
		       res->exp.reason);
	} else if (res->measured_only && cell_ok(res)) {
		/*
		 * KTAP's SKIP (Documentation/dev-tools/ktap.rst: "ok" or "not
		 * ok" with it; a skip does not affect the parent's result):
		 * the comparison is skipped, the cell ran, the outcome is the
		 * diagnostic.  Not XFAIL or TODO: nothing is expected.
		 */
		r->nr_measured_only++;
		printf("ok %u %s # SKIP " MATRIX_MEASURED_ONLY ": %s\n", n + 1, desc,
		       measured_str(res));
	} else if (res->measured_only) {
		r->nr_mismatch++;
		printf("not ok %u %s # measured %s: the cell did not run cleanly (no policy to compare)\n",
		       n + 1, desc, measured_str(res));
	} else if (cell_ok(res)) {
		r->nr_ok++;
		printf("ok %u %s # %s%s%s (expected: %s)\n", n + 1, desc,
		       measured_str(res), res->exp.by_driver ? " by the driver" : "",
		       res->exp.report.kind ? " + WARNING" : "", res->exp.reason);
	} else {
		r->nr_mismatch++;
		printf("not ok %u %s # MISMATCH measured %s, expected %s: %s\n",
		       n + 1, desc, measured_str(res), expected_str(&res->exp),
		       res->exp.reason);
	}
	fflush(stdout);
}

/* The cell's marker on the console; the first failure turns them off. */
/*
 * The policy's answer for a cell, as the matrix runs it: an answer decided
 * by the method and flags alone (the same WARN for every backing) runs
 * once, on the first backing and state; with @quick, a backing outside
 * the quick subset is not run.
 */
static struct expectation matrix_expect(policy_fn expect, const struct cell *c,
					bool quick)
{
	struct expectation e;
	const char *why;

	if (!expect) {
		/* --policy none: every cell user space can set up is measured */
		e = (struct expectation){ .outcome = OUTCOME_PINNED,
					  .reason = MATRIX_MEASURED_ONLY };
		if (!state_possible(c->backing, c->state, &why))
			e = (struct expectation){ .outcome = OUTCOME_NOT_APPLICABLE,
						  .reason = why };
	} else {
		e = expect(c);
	}

	if (e.flags_only && (c->backing != 0 || c->state != 0))
		return (struct expectation){
			.outcome = OUTCOME_NOT_APPLICABLE,
			.reason = "decided by the method and flags before any VMA is looked at: the cell of the same method and flags on the first backing and state runs it",
		};
	if (quick && e.outcome != OUTCOME_NOT_APPLICABLE &&
	    !matrix_quick_backing(c->backing))
		return (struct expectation){
			.outcome = OUTCOME_NOT_APPLICABLE,
			.reason = MATRIX_QUICK_REASON,
		};
	return e;
}

/*
 * WARN_ON_ONCE fires once per call site and boot: re-arm them all
 * (kernel/panic.c: clear_warn_once) so that the WARN this cell expects is
 * printed, after its marker.  0 or -errno.
 */
static int rearm_warn_once(void)
{
	int fd = open(MATRIX_CLEAR_WARN_ONCE, O_WRONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, "1", 1) != 1)
		ret = -(errno ?: EIO);
	close(fd);
	return ret;
}

static void run_cell(struct matrix_run *r, unsigned int n)
{
	struct cell_result *res = &r->res[n];
	struct cell_target ct;
	int ret;

	memset(res, 0, sizeof(*res));
	matrix_cell(n, &res->cell);
	res->exp = matrix_expect(r->o->expect, &res->cell, r->o->quick);
	res->measured_only = !r->o->expect &&
			     res->exp.outcome != OUTCOME_NOT_APPLICABLE;
	res->measured = MATRIX_NOT_RUN;
	/*
	 * A cell not run asks nothing of the kernel: no marker, and a report
	 * can only belong to a cell that ran (a quick run has 3400 such
	 * cells, each a console line under TCG).
	 */
	if (res->exp.outcome == OUTCOME_NOT_APPLICABLE) {
		cell_report(r, n, res, NULL);
		return;
	}
	/* nor does a cell whose file system is not there: a failure */
	ret = matrix_backing_dir(res->cell.backing);
	if (ret >= 0 && r->dir_missing[ret][0]) {
		res->not_run = r->dir_missing[ret];
		cell_report(r, n, res, NULL);
		return;
	}
	kmsg_marker_mark(&r->marks, n);

	ret = cell_setup(r, n, &res->cell, &ct);
	if (ret) {
		res->setup_failed = true;
		res->err = -ret;
		cell_report(r, n, res, ct.err);
		return;
	}
	if (res->exp.report.kind)
		res->warn_err = rearm_warn_once();
	if (!res->warn_err)
		cell_pin(r, &ct, res);
	cell_teardown(&ct);
	cell_report(r, n, res, NULL);
}

void matrix_run_one(struct gupdev *dev, const char *const *dir,
		    struct kmsg_marker *marks, unsigned int n, bool rearm,
		    struct matrix_one *out)
{
	struct matrix_opts o;
	struct matrix_run r;
	struct cell_result res;
	struct cell_target ct;
	unsigned int d;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&o, 0, sizeof(o));
	memset(&r, 0, sizeof(r));
	memset(&res, 0, sizeof(res));
	for (d = 0; d < MATRIX_NR_DIRS; d++)
		o.dir[d] = dir[d];
	r.o = &o;
	r.dev = *dev;
	r.page = getpagesize();
	r.fill = malloc(r.page);
	out->measured = MATRIX_NOT_RUN;
	if (!r.fill) {
		out->setup_failed = true;
		out->err = ENOMEM;
		snprintf(out->why, sizeof(out->why), "out of memory");
		return;
	}
	memset(r.fill, MATRIX_FILL_BYTE, r.page);
	matrix_cell(n, &res.cell);
	res.measured = MATRIX_NOT_RUN;
	kmsg_marker_mark(marks, n);
	ret = cell_setup(&r, n, &res.cell, &ct);
	if (!ret && rearm) {
		ret = rearm_warn_once();
		if (ret) {
			snprintf(ct.err, sizeof(ct.err), "cannot re-arm WARN_ON_ONCE (%s)",
				 MATRIX_CLEAR_WARN_ONCE);
			cell_teardown(&ct);
		}
	}
	if (ret) {
		out->setup_failed = true;
		out->err = -ret;
		snprintf(out->why, sizeof(out->why), "%.300s", ct.err);
		free(r.fill);
		return;
	}
	cell_pin(&r, &ct, &res);
	cell_teardown(&ct);
	out->measured = res.measured;
	out->err = res.measured == MATRIX_REFUSED ? res.err : 0;
	out->unpin_err = res.unpin_err;
	free(r.fill);
}

/* ---- Outputs ---- */

static void cell_record(const struct cell_result *res, struct mcell *mc)
{
	memset(mc, 0, sizeof(*mc));
	mc->cell = res->cell;
	mc->measured_only = res->measured_only;
	mc->expected = res->measured_only ? MATRIX_NOT_RUN : expected_outcome(&res->exp);
	if (res->exp.outcome == OUTCOME_REFUSED)
		snprintf(mc->exp_err, sizeof(mc->exp_err), "%s",
			 errno_name(res->exp.err));
	mc->reason = res->exp.reason;
	mc->why_not_run = res->not_run;
	mc->by_driver = res->exp.by_driver;
	mc->report = res->exp.report;
	mc->thp_kb = backing_spec(res->cell.backing)->thp &&
		     res->measured == MATRIX_PINNED ? res->thp_kb : -1;
	mc->measured = res->measured;
	if (res->measured == MATRIX_REFUSED || res->setup_failed)
		snprintf(mc->meas_err, sizeof(mc->meas_err), "%s",
			 errno_name(res->err));
	if (res->unpin_err)
		snprintf(mc->unpin_err, sizeof(mc->unpin_err), "%s",
			 errno_name(res->unpin_err));
	mc->match = cell_ok(res);
	mc->nr_pinned = res->pin_attempted ? (int)res->nr_pinned : -1;
	mc->have_page = res->have_page;
	mc->page = res->page;
}

static int write_json(struct matrix_run *r)
{
	json_t *cells = json_array(), *doc;
	struct mcell mc;
	unsigned int n;
	int ret;

	for (n = 0; n < MATRIX_NR_CELLS; n++) {
		cell_record(&r->res[n], &mc);
		json_array_append_new(cells, matrix_json_cell(n, &mc));
	}
	doc = json_pack("{s:s, s:s, s:s, s:s, s:{s:s?, s:s}, s:b, s:{s:f}, s:o}", "job", "matrix",
			"flavour", r->o->flavour, "policy", r->o->policy,
			"kernel_release", r->kernel,
			"kernel_policy", "name", r->kernel_policy,
			"evidence", r->kernel_policy_why, "quick", r->o->quick,
			"wall_seconds", "matrix", r->wall, "cells", cells);
	ret = jsonfile_dump(doc, r->json, r->o->json, "matrix");
	r->json = NULL;
	json_decref(doc);
	return ret;
}

/* ---- Checks before the run ---- */

/*
 * Is each directory there, on the file system its cells are named after?
 * One of the root image's that is not is a usage error; a scratch one's
 * cells are not run, each a failure that says why (@r->dir_missing).
 */
static int check_dirs(struct matrix_run *r)
{
	const struct matrix_opts *o = r->o;
	char why[sizeof(r->dir_missing[0])];
	unsigned int d;

	for (d = 0; d < MATRIX_NR_DIRS; d++) {
		if (!lab_fs_ready(o->dir[d], matrix_dirs[d].fs, matrix_dirs[d].magic,
				  why, sizeof(why)))
			continue;
		if (matrix_dirs[d].scratch) {
			snprintf(r->dir_missing[d], sizeof(r->dir_missing[d]), "%s", why);
			continue;
		}
		fprintf(stderr, "gupctl matrix: %s %s: %s: mount %s there or give another %s\n",
			matrix_dirs[d].option, o->dir[d], why, matrix_dirs[d].fs,
			matrix_dirs[d].option);
		return GUPCTL_EXIT_USAGE;
	}
	return 0;
}

/*
 * The running kernel's GUP policy, read from the kernel (model/detect.c),
 * for the KTAP header and the document: the host compares it with the
 * flavour table's (gupctl report --collect), which fails a mislabelled
 * flavour.
 */
static void detect_kernel_policy(struct matrix_run *r)
{
	struct kernel_facts kf;

	kernel_facts_read(&kf);
	r->kernel_policy = policy_detect(&kf, r->kernel_policy_why,
					 sizeof(r->kernel_policy_why));
	printf("# kernel GUP policy: %s (%s)\n", r->kernel_policy ?: "unknown",
	       r->kernel_policy_why);
	if (!r->o->expect)
		printf("# --policy %s: every cell is measured, none compared (gupctl detect matched no policy); WARN_ON_ONCE is not re-armed: a report belongs to the first cell that reaches its site\n",
		       POLICY_NONE);
	else if (!r->kernel_policy || strcmp(r->kernel_policy, r->o->policy))
		printf("# --policy %s is not the kernel's (%s): a mislabelled flavour, expect mismatches\n",
		       r->o->policy, r->kernel_policy ?: "unknown");
}

static int run_matrix(struct matrix_run *r)
{
	unsigned int n;
	double start;
	int status;

	printf("KTAP version 1\n");
	printf("# gup-lab matrix flavour=%s policy=%s kernel=%s\n",
	       r->o->flavour, r->o->policy, r->kernel);
	printf("1..%u\n", MATRIX_NR_CELLS);
	detect_kernel_policy(r);
	printf("# dirs:");
	for (n = 0; n < MATRIX_NR_DIRS; n++)
		printf("%s %s %s", n ? "," : "", matrix_dirs[n].fs, r->o->dir[n]);
	printf("\n");
	for (n = 0; n < MATRIX_NR_DIRS; n++)
		if (r->dir_missing[n][0])
			printf("# %s: its cells are not run, each a failure: %s\n",
			       matrix_dirs[n].fs, r->dir_missing[n]);
	if (r->o->quick)
		printf("# quick: only the backings of make check's subset run; the others are skipped as not run (make matrix runs them)\n");
	fflush(stdout);

	start = now_seconds();
	for (n = 0; n < MATRIX_NR_CELLS; n++)
		run_cell(r, n);
	r->wall = now_seconds() - start;
	kmsg_marker_mark(&r->marks, KMSG_MARK_END);

	printf("# matrix: %u cells: %u as expected, %u mismatches, %u setup failures, %u unpin failures, %u not run (no file system), %u not applicable (not run)",
	       MATRIX_NR_CELLS, r->nr_ok, r->nr_mismatch, r->nr_setup_failed,
	       r->nr_unpin_failed, r->nr_not_run, r->nr_skipped);
	if (!r->o->expect)
		printf(", %u " MATRIX_MEASURED_ONLY, r->nr_measured_only);
	printf("\n# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n",
	       r->nr_ok, r->nr_mismatch + r->nr_setup_failed + r->nr_unpin_failed +
	       r->nr_not_run, r->nr_skipped + r->nr_measured_only);
	printf("# wall time: %.1f s\n", r->wall);
	fflush(stdout);

	if (r->json) {
		status = write_json(r);
		if (status)
			return status;
	}
	return r->nr_mismatch || r->nr_setup_failed || r->nr_unpin_failed ||
	       r->nr_not_run ? GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK;
}

/* --expect: the policy's answer for every cell, no device needed. */
static int print_expectations(const struct matrix_opts *o)
{
	char desc[160];
	struct cell c;
	unsigned int n;

	for (n = 0; n < MATRIX_NR_CELLS; n++) {
		struct expectation e;

		matrix_cell(n, &c);
		e = matrix_expect(o->expect, &c, o->quick);
		printf("%u\t%s\t%s%s%s\t%s\n", n + 1,
		       matrix_cell_str(n, desc, sizeof(desc)),
		       !o->expect && e.outcome != OUTCOME_NOT_APPLICABLE ? "measured" :
		       expected_str(&e),
		       e.by_driver ? " (driver)" : "", e.report.kind ? " + WARN" : "",
		       e.reason);
	}
	return GUPCTL_EXIT_OK;
}

int cmd_matrix(int argc, char **argv)
{
	struct matrix_opts o;
	struct matrix_run r;
	struct utsname u;
	int ret;

	ret = parse_matrix_opts(argc, argv, &o);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (o.expect_only)
		return print_expectations(&o);

	memset(&r, 0, sizeof(r));
	r.o = &o;
	r.marks = (struct kmsg_marker){ .step = "matrix", .on = true };
	r.page = getpagesize();
	if (uname(&u) == 0)
		snprintf(r.kernel, sizeof(r.kernel), "%s", u.release);
	else
		snprintf(r.kernel, sizeof(r.kernel), "unknown");

	ret = gupctl_open_device(&r.dev, "matrix");
	if (ret)
		return ret;
	ret = check_dirs(&r);
	if (ret)
		goto out_dev;

	ret = GUPCTL_EXIT_USAGE;
	r.res = calloc(MATRIX_NR_CELLS, sizeof(*r.res));
	r.fill = malloc(r.page);
	if (!r.res || !r.fill) {
		fprintf(stderr, "gupctl matrix: out of memory (ENOMEM)\n");
		goto out_mem;
	}
	memset(r.fill, MATRIX_FILL_BYTE, r.page);
	if (o.json) {
		r.json = jsonfile_open(o.json, "matrix");
		if (!r.json)
			goto out_mem;
	}

	ret = run_matrix(&r);
	if (r.json)
		fclose(r.json);
out_mem:
	free(r.fill);
	free(r.res);
out_dev:
	gupdev_close(&r.dev);
	return ret;
}
