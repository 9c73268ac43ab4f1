/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cell: the GUP matrix's coordinates (what backs the page, what user
 * space did to it, the method and flags), how each backing is made, and
 * the cells' numbering, shared by every feature.  Pure: no device, no I/O.  Cells are numbered 0..MATRIX_NR_CELLS-1 in run order
 * (1.. in KTAP, markers and documents): backing, then state, then method,
 * then flags, the last varying fastest; flags take the MATRIX_NR_FLAGS
 * sets of matrix_flag_sets[]: every mix of WRITE, LONGTERM and FORCE,
 * then ALLOW_BROKEN with each mix that writes (it only matters to a write).
 */
#ifndef MODEL_CELL_H
#define MODEL_CELL_H

#include <stdbool.h>
#include <stddef.h>

#include "gup_pin_test.h"
#include "lib/target.h"

/* What backs the one page a cell pins. */
enum cell_backing {
	BACKING_ANON,		/* MAP_PRIVATE | MAP_ANONYMOUS */
	BACKING_ANON_THP,	/* the same, 2 MiB aligned, MADV_HUGEPAGE */
	BACKING_SHMEM,		/* memfd_create(), MAP_SHARED */
	BACKING_SHMEM_THP,	/* the same, 2 MiB aligned, MADV_HUGEPAGE */
	BACKING_HUGETLB,	/* memfd_create(MFD_HUGETLB), MAP_SHARED */
	BACKING_TMPFS,		/* a file on tmpfs (/tmp), MAP_SHARED */
	BACKING_EXT4_SHARED,	/* a file on ext4, MAP_SHARED */
	BACKING_EXT4_PRIVATE,	/* a file on ext4, MAP_PRIVATE */
	BACKING_EXT4_SHARED_RO,	/* a file on ext4, O_RDONLY, MAP_SHARED, PROT_READ */
	BACKING_EXT4_PRIVATE_RO,/* O_RDONLY, MAP_PRIVATE, PROT_READ: program text */
	BACKING_RAMFS,		/* a file on ramfs, MAP_SHARED */
	/* ext4's four again on xfs and btrfs (after ramfs: the cells before keep their numbers) */
	BACKING_XFS_SHARED,	/* a file on xfs, MAP_SHARED */
	BACKING_XFS_PRIVATE,	/* a file on xfs, MAP_PRIVATE */
	BACKING_XFS_SHARED_RO,	/* a file on xfs, O_RDONLY, MAP_SHARED, PROT_READ */
	BACKING_XFS_PRIVATE_RO,	/* a file on xfs, O_RDONLY, MAP_PRIVATE, PROT_READ */
	BACKING_BTRFS_SHARED,	/* a file on btrfs, MAP_SHARED */
	BACKING_BTRFS_PRIVATE,	/* a file on btrfs, MAP_PRIVATE */
	BACKING_BTRFS_SHARED_RO,/* a file on btrfs, O_RDONLY, MAP_SHARED, PROT_READ */
	BACKING_BTRFS_PRIVATE_RO,/* a file on btrfs, O_RDONLY, MAP_PRIVATE, PROT_READ */
	BACKING_COUNT
};

/* What user space did to the page before the pin. */
enum cell_state {
	STATE_NONE,		/* never touched: not in the page tables */
	STATE_READ,		/* faulted in by a read */
	STATE_WRITE,		/* faulted in by a write */
	STATE_WRITEBACK,	/* write-faulted, then fsync(): written back */
	STATE_COUNT
};

struct cell {
	unsigned int method;	/* enum gup_pin_method */
	unsigned int flags;	/* GUP_PIN_FLAG_* */
	enum cell_backing backing;
	enum cell_state state;
};

/* FOLL_PIN (pin_user_pages*), not FOLL_GET?  The one place this is decided. */
bool method_is_pin(unsigned int method);
bool method_is_fast(unsigned int method);		/* a *_fast entry point? */
bool method_is_unlocked(unsigned int method);		/* a *_unlocked one? */

/* How a backing's memory is made (a target_spec less path and range). */
struct backing_spec {
	enum target_kind kind;
	unsigned long fs_magic;	/* TARGET_FILE: the file system's f_type */
	bool private;		/* MAP_PRIVATE (anon: always) */
	bool read_only;		/* PROT_READ only */
	bool thp;		/* 2 MiB aligned, MADV_HUGEPAGE */
};

const struct backing_spec *backing_spec(enum cell_backing backing);
/*
 * The backing (not THP) of @kind memory on file system @fs_magic
 * (TARGET_FILE; 0 otherwise) mapped so, or BACKING_COUNT: none.
 */
enum cell_backing backing_find(enum target_kind kind, unsigned long fs_magic,
			       bool private, bool read_only);
enum target_prefault state_prefault(enum cell_state state);
/*
 * gupctl pin: the matrix cell a pin of @t with @method and @flags
 * (GUP_PIN_FLAG_*) is an instance of, for each of its pages.  0, or
 * -ENOENT when no cell models it, with the reason in *@why.
 */
int pin_cell(const struct target *t, unsigned int method, unsigned int flags,
	     struct cell *c, const char **why);

/*
 * Can user space put memory of @backing in @state (a PROT_READ mapping
 * cannot be write-faulted, anonymous memory cannot be written back)?  If
 * not, *@why says so.  The matrix and the consumers run skip such cells.
 */
bool state_possible(enum cell_backing backing, enum cell_state state,
		    const char **why);
const char *backing_name(enum cell_backing backing);
const char *state_name(enum cell_state state);

#define MATRIX_NR_FLAGS		12
/* Written before a cell that expects a WARN_ON_ONCE (kernel/panic.c). */
#define MATRIX_CLEAR_WARN_ONCE	"/sys/kernel/debug/clear_warn_once"
extern const unsigned int matrix_flag_sets[MATRIX_NR_FLAGS];
#define MATRIX_NR_CELLS		(BACKING_COUNT * STATE_COUNT * \
				 GUP_PIN_METHOD_COUNT * MATRIX_NR_FLAGS)

/* Outcomes (expected and measured). */
enum matrix_outcome {
	MATRIX_PINNED,		/* "pinned": the page was taken */
	MATRIX_REFUSED,		/* "refused": an errno */
	MATRIX_NOT_RUN,		/* "not-run": not applicable, or setup failed */
	MATRIX_NONE_PINNED,	/* "none-pinned": no error but no page */
	MATRIX_OUTCOME_COUNT
};

/* make check's subset of backings (gupctl matrix --quick) */
bool matrix_quick_backing(enum cell_backing backing);
#define MATRIX_QUICK_REASON	"not in the quick subset (gupctl matrix --quick, make check): make matrix runs it"

void matrix_cell(unsigned int index, struct cell *c);
/* The index of @c, or -1 if its flags are not one of the matrix's sets. */
int matrix_index(const struct cell *c);
/* "pin_user_pages_fast WRITE|LONGTERM ext4-shared write-faulted" */
char *matrix_cell_str(unsigned int index, char *buf, size_t size);
const char *matrix_outcome_name(enum matrix_outcome o);
/* Name -> outcome: 0, or -EINVAL. */
int matrix_parse_outcome(const char *s, enum matrix_outcome *o);
/*
 * A flavour name is 1-63 of [A-Za-z0-9._+@-], not starting with '.' or '-'
 * (ids, files; + joins overlays, @ a registered kernel's ID).
 */
bool matrix_valid_flavour(const char *s);

#endif /* MODEL_CELL_H */
