// SPDX-License-Identifier: GPL-2.0
/*
 * Expected outcomes of matrix cells, one function per GUP policy.  Every
 * reason names the kernel code that decides; its line numbers are those of
 * the policy's own tree (patches/flavours): 6.1.192's as the lab builds it
 * for stock, the series' trees for v1, v7 and v9 (reasons_61[]), 6.12.118's
 * for mainline and 7.3.4's for latest (cites_612, cites_73).
 * tests/host/citations.sh checks them against the trees.
 */
#include <errno.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>

#include "gup_pin_test.h"
#include "lib/gupdev.h"
#include "model/policy.h"

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

/*
 * The file systems whose .mmap gives every mapping of a file, MAP_SHARED,
 * MAP_PRIVATE or PROT_READ alike, vm_ops with page_mkwrite: what v7's
 * vma_needs_dirty_tracking() asks first (v7 mm/mmap.c:1541; 6.12
 * mm/vma.c:1897 after its shared-writable test).  ext4, xfs and btrfs set
 * their own vm_ops; ramfs takes generic_file_mmap(), whose
 * generic_file_vm_ops has filemap_page_mkwrite although ramfs never writes
 * back.  shmem and hugetlbfs have neither page_mkwrite nor
 * BDI_CAP_WRITEBACK (noop_backing_dev_info); anonymous VMAs never reach the
 * check.  @writes_back: the file system writes a dirty page back and
 * write-protects it on the way (fast_path_takes_write()).
 */
enum dt_fs { DT_EXT4, DT_XFS, DT_BTRFS, DT_RAMFS, DT_COUNT };

static const struct {
	unsigned long magic;
	bool writes_back;
} dt_fss[DT_COUNT] = {
	[DT_EXT4]	= { EXT4_SUPER_MAGIC, true },
	[DT_XFS]	= { XFS_SUPER_MAGIC, true },
	[DT_BTRFS]	= { BTRFS_SUPER_MAGIC, true },
	[DT_RAMFS]	= { RAMFS_MAGIC, false },
};

/* The dirty-tracked file system of @backing's file, or DT_COUNT: none. */
static enum dt_fs backing_dt_fs(enum cell_backing backing)
{
	const struct backing_spec *b = backing_spec(backing);
	unsigned int i;

	for (i = 0; b && b->kind == TARGET_FILE && i < DT_COUNT; i++)
		if (dt_fss[i].magic == b->fs_magic)
			return i;
	return DT_COUNT;
}

/*
 * Why the VMA has page_mkwrite, in each source version's lines (the 6.1
 * series touch none of these files: patches/gup-*), appended to the
 * reasons that vma_needs_dirty_tracking() decides: PER_FS(61, "text").
 */
#define VMOPS_61_EXT4	"ext4_file_mmap() sets vma->vm_ops = &ext4_file_vm_ops for every mapping type (fs/ext4/file.c:789), whose .page_mkwrite = ext4_page_mkwrite (fs/ext4/file.c:765)"
#define VMOPS_61_XFS	"xfs_file_mmap() sets vma->vm_ops = &xfs_file_vm_ops for every mapping type (fs/xfs/xfs_file.c:1468), whose .page_mkwrite = xfs_filemap_page_mkwrite (fs/xfs/xfs_file.c:1448), as ext4's has ext4_page_mkwrite"
#define VMOPS_61_BTRFS	"btrfs_file_mmap() sets vma->vm_ops = &btrfs_file_vm_ops for every mapping type (fs/btrfs/file.c:2027), whose .page_mkwrite = btrfs_page_mkwrite (fs/btrfs/file.c:2016), as ext4's has ext4_page_mkwrite"
#define VMOPS_61_RAMFS	"ramfs' .mmap = generic_file_mmap (fs/ramfs/file-mmu.c:44) sets vma->vm_ops = &generic_file_vm_ops (mm/filemap.c:3580), whose .page_mkwrite = filemap_page_mkwrite (mm/filemap.c:3568), although ramfs never writes back"
#define VMOPS_612_EXT4	"ext4_file_mmap() sets vma->vm_ops = &ext4_file_vm_ops for every mapping type (fs/ext4/file.c:809), whose .page_mkwrite = ext4_page_mkwrite (fs/ext4/file.c:786)"
#define VMOPS_612_XFS	"xfs_file_mmap() sets vma->vm_ops = &xfs_file_vm_ops for every mapping type (fs/xfs/xfs_file.c:1580), whose .page_mkwrite = xfs_filemap_page_mkwrite (fs/xfs/xfs_file.c:1560), as ext4's has ext4_page_mkwrite"
#define VMOPS_612_BTRFS	"btrfs_file_mmap() sets vma->vm_ops = &btrfs_file_vm_ops for every mapping type (fs/btrfs/file.c:2030), whose .page_mkwrite = btrfs_page_mkwrite (fs/btrfs/file.c:2019), as ext4's has ext4_page_mkwrite"
#define VMOPS_612_RAMFS	"ramfs' .mmap = generic_file_mmap (fs/ramfs/file-mmu.c:44) sets vma->vm_ops = &generic_file_vm_ops (mm/filemap.c:3764), whose .page_mkwrite = filemap_page_mkwrite (mm/filemap.c:3752), although ramfs never writes back"
#define VMOPS_73_EXT4	"ext4_file_mmap_prepare() sets desc->vm_ops = &ext4_file_vm_ops for every mapping type (fs/ext4/file.c:906), whose .page_mkwrite = ext4_page_mkwrite (fs/ext4/file.c:877)"
#define VMOPS_73_XFS	"xfs_file_mmap_prepare() sets desc->vm_ops = &xfs_file_vm_ops for every mapping type (fs/xfs/xfs_file.c:2151), whose .page_mkwrite = xfs_filemap_page_mkwrite (fs/xfs/xfs_file.c:2130), as ext4's has ext4_page_mkwrite"
#define VMOPS_73_BTRFS	"btrfs_file_mmap_prepare() sets desc->vm_ops = &btrfs_file_vm_ops for every mapping type (fs/btrfs/file.c:2004), whose .page_mkwrite = btrfs_page_mkwrite (fs/btrfs/file.c:1990), as ext4's has ext4_page_mkwrite"
#define VMOPS_73_RAMFS	"ramfs' .mmap_prepare = generic_file_mmap_prepare (fs/ramfs/file-mmu.c:44) sets desc->vm_ops = &generic_file_vm_ops (mm/filemap.c:4059), whose .page_mkwrite = filemap_page_mkwrite (mm/filemap.c:4035), although ramfs never writes back"
#define PER_FS(tree, text) {						\
	[DT_EXT4] = text "; " VMOPS_##tree##_EXT4,			\
	[DT_XFS] = text "; " VMOPS_##tree##_XFS,			\
	[DT_BTRFS] = text "; " VMOPS_##tree##_BTRFS,			\
	[DT_RAMFS] = text "; " VMOPS_##tree##_RAMFS,			\
}

/* v7's vma_needs_dirty_tracking(): the VMA's vm_ops have page_mkwrite. */
bool backing_dirty_tracked(enum cell_backing backing)
{
	return backing_dt_fs(backing) != DT_COUNT;
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
 * The reasons the 6.1 policies share, each with the line numbers of the
 * policy's own tree: stock's (6.1.192 + patches/gup-test-longterm, which
 * touches mm/gup_test.* only; ext4-2018, the other flavour of the stock
 * policy, differs from it in fs/ext4/inode.c only), and gup-v1's, gup-v7's
 * and gup-v9's, whose series move the lines of mm/gup.c.  The stock
 * functions below give reasons_61[0]'s; the v1, v7 and v9 ones swap them
 * for their tree's (in_tree()).  R61_WRITE is each policy's own: why a
 * write its check does not refuse goes through.
 */
enum reason_61 {
	R61_LONGTERM_GET,	/* is_valid_gup_flags()'s WARN */
	R61_LONGTERM_UNLOCKED,	/* get_user_pages_unlocked()'s WARN */
	R61_FAST_FLAGS,		/* internal_get_user_pages_fast()'s WARN */
	R61_SHARED_RO_FORCE,	/* check_vma_flags(): no COW, FOLL_FORCE or not */
	R61_NO_WRITE,		/* check_vma_flags(): no VM_WRITE, no FOLL_FORCE */
	R61_COW_FORCE,		/* check_vma_flags(): FOLL_FORCE breaks COW */
	R61_WRITE,		/* a write the policy lets through */
	R61_COUNT
};

/* Per tree: mm/gup.c's WARN lines, then check_vma_flags()'s VM_WRITE test. */
#define REASONS_61(lt_get, lt_unlocked, fast_flags, vm_write, no_force,	\
		   follow_write, write)						\
	[R61_LONGTERM_GET] = "is_valid_gup_flags() (mm/gup.c:" lt_get ", from get_user_pages*()): FOLL_LONGTERM requires FOLL_PIN: WARN_ON_ONCE, -EINVAL", \
	[R61_LONGTERM_UNLOCKED] = "get_user_pages_unlocked() (mm/gup.c:" lt_unlocked "): FOLL_LONGTERM cannot drop mmap_lock to retry: WARN_ON_ONCE, -EINVAL", \
	[R61_FAST_FLAGS] = "internal_get_user_pages_fast() (mm/gup.c:" fast_flags "): FOLL_ALLOW_BROKEN_FILE_MAPPING is not in its allowed flags (seed 005 adds it to callers, not there): WARN_ON_ONCE, -EINVAL", \
	[R61_SHARED_RO_FORCE] = "check_vma_flags() (mm/gup.c:" vm_write "): no VM_WRITE, and FOLL_FORCE does not help: a MAP_SHARED mapping of an O_RDONLY file loses VM_SHARED and VM_MAYWRITE (mm/mmap.c:1386), so it is no COW mapping", \
	[R61_NO_WRITE] = "check_vma_flags() (mm/gup.c:" no_force "): FOLL_WRITE on a VMA without VM_WRITE and no FOLL_FORCE", \
	[R61_COW_FORCE] = "FOLL_FORCE on a COW mapping passes check_vma_flags() (mm/gup.c:" vm_write "); the write fault breaks COW and can_follow_write_pte() (mm/gup.c:" follow_write ") takes the exclusive anonymous copy: the debugger's breakpoint", \
	[R61_WRITE] = write

static const char *const reasons_61[][R61_COUNT] = {
	{ REASONS_61("2184", "2367", "3047", "1082-1098", "1082-1084", "506",
		     "6.1 has no file-backed write policy: a write fault (page_mkwrite for files, COW for private mappings) makes the page writable and GUP takes it") },
	{ REASONS_61("2218", "2401", "3081", "1116-1132", "1116-1118", "506",
		     "seed 005 leaves this VMA alone: check_vma_flags() asks can_write_file_mapping() of file VMAs only (!vma_anon, mm/gup.c:1112-1113), and can_write_file_mapping() passes shmem and hugetlb (vma_is_shmem(), is_file_hugepages(): mm/gup.c:1089); the write fault (COW for private mappings) makes the page writable and GUP takes it") },
	{ REASONS_61("2283", "2466", "3146", "1181-1197", "1181-1183", "564",
		     "v7 leaves this VMA alone: check_vma_flags() asks writeable_file_mapping_allowed() of file VMAs only (!vma_anon, mm/gup.c:1177-1178), and vma_needs_dirty_tracking() (mm/mmap.c:1538) is false for shmem and hugetlb (no page_mkwrite, no writeback); the write fault (COW for private mappings) makes the page writable and GUP takes it") },
	{ REASONS_61("2227", "2410", "3191", "1125-1141", "1125-1127", "507",
		     "writable_file_mapping_allowed() (mm/gup.c:1083-1098) passes: not both FOLL_PIN and FOLL_LONGTERM, or a VMA without dirty tracking (shmem, hugetlb; an anonymous VMA never reaches it); the write fault (page_mkwrite for files, COW for private mappings) makes the page writable and GUP takes it") },
};
enum { TREE_STOCK, TREE_V1, TREE_V7, TREE_V9 };

/* @e as the policy of @tree gives it: stock's reason with @tree's lines. */
static struct expectation in_tree(struct expectation e, unsigned int tree)
{
	unsigned int i;

	for (i = 0; i < R61_COUNT; i++)
		if (e.reason == reasons_61[TREE_STOCK][i])
			e.reason = reasons_61[tree][i];
	return e;
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
			    reasons_61[TREE_STOCK][R61_LONGTERM_GET]);
	} else if (lt && method_is_unlocked(m)) {
		*e = warned(EINVAL, "WARN_ON_ONCE(gup_flags & FOLL_LONGTERM)",
			    reasons_61[TREE_STOCK][R61_LONGTERM_UNLOCKED]);
	} else if (ab && method_is_fast(m)) {
		*e = warned(EINVAL, "WARN_ON_ONCE(gup_flags & ~(FOLL_WRITE",
			    reasons_61[TREE_STOCK][R61_FAST_FLAGS]);
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
 * since.  fsync() write-protects a MAP_SHARED page of a file system that
 * writes back: folio_clear_dirty_for_io() calls folio_mkclean() (6.1
 * mm/page-writeback.c:2886, 6.12 mm/page-writeback.c:3028), from
 * write_cache_pages() for ext4 and xfs (6.1 mm/page-writeback.c:2378;
 * xfs through iomap, 6.1 fs/iomap/buffered-io.c:1805; 6.12 writeback_iter(),
 * mm/page-writeback.c:2463, fs/iomap/buffered-io.c:2087) and from btrfs'
 * own extent_write_cache_pages() (6.1 fs/btrfs/extent_io.c:3168, 6.12
 * fs/btrfs/extent_io.c:2378).  shmem, hugetlbfs and ramfs do not write
 * back, and a MAP_PRIVATE page is an anonymous copy.
 */
static bool fast_path_takes_write(const struct cell *c)
{
	const struct backing_spec *b = backing_spec(c->backing);
	enum dt_fs fs = backing_dt_fs(c->backing);

	if (!method_is_fast(c->method) || b->read_only)
		return false;
	if (c->state == STATE_WRITEBACK)
		return b->private || fs == DT_COUNT || !dt_fss[fs].writes_back;
	return c->state == STATE_WRITE;
}

/* A file mapped read-only: MAP_SHARED of an O_RDONLY file, or MAP_PRIVATE. */
static bool file_read_only(const struct cell *c, bool private)
{
	const struct backing_spec *b = backing_spec(c->backing);

	return b->kind == TARGET_FILE && b->read_only && b->private == private;
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
	if (write && file_read_only(c, false))
		return refused(EFAULT, force ?
			       reasons_61[TREE_STOCK][R61_SHARED_RO_FORCE] :
			       reasons_61[TREE_STOCK][R61_NO_WRITE]);
	if (write && file_read_only(c, true))
		return force ?
		       pinned(reasons_61[TREE_STOCK][R61_COW_FORCE]) :
		       refused(EFAULT, reasons_61[TREE_STOCK][R61_NO_WRITE]);
	if (write)
		return pinned(reasons_61[TREE_STOCK][R61_WRITE]);
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
	struct expectation e = in_tree(expect_stock_61(c, true), TREE_V1);
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
 * !folio_mapping() (the anonymous COW copy of a MAP_PRIVATE file: ext4,
 * xfs or btrfs), shmem or hugetlb; v7 asks only of dirty-tracked VMAs.
 */
static bool v7_fast_path_takes(const struct cell *c)
{
	const struct backing_spec *b = backing_spec(c->backing);

	if (!fast_path_takes_write(c))
		return false;
	if (c->flags & GUP_PIN_FLAG_LONGTERM)
		return b->kind == TARGET_FILE && b->private;
	return true;
}

static const char *const v7_refused[DT_COUNT] = PER_FS(61, "check_vma_flags() -> writeable_file_mapping_allowed() (v7: mm/gup.c:1177-1179), before the VM_WRITE test: a FOLL_PIN write, long-term or not, to a VMA for which vma_needs_dirty_tracking() (mm/mmap.c:1538) is true (page_mkwrite, or a mapping that can write back) is refused, -EFAULT; GUP-fast's folio_longterm_write_pin_allowed() (mm/gup.c:114) sends a long-term pin of a page-cache folio there too");

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
	struct expectation e = in_tree(expect_stock(c), TREE_V7);

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
	return refused(EFAULT, v7_refused[backing_dt_fs(c->backing)]);
}

static const char *const v9_private[DT_COUNT] = PER_FS(61, "v9: vma_needs_dirty_tracking() is false for a private or read-only VMA (its writes go to an anonymous copy): writable_file_mapping_allowed() passes where v7 refused, whose check the VMA's page_mkwrite alone decided");
static const char *const v9_refused[DT_COUNT] = PER_FS(61, "check_vma_flags() -> writable_file_mapping_allowed() (v9): a FOLL_PIN|FOLL_LONGTERM write to a shared writable VMA that vma_needs_dirty_tracking(); GUP-fast's folio_fast_pin_allowed() sends a page-cache folio there too");

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
	struct expectation e = in_tree(expect_stock(c), TREE_V9);
	unsigned int need = GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_LONGTERM;

	if (e.outcome == OUTCOME_NOT_APPLICABLE || e.report.kind || e.by_driver)
		return e;
	if ((c->flags & need) != need || !method_is_pin(c->method))
		return e;
	if (!backing_dirty_tracked_v9(c->backing)) {
		if (backing_dirty_tracked(c->backing) && e.outcome == OUTCOME_PINNED)
			return pinned(v9_private[backing_dt_fs(c->backing)]);
		return e;
	}
	return refused(EFAULT, v9_refused[backing_dt_fs(c->backing)]);
}

/*
 * The reasons of the merged policy (6.5 on), each with its tree's lines:
 * 6.12.118's for mainline, 7.3.4's for latest.  The code that decides is
 * the same in both (mm/gup.c's check_vma_flags(), writable_file_mapping_
 * allowed(), gup_fast_folio_allowed(), is_valid_gup_args(); mm/vma.c's
 * vma_needs_dirty_tracking(); mm/internal.h's gup_must_unshare()): only
 * its lines moved, and what differs between the two trees changes no cell
 * of the matrix (expect_latest()).
 */
struct cites_merged {
	const char *allow_broken;	/* the driver refuses the series' flag */
	const char *lt_get;		/* is_valid_gup_args()'s LONGTERM WARN */
	const char *refused[DT_COUNT];	/* a long-term write pin, refused */
	const char *no_policy;		/* the same, with no file write policy */
	const char *ro_force;		/* no VM_WRITE, FOLL_FORCE no help */
	const char *no_write;		/* no VM_WRITE, no FOLL_FORCE */
	const char *cow_force;		/* FOLL_FORCE breaks COW */
	const char *write;		/* a write that passes */
	const char *lt_cow_read;	/* a long-term read pin of a COW file page */
};

/*
 * MERGED_CITES(tree, version, lt_warn, wfma, cvf_write, vm_write,
 * no_force, vndt, gffa, gffa_file, unshare): @wfma writable_file_mapping_
 * allowed(), @wfma_pass its FOLL_PIN|FOLL_LONGTERM test and return,
 * @cvf_write check_vma_flags()' call of it, @vm_write its VM_WRITE test
 * through the COW test, @no_force the VM_WRITE test's first lines, @vndt
 * vma_needs_dirty_tracking() in mm/vma.c, @gffa gup_fast_folio_allowed()
 * and @gffa_file its last line (shmem or back to the slow path), @unshare
 * gup_must_unshare()'s file-page test in mm/internal.h.
 */
#define MERGED_CITES(tree, ver, lt_warn, wfma, wfma_pass, cvf_write, vm_write,	\
		     no_force, vndt, gffa, gffa_file, unshare) {		\
	.allow_broken = "gup_pin_test refuses GUP_PIN_FLAG_ALLOW_BROKEN before GUP: " ver " has no FOLL_ALLOW_BROKEN_FILE_MAPPING (only seed 005 adds it)", \
	.lt_get = "is_valid_gup_args() (mm/gup.c:" lt_warn ", " ver "): LONGTERM can only be specified when pinning: WARN_ON_ONCE, -EINVAL", \
	.refused = PER_FS(tree, "check_vma_flags() -> writable_file_mapping_allowed() (mm/gup.c:" cvf_write ", " wfma "): a FOLL_PIN|FOLL_LONGTERM write to a shared writable VMA that vma_needs_dirty_tracking() (mm/vma.c:" vndt "); GUP-fast's gup_fast_folio_allowed() (mm/gup.c:" gffa_file ") sends a page-cache folio there too"), \
	.no_policy = "no file write policy: writable_file_mapping_allowed() (mm/gup.c:" wfma ") allows this FOLL_PIN|FOLL_LONGTERM write to a dirty-tracked shared VMA; GUP-fast's gup_fast_folio_allowed() (mm/gup.c:" gffa ") still sends the page-cache folio to the slow path, which takes it", \
	.ro_force = "check_vma_flags() (mm/gup.c:" vm_write "): no VM_WRITE, and FOLL_FORCE does not help: a MAP_SHARED mapping of an O_RDONLY file loses VM_SHARED and VM_MAYWRITE, so it is no COW mapping", \
	.no_write = "check_vma_flags() (mm/gup.c:" no_force "): FOLL_WRITE on a VMA without VM_WRITE and no FOLL_FORCE", \
	.cow_force = "FOLL_FORCE on a COW mapping passes check_vma_flags() (mm/gup.c:" vm_write "); the write fault breaks COW and GUP takes the exclusive anonymous copy: the debugger's breakpoint", \
	.write = "writable_file_mapping_allowed() (mm/gup.c:" wfma_pass ") passes: not both FOLL_PIN and FOLL_LONGTERM, or a VMA without dirty tracking (anonymous, private, shmem, hugetlb); the write fault makes the page writable and GUP takes it", \
	.lt_cow_read = "a long-term read pin of a file page in a COW mapping: gup_must_unshare() (mm/internal.h:" unshare ") unshares it first, and GUP pins the anonymous copy", \
}

static const struct cites_merged cites_612 =
	MERGED_CITES(612, "6.12", "2625", "1252-1267", "1259-1267", "1292-1295",
		     "1297-1313", "1297-1299", "1890", "2833-2901", "2901",
		     "1393-1404");
/*
 * 7.3.4: the same code (read there, not assumed): writable_file_mapping_
 * allowed() mm/gup.c:1182-1198, its call in check_vma_flags() 1222-1225,
 * the VM_WRITE test 1227-1240, is_valid_gup_args() 2495-2541,
 * vma_needs_dirty_tracking() mm/vma.c:2213-2228, gup_fast_folio_allowed()
 * mm/gup.c:2733-2807, gup_must_unshare() mm/internal.h:1356-1404.
 */
static const struct cites_merged cites_73 =
	MERGED_CITES(73, "7.3", "2525", "1182-1197", "1189-1197", "1222-1225",
		     "1227-1240", "1227-1229", "2213", "2733-2806", "2806",
		     "1376-1387");

/*
 * What 6.12 and 7.3 decide from the method and flags alone, before any
 * VMA: is_valid_gup_args() (6.12 mm/gup.c:2595, 7.3 mm/gup.c:2495), which
 * every entry point calls.  Two answers differ from 6.1's
 * flags_decide_61(): the LONGTERM check has one WARN for every FOLL_GET
 * entry point (get_user_pages_unlocked() included), and
 * pin_user_pages_unlocked() takes FOLL_LONGTERM, since it pins through
 * __gup_longterm_locked() (6.12 mm/gup.c:3663-3676, 7.3 mm/gup.c:3396-3407)
 * where 6.1's refused it.
 */
static bool flags_decide_merged(const struct cell *c, const struct cites_merged *t,
				struct expectation *e)
{
	bool lt = c->flags & GUP_PIN_FLAG_LONGTERM;

	if (c->flags & GUP_PIN_FLAG_ALLOW_BROKEN) {
		*e = refused(EOPNOTSUPP, t->allow_broken);
		e->by_driver = true;
	} else if (lt && !method_is_pin(c->method)) {
		*e = warned(EINVAL, "WARN_ON_ONCE(!(gup_flags & FOLL_PIN) && (gup_flags & FOLL_LONGTERM))",
			    t->lt_get);
	} else {
		return false;
	}
	e->flags_only = true;
	return true;
}

/*
 * The series as merged in 6.5, as 6.12.118 (mainline) and 7.3.4 (latest)
 * have it, with the lines of @t's tree (6.12's given here):
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
 * The same answers as gup-v9 except flags_decide_merged().
 * @file_policy false: writable_file_mapping_allowed() changed to allow
 * everything (policy_reference()).
 */
static struct expectation expect_merged(const struct cell *c,
					const struct cites_merged *t,
					bool file_policy)
{
	unsigned int need = GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_LONGTERM;
	bool write = c->flags & GUP_PIN_FLAG_WRITE;
	bool force = c->flags & GUP_PIN_FLAG_FORCE;
	struct expectation e;

	if (cell_impossible(c, &e) || flags_decide_merged(c, t, &e))
		return e;
	if ((c->flags & need) == need && method_is_pin(c->method) &&
	    backing_dirty_tracked_v9(c->backing)) {
		if (file_policy)
			return refused(EFAULT, t->refused[backing_dt_fs(c->backing)]);
		return pinned(t->no_policy);
	}
	if (write && file_read_only(c, false))
		return refused(EFAULT, force ? t->ro_force : t->no_write);
	if (write && file_read_only(c, true))
		return force ? pinned(t->cow_force) : refused(EFAULT, t->no_write);
	if (write)
		return pinned(t->write);
	if ((c->flags & GUP_PIN_FLAG_LONGTERM) && backing_spec(c->backing)->private &&
	    backing_spec(c->backing)->kind == TARGET_FILE)
		return pinned(t->lt_cow_read);
	return pinned("a read pin: GUP faults the page in readable and takes it");
}

static struct expectation expect_mainline(const struct cell *c)
{
	return expect_merged(c, &cites_612, true);
}

/*
 * latest: Debian's 7.3.4.  Read in its code, what changed since 6.12
 * changes no cell of the matrix:
 * - gup_fast_folio_allowed() (mm/gup.c:2791-2792) now decides a folio
 *   whose mapping is NULL by the pin's flags: only a FOLL_PIN|
 *   FOLL_LONGTERM|FOLL_WRITE one falls back to the slow path, where 6.12
 *   (mm/gup.c:2886-2887) sent there every folio that reached the test.  The matrix pins no folio
 *   whose mapping is NULL (none of its backings and states truncates a
 *   page under its mapping), and the slow path decides as GUP-fast would.
 * - the file systems set vm_ops in ->mmap_prepare() (the VMOPS_73_*
 *   reasons), with the same page_mkwrite;
 * - check_vma_flags() has the same tests in the same order, with
 *   vma_is_cow_mapping() for is_cow_mapping(vm_flags) and a shadow-stack
 *   test beside VM_WRITE that no x86 VMA of the matrix has.
 * Hence mainline's answers, with 7.3.4's lines.
 */
static struct expectation expect_latest(const struct cell *c)
{
	return expect_merged(c, &cites_73, true);
}

/*
 * The 6.12 (7.3) kernel with no file-backed write policy: its code with
 * writable_file_mapping_allowed() changed to allow everything, which is
 * what it does for every write but a FOLL_PIN|FOLL_LONGTERM one to a
 * dirty-tracked VMA.  Not a flavour's policy: the reference gupctl detect
 * tells mainline (latest) from (stock cannot be: 6.1's flags_decide_61()
 * refuses FOLL_LONGTERM to pin_user_pages_unlocked(), which 6.12 and 7.3
 * take).
 */
static struct expectation expect_612_no_file_policy(const struct cell *c)
{
	return expect_merged(c, &cites_612, false);
}

static struct expectation expect_73_no_file_policy(const struct cell *c)
{
	return expect_merged(c, &cites_73, false);
}

/*
 * The backings as the matrix makes them and gupctl pin recognises them.
 * A memfd's file system is implied (shmem, hugetlbfs).
 */

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
	{ "latest", expect_latest, "7.3" },
};

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

enum policy_kernel policy_kernel_of_source(const char *source)
{
	if (!source)
		return POLICY_KERNEL_COUNT;
	if (!strcmp(source, "6.1"))
		return POLICY_KERNEL_61;
	if (!strcmp(source, "6.12"))
		return POLICY_KERNEL_612;
	if (!strcmp(source, "7.3"))
		return POLICY_KERNEL_73;
	return POLICY_KERNEL_COUNT;
}

enum policy_kernel policy_kernel(const char *name)
{
	const char *src = policy_source(name);

	return policy_kernel_of_source(src);
}

bool policy_is_none(const char *name)
{
	return name && !strcmp(name, POLICY_NONE);
}

policy_fn policy_reference(enum policy_kernel k)
{
	switch (k) {
	case POLICY_KERNEL_61:
		return expect_stock;
	case POLICY_KERNEL_612:
		return expect_612_no_file_policy;
	case POLICY_KERNEL_73:
		return expect_73_no_file_policy;
	default:
		return NULL;
	}
}

size_t policy_family(enum policy_kernel k, const char **names, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if (policy_kernel(policies[i].name) == k && n < max)
			names[n++] = policies[i].name;
	return n;
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
