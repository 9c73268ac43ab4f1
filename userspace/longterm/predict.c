// SPDX-License-Identifier: GPL-2.0
/*
 * longterm: gup_longterm's tests mapped to matrix cells, and their
 * verdicts predicted from the flavour's policy function (predict.h).
 *
 * Citations: gup_longterm.c is 6.12.118's
 * tools/testing/selftests/mm/gup_longterm.c (the binary the guest runs on
 * every flavour); 7.3's own suite is cited by its path in the 7.3 tree
 * (suite_texts[] below); "6.1" lines are 6.1.192's, "6.12" lines
 * 6.12.118's, "7.3" lines 7.3.4's.
 */
#include <errno.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gup_pin_test.h"
#include "lib/gupdev.h"
#include "lib/util.h"
#include "lib/mounts.h"
#include "lib/target.h"
#include "longterm/predict.h"
#include "model/cell.h"
#include "model/iouring.h"


const struct lt_case lt_cases[LT_NR_CASES] = {
	{ "R/W longterm GUP pin in MAP_SHARED file mapping", true, true, false, false },
	{ "R/W longterm GUP-fast pin in MAP_SHARED file mapping", true, true, true, false },
	{ "R/O longterm GUP pin in MAP_SHARED file mapping", true, false, false, false },
	{ "R/O longterm GUP-fast pin in MAP_SHARED file mapping", true, false, true, false },
	{ "R/W longterm GUP pin in MAP_PRIVATE file mapping", false, true, false, false },
	{ "R/W longterm GUP-fast pin in MAP_PRIVATE file mapping", false, true, true, false },
	{ "R/O longterm GUP pin in MAP_PRIVATE file mapping", false, false, false, false },
	{ "R/O longterm GUP-fast pin in MAP_PRIVATE file mapping", false, false, true, false },
	{ "io_uring fixed buffer with MAP_SHARED file mapping", true, true, false, true },
	{ "io_uring fixed buffer with MAP_PRIVATE file mapping", false, true, false, true },
};

/*
 * What each suite says at each step, with its lines: 6.12's prints
 * "Should have worked" and the like (ksft_test_result()), 7.3's the
 * test's name with the result do_test() chose (log_test_result(),
 * vm_util.h:138-141).  The decisions are the same.
 */
struct suite_text {
	const char *name;
	const char *no_huge;		/* %lu: the size in kB */
	const char *one_huge;		/* %lu */
	const char *private_note;
	const char *no_gup_test;
	const char *mprotect_note;
	const char *start;		/* %s %s %s: the call, |FOLL_WRITE, its kernel lines */
	const char *no_ioctl;
	const char *pinned;		/* %s: ok or not ok */
	const char *efault;		/* %s */
	const char *einval;
	const char *other;		/* %s: the errno */
	const char *no_io_uring;
	const char *registered;		/* %s */
	const char *refused;		/* %s %s: the errno, what the suite means */
	const char *means[3];		/* what it means: a skip, a failure, a pass */
};

#define SEL73 "tools/testing/selftests/mm/gup_longterm.c"

static const struct suite_text suite_texts[LT_SUITE_COUNT] = {
	[LT_SUITE_612] = {
		.name = "6.12",
		.no_huge = "no free %lu kB huge page: fallocate() fails and the suite skips ('need more free huge pages', gup_longterm.c:103-108)",
		.one_huge = "one free %lu kB huge page: MAP_PRIVATE mmap() cannot reserve the copy's and the suite skips ('need more free huge pages', gup_longterm.c:111-118)",
		.private_note = "the matrix has no MAP_PRIVATE cell of this backing: its MAP_SHARED cell stands in (v1's can_write_file_mapping() and v7/v9's vma_needs_dirty_tracking() decide shmem and hugetlbfs by their file, not VM_SHARED; memset()'s write fault, gup_longterm.c:122, left an anonymous copy that GUP-fast takes)",
		.no_gup_test = "no CONFIG_GUP_TEST: /sys/kernel/debug/gup_test does not open (gup_fd < 0) and the suite skips (gup_longterm.c:145-148)",
		.mprotect_note = "then mprotect(PROT_READ) (gup_longterm.c:131): the matrix has no such state; the pin has no FOLL_WRITE, so neither check_vma_flags()'s VM_WRITE test nor any write policy applies",
		.start = "PIN_LONGTERM_TEST_START: %s(FOLL_LONGTERM%s) (%s) on a page memset() write-faulted (gup_longterm.c:122)",
		.no_ioctl = "this kernel's mm/gup_test.c has no PIN_LONGTERM_TEST_START (the 6.12 ioctl, not backported here): gup_test_ioctl()'s default case returns -EINVAL (6.1: mm/gup_test.c:220-221) and the suite skips on EINVAL (gup_longterm.c:167-169)",
		.pinned = "pinned: 'Should have worked' is %s (gup_longterm.c:186)",
		.efault = "EFAULT: 'Should have failed' is %s (gup_longterm.c:170-172)",
		.einval = "EINVAL: the suite skips (gup_longterm.c:167-169)",
		.other = "%s: neither EINVAL nor EFAULT, the suite fails (ksft_test_result_fail(), gup_longterm.c:173-175)",
		.no_io_uring = "no CONFIG_IO_URING: io_uring_queue_init() fails and the suite skips (gup_longterm.c:203-207)",
		.registered = "registered: 'Should have worked' is %s (gup_longterm.c:225-226)",
		.refused = "refused %s: the suite means %s (gup_longterm.c:216-223), but it tests errno, which liburing's io_uring_register_buffers() does not set (it returns -errno; Debian's liburing 2.3 makes the system call itself): it sees an earlier call's errno, so a skip is accepted too",
		.means = { "a skip", "'Should have failed' not ok", "'Should have failed' ok" },
	},
	[LT_SUITE_73] = {
		.name = "7.3",
		.no_huge = "no free %lu kB huge page: fallocate() fails, 'need more free huge pages' and KSFT_SKIP (" SEL73 ":117-133)",
		.one_huge = "one free %lu kB huge page: MAP_PRIVATE mmap() cannot reserve the copy's: 'need more free huge pages' and KSFT_SKIP (" SEL73 ":136-146)",
		.private_note = "the matrix has no MAP_PRIVATE cell of this backing: its MAP_SHARED cell stands in (v1's can_write_file_mapping() and v7/v9's vma_needs_dirty_tracking() decide shmem and hugetlbfs by their file, not VM_SHARED; memset()'s write fault, " SEL73 ":150, left an anonymous copy that GUP-fast takes)",
		.no_gup_test = "no CONFIG_GUP_TEST: /sys/kernel/debug/gup_test does not open (gup_fd < 0), 'gup_test not available' and KSFT_SKIP (" SEL73 ":174-178)",
		.mprotect_note = "then mprotect(PROT_READ) (" SEL73 ":159): the matrix has no such state; the pin has no FOLL_WRITE, so neither check_vma_flags()'s VM_WRITE test nor any write policy applies",
		.start = "PIN_LONGTERM_TEST_START: %s(FOLL_LONGTERM%s) (%s) on a page memset() write-faulted (" SEL73 ":150)",
		.no_ioctl = "this kernel's mm/gup_test.c has no PIN_LONGTERM_TEST_START: gup_test_ioctl()'s default case returns -EINVAL and the suite's EINVAL is KSFT_SKIP (" SEL73 ":198-201)",
		.pinned = "pinned: should_work decides, KSFT_PASS or KSFT_FAIL: %s (" SEL73 ":224-227)",
		.efault = "EFAULT: should_work decides, KSFT_FAIL or KSFT_PASS: %s (" SEL73 ":202-207)",
		.einval = "EINVAL: KSFT_SKIP (" SEL73 ":198-201)",
		.other = "%s: neither EINVAL nor EFAULT, KSFT_FAIL (" SEL73 ":208-212)",
		.no_io_uring = "no CONFIG_IO_URING: io_uring_queue_init() fails and KSFT_SKIP (" SEL73 ":245-251)",
		.registered = "registered: should_work decides, KSFT_PASS or KSFT_FAIL: %s (" SEL73 ":277-283)",
		.refused = "refused %s: the suite means %s (" SEL73 ":258-276), but it tests errno, which liburing's io_uring_register_buffers() does not set (it returns -errno; Debian's liburing 2.3 makes the system call itself): it sees an earlier call's errno, so a skip is accepted too",
		.means = { "KSFT_SKIP", "KSFT_FAIL", "KSFT_PASS" },
	},
};

static const struct suite_text *text_of(const struct lt_kernel *k)
{
	return &suite_texts[k->suite < LT_SUITE_COUNT ? k->suite : LT_SUITE_612];
}

const char *lt_suite_name(enum lt_suite su)
{
	return su < LT_SUITE_COUNT ? suite_texts[su].name : "?";
}

int lt_suite_parse(const char *name, enum lt_suite *su)
{
	unsigned int i;

	for (i = 0; i < LT_SUITE_COUNT; i++)
		if (!strcmp(name, suite_texts[i].name)) {
			*su = i;
			return 0;
		}
	return -EINVAL;
}

/*
 * 6.12's main() tests every size detect_hugetlb_page_sizes() finds
 * (gup_longterm.c:452); 7.3's hugetlb_setup(2, ...) (SEL73:513) asks for
 * two free pages of each size and leaves out a size that cannot have them
 * (hugepage_settings.c:452-463, 509-514).  The guest asks for the same
 * two first (jobs/guest/matrix.sh) and records what it got.
 */
bool lt_huge_tested(const struct lt_kernel *k, unsigned int i)
{
	return i < k->nr_huge && (k->suite != LT_SUITE_73 || k->huge[i].free >= 2);
}

static const char * const verdict_names[LT_VERDICT_COUNT] = {
	[LT_OK]		= "ok",
	[LT_NOT_OK]	= "not ok",
	[LT_SKIP]	= "skip",
	[LT_UNKNOWN]	= "unknown",
	[LT_MISSING]	= "missing",
};

static const char * const backing_names[LT_BACKING_COUNT] = {
	[LT_MEMFD]	= "memfd",
	[LT_TMPFILE]	= "tmpfile",
	[LT_LOCAL]	= "local tmpfile",
	[LT_HUGETLB]	= "memfd hugetlb",
};

static const struct {
	const char *name, *dir;
	unsigned long magic;
} lt_fss[LT_FS_COUNT] = {
	[LT_FS_EXT4]	= { "ext4", LAB_EXT4_DIR, EXT4_SUPER_MAGIC },
	[LT_FS_XFS]	= { "xfs", LAB_XFS_DIR, XFS_SUPER_MAGIC },
	[LT_FS_BTRFS]	= { "btrfs", LAB_BTRFS_DIR, BTRFS_SUPER_MAGIC },
};

const char *lt_fs_name(enum lt_fs fs)
{
	return fs < LT_FS_COUNT ? lt_fss[fs].name : "?";
}

const char *lt_fs_dir(enum lt_fs fs)
{
	return fs < LT_FS_COUNT ? lt_fss[fs].dir : "?";
}

const char *lt_verdict_name(enum lt_verdict v)
{
	return v < LT_VERDICT_COUNT ? verdict_names[v] : "?";
}

const char *lt_backing_name(enum lt_backing b)
{
	return b < LT_BACKING_COUNT ? backing_names[b] : "?";
}

unsigned int lt_tests(const struct lt_kernel *k, enum lt_fs fs, struct lt_test *t,
		      unsigned int max)
{
	unsigned int n = 0, c, b, h, nb;

	for (c = 0; c < LT_NR_CASES; c++) {
		nb = LT_HUGETLB + k->nr_huge;
		for (b = 0; b < nb && n < max; b++) {
			h = b - LT_HUGETLB;
			if (b >= LT_HUGETLB && !lt_huge_tested(k, h))
				continue;
			t[n].index = n;
			t[n].fs = fs;
			t[n].c = &lt_cases[c];
			t[n].backing = b < LT_HUGETLB ? b : LT_HUGETLB;
			t[n].huge_kb = b < LT_HUGETLB ? 0 : k->huge[h].kb;
			if (b < LT_HUGETLB)
				snprintf(t[n].name, sizeof(t[n].name), "%s ... with %s",
					 lt_cases[c].desc, backing_names[b]);
			else
				snprintf(t[n].name, sizeof(t[n].name),
					 "%s ... with memfd hugetlb (%lu kB)",
					 lt_cases[c].desc, t[n].huge_kb);
			n++;
		}
	}
	return n;
}

/*
 * fs_supports_writable_longterm_pinning() (gup_longterm.c:69-79): tmpfs
 * and hugetlbfs; the local tmpfile is on ext4, xfs or btrfs, which the
 * suite knows (fs_is_unknown(), gup_longterm.c:52-67) and expects to
 * refuse.
 */
static bool fs_supports_rw_longterm(enum lt_backing b)
{
	return b != LT_LOCAL;
}

/*
 * The matrix backing of the test's file, and how the call differs.  The
 * local tmpfile is the run's file system's file (model/cell.c's backing
 * of that file system and mapping: ext4-shared, xfs-private...).
 */
static enum cell_backing cell_backing(const struct lt_kernel *k, const struct lt_test *t,
				      const char **note)
{
	static const enum cell_backing shared[LT_BACKING_COUNT] = {
		[LT_MEMFD]	= BACKING_SHMEM,
		[LT_TMPFILE]	= BACKING_TMPFS,
		[LT_HUGETLB]	= BACKING_HUGETLB,
	};

	*note = NULL;
	if (t->backing == LT_LOCAL)
		return backing_find(TARGET_FILE, lt_fss[t->fs].magic, !t->c->shared, false);
	if (t->c->shared) {
		if (t->backing == LT_HUGETLB && t->huge_kb != 2048)
			*note = "the matrix's hugetlb-memfd is of the default huge page size (2048 kB): it stands in for this size";
		return shared[t->backing];
	}
	*note = text_of(k)->private_note;
	return shared[t->backing];
}

/* A reason line, appended to @p->reason. */
static void why(struct lt_prediction *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void why(struct lt_prediction *p, const char *fmt, ...)
{
	size_t n = strlen(p->reason);
	va_list ap;

	if (n && n + 2 < sizeof(p->reason)) {
		strcpy(p->reason + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(p->reason + n, sizeof(p->reason) - n, fmt, ap);
	va_end(ap);
}

static const struct lt_huge *huge_of(const struct lt_kernel *k, unsigned long kb)
{
	unsigned int i;

	for (i = 0; i < k->nr_huge; i++)
		if (k->huge[i].kb == kb)
			return &k->huge[i];
	return NULL;
}

/*
 * do_test()'s setup (gup_longterm.c:97-122): a huge page for fallocate(),
 * and for MAP_PRIVATE a second one, reserved by mmap() for the copy
 * memset()'s write fault makes.  False (a skip predicted) if short.
 */
static bool huge_pages_suffice(const struct lt_kernel *k, const struct lt_test *t,
			       struct lt_prediction *p)
{
	const struct lt_huge *h = huge_of(k, t->huge_kb);
	long need = t->c->shared ? 1 : 2;

	if (t->backing != LT_HUGETLB || (h && h->free >= need))
		return true;
	p->verdict = LT_SKIP;
	if (!h || h->free < 1)
		why(p, text_of(k)->no_huge, t->huge_kb);
	else
		why(p, text_of(k)->one_huge, t->huge_kb);
	return false;
}

/* Ask the policy for the cell of the call @p->cell. */
static bool ask_policy(const struct lt_kernel *k, struct lt_prediction *p)
{
	char buf[160];

	p->has_cell = true;
	p->matrix_index = matrix_index(&p->cell);
	if (!k->fn && policy_is_none(k->policy)) {
		p->verdict = LT_UNKNOWN;
		why(p, "policy %s: measured, no policy to compare (cell %s)", POLICY_NONE,
		    p->matrix_index >= 0 ?
		    matrix_cell_str(p->matrix_index, buf, sizeof(buf)) : "?");
		return false;
	}
	if (!k->fn) {
		p->verdict = LT_UNKNOWN;
		why(p, "no policy function '%s' in userspace/model/policy.c (policy_lookup() has none yet): the cell %s is not predicted",
		    k->policy, p->matrix_index >= 0 ?
		    matrix_cell_str(p->matrix_index, buf, sizeof(buf)) : "?");
		return false;
	}
	p->policy = k->fn(&p->cell);
	p->outcome = p->policy.outcome;
	p->err = p->policy.err;
	if (p->outcome == OUTCOME_NOT_APPLICABLE) {
		p->verdict = LT_UNKNOWN;
		why(p, "the policy calls the cell not applicable: %s", p->policy.reason);
		return false;
	}
	why(p, "policy %s: %s%s%s (%s)", k->policy,
	    p->outcome == OUTCOME_PINNED ? "pinned" : "refused ",
	    p->outcome == OUTCOME_PINNED ? "" : errno_name(p->err),
	    p->policy.report.kind ? " with a WARNING" : "", p->policy.reason);
	return true;
}

/* The R/W and R/O cases through /sys/kernel/debug/gup_test. */
static void predict_gup_test(const struct lt_kernel *k, const struct lt_test *t,
			     struct lt_prediction *p)
{
	bool fast = t->c->fast;

	p->via = "gup_test";
	if (!k->gup_test) {
		p->verdict = LT_SKIP;
		why(p, "%s", text_of(k)->no_gup_test);
		return;
	}
	/* pin_longterm_test_start(), 6.12: mm/gup_test.c:225, 252-273; 7.3 keeps
	 * its state per open file (data->longterm_pages), the calls the same */
	p->cell = (struct cell){
		.method = fast ? GUP_PIN_METHOD_PIN_FAST : GUP_PIN_METHOD_PIN,
		.flags = GUP_PIN_FLAG_LONGTERM | (t->c->rw ? GUP_PIN_FLAG_WRITE : 0),
		.backing = cell_backing(k, t, &p->cell_note),
		.state = STATE_WRITE,
	};
	if (!t->c->rw)
		p->cell_note = text_of(k)->mprotect_note;
	/* in the tree's own lines: 6.1's are patches/gup-test-longterm's backport */
	why(p, text_of(k)->start,
	    fast ? "pin_user_pages_fast" : "pin_user_pages", t->c->rw ? "|FOLL_WRITE" : "",
	    k->version == 7 ? "7.3: mm/gup_test.c:276-281" :
	    k->patchlevel == 12 ? "6.12: mm/gup_test.c:268-273" :
	    "6.1 + patches/gup-test-longterm: mm/gup_test.c:269-274");
	p->has_cell = true;
	p->matrix_index = matrix_index(&p->cell);
	if (!k->longterm_ioctls) {
		p->verdict = LT_SKIP;
		why(p, "%s", text_of(k)->no_ioctl);
		return;
	}
	if (!ask_policy(k, p))
		return;
	if (p->outcome == OUTCOME_PINNED) {
		p->verdict = p->should_work ? LT_OK : LT_NOT_OK;
		why(p, text_of(k)->pinned, p->should_work ? "ok" : "not ok");
	} else if (p->err == EFAULT) {
		p->verdict = p->should_work ? LT_NOT_OK : LT_OK;
		why(p, text_of(k)->efault, p->should_work ? "not ok" : "ok");
	} else if (p->err == EINVAL) {
		p->verdict = LT_SKIP;
		why(p, "%s", text_of(k)->einval);
	} else {
		p->verdict = LT_NOT_OK;
		why(p, text_of(k)->other, errno_name(p->err));
	}
}

/*
 * io_uring_register_buffers(): io_sqe_buffer_register() -> io_pin_pages().
 * 6.1 (io_uring/rsrc.c:1006): pin_user_pages(FOLL_WRITE | FOLL_LONGTERM)
 * under mmap_read_lock, then its own VMA check (io_uring/rsrc.c:1011-1022):
 * any file-backed VMA that is neither shmem nor hugetlbfs is -EOPNOTSUPP,
 * MAP_PRIVATE or not; a GUP error is returned as is (rsrc.c:1026).
 * 6.12 (io_uring/memmap.c:155) and 7.3 (io_uring/memmap.c:78):
 * pin_user_pages_fast(FOLL_WRITE | FOLL_LONGTERM) and no check of its
 * own: GUP decides.
 */
static void predict_iouring(const struct lt_kernel *k, const struct lt_test *t,
			    struct lt_prediction *p)
{
	bool v61 = k->version == 6 && k->patchlevel == 1;
	bool v612 = k->version == 6 && k->patchlevel == 12;
	bool v73 = k->version == 7 && k->patchlevel == 3;
	bool intended;

	p->via = "io_uring";
	if (!k->io_uring) {
		p->verdict = LT_SKIP;
		why(p, "%s", text_of(k)->no_io_uring);
		return;
	}
	if (!v61 && !v612 && !v73) {
		p->verdict = LT_UNKNOWN;
		why(p, "io_uring's buffer registration is modelled for 6.1, 6.12 and 7.3 only, not %u.%u",
		    k->version, k->patchlevel);
		return;
	}
	p->cell = (struct cell){
		.method = v61 ? GUP_PIN_METHOD_PIN : GUP_PIN_METHOD_PIN_FAST,
		.flags = GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_LONGTERM,
		.backing = cell_backing(k, t, &p->cell_note),
		.state = STATE_WRITE,
	};
	why(p, "%s", v61 ?
	    "io_pin_pages(): pin_user_pages(FOLL_WRITE|FOLL_LONGTERM) (6.1: io_uring/rsrc.c:1006)" : v612 ?
	    "io_pin_pages(): pin_user_pages_fast(FOLL_WRITE|FOLL_LONGTERM) (6.12: io_uring/memmap.c:155), no VMA check of its own" :
	    "io_pin_pages(): pin_user_pages_fast(FOLL_WRITE|FOLL_LONGTERM) (7.3: io_uring/memmap.c:78), no VMA check of its own");
	if (!ask_policy(k, p))
		return;
	if (v61 && p->outcome == OUTCOME_PINNED && iouring_61_refuses(p->cell.backing)) {
		p->outcome = OUTCOME_REFUSED;
		p->err = EOPNOTSUPP;
		why(p, "%s", iouring_61_check);
	}
	if (p->outcome == OUTCOME_PINNED) {
		p->verdict = p->should_work ? LT_OK : LT_NOT_OK;
		why(p, text_of(k)->registered, p->should_work ? "ok" : "not ok");
		return;
	}
	intended = p->err == ENOSPC || p->err == EOPNOTSUPP || p->err == EFAULT;
	p->verdict = !intended ? LT_SKIP : p->should_work ? LT_NOT_OK : LT_OK;
	p->or_skip = p->verdict != LT_SKIP;
	why(p, text_of(k)->refused, errno_name(p->err),
	    text_of(k)->means[!intended ? 0 : p->should_work ? 1 : 2]);
}

void lt_predict(const struct lt_kernel *k, const struct lt_test *t,
		struct lt_prediction *p)
{
	memset(p, 0, sizeof(*p));
	p->matrix_index = -1;
	/* gup_longterm.c:159-160 and 199-200 (7.3's: 190-191, 241-242) */
	p->should_work = !t->c->shared || !t->c->rw || fs_supports_rw_longterm(t->backing);
	if (!huge_pages_suffice(k, t, p))
		return;
	if (t->c->iouring)
		predict_iouring(k, t, p);
	else
		predict_gup_test(k, t, p);
}

bool lt_agrees(const struct lt_prediction *p, enum lt_verdict m)
{
	if (p->verdict == LT_UNKNOWN || m == LT_MISSING)
		return false;
	return m == p->verdict || (p->or_skip && m == LT_SKIP);
}

/* The value of "NAME = N" in the tree's Makefile, or -1. */
static int makefile_value(FILE *f, const char *name)
{
	char line[256], key[32];
	int v;

	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s = %d", key, &v) == 2 && !strcmp(key, name))
			return v;
	return -1;
}

/* Does @path hold a line containing @text?  -errno if unreadable. */
static int file_has(const char *path, const char *text)
{
	char line[512];
	FILE *f = fopen(path, "re");
	int found = 0;

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f))
		found = !!strstr(line, text);
	fclose(f);
	return found;
}

int lt_kernel_load(struct lt_kernel *k, const char *policy, const char *kdir,
		   const char *hugetlb, char *whybuf, size_t size)
{
	char path[4096], line[128];
	int ver, pl, ret;
	FILE *f;

	memset(k, 0, sizeof(*k));
	k->policy = policy;
	k->fn = policy_lookup(policy);

	snprintf(path, sizeof(path), "%s/src/Makefile", kdir);
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		snprintf(whybuf, size, "%s: %s", path, strerror(errno));
		return ret;
	}
	ver = makefile_value(f, "VERSION");
	pl = makefile_value(f, "PATCHLEVEL");
	fclose(f);
	if (ver < 0 || pl < 0) {
		snprintf(whybuf, size, "%s: no VERSION and PATCHLEVEL", path);
		return -EINVAL;
	}
	k->version = ver;
	k->patchlevel = pl;

	snprintf(path, sizeof(path), "%s/src/mm/gup_test.c", kdir);
	ret = file_has(path, "case PIN_LONGTERM_TEST_START:");
	if (ret < 0) {
		snprintf(whybuf, size, "%s: %s", path, strerror(-ret));
		return ret;
	}
	k->longterm_ioctls = ret;

	snprintf(path, sizeof(path), "%s/build/.config", kdir);
	ret = file_has(path, "CONFIG_GUP_TEST=y");
	if (ret < 0) {
		snprintf(whybuf, size, "%s: %s", path, strerror(-ret));
		return ret;
	}
	k->gup_test = ret;
	k->io_uring = file_has(path, "CONFIG_IO_URING=y") > 0;

	if (!hugetlb)
		return 0;
	f = fopen(hugetlb, "re");
	if (!f) {
		ret = -errno;
		snprintf(whybuf, size, "%s: %s", hugetlb, strerror(errno));
		return ret;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long kb;
		long nr, free;

		if (sscanf(line, "%lu %ld %ld", &kb, &nr, &free) != 3)
			continue;
		if (k->nr_huge == ARRAY_SIZE(k->huge))
			break;
		k->huge[k->nr_huge++] = (struct lt_huge){ kb, free };
	}
	fclose(f);
	return 0;
}
