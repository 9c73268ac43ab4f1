/* SPDX-License-Identifier: GPL-2.0 */
/*
 * matrix_tsv: read back the TSV `gupctl matrix --tsv` writes, for the
 * commands that work from a finished run (report, xcheck).
 */
#ifndef MATRIX_TSV_H
#define MATRIX_TSV_H

#include <stdbool.h>

#include "gupctl.h"

/* One cell as read back from a TSV. */
struct rcell {
	bool present;
	enum matrix_outcome expected, measured;
	char exp_err[24], meas_err[24];	/* errno names, "" if none */
	char *reason;			/* why the policy expects what it does */
};

/* One flavour: one TSV. */
struct rflavour {
	const char *path;
	char name[64];
	char policy[64];
	char kernel[128];		/* from the trailing comment, "" if none */
	char wall[32];			/* seconds, ditto */
	unsigned int nr_present, nr_run, nr_not_applicable, nr_mismatch;
	struct rcell cells[MATRIX_NR_CELLS];
};

/*
 * Read the TSV at @path into @fl (zeroed by the caller), cells indexed by
 * matrix_index().  0, or an exit code after a message on stderr that starts
 * "gupctl CMD: PATH:LINE:".
 */
int matrix_read_tsv(const char *path, struct rflavour *fl, const char *cmd);
/* Does the measured outcome of @c differ from the expected one? */
bool rcell_mismatch(const struct rcell *c);

#endif /* MATRIX_TSV_H */
