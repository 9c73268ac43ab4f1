/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench: gupctl bench's operations (the guest runs them, the host reports
 * on them: bench/report.c) and the statistics both sides use.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>

#include "lib/target.h"

struct bench_op {
	const char *name;		/* "pin-fast:write:anon" */
	unsigned int method;		/* enum gup_pin_method */
	unsigned int flags;		/* GUP_PIN_FLAG_* */
	enum target_kind kind;		/* TARGET_ANON (private) or TARGET_SHMEM */
	/*
	 * The kernel's gup_test option that times the same calls
	 * (tools/testing/selftests/vm/gup_test.c: -a, -L, -u), or NULL.
	 */
	const char *gup_test;
};

extern const struct bench_op bench_ops[];
extern const unsigned int bench_nr_ops;

/* Median, min and max of @n samples (sorted in place); n > 0. */
struct bench_stats {
	double median, min, max;
};
void bench_stats(double *v, size_t n, struct bench_stats *st);

#endif /* BENCH_H */
