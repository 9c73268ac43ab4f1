// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl fuzz: random and adversarial use of /dev/gup_test, reproducible
 * from a seed.  T threads, each with its own PRNG seeded from the seed and
 * its number, make N operations between them on memory of their own (anon,
 * a shmem memfd, a file on ext4, a hugetlb memfd, laid out with holes and
 * PROT_NONE between the mappings), through one fd they all share and fds
 * of their own; model/abi.c's abi_answers() judges every answer.  At the end
 * every fd is closed and the driver's debugfs counters must show no pin
 * left.  KTAP on stdout.  The guide: docs/gupctl.md, "gupctl fuzz".
 *
 * The fuzzer writes through a pin only into memory it owns (its own
 * mappings' pages, never the shared zero page or the vDSO), and never
 * dirties an ext4 page that has no buffers (the 2018 route, which the
 * matrix and the reproduction cover).  A request whose cell a GUP policy
 * expects a kernel WARN for is not made (the matrix's cells): every kernel
 * report during a fuzz run is a finding.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/memfd.h>
#include <linux/userfaultfd.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <jansson.h>

#include "fuzz/run.h"
#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/kernel.h"
#include "lib/mounts.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/abi.h"
#include "model/cell.h"
#include "model/detect.h"
#include "model/policy.h"

#define FZ_MIN(a, b)		((a) < (b) ? (a) : (b))

#define FZ_SLOTS		4	/* slots of random mappings per thread */
#define FZ_SLOT_PAGES		512	/* 2 MiB: a hugetlb page fits a slot */
#define FZ_BIG			FZ_SLOTS	/* a slot of written anon memory */
#define FZ_UFFD			(FZ_SLOTS + 1)	/* the userfaultfd slot */
#define FZ_NR_SLOTS		(FZ_SLOTS + 2)
#define FZ_MAX_SEGS		3
#define FZ_MAX_PIN		64	/* pages of an ordinary pin */
#define FZ_HEADROOM		96	/* pages a fork child or fds may add */
#define FZ_STATE_MAX		FZ_SLOT_PAGES	/* STATE entries the buffer holds */
#define FZ_DEAD_IDS		16
#define FZ_FILE_PAGES		FZ_SLOT_PAGES	/* the ext4 file and the memfd */
#define FZ_HUGE_PAGES		2	/* huge pages of the hugetlb memfd */
#define FZ_HOLE			0xff	/* slot page: unmapped */
#define FZ_RESERVE		0xfe	/* slot page: PROT_NONE reservation */
#define FZ_CHILD_TIMEOUT_MS	30000
#define FZ_UFFD_WAIT_MS		2000
/* Far above any TASK_SIZE (47 or 56 bits): PIN's range check. */
#define FZ_BEYOND		(1ULL << 62)
#define FZ_TASK_SIZE_47		0x7ffffffff000ULL

/* The kinds of operation, one KTAP test each. */
enum fz_op {
	FZ_PIN,		/* a well-formed PIN on the thread's memory */
	FZ_PIN_BAD,	/* a malformed PIN: EINVAL */
	FZ_PIN_LIMIT,	/* huge sizes, max_pages_per_pin exactly and one past */
	FZ_UNPIN,
	FZ_UNPIN_BAD,	/* twice, unknown ids, another fd's id, unknown flags */
	FZ_IO,		/* WRITE and READ, in and out of range, faulting buffers */
	FZ_STATE,	/* count 0 and U32_MAX, first out of range, faulting arrays */
	FZ_VMA,		/* munmap, mremap, madvise(DONTNEED), remap while pinned */
	FZ_FORK,	/* a child uses and closes the inherited fds */
	FZ_SCM,		/* an fd passed on, within and across processes */
	FZ_FDS,		/* many fds, closed with pins */
	FZ_KILL,	/* SIGKILL of a child in the middle of pinning */
	FZ_UFFD_OP,	/* a user page blocked while another thread unpins or closes */
	FZ_TOTAL,	/* max_pages_total exactly and one past (all threads wait) */
	FZ_MISC,	/* VERSION, unknown ioctls, faulting argument pointers */
	FZ_BENCH,	/* BENCH: timed pins that nothing outlives */
	FZ_OP_COUNT
};

static const struct {
	const char *name;
	unsigned int weight;	/* per mille */
} fz_ops[FZ_OP_COUNT] = {
	[FZ_PIN]	= { "pin", 290 },
	[FZ_PIN_BAD]	= { "pin-malformed", 60 },
	[FZ_PIN_LIMIT]	= { "pin-limits", 20 },
	[FZ_UNPIN]	= { "unpin", 130 },
	[FZ_UNPIN_BAD]	= { "unpin-bad", 50 },
	[FZ_IO]		= { "write-read", 170 },
	[FZ_STATE]	= { "state", 100 },
	[FZ_VMA]	= { "vma-while-pinned", 70 },
	[FZ_FORK]	= { "fork", 8 },
	[FZ_SCM]	= { "fd-passing", 10 },
	[FZ_FDS]	= { "many-fds", 10 },
	[FZ_KILL]	= { "sigkill-mid-pin", 6 },
	[FZ_UFFD_OP]	= { "userfaultfd-race", 10 },
	[FZ_TOTAL]	= { "total-limit", 1 },
	[FZ_MISC]	= { "misc-ioctls", 45 },
	[FZ_BENCH]	= { "bench", 20 },
};

/* What backs a mapping of a slot. */
enum fz_mem {
	FZ_ANON,
	FZ_SHMEM,
	FZ_EXT4,
	FZ_HUGETLB,
	FZ_MEM_COUNT
};

struct fz_seg {
	unsigned int first, npages;	/* pages of the slot */
	enum fz_mem mem;
	bool shared;			/* MAP_SHARED */
	bool ro_file;			/* the file opened O_RDONLY */
	int prot;
	unsigned int foff;		/* page offset in the file or memfd */
};

struct fz_slot {
	char *base;
	unsigned int nsegs;
	struct fz_seg segs[FZ_MAX_SEGS];
	unsigned char page[FZ_SLOT_PAGES];	/* seg index, FZ_HOLE, FZ_RESERVE */
	bool maybe_zero[FZ_SLOT_PAGES];	/* private anon not written: zero page */
};

/* Page kinds (enum gup_page_kind) as bits. */
#define KIND(k)			(1U << (k))
#define KIND_ANY		0xffU

struct fz_pin {
	__u32 id;
	int fdi;			/* index into fz_thread.fd[] */
	unsigned int nr, method, flags;
	bool writable;			/* the write rule's verdict, expected */
	bool foreign;			/* may hold pages the fuzzer does not own */
	bool ext4;			/* has ext4 pages: dirty only with buffers */
	unsigned char *kinds;		/* per page: KIND() bits allowed */
	long long *index;		/* per page: expected index, -1: any */
};

struct fz_global;

struct fz_rng {
	uint64_t s[4];
};

struct fz_thread {
	struct fz_global *g;
	unsigned int n;			/* thread number */
	struct fz_rng rng;
	unsigned long ops;		/* operations to do */
	unsigned long opno;		/* the current one, from 1 */
	enum fz_op op;
	int fd[2];			/* [0] shared by all threads, [1] own */
	char *arena;
	struct fz_slot slot[FZ_NR_SLOTS];
	int memfd, hugefd, filefd, file_rofd;
	char path[256];
	struct fz_pin *pins;
	unsigned int npins, pins_cap;
	unsigned long held;		/* pages of the pins above */
	__u32 dead[FZ_DEAD_IDS];	/* released ids: ENOENT for ever */
	unsigned int ndead;
	char *iobuf;			/* 2 pages, then a PROT_NONE guard */
	struct gup_page_state *st;	/* FZ_STATE_MAX entries, then a guard */
	char *ropage;			/* a PROT_READ page */
	unsigned long done[FZ_OP_COUNT], errs[FZ_OP_COUNT];
	unsigned long skipped[FZ_OP_COUNT], failed[FZ_OP_COUNT];
	unsigned long injected[FZ_OP_COUNT];
	unsigned long ioctls;
	int mif_fd;			/* --inject: /proc/thread-self/make-it-fail */
	int report_fd;			/* a fork child: failures go here */
	bool not_opener;		/* a fork child: its fds are the parent's */
};

struct fz_global {
	uint64_t seed;
	unsigned int ops, threads;
	const char *policy_name;
	policy_fn policy;
	enum policy_kernel kernel;	/* the policy's: 6.1 or 6.12 */
	const char *ext4_dir;
	bool verbose;
	bool inject;			/* --inject: the device's calls may fail */
	unsigned int show;		/* failures printed */
	char **shown;			/* their messages, for --json */
	struct gup_pin_version ver;
	size_t ps;
	int shared_fd;
	pthread_rwlock_t excl;		/* FZ_TOTAL takes it for writing */
	pthread_mutex_t out;
	unsigned long printed;
	bool have_ext4, have_hugetlb, have_uffd, have_debugfs;
	long long foll_pins_start;	/* foll_pins_held() before the threads, or -1 */
	bool have_unix;			/* AF_UNIX: SCM_RIGHTS, else pidfd_getfd(2) */
	bool forked;			/* a fork() since the start: FOLL_GET pins of
					 * anonymous pages may be shared (set first) */
	char no_ext4[160], no_hugetlb[160], no_uffd[160];
	unsigned long vdso, vvar, vvar_pages;
	bool vvar_io_pfnmap;		/* [vvar]'s VmFlags say io or pf */
	unsigned long cap;		/* pages a thread holds at most */
	struct fz_thread *t;
};

/* The thread's state, for the crash handler. */
static __thread struct fz_thread *fz_current;

/* ---- The PRNG: xoshiro256**, seeded by splitmix64 ---- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(struct fz_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct fz_rng *r)
{
	uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n), n > 0. */
static uint64_t rng_below(struct fz_rng *r, uint64_t n)
{
	return n ? rng_next(r) % n : 0;
}

static bool rng_pct(struct fz_rng *r, unsigned int pct)
{
	return rng_below(r, 100) < pct;
}

/* ---- Reporting ---- */

static const char *method_str(unsigned int m, char *buf, size_t size)
{
	const char *name = gup_method_name(m);

	if (name)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "method %u", m);
	return buf;
}

/* " METHOD flags FLAGS" of a PIN request. */
static const char *pin_mix_str(const struct gup_pin_req *r, char *buf, size_t size)
{
	char m[32], f[48];

	snprintf(buf, size, " %s flags %s", method_str(r->method, m, sizeof(m)),
		 gup_flags_str(r->flags, f, sizeof(f)));
	return buf;
}

static const char *answers_str(const struct abi_answers *a, char *buf, size_t size)
{
	size_t len = 0;
	unsigned int i;

	buf[0] = '\0';
	if (a->success)
		len += snprintf(buf, size, "success");
	for (i = 0; i < a->n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
				errno_name(a->err[i]));
	return buf;
}

/*
 * Print a failure (the first --show of them, then a note that there are
 * more) and keep it for --json.
 */
static void fz_failure_out(struct fz_global *g, const char *msg)
{
	pthread_mutex_lock(&g->out);
	if (g->printed < g->show) {
		printf("# %s\n", msg);
		if (g->shown)
			g->shown[g->printed] = strdup(msg);
	} else if (g->printed == g->show) {
		printf("# (more failures: only the first %u are printed, see --show)\n",
		       g->show);
	}
	g->printed++;
	fflush(stdout);
	pthread_mutex_unlock(&g->out);
}

/*
 * A failure of the current operation: printed (the first --show of them),
 * or sent to the parent by a fork child.
 */
static void fz_fail(struct fz_thread *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fz_fail(struct fz_thread *t, const char *fmt, ...)
{
	char msg[1024];
	int len;
	va_list ap;

	len = snprintf(msg, sizeof(msg), "FAIL thread %u op %lu (%s)%s: ", t->n,
		       t->opno, fz_ops[t->op].name,
		       t->report_fd >= 0 ? ", in a fork child" : "");
	va_start(ap, fmt);
	vsnprintf(msg + len, sizeof(msg) - len, fmt, ap);
	va_end(ap);
	t->failed[t->op]++;
	if (t->report_fd >= 0) {
		/* no stdio in a child of a threaded process: one write */
		char rec[1 + sizeof(msg)];

		rec[0] = 'F';
		memcpy(rec + 1, msg, sizeof(msg));
		if (write(t->report_fd, rec, sizeof(rec)) < 0)
			_exit(70);
		return;
	}
	fz_failure_out(t->g, msg);
}

static void fz_log(struct fz_thread *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fz_log(struct fz_thread *t, const char *fmt, ...)
{
	va_list ap;

	if (!t->g->verbose || t->report_fd >= 0)
		return;
	pthread_mutex_lock(&t->g->out);
	fprintf(stderr, "fuzz: thread %u op %lu (%s): ", t->n, t->opno,
		fz_ops[t->op].name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&t->g->out);
}

/*
 * --inject: the device's calls, and only they, run with the thread's
 * make-it-fail set (Documentation/fault-injection/fault-injection.rst).
 * The soak chooses which failures and how often, each with task-filter, so
 * that they land in the driver and in GUP under it, not in the fuzzer's own
 * mmap()s, forks and files.  Not in a fork child: its fd is the parent
 * thread's, and its calls are all refused before they allocate (EPERM).
 */
static bool fz_injecting(const struct fz_thread *t)
{
	return t->mif_fd >= 0 && t->report_fd == -1;
}

/*
 * --inject: GUP gives back what it took when something fails after its
 * first page (mm/gup.c, __get_user_pages(): "return i ? i : ret"), so a
 * pin shorter than the ABI predicts, of at least one page, is then the
 * injection's (a make soak run found one: 2 of 512 pages, under
 * fail_page_alloc).  Counted as injected.
 */
static bool fz_short_by_injection(struct fz_thread *t, unsigned int requested,
				  unsigned int got)
{
	if (!fz_injecting(t) || !got || got >= requested)
		return false;
	t->injected[t->op]++;
	return true;
}

/*
 * Judge answer @err (0 or a positive errno) of the request @what against
 * the ABI (model/abi.c).  True if it is allowed.
 */
static bool fz_judge(struct fz_thread *t, const struct abi_call *c, int err,
		     const char *what)
{
	struct abi_call cc = *c;
	struct abi_answers a;
	char allowed[160];

	/* a fork child's every call is from outside the opener's mm */
	cc.not_opener |= t->not_opener;
	abi_answers(&cc, &a);
	fz_log(t, "%s -> %s", what, err ? errno_name(err) : "success");
	if (err)
		t->errs[t->op]++;
	if (abi_answer_allowed(&a, err))
		return true;
	/*
	 * --inject: a failed allocation (failslab, fail_page_alloc, and a
	 * fault GUP could not complete: VM_FAULT_OOM) answers ENOMEM, a
	 * failed user copy (fail_usercopy) or a page the block layer could
	 * not read (fail_make_request: VM_FAULT_SIGBUS) EFAULT.  Any other
	 * answer is judged as without injection.
	 */
	if (fz_injecting(t) && (err == ENOMEM || err == EFAULT)) {
		t->injected[t->op]++;
		return true;
	}
	fz_fail(t, "%s -> %s; the ABI allows %s: %s", what,
		err ? errno_name(err) : "success",
		answers_str(&a, allowed, sizeof(allowed)), a.why);
	return false;
}

/* ---- Device calls: 0 or a positive errno ---- */

/*
 * --inject: set or clear the thread's make-it-fail.  Once it is set, the
 * write that clears it may itself meet fail_usercopy (EFAULT): try again.
 */
static void fz_make_it_fail(struct fz_thread *t, bool on)
{
	unsigned int i;

	for (i = 0; i < 10000; i++)
		if (pwrite(t->mif_fd, on ? "1" : "0", 1, 0) == 1)
			return;
	fprintf(stderr, "gupctl fuzz: cannot %s make-it-fail: %s\n", on ? "set" : "clear",
		strerror(errno));
	abort();
}

static int fz_ioctl(struct fz_thread *t, int fd, unsigned long cmd, void *arg)
{
	bool inject = fz_injecting(t);
	int err;

	t->ioctls++;
	if (inject)
		fz_make_it_fail(t, true);
	err = ioctl(fd, cmd, arg) < 0 ? errno : 0;
	if (inject)
		fz_make_it_fail(t, false);
	return err;
}

/*
 * Before a fork(): from now on a FOLL_GET pin's anonymous page may be
 * shared with the child, in every thread (ABI 4 refuses WRITE and UNPIN
 * DIRTY there).
 */
static void fz_forking(struct fz_thread *t)
{
	__atomic_store_n(&t->g->forked, true, __ATOMIC_SEQ_CST);
}

/* May a WRITE or dirty UNPIN of @p meet a page a fork shared? */
static bool pin_maybe_shared(const struct fz_thread *t, const struct fz_pin *p)
{
	return __atomic_load_n(&t->g->forked, __ATOMIC_SEQ_CST) &&
	       p->method != GUP_PIN_METHOD_PIN && p->method != GUP_PIN_METHOD_PIN_FAST &&
	       p->method != GUP_PIN_METHOD_PIN_REMOTE &&
	       p->method != GUP_PIN_METHOD_PIN_UNLOCKED;
}

static int fz_open(void)
{
	int fd = open(GUP_PIN_TEST_DEVICE, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* ---- The thread's memory ---- */

static size_t fz_ps(const struct fz_thread *t)
{
	return t->g->ps;
}

static char *slot_addr(const struct fz_thread *t, unsigned int s, unsigned int page)
{
	return t->slot[s].base + (size_t)page * fz_ps(t);
}

/* Map the whole slot as a PROT_NONE reservation (unmapping what was there). */
static int slot_reserve(struct fz_thread *t, unsigned int s)
{
	struct fz_slot *sl = &t->slot[s];

	if (mmap(sl->base, FZ_SLOT_PAGES * fz_ps(t), PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
		return -errno;
	sl->nsegs = 0;
	memset(sl->page, FZ_RESERVE, sizeof(sl->page));
	memset(sl->maybe_zero, 1, sizeof(sl->maybe_zero));
	return 0;
}

/* The fd and mapping flags of a segment. */
static int seg_fd(const struct fz_thread *t, const struct fz_seg *sg)
{
	switch (sg->mem) {
	case FZ_SHMEM:
		return t->memfd;
	case FZ_EXT4:
		return sg->ro_file ? t->file_rofd : t->filefd;
	case FZ_HUGETLB:
		return t->hugefd;
	default:
		return -1;
	}
}

static int seg_map(struct fz_thread *t, unsigned int s, const struct fz_seg *sg)
{
	int flags = MAP_FIXED | (sg->shared ? MAP_SHARED : MAP_PRIVATE);
	int fd = seg_fd(t, sg);

	if (sg->mem == FZ_ANON)
		flags |= MAP_ANONYMOUS;
	if (mmap(slot_addr(t, s, sg->first), (size_t)sg->npages * fz_ps(t), sg->prot,
		 flags, fd, (off_t)sg->foff * fz_ps(t)) == MAP_FAILED)
		return -errno;
	return 0;
}

/* Touch the segment's pages as user space would: none, read or write. */
static void seg_prefault(struct fz_thread *t, unsigned int s, struct fz_seg *sg,
			 unsigned int how)
{
	struct fz_slot *sl = &t->slot[s];
	volatile char *p;
	unsigned int i;

	if (!how || !(sg->prot & PROT_READ) || (how == 2 && !(sg->prot & PROT_WRITE)))
		return;
	for (i = 0; i < sg->npages; i++) {
		p = slot_addr(t, s, sg->first + i);
		if (how == 2) {
			*p = *p + 0;
			sl->maybe_zero[sg->first + i] = false;
		} else {
			(void)*p;
		}
	}
}

/*
 * A new random layout for slot @s: up to FZ_MAX_SEGS mappings of random
 * kinds, protections and sizes, with PROT_NONE reservation and holes
 * (unmapped pages) between and after them.  Pins of the old mappings stay.
 */
static int slot_build(struct fz_thread *t, unsigned int s)
{
	struct fz_slot *sl = &t->slot[s];
	unsigned int page = 0, want, i, k;
	int ret;

	ret = slot_reserve(t, s);
	if (ret)
		return ret;
	if (t->g->have_hugetlb && t->hugefd >= 0 && rng_pct(&t->rng, 10)) {
		struct fz_seg *sg = &sl->segs[0];

		*sg = (struct fz_seg){ .first = 0, .npages = FZ_SLOT_PAGES, .mem = FZ_HUGETLB,
				       .shared = true, .prot = PROT_READ | PROT_WRITE,
				       .foff = rng_below(&t->rng, FZ_HUGE_PAGES) * FZ_SLOT_PAGES };
		if (rng_pct(&t->rng, 20))
			sg->prot = PROT_READ;
		if (seg_map(t, s, sg) == 0) {
			sl->nsegs = 1;
			memset(sl->page, 0, sizeof(sl->page));
			seg_prefault(t, s, sg, rng_below(&t->rng, 3));
			return 0;
		}
		slot_reserve(t, s);
	}
	want = 1 + rng_below(&t->rng, FZ_MAX_SEGS);
	for (k = 0; k < want; k++) {
		struct fz_seg *sg = &sl->segs[sl->nsegs];
		unsigned int n = 1 + rng_below(&t->rng, rng_pct(&t->rng, 70) ? 24 : 160);

		page += rng_pct(&t->rng, 50) ? rng_below(&t->rng, 4) : 0;
		if (page + n + 8 > FZ_SLOT_PAGES)
			break;
		*sg = (struct fz_seg){ .first = page, .npages = n };
		sg->mem = rng_below(&t->rng, 3);	/* anon, shmem, ext4 */
		if (sg->mem == FZ_EXT4 && !t->g->have_ext4)
			sg->mem = FZ_ANON;
		sg->shared = sg->mem != FZ_ANON && rng_pct(&t->rng, 60);
		sg->ro_file = sg->mem == FZ_EXT4 && rng_pct(&t->rng, 20);
		switch (rng_below(&t->rng, 10)) {
		case 0:
			sg->prot = PROT_NONE;
			break;
		case 1:
		case 2:
			sg->prot = PROT_READ;
			break;
		default:
			sg->prot = sg->ro_file && sg->shared ? PROT_READ :
				   PROT_READ | PROT_WRITE;
		}
		if (sg->mem != FZ_ANON)
			sg->foff = rng_below(&t->rng, FZ_FILE_PAGES - n + 1);
		ret = seg_map(t, s, sg);
		if (ret)
			return ret;
		for (i = 0; i < n; i++)
			sl->page[page + i] = sl->nsegs;
		sl->nsegs++;
		seg_prefault(t, s, sg, rng_below(&t->rng, 3));
		page += n;
	}
	/* holes: a few unmapped pages, small enough that no mmap(NULL) fills them */
	for (k = rng_below(&t->rng, 3); k; k--) {
		unsigned int at = rng_below(&t->rng, FZ_SLOT_PAGES - 4);
		unsigned int n = 1 + rng_below(&t->rng, 4);

		if (munmap(slot_addr(t, s, at), (size_t)n * fz_ps(t)) == 0)
			memset(&sl->page[at], FZ_HOLE, n);
	}
	/* the slot's last pages are always a hole */
	if (munmap(slot_addr(t, s, FZ_SLOT_PAGES - 4), 4 * fz_ps(t)) == 0)
		memset(&sl->page[FZ_SLOT_PAGES - 4], FZ_HOLE, 4);
	return 0;
}

/* What GUP sees at @addr, as far as the fuzzer's model knows. */
struct fz_where {
	struct abi_vma vma;
	enum fz_mem mem;
	bool known;			/* the fuzzer's memory, in the model */
	bool vdso;
	bool maybe_zero;
	enum cell_backing backing;
	long long index;		/* expected STATE index, -1 none */
	unsigned char kinds_read, kinds_write;	/* KIND() bits by pin flags */
	int slot, page;
};

static void where_seg(const struct fz_seg *sg, unsigned int page, struct fz_where *w)
{
	bool rw = sg->prot & PROT_WRITE;

	w->mem = sg->mem;
	w->vma.mapped = true;
	w->vma.read = sg->prot & PROT_READ;
	w->vma.write = rw;
	w->vma.may_read = true;
	/* an O_RDONLY file's MAP_SHARED loses VM_SHARED and VM_MAYWRITE */
	w->vma.may_write = !(sg->ro_file && sg->shared);
	w->vma.shared = sg->shared && !sg->ro_file;
	w->vma.hugetlb = sg->mem == FZ_HUGETLB;
	w->vma.file = sg->mem != FZ_ANON;
	/* ext4_dirty_folio, shmem's and hugetlbfs' noop_dirty_folio */
	w->vma.dirtyable = w->vma.file;
	w->index = -1;
	switch (sg->mem) {
	case FZ_ANON:
		w->backing = BACKING_ANON;
		w->kinds_read = KIND(GUP_PAGE_ANON) | KIND(GUP_PAGE_OTHER);
		w->kinds_write = KIND(GUP_PAGE_ANON);
		break;
	case FZ_SHMEM:
		w->backing = BACKING_SHMEM;
		w->kinds_read = KIND(GUP_PAGE_SHMEM) |
				(sg->shared ? 0 : KIND(GUP_PAGE_ANON));
		w->kinds_write = sg->shared ? KIND(GUP_PAGE_SHMEM) : KIND(GUP_PAGE_ANON);
		break;
	case FZ_HUGETLB:
		w->backing = BACKING_HUGETLB;
		w->kinds_read = KIND(GUP_PAGE_HUGETLB);
		w->kinds_write = KIND(GUP_PAGE_HUGETLB);
		break;
	default:
		if (w->vma.shared)
			w->backing = rw ? BACKING_EXT4_SHARED : BACKING_EXT4_SHARED_RO;
		else
			w->backing = rw ? BACKING_EXT4_PRIVATE : BACKING_EXT4_PRIVATE_RO;
		w->kinds_read = KIND(GUP_PAGE_FILE) |
				(w->vma.shared ? 0 : KIND(GUP_PAGE_ANON));
		w->kinds_write = w->vma.shared ? KIND(GUP_PAGE_FILE) : KIND(GUP_PAGE_ANON);
	}
	/* a page of the file itself (not a COW copy) has its file index */
	if (sg->mem != FZ_ANON)
		w->index = sg->foff + (page - sg->first);
}

static void fz_where(const struct fz_thread *t, unsigned long addr, struct fz_where *w)
{
	size_t ps = fz_ps(t), slot_bytes = FZ_SLOT_PAGES * ps;
	unsigned long base = (unsigned long)t->slot[0].base;
	const struct fz_slot *sl;
	unsigned int page;

	memset(w, 0, sizeof(*w));
	w->slot = -1;
	w->index = -1;
	w->kinds_read = KIND_ANY;
	w->kinds_write = KIND_ANY;
	if (addr >= t->g->vdso && addr < t->g->vdso + 2 * ps && t->g->vdso) {
		/* VM_READ|VM_EXEC|VM_MAYREAD|VM_MAYWRITE|VM_MAYEXEC, no file */
		w->known = true;
		w->vdso = true;
		w->vma = (struct abi_vma){ .mapped = true, .read = true, .may_read = true,
					   .may_write = true };
		return;
	}
	if (addr >= t->g->vvar && addr < t->g->vvar + t->g->vvar_pages * ps) {
		w->known = true;
		w->vdso = true;
		w->vma = (struct abi_vma){ .mapped = true, .io_pfnmap = t->g->vvar_io_pfnmap,
					   .read = true, .may_read = true };
		return;
	}
	if (addr < base || addr >= base + FZ_NR_SLOTS * slot_bytes)
		return;
	w->known = true;
	w->slot = (addr - base) / slot_bytes;
	sl = &t->slot[w->slot];
	page = (addr - base) % slot_bytes / ps;
	w->page = page;
	w->maybe_zero = sl->maybe_zero[page];
	if (sl->page[page] == FZ_HOLE)
		return;
	if (sl->page[page] == FZ_RESERVE) {
		/* PROT_NONE private anon: FOLL_FORCE reads (zero page) and COWs */
		w->mem = FZ_ANON;
		w->backing = BACKING_ANON;
		w->vma = (struct abi_vma){ .mapped = true, .may_read = true,
					   .may_write = true };
		w->kinds_read = KIND(GUP_PAGE_ANON) | KIND(GUP_PAGE_OTHER);
		w->kinds_write = KIND(GUP_PAGE_ANON);
		return;
	}
	where_seg(&sl->segs[sl->page[page]], page, w);
	if (w->mem != FZ_ANON)
		w->maybe_zero = false;
}

/* ---- Pins the thread holds ---- */

static struct fz_pin *pin_add(struct fz_thread *t)
{
	struct fz_pin *p;

	if (t->npins == t->pins_cap) {
		unsigned int cap = t->pins_cap ? 2 * t->pins_cap : 64;
		struct fz_pin *n = realloc(t->pins, cap * sizeof(*n));

		if (!n)
			return NULL;
		t->pins = n;
		t->pins_cap = cap;
	}
	p = &t->pins[t->npins++];
	memset(p, 0, sizeof(*p));
	return p;
}

static void pin_drop(struct fz_thread *t, unsigned int i)
{
	struct fz_pin *p = &t->pins[i];

	t->held -= p->nr;
	if (t->ndead < FZ_DEAD_IDS)
		t->dead[t->ndead++] = p->id;
	else
		t->dead[rng_below(&t->rng, FZ_DEAD_IDS)] = p->id;
	free(p->kinds);
	free(p->index);
	t->pins[i] = t->pins[--t->npins];
}

/* Forget every pin of fd index @fdi (its file was released). */
static void pins_forget_fd(struct fz_thread *t, int fdi)
{
	unsigned int i = 0;

	while (i < t->npins) {
		if (t->pins[i].fdi == fdi)
			pin_drop(t, i);
		else
			i++;
	}
}

static int fz_unpin_id(struct fz_thread *t, int fd, __u32 id, unsigned int flags)
{
	struct gup_pin_unpin u = { .id = id, .flags = flags };

	return fz_ioctl(t, fd, GUP_PIN_IOC_UNPIN, &u);
}

/* Release pin @i cleanly (no dirtying): must succeed. */
static void pin_release(struct fz_thread *t, unsigned int i)
{
	struct abi_call c = { .ioctl = ABI_UNPIN };
	struct fz_pin *p = &t->pins[i];
	char what[96];
	int err;

	err = fz_unpin_id(t, t->fd[p->fdi], p->id, 0);
	snprintf(what, sizeof(what), "UNPIN id %u (a live pin of this file)", p->id);
	fz_judge(t, &c, err, what);
	if (!err || err == ENOENT)
		pin_drop(t, i);
}

/* Make room for @n more pages under the thread's cap. */
static void pins_make_room(struct fz_thread *t, unsigned long n)
{
	/* a fork child can release nothing (EPERM): it takes nothing either */
	if (t->not_opener)
		return;
	while (t->npins && t->held + n > t->g->cap)
		pin_release(t, rng_below(&t->rng, t->npins));
}

/* ---- PIN ---- */

/*
 * Would a policy expect a kernel report (or may it refuse) for a pin of
 * @method and @flags on [addr, addr + n pages)?  The model's pages only.
 */
static void pin_outlook(struct fz_thread *t, unsigned long addr, unsigned int n,
			unsigned int method, unsigned int flags, bool *refuse, bool *report)
{
	bool seen[BACKING_COUNT] = { false }, r, rep;
	struct fz_where w;
	unsigned int i;

	*refuse = *report = false;
	policy_pin_outlook(t->g->policy, method, flags, BACKING_ANON, refuse, report);
	for (i = 0; i < n; i++) {
		fz_where(t, addr + i * fz_ps(t), &w);
		if (!w.vma.mapped || seen[w.backing])
			continue;
		seen[w.backing] = true;
		policy_pin_outlook(t->g->policy, method, flags, w.backing, &r, &rep);
		*refuse |= r;
		*report |= rep;
	}
}

struct fz_pin_try {
	unsigned long addr;
	unsigned long long len;
	unsigned int method, flags, reserved;
	int fdi;
	bool malformed, maybe_malformed;
	bool may_block;
	void *req_at;			/* where the request lives (default: stack) */
	bool out_faults;
	bool bench;			/* BENCH: no per-pin limit (it pins nothing past the call) */
};

/* The facts of a PIN of the model's memory (not a malformed one). */
static void pin_facts(struct fz_thread *t, const struct fz_pin_try *p, struct abi_call *c)
{
	unsigned long long nr = p->len / fz_ps(t);
	struct fz_where w;
	unsigned int i;
	bool refuse, report;

	c->ioctl = ABI_PIN;
	c->malformed = p->malformed;
	c->maybe_malformed = p->maybe_malformed;
	c->flag_missing = (p->flags & GUP_PIN_FLAG_ALLOW_BROKEN) &&
			  !(t->g->ver.features & GUP_PIN_FEATURE_ALLOW_BROKEN);
	c->requested = nr > UINT32_MAX ? UINT32_MAX : nr;
	c->over_per_pin = !p->bench && nr > t->g->ver.max_pages_per_pin;
	c->total_maybe = t->held + nr > t->g->cap;
	c->may_block = p->may_block;
	c->out_faults = p->out_faults;
	if (c->malformed || c->over_per_pin)
		return;
	for (i = 0; i < nr; i++) {
		fz_where(t, p->addr + i * fz_ps(t), &w);
		if (!abi_gup_may_take(p->flags, &w.vma))
			break;
	}
	c->takeable = i;
	pin_outlook(t, p->addr, nr, p->method, p->flags, &refuse, &report);
	c->gup_may_refuse = refuse;
}

static const char *pin_what(struct fz_thread *t, const struct fz_pin_try *p, char *buf,
			    size_t size)
{
	char m[32], f[48];

	snprintf(buf, size, "PIN fd%d addr %#lx len %#llx (%llu pages) %s flags %s%s", p->fdi,
		 p->addr, p->len, p->len / fz_ps(t), method_str(p->method, m, sizeof(m)),
		 gup_flags_str(p->flags, f, sizeof(f)), p->reserved ? " reserved 1" : "");
	return buf;
}

/* Record a pin that PIN returned, with what its pages should look like. */
static void pin_record(struct fz_thread *t, const struct fz_pin_try *p,
		       const struct gup_pin_req *req)
{
	bool write = p->flags & GUP_PIN_FLAG_WRITE;
	struct fz_pin *pin = pin_add(t);
	struct fz_where w;
	unsigned int i;

	if (!pin) {
		fz_unpin_id(t, t->fd[p->fdi], req->id, 0);
		return;
	}
	pin->id = req->id;
	pin->fdi = p->fdi;
	pin->nr = req->nr_pinned;
	pin->method = p->method;
	pin->flags = p->flags;
	pin->writable = true;
	pin->kinds = calloc(pin->nr, 1);
	pin->index = calloc(pin->nr, sizeof(*pin->index));
	t->held += pin->nr;
	for (i = 0; i < pin->nr; i++) {
		fz_where(t, p->addr + i * fz_ps(t), &w);
		pin->writable &= abi_page_writable(p->flags, &w.vma);
		pin->foreign |= !w.known || w.vdso || (!write && w.maybe_zero);
		pin->ext4 |= w.mem == FZ_EXT4;
		if (pin->kinds)
			pin->kinds[i] = write ? w.kinds_write : w.kinds_read;
		if (pin->index)
			pin->index[i] = write && !w.vma.shared ? -1 : w.index;
		/* a private page written by GUP is the thread's own copy now */
		if (write && w.slot >= 0)
			t->slot[w.slot].maybe_zero[w.page] = false;
	}
	if (!pin->kinds || !pin->index)
		pin->foreign = true;
}

/* Make the PIN @p, judge the answer, record a pin.  The answer. */
static int pin_try(struct fz_thread *t, const struct fz_pin_try *p)
{
	struct gup_pin_req *req = p->req_at ? p->req_at : &(struct gup_pin_req){ 0 };
	struct abi_call c = { 0 };
	char what[192];
	const char *bad;
	int err;

	pin_facts(t, p, &c);
	if (!p->req_at || !p->out_faults) {
		memset(req, 0, sizeof(*req));
		req->addr = p->addr;
		req->len = p->len;
		req->method = p->method;
		req->flags = p->flags;
		req->reserved = p->reserved;
	}
	err = fz_ioctl(t, t->fd[p->fdi], GUP_PIN_IOC_PIN, req);
	pin_what(t, p, what, sizeof(what));
	if (!fz_judge(t, &c, err, what)) {
		if (!err && req->id && req->nr_pinned && !p->out_faults)
			fz_unpin_id(t, t->fd[p->fdi], req->id, 0);
		return err;
	}
	if (err || p->out_faults)
		return err;
	bad = abi_pin_result(&c, req->nr_requested, req->nr_pinned, req->id);
	if (bad && req->id && fz_short_by_injection(t, req->nr_requested, req->nr_pinned))
		bad = NULL;
	if (bad) {
		fz_fail(t, "%s -> nr_requested %u nr_pinned %u id %u: %s", what,
			req->nr_requested, req->nr_pinned, req->id, bad);
		if (req->id)
			fz_unpin_id(t, t->fd[p->fdi], req->id, 0);
		return err;
	}
	if (req->nr_pinned)
		pin_record(t, p, req);
	return 0;
}

/* Flags: WRITE and FORCE half the time, LONGTERM less, ALLOW_BROKEN rarely. */
static unsigned int rnd_flags(struct fz_thread *t)
{
	unsigned int f = 0;

	if (rng_pct(&t->rng, 50))
		f |= GUP_PIN_FLAG_WRITE;
	if (rng_pct(&t->rng, 30))
		f |= GUP_PIN_FLAG_LONGTERM;
	if (rng_pct(&t->rng, 30))
		f |= GUP_PIN_FLAG_FORCE;
	if (rng_pct(&t->rng, 10))
		f |= GUP_PIN_FLAG_ALLOW_BROKEN;
	return f;
}

/* A method and flags whose pin no policy expects a WARN for, on anon memory. */
static void rnd_quiet_mix(struct fz_thread *t, unsigned int *method, unsigned int *flags)
{
	bool refuse, report;
	int tries;

	for (tries = 0; tries < 32; tries++) {
		*method = rng_below(&t->rng, GUP_PIN_METHOD_COUNT);
		*flags = rnd_flags(t) & ~GUP_PIN_FLAG_ALLOW_BROKEN;
		policy_pin_outlook(t->g->policy, *method, *flags, BACKING_ANON,
				   &refuse, &report);
		if (!report)
			return;
	}
	*method = GUP_PIN_METHOD_PIN_FAST;
	*flags = 0;
}

/* The facts of a PIN of @n pages of the big slot (written anon memory). */
static void big_pin_call(struct fz_thread *t, unsigned int n, unsigned int method,
			 unsigned int flags, struct abi_call *c)
{
	bool report;

	memset(c, 0, sizeof(*c));
	c->ioctl = ABI_PIN;
	c->requested = n;
	c->takeable = n;
	policy_pin_outlook(t->g->policy, method, flags, BACKING_ANON, &c->gup_may_refuse,
			   &report);
}

/* A range in the random slots, often across a mapping's edge. */
static void rnd_range(struct fz_thread *t, unsigned long *addr, unsigned int *n)
{
	unsigned int s = rng_below(&t->rng, FZ_SLOTS), page, max;
	const struct fz_slot *sl = &t->slot[s];

	if (sl->nsegs && rng_pct(&t->rng, 50)) {
		const struct fz_seg *sg = &sl->segs[rng_below(&t->rng, sl->nsegs)];
		int edge = rng_pct(&t->rng, 50) ? sg->first : sg->first + sg->npages;

		edge += (int)rng_below(&t->rng, 5) - 2;
		page = edge < 0 ? 0 : FZ_MIN((unsigned int)edge, FZ_SLOT_PAGES - 1);
	} else {
		page = rng_below(&t->rng, FZ_SLOT_PAGES);
	}
	/* up to the end of the last random slot */
	max = (FZ_SLOTS - s) * FZ_SLOT_PAGES - page;
	*n = 1 + rng_below(&t->rng, FZ_MIN(max, rng_pct(&t->rng, 80) ? 8 : FZ_MAX_PIN));
	*addr = (unsigned long)slot_addr(t, s, page);
}

/*
 * A random method and flag mix for @n pages at p->addr (PIN, BENCH).  A
 * request a policy expects a kernel WARN for is the matrix's cell, not the
 * fuzz's: skipped (false), unless the driver refuses it first (ALLOW_BROKEN
 * on a kernel without it).
 */
static bool rnd_gup_call(struct fz_thread *t, struct fz_pin_try *p, unsigned int n)
{
	bool refuse, report;

	p->len = (unsigned long long)n * fz_ps(t);
	p->method = rng_below(&t->rng, GUP_PIN_METHOD_COUNT);
	p->flags = rnd_flags(t);
	pin_outlook(t, p->addr, n, p->method, p->flags, &refuse, &report);
	if (report && !((p->flags & GUP_PIN_FLAG_ALLOW_BROKEN) &&
			!(t->g->ver.features & GUP_PIN_FEATURE_ALLOW_BROKEN))) {
		t->skipped[t->op]++;
		return false;
	}
	return true;
}

static void op_pin(struct fz_thread *t)
{
	struct fz_pin_try p = { .fdi = rng_below(&t->rng, 2) };
	unsigned int n;

	if (t->g->vdso && rng_pct(&t->rng, 3)) {
		/* the vDSO (pinned, never written) or vvar (find_vdso()) */
		p.addr = rng_pct(&t->rng, 50) || !t->g->vvar ? t->g->vdso : t->g->vvar;
		n = 1;
	} else {
		rnd_range(t, &p.addr, &n);
	}
	if (!rnd_gup_call(t, &p, n))
		return;
	pins_make_room(t, n);
	pin_try(t, &p);
}

static void op_pin_bad(struct fz_thread *t)
{
	unsigned long base = (unsigned long)t->slot[0].base;
	size_t ps = fz_ps(t);
	struct fz_pin_try p = {
		.fdi = rng_below(&t->rng, 2),
		.addr = base,
		.len = ps * (1 + rng_below(&t->rng, 8)),
		.method = rng_below(&t->rng, GUP_PIN_METHOD_COUNT),
		.flags = rnd_flags(t),
		.malformed = true,
	};

	switch (rng_below(&t->rng, 9)) {
	case 0:
		p.reserved = 1 + rng_below(&t->rng, UINT32_MAX);
		break;
	case 1:
		p.method = GUP_PIN_METHOD_COUNT +
			   rng_below(&t->rng, UINT32_MAX - GUP_PIN_METHOD_COUNT);
		break;
	case 2:
		p.flags |= (GUP_PIN_FLAGS_ALL + 1) << rng_below(&t->rng, 28);
		break;
	case 3:
		p.len = 0;
		break;
	case 4:
		p.addr += 1 + rng_below(&t->rng, ps - 1);
		break;
	case 5:
		p.len += 1 + rng_below(&t->rng, ps - 1);
		break;
	case 6:
		/* wraps past the top of the address space */
		p.addr = -(unsigned long)ps * (1 + rng_below(&t->rng, 4));
		p.len = 8 * ps;
		break;
	case 7:
		p.addr = FZ_BEYOND + ps * rng_below(&t->rng, 1024);
		break;
	default:
		/*
		 * Across 4-level paging's TASK_SIZE: EINVAL there, a range
		 * GUP walks under 5-level paging (a hole: EFAULT).
		 */
		p.addr = FZ_TASK_SIZE_47 - ps;
		p.len = 2 * ps;
		p.malformed = false;
		p.maybe_malformed = true;
		rnd_quiet_mix(t, &p.method, &p.flags);
	}
	pin_try(t, &p);
}

/* Huge sizes; max_pages_per_pin exactly and one past. */
static void op_pin_limit(struct fz_thread *t)
{
	unsigned int per_pin = t->g->ver.max_pages_per_pin;
	struct fz_pin_try p = { .fdi = rng_below(&t->rng, 2) };
	size_t ps = fz_ps(t);

	rnd_quiet_mix(t, &p.method, &p.flags);
	p.addr = (unsigned long)slot_addr(t, FZ_BIG, 0);
	switch (rng_below(&t->rng, 4)) {
	case 0:
		/* terabytes, in range: more pages than a u32 counts */
		p.addr = 0x10000;
		p.len = (1ULL << (36 + rng_below(&t->rng, 10))) & ~(ps - 1ULL);
		break;
	case 1:
		p.len = (unsigned long long)(per_pin + 1) * ps;
		break;
	case 2:
		if (per_pin > FZ_SLOT_PAGES) {
			t->skipped[t->op]++;
			return;
		}
		/* exactly max_pages_per_pin of written anon memory: all taken */
		p.len = (unsigned long long)per_pin * ps;
		pins_make_room(t, per_pin);
		break;
	default:
		/* ALLOW_BROKEN: EOPNOTSUPP where the kernel lacks it */
		p.len = ps * (1 + rng_below(&t->rng, 8));
		p.flags |= GUP_PIN_FLAG_ALLOW_BROKEN;
		if (t->g->ver.features & GUP_PIN_FEATURE_ALLOW_BROKEN) {
			bool refuse, report;

			policy_pin_outlook(t->g->policy, p.method, p.flags, BACKING_ANON,
					   &refuse, &report);
			if (report) {
				t->skipped[t->op]++;
				return;
			}
			pins_make_room(t, p.len / ps);
		}
	}
	pin_try(t, &p);
}

/* A random pin of the thread's, or NULL (the operation is skipped). */
static struct fz_pin *pick_pin(struct fz_thread *t)
{
	if (!t->npins) {
		t->skipped[t->op]++;
		return NULL;
	}
	return &t->pins[rng_below(&t->rng, t->npins)];
}

/* ---- UNPIN ---- */

/* Do the ext4 pages of pin @p all have buffers (STATE)?  Else no dirtying. */
static bool pin_has_buffers(struct fz_thread *t, const struct fz_pin *p)
{
	struct gup_pin_state_req r = {
		.id = p->id,
		.count = p->nr,
		.pages = (unsigned long)t->st,
	};
	unsigned int i;

	if (p->nr > FZ_STATE_MAX || fz_ioctl(t, t->fd[p->fdi], GUP_PIN_IOC_STATE, &r))
		return false;
	for (i = 0; i < r.count; i++)
		if (t->st[i].kind == GUP_PAGE_FILE && !(t->st[i].state & GUP_PAGE_HAS_BUFFERS))
			return false;
	return r.count == p->nr;
}

static void op_unpin(struct fz_thread *t)
{
	struct abi_call c = { .ioctl = ABI_UNPIN };
	unsigned int i, flags = 0;
	struct fz_pin *p;
	char what[128];
	int err, fd;
	__u32 id;

	p = pick_pin(t);
	if (!p)
		return;
	i = p - t->pins;
	if (rng_pct(&t->rng, 25))
		flags = GUP_UNPIN_DIRTY;
	if (rng_pct(&t->rng, 5)) {
		flags |= 1U << (1 + rng_below(&t->rng, 31));
		c.malformed = true;
	}
	if ((flags & GUP_UNPIN_DIRTY) && p->ext4 && p->writable && !pin_has_buffers(t, p))
		flags &= ~GUP_UNPIN_DIRTY;	/* the 2018 route: not the fuzzer's */
	c.write_refused = (flags & GUP_UNPIN_DIRTY) && !p->writable;
	c.write_maybe_refused = (flags & GUP_UNPIN_DIRTY) && pin_maybe_shared(t, p);
	id = p->id;
	fd = t->fd[p->fdi];
	err = fz_unpin_id(t, fd, id, flags);
	snprintf(what, sizeof(what), "UNPIN fd%d id %u flags %#x (%u pages, %s pin)", p->fdi,
		 id, flags, p->nr, p->writable ? "writable" : "read-only");
	fz_judge(t, &c, err, what);
	if (!err) {
		pin_drop(t, i);
		/* unpin twice: the id is gone */
		if (rng_pct(&t->rng, 10)) {
			struct abi_call c2 = { .ioctl = ABI_UNPIN, .unknown_id = true };

			snprintf(what, sizeof(what), "UNPIN id %u again", id);
			fz_judge(t, &c2, fz_unpin_id(t, fd, id, 0), what);
		}
	} else if (err == ENOENT) {
		pin_drop(t, i);
	}
}

static void op_unpin_bad(struct fz_thread *t)
{
	struct abi_call c = { .ioctl = ABI_UNPIN, .unknown_id = true };
	int fdi = rng_below(&t->rng, 2);
	unsigned int flags = 0;
	char what[128];
	__u32 id;

	switch (rng_below(&t->rng, 5)) {
	case 0:
		id = 0;
		break;
	case 1:
		/* beyond the IDR's INT_MAX: never an id */
		id = 0x80000000U + rng_below(&t->rng, 0x80000000U);
		break;
	case 2:
		if (!t->ndead) {
			id = 0;
			break;
		}
		id = t->dead[rng_below(&t->rng, t->ndead)];
		break;
	case 3:
		/* a live pin through the other fd: pins belong to their file */
		if (!t->npins) {
			id = 0;
			break;
		}
		id = t->pins[rng_below(&t->rng, t->npins)].id;
		fdi = -1;
		break;
	default:
		flags = 1U << (1 + rng_below(&t->rng, 31));
		c.malformed = true;
		id = t->ndead ? t->dead[0] : 0;
	}
	if (fdi < 0) {
		unsigned int i;

		for (i = 0; i < t->npins && t->pins[i].id != id; i++)
			;
		fdi = !t->pins[i].fdi;
		if (t->fd[fdi] == t->fd[!fdi]) {
			t->skipped[t->op]++;
			return;
		}
	}
	snprintf(what, sizeof(what), "UNPIN fd%d id %u flags %#x (not a live pin of the file)",
		 fdi, id, flags);
	if (!fz_judge(t, &c, fz_unpin_id(t, t->fd[fdi], id, flags), what)) {
		unsigned int i;

		/* it did release a pin the thread holds: forget it */
		for (i = 0; i < t->npins; i++)
			if (t->pins[i].id == id)
				pin_drop(t, i);
	}
}

/* ---- WRITE / READ ---- */

static void op_io(struct fz_thread *t)
{
	struct abi_call c = { 0 };
	struct gup_pin_io io = { 0 };
	unsigned long long bytes;
	struct fz_pin *p;
	size_t ps = fz_ps(t);
	bool write;
	char what[160];
	int fdi, err;

	p = pick_pin(t);
	if (!p)
		return;
	write = rng_pct(&t->rng, 50) && !p->foreign;
	bytes = (unsigned long long)p->nr * ps;
	c.ioctl = write ? ABI_WRITE : ABI_READ;
	fdi = p->fdi;
	io.id = p->id;
	io.offset = rng_below(&t->rng, bytes);
	io.len = 1 + rng_below(&t->rng, FZ_MIN(bytes - io.offset, 2 * ps));
	io.buf = (unsigned long)t->iobuf + rng_below(&t->rng, 2 * ps - io.len + 1);
	switch (rng_below(&t->rng, 20)) {
	case 0:
		/* beyond the pinned pages */
		io.offset = bytes - rng_below(&t->rng, FZ_MIN(bytes, ps));
		io.len = ps + 1;
		io.buf = (unsigned long)t->iobuf;
		c.out_of_range = true;
		break;
	case 1:
		io.offset = UINT64_MAX - rng_below(&t->rng, ps);
		c.out_of_range = true;
		break;
	case 2:
		io.len = 0;
		c.malformed = true;
		break;
	case 3:
		io.reserved = 1;
		c.malformed = true;
		break;
	case 4:
		/* a buffer that faults: NULL, or running into the guard page */
		if (rng_pct(&t->rng, 50))
			io.buf = 0;
		else
			io.buf = (unsigned long)t->iobuf + 2 * ps - rng_below(&t->rng, io.len);
		c.buf_faults = true;
		break;
	case 5:
		/* through the other fd: not a pin of that file */
		if (t->fd[0] != t->fd[1]) {
			fdi = !fdi;
			c.unknown_id = true;
		}
		break;
	}
	c.write_refused = write && !p->writable;
	c.write_maybe_refused = write && pin_maybe_shared(t, p);
	if (write && !c.buf_faults && io.buf)
		memset((void *)(unsigned long)io.buf, 'a' + (int)rng_below(&t->rng, 26), io.len);
	err = fz_ioctl(t, t->fd[fdi], write ? GUP_PIN_IOC_WRITE : GUP_PIN_IOC_READ, &io);
	snprintf(what, sizeof(what),
		 "%s fd%d id %u offset %#llx len %#llx buf %#llx (pin of %u pages, %s)",
		 write ? "WRITE" : "READ", fdi, io.id, (unsigned long long)io.offset,
		 (unsigned long long)io.len, (unsigned long long)io.buf, p->nr,
		 p->writable ? "writable" : "read-only");
	fz_judge(t, &c, err, what);
}

/* ---- STATE ---- */

static void state_check(struct fz_thread *t, const struct fz_pin *p, __u32 first,
			__u32 count, const struct gup_page_state *st)
{
	unsigned int i;

	if (!p->kinds || !p->index)
		return;
	for (i = 0; i < count; i++) {
		const struct gup_page_state *s = &st[i];
		unsigned int page = first + i;

		if (s->kind > GUP_PAGE_OTHER || !memchr(s->fs_name, '\0', sizeof(s->fs_name))) {
			fz_fail(t, "STATE id %u page %u: kind %u, fs_name not a string", p->id,
				page, s->kind);
			return;
		}
		if (!(p->kinds[page] & KIND(s->kind))) {
			fz_fail(t, "STATE id %u page %u: kind %s, not what its mapping gives (bits %#x)",
				p->id, page, gup_page_kind_name(s->kind), p->kinds[page]);
			return;
		}
		if (s->kind != GUP_PAGE_ANON && s->kind != GUP_PAGE_OTHER &&
		    p->index[page] >= 0 && s->index != (unsigned long long)p->index[page]) {
			fz_fail(t, "STATE id %u page %u: index %llu, the page's offset in its file is %lld pages (%s)",
				p->id, page, (unsigned long long)s->index, p->index[page],
				gup_page_kind_name(s->kind));
			return;
		}
	}
}

static void op_state(struct fz_thread *t)
{
	struct gup_pin_state_req r = { 0 };
	struct abi_call c = { .ioctl = ABI_STATE };
	__u32 want, room = FZ_STATE_MAX;
	struct gup_page_state *out = t->st;
	struct fz_pin *p;
	char what[160];
	int fdi, err;

	p = pick_pin(t);
	if (!p)
		return;
	fdi = p->fdi;
	r.id = p->id;
	r.first = rng_below(&t->rng, p->nr);
	switch (rng_below(&t->rng, 4)) {
	case 0:
		r.count = 0;
		break;
	case 1:
		r.count = UINT32_MAX;
		break;
	default:
		r.count = 1 + rng_below(&t->rng, p->nr);
	}
	switch (rng_below(&t->rng, 16)) {
	case 0:
		r.first = rng_pct(&t->rng, 50) ? p->nr : UINT32_MAX - rng_below(&t->rng, 4);
		c.out_of_range = true;
		break;
	case 1:
		r.reserved = 1;
		c.malformed = true;
		break;
	case 2:
		/* an array that ends before the entries do: into the guard */
		room = rng_below(&t->rng, 4);
		out = t->st + FZ_STATE_MAX - room;
		break;
	case 3:
		out = NULL;
		room = 0;
		break;
	case 4:
		if (t->fd[0] != t->fd[1]) {
			fdi = !fdi;
			c.unknown_id = true;
		}
		break;
	}
	want = r.first < p->nr ? FZ_MIN(r.count, p->nr - r.first) : 0;
	c.buf_faults = want > room;
	r.pages = (unsigned long)out;
	snprintf(what, sizeof(what), "STATE fd%d id %u first %u count %u pages %#llx (pin of %u pages)",
		 fdi, p->id, r.first, r.count, (unsigned long long)r.pages, p->nr);
	err = fz_ioctl(t, t->fd[fdi], GUP_PIN_IOC_STATE, &r);
	if (!fz_judge(t, &c, err, what) || err)
		return;
	if (r.count != want) {
		fz_fail(t, "%s: wrote %u entries, the pin has %u from first", what, r.count, want);
		return;
	}
	state_check(t, p, r.first, r.count, out);
}

/* ---- Mappings changed under the pins ---- */

/* mremap() segment @sg of slot @s, whole, to the reservation before the slot's end. */
static bool seg_move(struct fz_thread *t, unsigned int s, struct fz_seg *sg)
{
	struct fz_slot *sl = &t->slot[s];
	unsigned int n = sg->npages, to = FZ_SLOT_PAGES - 4 - n, a = sg->first, k;
	size_t bytes = (size_t)n * fz_ps(t);
	char *addr = slot_addr(t, s, a);

	if (sg->mem == FZ_HUGETLB || n + 4 > FZ_SLOT_PAGES || to <= a + n)
		return false;
	for (k = 0; k < n; k++)
		if (sl->page[to + k] != FZ_RESERVE || sl->page[a + k] != sl->page[a])
			return false;
	if (mremap(addr, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED,
		   slot_addr(t, s, to)) == MAP_FAILED)
		return false;
	/* the old place: a PROT_NONE reservation again, not a hole */
	mmap(addr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
	     -1, 0);
	for (k = 0; k < n; k++) {
		sl->page[to + k] = sl->page[a + k];
		sl->maybe_zero[to + k] = sl->maybe_zero[a + k];
		sl->page[a + k] = FZ_RESERVE;
		sl->maybe_zero[a + k] = true;
	}
	sg->first = to;
	return true;
}

/*
 * Change a slot's mappings under its pins: a new layout, munmap (a hole)
 * or PROT_NONE over part of a mapping, madvise(MADV_DONTNEED), mremap.
 * What the kernel refuses (or the layout does not allow) is counted
 * skipped.
 */
static void op_vma(struct fz_thread *t)
{
	unsigned int s = rng_below(&t->rng, FZ_SLOTS), a, n, i;
	struct fz_slot *sl = &t->slot[s];
	bool done = false;
	struct fz_seg *sg;
	size_t bytes;
	char *addr;

	if (!sl->nsegs || rng_pct(&t->rng, 25)) {
		if (slot_build(t, s))
			fz_fail(t, "a new layout for slot %u: %s", s, strerror(errno));
		return;
	}
	sg = &sl->segs[rng_below(&t->rng, sl->nsegs)];
	a = sg->first + rng_below(&t->rng, sg->npages);
	n = 1 + rng_below(&t->rng, sg->first + sg->npages - a);
	if (sg->mem == FZ_HUGETLB) {
		/* huge pages go whole */
		a = sg->first;
		n = sg->npages;
	}
	addr = slot_addr(t, s, a);
	bytes = (size_t)n * fz_ps(t);
	switch (rng_below(&t->rng, 4)) {
	case 0:
		if (sg->mem != FZ_HUGETLB && n <= 4 && munmap(addr, bytes) == 0) {
			memset(&sl->page[a], FZ_HOLE, n);
			done = true;
		}
		break;
	case 1:
		if (mmap(addr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
			 MAP_FIXED, -1, 0) != MAP_FAILED) {
			memset(&sl->page[a], FZ_RESERVE, n);
			memset(&sl->maybe_zero[a], 1, n);
			done = true;
		}
		break;
	case 2:
		done = madvise(addr, bytes, MADV_DONTNEED) == 0;
		for (i = a; done && i < a + n; i++)
			if (sl->page[i] == FZ_RESERVE || sg->mem == FZ_ANON)
				sl->maybe_zero[i] = true;
		break;
	default:
		done = seg_move(t, s, sg);
	}
	if (!done)
		t->skipped[t->op]++;
}

/* ---- Children: fork, SIGKILL ---- */

/* Wait for @pid, killing it after @ms.  Its wait status, or -1. */
static int child_wait(pid_t pid, int ms)
{
	int status, waited;

	for (waited = 0; waited < ms; waited += 5) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			return -1;
		usleep(5000);
	}
	kill(pid, SIGKILL);
	return waitpid(pid, &status, 0) == pid ? status : -1;
}

static void op_dispatch(struct fz_thread *t, enum fz_op op);

/* A record of the pins a fork child leaves: the fixed part. */
struct fz_pin_rec {
	char type;			/* 'P' */
	__u32 id, nr, method, flags;
	int fdi;
	bool writable, foreign, ext4;
	bool arrays;			/* kinds[nr] and index[nr] follow */
};

/*
 * The child: ordinary operations on the inherited fds and its copy of the
 * thread's memory and pins (pins belong to the file: it may release the
 * parent's), then it sends its pins back, closes the fds and exits.
 */
static void __attribute__((noreturn)) fork_child(struct fz_thread *t, int wfd)
{
	static const enum fz_op ops[] = { FZ_PIN, FZ_IO, FZ_STATE, FZ_UNPIN, FZ_UNPIN_BAD };
	unsigned int i, k = 3 + rng_below(&t->rng, 20);

	t->report_fd = wfd;
	/* the fds are the parent's: every call but VERSION is EPERM (ABI 4) */
	t->not_opener = true;
	for (i = 0; i < k; i++) {
		op_dispatch(t, ops[rng_below(&t->rng, ARRAY_SIZE(ops))]);
		/* stay within the headroom the parent left */
		while (t->npins && t->held > t->g->cap)
			pin_release(t, rng_below(&t->rng, t->npins));
	}
	for (i = 0; i < t->npins; i++) {
		const struct fz_pin *p = &t->pins[i];
		struct fz_pin_rec r = {
			.type = 'P', .id = p->id, .nr = p->nr, .method = p->method,
			.flags = p->flags, .fdi = p->fdi, .writable = p->writable,
			.foreign = p->foreign, .ext4 = p->ext4,
			.arrays = p->kinds && p->index,
		};

		if (write_all(wfd, &r, sizeof(r)) ||
		    (r.arrays && (write_all(wfd, p->kinds, p->nr) ||
				  write_all(wfd, p->index, p->nr * sizeof(*p->index)))))
			_exit(71);
	}
	close(t->fd[0]);
	close(t->fd[1]);
	_exit(0);
}

/* read_all(), but giving up after FZ_CHILD_TIMEOUT_MS of silence: a child that hangs */
static int fz_read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, FZ_CHILD_TIMEOUT_MS) <= 0)
			return -1;
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* The parent: take the child's failures and pins (its own list is stale). */
static void fork_collect(struct fz_thread *t, int rfd)
{
	char type;

	while (t->npins) {
		/* the child's list replaces this one: no unpin, only forget */
		struct fz_pin *p = &t->pins[--t->npins];

		free(p->kinds);
		free(p->index);
	}
	t->held = 0;
	while (fz_read_all(rfd, &type, 1) == 0) {
		if (type == 'F') {
			char msg[1024];

			if (fz_read_all(rfd, msg, sizeof(msg)))
				break;
			msg[sizeof(msg) - 1] = '\0';
			t->failed[FZ_FORK]++;
			fz_failure_out(t->g, msg);
		} else if (type == 'P') {
			struct fz_pin_rec r;
			struct fz_pin *p;

			if (fz_read_all(rfd, (char *)&r + 1, sizeof(r) - 1))
				break;
			p = pin_add(t);
			if (!p)
				break;
			*p = (struct fz_pin){ .id = r.id, .fdi = r.fdi, .nr = r.nr,
					      .method = r.method, .flags = r.flags,
					      .writable = r.writable, .foreign = r.foreign,
					      .ext4 = r.ext4 };
			t->held += p->nr;
			if (r.arrays) {
				p->kinds = malloc(p->nr);
				p->index = malloc(p->nr * sizeof(*p->index));
				if (!p->kinds || !p->index ||
				    fz_read_all(rfd, p->kinds, p->nr) ||
				    fz_read_all(rfd, p->index, p->nr * sizeof(*p->index)))
					break;
			}
		} else {
			break;
		}
	}
}

static void op_fork(struct fz_thread *t)
{
	int pfd[2], status;
	pid_t pid;

	/* room for what the child may leave */
	pins_make_room(t, FZ_HEADROOM);
	if (pipe2(pfd, O_CLOEXEC)) {
		t->skipped[t->op]++;
		return;
	}
	fz_forking(t);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		t->skipped[t->op]++;
		return;
	}
	if (pid == 0) {
		close(pfd[0]);
		rng_seed(&t->rng, rng_next(&t->rng), t->opno);
		t->g->cap = t->held + FZ_HEADROOM;
		fork_child(t, pfd[1]);
	}
	close(pfd[1]);
	/* the child's choices use a PRNG derived from this one */
	rng_next(&t->rng);
	fork_collect(t, pfd[0]);
	close(pfd[0]);
	status = child_wait(pid, FZ_CHILD_TIMEOUT_MS);
	if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		fz_fail(t, "the fork child did not exit 0 (wait status %#x)", status);
}

/* userfaultfd(2): a uffd for missing pages, or -errno. */
static int uffd_open(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, UFFDIO_API, &api)) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

static int uffd_register(int uffd, void *addr, size_t len)
{
	struct uffdio_register reg = {
		.range = { .start = (unsigned long)addr, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	return ioctl(uffd, UFFDIO_REGISTER, &reg) ? -errno : 0;
}

/*
 * The child of FZ_KILL: pins and unpins written anon memory through an fd
 * of its own, or waits inside PIN on a page userfaultfd never provides,
 * until the parent kills it.
 */
static void __attribute__((noreturn)) kill_child(struct fz_thread *t)
{
	size_t ps = fz_ps(t);
	unsigned int method, flags;
	int fd = fz_open(), uffd;

	if (fd < 0)
		_exit(72);
	rnd_quiet_mix(t, &method, &flags);
	uffd = rng_pct(&t->rng, 40) ? uffd_open() : -1;
	if (uffd >= 0) {
		char *r = slot_addr(t, FZ_UFFD, 0);

		if (mmap(r, 16 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED, -1, 0) != MAP_FAILED && !uffd_register(uffd, r, 16 * ps)) {
			struct gup_pin_req req = {
				.addr = (unsigned long)r, .len = 16 * ps,
				/* a method that waits for the fault (FAULT_FLAG_ALLOW_RETRY) */
				.method = rng_pct(&t->rng, 50) ? GUP_PIN_METHOD_PIN_FAST :
					  GUP_PIN_METHOD_GET_FAST,
			};

			ioctl(fd, GUP_PIN_IOC_PIN, &req);
		}
	}
	for (;;) {
		struct gup_pin_req req = {
			.addr = (unsigned long)slot_addr(t, FZ_BIG, 0),
			.len = (1 + rng_below(&t->rng, FZ_MAX_PIN)) * ps,
			.method = method, .flags = flags,
		};

		if (!ioctl(fd, GUP_PIN_IOC_PIN, &req) && req.id)
			ioctl(fd, GUP_PIN_IOC_UNPIN, &(struct gup_pin_unpin){ .id = req.id });
	}
}

static void op_kill(struct fz_thread *t)
{
	int status;
	pid_t pid;

	pins_make_room(t, FZ_HEADROOM);
	fz_forking(t);
	pid = fork();
	if (pid < 0) {
		t->skipped[t->op]++;
		return;
	}
	if (pid == 0) {
		t->report_fd = -2;
		rng_seed(&t->rng, rng_next(&t->rng), t->opno);
		kill_child(t);
	}
	rng_next(&t->rng);
	usleep(rng_below(&t->rng, 20000));
	kill(pid, SIGKILL);
	status = child_wait(pid, FZ_CHILD_TIMEOUT_MS);
	if (status < 0 || !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		fz_fail(t, "the child to kill ended otherwise (wait status %#x)", status);
}

/* ---- An fd passed on: SCM_RIGHTS, or pidfd_getfd(2) without AF_UNIX ---- */

static int scm_send(int sock, int fd)
{
	char c = 'f', ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &mh, 0) == 1 ? 0 : -errno;
}

static int scm_recv(int sock)
{
	char c, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) != 1)
		return -errno;
	cm = CMSG_FIRSTHDR(&mh);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -EBADMSG;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* Another fd of the file of @pid's fd @fd (pidfd_getfd(2)), or -errno. */
static int pidfd_take(pid_t pid, int fd)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0), nfd;

	if (pidfd < 0)
		return -errno;
	nfd = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (nfd < 0)
		nfd = -errno;
	close(pidfd);
	return nfd;
}

/* Pass @fd to this process again: a second fd of its file, or -errno. */
static int fd_pass_self(struct fz_thread *t, int fd)
{
	int sv[2], nfd;

	if (!t->g->have_unix)
		return pidfd_take(getpid(), fd);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	nfd = scm_send(sv[0], fd);
	if (!nfd)
		nfd = scm_recv(sv[1]);
	close(sv[0]);
	close(sv[1]);
	return nfd;
}

/* A live pin of fd index 1 answers STATE through @fd (the same file). */
static void pass_probe(struct fz_thread *t, int fd, const char *how)
{
	struct abi_call c = { .ioctl = ABI_STATE };
	struct gup_pin_state_req r = { .count = 0 };
	unsigned int i;
	char what[128];

	for (i = 0; i < t->npins && t->pins[i].fdi != 1; i++)
		;
	if (i == t->npins)
		return;
	r.id = t->pins[i].id;
	snprintf(what, sizeof(what), "STATE id %u count 0 through %s", r.id, how);
	fz_judge(t, &c, fz_ioctl(t, fd, GUP_PIN_IOC_STATE, &r), what);
}

/*
 * The child of the cross-process case: a new file with a pin of its own
 * memory, handed to the parent (SCM_RIGHTS, or the parent takes it with
 * pidfd_getfd(2)); it exits once the parent has it.
 */
static void __attribute__((noreturn)) pass_child(struct fz_thread *t, int sock, int wfd,
						 int rfd)
{
	struct gup_pin_req req = {
		.addr = (unsigned long)slot_addr(t, FZ_BIG, 0),
		.len = fz_ps(t) * (1 + rng_below(&t->rng, 8)),
		.method = GUP_PIN_METHOD_PIN_FAST,
	};
	int fd = fz_open(), msg[2];
	char go;

	if (fd < 0 || ioctl(fd, GUP_PIN_IOC_PIN, &req))
		_exit(73);
	msg[0] = fd;
	msg[1] = req.id;
	if ((sock >= 0 && scm_send(sock, fd)) || write_all(wfd, msg, sizeof(msg)) ||
	    read(rfd, &go, 1) != 1)
		_exit(74);
	_exit(0);
}

/* The cross-process case: the pin lives on in the parent, then goes with the fd. */
static void pass_across(struct fz_thread *t)
{
	int sv[2] = { -1, -1 }, up[2], down[2], msg[2], nfd = -1, status;
	/* the parent is not the opener of the fd the child passes */
	struct abi_call c = { .ioctl = ABI_STATE, .not_opener = true };
	struct gup_pin_state_req r = { .count = 1 };
	char what[128];
	pid_t pid;

	pins_make_room(t, FZ_HEADROOM);
	if (t->g->have_unix && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return;
	if (pipe2(up, O_CLOEXEC) || pipe2(down, O_CLOEXEC))
		return;
	fz_forking(t);
	pid = fork();
	if (pid == 0) {
		t->report_fd = -2;
		rng_seed(&t->rng, rng_next(&t->rng), t->opno);
		pass_child(t, sv[1], up[1], down[0]);
	}
	rng_next(&t->rng);
	if (pid > 0 && fz_read_all(up[0], msg, sizeof(msg)) == 0)
		nfd = t->g->have_unix ? scm_recv(sv[0]) : pidfd_take(pid, msg[0]);
	if (pid > 0 && write(down[1], "g", 1) != 1)
		kill(pid, SIGKILL);
	status = pid > 0 ? child_wait(pid, FZ_CHILD_TIMEOUT_MS) : -1;
	if (nfd >= 0) {
		/* the child and its fd are gone: this one keeps the file */
		r.id = msg[1];
		r.pages = (unsigned long)t->st;
		snprintf(what, sizeof(what), "STATE id %u through an fd a child passed on (%s), the child gone",
			 r.id, t->g->have_unix ? "SCM_RIGHTS" : "pidfd_getfd");
		fz_judge(t, &c, fz_ioctl(t, nfd, GUP_PIN_IOC_STATE, &r), what);
		if (rng_pct(&t->rng, 50))
			fz_unpin_id(t, nfd, r.id, 0);
		close(nfd);
	} else if (pid > 0) {
		fz_fail(t, "the child's fd did not come across (%s, child wait status %#x)",
			errno_name(nfd), status);
	}
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
	if (sv[0] >= 0) {
		close(sv[0]);
		close(sv[1]);
	}
}

static void op_pass(struct fz_thread *t)
{
	int nfd;

	switch (rng_below(&t->rng, 3)) {
	case 0:
		/* a second fd of the same file: its pins answer there */
		nfd = fd_pass_self(t, t->fd[1]);
		if (nfd < 0)
			break;
		pass_probe(t, nfd, "a second fd passed on");
		close(nfd);
		pass_probe(t, t->fd[1], "the fd after closing the passed one");
		break;
	case 1:
		/* the passed fd replaces the thread's own; its pins stay */
		nfd = fd_pass_self(t, t->fd[1]);
		if (nfd < 0)
			break;
		close(t->fd[1]);
		t->fd[1] = nfd;
		pass_probe(t, nfd, "the passed fd, the first one closed");
		break;
	default:
		pass_across(t);
		return;
	}
	if (nfd < 0)
		fz_fail(t, "passing an fd on (%s): %s", t->g->have_unix ? "SCM_RIGHTS" :
			"pidfd_getfd", errno_name(nfd));
}

/* ---- Many fds ---- */

static void op_fds(struct fz_thread *t)
{
	unsigned int k = 2 + rng_below(&t->rng, 15), i, opened = 0;
	struct { int fd; __u32 id; } f[16];
	size_t ps = fz_ps(t);
	char what[128];

	pins_make_room(t, FZ_HEADROOM);
	for (i = 0; i < k; i++) {
		struct gup_pin_req req = {
			.addr = (unsigned long)slot_addr(t, FZ_BIG, rng_below(&t->rng, 64)),
			.len = ps * (1 + rng_below(&t->rng, 4)),
		};
		struct abi_call c;
		int err;

		f[i].fd = fz_open();
		f[i].id = 0;
		if (f[i].fd < 0) {
			fz_fail(t, "open %s: %s", GUP_PIN_TEST_DEVICE, errno_name(-f[i].fd));
			break;
		}
		opened++;
		if (rng_pct(&t->rng, 30))
			continue;
		rnd_quiet_mix(t, &req.method, &req.flags);
		big_pin_call(t, req.len / ps, req.method, req.flags, &c);
		err = fz_ioctl(t, f[i].fd, GUP_PIN_IOC_PIN, &req);
		snprintf(what, sizeof(what), "PIN of written anon memory through fd %u of %u", i, k);
		if (fz_judge(t, &c, err, what) && !err)
			f[i].id = req.id;
	}
	/* an id is found only through its own file */
	for (i = 1; i < opened; i++) {
		struct abi_call c = { .ioctl = ABI_STATE, .unknown_id = true };
		struct gup_pin_state_req r = { .id = f[i - 1].id };

		if (!f[i - 1].id)
			continue;
		snprintf(what, sizeof(what), "STATE id %u through another open file", r.id);
		fz_judge(t, &c, fz_ioctl(t, f[i].fd, GUP_PIN_IOC_STATE, &r), what);
	}
	/* close in a random order, some pins unpinned first */
	while (opened) {
		i = rng_below(&t->rng, opened);
		if (f[i].id && rng_pct(&t->rng, 30))
			fz_unpin_id(t, f[i].fd, f[i].id, 0);
		close(f[i].fd);
		f[i] = f[--opened];
	}
}

/* ---- userfaultfd: a blocked user page while another thread acts ---- */

enum fz_uffd_kind { UF_PIN, UF_WRITE_BUF, UF_READ_BUF, UF_STATE_OUT, UF_PIN_REQ, UF_COUNT };

struct fz_uffd_job {
	struct fz_thread *t;
	enum fz_uffd_kind kind;
	int fd;
	unsigned long arg;		/* the ioctl's argument */
	unsigned long cmd;
	int err;			/* the answer */
};

static void *uffd_helper(void *arg)
{
	struct fz_uffd_job *j = arg;

	j->err = ioctl(j->fd, j->cmd, (void *)j->arg) < 0 ? errno : 0;
	return NULL;
}

/* Resolve the whole region: fill it with a copy of @src (one page each). */
static void uffd_fill(int uffd, char *region, size_t len, const char *src, size_t ps)
{
	size_t off;

	for (off = 0; off < len; off += ps) {
		struct uffdio_copy cp = {
			.dst = (unsigned long)region + off, .src = (unsigned long)src,
			.len = ps,
		};

		/* EEXIST: that page is there already */
		ioctl(uffd, UFFDIO_COPY, &cp);
	}
}

/*
 * A method and flags whose GUP call waits for a blocked userfaultfd page on
 * this kernel (abi_gup_waits(): the others get SIGBUS, and a DEBUG_VM
 * kernel prints a stack) and that no policy expects a WARN for on
 * anonymous memory.  FOLL_LONGTERM waits on 6.12 only.
 */
static void uffd_mix(struct fz_thread *t, unsigned int *method, unsigned int *flags)
{
	bool refuse, report;
	int tries;

	for (tries = 0; tries < 32; tries++) {
		*method = rng_below(&t->rng, GUP_PIN_METHOD_COUNT);
		*flags = rnd_flags(t) & ~GUP_PIN_FLAG_ALLOW_BROKEN;
		if (!abi_gup_waits(t->g->kernel, *method, *flags))
			continue;
		policy_pin_outlook(t->g->policy, *method, *flags, BACKING_ANON,
				   &refuse, &report);
		if (!report)
			return;
	}
	*method = GUP_PIN_METHOD_PIN_FAST;
	*flags = 0;
}

static void op_uffd(struct fz_thread *t)
{
	size_t ps = fz_ps(t), len = ps * (1 + rng_below(&t->rng, 8));
	char *region = slot_addr(t, FZ_UFFD, 0), *src = t->iobuf, what[192];
	static const char * const what_of[UF_COUNT] = {
		"PIN", "WRITE from", "READ into", "STATE into", "PIN request",
	};
	struct fz_uffd_job j = { .t = t, .fd = t->fd[1] };
	struct gup_pin_req req = { 0 }, *reqp = &req;
	struct gup_pin_io io = { 0 };
	struct gup_pin_state_req sr = { 0 };
	struct abi_call c = { .may_block = true, .buf_maybe_faults = true };
	struct pollfd pfd;
	char mix[96];
	bool closed = false, blocked, target_gone = false;
	__u32 target = 0;
	unsigned int i;
	pthread_t th;
	int uffd;

	if (!t->g->have_uffd) {
		t->skipped[t->op]++;
		return;
	}
	uffd = uffd_open();
	if (uffd < 0) {
		t->skipped[t->op]++;
		return;
	}
	if (mmap(region, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) == MAP_FAILED || uffd_register(uffd, region, len)) {
		close(uffd);
		slot_reserve(t, FZ_UFFD);
		t->skipped[t->op]++;
		return;
	}
	j.kind = rng_below(&t->rng, UF_COUNT);
	/* a writable pin of written anon memory for the kinds that need one */
	if (j.kind != UF_PIN && j.kind != UF_PIN_REQ) {
		struct fz_pin_try p = {
			.fdi = 1, .addr = (unsigned long)slot_addr(t, FZ_BIG, 0),
			.len = ps * (1 + rng_below(&t->rng, 2)),
			.method = GUP_PIN_METHOD_PIN_FAST, .flags = GUP_PIN_FLAG_WRITE,
		};

		pins_make_room(t, 2);
		if (pin_try(t, &p) || !t->npins || t->pins[t->npins - 1].id == 0) {
			close(uffd);
			slot_reserve(t, FZ_UFFD);
			return;
		}
		target = t->pins[t->npins - 1].id;
	}
	/* the request, its answer judged with what the race may do */
	memset(src, 0, ps);
	switch (j.kind) {
	case UF_PIN:
	case UF_PIN_REQ:
		pins_make_room(t, len / ps);
		req.addr = (unsigned long)region;
		req.len = len;
		uffd_mix(t, &req.method, &req.flags);
		c.ioctl = ABI_PIN;
		c.requested = len / ps;
		c.takeable = c.requested;
		if (j.kind == UF_PIN_REQ) {
			/* the request itself in the blocked page; its copy in src */
			memcpy(src, &req, sizeof(req));
			reqp = (struct gup_pin_req *)region;
			c.malformed = false;
		}
		j.cmd = GUP_PIN_IOC_PIN;
		j.arg = (unsigned long)reqp;
		break;
	case UF_WRITE_BUF:
	case UF_READ_BUF:
		io.id = target;
		io.len = FZ_MIN(len, ps);
		io.buf = (unsigned long)region;
		c.ioctl = j.kind == UF_WRITE_BUF ? ABI_WRITE : ABI_READ;
		c.write_maybe_refused = j.kind == UF_WRITE_BUF &&
					pin_maybe_shared(t, &t->pins[t->npins - 1]);
		j.cmd = j.kind == UF_WRITE_BUF ? GUP_PIN_IOC_WRITE : GUP_PIN_IOC_READ;
		j.arg = (unsigned long)&io;
		break;
	default:
		sr.id = target;
		sr.count = 1;
		sr.pages = (unsigned long)region;
		c.ioctl = ABI_STATE;
		j.cmd = GUP_PIN_IOC_STATE;
		j.arg = (unsigned long)&sr;
	}
	if (pthread_create(&th, NULL, uffd_helper, &j)) {
		close(uffd);
		slot_reserve(t, FZ_UFFD);
		t->skipped[t->op]++;
		return;
	}
	pfd = (struct pollfd){ .fd = uffd, .events = POLLIN };
	blocked = poll(&pfd, 1, FZ_UFFD_WAIT_MS) == 1;
	/* the race: while the helper waits inside the driver (it holds the pin) */
	switch (blocked ? rng_below(&t->rng, 3) : 2) {
	case 0:
		if (target) {
			for (i = 0; i < t->npins && t->pins[i].id != target; i++)
				;
			if (i < t->npins)
				pin_release(t, i);
			target_gone = true;
		}
		break;
	case 1:
		if (t->fd[1] != t->fd[0]) {
			int nfd = fz_open();

			if (nfd >= 0) {
				close(t->fd[1]);
				pins_forget_fd(t, 1);
				t->fd[1] = nfd;
				closed = true;
				target_gone = true;
			}
		}
		break;
	}
	if (rng_pct(&t->rng, 50))
		uffd_fill(uffd, region, len, src, ps);
	else
		c.malformed = j.kind == UF_PIN_REQ;	/* zeros: len 0 */
	close(uffd);
	pthread_join(th, NULL);
	if (j.kind == UF_PIN_REQ && !c.malformed)
		c.maybe_malformed = true;	/* filled or zeros, the race decides */
	snprintf(what, sizeof(what), "%s%s through a userfaultfd page (%s, %s)",
		 what_of[j.kind], j.cmd == GUP_PIN_IOC_PIN ? pin_mix_str(&req, mix, sizeof(mix)) : "",
		 blocked ? "blocked" : "not blocked",
		 closed ? "its fd closed meanwhile" : target_gone ? "its pin unpinned meanwhile" :
		 "nothing else");
	fz_judge(t, &c, j.err, what);
	/* a pin made through a closed fd went with the file */
	if ((j.kind == UF_PIN || j.kind == UF_PIN_REQ) && !j.err && reqp->id && !closed)
		fz_unpin_id(t, t->fd[1], reqp->id, 0);
	slot_reserve(t, FZ_UFFD);
}

/* ---- max_pages_total exactly and one past (every other thread waits) ---- */

/* The debugfs "total" counter @key, or -1. */
static long long debugfs_total(const char *key)
{
	char buf[4096], pat[64], *p;

	if (gupdev_debugfs_read("counters", buf, sizeof(buf)) < 0)
		return -1;
	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(buf, pat);
	return p && !strncmp(buf, "total ", 6) ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/*
 * The FOLL_PIN pins the kernel holds, every caller together:
 * nr_foll_pin_acquired - nr_foll_pin_released of /proc/vmstat (mm/gup.c's
 * node_stat_mod_folio() calls, 6.1 mm/gup.c:176,190), once a write to
 * vm.stat_refresh has folded each CPU's share in (mm/vmstat.c:1871
 * vmstat_refresh), so that both are exact.  BENCH pins and unpins within
 * one ioctl, where debugfs never sees its pages: this is what would see
 * one it kept.  -1 if unreadable.  (get_user_pages() references have no
 * such counter.)
 */
static long long foll_pins_held(void)
{
	long long acq = -1, rel = -1, v;
	char key[64], line[128];
	FILE *f;
	int fd;

	fd = open("/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, "1\n", 2) != 2) {
		close(fd);
		return -1;
	}
	close(fd);
	f = fopen("/proc/vmstat", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", key, &v) == 2) {
			if (!strcmp(key, "nr_foll_pin_acquired"))
				acq = v;
			else if (!strcmp(key, "nr_foll_pin_released"))
				rel = v;
		}
	fclose(f);
	return acq < 0 || rel < 0 ? -1 : acq - rel;
}

static void op_total(struct fz_thread *t)
{
	unsigned long total = t->g->ver.max_pages_total;
	unsigned int per_pin = t->g->ver.max_pages_per_pin, chunk, nids = 0, i;
	size_t ps = fz_ps(t);
	__u32 *ids = NULL;
	long long held;
	char what[160];

	if (!t->g->have_debugfs || t->report_fd >= 0) {
		t->skipped[t->op]++;
		return;
	}
	chunk = FZ_MIN(per_pin, FZ_SLOT_PAGES);
	pthread_rwlock_unlock(&t->g->excl);
	pthread_rwlock_wrlock(&t->g->excl);
	held = debugfs_total("pages_pinned");
	/* a total too large to fill in a reasonable time is not tried */
	if (held >= 0 && (total - held) / chunk <= 1024)
		ids = calloc((total - held) / chunk + 2, sizeof(*ids));
	if (!ids) {
		t->skipped[t->op]++;
		goto out;
	}
	/* fill up to max_pages_total exactly */
	for (unsigned long left = total - held; left; ) {
		unsigned int n = FZ_MIN(left, chunk);
		struct gup_pin_req req = {
			.addr = (unsigned long)slot_addr(t, FZ_BIG, 0), .len = n * ps,
			.method = GUP_PIN_METHOD_PIN_FAST,
		};
		struct abi_call c = { .ioctl = ABI_PIN, .requested = n, .takeable = n };
		int err = fz_ioctl(t, t->fd[1], GUP_PIN_IOC_PIN, &req);

		snprintf(what, sizeof(what), "PIN %u pages, %lu of max_pages_total %lu left",
			 n, left, total);
		if (!fz_judge(t, &c, err, what) || err)
			goto out;
		if (req.nr_pinned != n) {
			if (!fz_short_by_injection(t, n, req.nr_pinned))
				fz_fail(t, "%s: %u pages pinned", what, req.nr_pinned);
			if (req.id)
				ids[nids++] = req.id;
			goto out;
		}
		ids[nids++] = req.id;
		left -= n;
	}
	/* full: one page more is ENOSPC, max_pages_per_pin + 1 still E2BIG */
	for (i = 0; i < 2; i++) {
		unsigned int n = i ? per_pin + 1 : 1;
		struct gup_pin_req req = {
			.addr = (unsigned long)slot_addr(t, FZ_BIG, 0), .len = n * ps,
			.method = GUP_PIN_METHOD_PIN,
		};
		struct abi_call c = { .ioctl = ABI_PIN, .requested = n, .takeable = n,
				      .over_total = !i, .over_per_pin = i };
		int err = fz_ioctl(t, t->fd[1], GUP_PIN_IOC_PIN, &req);

		snprintf(what, sizeof(what), "PIN %u pages with max_pages_total (%lu) reached",
			 n, total);
		if (!fz_judge(t, &c, err, what) && !err && req.id)
			ids[nids++] = req.id;
	}
	/* one chunk back, the same again: exactly at the limit once more */
	if (nids && !fz_unpin_id(t, t->fd[1], ids[nids - 1], 0)) {
		struct gup_pin_req req = {
			.addr = (unsigned long)slot_addr(t, FZ_BIG, 0),
			.method = GUP_PIN_METHOD_GET_FAST,
		};
		struct abi_call c = { .ioctl = ABI_PIN };
		long long now = debugfs_total("pages_pinned");
		int err;

		nids--;
		c.requested = FZ_MIN(total - now, chunk);
		c.takeable = c.requested;
		req.len = c.requested * ps;
		err = fz_ioctl(t, t->fd[1], GUP_PIN_IOC_PIN, &req);
		snprintf(what, sizeof(what), "PIN the last %u pages up to max_pages_total",
			 c.requested);
		if (fz_judge(t, &c, err, what) && !err && req.id)
			ids[nids++] = req.id;
		if (!err && debugfs_total("pages_pinned") != (long long)total)
			fz_fail(t, "debugfs pages_pinned is %lld, max_pages_total %lu, after filling it",
				debugfs_total("pages_pinned"), total);
	}
out:
	for (i = 0; i < nids; i++)
		fz_unpin_id(t, t->fd[1], ids[i], 0);
	free(ids);
	pthread_rwlock_unlock(&t->g->excl);
	pthread_rwlock_rdlock(&t->g->excl);
}

/* ---- VERSION, unknown ioctls, faulting argument pointers ---- */

static void op_misc(struct fz_thread *t)
{
	struct abi_call c = { 0 };
	struct gup_pin_version v;
	int fd = t->fd[rng_below(&t->rng, 2)], err;
	char *guard = t->iobuf + 2 * fz_ps(t);
	void *bad = rng_pct(&t->rng, 50) ? NULL : guard;

	switch (rng_below(&t->rng, 6)) {
	case 0:
		c.ioctl = ABI_VERSION;
		memset(&v, 0xa5, sizeof(v));
		err = fz_ioctl(t, fd, GUP_PIN_IOC_VERSION, &v);
		if (fz_judge(t, &c, err, "VERSION") && !err &&
		    (v.abi_version != t->g->ver.abi_version ||
		     v.max_pages_per_pin != t->g->ver.max_pages_per_pin ||
		     v.max_pages_total != t->g->ver.max_pages_total ||
		     v.features != t->g->ver.features))
			fz_fail(t, "VERSION answered differently from the first time");
		break;
	case 1:
		c.ioctl = ABI_VERSION;
		c.out_faults = true;
		fz_judge(t, &c, fz_ioctl(t, fd, GUP_PIN_IOC_VERSION, bad),
			 "VERSION into a faulting pointer");
		break;
	case 2: {
		static const unsigned long cmds[] = {
			_IO(GUP_PIN_IOC_TYPE, 0x3f), _IO(GUP_PIN_IOC_TYPE, 0x46),
			_IOWR(GUP_PIN_IOC_TYPE, 0x41, char[7]),
			_IOW(GUP_PIN_IOC_TYPE, 0x44, __u64[3]), _IO('Z', 0x99),
		};

		c.ioctl = ABI_UNKNOWN;
		fz_judge(t, &c, fz_ioctl(t, fd, cmds[rng_below(&t->rng, ARRAY_SIZE(cmds))],
					 t->iobuf), "an ioctl number the driver does not know");
		break;
	}
	case 3: {
		static const unsigned long cmds[] = {
			GUP_PIN_IOC_PIN, GUP_PIN_IOC_WRITE, GUP_PIN_IOC_READ,
			GUP_PIN_IOC_UNPIN, GUP_PIN_IOC_STATE, GUP_PIN_IOC_BENCH,
		};
		static const enum abi_ioctl kinds[] = {
			ABI_PIN, ABI_WRITE, ABI_READ, ABI_UNPIN, ABI_STATE, ABI_BENCH,
		};
		unsigned int k = rng_below(&t->rng, ARRAY_SIZE(cmds));

		c.ioctl = kinds[k];
		c.arg_faults = true;
		fz_judge(t, &c, fz_ioctl(t, fd, cmds[k], bad), "an argument pointer that faults");
		break;
	}
	default: {
		/*
		 * PIN whose answer cannot be copied back (a PROT_READ page):
		 * EFAULT, or GUP's own error, and no pin kept.
		 */
		struct fz_pin_try p = { .fdi = 1, .req_at = t->ropage, .out_faults = true };
		struct gup_pin_req req = { 0 };
		bool refuse, report;
		unsigned int n;

		rnd_range(t, &p.addr, &n);
		p.len = (unsigned long long)n * fz_ps(t);
		rnd_quiet_mix(t, &p.method, &p.flags);
		pin_outlook(t, p.addr, n, p.method, p.flags, &refuse, &report);
		if (report) {
			t->skipped[t->op]++;
			break;
		}
		req.addr = p.addr;
		req.len = p.len;
		req.method = p.method;
		req.flags = p.flags;
		if (mprotect(t->ropage, fz_ps(t), PROT_READ | PROT_WRITE) == 0) {
			memcpy(t->ropage, &req, sizeof(req));
			mprotect(t->ropage, fz_ps(t), PROT_READ);
			pins_make_room(t, n);
			pin_try(t, &p);
		}
	}
	}
}

/* ---- BENCH: timed pins that nothing outlives ---- */

/* Spoil one field of a BENCH request: EINVAL (gpt_check_bench_req()). */
static void bench_spoil(struct fz_thread *t, struct gup_pin_bench *b)
{
	switch (rng_below(&t->rng, 7)) {
	case 0: b->nr_per_call = 0; break;
	case 1: b->nr_taken = 1; break;
	case 2: b->pin_ns = 1; break;
	case 3: b->unpin_ns = 1ULL << 40; break;
	case 4: b->err = EFAULT; break;
	case 5: b->reserved[rng_below(&t->rng, 3)] = 1; break;
	default: b->addr |= 1 + rng_below(&t->rng, fz_ps(t) - 1); break;
	}
}

/*
 * BENCH on the thread's memory, now and then malformed or with an answer
 * that cannot be copied back.  The ioctl is judged as BENCH (its own
 * checks, then ENOMEM); GUP's answer, the err field, as a PIN's GUP
 * answer of the same pages; nr_taken as a PIN's nr_pinned.  Nothing may
 * outlive it: debugfs never sees BENCH's pages, final_check() the
 * kernel's FOLL_PIN balance does (foll_pins_held()).
 */
static void op_bench(struct fz_thread *t)
{
	struct fz_pin_try p = { .fdi = rng_below(&t->rng, 2) };
	struct gup_pin_bench *b = &(struct gup_pin_bench){ 0 };
	struct abi_call c, gup = { 0 };
	char what[192], m[32], f[48];
	const char *bad;
	bool ro;
	unsigned int n, i;
	int err;

	rnd_range(t, &p.addr, &n);
	if (!rnd_gup_call(t, &p, n))
		return;
	/* the facts once the room is made: held counts in total_maybe */
	pins_make_room(t, n);
	p.bench = true;
	pin_facts(t, &p, &gup);
	c = gup;
	c.ioctl = ABI_BENCH;
	b->addr = p.addr;
	b->len = p.len;
	b->method = p.method;
	b->flags = p.flags;
	b->nr_per_call = 1 + rng_below(&t->rng, n + 1);
	if (rng_pct(&t->rng, 15)) {
		bench_spoil(t, b);
		c.malformed = true;
	}
	ro = rng_pct(&t->rng, 5) &&
	     mprotect(t->ropage, fz_ps(t), PROT_READ | PROT_WRITE) == 0;
	if (ro) {
		memcpy(t->ropage, b, sizeof(*b));
		mprotect(t->ropage, fz_ps(t), PROT_READ);
		b = (struct gup_pin_bench *)t->ropage;
		c.out_faults = true;
	}
	snprintf(what, sizeof(what),
		 "BENCH fd%d addr %#llx len %#llx (%u pages) %s flags %s nr_per_call %u%s%s",
		 p.fdi, (unsigned long long)b->addr, (unsigned long long)b->len, n,
		 method_str(p.method, m, sizeof(m)), gup_flags_str(p.flags, f, sizeof(f)),
		 b->nr_per_call, c.malformed ? " malformed" : "", ro ? " answer read-only" : "");
	err = fz_ioctl(t, t->fd[p.fdi], GUP_PIN_IOC_BENCH, b);
	if (!fz_judge(t, &c, err, what) || err)
		return;
	if (b->err && !fz_judge(t, &gup, b->err, "BENCH's GUP call"))
		return;
	bad = abi_pin_result(&gup, n, b->nr_taken, b->nr_taken);
	if (bad && fz_short_by_injection(t, n, b->nr_taken))
		bad = NULL;
	if (bad) {
		fz_fail(t, "%s -> nr_taken %u err %u: %s", what, b->nr_taken, b->err, bad);
		return;
	}
	/* a private page written by GUP is the thread's own copy now */
	for (i = 0; (p.flags & GUP_PIN_FLAG_WRITE) && i < b->nr_taken; i++) {
		struct fz_where w;

		fz_where(t, p.addr + i * fz_ps(t), &w);
		if (w.slot >= 0)
			t->slot[w.slot].maybe_zero[w.page] = false;
	}
}

/* ---- The threads ---- */

static void op_dispatch(struct fz_thread *t, enum fz_op op)
{
	static void (*const run[FZ_OP_COUNT])(struct fz_thread *t) = {
		[FZ_PIN] = op_pin, [FZ_PIN_BAD] = op_pin_bad, [FZ_PIN_LIMIT] = op_pin_limit,
		[FZ_UNPIN] = op_unpin, [FZ_UNPIN_BAD] = op_unpin_bad, [FZ_IO] = op_io,
		[FZ_STATE] = op_state, [FZ_VMA] = op_vma, [FZ_FORK] = op_fork,
		[FZ_SCM] = op_pass, [FZ_FDS] = op_fds, [FZ_KILL] = op_kill,
		[FZ_UFFD_OP] = op_uffd, [FZ_TOTAL] = op_total, [FZ_MISC] = op_misc,
		[FZ_BENCH] = op_bench,
	};
	enum fz_op saved = t->op;

	t->op = op;
	t->done[op]++;
	run[op](t);
	t->op = saved;
}

static enum fz_op rnd_op(struct fz_thread *t)
{
	unsigned int sum = 0, r, i;

	for (i = 0; i < FZ_OP_COUNT; i++)
		sum += fz_ops[i].weight;
	r = rng_below(&t->rng, sum);
	for (i = 0; r >= fz_ops[i].weight; i++)
		r -= fz_ops[i].weight;
	return i;
}

/* A memfd of @pages pages, sized; -errno.  Huge: 2 MiB pages. */
static int memfd_sized(bool huge, size_t bytes)
{
	int fd = memfd_create(huge ? "gupctl-fuzz-huge" : "gupctl-fuzz",
			      MFD_CLOEXEC | (huge ? MFD_HUGETLB | MFD_HUGE_2MB : 0));

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, bytes)) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

/* The thread's memory, files and buffers.  0 or -errno (a setup failure). */
static int thread_setup(struct fz_thread *t)
{
	size_t ps = fz_ps(t), slot_bytes = FZ_SLOT_PAGES * ps, i;
	char *p;

	t->report_fd = -1;
	t->mif_fd = -1;
	t->memfd = -1;
	t->hugefd = -1;
	t->filefd = -1;
	t->file_rofd = -1;
	/* slots 2 MiB aligned (a hugetlb page fits): reserve one more */
	p = mmap(NULL, (FZ_NR_SLOTS + 1) * slot_bytes, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	t->arena = (char *)(((unsigned long)p + slot_bytes - 1) & ~(slot_bytes - 1));
	for (i = 0; i < FZ_NR_SLOTS; i++) {
		t->slot[i].base = t->arena + i * slot_bytes;
		slot_reserve(t, i);
	}
	t->iobuf = mmap(NULL, 4 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t->st = mmap(NULL, FZ_STATE_MAX * sizeof(*t->st) + 2 * ps, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->iobuf == MAP_FAILED || t->st == MAP_FAILED)
		return -ENOMEM;
	/* guards right after the buffers, and a read-only page */
	mprotect(t->iobuf + 2 * ps, ps, PROT_NONE);
	t->ropage = t->iobuf + 3 * ps;
	mprotect(t->ropage, ps, PROT_READ);
	{
		size_t sb = FZ_STATE_MAX * sizeof(*t->st);
		char *end = (char *)t->st + ((sb + ps - 1) & ~(ps - 1));

		mprotect(end, ps, PROT_NONE);
		t->st = (struct gup_page_state *)(end - sb);
	}
	/* the big slot: written anon memory, always all there */
	if (mmap(t->slot[FZ_BIG].base, slot_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return -errno;
	memset(t->slot[FZ_BIG].base, 'b', slot_bytes);
	t->slot[FZ_BIG].nsegs = 1;
	t->slot[FZ_BIG].segs[0] = (struct fz_seg){ .npages = FZ_SLOT_PAGES, .mem = FZ_ANON,
						   .prot = PROT_READ | PROT_WRITE };
	memset(t->slot[FZ_BIG].page, 0, FZ_SLOT_PAGES);
	memset(t->slot[FZ_BIG].maybe_zero, 0, FZ_SLOT_PAGES);
	t->memfd = memfd_sized(false, FZ_FILE_PAGES * ps);
	if (t->memfd < 0)
		return t->memfd;
	if (t->g->have_hugetlb)
		t->hugefd = memfd_sized(true, FZ_HUGE_PAGES * slot_bytes);
	if (t->g->have_ext4) {
		/* written through write(): every page has buffers, no hole */
		snprintf(t->path, sizeof(t->path), "%s/gupctl-fuzz-%d-%u", t->g->ext4_dir,
			 (int)getpid(), t->n);
		t->filefd = open(t->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (t->filefd < 0)
			return -errno;
		for (i = 0; i < FZ_FILE_PAGES; i++) {
			memset(t->iobuf, 'A' + i % 26, ps);
			if (write(t->filefd, t->iobuf, ps) != (ssize_t)ps)
				return -EIO;
		}
		t->file_rofd = open(t->path, O_RDONLY | O_CLOEXEC);
		if (t->file_rofd < 0)
			return -errno;
	}
	for (i = 0; i < FZ_SLOTS; i++)
		if (slot_build(t, i))
			return -errno;
	if (t->g->inject) {
		/* this thread's own file: thread_setup() runs in the thread */
		t->mif_fd = open("/proc/thread-self/make-it-fail", O_WRONLY | O_CLOEXEC);
		if (t->mif_fd < 0)
			return -errno;
	}
	t->fd[0] = t->g->shared_fd;
	t->fd[1] = fz_open();
	return t->fd[1] < 0 ? t->fd[1] : 0;
}

static void thread_teardown(struct fz_thread *t)
{
	while (t->npins) {
		struct fz_pin *p = &t->pins[--t->npins];

		free(p->kinds);
		free(p->index);
	}
	free(t->pins);
	t->pins = NULL;
	t->held = 0;
	if (t->mif_fd >= 0)
		close(t->mif_fd);
	t->mif_fd = -1;
	/* pins still held go with the files: released_on_close */
	if (t->fd[1] >= 0 && t->fd[1] != t->g->shared_fd)
		close(t->fd[1]);
	t->fd[1] = -1;
	if (t->path[0])
		unlink(t->path);
	if (t->filefd >= 0)
		close(t->filefd);
	if (t->file_rofd >= 0)
		close(t->file_rofd);
	if (t->memfd >= 0)
		close(t->memfd);
	if (t->hugefd >= 0)
		close(t->hugefd);
}

static void *thread_main(void *arg)
{
	struct fz_thread *t = arg;
	int ret;

	fz_current = t;
	ret = thread_setup(t);
	if (ret) {
		t->op = FZ_PIN;
		fz_fail(t, "cannot set up the thread's memory and fd: %s (%s)", errno_name(ret),
			strerror(-ret));
		thread_teardown(t);
		return NULL;
	}
	pthread_rwlock_rdlock(&t->g->excl);
	for (t->opno = 1; t->opno <= t->ops; t->opno++) {
		op_dispatch(t, rnd_op(t));
		/* let a thread that waits for the exclusive lock in */
		if (!(t->opno % 64)) {
			pthread_rwlock_unlock(&t->g->excl);
			pthread_rwlock_rdlock(&t->g->excl);
		}
	}
	/* its files' pins go now, not while another thread counts them */
	thread_teardown(t);
	pthread_rwlock_unlock(&t->g->excl);
	return NULL;
}

/* ---- The run ---- */

static struct fz_global *fz_run;

static void print_replay(const struct fz_global *g);

/*
 * The fuzzer itself crashed (a bug of the fuzzer, or memory the kernel
 * broke): say where, and how to replay it.
 */
static void fz_crash(int sig)
{
	struct fz_thread *t = fz_current;
	char msg[160];
	int len;

	len = snprintf(msg, sizeof(msg), "# CRASH: signal %d in thread %d op %lu (%s)\n", sig,
		       t ? (int)t->n : -1, t ? t->opno : 0, t ? fz_ops[t->op].name : "-");
	if (write(STDOUT_FILENO, msg, len) < 0)
		_exit(128 + sig);
	if (fz_run && (!t || t->report_fd == -1))
		print_replay(fz_run);
	fflush(stdout);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * [vdso] and [vvar] in /proc/self/smaps, and what [vvar] is to GUP, read
 * from its VmFlags rather than assumed: up to 6.12 a VM_IO|VM_PFNMAP
 * special mapping ("io", "pf"), which check_vma_flags() refuses; 7.3's
 * generic vDSO data store maps real pages into a VM_MIXEDMAP one ("mm":
 * lib/vdso/datastore.c:89, 125-127), which a read pin takes (the x86
 * clock pages moved to [vvar_vclock], still VM_IO|VM_PFNMAP, and the
 * fuzzer leaves them alone).
 */
static void find_vdso(struct fz_global *g)
{
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "re");
	unsigned long a, b;
	bool in_vvar = false;

	g->vdso = getauxval(AT_SYSINFO_EHDR);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2) {
			in_vvar = strstr(line, "[vvar]") != NULL;
			if (in_vvar) {
				g->vvar = a;
				g->vvar_pages = (b - a) / g->ps;
			}
		} else if (in_vvar && !strncmp(line, "VmFlags:", 8)) {
			g->vvar_io_pfnmap = strstr(line, " io") || strstr(line, " pf");
		}
	}
	fclose(f);
}

static void probe_memory(struct fz_global *g)
{
	struct statfs sfs;
	int fd;

	g->have_ext4 = statfs(g->ext4_dir, &sfs) == 0 && sfs.f_type == 0xEF53 &&
		       access(g->ext4_dir, W_OK) == 0;
	if (!g->have_ext4)
		snprintf(g->no_ext4, sizeof(g->no_ext4), "%s is not a writable ext4 directory",
			 g->ext4_dir);
	fd = memfd_sized(true, FZ_HUGE_PAGES * FZ_SLOT_PAGES * g->ps);
	g->have_hugetlb = fd >= 0;
	if (fd >= 0) {
		/* the pages must really be there: a mapping faults them in */
		void *p = mmap(NULL, FZ_HUGE_PAGES * FZ_SLOT_PAGES * g->ps,
			       PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		g->have_hugetlb = p != MAP_FAILED;
		if (p != MAP_FAILED)
			munmap(p, FZ_HUGE_PAGES * FZ_SLOT_PAGES * g->ps);
		close(fd);
	}
	if (!g->have_hugetlb)
		snprintf(g->no_hugetlb, sizeof(g->no_hugetlb),
			 "no 2 MiB huge pages (memfd_create(MFD_HUGETLB) or its mmap failed: %s)",
			 errno_name(fd < 0 ? fd : -errno));
	fd = uffd_open();
	g->have_uffd = fd >= 0;
	if (fd >= 0)
		close(fd);
	else
		snprintf(g->no_uffd, sizeof(g->no_uffd), "userfaultfd(2): %s", errno_name(fd));
	g->have_debugfs = debugfs_total("pages_pinned") >= 0;
	g->foll_pins_start = foll_pins_held();
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	g->have_unix = fd >= 0;
	if (fd >= 0)
		close(fd);
}

static int parse_seed(const struct gopt *opt, const char *arg)
{
	struct fz_global *g = opt->data;
	char *end;

	errno = 0;
	g->seed = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || arg[0] == '-')
		return usage_error("fuzz", "bad --seed '%s': give a number (decimal or 0x hex)",
				   arg);
	return 0;
}

/* What debugfs and the kernel say once every fd is closed. */
struct fz_left {
	bool checked;			/* debugfs was readable */
	bool ok;			/* no pin, no page held (or not checked) */
	long long pins_live, pages_pinned;
	char pins[96];			/* the start of debugfs "pins" */
	bool foll_checked;		/* /proc/vmstat's FOLL_PIN counters were readable */
	long long foll_pins;		/* FOLL_PIN pins held now less at the start */
};

static const char *foll_pins_str(const struct fz_left *l, char *buf, size_t size)
{
	if (l->foll_checked)
		snprintf(buf, size, "FOLL_PIN page references kept, kernel-wide: %lld",
			 l->foll_pins);
	else
		snprintf(buf, size, "FOLL_PIN balance unreadable");
	return buf;
}

/* Close every fd, then no pin may be left (debugfs counters). */
static void final_check(struct fz_global *g, struct fz_left *l)
{
	close(g->shared_fd);
	g->shared_fd = -1;
	memset(l, 0, sizeof(*l));
	l->ok = true;
	if (!g->have_debugfs)
		return;
	l->checked = true;
	l->pins_live = debugfs_total("pins_live");
	l->pages_pinned = debugfs_total("pages_pinned");
	if (gupdev_debugfs_read("pins", l->pins, sizeof(l->pins)) < 0)
		snprintf(l->pins, sizeof(l->pins), "?");
	if (g->foll_pins_start >= 0) {
		l->foll_pins = foll_pins_held();
		l->foll_checked = l->foll_pins >= 0;
		l->foll_pins -= g->foll_pins_start;
	}
	l->ok = !l->pins_live && !l->pages_pinned && !l->pins[0] &&
		(!l->foll_checked || l->foll_pins <= 0);
}

/* The command that replays this run (each thread's requests, not their interleaving). */
static const char *replay_cmd(const struct fz_global *g, char *buf, size_t size)
{
	bool dir = strcmp(g->ext4_dir, LAB_EXT4_DIR);

	snprintf(buf, size, "gupctl fuzz --seed %#" PRIx64 " --ops %u --threads %u --policy %s%s%s%s",
		 g->seed, g->ops, g->threads, g->policy_name, dir ? " --ext4-dir " : "",
		 dir ? g->ext4_dir : "",
		 g->inject ? " --inject" : "");
	return buf;
}

static void print_replay(const struct fz_global *g)
{
	char cmd[512];

	printf("# replay: %s\n", replay_cmd(g, cmd, sizeof(cmd)));
}

/* What a run did, summed over the threads. */
struct fz_totals {
	unsigned long done[FZ_OP_COUNT], errs[FZ_OP_COUNT];
	unsigned long skipped[FZ_OP_COUNT], failed[FZ_OP_COUNT];
	unsigned long injected[FZ_OP_COUNT];
	unsigned long ops, ioctls, failures;
	double secs;
	struct fz_left left;
};

static void fz_sum(const struct fz_global *g, struct fz_totals *r)
{
	unsigned int i, k;

	for (i = 0; i < g->threads; i++) {
		const struct fz_thread *t = &g->t[i];

		for (k = 0; k < FZ_OP_COUNT; k++) {
			r->done[k] += t->done[k];
			r->errs[k] += t->errs[k];
			r->skipped[k] += t->skipped[k];
			r->failed[k] += t->failed[k];
			r->injected[k] += t->injected[k];
			r->ops += t->done[k];
			r->failures += t->failed[k];
		}
		r->ioctls += t->ioctls;
	}
}

static const char * const fz_kernel_names[POLICY_KERNEL_COUNT] = {
	[POLICY_KERNEL_61] = "6.1",
	[POLICY_KERNEL_612] = "6.12",
	[POLICY_KERNEL_73] = "7.3",
};

/* Add @more's fields to @doc; NULL (and @doc freed) if either is NULL. */
static json_t *json_merge(json_t *doc, json_t *more)
{
	if (!doc) {
		json_decref(more);
		return NULL;
	}
	if (json_object_update_new(doc, more)) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* A memory kind the run could not use: {what, why}. */
static void json_not_fuzzed(json_t *arr, bool have, const char *what, const char *why)
{
	if (!have)
		json_array_append_new(arr, json_pack("{s:s, s:s}", "what", what, "why", why));
}

/* --json: the run's summary, with named fields (docs/gupctl.md). */
static int fz_json(const struct fz_global *g, const struct fz_totals *r, FILE *f,
		   const char *path)
{
	json_t *kinds = json_array(), *shown = json_array(), *nf = json_array();
	json_t *left, *doc, *more;
	char seed[24], cmd[512];
	struct utsname u;
	unsigned int k;

	for (k = 0; kinds && k < FZ_OP_COUNT; k++)
		json_array_append_new(kinds, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}",
						       "name", fz_ops[k].name,
						       "done", (json_int_t)r->done[k],
						       "errors", (json_int_t)r->errs[k],
						       "injected", (json_int_t)r->injected[k],
						       "skipped", (json_int_t)r->skipped[k],
						       "failed", (json_int_t)r->failed[k]));
	for (k = 0; shown && g->shown && k < FZ_MIN(g->printed, g->show); k++)
		if (g->shown[k])
			json_array_append_new(shown, json_string(g->shown[k]));
	if (nf) {
		json_not_fuzzed(nf, g->have_ext4, "ext4", g->no_ext4);
		json_not_fuzzed(nf, g->have_hugetlb, "hugetlb", g->no_hugetlb);
		json_not_fuzzed(nf, g->have_uffd, "userfaultfd", g->no_uffd);
	}
	left = !r->left.checked ? json_null() :
	       json_pack("{s:I, s:I, s:s, s:o}", "pins_live", (json_int_t)r->left.pins_live,
			 "pages_pinned", (json_int_t)r->left.pages_pinned,
			 "pins", r->left.pins, "foll_pins",
			 !r->left.foll_checked ? json_null() :
			 json_integer(r->left.foll_pins));
	snprintf(seed, sizeof(seed), "%#" PRIx64, g->seed);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	doc = json_pack("{s:s, s:s, s:i, s:i, s:b, s:s, s:s, s:s, s:s}",
			"command", "fuzz", "seed", seed, "ops", (int)g->ops, "inject", g->inject,
			"threads", (int)g->threads, "policy", g->policy_name,
			"kernel", fz_kernel_names[g->kernel], "kernel_release", u.release,
			"ext4_dir", g->ext4_dir);
	more = json_pack("{s:i, s:i, s:i, s:i, s:s, s:o*}",
			 "abi_version", (int)g->ver.abi_version,
			 "max_pages_per_pin", (int)g->ver.max_pages_per_pin,
			 "max_pages_total", (int)g->ver.max_pages_total,
			 "features", (int)g->ver.features,
			 "fd_passing", g->have_unix ? "SCM_RIGHTS" : "pidfd_getfd",
			 "not_fuzzed", nf);
	doc = json_merge(doc, more);
	more = json_pack("{s:f, s:I, s:I, s:f, s:I, s:o*, s:o*, s:b, s:s, s:o*}",
			 "seconds", r->secs, "ops_done", (json_int_t)r->ops,
			 "ioctls", (json_int_t)r->ioctls,
			 "ops_per_second", r->secs > 0 ? r->ops / r->secs : 0.0,
			 "failures", (json_int_t)r->failures, "failures_shown", shown,
			 "pins_left", left, "passed", !r->failures && r->left.ok,
			 "replay", replay_cmd(g, cmd, sizeof(cmd)), "kinds", kinds);
	doc = json_merge(doc, more);
	return jsonfile_dump(doc, f, path, "fuzz");
}

/* --inject: how many of the errors only an injected failure explains */
static const char *injected_str(const struct fz_global *g, unsigned long n, char *buf,
				size_t size)
{
	if (!g->inject)
		return "";
	snprintf(buf, size, " (%lu of them ENOMEM or EFAULT the ABI did not predict: injected)", n);
	return buf;
}

static int fuzz_run(struct fz_global *g, FILE *json, const char *json_path)
{
	struct fz_totals r = { 0 };
	char fp[64], inj[96];
	pthread_rwlockattr_t ra;
	struct timespec t0, t1;
	pthread_t *th;
	unsigned int i;
	int ret;

	find_vdso(g);
	probe_memory(g);
	g->cap = g->ver.max_pages_total / (2 * g->threads);
	fz_run = g;
	signal(SIGSEGV, fz_crash);
	signal(SIGBUS, fz_crash);
	printf("KTAP version 1\n");
	printf("# gupctl fuzz: seed %#" PRIx64 ", %u ops, %u threads, policy %s (%s); ABI %u, page %u, max_pages_per_pin %u, max_pages_total %u, features %#x\n",
	       g->seed, g->ops, g->threads, g->policy_name, fz_kernel_names[g->kernel],
	       g->ver.abi_version, g->ver.page_size, g->ver.max_pages_per_pin,
	       g->ver.max_pages_total, g->ver.features);
	printf("# memory: anon, shmem memfd%s%s%s; userfaultfd %s%s; fds passed by %s\n",
	       g->have_ext4 ? ", a file in " : "", g->have_ext4 ? g->ext4_dir : "",
	       g->have_hugetlb ? ", hugetlb memfd" : "", g->have_uffd ? "yes" : "no: ",
	       g->no_uffd, g->have_unix ? "SCM_RIGHTS" :
	       "pidfd_getfd(2) (no AF_UNIX in this kernel: no SCM_RIGHTS)");
	if (!g->have_ext4)
		printf("# not fuzzed: ext4 (%s)\n", g->no_ext4);
	if (!g->have_hugetlb)
		printf("# not fuzzed: hugetlb (%s)\n", g->no_hugetlb);
	printf("1..%d\n", FZ_OP_COUNT + 1);
	fflush(stdout);

	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&g->excl, &ra);
	pthread_mutex_init(&g->out, NULL);
	g->t = calloc(g->threads, sizeof(*g->t));
	/* the printed failures' messages, for --json (none kept without it) */
	if (json && g->show)
		g->shown = calloc(g->show, sizeof(*g->shown));
	th = calloc(g->threads, sizeof(*th));
	if (!g->t || !th) {
		fprintf(stderr, "gupctl fuzz: out of memory\n");
		if (json)
			fclose(json);
		return GUPCTL_EXIT_USAGE;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < g->threads; i++) {
		struct fz_thread *t = &g->t[i];

		t->g = g;
		t->n = i;
		t->ops = g->ops / g->threads + (i < g->ops % g->threads);
		t->fd[0] = -1;
		t->fd[1] = -1;
		rng_seed(&t->rng, g->seed, i + 1);
		if (pthread_create(&th[i], NULL, thread_main, t)) {
			/* threads already run on the device: no tidy way back */
			fprintf(stderr, "gupctl fuzz: cannot start thread %u\n", i);
			fflush(stdout);
			_exit(GUPCTL_EXIT_USAGE);
		}
	}
	for (i = 0; i < g->threads; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r.secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	final_check(g, &r.left);
	fz_sum(g, &r);

	for (i = 0; i < FZ_OP_COUNT; i++)
		printf("%s %u %s: %lu done, %lu ioctl errors as allowed%s, %lu skipped, %lu failed\n",
		       r.failed[i] ? "not ok" : "ok", i + 1, fz_ops[i].name, r.done[i],
		       r.errs[i], injected_str(g, r.injected[i], inj, sizeof(inj)),
		       r.skipped[i], r.failed[i]);
	if (r.left.checked)
		printf("%s %d no pin left once every fd is closed (debugfs: pins_live=%lld pages_pinned=%lld%s%s; %s)\n",
		       r.left.ok ? "ok" : "not ok", FZ_OP_COUNT + 1, r.left.pins_live,
		       r.left.pages_pinned, r.left.pins[0] ? ", pins: " : "", r.left.pins,
		       foll_pins_str(&r.left, fp, sizeof(fp)));
	else
		printf("ok %d no pin left once every fd is closed # SKIP debugfs %s unreadable\n",
		       FZ_OP_COUNT + 1, GUP_PIN_TEST_DEBUGFS);
	printf("# fuzz: %lu ops (%lu ioctls) in %.1f s (%.0f ops/s) on %u threads, %lu failures%s\n",
	       r.ops, r.ioctls, r.secs, r.secs > 0 ? r.ops / r.secs : 0.0, g->threads,
	       r.failures, r.left.ok ? "" : ", pins left");
	printf("# skipped: requests a GUP policy expects a kernel WARN for (the matrix's cells), pins with nothing to act on\n");
	if (r.failures || !r.left.ok)
		print_replay(g);
	fflush(stdout);
	ret = r.failures || !r.left.ok ? GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK;
	if (json && fz_json(g, &r, json, json_path))
		ret = GUPCTL_EXIT_USAGE;
	return ret;
}

static const char *fuzz_policy_help(void)
{
	static char help[128];

	snprintf(help, sizeof(help), "%s (detected)",
		 policy_names());
	return help;
}

int cmd_fuzz(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl fuzz [--seed S] [--ops N] [--threads T] [OPTIONS]",
		"",
		"Random and adversarial requests to " GUP_PIN_TEST_DEVICE " (root, module",
		"loaded), reproducible from the seed: each thread's requests, not the",
		"threads' interleaving.  Every answer is judged against the ABI; once",
		"every fd is closed no pin may be left.  KTAP on stdout, and on a failure",
		"the command that replays the run.  Exit 0 every answer allowed, 1 a",
		"failure or a pin left, 2 usage error, 3 no usable device.",
		NULL
	};
	struct fz_global g = {
		.seed = 1, .ops = 10000, .threads = 4, .ext4_dir = LAB_EXT4_DIR,
		.shared_fd = -1, .show = 50,
	};
	const char *policy = NULL, *json_path = NULL;
	FILE *json = NULL;
	bool verbose = false;
	const struct gopt opts[] = {
		GOPT_CALLBACK('s', "seed", &g, "S", parse_seed,
			      "the PRNG seed (1; decimal or 0x hex)"),
		GOPT_UINT('n', "ops", &g.ops, "N", "operations, all threads together (10000)"),
		GOPT_UINT('t', "threads", &g.threads, "T", "threads, 1-64 (4)"),
		GOPT_STRING('p', "policy", &policy, "P", fuzz_policy_help()),
		GOPT_STRING(0, "ext4-dir", &g.ext4_dir, "DIR", "a directory on ext4 (" LAB_EXT4_DIR ")"),
		GOPT_STRING(0, "json", &json_path, "FILE",
			    "the run's summary as JSON (docs/gupctl.md)"),
		GOPT_UINT(0, "show", &g.show, "N", "print the first N failures in full (50)"),
		GOPT_BOOL(0, "inject", &g.inject,
			  "device calls with make-it-fail set (docs/gupctl.md)"),
		GOPT_BOOL('v', "verbose", &verbose, "every request and answer on stderr"),
		GOPT_END()
	};
	struct gupdev dev;
	struct kernel_facts kf;
	char why[256];
	int ret, argi;

	ret = gopt_parse("fuzz", argc, argv, opts, usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (argi < argc)
		return usage_error("fuzz", "unexpected argument '%s'", argv[argi]);
	if (!g.ops)
		return usage_error("fuzz", "--ops must be at least 1");
	if (!g.threads || g.threads > 64)
		return usage_error("fuzz", "--threads must be 1-64, not %u", g.threads);
	g.verbose = verbose;
	if (g.inject && access("/proc/thread-self/make-it-fail", W_OK))
		return usage_error("fuzz", "--inject needs the kernel's fault injection (CONFIG_FAULT_INJECTION): /proc/thread-self/make-it-fail: %s",
				   strerror(errno));
	if (!policy) {
		kernel_facts_read(&kf);
		policy = policy_detect(&kf, why, sizeof(why));
		if (!policy)
			return usage_error("fuzz", "cannot tell the kernel's GUP policy (%s): give --policy (%s)",
					   why, policy_names());
	}
	g.policy = policy_lookup(policy);
	if (!g.policy)
		return usage_error("fuzz", "unknown policy '%s': give %s", policy, policy_names());
	g.policy_name = policy;
	g.kernel = policy_kernel(policy);
	ret = gupctl_open_device(&dev, "fuzz");
	if (ret)
		return ret;
	g.ver = dev.ver;
	g.shared_fd = dev.fd;
	g.ps = g.ver.page_size;
	if (g.ps != (size_t)getpagesize()) {
		gupdev_close(&dev);
		fprintf(stderr, "gupctl fuzz: the module's page size %zu is not the process's %d\n",
			g.ps, getpagesize());
		return GUPCTL_EXIT_NODEV;
	}
	/* opened last: no empty file is left behind by an early exit */
	if (json_path) {
		json = jsonfile_open(json_path, "fuzz");
		if (!json) {
			gupdev_close(&dev);
			return GUPCTL_EXIT_USAGE;
		}
	}
	return fuzz_run(&g, json, json_path);
}
