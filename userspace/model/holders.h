/* SPDX-License-Identifier: GPL-2.0 */
/*
 * holders: what a page of a MAP_SHARED file becomes when one of the
 * kernel's own short-term GUP users (a "holder": an O_DIRECT read, a
 * process_vm_writev(), an io_uring read) holds it while the file system
 * does something to it (an "event"), then releases it dirty.  No test
 * driver takes part.  The expectation of each cell (file system x holder
 * x event) on a kernel (its source version, GUP policy and ext4
 * behaviour), with the kernel code it follows; docs/filesystems-guide.md
 * derives every line.  Pure.
 */
#ifndef MODEL_HOLDERS_H
#define MODEL_HOLDERS_H

#include <stdbool.h>

#include "lib/holders_steps.h"
#include "model/policy.h"

/* What the console shows for the cell, besides nothing. */
enum holders_report {
	HOLDERS_REPORT_NONE,
	HOLDERS_REPORT_EXT4_LOST,	/* WARNING in ext4_dirty_folio + "does not have buffers attached" */
	HOLDERS_REPORT_BTRFS_REFUSED,	/* "marked dirty without notifying the fs" */
	HOLDERS_REPORT_GUP_V1,		/* WARNING in check_vma_flags (seed 005) */
	HOLDERS_REPORT_COUNT
};

/* The kernel the cell runs on: patches/flavours' columns. */
struct holders_kernel {
	const char *policy;	/* stock, v1, v7, v9, mainline, latest */
	bool ext4_bug;		/* the ext4 column says bug (ext4-2018) */
	enum policy_kernel kernel;	/* the source column: 6.1, 6.12 or 7.3 */
};

struct holders_expectation {
	bool run;		/* false: not run, @reason says why */
	bool refused;		/* the holder's GUP call fails (EFAULT) */
	bool event_fails;	/* the event's call fails (EOPNOTSUPP) */
	bool fsync_fails;	/* the fsync after the release fails */
	enum holders_data disk;		/* the file's page as the host reads it */
	enum holders_data clone;	/* FICLONE's clone's page, else NONE */
	enum holders_report report;
	char reason[2048];	/* one line, names the kernel code (file:line) */
};

/* Names, NULL terminated, indexed by the enum (the others: lib/holders_steps.h). */
extern const char * const holders_report_names[];

/* Does @c exist (an fs-specific event on its file system)? */
bool holders_cell_valid(const struct holders_cell *c);
/* "xfs-odirect-fsync": a cell's name, its files' and its results'. */
void holders_cell_name(const struct holders_cell *c, char *buf, unsigned long size);
/* make check's subset: one cell per file system (the quick set). */
bool holders_cell_quick(const struct holders_cell *c);

/* 0, or -EINVAL for an unknown policy. */
int holders_expect(const struct holders_kernel *k, const struct holders_cell *c,
		   struct holders_expectation *e);

/* Does the file keep the cell's page through its event (no punch, truncate...)? */
bool holders_page_stays(const struct holders_cell *c);
/* holders_finding() of what @e expects of @c. */
bool holders_expect_finding(const struct holders_cell *c, const struct holders_expectation *e);

#endif /* MODEL_HOLDERS_H */
