/* SPDX-License-Identifier: GPL-2.0 */
/*
 * repro: what each cell of the ext4-2018 reproduction (gupctl repro), on
 * ext4, xfs or btrfs, is expected to do under a flavour's GUP policy, ext4
 * behaviour and source version, with the kernel code it follows (file:line
 * of the policy's own tree; for xfs and btrfs, of both versions).  Pure.
 */
#ifndef MODEL_REPRO_H
#define MODEL_REPRO_H

#include <stdbool.h>

#include "model/policy.h"

/*
 * ---- The ext4-2018 reproduction (gupctl repro) ----
 *
 * A repro cell takes one page of a file with GUP, writes it through the
 * kernel's mapping, releases it dirty and fsyncs.  Its expected outcome
 * follows from the cell's file system and three columns of
 * patches/flavours: the GUP policy (may GUP take the page? the matrix's
 * policy functions answer, for an untouched MAP_SHARED ext4 page: xfs and
 * btrfs mappings are dirty-tracked alike, docs/filesystems-guide.md 1.2),
 * the ext4 behaviour (what ext4 writeback does with a dirty page without
 * buffers) and the source (6.1 or 6.12: what xfs and btrfs writeback do
 * with a page dirtied behind their back, the guide's section 2; the
 * policy's own source, policy_source()).
 */
enum repro_route {
	REPRO_ROUTE_READ,	/* a read fault after a cache drop: no buffers */
	REPRO_ROUTE_MOVE_EXT,	/* ext4: buffers freed by EXT4_IOC_MOVE_EXT */
	REPRO_ROUTE_HOLE,	/* a read fault over a hole (a sparse file) */
	REPRO_ROUTE_SWAPEXT,	/* xfs: XFS_IOC_SWAPEXT truncates the page cache */
	REPRO_ROUTE_WRITEBACK,	/* btrfs: fsync while held, then the write */
	REPRO_ROUTE_COUNT
};

/* The file system the cell's file is on. */
enum repro_fs {
	REPRO_FS_EXT4,
	REPRO_FS_XFS,
	REPRO_FS_BTRFS,
	REPRO_FS_COUNT
};

/* patches/flavours' "ext4" column. */
enum repro_ext4 {
	REPRO_EXT4_WARN,	/* cc5095747edf: warn, clear dirty, data lost */
	REPRO_EXT4_BUG,		/* cc5095747edf reverted: page_buffers() BUGs */
	REPRO_EXT4_COUNT
};

struct repro_cell {
	enum repro_route route;
	unsigned int method;	/* enum gup_pin_method */
	unsigned int flags;	/* GUP_PIN_FLAG_WRITE / _LONGTERM */
	enum repro_fs fs;	/* REPRO_FS_EXT4 unless given */
};

/*
 * The outcomes, in the words the model expects and the judge measures
 * (gupctl repro judge); %s is the host's read (OLD, ZEROS...), then, for
 * btrfs, fsync's return ("0" or an errno name).
 */
#define REPRO_OUT_NO_LOSS	"no loss (host reads NEW)"
#define REPRO_OUT_EXT4_LOST	"WARNING + data lost (host reads %s)"
#define REPRO_OUT_BTRFS_LOST	"BTRFS error + data lost (host reads %s, fsync %s)"
#define REPRO_OUT_SILENT	"data lost silently (host reads %s)"
#define REPRO_OUT_DROPPED	"write dropped (host reads %s)"
/* btrfs 6.12's refusal on the console (not a kernel report: an error line) */
#define REPRO_BTRFS_REFUSED	"is marked dirty without notifying the fs"
/* ext4's warning at writeback of a dirty page without buffers */
#define REPRO_EXT4_NO_BUFFERS	"does not have buffers attached"

#define REPRO_MAX_REPORTS	3

/* A kernel report the cell expects on the console. */
struct repro_report_exp {
	const char *kind;	/* "warning", "bug", "panic" */
	char where[64];		/* function (warning), file:line (bug), "" any */
	const char *why;
};

struct repro_expectation {
	char outcome[80];	/* "blocked (EFAULT)", "BUG (fs/ext4/inode.c:N)", ... */
	char reason[4096];	/* one line, names the kernel code (file:line) */
	unsigned int nr_reports;
	struct repro_report_exp reports[REPRO_MAX_REPORTS];
};

/* Names, NULL terminated, indexed by the enum (GOPT_CHOICE tables). */
extern const char * const repro_route_choices[];	/* "read", "move-ext", ... */
extern const char * const repro_fs_choices[];		/* "ext4", "xfs", "btrfs" */
extern const char * const repro_ext4_choices[];		/* "warn", "bug" */
/*
 * Can the cell be run at all?  If not, *@why says why (one line).  A route
 * named for a file system's ioctl runs on that file system only.
 */
bool repro_cell_valid(const struct repro_cell *c, const char **why);
/* The file system route @r runs on, REPRO_FS_COUNT if it runs on any. */
enum repro_fs repro_route_fs(enum repro_route r);

/*
 * The expected outcome of @c on a kernel with GUP policy @policy and ext4
 * behaviour @ext4 (xfs and btrfs: the policy's source version).  @bug_site is the file:line of page_buffers() in the
 * flavour's mpage_prepare_extent_to_map() (read from its tree), or NULL
 * if unknown.  0, or -EINVAL for an unknown policy.
 */
int repro_expect(const char *policy, enum repro_ext4 ext4, const char *bug_site,
		 const struct repro_cell *c, struct repro_expectation *e);

/*
 * Does @e end its boot?  A BUG or an oops panics the guest (the lab boots
 * with oops=panic), so such a cell needs a boot of its own; every other
 * cell can share one (jobs/repro.sh).
 */
bool repro_ends_boot(const struct repro_expectation *e);

#endif /* MODEL_REPRO_H */
