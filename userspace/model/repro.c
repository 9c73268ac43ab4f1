// SPDX-License-Identifier: GPL-2.0
/*
 * repro: the ext4-2018 reproduction's expectations (repro.h).
 *
 * Line numbers are those of the flavour's own tree (repro_cites): 6.1.192's
 * (Debian linux-source-6.1 6.1.192-3) as the stock and gup-v1 trees have
 * them, gup-v7's and gup-v9's where their series move mm/gup.c, ext4-2018's
 * (ext4=bug: cc5095747edf reverted moves fs/ext4/inode.c), or 6.12.118's
 * for a policy of 6.12; the BUG's line comes from the flavour's tree too
 * (--bug-site).  The code they cite is the same in all of them:
 * cc5095747edf's warning is still 6.12's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gup_pin_test.h"
#include "lib/gupdev.h"
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
};

static const struct repro_cites repro_cites_61 = {
	"fs/ext4/move_extent.c:361", "fs/ext4/inode.c:3310", "fs/buffer.c:2815",
	"fs/buffer.c:2782", "fs/ext4/inode.c:6298", "fs/ext4/inode.c:6338",
	"fs/ext4/readpage.c:225", "fs/ext4/readpage.c:399", "mm/gup.c:323",
	"mm/page-writeback.c:2788", "fs/ext4/inode.c:3664",
	"fs/ext4/inode.c:2671-2672", "fs/ext4/extents.c:5827-5828",
};

/* gup-v7 and gup-v9: the series move mm/gup.c, nothing else cited here */
static const struct repro_cites repro_cites_v7 = {
	"fs/ext4/move_extent.c:361", "fs/ext4/inode.c:3310", "fs/buffer.c:2815",
	"fs/buffer.c:2782", "fs/ext4/inode.c:6298", "fs/ext4/inode.c:6338",
	"fs/ext4/readpage.c:225", "fs/ext4/readpage.c:399", "mm/gup.c:381",
	"mm/page-writeback.c:2788", "fs/ext4/inode.c:3664",
	"fs/ext4/inode.c:2671-2672", "fs/ext4/extents.c:5827-5828",
};

static const struct repro_cites repro_cites_v9 = {
	"fs/ext4/move_extent.c:361", "fs/ext4/inode.c:3310", "fs/buffer.c:2815",
	"fs/buffer.c:2782", "fs/ext4/inode.c:6298", "fs/ext4/inode.c:6338",
	"fs/ext4/readpage.c:225", "fs/ext4/readpage.c:399", "mm/gup.c:324",
	"mm/page-writeback.c:2788", "fs/ext4/inode.c:3664",
	"fs/ext4/inode.c:2671-2672", "fs/ext4/extents.c:5827-5828",
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
};

static const struct repro_cites repro_cites_612 = {
	"fs/ext4/move_extent.c:369", "fs/ext4/inode.c:3256", "fs/buffer.c:2961",
	"fs/buffer.c:2904", "fs/ext4/inode.c:6256", "fs/ext4/inode.c:6296",
	"fs/ext4/readpage.c:211", "fs/ext4/readpage.c:382", "mm/gup.c:290",
	"mm/page-writeback.c:2930", "fs/ext4/inode.c:3587",
	"fs/ext4/inode.c:2526-2527", "fs/ext4/extents.c:5711-5712",
};

/* The citations of the kernel source the policy's code is from. */
static const struct repro_cites *repro_cites_for(const char *policy)
{
	const char *src = policy_source(policy);

	if (src && !strcmp(src, "6.12"))
		return &repro_cites_612;
	if (!strcmp(policy, "v7"))
		return &repro_cites_v7;
	if (!strcmp(policy, "v9"))
		return &repro_cites_v9;
	return &repro_cites_61;
}

const char * const repro_route_choices[REPRO_ROUTE_COUNT + 1] = {
	[REPRO_ROUTE_READ]	= "read",
	[REPRO_ROUTE_MOVE_EXT]	= "move-ext",
};

const char * const repro_ext4_choices[REPRO_EXT4_COUNT + 1] = {
	[REPRO_EXT4_WARN]	= "warn",
	[REPRO_EXT4_BUG]	= "bug",
};

bool repro_cell_valid(const struct repro_cell *c, const char **why)
{
	if (c->route >= REPRO_ROUTE_COUNT || c->method >= GUP_PIN_METHOD_COUNT) {
		*why = "no such route or method";
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
			 "EXT4_IOC_MOVE_EXT's move_extent_per_page() called filemap_release_folio() "
			 "on the pinned donor page (%s): ext4_release_folio() (%s) -> "
			 "try_to_free_buffers() (%s) checks buffer_busy() (%s), never the page's "
			 "references", k->move_release, k->release_folio, k->free_buffers,
			 k->buffer_busy);
		return false;
	}
	if (c->flags & GUP_PIN_FLAG_WRITE) {
		snprintf(why, size,
			 "FOLL_WRITE: GUP's write fault runs ext4_page_mkwrite() (%s), whose "
			 "block_page_mkwrite() (%s) attaches buffers", k->page_mkwrite,
			 k->block_mkwrite);
		return true;
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
	/* The disk keeps step 1's OLD bytes; move-ext's donor extent is unwritten. */
	bool moved = c->route == REPRO_ROUTE_MOVE_EXT;
	char release[96], unwritten[160] = "";

	repro_dirty_release(c->method, k, release, sizeof(release));
	if (moved)
		snprintf(unwritten, sizeof(unwritten),
			 "; ext4_swap_extents() marked the donor's new extent unwritten (%s): "
			 "the disk reads zeros", k->mark_unwritten);
	snprintf(e->outcome, sizeof(e->outcome), "WARNING + data lost (host reads %s)",
		 moved ? "ZEROS" : "OLD");
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

int repro_expect(const char *policy, enum repro_ext4 ext4, const char *bug_site,
		 const struct repro_cell *c, struct repro_expectation *e)
{
	/* The page as GUP meets it: MAP_SHARED ext4, not in the page tables. */
	struct cell mc = {
		.method = c->method,
		.flags = c->flags,
		.backing = BACKING_EXT4_SHARED,
		.state = STATE_NONE,
	};
	policy_fn gup = policy_lookup(policy);
	const struct repro_cites *k = repro_cites_for(policy);
	struct expectation pin;
	char route_why[512], why[1024];

	/* ext4=bug on 6.1 is ext4-2018's tree */
	if (k == &repro_cites_61 && ext4 == REPRO_EXT4_BUG)
		k = &repro_cites_ext4_2018;
	memset(e, 0, sizeof(*e));
	if (!gup || ext4 >= REPRO_EXT4_COUNT)
		return -EINVAL;
	pin = gup(&mc);
	if (pin.outcome != OUTCOME_PINNED) {
		/* The judge's words: "+ kernel warning" when the refusal WARNs. */
		snprintf(e->outcome, sizeof(e->outcome), "blocked (%s)%s%s",
			 pin.outcome == OUTCOME_REFUSED ? errno_name(pin.err) : "not run",
			 pin.report.kind ? " + kernel " : "",
			 pin.report.kind ? pin.report.kind : "");
		snprintf(e->reason, sizeof(e->reason),
			 "the page is not mapped yet (GUP-fast falls back to the slow path): %s",
			 pin.reason);
		/* The policy's own WARN (gup-v1); its line is the series'. */
		if (pin.report.kind)
			repro_report(e, pin.report.kind, "",
				     "the GUP policy's WARN_ON_ONCE on its refusal (the matrix matches its source line)");
		return 0;
	}
	if (repro_buffers_at_unpin(c, k, route_why, sizeof(route_why))) {
		snprintf(e->outcome, sizeof(e->outcome), "no loss (host reads NEW)");
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
