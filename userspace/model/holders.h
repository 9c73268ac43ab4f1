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

#include "model/policy.h"

enum holders_fs {
	HOLDERS_FS_EXT4,
	HOLDERS_FS_XFS,
	HOLDERS_FS_BTRFS,
	HOLDERS_FS_EXT4J,	/* "ext4j": a scratch ext4 mounted data=journal */
	HOLDERS_FS_COUNT
};

enum holders_holder {
	HOLDERS_ODIRECT,	/* read(2) O_DIRECT from a held dm-delay device */
	HOLDERS_PVW,		/* process_vm_writev(), source held by userfaultfd */
	HOLDERS_URING,		/* io_uring IORING_OP_READ, unregistered buffer */
	HOLDERS_HOLDER_COUNT
};

enum holders_event {
	HOLDERS_EV_NONE,
	HOLDERS_EV_FSYNC,		/* writeback */
	HOLDERS_EV_PAGEOUT,		/* fsync, madvise(MADV_PAGEOUT) */
	HOLDERS_EV_DROP_CACHES,		/* fsync, drop_caches */
	HOLDERS_EV_MOVE_EXT_DONOR,	/* ext4, ext4j: fsync, MOVE_EXT, pinned = donor */
	HOLDERS_EV_MOVE_EXT_ORIG,	/* ext4, ext4j: fsync, MOVE_EXT, pinned = orig */
	HOLDERS_EV_SWAPEXT,		/* xfs: XFS_IOC_SWAPEXT as xfs_fsr */
	HOLDERS_EV_DEFRAG,		/* btrfs: fsync, DEFRAG_RANGE + START_IO */
	HOLDERS_EV_PUNCH,		/* fallocate(PUNCH_HOLE) over the page */
	HOLDERS_EV_COLLAPSE,		/* fallocate(COLLAPSE_RANGE) of the page */
	HOLDERS_EV_TRUNCATE,		/* ftruncate(0), ftruncate(size) */
	HOLDERS_EV_FICLONE,		/* ioctl(FICLONE) of the file */
	HOLDERS_EV_COUNT
};

/* What a page holds (the guest's and the host's reads are classed alike). */
enum holders_data {
	HOLDERS_DATA_NONE,	/* not read (no clone, or the read failed) */
	HOLDERS_DATA_NEW,	/* the holder's bytes */
	HOLDERS_DATA_OLD,	/* the file's bytes before the cell */
	HOLDERS_DATA_ZEROS,
	HOLDERS_DATA_NEXT,	/* the bytes of the page after it (a collapse) */
	HOLDERS_DATA_TMP,	/* the other file's bytes (an extent swap) */
	HOLDERS_DATA_OTHER,	/* none of those: a mix, or garbage */
	HOLDERS_DATA_COUNT
};

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

struct holders_cell {
	enum holders_fs fs;
	enum holders_holder holder;
	enum holders_event event;
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

/*
 * The cell's file: HOLDERS_PAGES pages, each "gup-lab OLD page N" lines;
 * the holder writes "gup-lab NEW page 1" into page HOLDERS_PAGE (the one
 * after the first, so that a collapse has a page before and after it).
 */
#define HOLDERS_PAGE_SIZE	4096
#define HOLDERS_PAGES		4
#define HOLDERS_PAGE		1

/* Fill @buf with page @page of @kind (NEW, OLD, TMP; ZEROS). */
void holders_fill(char *buf, unsigned long size, enum holders_data kind, unsigned int page);
/* What page @page holds, read into @buf (HOLDERS_PAGE_SIZE bytes). */
enum holders_data holders_classify(const char *buf, unsigned long size, unsigned int page);

/* Names, NULL terminated, indexed by the enums (GOPT_CHOICE tables). */
extern const char * const holders_fs_choices[];
extern const char * const holders_holder_choices[];
extern const char * const holders_event_choices[];
extern const char * const holders_data_names[];
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

#endif /* MODEL_HOLDERS_H */
