// SPDX-License-Identifier: GPL-2.0
/*
 * Expected outcomes of matrix cells, one function per GUP policy.  Every
 * reason names the kernel code that decides; line numbers are 6.1.192's,
 * or 6.12.118's for a policy of 6.12 (policy_source()).
 */
#include <errno.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/utsname.h>

#include "gup_pin_test.h"
#include "lib/gupdev.h"
#include "policy.h"

static const char * const backing_names[BACKING_COUNT] = {
	[BACKING_ANON]		  = "anon-private",
	[BACKING_ANON_THP]	  = "anon-thp",
	[BACKING_SHMEM]		  = "shmem-memfd",
	[BACKING_SHMEM_THP]	  = "shmem-thp",
	[BACKING_HUGETLB]	  = "hugetlb-memfd",
	[BACKING_TMPFS]		  = "tmpfs-shared",
	[BACKING_EXT4_SHARED]	  = "ext4-shared",
	[BACKING_EXT4_PRIVATE]	  = "ext4-private",
	[BACKING_EXT4_SHARED_RO]  = "ext4-shared-ro",
	[BACKING_EXT4_PRIVATE_RO] = "ext4-private-ro",
	[BACKING_RAMFS]		  = "ramfs-shared",
};

static const char * const state_names[STATE_COUNT] = {
	[STATE_NONE]		= "untouched",
	[STATE_READ]		= "read-faulted",
	[STATE_WRITE]		= "write-faulted",
	[STATE_WRITEBACK]	= "written-back",
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
	return (struct expectation){ .outcome = OUTCOME_PINNED, .reason = reason };
}

static struct expectation refused(int err, const char *reason)
{
	return (struct expectation){ .outcome = OUTCOME_REFUSED, .err = err,
				     .reason = reason };
}

/* Refused with a WARN_ON_ONCE in mm/gup.c whose line holds @text. */
static struct expectation warned(int err, const char *text, const char *reason)
{
	struct expectation e = refused(err, reason);

	e.report = (struct report_exp){ "warning", "mm/gup.c", text };
	return e;
}

static struct expectation not_applicable(const char *reason)
{
	return (struct expectation){ .outcome = OUTCOME_NOT_APPLICABLE,
				     .reason = reason };
}

const struct series_finding series_findings[] = {
	/*
	 * patches/gup-v7/0003: folio_longterm_write_pin_allowed() begins with
	 * lockdep_assert_irqs_disabled(), as only GUP-fast called it in the
	 * series' tree; in 6.1, try_grab_folio() calls it, and so does the
	 * slow hugetlb path, follow_hugetlb_page(), with interrupts on.
	 * gup-v9 drops the check from try_grab_folio() (patches/gup-v9).
	 */
	{ .policy = "v7",
	  .report = { "warning", "mm/gup.c", "lockdep_assert_irqs_disabled()" },
	  .what = "v7's lockdep_assert_irqs_disabled() fired: a GUP path reached try_grab_folio() with interrupts on (6.1's follow_hugetlb_page() does)",
	  .doc = "docs/reliability.md#the-series-own-findings" },
	{ .policy = NULL }
};

bool method_is_fast(unsigned int method)
{
	return method == GUP_PIN_METHOD_PIN_FAST ||
	       method == GUP_PIN_METHOD_GET_FAST;
}

bool method_is_pin(unsigned int method)
{
	return method == GUP_PIN_METHOD_PIN || method == GUP_PIN_METHOD_PIN_FAST ||
	       method == GUP_PIN_METHOD_PIN_REMOTE ||
	       method == GUP_PIN_METHOD_PIN_UNLOCKED;
}

static bool method_is_unlocked(unsigned int method)
{
	return method == GUP_PIN_METHOD_PIN_UNLOCKED ||
	       method == GUP_PIN_METHOD_GET_UNLOCKED;
}

/*
 * v7's vma_needs_dirty_tracking(): vm_ops with page_mkwrite, or a mapping
 * that can write back.  ext4_file_vm_ops has page_mkwrite whatever the
 * mapping type (v7 does not test VM_SHARED, so MAP_PRIVATE and PROT_READ
 * count), and so has generic_file_vm_ops (filemap_page_mkwrite), which
 * ramfs uses via generic_file_mmap() although ramfs never writes back.
 * shmem and hugetlbfs have neither page_mkwrite nor BDI_CAP_WRITEBACK
 * (noop_backing_dev_info); anonymous VMAs never reach the check.
 */
bool backing_dirty_tracked(enum cell_backing backing)
{
	switch (backing) {
	case BACKING_EXT4_SHARED:
	case BACKING_EXT4_PRIVATE:
	case BACKING_EXT4_SHARED_RO:
	case BACKING_EXT4_PRIVATE_RO:
	case BACKING_RAMFS:
		return true;
	default:
		return false;
	}
}

/*
 * v9's (6.5's) vma_needs_dirty_tracking() first asks for a shared,
 * writable VMA (VM_SHARED|VM_WRITE): a private mapping's writes go to
 * anonymous copies, a PROT_READ one has none.  Then the same as v7.
 */
bool backing_dirty_tracked_v9(enum cell_backing backing)
{
	const struct backing_spec *b = backing_spec(backing);

	return backing_dirty_tracked(backing) && !b->private && !b->read_only;
}

bool state_possible(enum cell_backing backing, enum cell_state state,
		    const char **why)
{
	const struct backing_spec *b = backing_spec(backing);

	if (b->read_only && state >= STATE_WRITE) {
		*why = "a PROT_READ mapping cannot be write-faulted from user space";
		return false;
	}
	if (b->kind == TARGET_ANON && state == STATE_WRITEBACK) {
		*why = "anonymous memory has no file to fsync: nothing is written back";
		return false;
	}
	return true;
}

/* Cells user space cannot set up, under any policy. */
static bool cell_impossible(const struct cell *c, struct expectation *e)
{
	const char *why;

	if (state_possible(c->backing, c->state, &why))
		return false;
	*e = not_applicable(why);
	return true;
}

/*
 * What 6.1 decides from the method and flags alone, before any VMA is
 * looked at.  @has_allow_broken: the kernel defines
 * FOLL_ALLOW_BROKEN_FILE_MAPPING (seed 005, gup-v1).  The answer is the
 * same for every backing and state (flags_only): the matrix runs it once.
 */
static bool flags_decide_61(const struct cell *c, bool has_allow_broken,
			    struct expectation *e)
{
	bool lt = c->flags & GUP_PIN_FLAG_LONGTERM;
	bool ab = c->flags & GUP_PIN_FLAG_ALLOW_BROKEN;
	unsigned int m = c->method;

	if (ab && !has_allow_broken) {
		*e = refused(EOPNOTSUPP, "gup_pin_test refuses GUP_PIN_FLAG_ALLOW_BROKEN before GUP: this kernel has no FOLL_ALLOW_BROKEN_FILE_MAPPING (seed 005 adds it)");
		e->by_driver = true;
	} else if (lt && !method_is_pin(m) && !method_is_unlocked(m)) {
		*e = warned(EINVAL, "WARN_ON_ONCE(gup_flags & FOLL_LONGTERM)",
			    "is_valid_gup_flags() (mm/gup.c:2184, from get_user_pages*()): FOLL_LONGTERM requires FOLL_PIN: WARN_ON_ONCE, -EINVAL");
	} else if (lt && method_is_unlocked(m)) {
		*e = warned(EINVAL, "WARN_ON_ONCE(gup_flags & FOLL_LONGTERM)",
			    "get_user_pages_unlocked() (mm/gup.c:2367): FOLL_LONGTERM cannot drop mmap_lock to retry: WARN_ON_ONCE, -EINVAL");
	} else if (ab && method_is_fast(m)) {
		*e = warned(EINVAL, "WARN_ON_ONCE(gup_flags & ~(FOLL_WRITE",
			    "internal_get_user_pages_fast() (mm/gup.c:3047): FOLL_ALLOW_BROKEN_FILE_MAPPING is not in its allowed flags (seed 005 adds it to callers, not there): WARN_ON_ONCE, -EINVAL");
	} else {
		return false;
	}
	e->flags_only = true;
	return true;
}

/*
 * Would GUP-fast take the page for a write on its own, before any
 * slow-path check?  Only if the PTE is present and writable: a write
 * fault happened on a writable mapping and nothing write-protected it
 * since.  fsync() write-protects a MAP_SHARED ext4 page (write_cache_pages()
 * -> folio_clear_dirty_for_io() -> folio_mkclean()); shmem, hugetlbfs and
 * ramfs do not write back, and a MAP_PRIVATE page is an anonymous copy.
 */
static bool fast_path_takes_write(const struct cell *c)
{
	if (!method_is_fast(c->method) || backing_spec(c->backing)->read_only)
		return false;
	if (c->state == STATE_WRITEBACK)
		return c->backing != BACKING_EXT4_SHARED;
	return c->state == STATE_WRITE;
}

/*
 * Stock 6.1: no file-backed write policy.  What can still refuse: the flag
 * checks above, and check_vma_flags() (mm/gup.c:1063) for a write to a VMA
 * without VM_WRITE.  GUP-fast falls back to the slow path for anything it
 * cannot take (page absent, PTE not writable for FOLL_WRITE, special PTE),
 * so a fast method ends where the slow path ends.  The remote and unlocked
 * methods walk the same slow path (FOLL_REMOTE only matters to protection
 * keys, which the lab's kernels do not have).
 */
static struct expectation expect_stock_61(const struct cell *c,
					  bool has_allow_broken)
{
	bool write = c->flags & GUP_PIN_FLAG_WRITE;
	bool force = c->flags & GUP_PIN_FLAG_FORCE;
	struct expectation e;

	if (cell_impossible(c, &e) || flags_decide_61(c, has_allow_broken, &e))
		return e;
	if (write && c->backing == BACKING_EXT4_SHARED_RO)
		return refused(EFAULT, force ?
			       "check_vma_flags() (mm/gup.c:1082-1098): no VM_WRITE, and FOLL_FORCE does not help: a MAP_SHARED mapping of an O_RDONLY file loses VM_SHARED and VM_MAYWRITE (mm/mmap.c:1386), so it is no COW mapping" :
			       "check_vma_flags() (mm/gup.c:1082-1084): FOLL_WRITE on a VMA without VM_WRITE and no FOLL_FORCE");
	if (write && c->backing == BACKING_EXT4_PRIVATE_RO)
		return force ?
		       pinned("FOLL_FORCE on a COW mapping passes check_vma_flags() (mm/gup.c:1082-1098); the write fault breaks COW and can_follow_write_pte() (mm/gup.c:506) takes the exclusive anonymous copy: the debugger's breakpoint") :
		       refused(EFAULT, "check_vma_flags() (mm/gup.c:1082-1084): FOLL_WRITE on a VMA without VM_WRITE and no FOLL_FORCE");
	if (write)
		return pinned("6.1 has no file-backed write policy: a write fault (page_mkwrite for files, COW for private mappings) makes the page writable and GUP takes it");
	return pinned("a read pin: GUP faults the page in readable and takes it");
}

static struct expectation expect_stock(const struct cell *c)
{
	return expect_stock_61(c, false);
}

/*
 * gup-v1 (seed 005, patches/gup-v1/): check_vma_flags() refuses, with a
 * WARN_ON_ONCE and -EFAULT, every FOLL_WRITE of a FOLL_GET or FOLL_PIN
 * call to a file VMA that is neither shmem nor hugetlb, unless the caller
 * passes FOLL_ALLOW_BROKEN_FILE_MAPPING (can_write_file_mapping()).  The
 * test sits before the VM_WRITE test, so it also fires on PROT_READ
 * mappings, and on MAP_PRIVATE ones, whose write would go to an anonymous
 * copy.  GUP-fast is not changed: a present writable PTE is taken.
 */
static struct expectation expect_gup_v1(const struct cell *c)
{
	struct expectation e = expect_stock_61(c, true);
	const struct backing_spec *b = backing_spec(c->backing);

	if (e.outcome == OUTCOME_NOT_APPLICABLE || e.report.kind || e.by_driver)
		return e;
	if (!(c->flags & GUP_PIN_FLAG_WRITE) || b->kind != TARGET_FILE ||
	    b->fs_magic == TMPFS_MAGIC)
		return e;
	if (c->flags & GUP_PIN_FLAG_ALLOW_BROKEN)
		return e.outcome != OUTCOME_PINNED ? e :
		       pinned("FOLL_ALLOW_BROKEN_FILE_MAPPING: can_write_file_mapping() lets the write through, as stock 6.1 does");
	if (fast_path_takes_write(c))
		return pinned("GUP-fast takes the present writable PTE: seed 005 checks the slow path only");
	return warned(EFAULT, "WARN_ON_ONCE(!can_write_file_mapping(vma, gup_flags))",
		      "check_vma_flags() -> can_write_file_mapping() (seed 005): a FOLL_GET/FOLL_PIN write to a file VMA that is not shmem or hugetlb, without FOLL_ALLOW_BROKEN_FILE_MAPPING: WARN_ON_ONCE, -EFAULT, before the VM_WRITE test");
}

/*
 * Would v7's GUP-fast take a write?  fast_path_takes_write(), and for
 * FOLL_LONGTERM its try_grab_folio() check, folio_longterm_write_pin_allowed():
 * !folio_mapping() (an anonymous COW copy of MAP_PRIVATE ext4), shmem or
 * hugetlb.
 */
static bool v7_fast_path_takes(const struct cell *c)
{
	if (!fast_path_takes_write(c))
		return false;
	if (c->flags & GUP_PIN_FLAG_LONGTERM)
		return c->backing == BACKING_EXT4_PRIVATE;
	return true;
}

/*
 * gup-v7: stock, plus for FOLL_WRITE on a dirty-tracked file VMA:
 * - slow path, check_vma_flags() -> writeable_file_mapping_allowed(),
 *   before the VM_WRITE test: refused (-EFAULT) when FOLL_PIN or
 *   FOLL_LONGTERM is set, i.e. for every pin_user_pages*() write, long-term
 *   or not (v7's test; v8 narrowed it); FOLL_GET passes;
 * - fast path, try_grab_folio(): refuses FOLL_LONGTERM|FOLL_WRITE on a
 *   non-whitelisted folio and falls back to the slow path, which refuses;
 *   a non-long-term pin of a present, writable page is taken with no check.
 */
static struct expectation expect_gup_v7(const struct cell *c)
{
	struct expectation e = expect_stock(c);

	if (e.outcome == OUTCOME_NOT_APPLICABLE || e.report.kind || e.by_driver)
		return e;
	if (!(c->flags & GUP_PIN_FLAG_WRITE) || !backing_dirty_tracked(c->backing))
		return e;
	if (!method_is_pin(c->method))
		return e.outcome == OUTCOME_REFUSED ? e :
		       pinned("v7 leaves FOLL_GET alone: writeable_file_mapping_allowed() passes without FOLL_PIN/FOLL_LONGTERM, the fast check needs FOLL_LONGTERM");
	if (v7_fast_path_takes(c))
		return (c->flags & GUP_PIN_FLAG_LONGTERM) ?
			pinned("GUP-fast takes the anonymous COW copy (no mapping: whitelisted); the VMA is never checked") :
			pinned("GUP-fast takes the present writable PTE: v7's fast check is for FOLL_LONGTERM only, the VMA is never checked");
	return refused(EFAULT, "check_vma_flags() -> writeable_file_mapping_allowed() (v7), before the VM_WRITE test: a FOLL_PIN write to a VMA that vma_needs_dirty_tracking()");
}

/*
 * gup-v9 (patches/gup-v9/: 6.5's semantics on the v7 backport): only a
 * write pin with both FOLL_PIN and FOLL_LONGTERM is checked.
 * - slow path, check_vma_flags() -> writable_file_mapping_allowed(),
 *   before the VM_WRITE test: refused (-EFAULT) when
 *   vma_needs_dirty_tracking(), which now asks for a shared writable VMA
 *   first (backing_dirty_tracked_v9());
 * - fast path, folio_fast_pin_allowed() where GUP-fast holds the folio:
 *   anonymous (incl. a COW copy), hugetlb and shmem folios pass; any other
 *   mapping falls back to the slow path, which decides.
 */
static struct expectation expect_gup_v9(const struct cell *c)
{
	struct expectation e = expect_stock(c);
	unsigned int need = GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_LONGTERM;

	if (e.outcome == OUTCOME_NOT_APPLICABLE || e.report.kind || e.by_driver)
		return e;
	if ((c->flags & need) != need || !method_is_pin(c->method))
		return e;
	if (!backing_dirty_tracked_v9(c->backing)) {
		if (backing_dirty_tracked(c->backing) && e.outcome == OUTCOME_PINNED)
			return pinned("v9: vma_needs_dirty_tracking() is false for a private or read-only VMA (its writes go to an anonymous copy): writable_file_mapping_allowed() passes where v7 refused");
		return e;
	}
	return refused(EFAULT, "check_vma_flags() -> writable_file_mapping_allowed() (v9): a FOLL_PIN|FOLL_LONGTERM write to a shared writable VMA that vma_needs_dirty_tracking(); GUP-fast's folio_fast_pin_allowed() sends a page-cache folio there too");
}

/*
 * What 6.12 decides from the method and flags alone, before any VMA:
 * is_valid_gup_args() (mm/gup.c:2595), which every entry point calls.  Two
 * answers differ from 6.1's flags_decide_61(): the LONGTERM check has one
 * WARN for every FOLL_GET entry point (get_user_pages_unlocked() included),
 * and pin_user_pages_unlocked() takes FOLL_LONGTERM, since it pins through
 * __gup_longterm_locked() (mm/gup.c:3663-3676) where 6.1's refused it.
 */
static bool flags_decide_612(const struct cell *c, struct expectation *e)
{
	bool lt = c->flags & GUP_PIN_FLAG_LONGTERM;

	if (c->flags & GUP_PIN_FLAG_ALLOW_BROKEN) {
		*e = refused(EOPNOTSUPP, "gup_pin_test refuses GUP_PIN_FLAG_ALLOW_BROKEN before GUP: 6.12 has no FOLL_ALLOW_BROKEN_FILE_MAPPING (only seed 005 adds it)");
		e->by_driver = true;
	} else if (lt && !method_is_pin(c->method)) {
		*e = warned(EINVAL, "WARN_ON_ONCE(!(gup_flags & FOLL_PIN) && (gup_flags & FOLL_LONGTERM))",
			    "is_valid_gup_args() (mm/gup.c:2625, 6.12): LONGTERM can only be specified when pinning: WARN_ON_ONCE, -EINVAL");
	} else {
		return false;
	}
	e->flags_only = true;
	return true;
}

/*
 * mainline: Debian's 6.12 as packaged, the series as merged in 6.5 and
 * what came after, from 6.12.118's code:
 * - slow path, check_vma_flags() (mm/gup.c:1292-1295) ->
 *   writable_file_mapping_allowed() (mm/gup.c:1252-1267): a write with
 *   both FOLL_PIN and FOLL_LONGTERM to a VMA that
 *   vma_needs_dirty_tracking() (mm/vma.c:1890: shared and writable first,
 *   then page_mkwrite or a mapping that writes back) is refused, -EFAULT,
 *   before the VM_WRITE test (mm/gup.c:1297-1313);
 * - fast path, gup_fast_folio_allowed() (mm/gup.c:2833-2901): a
 *   FOLL_PIN|FOLL_LONGTERM|FOLL_WRITE folio passes if hugetlb, anonymous
 *   or shmem; any other falls back to the slow path, which decides;
 * - a FOLL_LONGTERM read pin of a file page in a COW mapping is unshared
 *   first (gup_must_unshare(), mm/internal.h:1393-1404): GUP pins an
 *   anonymous copy.  The call succeeds, as on 6.1.
 * The same answers as gup-v9 except flags_decide_612(); the reasons cite
 * 6.12.
 */
static struct expectation expect_mainline(const struct cell *c)
{
	unsigned int need = GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_LONGTERM;
	bool write = c->flags & GUP_PIN_FLAG_WRITE;
	bool force = c->flags & GUP_PIN_FLAG_FORCE;
	struct expectation e;

	if (cell_impossible(c, &e) || flags_decide_612(c, &e))
		return e;
	if ((c->flags & need) == need && method_is_pin(c->method) &&
	    backing_dirty_tracked_v9(c->backing))
		return refused(EFAULT, "check_vma_flags() -> writable_file_mapping_allowed() (mm/gup.c:1292-1295, 1252-1267): a FOLL_PIN|FOLL_LONGTERM write to a shared writable VMA that vma_needs_dirty_tracking() (mm/vma.c:1890); GUP-fast's gup_fast_folio_allowed() (mm/gup.c:2901) sends a page-cache folio there too");
	if (write && c->backing == BACKING_EXT4_SHARED_RO)
		return refused(EFAULT, force ?
			       "check_vma_flags() (mm/gup.c:1297-1313): no VM_WRITE, and FOLL_FORCE does not help: a MAP_SHARED mapping of an O_RDONLY file loses VM_SHARED and VM_MAYWRITE, so it is no COW mapping" :
			       "check_vma_flags() (mm/gup.c:1297-1299): FOLL_WRITE on a VMA without VM_WRITE and no FOLL_FORCE");
	if (write && c->backing == BACKING_EXT4_PRIVATE_RO)
		return force ?
		       pinned("FOLL_FORCE on a COW mapping passes check_vma_flags() (mm/gup.c:1297-1313); the write fault breaks COW and GUP takes the exclusive anonymous copy: the debugger's breakpoint") :
		       refused(EFAULT, "check_vma_flags() (mm/gup.c:1297-1299): FOLL_WRITE on a VMA without VM_WRITE and no FOLL_FORCE");
	if (write)
		return pinned("writable_file_mapping_allowed() (mm/gup.c:1259-1267) passes: not both FOLL_PIN and FOLL_LONGTERM, or a VMA without dirty tracking (anonymous, private, shmem, hugetlb); the write fault makes the page writable and GUP takes it");
	if ((c->flags & GUP_PIN_FLAG_LONGTERM) && backing_spec(c->backing)->private &&
	    backing_spec(c->backing)->kind == TARGET_FILE)
		return pinned("a long-term read pin of a file page in a COW mapping: gup_must_unshare() (mm/internal.h:1393-1404) unshares it first, and GUP pins the anonymous copy");
	return pinned("a read pin: GUP faults the page in readable and takes it");
}

/*
 * The backings as the matrix makes them and gupctl pin recognises them.
 * A memfd's file system is implied (shmem, hugetlbfs).
 */
static const struct backing_spec backing_specs[BACKING_COUNT] = {
	[BACKING_ANON]		  = { TARGET_ANON, 0, true, false, false },
	[BACKING_ANON_THP]	  = { TARGET_ANON, 0, true, false, true },
	[BACKING_SHMEM]		  = { TARGET_SHMEM, 0, false, false, false },
	[BACKING_SHMEM_THP]	  = { TARGET_SHMEM, 0, false, false, true },
	[BACKING_HUGETLB]	  = { TARGET_HUGETLB, 0, false, false, false },
	[BACKING_TMPFS]		  = { TARGET_FILE, TMPFS_MAGIC, false, false, false },
	[BACKING_EXT4_SHARED]	  = { TARGET_FILE, EXT4_SUPER_MAGIC, false, false, false },
	[BACKING_EXT4_PRIVATE]	  = { TARGET_FILE, EXT4_SUPER_MAGIC, true, false, false },
	[BACKING_EXT4_SHARED_RO]  = { TARGET_FILE, EXT4_SUPER_MAGIC, false, true, false },
	[BACKING_EXT4_PRIVATE_RO] = { TARGET_FILE, EXT4_SUPER_MAGIC, true, true, false },
	[BACKING_RAMFS]		  = { TARGET_FILE, RAMFS_MAGIC, false, false, false },
};

static const enum target_prefault state_prefaults[STATE_COUNT] = {
	[STATE_NONE]		= TARGET_PREFAULT_NONE,
	[STATE_READ]		= TARGET_PREFAULT_READ,
	[STATE_WRITE]		= TARGET_PREFAULT_WRITE,
	[STATE_WRITEBACK]	= TARGET_PREFAULT_WRITEBACK,
};

const struct backing_spec *backing_spec(enum cell_backing backing)
{
	return backing < BACKING_COUNT ? &backing_specs[backing] : NULL;
}

enum target_prefault state_prefault(enum cell_state state)
{
	return state < STATE_COUNT ? state_prefaults[state] : TARGET_PREFAULT_NONE;
}

/* Each policy and the kernel source its code (and its citations) is from. */
static const struct {
	const char *name;
	policy_fn fn;
	const char *source;	/* patches/flavours' source column */
} policies[] = {
	{ "stock", expect_stock, "6.1" },
	{ "v1", expect_gup_v1, "6.1" },
	{ "v7", expect_gup_v7, "6.1" },
	{ "v9", expect_gup_v9, "6.1" },
	{ "mainline", expect_mainline, "6.12" },
};

static bool backing_is(const struct backing_spec *b, const struct target *t)
{
	const struct target_spec *s = &t->spec;

	return b->kind == s->kind && b->read_only == s->read_only &&
	       b->thp == s->thp &&
	       (s->kind == TARGET_ANON || b->private == s->private) &&
	       (s->kind != TARGET_FILE || b->fs_magic == t->fs_magic);
}

/*
 * Every flag mix is a cell: FOLL_FORCE acts on a VMA without VM_WRITE
 * (check_vma_flags(), mm/gup.c:1082-1098; the read-only backings), and
 * the policies decide the rest.
 */
int pin_cell(const struct target *t, unsigned int method, unsigned int flags,
	     struct cell *c, const char **why)
{
	unsigned int i;

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


policy_fn policy_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if (!strcmp(policies[i].name, name))
			return policies[i].fn;
	return NULL;
}

const char *policy_source(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if (!strcmp(policies[i].name, name))
			return policies[i].source;
	return NULL;
}

enum policy_kernel policy_kernel(const char *name)
{
	const char *src = policy_source(name);

	if (!src)
		return POLICY_KERNEL_COUNT;
	return strcmp(src, "6.12") ? POLICY_KERNEL_61 : POLICY_KERNEL_612;
}

const char *policy_names(void)
{
	static char names[80];
	size_t i, n = 0;

	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		n += snprintf(names + n, sizeof(names) - n, "%s%s",
			      i ? ", " : "", policies[i].name);
	return names;
}

/*
 * ---- The ext4-2018 reproduction (gupctl repro) ----
 *
 * Line numbers are 6.1.192's (Debian linux-source-6.1 6.1.192-3), as in
 * the stock tree, or 6.12.118's for a policy of 6.12 (repro_cites); the BUG's line
 * comes from the flavour's own tree.  The code they cite is the same in
 * both: cc5095747edf's warning is still 6.12's.
 */

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

	return src && !strcmp(src, "6.12") ? &repro_cites_612 : &repro_cites_61;
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
		 "with a bio of its own, without buffers (only its 'confused' fallback, %s, "
		 "attaches them)", k->readpages, k->confused);
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

/*
 * ---- The driver's ABI: what an ioctl of /dev/gup_test may answer ----
 *
 * From module/uapi/gup_pin_test.h and docs/driver.md (the order of PIN's
 * checks, the errors of each ioctl, the write rule), which
 * module/gup_pin_test.c implements, and from mm/gup.c for what GUP may
 * take: 6.1.192's for every policy but mainline, 6.12.118's for mainline
 * (policy_kernel()).  Where the two differ the function takes the kernel;
 * where they agree both are cited, 6.1's line first.
 */

static void answer(struct abi_answers *a, int err)
{
	unsigned int i;

	for (i = 0; i < a->n; i++)
		if (a->err[i] == err)
			return;
	if (a->n < ABI_MAX_ANSWERS)
		a->err[a->n++] = err;
}

/* The first of @n checks whose condition holds decides alone: true then. */
struct abi_check {
	bool cond;
	int err;
	const char *why;
};

static bool abi_first(const struct abi_check *k, size_t n, struct abi_answers *a)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (k[i].cond) {
			answer(a, k[i].err);
			a->why = k[i].why;
			return true;
		}
	}
	return false;
}

/*
 * What PIN and BENCH answer before GUP: the first of @checks that holds
 * (true: that is the answer), else ENOSPC where the total may be reached
 * and ENOMEM (the driver's bookkeeping, GUP's page tables and pages) as
 * well as what follows.  Where TASK_SIZE depends on the paging levels, a
 * range near it may be EINVAL too.
 */
static bool abi_before_gup(const struct abi_call *c, const struct abi_check *checks,
			   size_t n, struct abi_answers *a)
{
	if (c->maybe_malformed && !c->malformed)
		answer(a, EINVAL);
	if (abi_first(checks, n, a))
		return true;
	if (c->total_maybe)
		answer(a, ENOSPC);
	answer(a, ENOMEM);
	return false;
}

/* PIN's checks come in the documented order, then GUP answers. */
static void abi_pin_answers(const struct abi_call *c, struct abi_answers *a)
{
	const struct abi_check before_gup[] = {
		{ c->malformed, EINVAL, "PIN's first check: a reserved field, an unknown method or flag bit, a misaligned, empty, wrapping or beyond-TASK_SIZE range is EINVAL" },
		{ c->flag_missing, EOPNOTSUPP, "PIN: GUP_PIN_FLAG_ALLOW_BROKEN on a kernel without FOLL_ALLOW_BROKEN_FILE_MAPPING is EOPNOTSUPP before GUP" },
		{ c->over_per_pin, E2BIG, "PIN: more pages than max_pages_per_pin is E2BIG before GUP" },
		{ c->over_total, ENOSPC, "PIN: beyond max_pages_total (all pins and calls in flight) is ENOSPC before GUP" },
	};

	if (abi_before_gup(c, before_gup, sizeof(before_gup) / sizeof(before_gup[0]), a))
		return;
	/*
	 * GUP fails with EFAULT only when it took no page (__get_user_pages():
	 * "return i ? i : ret", mm/gup.c:1303 in 6.1, 1580 in 6.12): the
	 * first page is not mapped or check_vma_flags() refuses it, a
	 * policy refuses (gup_may_refuse: the policy functions, 6.12's
	 * writable_file_mapping_allowed() included), or a userfaultfd page
	 * came back as SIGBUS.  A fully takeable range under a policy that
	 * takes it has no reason to fail.
	 */
	if (c->takeable < c->requested || c->gup_may_refuse || c->may_block ||
	    c->maybe_malformed)
		answer(a, EFAULT);
	a->success = true;
	a->why = "PIN reaches GUP: the pages it may take (a partial pin stops at the first it may not), or EFAULT when it takes none";
}

/*
 * BENCH (module/gup_pin_test.c, gpt_ioctl_bench()): PIN's checks but
 * max_pages_per_pin, then the page array (ENOMEM).  What GUP answers is
 * the answer's err field, judged as a PIN's GUP answer by the caller.
 */
static void abi_bench_answers(const struct abi_call *c, struct abi_answers *a)
{
	const struct abi_check before_gup[] = {
		{ c->malformed, EINVAL, "BENCH's first check: PIN's, and out fields or reserved[] not 0, or nr_per_call 0, is EINVAL" },
		{ c->flag_missing, EOPNOTSUPP, "BENCH: GUP_PIN_FLAG_ALLOW_BROKEN on a kernel without FOLL_ALLOW_BROKEN_FILE_MAPPING is EOPNOTSUPP" },
		{ c->over_total, ENOSPC, "BENCH: beyond max_pages_total (all pins and calls in flight) is ENOSPC" },
	};

	if (abi_before_gup(c, before_gup, sizeof(before_gup) / sizeof(before_gup[0]), a))
		return;
	a->success = true;
	a->why = "a well-formed BENCH succeeds: GUP's own error is its err field";
}

/* WRITE, READ, UNPIN, STATE: every error a condition of the request causes. */
static void abi_pin_use_answers(const struct abi_call *c, struct abi_answers *a)
{
	bool certain = false;

	if (c->malformed || c->out_of_range) {
		answer(a, EINVAL);
		certain = true;
	}
	if (c->unknown_id) {
		answer(a, ENOENT);
		certain = true;
	}
	if (c->write_refused) {
		answer(a, EPERM);
		certain = true;
	}
	if (c->buf_faults || c->buf_maybe_faults)
		answer(a, EFAULT);
	certain |= c->buf_faults;
	/* the one-page bounce buffer */
	if (c->ioctl == ABI_WRITE || c->ioctl == ABI_READ)
		answer(a, ENOMEM);
	a->success = !certain;
	a->why = certain ?
		 "a reserved field, a zero length or a range beyond the pinned pages is EINVAL, an id that is not a live pin of this file ENOENT, a write or dirty release the write rule refuses EPERM, an inaccessible buffer EFAULT" :
		 "a well-formed request on a live pin of this file succeeds (EFAULT only where its buffer may fault)";
}

void abi_answers(const struct abi_call *c, struct abi_answers *a)
{
	const struct abi_check first[] = {
		{ c->ioctl == ABI_UNKNOWN, ENOTTY, "an ioctl number the driver does not know, or a known number with another size, is ENOTTY" },
		{ c->arg_faults, EFAULT, "every ioctl first copies its argument structure: EFAULT when it cannot" },
		{ c->ioctl == ABI_VERSION && c->out_faults, EFAULT, "VERSION copies its answer out: EFAULT when it cannot" },
	};

	memset(a, 0, sizeof(*a));
	if (abi_first(first, sizeof(first) / sizeof(first[0]), a))
		return;
	switch (c->ioctl) {
	case ABI_VERSION:
		a->success = true;
		a->why = "VERSION always answers";
		break;
	case ABI_PIN:
		abi_pin_answers(c, a);
		break;
	case ABI_BENCH:
		abi_bench_answers(c, a);
		break;
	default:
		abi_pin_use_answers(c, a);
		break;
	}
	/* whatever else it would answer, the copy back fails */
	if (c->out_faults && a->success) {
		a->success = false;
		answer(a, EFAULT);
	}
	/* killable waits: mmap_read_lock_killable(), folio_lock_killable() */
	if (c->killable)
		answer(a, EINTR);
}

bool abi_answer_allowed(const struct abi_answers *a, int err)
{
	unsigned int i;

	if (!err)
		return a->success;
	for (i = 0; i < a->n; i++)
		if (a->err[i] == err)
			return true;
	return false;
}

const char *abi_pin_result(const struct abi_call *c, unsigned int nr_requested,
			   unsigned int nr_pinned, unsigned int id)
{
	if (nr_requested != c->requested)
		return "nr_requested is not len / page_size";
	if (nr_pinned > nr_requested)
		return "more pages pinned than requested";
	if (nr_pinned > c->takeable)
		return "GUP took a page it may not take: past a hole, PROT_NONE without FORCE, a write to a VMA without VM_WRITE (check_vma_flags(), mm/gup.c:1063-1109 in 6.1, 1270-1331 in 6.12)";
	if (!id != !nr_pinned)
		return "id must be 0 exactly when no page was taken";
	return NULL;
}

/*
 * check_vma_flags() for one page, without the policies' test: 6.1's
 * (mm/gup.c:1063-1109) and 6.12's (mm/gup.c:1270-1331) agree on the rest.
 * 6.12 adds, before the VM_WRITE test, writable_file_mapping_allowed()
 * (mm/gup.c:1292-1295), which is the mainline policy's (gup_may_refuse),
 * and VM_SHADOW_STACK (mm/gup.c:1297), which no mapping here has.
 */
bool abi_gup_may_take(unsigned int flags, const struct abi_vma *v)
{
	bool force = flags & GUP_PIN_FLAG_FORCE;

	if (!v->mapped || v->io_pfnmap)
		return false;
	if (flags & GUP_PIN_FLAG_WRITE) {
		/* FOLL_FORCE writes only to a COW mapping, never hugetlb */
		if (!v->write)
			return force && !v->hugetlb && !v->shared && v->may_write;
		return true;
	}
	return v->read || (force && v->may_read);
}

/*
 * Can a PIN of @method and @flags wait for a user page that a userfaultfd
 * holds back?  Only a GUP call with a "locked" argument may drop mmap_lock
 * and retry the fault (FAULT_FLAG_ALLOW_RETRY; FOLL_UNLOCKABLE in 6.12);
 * without one handle_userfault() answers VM_FAULT_SIGBUS (fs/userfaultfd.c:490
 * in 6.1, 418 in 6.12), GUP fails with EFAULT and a DEBUG_VM kernel prints a
 * stack ("FAULT_FLAG_ALLOW_RETRY missing").
 * - pin_user_pages(), get_user_pages() and the _remote ones: never; the
 *   driver calls them under its mmap_read_lock() with no "locked"
 *   (module/gup_compat.h), in 6.1 and 6.12.
 * - the _unlocked ones: get_user_pages_unlocked() passes &locked
 *   (mm/gup.c:2358-2372 in 6.1, which refuses FOLL_LONGTERM first, 2367);
 *   6.12's pass &locked and FOLL_UNLOCKABLE (mm/gup.c:2767-2778,
 *   3663-3674), and pin_user_pages_unlocked() takes FOLL_LONGTERM there.
 * - the _fast ones, in their slow fallback: 6.1's __gup_longterm_unlocked()
 *   (mm/gup.c:2966-2987) calls get_user_pages_unlocked() without
 *   FOLL_LONGTERM but __gup_longterm_locked(..., NULL) with it; 6.12's
 *   gup_fast_fallback() passes &locked and FOLL_UNLOCKABLE either way
 *   (mm/gup.c:3476-3478).
 * FOLL_LONGTERM with a FOLL_GET method WARNs on both (the policies say so):
 * never a wait.
 */
bool abi_gup_waits(enum policy_kernel k, unsigned int method, unsigned int flags)
{
	bool lt = flags & GUP_PIN_FLAG_LONGTERM;

	if (lt && !method_is_pin(method))
		return false;
	switch (method) {
	case GUP_PIN_METHOD_PIN_UNLOCKED:
	case GUP_PIN_METHOD_GET_UNLOCKED:
	case GUP_PIN_METHOD_PIN_FAST:
	case GUP_PIN_METHOD_GET_FAST:
		return !lt || k == POLICY_KERNEL_612;
	default:
		return false;
	}
}

/*
 * The write rule (module/uapi/gup_pin_test.h): a pin taken with
 * GUP_PIN_FLAG_WRITE, or a page cache page of the file of a VM_SHARED and
 * VM_WRITE mapping whose a_ops can dirty it.
 */
bool abi_page_writable(unsigned int flags, const struct abi_vma *v)
{
	if (flags & GUP_PIN_FLAG_WRITE)
		return true;
	return v->mapped && v->file && v->shared && v->write && v->dirtyable;
}

void policy_pin_outlook(policy_fn policy, unsigned int method, unsigned int flags,
			enum cell_backing backing, bool *refuse, bool *report)
{
	/* the method and flags alone decide on this cell (flags_decide_61()) */
	struct cell c = {
		.method = method,
		.flags = flags,
		.backing = BACKING_ANON,
		.state = STATE_NONE,
	};
	struct expectation e = policy(&c);
	unsigned int s;

	*refuse = e.outcome == OUTCOME_REFUSED;
	*report = e.report.kind;
	c.backing = backing;
	for (s = 0; s < STATE_COUNT; s++) {
		c.state = s;
		e = policy(&c);
		*refuse |= e.outcome == OUTCOME_REFUSED;
		*report |= e.report.kind != NULL;
	}
}
