/* SPDX-License-Identifier: GPL-2.0 */
/*
 * repro: what the guest side (gupctl repro ext4-2018, on ext4, xfs or
 * btrfs) and the host side (gupctl repro judge, collect, report) of the
 * ext4-2018 reproduction share: the cells, their names, the two data
 * patterns and how a page is classified against them.  The expectations
 * live in model/repro.c.
 */
#ifndef REPRO_H
#define REPRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "lib/options.h"
#include "model/repro.h"

#define REPRO_SCENARIO	"ext4-2018"
#define REPRO_LINE	64		/* bytes per pattern line */
#define REPRO_MAX_CELLS	128	/* >= file systems x (22 + 11 + 2) cells */
#define REPRO_LABEL_MAX	64


/* --method values, indexed by enum gup_pin_method, NULL terminated. */
extern const char * const repro_method_choices[];

/* What a cell is expected against: the flavour's columns (model/repro.h). */
struct repro_flavour {
	/* "gup" column; NULL: not given; "none": measured only (model/measured.h) */
	const char *policy;
	unsigned int ext4;	/* enum repro_ext4; REPRO_EXT4_COUNT: not given */
	const char *bug_site;	/* file:line of the BUG in the flavour's tree */
	const char *source;	/* "source" column, or NULL: the policy's */
};

/* A cell as its options start (--route read --method pin), a flavour not given. */
#define REPRO_CELL_DEFAULT	{ .route = REPRO_ROUTE_READ, .method = GUP_PIN_METHOD_PIN, \
				  .fs = REPRO_FS_EXT4 }
#define REPRO_FLAVOUR_UNSET	{ .ext4 = REPRO_EXT4_COUNT }

/* The options that name a cell, entries of a command's gopt table. */
#define REPRO_GOPT_ROUTE(c) \
	GOPT_CHOICE(0, "route", &(c)->route, "R", repro_route_choices, \
		    "read (default), hole; move-ext (ext4), swapext (xfs), writeback (btrfs)")
#define REPRO_GOPT_FS(c) \
	GOPT_CHOICE(0, "fs", &(c)->fs, "FS", repro_fs_choices, \
		    "the file's file system: ext4 (default), xfs, btrfs")
#define REPRO_GOPT_METHOD(c) \
	GOPT_CHOICE(0, "method", &(c)->method, "M", repro_method_choices, \
		    "the GUP call that takes the page (default pin)")
#define REPRO_GOPT_LONGTERM(c) \
	GOPT_BIT(0, "longterm", &(c)->flags, GUP_PIN_FLAG_LONGTERM, \
		 "FOLL_LONGTERM (pin and pin-fast only)")
#define REPRO_GOPT_WRITE(c) \
	GOPT_BIT(0, "write", &(c)->flags, GUP_PIN_FLAG_WRITE, \
		 "FOLL_WRITE: the write fault runs the fs's page_mkwrite")

/* The options that name what the cell is expected against. */
#define REPRO_GOPT_POLICY(fl) \
	GOPT_STRING(0, "policy", &(fl)->policy, "P", \
		    "the flavour's GUP policy (patches/flavours' gup column), or none: measured only")
#define REPRO_GOPT_EXT4(fl) \
	GOPT_CHOICE(0, "ext4", &(fl)->ext4, "B", repro_ext4_choices, \
		    "the flavour's ext4 behaviour (its ext4 column)")
#define REPRO_GOPT_SOURCE(fl) \
	GOPT_STRING(0, "source", &(fl)->source, "V", \
		    "the flavour's source column (6.1, 6.12): must be the policy's")
#define REPRO_GOPT_SITE(fl) \
	GOPT_STRING(0, "bug-site", &(fl)->bug_site, "FILE:LINE", \
		    "page_buffers() of mpage_prepare_extent_to_map() in its tree")

/*
 * Check a parsed cell and flavour for command @cmd: the cell can run, the
 * policy is known or none (then with --source), and --policy and --ext4
 * come together (@required: they must come).  0, or GUPCTL_EXIT_USAGE with the message printed.
 */

int repro_check_opts(const char *cmd, const struct repro_cell *c,
		     const struct repro_flavour *fl, bool required);

/*
 * gopt_parse() for a command without operands: -1 go on, or the exit code
 * (GUPCTL_EXIT_OK after --help, GUPCTL_EXIT_USAGE after a message).
 */
int repro_parse(const char *cmd, int argc, char **argv, const struct gopt *opts,
		const char * const *usage);

/*
 * "move-ext:pin-fast+longterm+write", "xfs:swapext:get+write"; "pin" for
 * the plain read route on ext4.
 */
char *repro_cell_label(const struct repro_cell *c, char *buf, size_t size);
/* The label as a file name part: each ':' becomes '-'. */
char *repro_cell_file(const struct repro_cell *c, char *buf, size_t size);
/* How the page reaches its dirty release (or loses its state), for tables. */
const char *repro_route_title(const struct repro_cell *c);
/*
 * The cells of a run, in run order: every valid one, or the quick set (five
 * ext4 cells, and an xfs and a btrfs one on a 6.12 or 7.3 kernel, @twins:
 * the policy's source, or policy none's --source).
 */
unsigned int repro_cells(bool quick, bool twins, struct repro_cell *cells,
			 unsigned int max);

/* One page of lines "gup-lab repro OLD line 00", space padded, '\n'. */
void repro_fill_pattern(char *buf, size_t len, const char *tag);
/* "new", "old", "mixed" (whole lines of both), "zeros" or "other". */
const char *repro_classify(const char *buf, size_t len);

/* A string field of a JSON object, NULL if it is not one. */
const char *repro_json_str(json_t *obj, const char *key);
/* A judged cell's "measured" or "expected" outcome, "?" if it has none. */
const char *repro_json_outcome(json_t *cell, const char *which);


#endif /* REPRO_H */
