/* SPDX-License-Identifier: GPL-2.0 */
/*
 * measured: the cells of a kernel whose GUP policy the lab does not know
 * (policy "none", POLICY_NONE in model/policy.h: gupctl detect matched it
 * to no policy).  gupctl repro, holders and consumers list and run every
 * cell all the same, each with no expectation ("expected": null, the
 * reason MEASURED_ONLY), and judge it "measured": neither a pass nor a
 * failure.  A kernel report during such a cell is that cell's finding; one
 * outside every cell still fails the flavour.  What they share: the words,
 * the checks of --policy and --source, the kernel a "none" runs on and
 * the KTAP line of a measured cell.  Pure.
 */
#ifndef MODEL_MEASURED_H
#define MODEL_MEASURED_H

#include <stdbool.h>
#include <stddef.h>

#include "model/policy.h"

/* The reason of a cell with no expectation (the matrix says the same). */
#define MEASURED_ONLY		"measured, no policy to compare"
/* Its verdict: the cell ran; nothing to hold it against. */
#define MEASURED_VERDICT	"measured"

/*
 * Is @policy one a job's cells can be listed, run and judged under: a
 * policy of policy_lookup(), or "none"?  NULL: not given, no.
 */
bool measured_policy_ok(const char *policy);

/*
 * Why @policy (with the flavour's @source column, or NULL) cannot be
 * used: NULL when it can, else a message in @buf (of @size) for
 * usage_error().  A named policy must be known; "none" needs @source,
 * "6.1" or "6.12": with no policy, the kernel's version alone decides
 * which cells can run on it.
 */
const char *measured_policy_error(const char *policy, const char *source,
				  char *buf, size_t size);

/*
 * The kernel the cells run on: the named policy's, or for "none" the
 * @source column's ("6.1", "6.12"); POLICY_KERNEL_COUNT if neither says.
 */
enum policy_kernel measured_kernel(const char *policy, const char *source);

/*
 * Does any policy of kernel @k answer yes to @pred (with @ctx)?  For a
 * cell of "none" whose running depends on the policy (one that would
 * panic the guest under some policy of that kernel): the union, so that
 * a kernel of no known policy is never booted into a cell that any of
 * its version's policies expects to end the boot.
 */
bool measured_any_policy(enum policy_kernel k, bool (*pred)(const char *policy, void *ctx),
			 void *ctx);

/*
 * A measured cell's KTAP line, without its newline, into @buf:
 * "ok N NAME # SKIP measured, no policy to compare: WHAT" (KTAP's SKIP:
 * the comparison is skipped, the cell ran; gupctl matrix --policy none
 * writes the same).  @buf.
 */
char *measured_ktap(char *buf, size_t size, unsigned int n, const char *name,
		    const char *what);

#endif /* MODEL_MEASURED_H */
