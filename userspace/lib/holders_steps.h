/* SPDX-License-Identifier: GPL-2.0 */
/*
 * holders steps: the system calls of one holders cell, in plain C and
 * libc, no lab header.  gupctl's guest runs them (holders/run.c), and
 * `gupctl export` copies this header and steps.c, as they are, into a
 * reproducer that needs nothing else (export/export.c): one source for
 * both, so that what a maintainer runs is what the lab measured.
 */
#ifndef LIB_HOLDERS_STEPS_H
#define LIB_HOLDERS_STEPS_H

#include <pthread.h>
#include <stdbool.h>

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

struct holders_cell {
	enum holders_fs fs;
	enum holders_holder holder;
	enum holders_event event;
};

/*
 * The cell's file: HOLDERS_PAGES pages, each "gup-lab OLD page N" lines;
 * the holder writes "gup-lab NEW page 1" into page HOLDERS_PAGE (the one
 * after the first, so that a collapse has a page before and after it).
 */
#define HOLDERS_PAGE_SIZE	4096
#define HOLDERS_PAGES		4
#define HOLDERS_PAGE		1
#define HOLDERS_FILE_SIZE	(HOLDERS_PAGES * HOLDERS_PAGE_SIZE)

/* Names, NULL terminated, indexed by the enums. */
extern const char * const holders_fs_choices[];
extern const char * const holders_holder_choices[];
extern const char * const holders_event_choices[];
extern const char * const holders_data_names[];

/* Fill @buf with page @page of @kind (NEW, OLD, TMP; ZEROS). */
void holders_fill(char *buf, unsigned long size, enum holders_data kind, unsigned int page);
/* What page @page holds, read into @buf (HOLDERS_PAGE_SIZE bytes). */
enum holders_data holders_classify(const char *buf, unsigned long size, unsigned int page);

/*
 * Is the cell a finding: the holder wrote (it was not refused), and the
 * file kept its page through the event (@page_stays) but not the write
 * (@disk is not NEW), or another file (@clone, FICLONE's) got the write?
 * The reproducer's exit status 1, and what gupctl export expects of a
 * kernel from its model's answer for the cell.
 */
static inline bool holders_finding(bool refused, bool page_stays, enum holders_data disk,
				   enum holders_data clone)
{
	if (refused)
		return false;
	return clone == HOLDERS_DATA_NEW || (page_stays && disk != HOLDERS_DATA_NEW);
}

/* The files of a cell: the pinned one (@fd, mapped at @map), and its partners. */
struct holders_files {
	char path[4096], other[4096], clone[4096];
	int fd;
	char *map;
};

/*
 * The holder of a cell: who holds the pinned page @dst, and until when.
 * The O_DIRECT and io_uring reads come from dm-delay over @slow_dev (its
 * status counts the reads it holds; its presuspend flushes them:
 * drivers/md/dm-delay.c delay_status(), delay_presuspend()); the
 * process_vm_writev() waits in a userfaultfd fault on its source after it
 * pinned the target page (mm/process_vm_access.c pins, then copies).
 * "Held" is proven, never slept on.
 */
struct holders_hold {
	enum holders_holder kind;
	char *dst;			/* the page in the file's mapping */
	const char *slow_dev;		/* odirect, uring: the disk dm-delay goes over */
	pthread_t thread;
	bool done;			/* set by the holder's thread: __atomic_* */
	long result;			/* bytes, or -errno */
	int uffd;			/* pvw */
	char *src;			/* pvw: the userfaultfd-registered source */
	bool dm_made;
};

#define HOLDERS_SLOW_NAME	"gl-slow"
#define HOLDERS_SLOW_NODE	"/dev/gl-slow"

/* The holder's device or source.  0 or -errno. */
int holders_hold_setup(struct holders_hold *h);
/* Its thread: the read or the copy that takes the pin.  0 or -errno. */
int holders_hold_start(struct holders_hold *h);
/* 0 once held; -ETIMEDOUT (10 s), -ENOENT (it finished without being held). */
int holders_hold_wait(struct holders_hold *h);
/* Let the holder complete: release the held read, or answer the fault. */
int holders_hold_release(struct holders_hold *h);
void holders_hold_join(struct holders_hold *h);
/* Remove what setup made: 0, or -errno (the dm device busy). */
int holders_hold_cleanup(struct holders_hold *h);

/* Bind the caller to CPU 0: MADV_PAGEOUT's lru_add_drain() drains its batch. */
int holders_bind_cpu0(void);
/* Make @dir's files: the pinned file OLD, the partner TMP if the event needs one. */
int holders_files_setup(struct holders_files *f, const char *dir, enum holders_event ev);
/* @kind's pages to @path, one page and one fsync at a time (several extents). */
int holders_write_file(const char *path, enum holders_data kind);
int holders_drop_caches(void);
/* The userfaultfd-registered source page of process_vm_writev(). */
int holders_uffd_setup(char **src, int *uffd);
/* Answer the source's fault with the NEW page: the held copy completes. */
int holders_uffd_answer(int uffd, char *src);
/* process_vm_writev() of @src into @dst in this process: bytes, or -errno. */
long holders_pvw(char *src, char *dst);
/* The event; @moved: MOVE_EXT's moved_len.  0 or -errno. */
int holders_event(enum holders_event ev, const struct holders_files *f, long long *moved);
/* What @path's page holds, through the cache or O_DIRECT: a class, or -errno. */
int holders_read_class(const char *path, bool direct);

#endif /* LIB_HOLDERS_STEPS_H */
