// SPDX-License-Identifier: GPL-2.0
/*
 * cell: the GUP matrix's coordinates and outcomes (cell.h): pure
 * functions, no device, no I/O.
 */
#include <errno.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>

#include "lib/gupdev.h"
#include "lib/target.h"
#include "model/cell.h"

#define W	GUP_PIN_FLAG_WRITE
#define L	GUP_PIN_FLAG_LONGTERM
#define F	GUP_PIN_FLAG_FORCE
#define AB	GUP_PIN_FLAG_ALLOW_BROKEN
const unsigned int matrix_flag_sets[MATRIX_NR_FLAGS] = {
	0, W, L, W | L, F, W | F, L | F, W | L | F,
	W | AB, W | L | AB, W | F | AB, W | L | F | AB,
};
#undef W
#undef L
#undef F
#undef AB

void matrix_cell(unsigned int index, struct cell *c)
{
	c->flags = matrix_flag_sets[index % MATRIX_NR_FLAGS];
	index /= MATRIX_NR_FLAGS;
	c->method = index % GUP_PIN_METHOD_COUNT;
	index /= GUP_PIN_METHOD_COUNT;
	c->state = index % STATE_COUNT;
	index /= STATE_COUNT;
	c->backing = index;
}

int matrix_index(const struct cell *c)
{
	unsigned int f;

	if (c->backing >= BACKING_COUNT || c->state >= STATE_COUNT ||
	    c->method >= GUP_PIN_METHOD_COUNT)
		return -1;
	for (f = 0; f < MATRIX_NR_FLAGS; f++)
		if (matrix_flag_sets[f] == c->flags)
			break;
	if (f == MATRIX_NR_FLAGS)
		return -1;
	return ((c->backing * STATE_COUNT + c->state) * GUP_PIN_METHOD_COUNT +
		c->method) * MATRIX_NR_FLAGS + f;
}

char *matrix_cell_str(unsigned int index, char *buf, size_t size)
{
	struct cell c;
	char flags[64];

	matrix_cell(index, &c);
	snprintf(buf, size, "%s %s %s %s", gup_method_name(c.method),
		 gup_flags_str(c.flags, flags, sizeof(flags)),
		 backing_name(c.backing), state_name(c.state));
	return buf;
}

static const char * const outcome_names[MATRIX_OUTCOME_COUNT] = {
	[MATRIX_PINNED]		= "pinned",
	[MATRIX_REFUSED]	= "refused",
	[MATRIX_NOT_RUN]	= "not-run",
	[MATRIX_NONE_PINNED]	= "none-pinned",
};

const char *matrix_outcome_name(enum matrix_outcome o)
{
	return o < MATRIX_OUTCOME_COUNT ? outcome_names[o] : "?";
}

int matrix_parse_outcome(const char *s, enum matrix_outcome *o)
{
	unsigned int i;

	for (i = 0; i < MATRIX_OUTCOME_COUNT; i++) {
		if (!strcmp(s, outcome_names[i])) {
			*o = i;
			return 0;
		}
	}
	return -EINVAL;
}

bool matrix_valid_flavour(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+@-");

	return n && n < 64 && !s[n] && s[0] != '.' && s[0] != '-';
}

/*
 * make check's subset (--quick): the backings that tell the policies
 * apart, each in every state, method and flags.  An anonymous page (the
 * policies' common ground), shmem (file-backed but not dirty-tracked: v7
 * allows it, v1 does not), ext4 shared, private and shared read-only
 * (what every series is about), and btrfs shared: ext4-shared's twin,
 * the one of the xfs and btrfs backings whose written-back cells rest on
 * a writeback loop of its own (extent_write_cache_pages(), where ext4 and
 * xfs use the generic one), and a check that the boot mounted the scratch
 * btrfs.  It costs 384 cells, 176 to 240 of them run (by policy), under a
 * second in the guest; the boot makes the image (qemu/run.sh --fs btrfs)
 * anyway.  Left to make matrix: the THP and hugetlb variants of the same
 * answers, tmpfs and ramfs (shmem's and ext4's answers by another name),
 * ext4-private-ro, and the other xfs and btrfs backings, each its ext4
 * twin's answers on another file system (docs/filesystems-guide.md
 * section 1.2).
 */
bool matrix_quick_backing(enum cell_backing backing)
{
	switch (backing) {
	case BACKING_ANON:
	case BACKING_SHMEM:
	case BACKING_EXT4_SHARED:
	case BACKING_EXT4_PRIVATE:
	case BACKING_EXT4_SHARED_RO:
	case BACKING_BTRFS_SHARED:
		return true;
	default:
		return false;
	}
}

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
	[BACKING_XFS_SHARED]	  = "xfs-shared",
	[BACKING_XFS_PRIVATE]	  = "xfs-private",
	[BACKING_XFS_SHARED_RO]	  = "xfs-shared-ro",
	[BACKING_XFS_PRIVATE_RO]  = "xfs-private-ro",
	[BACKING_BTRFS_SHARED]	  = "btrfs-shared",
	[BACKING_BTRFS_PRIVATE]	  = "btrfs-private",
	[BACKING_BTRFS_SHARED_RO] = "btrfs-shared-ro",
	[BACKING_BTRFS_PRIVATE_RO] = "btrfs-private-ro",
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

bool method_is_fast(unsigned int method)
{
	return method == GUP_PIN_METHOD_PIN_FAST ||
	       method == GUP_PIN_METHOD_GET_FAST;
}

bool method_is_unlocked(unsigned int method)
{
	return method == GUP_PIN_METHOD_PIN_UNLOCKED ||
	       method == GUP_PIN_METHOD_GET_UNLOCKED;
}

bool method_is_pin(unsigned int method)
{
	return method == GUP_PIN_METHOD_PIN || method == GUP_PIN_METHOD_PIN_FAST ||
	       method == GUP_PIN_METHOD_PIN_REMOTE ||
	       method == GUP_PIN_METHOD_PIN_UNLOCKED;
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
	[BACKING_XFS_SHARED]	  = { TARGET_FILE, XFS_SUPER_MAGIC, false, false, false },
	[BACKING_XFS_PRIVATE]	  = { TARGET_FILE, XFS_SUPER_MAGIC, true, false, false },
	[BACKING_XFS_SHARED_RO]	  = { TARGET_FILE, XFS_SUPER_MAGIC, false, true, false },
	[BACKING_XFS_PRIVATE_RO]  = { TARGET_FILE, XFS_SUPER_MAGIC, true, true, false },
	[BACKING_BTRFS_SHARED]	  = { TARGET_FILE, BTRFS_SUPER_MAGIC, false, false, false },
	[BACKING_BTRFS_PRIVATE]	  = { TARGET_FILE, BTRFS_SUPER_MAGIC, true, false, false },
	[BACKING_BTRFS_SHARED_RO] = { TARGET_FILE, BTRFS_SUPER_MAGIC, false, true, false },
	[BACKING_BTRFS_PRIVATE_RO] = { TARGET_FILE, BTRFS_SUPER_MAGIC, true, true, false },
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

enum cell_backing backing_find(enum target_kind kind, unsigned long fs_magic,
			       bool private, bool read_only)
{
	unsigned int i;

	for (i = 0; i < BACKING_COUNT; i++) {
		const struct backing_spec *b = &backing_specs[i];

		if (b->kind == kind && b->fs_magic == fs_magic && !b->thp &&
		    b->private == private && b->read_only == read_only)
			return i;
	}
	return BACKING_COUNT;
}

enum target_prefault state_prefault(enum cell_state state)
{
	return state < STATE_COUNT ? state_prefaults[state] : TARGET_PREFAULT_NONE;
}

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
