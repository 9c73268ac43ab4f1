/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy: expected outcome of one GUP matrix cell under each flavour's GUP
 * policy, derived from the policy's code (6.1's mm/gup.c, and the series in
 * patches/gup-v1/, gup-v7/, gup-v9/), never from an observed run.
 */
#ifndef POLICY_H
#define POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "target.h"

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

enum outcome {
	OUTCOME_PINNED,		/* the one page was taken */
	OUTCOME_REFUSED,	/* an errno (err) */
	OUTCOME_NOT_APPLICABLE,	/* the cell cannot be set up; not run */
};

/*
 * A kernel report a cell's GUP call causes (a WARN_ON_ONCE of a flag check
 * or of a policy's refusal).  The matrix re-arms WARN_ON_ONCE before each
 * such cell (/sys/kernel/debug/clear_warn_once), and the host attributes
 * each report to the cell before it: one that matches is expected, any
 * other fails the run.  It matches a report of @kind whose location is in
 * @file on a line of the flavour's tree that contains @text.
 */
struct report_exp {
	const char *kind;	/* "warning" */
	const char *file;	/* "mm/gup.c" */
	const char *text;	/* source text on the WARN's line */
};

struct expectation {
	enum outcome outcome;
	int err;		/* positive errno when OUTCOME_REFUSED */
	const char *reason;	/* one line, names the code that decides */
	bool by_driver;		/* refused by gup_pin_test before GUP is called */
	bool flags_only;	/* decided by method and flags, before any VMA */
	struct report_exp report; /* .kind NULL: no kernel report expected */
};

typedef struct expectation (*policy_fn)(const struct cell *cell);

/* The policy named in patches/flavours' "gup" column, or NULL. */
policy_fn policy_lookup(const char *name);
/*
 * The kernel source the policy's code is from ("6.1", "6.12": patches/
 * flavours' source column), or NULL for an unknown policy.
 */
const char *policy_source(const char *name);
/* Comma separated names of every policy, for help and errors. */
const char *policy_names(void);

/* FOLL_PIN (pin_user_pages*), not FOLL_GET?  The one place this is decided. */
bool method_is_pin(unsigned int method);
bool method_is_fast(unsigned int method);		/* a *_fast entry point? */

/* How a backing's memory is made (a target_spec less path and range). */
struct backing_spec {
	enum target_kind kind;
	unsigned long fs_magic;	/* TARGET_FILE: the file system's f_type */
	bool private;		/* MAP_PRIVATE (anon: always) */
	bool read_only;		/* PROT_READ only */
	bool thp;		/* 2 MiB aligned, MADV_HUGEPAGE */
};

const struct backing_spec *backing_spec(enum cell_backing backing);
enum target_prefault state_prefault(enum cell_state state);
/*
 * The policy the running kernel implements ("stock", "v1", "v7", "v9"), or
 * NULL if unknown; @why says how it was decided (or why it is unknown).
 */
const char *policy_detect(char *why, size_t size);
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
/* Is the backing's VMA one v7's vma_needs_dirty_tracking() answers yes for? */
bool backing_dirty_tracked(enum cell_backing backing);
/* The same question for v9's (6.5's) version: shared and writable only. */
bool backing_dirty_tracked_v9(enum cell_backing backing);

/*
 * ---- The ext4-2018 reproduction (gupctl repro) ----
 *
 * A repro cell takes one page of an ext4 file with GUP, writes it through
 * the kernel's mapping, releases it dirty and fsyncs.  Its expected outcome
 * follows from two columns of patches/flavours: the GUP policy (may GUP
 * take the page? the matrix's policy functions answer, for an untouched
 * MAP_SHARED ext4 page) and the ext4 behaviour (what writeback does with a
 * dirty page without buffers).
 */
enum repro_route {
	REPRO_ROUTE_READ,	/* a read fault after a cache drop: no buffers */
	REPRO_ROUTE_MOVE_EXT,	/* buffers freed by EXT4_IOC_MOVE_EXT */
	REPRO_ROUTE_COUNT
};

/* patches/flavours' "ext4" column. */
enum repro_ext4 {
	REPRO_EXT4_WARN,	/* cc5095747edf: warn, clear dirty, data lost */
	REPRO_EXT4_BUG,		/* cc5095747edf reverted: page_buffers() BUGs */
	REPRO_EXT4_COUNT
};

struct repro_cell {
	enum repro_route route;
	unsigned int method;	/* enum gup_pin_method */
	unsigned int flags;	/* GUP_PIN_FLAG_WRITE / _LONGTERM */
};

#define REPRO_MAX_REPORTS	3

/* A kernel report the cell expects on the console. */
struct repro_report_exp {
	const char *kind;	/* "warning", "bug", "panic" */
	char where[64];		/* function (warning), file:line (bug), "" any */
	const char *why;
};

struct repro_expectation {
	char outcome[80];	/* "blocked (EFAULT)", "BUG (fs/ext4/inode.c:N)", ... */
	char reason[1536];	/* one line, names the kernel code (file:line) */
	unsigned int nr_reports;
	struct repro_report_exp reports[REPRO_MAX_REPORTS];
};

/* Names, NULL terminated, indexed by the enum (GOPT_CHOICE tables). */
extern const char * const repro_route_choices[];	/* "read", "move-ext" */
extern const char * const repro_ext4_choices[];		/* "warn", "bug" */
/* Can the cell be run at all?  If not, *@why says why (one line). */
bool repro_cell_valid(const struct repro_cell *c, const char **why);

/*
 * The expected outcome of @c on a kernel with GUP policy @policy and ext4
 * behaviour @ext4.  @bug_site is the file:line of page_buffers() in the
 * flavour's mpage_prepare_extent_to_map() (read from its tree), or NULL
 * if unknown.  0, or -EINVAL for an unknown policy.
 */
int repro_expect(const char *policy, enum repro_ext4 ext4, const char *bug_site,
		 const struct repro_cell *c, struct repro_expectation *e);

#endif /* POLICY_H */
