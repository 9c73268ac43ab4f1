// SPDX-License-Identifier: GPL-2.0
/*
 * holders: the expected outcome of a real GUP user holding a file page
 * across a file-system event (model/holders.h).  Every rule below is
 * derived in docs/filesystems-guide.md, sections 2, 3, 5 and 6; the
 * reasons cite the lines that decide, "6.1" for Debian's 6.1.192 (stock,
 * and every 6.1 flavour outside mm/gup.c, mm/mmap.c, include/linux/mm.h),
 * "6.12" for Debian's 6.12.118 (mainline) and "7.3" for Debian's 7.3.4
 * (latest).  A 6.1 or 6.12 reason names both of those versions, as the
 * published pages always did; a 7.3 reason names 7.3 alone: its code was
 * read anew (move_extent.c rewritten, btrfs' dirty_folio fixup).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "model/cite73.h"
#include "model/holders.h"

const char * const holders_report_names[] = {
	"none", "ext4-lost", "btrfs-refused", "gup-v1-warning", NULL
};

bool holders_cell_valid(const struct holders_cell *c)
{
	switch (c->event) {
	case HOLDERS_EV_MOVE_EXT_DONOR:
	case HOLDERS_EV_MOVE_EXT_ORIG:
		return c->fs == HOLDERS_FS_EXT4 || c->fs == HOLDERS_FS_EXT4J;
	case HOLDERS_EV_SWAPEXT:
		return c->fs == HOLDERS_FS_XFS;
	case HOLDERS_EV_DEFRAG:
		return c->fs == HOLDERS_FS_BTRFS;
	default:
		return c->fs < HOLDERS_FS_COUNT && c->holder < HOLDERS_HOLDER_COUNT &&
		       c->event < HOLDERS_EV_COUNT;
	}
}

void holders_cell_name(const struct holders_cell *c, char *buf, unsigned long size)
{
	snprintf(buf, size, "%s-%s-%s", holders_fs_choices[c->fs],
		 holders_holder_choices[c->holder], holders_event_choices[c->event]);
}

/*
 * One O_DIRECT cell per file system, each the one that answers "does
 * writeback while a real pin is held lose data here": ext4's MOVE_EXT
 * donor (the loss on every kernel), xfs', btrfs' and ext4j's fsync (on
 * ext4j the release after writeback goes through
 * ext4_journalled_dirty_folio()'s pending dirty).
 */
bool holders_cell_quick(const struct holders_cell *c)
{
	if (c->holder != HOLDERS_ODIRECT)
		return false;
	return c->fs == HOLDERS_FS_EXT4 ? c->event == HOLDERS_EV_MOVE_EXT_DONOR :
					  c->event == HOLDERS_EV_FSYNC;
}

static void say(struct holders_expectation *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The words for @k's kernel: @old on 6.1 and 6.12, @v73 on 7.3. */
static const char *on(const struct holders_kernel *k, const char *old, const char *v73)
{
	return cite73(k->kernel == POLICY_KERNEL_73, old, v73);
}

/* Append to @e's reason. */
static void say(struct holders_expectation *e, const char *fmt, ...)
{
	size_t n = strlen(e->reason);
	va_list ap;

	if (n + 1 >= sizeof(e->reason))
		return;
	va_start(ap, fmt);
	vsnprintf(e->reason + n, sizeof(e->reason) - n, fmt, ap);
	va_end(ap);
}

/*
 * The GUP call each holder makes, and whether the kernel's policy lets it
 * through (guide section 3).  True if refused, with the reason said.
 */
static bool holder_refused(const struct holders_kernel *k, const struct holders_cell *c,
			   struct holders_expectation *e)
{
	bool via_iter = c->holder != HOLDERS_PVW;

	if (via_iter && k->kernel == POLICY_KERNEL_73)
		say(e, "the read pins with pin_user_pages_fast() and FOLL_WRITE, not FOLL_LONGTERM "
		    "(7.3 lib/iov_iter.c:1754-1780), which writable_file_mapping_allowed() "
		    "allows (7.3 mm/gup.c:1182-1198); ");
	else if (via_iter && k->kernel == POLICY_KERNEL_612)
		say(e, "the read pins with pin_user_pages_fast() and FOLL_WRITE, not FOLL_LONGTERM "
		    "(6.12 lib/iov_iter.c:1796-1821), which writable_file_mapping_allowed() "
		    "allows (6.12 mm/gup.c:1252-1267); ");
	else if (via_iter)
		say(e, "the read takes get_user_pages_fast() with FOLL_WRITE (6.1 "
		    "lib/iov_iter.c:1449-1460), a reference, not a pin; ");
	else
		say(e, "%s", on(k, "process_vm_writev() pins with pin_user_pages_remote() and "
				"FOLL_WRITE, not FOLL_LONGTERM (6.1 mm/process_vm_access.c:91-111, "
				"6.12 mm/process_vm_access.c:92-112); ",
				"process_vm_writev() pins with pin_user_pages_remote() and "
				"FOLL_WRITE, not FOLL_LONGTERM (7.3 mm/process_vm_access.c:92-110); "));

	if (!strcmp(k->policy, "v1") && via_iter) {
		say(e, "gup-v1 refuses it: the untouched page takes GUP's slow path, whose "
		    "check_vma_flags() refuses FOLL_WRITE to a file mapping without "
		    "FOLL_ALLOW_BROKEN_FILE_MAPPING, with a WARNING (v1 mm/gup.c:1113)");
		e->report = HOLDERS_REPORT_GUP_V1;
		return true;
	}
	if (!strcmp(k->policy, "v7") && !via_iter) {
		say(e, "gup-v7 refuses it: writeable_file_mapping_allowed() refuses FOLL_PIN to a "
		    "dirty-tracked file VMA (v7 mm/gup.c:1140-1155, called at 1177-1179)");
		return true;
	}
	if (!strcmp(k->policy, "v1"))
		say(e, "gup-v1 lets it through (seed 005 gives process_vm_rw "
		    "FOLL_ALLOW_BROKEN_FILE_MAPPING); ");
	else if (!strcmp(k->policy, "v7") || !strcmp(k->policy, "v9"))
		say(e, "%s does not refuse it (no FOLL_LONGTERM%s); ", k->policy,
		    via_iter ? ", and no FOLL_PIN" : "");
	return false;
}

/*
 * What the file's page holds after the event when nobody writes it again:
 * also the outcome of an event that takes the page out of the file, so
 * that the holder's write lands in a page no longer in it ("dropped").
 */
static enum holders_data event_leaves(const struct holders_kernel *k,
				      const struct holders_cell *c, bool *dropped,
				      struct holders_expectation *e)
{
	*dropped = true;
	switch (c->event) {
	case HOLDERS_EV_MOVE_EXT_DONOR:
	case HOLDERS_EV_MOVE_EXT_ORIG:
		*dropped = false;
		if (c->fs == HOLDERS_FS_EXT4J) {
			e->event_fails = true;
			say(e, "MOVE_EXT refuses a file with journalled data: \"Online defrag not "
			    "supported with data journaling\", EOPNOTSUPP, before it touches a page "
			    "(%s); ", on(k, "6.1 fs/ext4/move_extent.c:594-598, 6.12 "
					 "fs/ext4/move_extent.c:600-604",
					 "7.3 fs/ext4/move_extent.c:458-462"));
			return HOLDERS_DATA_OLD;
		}
		return c->event == HOLDERS_EV_MOVE_EXT_DONOR ? HOLDERS_DATA_ZEROS :
							       HOLDERS_DATA_OLD;
	case HOLDERS_EV_SWAPEXT:
		say(e, "XFS_IOC_SWAPEXT's xfs_swap_extent_flush() writes back and truncates the "
		    "whole page cache of both files first (%s): the pinned page leaves the file, "
		    "which gets the other file's blocks; ",
		    on(k, "6.1 fs/xfs/xfs_bmap_util.c:1367-1381, 6.12 fs/xfs/xfs_bmap_util.c:1215-1229",
		       "7.3 fs/xfs/xfs_bmap_util.c:1255-1269"));
		return HOLDERS_DATA_TMP;
	case HOLDERS_EV_PUNCH:
		say(e, "the punch truncates the range's page cache after writeback with "
		    "truncate_inode_folio() (%s), whatever its references; ",
		    on(k, "6.1 mm/truncate.c:172-197, 6.12 mm/truncate.c:155-180",
		       "7.3 mm/truncate.c:170-178"));
		return HOLDERS_DATA_ZEROS;
	case HOLDERS_EV_TRUNCATE:
		say(e, "truncate_pagecache() (%s) removes the pinned page; the re-extended range "
		    "is a hole; ", on(k, "6.1 mm/truncate.c:761-778, 6.12 mm/truncate.c:737-754",
				      "7.3 mm/truncate.c:785-802"));
		return HOLDERS_DATA_ZEROS;
	case HOLDERS_EV_COLLAPSE:
		if (c->fs == HOLDERS_FS_BTRFS) {
			*dropped = false;
			e->event_fails = true;
			say(e, "btrfs has no collapse: btrfs_fallocate() returns EOPNOTSUPP for "
			    "FALLOC_FL_COLLAPSE_RANGE (%s), nothing else happens; ",
			    on(k, "6.1 fs/btrfs/file.c:3070-3072, 6.12 fs/btrfs/file.c:3114-3116",
			       "7.3 fs/btrfs/file.c:3099-3101"));
			return HOLDERS_DATA_OLD;
		}
		say(e, "the collapse truncates the page cache from the range on (%s) and "
		    "shifts the next page's blocks to the offset; ",
		    on(k, "ext4: truncate_pagecache() at 6.1 fs/ext4/extents.c:5433; xfs: "
		       "xfs_flush_unmap_range() at 6.1 fs/xfs/xfs_bmap_util.c:1084-1092",
		       "ext4: truncate_pagecache() at 7.3 fs/ext4/extents.c:5680; xfs: "
		       "xfs_flush_unmap_range() at 7.3 fs/xfs/xfs_bmap_util.c:975-983"));
		return HOLDERS_DATA_NEXT;
	case HOLDERS_EV_FICLONE:
		if (c->fs == HOLDERS_FS_EXT4 || c->fs == HOLDERS_FS_EXT4J) {
			e->event_fails = true;
			say(e, "ext4 has no remap_file_range: FICLONE fails with EOPNOTSUPP; ");
		}
		/* fall through */
	default:
		*dropped = false;
		return HOLDERS_DATA_OLD;
	}
}

/* The event wrote the page back while held, and the release re-dirties it. */
static bool event_writes_back(const struct holders_cell *c)
{
	return c->event != HOLDERS_EV_NONE && !(c->event == HOLDERS_EV_COLLAPSE &&
						 c->fs == HOLDERS_FS_BTRFS) &&
	       !(c->event == HOLDERS_EV_FICLONE &&
		 (c->fs == HOLDERS_FS_EXT4 || c->fs == HOLDERS_FS_EXT4J));
}

/*
 * 7.3's ext4: mext_move_extent() (move_extent.c, rewritten around folios)
 * still frees the buffers of both clean folios whatever their references;
 * the orig folio gets new ones, the donor's stays without.
 */
static void expect_ext4_73(const struct holders_cell *c, struct holders_expectation *e)
{
	if (c->event == HOLDERS_EV_MOVE_EXT_DONOR) {
		say(e, "EXT4_IOC_MOVE_EXT's mext_move_extent() calls filemap_release_folio() on "
		    "the orig's and the donor's clean folios, which frees their buffers whatever "
		    "their references (7.3 fs/ext4/move_extent.c:350-351), and "
		    "ext4_ext_mark_unwritten() marks the donor's new extent (7.3 "
		    "fs/ext4/extents.c:6014-6015); only the orig folio gets buffers back; the "
		    "release dirties a page without buffers: WARNING in ext4_dirty_folio() (7.3 "
		    "fs/ext4/inode.c:3937), and writeback's ext4_warning_inode() says it does "
		    "not have buffers attached and clears its dirty bit (7.3 "
		    "fs/ext4/inode.c:2707-2711)");
		e->report = HOLDERS_REPORT_EXT4_LOST;
		e->disk = HOLDERS_DATA_ZEROS;
		return;
	}
	if (c->event == HOLDERS_EV_MOVE_EXT_ORIG) {
		say(e, "MOVE_EXT frees the orig folio's buffers with filemap_release_folio() "
		    "(7.3 fs/ext4/move_extent.c:350-351), then mext_folio_mkwrite() gives it new "
		    "ones with create_empty_buffers(), maps them with ext4_get_block() and "
		    "dirties them with block_commit_write() (7.3 fs/ext4/move_extent.c:263-291): "
		    "the page has buffers when the release dirties it, and writeback writes it");
		e->disk = HOLDERS_DATA_NEW;
		return;
	}
	if (c->event == HOLDERS_EV_PAGEOUT)
		say(e, "reclaim skips the page after unmapping it, as folio_maybe_dma_pinned() "
		    "(7.3 mm/vmscan.c:1365): its buffers stay; ");
	else if (c->event == HOLDERS_EV_DROP_CACHES)
		say(e, "drop_caches' mapping_evict_folio() refuses a folio with an extra "
		    "reference before releasing anything (7.3 mm/truncate.c:327-342); ");
	say(e, "ext4_page_mkwrite() attached buffers at the pin (7.3 fs/ext4/inode.c:6893) "
	    "and they are still there: writeback writes the re-dirtied page");
	e->disk = HOLDERS_DATA_NEW;
}

static void expect_ext4(const struct holders_kernel *k, const struct holders_cell *c,
			bool foll_get, struct holders_expectation *e)
{
	if (k->kernel == POLICY_KERNEL_73) {
		expect_ext4_73(c, e);
		return;
	}
	if (c->event == HOLDERS_EV_MOVE_EXT_DONOR) {
		say(e, "EXT4_IOC_MOVE_EXT calls filemap_release_folio() on the donor's clean "
		    "page, which frees its buffers whatever its references (6.1 "
		    "fs/ext4/move_extent.c:361-362, 6.12 fs/ext4/move_extent.c:369-370), and "
		    "ext4_ext_mark_unwritten() marks the donor's new extent (6.1 "
		    "fs/ext4/extents.c:5827-5828, 6.12 fs/ext4/extents.c:5711-5712); the "
		    "release dirties a page without buffers: WARNING in ext4_dirty_folio() "
		    "(6.1 fs/ext4/inode.c:3664, 6.12 fs/ext4/inode.c:3587), and writeback's "
		    "ext4_warning_inode() says it does not have buffers attached and clears its "
		    "dirty bit (6.1 fs/ext4/inode.c:2670-2675, 6.12 fs/ext4/inode.c:2525-2530)");
		e->report = HOLDERS_REPORT_EXT4_LOST;
		e->disk = HOLDERS_DATA_ZEROS;
		return;
	}
	if (c->event == HOLDERS_EV_PAGEOUT && foll_get) {
		say(e, "MADV_PAGEOUT's reclaim skips a page only if folio_maybe_dma_pinned() "
		    "(6.1 mm/vmscan.c:1904), and this one holds a reference, not a pin: "
		    "filemap_release_folio() (6.1 mm/vmscan.c:2002-2004) runs "
		    "ext4_release_folio() (6.1 fs/ext4/inode.c:3310-3322), which frees the clean "
		    "buffers, before the reference fails the removal; the release dirties a "
		    "page without buffers: WARNING in ext4_dirty_folio() (6.1 "
		    "fs/ext4/inode.c:3664), and writeback's ext4_warning_inode() drops it (6.1 "
		    "fs/ext4/inode.c:2670-2675); the disk keeps what the fsync wrote");
		e->report = HOLDERS_REPORT_EXT4_LOST;
		e->disk = HOLDERS_DATA_OLD;
		return;
	}
	if (c->event == HOLDERS_EV_PAGEOUT)
		say(e, "reclaim skips the page after unmapping it, as folio_maybe_dma_pinned() "
		    "(%s): its buffers stay; ",
		    k->kernel == POLICY_KERNEL_612 ? "6.12 mm/vmscan.c:1343" : "6.1 mm/vmscan.c:1904");
	else if (c->event == HOLDERS_EV_DROP_CACHES)
		say(e, "drop_caches' mapping_evict_folio() refuses a folio with an extra "
		    "reference before releasing anything (6.1 mm/truncate.c:294-307, 6.12 "
		    "mm/truncate.c:288-303); ");
	else if (c->event == HOLDERS_EV_MOVE_EXT_ORIG)
		say(e, "MOVE_EXT gives the orig page new buffers with create_empty_buffers(), "
		    "mapped and dirtied (6.1 fs/ext4/move_extent.c:381-395); ");
	say(e, "ext4_page_mkwrite() attached buffers at the pin (6.1 fs/ext4/inode.c:6298, "
	    "6.12 fs/ext4/inode.c:6256) and they are still there: writeback writes the "
	    "re-dirtied page");
	e->disk = HOLDERS_DATA_NEW;
}

/*
 * ext4 mounted data=journal: every page written through a mapping has
 * buffers that ext4_page_mkwrite() journalled, and a page dirtied behind
 * ext4's back is journalled at writeback (docs/filesystems-guide.md,
 * "ext4 data=journal").
 */
static void expect_ext4j(const struct holders_kernel *k, const struct holders_cell *c,
			 bool foll_get, struct holders_expectation *e)
{
	say(e, "data=journal: ext4_page_mkwrite() gave the page buffers and journalled them "
	    "(%s); ", on(k, "do_journal_get_write_access() at 6.1 fs/ext4/inode.c:6412-6414, "
			 "ext4_journal_folio_buffers() at 6.12 fs/ext4/inode.c:6369",
			 "ext4_journal_folio_buffers() at 7.3 fs/ext4/inode.c:6879"));
	if (c->event == HOLDERS_EV_PAGEOUT && foll_get)
		say(e, "MADV_PAGEOUT's reclaim skips only a pinned page, but the event's commit "
		    "left the buffers dirty for the checkpoint, which dirties the folio "
		    "(mark_buffer_dirty() in __jbd2_journal_temp_unlink_buffer(), 6.1 "
		    "fs/jbd2/transaction.c:2083-2084), and reclaim outside kswapd keeps a dirty "
		    "file folio, folio_set_reclaim() and activate_locked (6.1 "
		    "mm/vmscan.c:1908-1934): its buffers stay; ");
	else if (c->event == HOLDERS_EV_PAGEOUT)
		say(e, "reclaim skips the page after unmapping it, as folio_maybe_dma_pinned() "
		    "(%s): its buffers stay; ",
		    k->kernel == POLICY_KERNEL_73 ? "7.3 mm/vmscan.c:1365" :
		    k->kernel == POLICY_KERNEL_612 ? "6.12 mm/vmscan.c:1343" : "6.1 mm/vmscan.c:1904");
	else if (c->event == HOLDERS_EV_DROP_CACHES)
		say(e, "drop_caches' mapping_evict_folio() refuses a folio with an extra "
		    "reference (%s); ", on(k, "6.1 mm/truncate.c:294-307, 6.12 mm/truncate.c:288-303",
					   "7.3 mm/truncate.c:327-342"));
	if (k->kernel == POLICY_KERNEL_61)
		say(e, "the dirty release goes to ext4_journalled_dirty_folio(), which marks every "
		    "folio it dirties checked (6.1 fs/ext4/inode.c:3653-3659), and ext4_writepage() "
		    "journals a checked page with __ext4_journalled_writepage() (6.1 "
		    "fs/ext4/inode.c:2097-2102)");
	else
		say(e, "the dirty release goes to ext4_journalled_dirty_folio(), which marks a "
		    "folio_maybe_dma_pinned() folio checked, the pending dirty (%s), and "
		    "writeback's mpage_prepare_extent_to_map() journals a checked folio's buffers "
		    "with mpage_journal_page_buffers() (%s)",
		    on(k, "6.12 fs/ext4/inode.c:3575-3582", "7.3 fs/ext4/inode.c:3925-3931"),
		    on(k, "6.12 fs/ext4/inode.c:2550-2551", "7.3 fs/ext4/inode.c:2731-2732"));
	say(e, ": the holder's write is committed, and the unmount checkpoints it to the "
	    "file's blocks; no report");
	e->disk = HOLDERS_DATA_NEW;
}

static void expect_xfs(const struct holders_kernel *k, const struct holders_cell *c,
		       struct holders_expectation *e)
{
	say(e, "xfs/iomap writeback needs no per-page state with one block per folio and "
	    "writes a dirty page over a real extent in place: xfs_bmbt_to_iomap() of the "
	    "data fork's extent (%s)", on(k, "6.1 fs/xfs/xfs_aops.c:337, 6.12 fs/xfs/xfs_aops.c:349",
					  "7.3 fs/xfs/xfs_aops.c:269"));
	e->disk = HOLDERS_DATA_NEW;
	if (c->event == HOLDERS_EV_FICLONE) {
		say(e, ", after FICLONE shared it: no page_mkwrite ran since to reserve a "
		    "COW-fork extent, so xfs_map_blocks() finds none though "
		    "xfs_inode_has_cow_data() (%s) and writeback overwrites the block the clone "
		    "shares: the clone reads NEW",
		    on(k, "6.1 fs/xfs/xfs_aops.c:284-337, 6.12 fs/xfs/xfs_aops.c:296-349",
		       "7.3 fs/xfs/xfs_aops.c:216-269"));
		e->clone = HOLDERS_DATA_NEW;
	}
}

static void expect_btrfs(const struct holders_kernel *k, const struct holders_cell *c,
			 struct holders_expectation *e)
{
	if (!event_writes_back(c)) {
		say(e, "no writeback met the page while held: the delalloc "
		    "btrfs_reset_extent_delalloc() set at the pin (%s) is still there, and the "
		    "fsync writes the page",
		    on(k, "6.1 fs/btrfs/inode.c:8802, 6.12 fs/btrfs/file.c:1972",
		       "7.3 fs/btrfs/file.c:1928"));
		e->disk = HOLDERS_DATA_NEW;
		return;
	}
	if (k->kernel == POLICY_KERNEL_73) {
		say(e, "the event's writeback left the page clean; the release dirties it behind "
		    "btrfs' back through btrfs_data_dirty_folio() (7.3 "
		    "fs/btrfs/inode.c:10803-10817), whose btrfs_folio_set_fixup_dirty() marks a "
		    "clean folio with folio_set_fixup_pending() (7.3 fs/btrfs/subpage.c:561-564); "
		    "writeback's " BTRFS73_FIXUP_WRITEBACK ", whose close_ctree() runs "
		    BTRFS73_FIXUP_UNMOUNT " (the fsync may return before the page is on disk: "
		    "not measured here)");
		e->disk = HOLDERS_DATA_NEW;
		if (c->event == HOLDERS_EV_FICLONE) {
			say(e, "; COW gives the file a new extent, the clone keeps the old one");
			e->clone = HOLDERS_DATA_OLD;
		}
		return;
	}
	if (k->kernel == POLICY_KERNEL_612) {
		say(e, "the event's writeback left the page clean and not ordered; the release "
		    "dirties it behind btrfs' back, and since the COW fixup's removal (stable "
		    "6.12.97) writeback refuses a folio that is not folio_test_ordered(): "
		    "btrfs_err_rl() \"is marked dirty without notifying the fs\", dirty bit "
		    "cleared, and mapping_set_error() for the fsync (6.12 "
		    "fs/btrfs/extent_io.c:1546-1556, 1680-1691), which start_ordered_ops() "
		    "returns (6.12 fs/btrfs/file.c:1622-1624)");
		e->report = HOLDERS_REPORT_BTRFS_REFUSED;
		e->fsync_fails = true;
		e->disk = HOLDERS_DATA_OLD;
		if (c->event == HOLDERS_EV_FICLONE)
			e->clone = HOLDERS_DATA_OLD;
		return;
	}
	say(e, "the release dirties the clean page behind btrfs' back; 6.1's writeback "
	    "queues the COW fixup, btrfs_writepage_cow_fixup() (6.1 "
	    "fs/btrfs/extent_io.c:2104-2110, 6.1 fs/btrfs/inode.c:3028-3067), which makes "
	    "it proper delalloc, written later");
	e->disk = HOLDERS_DATA_NEW;
	if (c->event == HOLDERS_EV_FICLONE) {
		say(e, "; COW gives the file a new extent, the clone keeps the old one");
		e->clone = HOLDERS_DATA_OLD;
	}
}

int holders_expect(const struct holders_kernel *k, const struct holders_cell *c,
		   struct holders_expectation *e)
{
	static const char * const policies[] = {
		"stock", "v1", "v7", "v9", "mainline", "latest"
	};
	enum holders_data left;
	bool known = false, dropped, foll_get;
	size_t i;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < ARRAY_SIZE(policies); i++)
		known |= !strcmp(k->policy, policies[i]);
	if (!known || !holders_cell_valid(c) || k->kernel >= POLICY_KERNEL_COUNT)
		return -EINVAL;
	e->run = true;
	/* On 6.1 the iov_iter holders take a reference, not a pin. */
	foll_get = k->kernel == POLICY_KERNEL_61 && c->holder != HOLDERS_PVW;

	left = event_leaves(k, c, &dropped, e);
	if (c->event == HOLDERS_EV_FICLONE && c->fs != HOLDERS_FS_EXT4 &&
	    c->fs != HOLDERS_FS_EXT4J)
		e->clone = HOLDERS_DATA_OLD;
	if (holder_refused(k, c, e)) {
		e->refused = true;
		e->disk = left;
		return 0;
	}
	if (dropped) {
		say(e, "the holder's write is dropped with the page");
		e->disk = left;
		return 0;
	}
	switch (c->fs) {
	case HOLDERS_FS_EXT4:
		expect_ext4(k, c, foll_get, e);
		break;
	case HOLDERS_FS_XFS:
		expect_xfs(k, c, e);
		break;
	case HOLDERS_FS_EXT4J:
		expect_ext4j(k, c, foll_get, e);
		break;
	default:
		expect_btrfs(k, c, e);
		break;
	}
	if (e->report == HOLDERS_REPORT_EXT4_LOST && k->ext4_bug) {
		e->run = false;
		say(e, "; with cc5095747edf reverted the fsync BUGs in page_buffers() and the "
		    "guest panics: not run here, the reproduction (make repro) boots such cells "
		    "alone");
	}
	return 0;
}

/*
 * event_leaves() decides whether the page leaves the file by the event
 * and file system alone (its kernel only picks the lines it cites): ask
 * it on any kernel.
 */
bool holders_page_stays(const struct holders_cell *c)
{
	struct holders_kernel k = { .policy = "stock", .kernel = POLICY_KERNEL_61 };
	struct holders_expectation e;
	bool dropped;

	memset(&e, 0, sizeof(e));
	event_leaves(&k, c, &dropped, &e);
	return !dropped;
}

bool holders_expect_finding(const struct holders_cell *c, const struct holders_expectation *e)
{
	return holders_finding(e->refused, holders_page_stays(c), e->disk, e->clone);
}
