// SPDX-License-Identifier: GPL-2.0
/*
 * Expected outcomes of matrix cells, one function per GUP policy.  Every
 * reason names the kernel code that decides; line numbers are 6.1.192's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/utsname.h>

#include "gup_pin_test.h"
#include "gupdev.h"
#include "policy.h"

static const char * const backing_names[BACKING_COUNT] = {
	[BACKING_ANON]		 = "anon-private",
	[BACKING_SHMEM]		 = "shmem-memfd",
	[BACKING_HUGETLB]	 = "hugetlb-memfd",
	[BACKING_TMPFS]		 = "tmpfs-shared",
	[BACKING_EXT4_SHARED]	 = "ext4-shared",
	[BACKING_EXT4_PRIVATE]	 = "ext4-private",
	[BACKING_EXT4_SHARED_RO] = "ext4-shared-ro",
	[BACKING_RAMFS]		 = "ramfs-shared",
};

static const char * const state_names[STATE_COUNT] = {
	[STATE_NONE]	= "untouched",
	[STATE_READ]	= "read-faulted",
	[STATE_WRITE]	= "write-faulted",
};

const char *backing_name(enum cell_backing backing)
{
	return backing < BACKING_COUNT ? backing_names[backing] : "?";
}

const char *state_name(enum cell_state state)
{
	return state < STATE_COUNT ? state_names[state] : "?";
}

static struct expectation pinned(const char *reason)
{
	return (struct expectation){ OUTCOME_PINNED, 0, reason };
}

static struct expectation refused(int err, const char *reason)
{
	return (struct expectation){ OUTCOME_REFUSED, err, reason };
}

static struct expectation not_applicable(const char *reason)
{
	return (struct expectation){ OUTCOME_NOT_APPLICABLE, 0, reason };
}

bool method_is_fast(unsigned int method)
{
	return method == GUP_PIN_METHOD_PIN_FAST ||
	       method == GUP_PIN_METHOD_GET_FAST;
}

bool method_is_pin(unsigned int method)
{
	return method == GUP_PIN_METHOD_PIN || method == GUP_PIN_METHOD_PIN_FAST;
}

/*
 * v7's vma_needs_dirty_tracking(): vm_ops with page_mkwrite, or a mapping
 * that can write back.  ext4_file_vm_ops has page_mkwrite whatever the
 * mapping type (v7 does not test VM_SHARED, so MAP_PRIVATE counts), and so
 * has generic_file_vm_ops (filemap_page_mkwrite), which ramfs uses via
 * generic_file_mmap() although ramfs never writes back.  shmem and hugetlbfs
 * have neither page_mkwrite nor BDI_CAP_WRITEBACK (noop_backing_dev_info);
 * anonymous VMAs never reach the check.
 */
bool backing_dirty_tracked(enum cell_backing backing)
{
	switch (backing) {
	case BACKING_EXT4_SHARED:
	case BACKING_EXT4_PRIVATE:
	case BACKING_EXT4_SHARED_RO:
	case BACKING_RAMFS:
		return true;
	default:
		return false;
	}
}

/*
 * Stock 6.1: no file-backed write policy.  What can still refuse:
 * the driver's own guard, and check_vma_flags() for a write to a VMA
 * without VM_WRITE.  GUP-fast falls back to the slow path for anything it
 * cannot take (page absent, PTE not writable for FOLL_WRITE, special PTE),
 * so a fast method ends where the slow path ends.
 */
static struct expectation expect_stock(const struct cell *c)
{
	bool write = c->flags & GUP_PIN_FLAG_WRITE;

	if (c->backing == BACKING_EXT4_SHARED_RO && c->state == STATE_WRITE)
		return not_applicable("a PROT_READ mapping cannot be write-faulted from user space");
	if (!method_is_pin(c->method) && (c->flags & GUP_PIN_FLAG_LONGTERM))
		return refused(EINVAL, "driver guard: FOLL_LONGTERM needs FOLL_PIN; 6.1 is_valid_gup_flags() would WARN_ON_ONCE and return -EINVAL");
	if (write && c->backing == BACKING_EXT4_SHARED_RO)
		return refused(EFAULT, "check_vma_flags(): FOLL_WRITE on a VMA without VM_WRITE and no FOLL_FORCE");
	if (write)
		return pinned("6.1 has no file-backed write policy: a write fault (page_mkwrite for files) makes the page writable and GUP takes it");
	return pinned("a read pin: GUP faults the page in readable and takes it");
}

/*
 * Would GUP-fast take the page on its own, before any slow-path check?
 * Only if the PTE is present and writable (a write fault happened, on a
 * writable mapping) and, for FOLL_LONGTERM|FOLL_WRITE pins, v7's
 * folio_longterm_write_pin_allowed() passes: !folio_mapping(), shmem or
 * hugetlb.  A write fault on MAP_PRIVATE ext4 left an anonymous COW copy in
 * the PTE, which has no mapping.
 */
static bool v7_fast_path_takes(const struct cell *c)
{
	bool anon_cow = c->backing == BACKING_EXT4_PRIVATE;

	if (!method_is_fast(c->method) || c->state != STATE_WRITE)
		return false;
	if (c->flags & GUP_PIN_FLAG_LONGTERM)
		return anon_cow;
	return true;
}

/*
 * gup-v7: stock, plus for FOLL_WRITE on a dirty-tracked file VMA:
 * - slow path, check_vma_flags() -> writeable_file_mapping_allowed():
 *   refused (-EFAULT) when FOLL_PIN or FOLL_LONGTERM is set, i.e. for every
 *   pin_user_pages*() write, long-term or not (v7's test; v8 narrowed it);
 *   get_user_pages*() (FOLL_GET only) passes;
 * - fast path, try_grab_folio(): refuses FOLL_LONGTERM|FOLL_WRITE on a
 *   non-whitelisted folio and falls back to the slow path, which refuses;
 *   a non-long-term pin of a present, writable page is taken with no check.
 */
static struct expectation expect_gup_v7(const struct cell *c)
{
	struct expectation e = expect_stock(c);

	if (e.outcome == OUTCOME_NOT_APPLICABLE || e.err == EINVAL)
		return e;
	if (!(c->flags & GUP_PIN_FLAG_WRITE) || !backing_dirty_tracked(c->backing))
		return e;
	if (c->backing == BACKING_EXT4_SHARED_RO)
		return refused(EFAULT, "check_vma_flags(): v7's writeable_file_mapping_allowed() refuses before the VM_WRITE test");
	if (!method_is_pin(c->method))
		return pinned("v7 leaves FOLL_GET alone: writeable_file_mapping_allowed() passes without FOLL_PIN/FOLL_LONGTERM, the fast check needs FOLL_LONGTERM");
	if (v7_fast_path_takes(c))
		return (c->flags & GUP_PIN_FLAG_LONGTERM) ?
			pinned("GUP-fast takes the anonymous COW copy (no mapping: whitelisted); the VMA is never checked") :
			pinned("GUP-fast takes the present writable PTE: v7's fast check is for FOLL_LONGTERM only, the VMA is never checked");
	return refused(EFAULT, "check_vma_flags() -> writeable_file_mapping_allowed(): FOLL_PIN write to a VMA that vma_needs_dirty_tracking()");
}

/*
 * The backings as the matrix makes them and gupctl pin recognises them.
 * A memfd's file system is implied (shmem, hugetlbfs).
 */
static const struct backing_spec backing_specs[BACKING_COUNT] = {
	[BACKING_ANON]		 = { TARGET_ANON, 0, true, false },
	[BACKING_SHMEM]		 = { TARGET_SHMEM, 0, false, false },
	[BACKING_HUGETLB]	 = { TARGET_HUGETLB, 0, false, false },
	[BACKING_TMPFS]		 = { TARGET_FILE, TMPFS_MAGIC, false, false },
	[BACKING_EXT4_SHARED]	 = { TARGET_FILE, EXT4_SUPER_MAGIC, false, false },
	[BACKING_EXT4_PRIVATE]	 = { TARGET_FILE, EXT4_SUPER_MAGIC, true, false },
	[BACKING_EXT4_SHARED_RO] = { TARGET_FILE, EXT4_SUPER_MAGIC, false, true },
	[BACKING_RAMFS]		 = { TARGET_FILE, RAMFS_MAGIC, false, false },
};

static const enum target_prefault state_prefaults[STATE_COUNT] = {
	[STATE_NONE]	= TARGET_PREFAULT_NONE,
	[STATE_READ]	= TARGET_PREFAULT_READ,
	[STATE_WRITE]	= TARGET_PREFAULT_WRITE,
};

const struct backing_spec *backing_spec(enum cell_backing backing)
{
	return backing < BACKING_COUNT ? &backing_specs[backing] : NULL;
}

enum target_prefault state_prefault(enum cell_state state)
{
	return state < STATE_COUNT ? state_prefaults[state] : TARGET_PREFAULT_NONE;
}

/*
 * The policies model 6.1 (6.1.192's code).  There, only the series adds
 * vma_needs_dirty_tracking() (mm/mmap.c, a global function:
 * patches/gup-v7/0001); stock 6.1 has no such symbol.  Later kernels have
 * it with another policy (mainline's, from 6.5), so they are not v7.
 */
const char *policy_detect(char *why, size_t size)
{
	struct utsname u;
	int has;

	if (uname(&u) == 0 && strncmp(u.release, "6.1.", 4)) {
		snprintf(why, size, "kernel %.40s: the policies model 6.1 only",
			 u.release);
		return NULL;
	}
	has = gup_file_write_policy();
	if (has < 0) {
		snprintf(why, size, "/proc/kallsyms unreadable: %s",
			 errno_name(has));
		return NULL;
	}
	snprintf(why, size, "vma_needs_dirty_tracking %sin /proc/kallsyms",
		 has ? "" : "not ");
	return has ? "v7" : "stock";
}

static bool backing_is(const struct backing_spec *b, const struct target *t)
{
	const struct target_spec *s = &t->spec;

	return b->kind == s->kind && b->read_only == s->read_only &&
	       (s->kind == TARGET_ANON || b->private == s->private) &&
	       (s->kind != TARGET_FILE || b->fs_magic == t->fs_magic);
}

/*
 * FOLL_FORCE acts on a VMA without VM_WRITE (check_vma_flags(),
 * mm/gup.c:1081-1099) or without VM_READ (mm/gup.c:1100, never here: every
 * target is PROT_READ); can_follow_write_pte() ignores it on a VM_WRITE VMA
 * (mm/gup.c:526-528) and v7 never tests it.  So FOLL_FORCE changes nothing
 * but a write to a PROT_READ mapping, which the matrix does not run.
 */
int pin_cell(const struct target *t, unsigned int method, unsigned int flags,
	     struct cell *c, const char **why)
{
	unsigned int i;

	if (flags & GUP_PIN_FLAG_FORCE) {
		if ((flags & GUP_PIN_FLAG_WRITE) && t->spec.read_only) {
			*why = "the matrix never runs FOLL_FORCE|FOLL_WRITE on a PROT_READ mapping";
			return -ENOENT;
		}
		flags &= ~GUP_PIN_FLAG_FORCE;
	}
	c->method = method;
	c->flags = flags;
	for (i = 0; i < BACKING_COUNT && !backing_is(backing_spec(i), t); i++)
		;
	c->backing = i;
	for (i = 0; i < STATE_COUNT && state_prefault(i) != t->spec.prefault; i++)
		;
	c->state = i;
	if (c->backing < BACKING_COUNT && c->state < STATE_COUNT)
		return 0;
	*why = "no matrix backing is this kind of memory, file system and mapping";
	return -ENOENT;
}

static const struct {
	const char *name;
	policy_fn fn;
} policies[] = {
	{ "stock", expect_stock },
	{ "v7", expect_gup_v7 },
};

policy_fn policy_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if (!strcmp(policies[i].name, name))
			return policies[i].fn;
	return NULL;
}

const char *policy_names(void)
{
	return "stock, v7";
}

/*
 * ---- The ext4-2018 reproduction (gupctl repro) ----
 *
 * Line numbers are 6.1.192's (Debian linux-source-6.1 6.1.192-3), as in
 * the stock tree; the BUG's line comes from the flavour's own tree.
 */

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
	if ((c->flags & GUP_PIN_FLAG_LONGTERM) && !method_is_pin(c->method)) {
		*why = "FOLL_LONGTERM requires FOLL_PIN: give --method pin or pin-fast";
		return false;
	}
	return true;
}

/*
 * Does the page still have buffer heads when the pin's holder dirties it?
 * *@why: how the route got there.
 */
static bool repro_buffers_at_unpin(const struct repro_cell *c, const char **why)
{
	if (c->route == REPRO_ROUTE_MOVE_EXT) {
		*why = "ext4_page_mkwrite() attached buffers, fsync cleaned them, then "
		       "EXT4_IOC_MOVE_EXT's move_extent_per_page() called filemap_release_folio() "
		       "on the pinned donor page (fs/ext4/move_extent.c:361): ext4_release_folio() "
		       "(fs/ext4/inode.c:3310) -> try_to_free_buffers() (fs/buffer.c:2815) checks "
		       "buffer_busy() (fs/buffer.c:2782), never the page's references";
		return false;
	}
	if (c->flags & GUP_PIN_FLAG_WRITE) {
		*why = "FOLL_WRITE: GUP's write fault runs ext4_page_mkwrite() "
		       "(fs/ext4/inode.c:6298), whose block_page_mkwrite() (fs/ext4/inode.c:6338) "
		       "attaches buffers";
		return true;
	}
	*why = "no FOLL_WRITE, no page_mkwrite: ext4_mpage_readpages() (fs/ext4/readpage.c:225) "
	       "read the page with a bio of its own, without buffers (only its 'confused' "
	       "fallback, fs/ext4/readpage.c:399, attaches them)";
	return false;
}

/* How the dirty release reaches ext4_dirty_folio(). */
static const char *repro_dirty_release(unsigned int method)
{
	return method_is_pin(method) ?
	       "unpin_user_pages_dirty_lock() (mm/gup.c:323)" :
	       "set_page_dirty_lock() (mm/page-writeback.c:2788)";
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
			    struct repro_expectation *e)
{
	/* The disk keeps step 1's OLD bytes; move-ext's donor extent is unwritten. */
	bool moved = c->route == REPRO_ROUTE_MOVE_EXT;

	snprintf(e->outcome, sizeof(e->outcome), "WARNING + data lost (host reads %s)",
		 moved ? "ZEROS" : "OLD");
	snprintf(e->reason, sizeof(e->reason),
		 "%s; the dirty release, %s, WARNs in ext4_dirty_folio() "
		 "(fs/ext4/inode.c:3664: no buffers); fsync's mpage_prepare_extent_to_map() warns "
		 "'does not have buffers attached' and ClearPageDirty()s the page unwritten "
		 "(fs/ext4/inode.c:2671-2672, cc5095747edf)%s",
		 why, repro_dirty_release(c->method),
		 moved ? "; ext4_swap_extents() marked the donor's new extent unwritten "
			 "(fs/ext4/extents.c:5827-5828): the disk reads zeros" : "");
}

/* ext4=bug, cc5095747edf reverted: page_buffers() BUGs, the guest panics. */
static void repro_ext4_bug(const struct repro_cell *c, const char *why,
			   const char *bug_site, struct repro_expectation *e)
{
	char site[64];

	snprintf(site, sizeof(site), "%s", bug_site ? bug_site : "fs/ext4/inode.c:?");
	snprintf(e->outcome, sizeof(e->outcome), "BUG (%s)", site);
	snprintf(e->reason, sizeof(e->reason),
		 "%s; the dirty release, %s, WARNs in ext4_dirty_folio(); with cc5095747edf "
		 "reverted fsync's mpage_prepare_extent_to_map() calls page_buffers() on the page "
		 "and its BUG_ON(!PagePrivate(page)) fires (%s%s)",
		 why, repro_dirty_release(c->method), site,
		 bug_site ? " in the flavour's tree" : ": line not given");
	repro_report(e, "bug", site, "page_buffers()'s BUG_ON in mpage_prepare_extent_to_map()");
	repro_report(e, "panic", "", "the lab boots with oops=panic (qemu/run.sh): the BUG panics");
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
	struct expectation pin;
	const char *route_why;
	char why[1024];

	memset(e, 0, sizeof(*e));
	if (!gup || ext4 >= REPRO_EXT4_COUNT)
		return -EINVAL;
	pin = gup(&mc);
	if (pin.outcome != OUTCOME_PINNED) {
		snprintf(e->outcome, sizeof(e->outcome), "blocked (%s)",
			 pin.outcome == OUTCOME_REFUSED ? errno_name(pin.err) : "not run");
		snprintf(e->reason, sizeof(e->reason),
			 "the page is not mapped yet (GUP-fast falls back to the slow path): %s",
			 pin.reason);
		return 0;
	}
	if (repro_buffers_at_unpin(c, &route_why)) {
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
		repro_ext4_warn(c, why, e);
	else
		repro_ext4_bug(c, why, bug_site, e);
	return 0;
}
