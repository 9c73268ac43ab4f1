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
