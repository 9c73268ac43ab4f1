/* SPDX-License-Identifier: GPL-2.0 */
/*
 * consumers_run: the guest's half of gupctl consumers (consumers/run.c)
 * and the host's (consumers/judge.c, consumers/report.c).
 */
#ifndef CONSUMERS_RUN_H
#define CONSUMERS_RUN_H

#include <stdbool.h>
#include <stddef.h>

struct consumers_run_opts {
	const char *flavour;	/* recorded only */
	const char *policy;	/* recorded only: the guest expects nothing */
	const char *json;	/* the cells' measurements (NULL: none) */
	bool quick;		/* consumer_cells()' quick subset */
};

/* What the target child sends back (a pipe, fixed size). */
struct cons_result {
	int setup_err;		/* positive errno: the memory could not be made */
	char setup_msg[240];
	char unsupported[240];	/* the kernel lacks the interface: why (not run) */
	int done;		/* the call was made */
	long bytes;		/* >= 0: its result; < 0: failed with errno err */
	int err;
	int reg_err;		/* io_uring, AF_XDP, RDMA: the registration's errno (0: registered), -1: n/a */
	int mapping, file, read;	/* enum cons_data */
	char note[160];
};

/* @buf against cell @index's NEW and OLD patterns: enum cons_data. */
int cons_classify(const char *buf, size_t len, unsigned int index, bool file_backed);

/*
 * Register the target's page on the soft RDMA device of @iface, and for
 * rxe write a page of NEW into it from a second QP: consumers/rdma.c,
 * linked into gupctl-rdma only (with libibverbs).  Every other build links
 * consumers/rdma_none.c instead, whose consumers_have_verbs is false and
 * whose call says so: the static gupctl-guest execs CONS_RDMA_HELPER for
 * these cells (gupctl consumers cell).  The Makefile picks the file.
 */
struct target;
extern const bool consumers_have_verbs;
void consumers_rdma_call(int iface, const struct target *t, unsigned int index,
			 struct cons_result *r);
/* gupctl consumers cell I B S INDEX FILE: one local cell on fds 3 (ctl), 4 (res) */
int consumers_cell(int argc, char **argv);
/* gupctl consumers probe-target STATE: the uprobe cells' running program */
int consumers_probe_target(int argc, char **argv);

/* Run every cell: an exit code (1: a cell could not be set up). */
int consumers_run(const struct consumers_run_opts *o);


#endif /* CONSUMERS_RUN_H */
