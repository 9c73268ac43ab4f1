/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy: expected outcome of one GUP matrix cell under each flavour's GUP
 * policy, derived from the policy's code (6.1's mm/gup.c, and the series in
 * patches/gup-v1/, gup-v7/, gup-v9/; 6.12's for mainline), never from an
 * observed run; and what the driver's ioctls may answer (abi_*).
 */
#ifndef POLICY_H
#define POLICY_H

#include <stdbool.h>
#include <stddef.h>

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

/*
 * A kernel report a series itself causes, in whatever cell or operation
 * reaches its code: found by the lab, traced, and documented at @doc.  No
 * policy expects it (the policies model what GUP allows, not a series'
 * own bugs), so a run neither counts it as expected nor fails on it as
 * the lab's: it lists it, each time, as this finding.
 */
struct series_finding {
	const char *policy;		/* patches/flavours' gup column */
	struct report_exp report;	/* matched as report_matches() does */
	const char *what;		/* one line */
	const char *doc;		/* where its trace and cause are */
};

/* Every documented series finding; the last entry's .policy is NULL. */
extern const struct series_finding series_findings[];

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

/* policy_source() as the kernels whose code the ABI oracle tells apart */
enum policy_kernel {
	POLICY_KERNEL_61,	/* linux-source-6.1: stock and every series */
	POLICY_KERNEL_612,	/* linux-source-6.12: mainline */
	POLICY_KERNEL_COUNT	/* not a policy */
};

/* The kernel of the policy named @name; POLICY_KERNEL_COUNT if none. */
enum policy_kernel policy_kernel(const char *name);
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

/*
 * Does @e end its boot?  A BUG or an oops panics the guest (the lab boots
 * with oops=panic), so such a cell needs a boot of its own; every other
 * cell can share one (jobs/repro.sh).
 */
bool repro_ends_boot(const struct repro_expectation *e);

/*
 * ---- The driver's ABI: what an ioctl of /dev/gup_test may answer ----
 *
 * gupctl fuzz states what it knows about each request it makes (the facts
 * below); abi_answers() says which answers module/uapi/gup_pin_test.h and
 * docs/driver.md allow for it.  Any other answer is a failure.
 */
enum abi_ioctl {
	ABI_VERSION,
	ABI_PIN,
	ABI_WRITE,
	ABI_READ,
	ABI_UNPIN,
	ABI_STATE,
	ABI_BENCH,		/* PIN's facts; GUP's own answer is in ->err */
	ABI_UNKNOWN,		/* a number (or size) the driver does not know */
	ABI_IOCTL_COUNT
};

/* What the caller knew about one request when it made it. */
struct abi_call {
	enum abi_ioctl ioctl;
	bool arg_faults;	/* the argument structure is not readable */
	bool malformed;		/* reserved field, unknown method or flag bits,
				 * misaligned, empty, wrapping, beyond TASK_SIZE,
				 * a WRITE/READ of 0 bytes */
	bool maybe_malformed;	/* PIN: ends where TASK_SIZE depends on the
				 * paging levels (EINVAL or GUP's answer) */
	bool flag_missing;	/* PIN: GUP_PIN_FLAG_ALLOW_BROKEN, kernel lacks it */
	bool over_per_pin;	/* PIN: more pages than max_pages_per_pin
				 * (BENCH has no such bound) */
	bool total_maybe;	/* PIN: the pins of all callers may fill
				 * max_pages_total */
	bool over_total;	/* PIN: certainly beyond max_pages_total */
	unsigned int requested;	/* PIN: pages asked for */
	unsigned int takeable;	/* PIN: leading pages GUP may take
				 * (abi_gup_may_take() on each) */
	bool gup_may_refuse;	/* PIN: the GUP policy may refuse (EFAULT) */
	bool may_block;		/* a user page may be blocked (userfaultfd)
				 * and released as a hole */
	bool unknown_id;	/* not a live pin of this open file */
	bool out_of_range;	/* WRITE/READ/STATE beyond the pinned pages */
	bool write_refused;	/* WRITE or UNPIN DIRTY the write rule refuses */
	bool buf_faults;	/* WRITE/READ buffer or STATE array certainly
				 * not accessible for what will be copied */
	bool buf_maybe_faults;	/* ... perhaps not (blocked, released) */
	bool out_faults;	/* PIN, STATE: the answer cannot be copied back */
	bool killable;		/* a fatal signal may be pending */
};

#define ABI_MAX_ANSWERS	8

struct abi_answers {
	bool success;		/* the ioctl may succeed */
	unsigned int n;
	int err[ABI_MAX_ANSWERS];	/* positive errnos it may fail with */
	const char *why;	/* the rule that decided, one line */
};

void abi_answers(const struct abi_call *c, struct abi_answers *a);
/* Is @err (0: success, else a positive errno) one of @a? */
bool abi_answer_allowed(const struct abi_answers *a, int err);
/*
 * PIN succeeded: may it have returned @nr_requested, @nr_pinned and @id?
 * NULL if so, else why not.
 */
const char *abi_pin_result(const struct abi_call *c, unsigned int nr_requested,
			   unsigned int nr_pinned, unsigned int id);

/* A VMA as GUP's check_vma_flags() sees it (one page of a request). */
struct abi_vma {
	bool mapped;		/* a VMA covers the page */
	bool io_pfnmap;		/* VM_IO | VM_PFNMAP (the vvar page) */
	bool read, write;	/* VM_READ, VM_WRITE (PROT_READ, PROT_WRITE) */
	bool may_read, may_write; /* VM_MAYREAD, VM_MAYWRITE */
	bool shared;		/* VM_SHARED */
	bool hugetlb;
	bool file;		/* vm_file: a file, a memfd */
	bool dirtyable;		/* the file's a_ops has ->dirty_folio */
};

/*
 * Would GUP's check_vma_flags() take the page with these GUP_PIN_FLAG_*,
 * leaving out what a policy refuses (6.1 and 6.12 agree on the rest)?
 */
bool abi_gup_may_take(unsigned int flags, const struct abi_vma *v);
/*
 * Can a PIN of @method and @flags on kernel @k wait for a page a
 * userfaultfd holds back (else GUP gets SIGBUS: EFAULT)?
 */
bool abi_gup_waits(enum policy_kernel k, unsigned int method, unsigned int flags);
/* Does the write rule let a pin of this page be written or dirtied? */
bool abi_page_writable(unsigned int flags, const struct abi_vma *v);
/*
 * A pin of @backing's memory with @method and @flags, in any state of its
 * pages: may GUP refuse it under @policy (*@refuse), and does the policy
 * expect a kernel report (*@report: the matrix's business, not a fuzzer's)?
 */
void policy_pin_outlook(policy_fn policy, unsigned int method, unsigned int flags,
			enum cell_backing backing, bool *refuse, bool *report);

#endif /* POLICY_H */
