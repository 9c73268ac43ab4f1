/* SPDX-License-Identifier: GPL-2.0 */
/*
 * longterm: the mm selftests' gup_longterm (6.12's
 * tools/testing/selftests/mm/gup_longterm.c, run unmodified in the guest on
 * every flavour, and a 7.3 kernel's own beside it) as the lab sees it.  Each of its tests is a long-term pin of one page
 * (or huge page) that the matrix also makes: the same method, flags,
 * backing and page state.  Its verdict is predicted by asking the
 * flavour's policy function (model/policy.h) for that cell, modelling what lies
 * between the suite and GUP (mm/gup_test.c's ioctl, io_uring's fixed
 * buffer registration), and applying the suite's own expectation.
 * The guest runs it once from each scratch disk file system, ext4, xfs and
 * btrfs: only its "local tmpfile" (made in the cwd) changes with the run.
 */
#ifndef LONGTERM_H
#define LONGTERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/policy.h"

/* One of the suite's test_cases[] (gup_longterm.c:385-428), in its order. */
struct lt_case {
	const char *desc;	/* "R/W longterm GUP pin in MAP_SHARED file mapping" */
	bool shared;		/* MAP_SHARED, else MAP_PRIVATE */
	bool rw;		/* R/W (FOLL_WRITE), else R/O after mprotect() */
	bool fast;		/* the GUP-fast variant */
	bool iouring;		/* io_uring fixed buffer (always R/W) */
};

/* What a test's fd is: run_with_*() (gup_longterm.c:244-325). */
enum lt_backing {
	LT_MEMFD,		/* memfd_create(): shmem */
	LT_TMPFILE,		/* tmpfile(): /tmp, tmpfs in the guest */
	LT_LOCAL,		/* mkstemp() next to __FILE__: the cwd, the run's file system */
	LT_HUGETLB,		/* memfd_create(MFD_HUGETLB | size) */
	LT_BACKING_COUNT
};

/*
 * The file system a run starts in (jobs/guest/matrix.sh: cd /mnt/FS), the
 * one of its local tmpfile; each is one fs_is_unknown() knows
 * (gup_longterm.c:50-67).
 */
enum lt_fs {
	LT_FS_EXT4,		/* /mnt/ext4: the root image's scratch ext4 */
	LT_FS_XFS,		/* /mnt/xfs: qemu/run.sh --fs xfs */
	LT_FS_BTRFS,		/* /mnt/btrfs: qemu/run.sh --fs btrfs */
	LT_FS_COUNT
};

#define LT_NR_CASES	10
#define LT_MAX_HUGE	8
#define LT_RUN_TESTS	(LT_NR_CASES * (LT_BACKING_COUNT - 1 + LT_MAX_HUGE))
#define LT_MAX_TESTS	(LT_RUN_TESTS * LT_FS_COUNT)
#define LT_NAME_LEN	160

extern const struct lt_case lt_cases[LT_NR_CASES];

/* A huge page size the guest offers, and how many were free before the run. */
struct lt_huge {
	unsigned long kb;
	long free;
};

/*
 * Which gup_longterm.c the guest ran: 6.12's on every flavour, and on a
 * 7.3 kernel also its own tree's (rootfs/stage-guest.sh).  The tests and
 * what decides them are the same; 7.3's reports through log_test_result()
 * (vm_util.h) and only runs the huge page sizes hugetlb_setup() gave two
 * free pages (hugepage_settings.c).
 */
enum lt_suite {
	LT_SUITE_612,
	LT_SUITE_73,
	LT_SUITE_COUNT
};

/* What the prediction needs to know of the flavour's kernel. */
struct lt_kernel {
	const char *policy;		/* patches/flavours' gup column */
	policy_fn fn;			/* policy_lookup(policy); NULL: none yet */
	unsigned int version, patchlevel;	/* the tree's Makefile: 6.1, 6.12 */
	bool gup_test;			/* CONFIG_GUP_TEST=y */
	bool io_uring;			/* CONFIG_IO_URING=y */
	bool longterm_ioctls;		/* mm/gup_test.c handles PIN_LONGTERM_TEST_START */
	enum lt_suite suite;		/* the gup_longterm.c the guest ran */
	unsigned int nr_huge;
	struct lt_huge huge[LT_MAX_HUGE];
};

struct lt_test {
	unsigned int index;		/* 0.. in the suite's order, in its run */
	enum lt_fs fs;			/* the run's: where its local tmpfile is */
	const struct lt_case *c;
	enum lt_backing backing;
	unsigned long huge_kb;		/* LT_HUGETLB */
	char name[LT_NAME_LEN];		/* its "# [RUN] " line: "DESC ... with memfd" */
};

enum lt_verdict {
	LT_OK,
	LT_NOT_OK,
	LT_SKIP,
	LT_UNKNOWN,		/* predicted: no policy to ask */
	LT_MISSING,		/* measured: no result line */
	LT_VERDICT_COUNT
};

struct lt_prediction {
	enum lt_verdict verdict;
	/* The suite reads a stale errno (io_uring): a skip is accepted too. */
	bool or_skip;
	bool should_work;		/* the suite's own expectation */
	const char *via;		/* "gup_test", "io_uring", or NULL: no pin */
	bool has_cell;
	struct cell cell;		/* the matrix's cell for the same call */
	int matrix_index;		/* its index (0..), -1: none */
	const char *cell_note;		/* how the call differs from the cell, or NULL */
	struct expectation policy;	/* the policy's answer for the cell */
	enum outcome outcome;		/* the call's, after io_uring's own check */
	int err;			/* OUTCOME_REFUSED */
	char reason[2048];		/* one line, file:line citations */
};

const char *lt_verdict_name(enum lt_verdict v);	/* "ok", "not ok", "skip", ... */
const char *lt_backing_name(enum lt_backing b);	/* "memfd", "tmpfile", ... */
const char *lt_fs_name(enum lt_fs fs);		/* "ext4", "xfs", "btrfs" */
const char *lt_fs_dir(enum lt_fs fs);		/* "/mnt/ext4", ... */
const char *lt_suite_name(enum lt_suite s);	/* "6.12", "7.3" */
/* "6.12" or "7.3" to @s: 0, or -EINVAL (a suite not modelled). */
int lt_suite_parse(const char *name, enum lt_suite *s);

/* Does suite @k->suite run huge page size @k->huge[@i] (7.3's: two free)? */
bool lt_huge_tested(const struct lt_kernel *k, unsigned int i);

/*
 * Every test the suite runs from @fs on a kernel offering @k's huge page
 * sizes, in its order (each case: memfd, tmpfile, local tmpfile, then each
 * huge page size).  Returns how many were written to @t (at most @max).
 */
unsigned int lt_tests(const struct lt_kernel *k, enum lt_fs fs, struct lt_test *t,
		      unsigned int max);

/* The prediction for @t on @k. */
void lt_predict(const struct lt_kernel *k, const struct lt_test *t,
		struct lt_prediction *p);

/* Does measured verdict @m agree with @p? */
bool lt_agrees(const struct lt_prediction *p, enum lt_verdict m);

/*
 * Fill @k from the flavour's kernel directory (patches/build-flavour.sh's:
 * src/ the tree, build/.config) and the guest's huge page file (lines
 * "SIZE_KB NR FREE"; NULL: no huge pages).  0, or -errno with @why set.
 */
int lt_kernel_load(struct lt_kernel *k, const char *policy, const char *kdir,
		   const char *hugetlb, char *why, size_t size);

#endif /* LONGTERM_H */
