// SPDX-License-Identifier: GPL-2.0
/*
 * abi: what an ioctl of /dev/gup_test may answer (abi.h).
 *
 * From module/uapi/gup_pin_test.h and docs/driver.md (the order of PIN's
 * checks, the errors of each ioctl, the write rule), which
 * module/gup_pin_test.c implements, and from mm/gup.c for what GUP may
 * take: 6.1.192's for every policy but mainline, 6.12.118's for mainline
 * (policy_kernel()).  Where the two differ the function takes the kernel;
 * where they agree both are cited, 6.1's line first.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gup_pin_test.h"
#include "lib/gupdev.h"
#include "model/abi.h"

static void answer(struct abi_answers *a, int err)
{
	unsigned int i;

	for (i = 0; i < a->n; i++)
		if (a->err[i] == err)
			return;
	if (a->n < ABI_MAX_ANSWERS)
		a->err[a->n++] = err;
}

/* The first of @n checks whose condition holds decides alone: true then. */
struct abi_check {
	bool cond;
	int err;
	const char *why;
};

static bool abi_first(const struct abi_check *k, size_t n, struct abi_answers *a)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (k[i].cond) {
			answer(a, k[i].err);
			a->why = k[i].why;
			return true;
		}
	}
	return false;
}

/*
 * What PIN and BENCH answer before GUP: the first of @checks that holds
 * (true: that is the answer), else ENOSPC where the total may be reached
 * and ENOMEM (the driver's bookkeeping, GUP's page tables and pages) as
 * well as what follows.  Where TASK_SIZE depends on the paging levels, a
 * range near it may be EINVAL too.
 */
static bool abi_before_gup(const struct abi_call *c, const struct abi_check *checks,
			   size_t n, struct abi_answers *a)
{
	if (c->maybe_malformed && !c->malformed)
		answer(a, EINVAL);
	if (abi_first(checks, n, a))
		return true;
	if (c->total_maybe)
		answer(a, ENOSPC);
	answer(a, ENOMEM);
	return false;
}

/* PIN's checks come in the documented order, then GUP answers. */
static void abi_pin_answers(const struct abi_call *c, struct abi_answers *a)
{
	const struct abi_check before_gup[] = {
		{ c->malformed, EINVAL, "PIN's first check: a reserved field, an unknown method or flag bit, a misaligned, empty, wrapping or beyond-TASK_SIZE range is EINVAL" },
		{ c->flag_missing, EOPNOTSUPP, "PIN: GUP_PIN_FLAG_ALLOW_BROKEN on a kernel without FOLL_ALLOW_BROKEN_FILE_MAPPING is EOPNOTSUPP before GUP" },
		{ c->over_per_pin, E2BIG, "PIN: more pages than max_pages_per_pin is E2BIG before GUP" },
		{ c->over_total, ENOSPC, "PIN: beyond max_pages_total (all pins and calls in flight) is ENOSPC before GUP" },
	};

	if (abi_before_gup(c, before_gup, sizeof(before_gup) / sizeof(before_gup[0]), a))
		return;
	/*
	 * GUP fails with EFAULT only when it took no page (__get_user_pages():
	 * "return i ? i : ret", mm/gup.c:1303 in 6.1, 1580 in 6.12): the
	 * first page is not mapped or check_vma_flags() refuses it, a
	 * policy refuses (gup_may_refuse: the policy functions, 6.12's
	 * writable_file_mapping_allowed() included), or a userfaultfd page
	 * came back as SIGBUS.  A fully takeable range under a policy that
	 * takes it has no reason to fail.
	 */
	if (c->takeable < c->requested || c->gup_may_refuse || c->may_block ||
	    c->maybe_malformed)
		answer(a, EFAULT);
	a->success = true;
	a->why = "PIN reaches GUP: the pages it may take (a partial pin stops at the first it may not), or EFAULT when it takes none";
}

/*
 * BENCH (module/gup_pin_test.c, gpt_ioctl_bench()): PIN's checks but
 * max_pages_per_pin, then the page array (ENOMEM).  What GUP answers is
 * the answer's err field, judged as a PIN's GUP answer by the caller.
 */
static void abi_bench_answers(const struct abi_call *c, struct abi_answers *a)
{
	const struct abi_check before_gup[] = {
		{ c->malformed, EINVAL, "BENCH's first check: PIN's, and out fields or reserved[] not 0, or nr_per_call 0, is EINVAL" },
		{ c->flag_missing, EOPNOTSUPP, "BENCH: GUP_PIN_FLAG_ALLOW_BROKEN on a kernel without FOLL_ALLOW_BROKEN_FILE_MAPPING is EOPNOTSUPP" },
		{ c->over_total, ENOSPC, "BENCH: beyond max_pages_total (all pins and calls in flight) is ENOSPC" },
	};

	if (abi_before_gup(c, before_gup, sizeof(before_gup) / sizeof(before_gup[0]), a))
		return;
	a->success = true;
	a->why = "a well-formed BENCH succeeds: GUP's own error is its err field";
}

/* WRITE, READ, UNPIN, STATE: every error a condition of the request causes. */
static void abi_pin_use_answers(const struct abi_call *c, struct abi_answers *a)
{
	bool certain = false;

	if (c->malformed || c->out_of_range) {
		answer(a, EINVAL);
		certain = true;
	}
	if (c->unknown_id) {
		answer(a, ENOENT);
		certain = true;
	}
	if (c->write_refused) {
		answer(a, EPERM);
		certain = true;
	}
	if (c->write_maybe_refused)
		answer(a, EPERM);
	if (c->buf_faults || c->buf_maybe_faults)
		answer(a, EFAULT);
	certain |= c->buf_faults;
	/* the one-page bounce buffer */
	if (c->ioctl == ABI_WRITE || c->ioctl == ABI_READ)
		answer(a, ENOMEM);
	a->success = !certain;
	a->why = certain ?
		 "a reserved field, a zero length or a range beyond the pinned pages is EINVAL, an id that is not a live pin of this file ENOENT, a write or dirty release the write rule refuses EPERM (or an anonymous page shared by a fork since), an inaccessible buffer EFAULT" :
		 "a well-formed request on a live pin of this file succeeds (EFAULT only where its buffer may fault)";
}

void abi_answers(const struct abi_call *c, struct abi_answers *a)
{
	const struct abi_check first[] = {
		{ c->not_opener && c->ioctl != ABI_VERSION, EPERM, "every ioctl but VERSION from outside the mm that opened the device (a fork child, a passed fd) is EPERM, before its argument is read (ABI 4, gpt_ioctl())" },
		{ c->ioctl == ABI_UNKNOWN, ENOTTY, "an ioctl number the driver does not know, or a known number with another size, is ENOTTY" },
		{ c->arg_faults, EFAULT, "every ioctl first copies its argument structure: EFAULT when it cannot" },
		{ c->ioctl == ABI_VERSION && c->out_faults, EFAULT, "VERSION copies its answer out: EFAULT when it cannot" },
	};

	memset(a, 0, sizeof(*a));
	if (abi_first(first, sizeof(first) / sizeof(first[0]), a))
		return;
	switch (c->ioctl) {
	case ABI_VERSION:
		a->success = true;
		a->why = "VERSION always answers";
		break;
	case ABI_PIN:
		abi_pin_answers(c, a);
		break;
	case ABI_BENCH:
		abi_bench_answers(c, a);
		break;
	default:
		abi_pin_use_answers(c, a);
		break;
	}
	/* whatever else it would answer, the copy back fails */
	if (c->out_faults && a->success) {
		a->success = false;
		answer(a, EFAULT);
	}
	/* killable waits: mmap_read_lock_killable(), folio_lock_killable() */
	if (c->killable)
		answer(a, EINTR);
}

bool abi_answer_allowed(const struct abi_answers *a, int err)
{
	unsigned int i;

	if (!err)
		return a->success;
	for (i = 0; i < a->n; i++)
		if (a->err[i] == err)
			return true;
	return false;
}

const char *abi_pin_result(const struct abi_call *c, unsigned int nr_requested,
			   unsigned int nr_pinned, unsigned int id)
{
	if (nr_requested != c->requested)
		return "nr_requested is not len / page_size";
	if (nr_pinned > nr_requested)
		return "more pages pinned than requested";
	if (nr_pinned > c->takeable)
		return "GUP took a page it may not take: past a hole, PROT_NONE without FORCE, a write to a VMA without VM_WRITE (check_vma_flags(), mm/gup.c:1063-1109 in 6.1, 1270-1331 in 6.12)";
	if (!id != !nr_pinned)
		return "id must be 0 exactly when no page was taken";
	return NULL;
}

/*
 * check_vma_flags() for one page, without the policies' test: 6.1's
 * (mm/gup.c:1063-1109) and 6.12's (mm/gup.c:1270-1331) agree on the rest.
 * 6.12 adds, before the VM_WRITE test, writable_file_mapping_allowed()
 * (mm/gup.c:1292-1295), which is the mainline policy's (gup_may_refuse),
 * and VM_SHADOW_STACK (mm/gup.c:1297), which no mapping here has.
 */
bool abi_gup_may_take(unsigned int flags, const struct abi_vma *v)
{
	bool force = flags & GUP_PIN_FLAG_FORCE;

	if (!v->mapped || v->io_pfnmap)
		return false;
	if (flags & GUP_PIN_FLAG_WRITE) {
		/* FOLL_FORCE writes only to a COW mapping, never hugetlb */
		if (!v->write)
			return force && !v->hugetlb && !v->shared && v->may_write;
		return true;
	}
	return v->read || (force && v->may_read);
}

/*
 * Can a PIN of @method and @flags wait for a user page that a userfaultfd
 * holds back?  Only a GUP call with a "locked" argument may drop mmap_lock
 * and retry the fault (FAULT_FLAG_ALLOW_RETRY; FOLL_UNLOCKABLE in 6.12);
 * without one handle_userfault() answers VM_FAULT_SIGBUS (fs/userfaultfd.c:490
 * in 6.1, 418 in 6.12), GUP fails with EFAULT and a DEBUG_VM kernel prints a
 * stack ("FAULT_FLAG_ALLOW_RETRY missing").
 * - pin_user_pages(), get_user_pages() and the _remote ones: never; the
 *   driver calls them under its mmap_read_lock() with no "locked"
 *   (module/gup_compat.h), in 6.1 and 6.12.
 * - the _unlocked ones: get_user_pages_unlocked() passes &locked
 *   (mm/gup.c:2358-2372 in 6.1, which refuses FOLL_LONGTERM first, 2367);
 *   6.12's pass &locked and FOLL_UNLOCKABLE (mm/gup.c:2767-2778,
 *   3663-3674), and pin_user_pages_unlocked() takes FOLL_LONGTERM there.
 * - the _fast ones, in their slow fallback: 6.1's __gup_longterm_unlocked()
 *   (mm/gup.c:2966-2987) calls get_user_pages_unlocked() without
 *   FOLL_LONGTERM but __gup_longterm_locked(..., NULL) with it; 6.12's
 *   gup_fast_fallback() passes &locked and FOLL_UNLOCKABLE either way
 *   (mm/gup.c:3476-3478).
 * 7.3 answers as 6.12: get_user_pages_unlocked() and
 * pin_user_pages_unlocked() pass &locked and FOLL_UNLOCKABLE
 * (mm/gup.c:2667-2678, 3396-3407), gup_fast_fallback() &locked
 * (mm/gup.c:3209-3210).
 * FOLL_LONGTERM with a FOLL_GET method WARNs on both (the policies say so):
 * never a wait.
 */
bool abi_gup_waits(enum policy_kernel k, unsigned int method, unsigned int flags)
{
	bool lt = flags & GUP_PIN_FLAG_LONGTERM;

	if (lt && !method_is_pin(method))
		return false;
	switch (method) {
	case GUP_PIN_METHOD_PIN_UNLOCKED:
	case GUP_PIN_METHOD_GET_UNLOCKED:
	case GUP_PIN_METHOD_PIN_FAST:
	case GUP_PIN_METHOD_GET_FAST:
		return !lt || k != POLICY_KERNEL_61;
	default:
		return false;
	}
}

/*
 * The write rule (module/uapi/gup_pin_test.h): a pin taken with
 * GUP_PIN_FLAG_WRITE, or a page cache page of the file of a VM_SHARED and
 * VM_WRITE mapping whose a_ops can dirty it.
 */
bool abi_page_writable(unsigned int flags, const struct abi_vma *v)
{
	if (flags & GUP_PIN_FLAG_WRITE)
		return true;
	return v->mapped && v->file && v->shared && v->write && v->dirtyable;
}

void policy_pin_outlook(policy_fn policy, unsigned int method, unsigned int flags,
			enum cell_backing backing, bool *refuse, bool *report)
{
	/* the method and flags alone decide on this cell (flags_decide_61()) */
	struct cell c = {
		.method = method,
		.flags = flags,
		.backing = BACKING_ANON,
		.state = STATE_NONE,
	};
	struct expectation e = policy(&c);
	unsigned int s;

	*refuse = e.outcome == OUTCOME_REFUSED;
	*report = e.report.kind;
	c.backing = backing;
	for (s = 0; s < STATE_COUNT; s++) {
		c.state = s;
		e = policy(&c);
		*refuse |= e.outcome == OUTCOME_REFUSED;
		*report |= e.report.kind != NULL;
	}
}
