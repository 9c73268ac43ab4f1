/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collect: one flavour's results document (FLAVOUR.json) from what its
 * boot left: gupctl report --collect, host only (collect.c).
 */
#ifndef MATRIX_COLLECT_H
#define MATRIX_COLLECT_H

/* gupctl report --collect (host only). */
struct collect_opts {
	const char *out;		/* FLAVOUR.json */
	const char *flavour, *policy, *ext4, *input_hash, *verdict;
	double boot_seconds;
	const char *matrix, *xcheck;	/* NULL: the guest wrote none */
	const char *console, *reports;
	const char *src;		/* the flavour's source tree */
};

/* Write o->out; 0 the flavour passed, 1 it failed, or an exit code. */
int matrix_collect(const struct collect_opts *o);

#endif /* MATRIX_COLLECT_H */
