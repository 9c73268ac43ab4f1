/* SPDX-License-Identifier: GPL-2.0 */
/*
 * repro: what each cell of the ext4-2018 reproduction (gupctl repro) is
 * expected to do under a flavour's GUP policy and ext4 behaviour, with the
 * kernel code it follows (file:line of the policy's own tree).  Pure.
 */
#ifndef MODEL_REPRO_H
#define MODEL_REPRO_H

#include <stdbool.h>

#include "model/policy.h"

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

#endif /* MODEL_REPRO_H */
