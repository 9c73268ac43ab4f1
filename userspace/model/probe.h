/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe: gupctl detect's decisive cells and its verdict.  The candidate
 * policy policy_detect() reads from the kernel's facts is checked by
 * running a few matrix cells; which ones is derived from the policies'
 * own predictions (model/policy.h), never listed by hand: the cells where
 * the policies of the kernel's release disagree with each other and with
 * the release's code without a file write policy (policy_reference()).
 * Pure: no device, no I/O.
 */
#ifndef MODEL_PROBE_H
#define MODEL_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/cell.h"
#include "model/policy.h"

#define PROBE_MAX		32
#define PROBE_MAX_MODELS	6
/* The name of the reference model when no policy of the release is it. */
#define PROBE_REFERENCE		POLICY_NONE

struct probe_model {
	const char *name;	/* a policy, or PROBE_REFERENCE */
	policy_fn fn;
	bool named;		/* a policy a verdict can give */
};

struct probe {
	unsigned int cell;	/* matrix index, 0-based */
	bool sanity;		/* every model agrees: a check of the lab itself */
	bool report;		/* some model expects a kernel report: re-arm */
	char why[160];		/* what it tells apart */
};

struct probe_plan {
	enum policy_kernel kernel;
	unsigned int nr_models;
	struct probe_model models[PROBE_MAX_MODELS];
	unsigned int nr;
	struct probe probes[PROBE_MAX];
};

/* What a probe measured: MATRIX_PINNED, MATRIX_REFUSED (err > 0), ... */
struct probe_measure {
	enum matrix_outcome outcome;
	int err;		/* positive errno when refused */
};

struct probe_verdict {
	const char *policy;	/* NULL: none of the release's policies */
	unsigned int matched[PROBE_MAX_MODELS];	/* probes each model predicted */
	bool candidate_confirmed;
};

/* The release family of uname -r: 6.1.x, 6.12.x, else POLICY_KERNEL_COUNT. */
enum policy_kernel probe_kernel_of(const char *release);
/*
 * The probes for kernel @k: 0, or -EINVAL (no family).  Every pair of
 * models differs on one probe at least; and for each named policy, each
 * GUP path on which it answers otherwise than the reference (method
 * FOLL_PIN or FOLL_GET, GUP-fast or the slow path, the fast path finding
 * a writable PTE or not) has a probe.
 */
int probe_plan(enum policy_kernel k, struct probe_plan *p);
/* The same for the model functions @models (tests; @models[0..n-1]). */
int probe_plan_models(enum policy_kernel k, const struct probe_model *models,
		      unsigned int n, struct probe_plan *p);
/* Does @m match the expectation @e? */
bool probe_matches(const struct expectation *e, const struct probe_measure *m);
/* "pinned", "EFAULT", "EFAULT + WARNING", "EOPNOTSUPP by the driver". */
const char *probe_expect_str(const struct expectation *e, char *buf, size_t size);
const char *probe_measure_str(const struct probe_measure *m, char *buf, size_t size);
/*
 * The verdict on @m[p->nr]: @candidate if it is a named model and every
 * probe matches its predictions; else the first other named model whose
 * predictions all match; else none.
 */
void probe_judge(const struct probe_plan *p, const char *candidate,
		 const struct probe_measure *m, struct probe_verdict *v);
/* The model's expectation for @p->probes[i]. */
struct expectation probe_expect(const struct probe_plan *p, unsigned int model,
				unsigned int i);
/* The measurements model @model predicts (tests, --simulate). */
void probe_simulate(const struct probe_plan *p, policy_fn fn,
		    struct probe_measure *m);

#endif /* MODEL_PROBE_H */
