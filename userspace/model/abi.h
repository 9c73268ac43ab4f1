/* SPDX-License-Identifier: GPL-2.0 */
/*
 * abi: the driver-ABI oracle: what each ioctl of /dev/gup_test may answer
 * (module/uapi/gup_pin_test.h, docs/driver.md), for gupctl fuzz.  A change
 * to the uapi header is mirrored here, and only here.  Pure.
 */
#ifndef MODEL_ABI_H
#define MODEL_ABI_H

#include <stdbool.h>

#include "model/policy.h"

/*
 * ---- The driver's ABI: what an ioctl of /dev/gup_test may answer ----
 *
 * gupctl fuzz states what it knows about each request it makes (the facts
 * below); abi_answers() says which answers module/uapi/gup_pin_test.h and
 * docs/driver.md allow for it.  Any other answer is a failure.
 */
enum abi_ioctl {
	ABI_VERSION,
	ABI_PIN,
	ABI_WRITE,
	ABI_READ,
	ABI_UNPIN,
	ABI_STATE,
	ABI_BENCH,		/* PIN's facts; GUP's own answer is in ->err */
	ABI_UNKNOWN,		/* a number (or size) the driver does not know */
	ABI_IOCTL_COUNT
};

/* What the caller knew about one request when it made it. */
struct abi_call {
	enum abi_ioctl ioctl;
	bool arg_faults;	/* the argument structure is not readable */
	bool malformed;		/* reserved field, unknown method or flag bits,
				 * misaligned, empty, wrapping, beyond TASK_SIZE,
				 * a WRITE/READ of 0 bytes */
	bool maybe_malformed;	/* PIN: ends where TASK_SIZE depends on the
				 * paging levels (EINVAL or GUP's answer) */
	bool flag_missing;	/* PIN: GUP_PIN_FLAG_ALLOW_BROKEN, kernel lacks it */
	bool over_per_pin;	/* PIN: more pages than max_pages_per_pin
				 * (BENCH has no such bound) */
	bool total_maybe;	/* PIN: the pins of all callers may fill
				 * max_pages_total */
	bool over_total;	/* PIN: certainly beyond max_pages_total */
	unsigned int requested;	/* PIN: pages asked for */
	unsigned int takeable;	/* PIN: leading pages GUP may take
				 * (abi_gup_may_take() on each) */
	bool gup_may_refuse;	/* PIN: the GUP policy may refuse (EFAULT) */
	bool may_block;		/* a user page may be blocked (userfaultfd)
				 * and released as a hole */
	bool unknown_id;	/* not a live pin of this open file */
	bool out_of_range;	/* WRITE/READ/STATE beyond the pinned pages */
	bool write_refused;	/* WRITE or UNPIN DIRTY the write rule refuses */
	bool write_maybe_refused; /* ... an anonymous page of it may no longer be
				 * the caller's alone (a FOLL_GET pin, a fork
				 * since): EPERM or not (ABI 4) */
	bool not_opener;	/* the caller is not in the mm that opened the
				 * fd (a fork child, a passed fd): every ioctl
				 * but VERSION is EPERM (ABI 4) */
	bool buf_faults;	/* WRITE/READ buffer or STATE array certainly
				 * not accessible for what will be copied */
	bool buf_maybe_faults;	/* ... perhaps not (blocked, released) */
	bool out_faults;	/* PIN, STATE: the answer cannot be copied back */
	bool killable;		/* a fatal signal may be pending */
};

#define ABI_MAX_ANSWERS	8

struct abi_answers {
	bool success;		/* the ioctl may succeed */
	unsigned int n;
	int err[ABI_MAX_ANSWERS];	/* positive errnos it may fail with */
	const char *why;	/* the rule that decided, one line */
};

void abi_answers(const struct abi_call *c, struct abi_answers *a);
/* Is @err (0: success, else a positive errno) one of @a? */
bool abi_answer_allowed(const struct abi_answers *a, int err);
/*
 * PIN succeeded: may it have returned @nr_requested, @nr_pinned and @id?
 * NULL if so, else why not.
 */
const char *abi_pin_result(const struct abi_call *c, unsigned int nr_requested,
			   unsigned int nr_pinned, unsigned int id);

/* A VMA as GUP's check_vma_flags() sees it (one page of a request). */
struct abi_vma {
	bool mapped;		/* a VMA covers the page */
	bool io_pfnmap;		/* VM_IO | VM_PFNMAP (the vvar page) */
	bool read, write;	/* VM_READ, VM_WRITE (PROT_READ, PROT_WRITE) */
	bool may_read, may_write; /* VM_MAYREAD, VM_MAYWRITE */
	bool shared;		/* VM_SHARED */
	bool hugetlb;
	bool file;		/* vm_file: a file, a memfd */
	bool dirtyable;		/* the file's a_ops has ->dirty_folio */
};

/*
 * Would GUP's check_vma_flags() take the page with these GUP_PIN_FLAG_*,
 * leaving out what a policy refuses (6.1 and 6.12 agree on the rest)?
 */
bool abi_gup_may_take(unsigned int flags, const struct abi_vma *v);
/*
 * Can a PIN of @method and @flags on kernel @k wait for a page a
 * userfaultfd holds back (else GUP gets SIGBUS: EFAULT)?
 */
bool abi_gup_waits(enum policy_kernel k, unsigned int method, unsigned int flags);
/* Does the write rule let a pin of this page be written or dirtied? */
bool abi_page_writable(unsigned int flags, const struct abi_vma *v);
/*
 * A pin of @backing's memory with @method and @flags, in any state of its
 * pages: may GUP refuse it under @policy (*@refuse), and does the policy
 * expect a kernel report (*@report: the matrix's business, not a fuzzer's)?
 */
void policy_pin_outlook(policy_fn policy, unsigned int method, unsigned int flags,
			enum cell_backing backing, bool *refuse, bool *report);

#endif /* MODEL_ABI_H */
