// SPDX-License-Identifier: GPL-2.0
/*
 * repro: the ext4-2018 reproduction's expectations (repro.h).
 *
 * Line numbers are those of the flavour's own tree (repro_cites): 6.1.192's
 * (Debian linux-source-6.1 6.1.192-3) as the stock and gup-v1 trees have
 * them, gup-v7's and gup-v9's where their series move mm/gup.c, ext4-2018's
 * (ext4=bug: cc5095747edf reverted moves fs/ext4/inode.c), or 6.12.118's
 * for a policy of 6.12, 7.3.4's for latest; the BUG's line comes from
 * the flavour's tree too (--bug-site).  The code they cite is the same in
 * all of them: cc5095747edf's warning is still 7.3's, and 7.3's rewritten
 * move_extent.c still frees a pinned donor's buffers.  The xfs and btrfs
 * reasons of a 6.1 or 6.12 policy cite both versions, "6.1 F:L" and
 * "6.12 F:L" (docs/filesystems-guide.md, sections 1, 2 and 8, derives
 * each): their code is the same in every 6.1 flavour, and differs between
 * 6.1 and 6.12 where btrfs' does; a 7.3 policy's cite "7.3 F:L" alone
 * (7.3's btrfs fixes a page dirtied behind its back up again).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gup_pin_test.h"
#include "lib/gupdev.h"
#include "model/cite73.h"
#include "model/repro.h"

struct repro_cites {
	const char *move_release;	/* move_extent_per_page()'s release */
	const char *release_folio;	/* ext4_release_folio() */
	const char *free_buffers;	/* try_to_free_buffers() */
	const char *buffer_busy;	/* buffer_busy() */
	const char *page_mkwrite;	/* ext4_page_mkwrite() */
	const char *block_mkwrite;	/* its block_page_mkwrite() call */
	const char *readpages;		/* ext4_mpage_readpages() */
	const char *confused;		/* its block_read_full_folio() fallback */
	const char *unpin_dirty;	/* unpin_user_pages_dirty_lock() */
	const char *set_dirty_lock;	/* set_page_dirty_lock() */
	const char *dirty_folio_warn;	/* ext4_dirty_folio()'s no-buffers WARN */
	const char *no_buffers_warn;	/* mpage_prepare_extent_to_map()'s warning */
	const char *mark_unwritten;	/* ext4_swap_extents()'s unwritten donor */
	const char *hole_read;		/* ext4_mpage_readpages()' first_hole branch */
	const char *move_fn;		/* the MOVE_EXT function that releases */
};

static const struct repro_cites repro_cites_61 = {
	"fs/ext4/move_extent.c:361", "fs/ext4/inode.c:3310", "fs/buffer.c:2815",
	"fs/buffer.c:2782", "fs/ext4/inode.c:6298", "fs/ext4/inode.c:6338",
	"fs/ext4/readpage.c:225", "fs/ext4/readpage.c:399", "mm/gup.c:323",
	"mm/page-writeback.c:2788", "fs/ext4/inode.c:3664",
	"fs/ext4/inode.c:2671-2672", "fs/ext4/extents.c:5827-5828",
	"fs/ext4/readpage.c:340-349", "move_extent_per_page()",
};

/* gup-v7 and gup-v9: the series move mm/gup.c, nothing else cited here */
static const struct repro_cites repro_cites_v7 = {
	"fs/ext4/move_extent.c:361", "fs/ext4/inode.c:3310", "fs/buffer.c:2815",
	"fs/buffer.c:2782", "fs/ext4/inode.c:6298", "fs/ext4/inode.c:6338",
	"fs/ext4/readpage.c:225", "fs/ext4/readpage.c:399", "mm/gup.c:381",
	"mm/page-writeback.c:2788", "fs/ext4/inode.c:3664",
	"fs/ext4/inode.c:2671-2672", "fs/ext4/extents.c:5827-5828",
	"fs/ext4/readpage.c:340-349", "move_extent_per_page()",
};

static const struct repro_cites repro_cites_v9 = {
	"fs/ext4/move_extent.c:361", "fs/ext4/inode.c:3310", "fs/buffer.c:2815",
	"fs/buffer.c:2782", "fs/ext4/inode.c:6298", "fs/ext4/inode.c:6338",
	"fs/ext4/readpage.c:225", "fs/ext4/readpage.c:399", "mm/gup.c:324",
	"mm/page-writeback.c:2788", "fs/ext4/inode.c:3664",
	"fs/ext4/inode.c:2671-2672", "fs/ext4/extents.c:5827-5828",
	"fs/ext4/readpage.c:340-349", "move_extent_per_page()",
};

/*
 * ext4-2018 (stock's GUP, ext4=bug): the revert of cc5095747edf moves
 * fs/ext4/inode.c's lines, and takes the no-buffers warning away.
 */
static const struct repro_cites repro_cites_ext4_2018 = {
	"fs/ext4/move_extent.c:361", "fs/ext4/inode.c:3285", "fs/buffer.c:2815",
	"fs/buffer.c:2782", "fs/ext4/inode.c:6273", "fs/ext4/inode.c:6313",
	"fs/ext4/readpage.c:225", "fs/ext4/readpage.c:399", "mm/gup.c:323",
	"mm/page-writeback.c:2788", "fs/ext4/inode.c:3639",
	"(none: cc5095747edf reverted)", "fs/ext4/extents.c:5827-5828",
	"fs/ext4/readpage.c:340-349", "move_extent_per_page()",
};

static const struct repro_cites repro_cites_612 = {
	"fs/ext4/move_extent.c:369", "fs/ext4/inode.c:3256", "fs/buffer.c:2961",
	"fs/buffer.c:2904", "fs/ext4/inode.c:6256", "fs/ext4/inode.c:6296",
	"fs/ext4/readpage.c:211", "fs/ext4/readpage.c:382", "mm/gup.c:290",
	"mm/page-writeback.c:2930", "fs/ext4/inode.c:3587",
	"fs/ext4/inode.c:2526-2527", "fs/ext4/extents.c:5711-5712",
	"fs/ext4/readpage.c:324-332", "move_extent_per_page()",
};

/*
 * 7.3.4: move_extent.c rewritten around folios (mext_move_extent()
 * releases both folios), set_page_dirty_lock() moved to folio-compat.c.
 */
static const struct repro_cites repro_cites_73 = {
	"fs/ext4/move_extent.c:350-351", "fs/ext4/inode.c:3425", "fs/buffer.c:2804",
	"fs/buffer.c:2728", "fs/ext4/inode.c:6893", "fs/ext4/inode.c:6932-6933",
	"fs/ext4/readpage.c:137", "fs/ext4/readpage.c:310", "mm/gup.c:284",
	"mm/folio-compat.c:51", "fs/ext4/inode.c:3937",
	"fs/ext4/inode.c:2707-2708", "fs/ext4/extents.c:6014-6015",
	"fs/ext4/readpage.c:254-262", "mext_move_extent()",
};

/* The citations of the kernel source the policy's code is from. */
static const struct repro_cites *repro_cites_for(const char *policy)
{
	const char *src = policy_source(policy);

	if (src && !strcmp(src, "6.12"))
		return &repro_cites_612;
	if (src && !strcmp(src, "7.3"))
		return &repro_cites_73;
	if (!strcmp(policy, "v7"))
		return &repro_cites_v7;
	if (!strcmp(policy, "v9"))
		return &repro_cites_v9;
	return &repro_cites_61;
}

const char * const repro_route_choices[REPRO_ROUTE_COUNT + 1] = {
	[REPRO_ROUTE_READ]	= "read",
	[REPRO_ROUTE_MOVE_EXT]	= "move-ext",
	[REPRO_ROUTE_HOLE]	= "hole",
	[REPRO_ROUTE_SWAPEXT]	= "swapext",
	[REPRO_ROUTE_WRITEBACK]	= "writeback",
};

const char * const repro_fs_choices[REPRO_FS_COUNT + 1] = {
	[REPRO_FS_EXT4]		= "ext4",
	[REPRO_FS_XFS]		= "xfs",
	[REPRO_FS_BTRFS]	= "btrfs",
};

enum repro_fs repro_route_fs(enum repro_route r)
{
	switch (r) {
	case REPRO_ROUTE_MOVE_EXT:
		return REPRO_FS_EXT4;
	case REPRO_ROUTE_SWAPEXT:
		return REPRO_FS_XFS;
	case REPRO_ROUTE_WRITEBACK:
		return REPRO_FS_BTRFS;
	default:
		return REPRO_FS_COUNT;
	}
}

const char * const repro_ext4_choices[REPRO_EXT4_COUNT + 1] = {
	[REPRO_EXT4_WARN]	= "warn",
	[REPRO_EXT4_BUG]	= "bug",
};

bool repro_cell_valid(const struct repro_cell *c, const char **why)
{
	if (c->route >= REPRO_ROUTE_COUNT || c->method >= GUP_PIN_METHOD_COUNT ||
	    c->fs >= REPRO_FS_COUNT) {
		*why = "no such route, method or file system";
		return false;
	}
	if (repro_route_fs(c->route) != REPRO_FS_COUNT && repro_route_fs(c->route) != c->fs) {
		*why = "move-ext is ext4's EXT4_IOC_MOVE_EXT, swapext xfs' XFS_IOC_SWAPEXT and writeback btrfs' route: give its --fs (ext4, xfs, btrfs)";
		return false;
	}
	if ((c->flags & GUP_PIN_FLAG_LONGTERM) &&
	    (!method_is_pin(c->method) || method_is_unlocked(c->method))) {
		*why = "FOLL_LONGTERM without FOLL_PIN is refused by every kernel, and 6.1 refuses it with the unlocked variants too, before it looks at any page (the matrix shows it); the reproduction's cells are the same on every flavour: give --method pin, pin-fast or pin-remote";
		return false;
	}
	if (c->flags & ~(GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_LONGTERM)) {
		*why = "the reproduction takes FOLL_WRITE and FOLL_LONGTERM only";
		return false;
	}
	return true;
}

/*
 * Does the page still have buffer heads when the pin's holder dirties it?
 * @why (of @size): how the route got there, citing @k.
 */
static bool repro_buffers_at_unpin(const struct repro_cell *c,
				   const struct repro_cites *k, char *why,
				   size_t size)
{
	if (c->route == REPRO_ROUTE_MOVE_EXT) {
		snprintf(why, size,
			 "ext4_page_mkwrite() attached buffers, fsync cleaned them, then "
			 "EXT4_IOC_MOVE_EXT's %s called filemap_release_folio() "
			 "on the pinned donor page (%s): ext4_release_folio() (%s) -> "
			 "try_to_free_buffers() (%s) checks buffer_busy() (%s), never the page's "
			 "references", k->move_fn, k->move_release, k->release_folio,
			 k->free_buffers, k->buffer_busy);
		return false;
	}
	if (c->flags & GUP_PIN_FLAG_WRITE) {
		snprintf(why, size,
			 "FOLL_WRITE: GUP's write fault runs ext4_page_mkwrite() (%s), whose "
			 "block_page_mkwrite() (%s) attaches buffers", k->page_mkwrite,
			 k->block_mkwrite);
		return true;
	}
	if (c->route == REPRO_ROUTE_HOLE) {
		snprintf(why, size,
			 "no FOLL_WRITE, no page_mkwrite: the file is sparse, and "
			 "ext4_mpage_readpages() (%s) zero-fills a page over a hole in its "
			 "first_hole branch and marks it uptodate, without buffers (%s)",
			 k->readpages, k->hole_read);
		return false;
	}
	snprintf(why, size,
		 "no FOLL_WRITE, no page_mkwrite: ext4_mpage_readpages() (%s) read the page "
		 "with a bio of its own, without buffers (only its 'confused' fallback, "
		 "block_read_full_folio() at %s, attaches them)", k->readpages, k->confused);
	return false;
}

/* How the dirty release reaches ext4_dirty_folio(). */
static void repro_dirty_release(unsigned int method, const struct repro_cites *k,
				char *buf, size_t size)
{
	if (method_is_pin(method))
		snprintf(buf, size, "unpin_user_pages_dirty_lock() (%s)", k->unpin_dirty);
	else
		snprintf(buf, size, "set_page_dirty_lock() (%s)", k->set_dirty_lock);
}

static void repro_report(struct repro_expectation *e, const char *kind,
			 const char *where, const char *why)
{
	struct repro_report_exp *r = &e->reports[e->nr_reports++];

	r->kind = kind;
	snprintf(r->where, sizeof(r->where), "%s", where);
	r->why = why;
}

/*
 * ext4=warn, 6.1 as packaged: cc5095747edf's check in front of
 * page_buffers() warns, clears the dirty bit and moves on: the write is lost.
 */
static void repro_ext4_warn(const struct repro_cell *c, const char *why,
			    const struct repro_cites *k, struct repro_expectation *e)
{
	/*
	 * The disk keeps step 1's OLD bytes; move-ext's donor extent is
	 * unwritten, and a hole stays one.
	 */
	bool moved = c->route == REPRO_ROUTE_MOVE_EXT, hole = c->route == REPRO_ROUTE_HOLE;
	char release[96], unwritten[160] = "";

	repro_dirty_release(c->method, k, release, sizeof(release));
	if (moved)
		snprintf(unwritten, sizeof(unwritten),
			 "; ext4_swap_extents() marked the donor's new extent unwritten (%s): "
			 "the disk reads zeros", k->mark_unwritten);
	else if (hole)
		snprintf(unwritten, sizeof(unwritten),
			 "; the file has no block there: the disk reads zeros");
	snprintf(e->outcome, sizeof(e->outcome), REPRO_OUT_EXT4_LOST,
		 moved || hole ? "ZEROS" : "OLD");
	snprintf(e->reason, sizeof(e->reason),
		 "%s; the dirty release, %s, WARNs in ext4_dirty_folio() "
		 "(%s: no buffers); fsync's mpage_prepare_extent_to_map() warns "
		 "'does not have buffers attached' and ClearPageDirty()s the page unwritten "
		 "(%s, cc5095747edf)%s",
		 why, release, k->dirty_folio_warn, k->no_buffers_warn, unwritten);
}

/* ext4=bug, cc5095747edf reverted: page_buffers() BUGs, the guest panics. */
static void repro_ext4_bug(const struct repro_cell *c, const char *why,
			   const char *bug_site, const struct repro_cites *k,
			   struct repro_expectation *e)
{
	char site[64], release[96];

	repro_dirty_release(c->method, k, release, sizeof(release));
	snprintf(site, sizeof(site), "%s", bug_site ? bug_site : "fs/ext4/inode.c:?");
	snprintf(e->outcome, sizeof(e->outcome), "BUG (%s)", site);
	snprintf(e->reason, sizeof(e->reason),
		 "%s; the dirty release, %s, WARNs in ext4_dirty_folio(); with cc5095747edf "
		 "reverted fsync's mpage_prepare_extent_to_map() calls page_buffers() on the page "
		 "and its BUG_ON(!PagePrivate(page)) fires (%s%s)",
		 why, release, site,
		 bug_site ? " in the flavour's tree" : ": line not given");
	repro_report(e, "bug", site, "page_buffers()'s BUG_ON in mpage_prepare_extent_to_map()");
	repro_report(e, "panic", "", "the lab boots with oops=panic (qemu/run.sh): the BUG panics");
}

bool repro_ends_boot(const struct repro_expectation *e)
{
	unsigned int i;

	for (i = 0; i < e->nr_reports; i++)
		if (!strcmp(e->reports[i].kind, "bug") || !strcmp(e->reports[i].kind, "oops") ||
		    !strcmp(e->reports[i].kind, "panic"))
			return true;
	return false;
}

/* What the dirty release and fsync make of a page dirtied behind xfs' back. */
static const char xfs_writeback[] =
	"the dirty release needs no per-page state: xfs' ->dirty_folio is "
	"filemap_dirty_folio (6.1 fs/xfs/xfs_aops.c:545) or iomap_dirty_folio, whose "
	"ifs_alloc() makes none for one block per folio (6.12 fs/xfs/xfs_aops.c:578, "
	"6.12 fs/iomap/buffered-io.c:687); fsync's iomap_writepage_map() asks "
	"xfs_map_blocks() for the page's blocks";

/* The same on 7.3.4, whose iomap writeback moved to ->writeback_range. */
static const char xfs_writeback_73[] =
	"the dirty release needs no per-page state: xfs' ->dirty_folio is "
	"iomap_dirty_folio (7.3 fs/xfs/xfs_aops.c:684), whose ifs_alloc() makes none "
	"for one block per folio (7.3 fs/iomap/buffered-io.c:251-259); fsync's "
	"xfs_writeback_range() asks xfs_map_blocks() for the page's blocks";


/*
 * xfs (iomap): writeback needs nothing from the page but its dirty bit
 * and looks its blocks up in the inode's extent tree (the guide's
 * section 2): a page over a real extent is written, one over a hole is
 * skipped without a word, one that left the file is nobody's.
 */
static void repro_xfs(const struct repro_cell *c, bool v73, const char *pin,
		      struct repro_expectation *e)
{
	bool write = c->flags & GUP_PIN_FLAG_WRITE;
	const char *wb = cite73(v73, xfs_writeback, xfs_writeback_73);

	if (c->route == REPRO_ROUTE_SWAPEXT) {
		snprintf(e->outcome, sizeof(e->outcome), REPRO_OUT_DROPPED, "OLD");
		snprintf(e->reason, sizeof(e->reason),
			 "%s; XFS_IOC_SWAPEXT's xfs_swap_extent_flush() writes back and "
			 "truncate_pagecache_range()s both files (%s), and truncate_inode_pages_range() "
			 "removes every locked folio, whatever its references, with "
			 "delete_from_page_cache_batch() (%s): the held page leaves the file before "
			 "the extents move; the write lands in a page of no file, whose dirty release "
			 "finds no mapping: folio_mark_dirty() calls noop_dirty_folio() (%s); the "
			 "file holds the other file's blocks, OLD, and the guest reads them too", pin,
			 cite73(v73, "6.1 fs/xfs/xfs_bmap_util.c:1367-1381, 6.12 "
			     "fs/xfs/xfs_bmap_util.c:1215-1229", "7.3 fs/xfs/xfs_bmap_util.c:1255-1269"),
			 cite73(v73, "6.1 mm/truncate.c:388-394, 6.12 mm/truncate.c:363-368",
			     "7.3 mm/truncate.c:402-409"),
			 cite73(v73, "6.1 mm/page-writeback.c:2774, 6.12 mm/page-writeback.c:2916",
			     "7.3 mm/page-writeback.c:2793"));
		return;
	}
	if (write && c->route == REPRO_ROUTE_HOLE) {
		snprintf(e->outcome, sizeof(e->outcome), REPRO_OUT_NO_LOSS);
		snprintf(e->reason, sizeof(e->reason),
			 "%s; FOLL_WRITE: the write fault runs iomap_page_mkwrite() (%s), whose "
			 "xfs_buffered_write_iomap_begin() reserves a delalloc extent over the hole "
			 "with xfs_bmapi_reserve_delalloc() (%s); %s, which finds the delalloc "
			 "extent and allocates it (isnullstartblock(), %s): the page is written", pin,
			 cite73(v73, "6.1 fs/xfs/xfs_file.c:1365, 6.12 fs/xfs/xfs_file.c:1471",
			     "7.3 fs/xfs/xfs_file.c:2024-2025"),
			 cite73(v73, "6.1 fs/xfs/xfs_iomap.c:1129, 6.12 fs/xfs/xfs_iomap.c:1171",
			     "7.3 fs/xfs/xfs_iomap.c:2073-2075"), wb,
			 cite73(v73, "6.1 fs/xfs/xfs_aops.c:333-335, 6.12 fs/xfs/xfs_aops.c:345-347",
			     "7.3 fs/xfs/xfs_aops.c:265-267"));
		return;
	}
	if (c->route == REPRO_ROUTE_HOLE) {
		snprintf(e->outcome, sizeof(e->outcome), REPRO_OUT_SILENT, "ZEROS");
		snprintf(e->reason, sizeof(e->reason),
			 "%s; no FOLL_WRITE, no page_mkwrite: the file is sparse, the read fault "
			 "zero-filled the page and nothing reserved a block; %s, which lands in a "
			 "hole (HOLESTARTBLOCK: %s), and iomap skips an IOMAP_HOLE range without "
			 "a word (%s): the dirty bit is gone, nothing is "
			 "written, fsync returns 0, no report; the guest's cache keeps NEW while "
			 "the page stays", pin, wb,
			 cite73(v73, "6.1 fs/xfs/xfs_aops.c:314-319, 6.12 fs/xfs/xfs_aops.c:326-331",
			     "7.3 fs/xfs/xfs_aops.c:247-252"),
			 cite73(v73, "6.1 fs/iomap/buffered-io.c:1626-1627, 6.12 "
			     "fs/iomap/buffered-io.c:1900-1901", "7.3 fs/iomap/ioend.c:232-233"));
		return;
	}
	snprintf(e->outcome, sizeof(e->outcome), REPRO_OUT_NO_LOSS);
	snprintf(e->reason, sizeof(e->reason),
		 "%s; %s (%s); %s, which finds the file's real extent and maps it with "
		 "xfs_bmbt_to_iomap() (%s): the page is written in place", pin,
		 write ? "FOLL_WRITE: the write fault runs iomap_page_mkwrite()" :
		 "no FOLL_WRITE, so no iomap_page_mkwrite()",
		 cite73(v73, "6.1 fs/xfs/xfs_file.c:1365, 6.12 fs/xfs/xfs_file.c:1471",
		     "7.3 fs/xfs/xfs_file.c:2024-2025"), wb,
		 cite73(v73, "6.1 fs/xfs/xfs_aops.c:337, 6.12 fs/xfs/xfs_aops.c:349",
		     "7.3 fs/xfs/xfs_aops.c:269"));
}

/*
 * btrfs on 7.3: btrfs_data_dirty_folio() marks a clean folio dirtied
 * without a reservation for the writepage fixup, whose worker makes it
 * delalloc: every route's write reaches the disk.
 */
static void repro_btrfs_73(const struct repro_cell *c, const char *pin,
			   struct repro_expectation *e)
{
	bool write = c->flags & GUP_PIN_FLAG_WRITE;
	const char *before;

	snprintf(e->outcome, sizeof(e->outcome), REPRO_OUT_NO_LOSS);
	if (write && c->route != REPRO_ROUTE_WRITEBACK) {
		snprintf(e->reason, sizeof(e->reason),
			 "%s; FOLL_WRITE: the write fault runs btrfs_page_mkwrite() (7.3 "
			 "fs/btrfs/file.c:1815), which sets delalloc with "
			 "btrfs_reset_extent_delalloc() (7.3 fs/btrfs/file.c:1928); no writeback "
			 "ran before the dirty release, so fsync's writeback finds the delalloc "
			 "range and writes the page", pin);
		return;
	}
	if (c->route == REPRO_ROUTE_WRITEBACK)
		before = "btrfs_page_mkwrite() set delalloc (btrfs_reset_extent_delalloc(): 7.3 "
			 "fs/btrfs/file.c:1928), and the fsync while held wrote the page: it is "
			 "clean, its delalloc range spent";
	else if (c->route == REPRO_ROUTE_HOLE)
		before = "no FOLL_WRITE, no btrfs_page_mkwrite(): the page was zero-filled over "
			 "a hole, clean, with no delalloc range";
	else
		before = "no FOLL_WRITE, no btrfs_page_mkwrite(): the page was read in, clean, "
			 "with no delalloc range";
	snprintf(e->reason, sizeof(e->reason),
		 "%s; %s; the dirty release reaches btrfs_data_dirty_folio() (7.3 "
		 "fs/btrfs/inode.c:10803-10817), whose btrfs_folio_set_fixup_dirty() marks the "
		 "clean folio with folio_set_fixup_pending() (7.3 fs/btrfs/subpage.c:561-564); "
		 "fsync's " BTRFS73_FIXUP_WRITEBACK " close_ctree(), which runs "
		 BTRFS73_FIXUP_UNMOUNT ", the host reads NEW; 6.12.118 refuses such a page "
		 "instead", pin, before);
}

/*
 * btrfs: a dirty page writeback finds no delalloc for, and not Ordered,
 * was dirtied behind btrfs' back: 6.1's COW fixup makes it delalloc,
 * 6.12 (the fixup removed in stable 6.12.97) refuses it (the guide's
 * section 2), 7.3 fixes it up again (repro_btrfs_73()).
 */
static void repro_btrfs(const struct repro_cell *c, bool v612, const char *pin,
			struct repro_expectation *e)
{
	bool write = c->flags & GUP_PIN_FLAG_WRITE;
	char why[512];

	if (write && c->route != REPRO_ROUTE_WRITEBACK) {
		snprintf(e->outcome, sizeof(e->outcome), REPRO_OUT_NO_LOSS);
		snprintf(e->reason, sizeof(e->reason),
			 "%s; FOLL_WRITE: the write fault runs btrfs_page_mkwrite() (6.1 "
			 "fs/btrfs/inode.c:8708, 6.12 fs/btrfs/file.c:1875), which sets delalloc with "
			 "btrfs_reset_extent_delalloc() (6.1 fs/btrfs/inode.c:8802, 6.12 "
			 "fs/btrfs/file.c:1972); no writeback ran before the dirty release, so "
			 "fsync's writeback finds the delalloc range and writes the page", pin);
		return;
	}
	if (c->route == REPRO_ROUTE_WRITEBACK)
		snprintf(why, sizeof(why),
			 "btrfs_page_mkwrite() set delalloc (btrfs_reset_extent_delalloc(): 6.1 "
			 "fs/btrfs/inode.c:8802, 6.12 fs/btrfs/file.c:1972), and the fsync while "
			 "held wrote the page: its write's end cleared the folio's Ordered flag "
			 "(btrfs_page_clear_ordered(), 6.1 fs/btrfs/ordered-data.c:399; "
			 "btrfs_folio_clear_ordered(), 6.12 fs/btrfs/extent_io.c:514)");
	else
		snprintf(why, sizeof(why),
			 "no FOLL_WRITE, no btrfs_page_mkwrite(): the page was %s with no "
			 "delalloc range and is not Ordered",
			 c->route == REPRO_ROUTE_HOLE ? "zero-filled over a hole" : "read in");
	if (v612) {
		snprintf(e->outcome, sizeof(e->outcome), REPRO_OUT_BTRFS_LOST,
			 c->route == REPRO_ROUTE_HOLE ? "ZEROS" : "OLD", "EUCLEAN");
		snprintf(e->reason, sizeof(e->reason),
			 "%s; %s; the dirty release tells btrfs nothing: its ->dirty_folio is "
			 "filemap_dirty_folio (6.12 fs/btrfs/inode.c:10303); fsync's "
			 "extent_writepage_io() finds the folio not folio_test_ordered(): "
			 "btrfs_err_rl() '" REPRO_BTRFS_REFUSED "', the dirty bit cleared, "
			 "EUCLEAN (6.12 fs/btrfs/extent_io.c:1546-1556), then extent_writepage()'s "
			 "'failed to submit blocks' and mapping_set_error() (6.12 "
			 "fs/btrfs/extent_io.c:1680-1691), and btrfs_sync_file() returns the error "
			 "of start_ordered_ops() (6.12 fs/btrfs/file.c:1622-1624); 6.1 fixed such a "
			 "page up instead, btrfs_writepage_cow_fixup() (6.1 "
			 "fs/btrfs/inode.c:3028-3067), removed in stable 6.12.97; the guest's cache "
			 "keeps NEW while the page stays", pin, why);
		return;
	}
	snprintf(e->outcome, sizeof(e->outcome), REPRO_OUT_NO_LOSS);
	snprintf(e->reason, sizeof(e->reason),
		 "%s; %s; the dirty release tells btrfs nothing: its ->dirty_folio is "
		 "filemap_dirty_folio (6.1 fs/btrfs/inode.c:11714); fsync's "
		 "__extent_writepage_io() meets a dirty page that is not Ordered: "
		 "btrfs_writepage_cow_fixup() queues the COW fixup and the page is "
		 "redirty_page_for_writepage()d (6.1 fs/btrfs/extent_io.c:2104-2110, 6.1 "
		 "fs/btrfs/inode.c:3028-3067), and the worker makes it delalloc with "
		 "btrfs_set_extent_delalloc() (6.1 fs/btrfs/inode.c:2973-2974): a later "
		 "writeback writes it (fsync may return first), no report; 6.12 refuses a "
		 "folio that is not folio_test_ordered() instead (6.12 "
		 "fs/btrfs/extent_io.c:1546-1556)", pin, why);
}

/* The .mmap that makes an xfs or btrfs mapping dirty-tracked, both versions. */
static const char * const repro_fs_mmap[REPRO_FS_COUNT] = {
	[REPRO_FS_XFS] = "xfs_file_mmap() sets vm_ops with page_mkwrite "
			 "(6.1 fs/xfs/xfs_file.c:1468, 6.12 fs/xfs/xfs_file.c:1580)",
	[REPRO_FS_BTRFS] = "btrfs_file_mmap() sets vm_ops with page_mkwrite "
			   "(6.1 fs/btrfs/file.c:2027, 6.12 fs/btrfs/file.c:2030)",
};

/* 7.3's: .mmap_prepare sets the vm_ops. */
static const char * const repro_fs_mmap_73[REPRO_FS_COUNT] = {
	[REPRO_FS_XFS] = "xfs_file_mmap_prepare() sets vm_ops with page_mkwrite "
			 "(7.3 fs/xfs/xfs_file.c:2151)",
	[REPRO_FS_BTRFS] = "btrfs_file_mmap_prepare() sets vm_ops with page_mkwrite "
			   "(7.3 fs/btrfs/file.c:2004)",
};

int repro_expect(const char *policy, enum repro_ext4 ext4, const char *bug_site,
		 const struct repro_cell *c, struct repro_expectation *e)
{
	/*
	 * The page as GUP meets it: MAP_SHARED, not in the page tables.  The
	 * policies decide an xfs or btrfs one as an ext4 one: each .mmap sets
	 * vm_ops with page_mkwrite, whatever the mapping (the guide's 1.2).
	 */
	struct cell mc = {
		.method = c->method,
		.flags = c->flags,
		.backing = BACKING_EXT4_SHARED,
		.state = STATE_NONE,
	};
	policy_fn gup = policy_lookup(policy);
	const struct repro_cites *k = repro_cites_for(policy);
	bool v73 = policy_kernel(policy) == POLICY_KERNEL_73;
	struct expectation pin;
	char route_why[512], why[1024], pin_why[1024];

	/* ext4=bug on 6.1 is ext4-2018's tree */
	if (k == &repro_cites_61 && ext4 == REPRO_EXT4_BUG)
		k = &repro_cites_ext4_2018;
	memset(e, 0, sizeof(*e));
	if (!gup || ext4 >= REPRO_EXT4_COUNT || c->fs >= REPRO_FS_COUNT)
		return -EINVAL;
	pin = gup(&mc);
	if (c->fs == REPRO_FS_EXT4)
		snprintf(pin_why, sizeof(pin_why), "%s", pin.reason);
	else
		snprintf(pin_why, sizeof(pin_why),
			 "the policy decides a MAP_SHARED %s page as an ext4 one, both "
			 "dirty-tracked: %s; %s", repro_fs_choices[c->fs],
			 (v73 ? repro_fs_mmap_73 : repro_fs_mmap)[c->fs], pin.reason);
	if (pin.outcome != OUTCOME_PINNED) {
		/* The judge's words: "+ kernel warning" when the refusal WARNs. */
		snprintf(e->outcome, sizeof(e->outcome), "blocked (%s)%s%s",
			 pin.outcome == OUTCOME_REFUSED ? errno_name(pin.err) : "not run",
			 pin.report.kind ? " + kernel " : "",
			 pin.report.kind ? pin.report.kind : "");
		snprintf(e->reason, sizeof(e->reason),
			 "the page is not mapped yet (GUP-fast falls back to the slow path): %s",
			 pin_why);
		/* The policy's own WARN (gup-v1); its line is the series'. */
		if (pin.report.kind)
			repro_report(e, pin.report.kind, "",
				     "the GUP policy's WARN_ON_ONCE on its refusal (the matrix matches its source line)");
		return 0;
	}
	if (c->fs == REPRO_FS_XFS) {
		repro_xfs(c, v73, pin_why, e);
		return 0;
	}
	if (c->fs == REPRO_FS_BTRFS && v73)
		repro_btrfs_73(c, pin_why, e);
	else if (c->fs == REPRO_FS_BTRFS)
		repro_btrfs(c, policy_kernel(policy) == POLICY_KERNEL_612, pin_why, e);
	if (c->fs == REPRO_FS_BTRFS)
		return 0;
	if (repro_buffers_at_unpin(c, k, route_why, sizeof(route_why))) {
		snprintf(e->outcome, sizeof(e->outcome), REPRO_OUT_NO_LOSS);
		snprintf(e->reason, sizeof(e->reason),
			 "%s; %s; the dirty page is written back normally",
			 pin.reason, route_why);
		return 0;
	}

	snprintf(why, sizeof(why), "%s; %s", pin.reason, route_why);
	repro_report(e, "warning", "ext4_dirty_folio",
		     "ext4_dirty_folio()'s WARN_ON_ONCE(!folio_buffers(folio))");
	if (ext4 == REPRO_EXT4_WARN)
		repro_ext4_warn(c, why, k, e);
	else
		repro_ext4_bug(c, why, bug_site, k, e);
	return 0;
}
