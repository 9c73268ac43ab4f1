/* SPDX-License-Identifier: GPL-2.0 */
/*
 * consumers_run: the guest's half of gupctl consumers (consumers_run.c)
 * and the host's (consumers_judge.c: judge, report).
 */
#ifndef CONSUMERS_RUN_H
#define CONSUMERS_RUN_H

#include <stdbool.h>

struct consumers_run_opts {
	const char *flavour;	/* recorded only */
	const char *policy;	/* recorded only: the guest expects nothing */
	const char *json;	/* the cells' measurements (NULL: none) */
	bool quick;		/* consumer_cells()' quick subset */
};

/* Run every cell: an exit code (1: a cell could not be set up). */
int consumers_run(const struct consumers_run_opts *o);

/* Host only: gupctl consumers judge and report (their own option tables). */
int consumers_judge(int argc, char **argv);
int consumers_report(int argc, char **argv);

#endif /* CONSUMERS_RUN_H */
