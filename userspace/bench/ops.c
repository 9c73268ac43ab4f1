// SPDX-License-Identifier: GPL-2.0
/*
 * ops: what gupctl bench times, and the statistics its run and its report
 * share (ops.h).  No device, no I/O.
 */
#include <stdlib.h>

#include "bench/ops.h"
#include "gup_pin_test.h"
#include "lib/util.h"

#define W	GUP_PIN_FLAG_WRITE
#define WL	(GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_LONGTERM)

/*
 * The first three are gup_test's -a, -L and -u (FOLL_WRITE is its default,
 * its memory a private mapping of /dev/zero: anonymous).  The rest are
 * where the policies' checks run: FOLL_LONGTERM|FOLL_WRITE on a shmem
 * mapping goes through v7's folio_longterm_write_pin_allowed() on the fast
 * path and vma_needs_dirty_tracking() on the slow one (patches/gup-v7/0002,
 * 0003), on anonymous memory they return early.
 */
const struct bench_op bench_ops[] = {
	{ "pin-fast:write:anon", GUP_PIN_METHOD_PIN_FAST, W, TARGET_ANON, "-a" },
	{ "pin:write,longterm:anon", GUP_PIN_METHOD_PIN, WL, TARGET_ANON, "-L" },
	{ "get-fast:write:anon", GUP_PIN_METHOD_GET_FAST, W, TARGET_ANON, "-u" },
	{ "pin-fast:write,longterm:anon", GUP_PIN_METHOD_PIN_FAST, WL, TARGET_ANON, NULL },
	{ "pin-fast:write:shmem", GUP_PIN_METHOD_PIN_FAST, W, TARGET_SHMEM, NULL },
	{ "pin-fast:write,longterm:shmem", GUP_PIN_METHOD_PIN_FAST, WL, TARGET_SHMEM, NULL },
	{ "pin:write,longterm:shmem", GUP_PIN_METHOD_PIN, WL, TARGET_SHMEM, NULL },
};
const unsigned int bench_nr_ops = ARRAY_SIZE(bench_ops);

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void bench_stats(double *v, size_t n, struct bench_stats *st)
{
	qsort(v, n, sizeof(*v), cmp_double);
	st->min = v[0];
	st->max = v[n - 1];
	st->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
