/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl matrix: every cell of the GUP matrix, in the guest. */
#ifndef MATRIX_RUN_H
#define MATRIX_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/gupdev.h"
#include "lib/kmsg.h"
#include "model/cell.h"

int cmd_matrix(int argc, char **argv);

/* What matrix_run_one() measured of one cell. */
struct matrix_one {
	enum matrix_outcome measured;	/* MATRIX_NOT_RUN: see @setup_failed */
	int err;			/* positive errno of a refusal or failed setup */
	bool setup_failed;
	int unpin_err;			/* 0 or -errno */
	char why[320];			/* the failed setup, "" */
};

/*
 * Run matrix cell @n once, as gupctl matrix runs it (fresh memory, files
 * in @dir[MATRIX_NR_DIRS], the marker "gup-lab: STEP cell N+1" of @marks
 * before it, WARN_ON_ONCE re-armed first if @rearm): gupctl detect's
 * probes.  The caller opened @dev and checked the directories.
 */
void matrix_run_one(struct gupdev *dev, const char *const *dir,
		    struct kmsg_marker *marks, unsigned int n, bool rearm,
		    struct matrix_one *out);

#endif /* MATRIX_RUN_H */
