/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy: expected outcome of one GUP matrix cell under each flavour's GUP
 * policy, derived from the policy's code (6.1's mm/gup.c, and the series in
 * patches/gup-v1/, gup-v7/, gup-v9/; 6.12's for mainline), never from an
 * observed run.  Pure: no device, no I/O.
 */
#ifndef MODEL_POLICY_H
#define MODEL_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "model/cell.h"

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
 * The kernel source the policy's code is from ("6.1", "6.12", "7.3": patches/
 * flavours' source column), or NULL for an unknown policy.
 */
const char *policy_source(const char *name);

/* policy_source() as the kernels whose code the ABI oracle tells apart */
enum policy_kernel {
	POLICY_KERNEL_61,	/* linux-source-6.1: stock and every series */
	POLICY_KERNEL_612,	/* linux-source-6.12: mainline */
	POLICY_KERNEL_73,	/* linux-source-7.3: latest */
	POLICY_KERNEL_COUNT	/* not a policy */
};

/* The kernel of a source column ("6.1", "6.12", "7.3"), else COUNT. */
enum policy_kernel policy_kernel_of_source(const char *source);

/* The kernel of the policy named @name; POLICY_KERNEL_COUNT if none. */
enum policy_kernel policy_kernel(const char *name);
/*
 * "none": a kernel whose GUP policy the lab does not know (a user's tree
 * that gupctl detect matches to no policy).  Not a policy: policy_lookup()
 * has no function for it; gupctl matrix, xcheck, report --collect and
 * longterm judge take it and measure, record and judge nothing against it.
 */
#define POLICY_NONE	"none"
bool policy_is_none(const char *name);
/*
 * The kernel @k's code with no file-backed write policy: 6.1, stock's;
 * 6.12 and 7.3, mainline's (latest's) with writable_file_mapping_allowed()
 * always allowing (a named policy for 6.1, none for 6.12 and 7.3).  NULL
 * for POLICY_KERNEL_COUNT.
 */
policy_fn policy_reference(enum policy_kernel k);
/* The names of @k's policies, in the table's order, at most @max: how many. */
size_t policy_family(enum policy_kernel k, const char **names, size_t max);
/* Comma separated names of every policy, for help and errors. */
const char *policy_names(void);

/* Is the backing's VMA one v7's vma_needs_dirty_tracking() answers yes for? */
bool backing_dirty_tracked(enum cell_backing backing);
/* The same question for v9's (6.5's) version: shared and writable only. */
bool backing_dirty_tracked_v9(enum cell_backing backing);

#endif /* MODEL_POLICY_H */
