/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gup_pin_test: userspace ABI of /dev/gup_test, the gup-lab test driver.
 *
 * This header is the single source of truth shared by the module
 * (module/gup_pin_test.c) and the CLI (userspace/gupctl).  Any change to a
 * structure or a number below must bump GUP_PIN_TEST_ABI_VERSION.
 *
 * Opening the device takes CAP_SYS_ADMIN (else EPERM), on top of its mode
 * (0600, root), and so does every ioctl but VERSION, which also answers
 * only a caller in the mm that opened the device (else EPERM): a fork
 * child, or a process the fd was passed to, reaches no pin (ABI 4).  The
 * debugfs files take CAP_SYS_ADMIN to open too.
 *
 * The write rule.  A pin may be written through (GUP_PIN_IOC_WRITE) or
 * released dirty (GUP_UNPIN_DIRTY) only if, when it was taken,
 *  (a) it was taken with GUP_PIN_FLAG_WRITE: GUP handed out writable pages
 *      (a COW copy for a private mapping), or
 *  (b) every pinned page was a page cache page of the regular file of a
 *      VM_SHARED and VM_WRITE mapping at its address (so the caller held
 *      that file open for writing; an anon_inode file such as a perf ring
 *      buffer is not regular: ABI 4), and that file's address space can be dirtied
 *      (->dirty_folio): the read pin of a writable MAP_SHARED file mapping,
 *      the 2018 route.
 * The verdict is taken once, under mmap_lock, when the pin is made (a
 * later munmap does not change it) and shown in debugfs "pins".  Anything
 * else is refused with EPERM: nothing is written, nothing is dirtied, and
 * the pin stays (UNPIN without GUP_UNPIN_DIRTY releases it).  This refuses
 * writes through read pins of the vDSO, of anonymous memory (which may be
 * shared with a fork child), of MAP_PRIVATE file mappings, of sealed
 * memfds, of files on read-only mounts and of file systems without
 * ->dirty_folio (isofs, squashfs: 6.1's folio_mark_dirty() would call a
 * NULL pointer).  The shared zero page and KSM pages are never written,
 * and neither is an anonymous page that is no longer the caller's alone
 * (a write pin taken with FOLL_GET, then fork(): EPERM from WRITE and from
 * UNPIN with GUP_UNPIN_DIRTY, checked under mmap_lock at the call; ABI 4).
 */
#ifndef _UAPI_GUP_PIN_TEST_H
#define _UAPI_GUP_PIN_TEST_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define GUP_PIN_TEST_ABI_VERSION	4
#define GUP_PIN_TEST_DEVICE		"/dev/gup_test"
#define GUP_PIN_TEST_DEBUGFS		"/sys/kernel/debug/gup_pin_test"

/*
 * Which kernel entry point takes the pages (6.1 signatures).  The _remote
 * methods work on the calling process's own mm, never another's, with
 * mmap_lock held and @locked NULL; the _unlocked ones take mmap_lock
 * themselves.
 */
enum gup_pin_method {
	GUP_PIN_METHOD_PIN		= 0,	/* pin_user_pages()          */
	GUP_PIN_METHOD_PIN_FAST		= 1,	/* pin_user_pages_fast()     */
	GUP_PIN_METHOD_GET		= 2,	/* get_user_pages()          */
	GUP_PIN_METHOD_GET_FAST		= 3,	/* get_user_pages_fast()     */
	GUP_PIN_METHOD_PIN_REMOTE	= 4,	/* pin_user_pages_remote()   */
	GUP_PIN_METHOD_GET_REMOTE	= 5,	/* get_user_pages_remote()   */
	GUP_PIN_METHOD_PIN_UNLOCKED	= 6,	/* pin_user_pages_unlocked() */
	GUP_PIN_METHOD_GET_UNLOCKED	= 7,	/* get_user_pages_unlocked() */
	GUP_PIN_METHOD_COUNT
};

/*
 * Request flags (bits; hex, as BIT() is not uapi).  The module maps them
 * onto FOLL_* itself: FOLL_* are not uapi and change between kernels.
 * The module does not police the mixes: a mix the kernel refuses (e.g.
 * LONGTERM with a get_* method) gets the kernel's answer, WARN included.
 */
#define GUP_PIN_FLAG_WRITE		0x01U	/* FOLL_WRITE    */
#define GUP_PIN_FLAG_LONGTERM		0x02U	/* FOLL_LONGTERM */
#define GUP_PIN_FLAG_FORCE		0x04U	/* FOLL_FORCE (acts in the slow path) */
/*
 * FOLL_ALLOW_BROKEN_FILE_MAPPING, on kernels that define it (the
 * version's features have GUP_PIN_FEATURE_ALLOW_BROKEN); elsewhere PIN
 * fails with EOPNOTSUPP before GUP is called.
 */
#define GUP_PIN_FLAG_ALLOW_BROKEN	0x08U
#define GUP_PIN_FLAGS_ALL		(GUP_PIN_FLAG_WRITE | \
					 GUP_PIN_FLAG_LONGTERM | \
					 GUP_PIN_FLAG_FORCE | \
					 GUP_PIN_FLAG_ALLOW_BROKEN)

/* gup_pin_version.features */
#define GUP_PIN_FEATURE_ALLOW_BROKEN	0x01U	/* GUP_PIN_FLAG_ALLOW_BROKEN works */

/*
 * GUP_PIN_IOC_VERSION: what this module speaks and enforces.  The module
 * answers this ioctl number with any argument size from 4 bytes up and
 * copies that much of the structure (at most all of it), so a caller built
 * for another ABI version still learns abi_version (ABI 1's structure was
 * the first 16 bytes of this one).
 */
struct gup_pin_version {
	__u32 abi_version;		/* out: GUP_PIN_TEST_ABI_VERSION */
	__u32 page_size;		/* out: PAGE_SIZE */
	__u32 max_pages_per_pin;	/* out: module parameter */
	__u32 max_pages_total;		/* out: module parameter */
	__u32 features;			/* out: GUP_PIN_FEATURE_* */
	__u32 reserved[3];		/* out: 0 */
};

/*
 * GUP_PIN_IOC_PIN: take the pages of [addr, addr + len) with one call of
 * @method.  addr and len must be page aligned, len > 0.
 *
 * A negative return of the GUP call is returned by the ioctl unchanged
 * (errno) and nothing is kept.  Otherwise the ioctl succeeds: @nr_pinned
 * pages (possibly fewer than @nr_requested: a partial pin, reported as is)
 * are held under the new @id until GUP_PIN_IOC_UNPIN or close().  A call
 * that took no page at all sets @id to 0 and keeps nothing.
 */
struct gup_pin_req {
	__u64 addr;			/* in  */
	__u64 len;			/* in: bytes */
	__u32 method;			/* in: enum gup_pin_method */
	__u32 flags;			/* in: GUP_PIN_FLAG_* */
	__u32 id;			/* out: pin id, 0 if nothing pinned */
	__u32 nr_requested;		/* out: len / page_size */
	__u32 nr_pinned;		/* out: pages the GUP call returned */
	__u32 reserved;			/* must be 0 */
};

/*
 * GUP_PIN_IOC_WRITE / GUP_PIN_IOC_READ: copy @len bytes between the user
 * buffer @buf and the pinned pages of pin @id, starting @offset bytes into
 * the pinned range, through the kernel's own mapping of each page
 * (kmap_local_page()): the "GUP caller writes via the direct mapping" of
 * the series.  The range must lie within the pages actually pinned.  WRITE
 * follows the write rule above (EPERM).
 */
struct gup_pin_io {
	__u32 id;			/* in */
	__u32 reserved;			/* must be 0 */
	__u64 offset;			/* in: bytes from the start of the pin */
	__u64 len;			/* in: bytes */
	__u64 buf;			/* in: user pointer */
};

/*
 * GUP_PIN_IOC_UNPIN: release pin @id.  GUP_UNPIN_DIRTY: mark the pages dirty
 * on the way (unpin_user_pages_dirty_lock(), set_page_dirty_lock() for get);
 * it follows the write rule above (EPERM, and the pin stays).
 */
#define GUP_UNPIN_DIRTY			0x01U
struct gup_pin_unpin {
	__u32 id;			/* in */
	__u32 flags;			/* in: GUP_UNPIN_* */
};

/* What backs a page (enum, one value per page). */
enum gup_page_kind {
	GUP_PAGE_ANON		= 0,	/* anonymous (incl. swap cache) */
	GUP_PAGE_SHMEM		= 1,	/* shmem / tmpfs / memfd */
	GUP_PAGE_HUGETLB	= 2,	/* hugetlbfs */
	GUP_PAGE_FILE		= 3,	/* other file backed (page cache) */
	GUP_PAGE_OTHER		= 4,	/* none of the above (e.g. zero page) */
};

/* Page state bits, sampled under no lock: a snapshot, not a guarantee. */
#define GUP_PAGE_DIRTY			0x01U	/* PG_dirty */
#define GUP_PAGE_WRITEBACK		0x02U	/* PG_writeback */
/*
 * Buffer heads: PG_private on a page cache folio whose address space
 * hands folio->private to the buffer layer (docs/driver.md).
 */
#define GUP_PAGE_HAS_BUFFERS		0x04U
#define GUP_PAGE_MAYBE_DMA_PINNED	0x08U	/* folio_maybe_dma_pinned() */
#define GUP_PAGE_UPTODATE		0x10U	/* PG_uptodate */
#define GUP_PAGE_LRU			0x20U	/* PG_lru */
#define GUP_PAGE_PRIVATE		0x40U	/* PG_private, whatever its owner */

/*
 * @index counts PAGE_SIZE pages for every kind, hugetlb included: the
 * page's offset in its file, or its anonymous linear index.
 */
struct gup_page_state {
	__u64 index;			/* PAGE_SIZE units */
	__u32 kind;			/* enum gup_page_kind */
	__u32 state;			/* GUP_PAGE_* bits */
	__s32 mapcount;			/* page_mapcount() */
	__s32 refcount;			/* page_ref_count() */
	char fs_name[16];		/* backing fs type name, "" if none */
};

/*
 * GUP_PIN_IOC_STATE: fill up to @count entries of @pages with the state of
 * pages [@first, @first + @count) of pin @id; @count is updated to the
 * number of entries written.
 */
struct gup_pin_state_req {
	__u32 id;			/* in */
	__u32 first;			/* in: first page within the pin */
	__u32 count;			/* in: entries at @pages; out: written */
	__u32 reserved;			/* must be 0 */
	__u64 pages;			/* in: user pointer to gup_page_state[] */
};

/*
 * GUP_PIN_IOC_BENCH (ABI 3): time GUP itself, as mm/gup_test.c times its
 * *_BENCHMARK commands, so that the two can be set side by side.  The
 * pages of [addr, addr + len) are taken with @method and @flags in
 * back-to-back calls of @nr_per_call pages (the last one shorter),
 * stopping at the first call that takes fewer pages than it asked for;
 * then every page taken is given back (unpin_user_pages() for the pin
 * methods, put_page() for the get ones).  @pin_ns is ktime_get_ns() around
 * the calls, @unpin_ns around the giving back; the locked methods (pin,
 * get and the _remote ones) hold mmap_lock across both, outside the clock.
 * Nothing outlives the ioctl: no pin id, nothing written or dirtied.  addr,
 * len, method and flags are checked as PIN's; the pages count against
 * max_pages_total while the call runs (ENOSPC), not max_pages_per_pin.  A
 * GUP call's error is reported in @err (the ioctl succeeds).
 */
struct gup_pin_bench {
	__u64 addr;			/* in */
	__u64 len;			/* in: bytes */
	__u32 method;			/* in: enum gup_pin_method */
	__u32 flags;			/* in: GUP_PIN_FLAG_* */
	__u32 nr_per_call;		/* in: pages per GUP call, >= 1 */
	__u32 nr_taken;			/* out: pages taken in all (in: 0) */
	__u64 pin_ns;			/* out: the GUP calls (in: 0) */
	__u64 unpin_ns;			/* out: giving the pages back (in: 0) */
	__u32 err;			/* out: positive errno of the call that failed, or 0 */
	__u32 reserved[3];		/* must be 0 */
};

/*
 * A driver-specific type (0xB8 is unassigned in ioctl-number.rst) and
 * numbers well clear of the VFS's own ioctls, which are answered before
 * the driver sees them.
 */
#define GUP_PIN_IOC_TYPE		0xB8
#define GUP_PIN_IOC_VERSION_NR		0x40
#define GUP_PIN_IOC_VERSION	_IOR(GUP_PIN_IOC_TYPE, GUP_PIN_IOC_VERSION_NR, \
				     struct gup_pin_version)
#define GUP_PIN_IOC_PIN		_IOWR(GUP_PIN_IOC_TYPE, 0x41, struct gup_pin_req)
#define GUP_PIN_IOC_WRITE	_IOW(GUP_PIN_IOC_TYPE, 0x42, struct gup_pin_io)
#define GUP_PIN_IOC_READ	_IOW(GUP_PIN_IOC_TYPE, 0x43, struct gup_pin_io)
#define GUP_PIN_IOC_UNPIN	_IOW(GUP_PIN_IOC_TYPE, 0x44, struct gup_pin_unpin)
#define GUP_PIN_IOC_STATE	_IOWR(GUP_PIN_IOC_TYPE, 0x45, struct gup_pin_state_req)
#define GUP_PIN_IOC_BENCH	_IOWR(GUP_PIN_IOC_TYPE, 0x46, struct gup_pin_bench)

#endif /* _UAPI_GUP_PIN_TEST_H */
