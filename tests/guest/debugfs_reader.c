// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs_reader: the driver's debugfs files check their reader on every
 * read, as the device checks every ioctl (docs/ABI/debugfs-gup_pin_test).
 * Two ways a process without CAP_SYS_ADMIN came to hold an open debugfs
 * file, each must read nothing (EPERM):
 *   - inherited: root opens "pins", forks, and the child drops to nobody
 *     (every capability gone with uid 0) and reads the fd it kept;
 *   - opened for it: root registers an io_uring personality, the ring
 *     goes to a child that drops to nobody, and the child opens "pins"
 *     with IORING_OP_OPENAT under that personality (root's credentials),
 *     then read(2)s it as itself.
 * And root itself still reads (the control).  Runs as root with the
 * module loaded and debugfs on /sys/kernel/debug; io_uring through its
 * system calls (no liburing).  Output: KTAP.  Exit status: 0 if every
 * test passed.
 */
/* the harness' TEST() wrappers take a variant they do not use */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gup_pin_test.h"

#define NOBODY		65534
#define PINS		GUP_PIN_TEST_DEBUGFS "/pins"

/* Become nobody: uid 0's capabilities go with it.  0, or -1. */
static int become_nobody(void)
{
	return setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ? -1 : 0;
}

/* read(2) of @fd: 0 it read (or EOF), else the errno. */
static int read_errno(int fd)
{
	char buf[256];

	return read(fd, buf, sizeof(buf)) < 0 ? errno : 0;
}

/* Run @fn in a child and return its exit status (-1: it did not exit). */
static int in_child(int (*fn)(void *), void *arg)
{
	int status = -1;
	pid_t kid = fork();

	if (kid < 0)
		return -1;
	if (!kid)
		_exit(fn(arg));
	if (waitpid(kid, &status, 0) != kid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST(root_reads_pins)
{
	int fd = open(PINS, O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, fd) TH_LOG("open %s: %s", PINS, strerror(errno));
	EXPECT_EQ(0, read_errno(fd));
	close(fd);
}

/* The child's half: nobody now, read the fd root opened. */
static int read_inherited(void *arg)
{
	int fd = *(int *)arg;

	if (become_nobody())
		return 100;
	return read_errno(fd);
}

TEST(inherited_fd_after_setuid_eperm)
{
	int fd = open(PINS, O_RDONLY | O_CLOEXEC);
	int got;

	ASSERT_LE(0, fd) TH_LOG("open %s: %s", PINS, strerror(errno));
	got = in_child(read_inherited, &fd);
	EXPECT_EQ(EPERM, got)
		TH_LOG("as nobody, read of the inherited fd: %s",
		       got == 0 ? "it read the pins" : got == 100 ? "cannot become nobody" :
		       got < 0 ? "the child did not exit" : strerror(got));
	/* root still reads it */
	EXPECT_EQ(0, read_errno(fd));
	close(fd);
}

/* A ring of one entry, mapped: the least io_uring needs for one openat. */
struct ring {
	int fd;
	void *sq, *cq;
	struct io_uring_sqe *sqes;
	struct io_uring_params p;
	size_t sq_len, cq_len;
};

static int ring_setup(struct ring *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = syscall(__NR_io_uring_setup, 1, &r->p);
	if (r->fd < 0)
		return -1;
	r->sq_len = r->p.sq_off.array + r->p.sq_entries * sizeof(__u32);
	r->cq_len = r->p.cq_off.cqes + r->p.cq_entries * sizeof(struct io_uring_cqe);
	r->sq = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		     r->fd, IORING_OFF_SQ_RING);
	r->cq = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		     r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (r->sq == MAP_FAILED || r->cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -1;
	return 0;
}

/* IORING_OP_OPENAT of @path under @personality: the fd, or -errno. */
static int ring_openat(struct ring *r, const char *path, __u16 personality)
{
	__u32 *tail = (__u32 *)((char *)r->sq + r->p.sq_off.tail);
	__u32 *array = (__u32 *)((char *)r->sq + r->p.sq_off.array);
	__u32 *ctail = (__u32 *)((char *)r->cq + r->p.cq_off.tail);
	__u32 *chead = (__u32 *)((char *)r->cq + r->p.cq_off.head);
	struct io_uring_cqe *cqes = (void *)((char *)r->cq + r->p.cq_off.cqes);
	__u32 sq_mask = *(__u32 *)((char *)r->sq + r->p.sq_off.ring_mask);
	__u32 cq_mask = *(__u32 *)((char *)r->cq + r->p.cq_off.ring_mask);
	struct io_uring_sqe *sqe = &r->sqes[0];
	int res;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_OPENAT;
	sqe->fd = AT_FDCWD;
	sqe->addr = (unsigned long)path;
	sqe->open_flags = O_RDONLY | O_CLOEXEC;
	sqe->personality = personality;
	array[*tail & sq_mask] = 0;	/* the one sqe */
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -errno;
	if (__atomic_load_n(ctail, __ATOMIC_ACQUIRE) == *chead)
		return -EAGAIN;
	res = cqes[*chead & cq_mask].res;
	__atomic_store_n(chead, *chead + 1, __ATOMIC_RELEASE);
	return res;
}

struct opened_for {
	struct ring *r;
	int personality;
};

/*
 * The child's half: nobody now, open "pins" through root's personality
 * (which must work: the open is root's), then read as itself.  Exit 0
 * EPERM as wanted, 101-103 a step failed, else the read's errno (0: it
 * read the pins).
 */
static int read_opened_for(void *arg)
{
	struct opened_for *o = arg;
	int fd;

	if (become_nobody())
		return 100;
	if (open(PINS, O_RDONLY | O_CLOEXEC) >= 0)
		return 101;	/* nobody opened it alone: the test means nothing */
	fd = ring_openat(o->r, PINS, o->personality);
	if (fd < 0)
		return 102;
	fd = read_errno(fd);
	return fd == EPERM ? 0 : fd ? fd : 103;
}

TEST(io_uring_personality_open_eperm)
{
	struct opened_for o;
	struct ring r;
	int got;

	if (ring_setup(&r))
		SKIP(return, "io_uring_setup: %s (no CONFIG_IO_URING?)", strerror(errno));
	o.r = &r;
	o.personality = syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_PERSONALITY,
				NULL, 0);
	ASSERT_LT(0, o.personality) TH_LOG("IORING_REGISTER_PERSONALITY: %s", strerror(errno));
	got = in_child(read_opened_for, &o);
	EXPECT_EQ(0, got)
		TH_LOG("as nobody, a root-personality open then read: %s",
		       got == 100 ? "cannot become nobody" :
		       got == 101 ? "nobody opened pins without the personality" :
		       got == 102 ? "the personality's openat failed" :
		       got == 103 ? "the read read the pins" :
		       got < 0 ? "the child did not exit" : strerror(got));
	close(r.fd);
}

TEST_HARNESS_MAIN
