// SPDX-License-Identifier: GPL-2.0
/*
 * holders steps (lib/holders_steps.h): the system calls of a holders cell.
 * Only libc, the kernel's uapi headers, liburing for the io_uring holder
 * (left out with HOLDERS_NO_URING), lib/fsioctl.h and lib/dm.c (the same
 * kind): `gupctl export` copies this file into a reproducer, its lab
 * includes removed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifndef HOLDERS_NO_URING
#include <liburing.h>
#endif
#include <linux/btrfs.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "lib/dm.h"		/* export: lab include */
#include "lib/fsioctl.h"	/* export: lab include */
#include "lib/holders_steps.h"	/* export: lab include */

#define PS	HOLDERS_PAGE_SIZE
/* dm-delay's backstop: a read is released after this even if the cell fails */
#define SLOW_DELAY_MS	20000
#define HELD_TIMEOUT_MS	10000

const char * const holders_fs_choices[] = { "ext4", "xfs", "btrfs", "ext4j", NULL };
const char * const holders_holder_choices[] = { "odirect", "pvw", "uring", NULL };
const char * const holders_event_choices[] = {
	"none", "fsync", "pageout", "drop-caches", "move-ext-donor",
	"move-ext-orig", "swapext", "defrag", "punch", "collapse",
	"truncate", "ficlone", NULL
};
const char * const holders_data_names[] = {
	"none", "NEW", "OLD", "ZEROS", "NEXT", "TMP", "OTHER", NULL
};

/* A page of @kind: one line, "gup-lab KIND page N", repeated. */
void holders_fill(char *buf, unsigned long size, enum holders_data kind, unsigned int page)
{
	char line[64];
	unsigned long n, len;

	if (kind == HOLDERS_DATA_ZEROS || kind >= HOLDERS_DATA_OTHER) {
		memset(buf, 0, size);
		return;
	}
	len = snprintf(line, sizeof(line), "gup-lab %-5s page %u\n",
		       holders_data_names[kind], page);
	for (n = 0; n < size; n += len)
		memcpy(buf + n, line, size - n < len ? size - n : len);
}

enum holders_data holders_classify(const char *buf, unsigned long size, unsigned int page)
{
	static const struct { enum holders_data kind; unsigned int page; } known[] = {
		{ HOLDERS_DATA_NEW, HOLDERS_PAGE }, { HOLDERS_DATA_OLD, HOLDERS_PAGE },
		{ HOLDERS_DATA_ZEROS, 0 }, { HOLDERS_DATA_TMP, HOLDERS_PAGE },
	};
	char want[HOLDERS_PAGE_SIZE];
	size_t i;

	if (size != HOLDERS_PAGE_SIZE || page != HOLDERS_PAGE)
		return HOLDERS_DATA_OTHER;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		holders_fill(want, size, known[i].kind, known[i].page);
		if (!memcmp(buf, want, size))
			return known[i].kind;
	}
	/* a collapse brings the next page's OLD bytes to the offset */
	holders_fill(want, size, HOLDERS_DATA_OLD, page + 1);
	return memcmp(buf, want, size) ? HOLDERS_DATA_OTHER : HOLDERS_DATA_NEXT;
}

int holders_bind_cpu0(void)
{
	cpu_set_t cpu0;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	return sched_setaffinity(0, sizeof(cpu0), &cpu0) ? -errno : 0;
}

int holders_write_file(const char *path, enum holders_data kind)
{
	char buf[PS];
	int fd, p, ret = 0;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	for (p = 0; p < HOLDERS_PAGES && !ret; p++) {
		holders_fill(buf, PS, kind, p);
		if (pwrite(fd, buf, PS, (off_t)p * PS) != PS || fsync(fd))
			ret = -errno;
	}
	close(fd);
	return ret;
}

int holders_files_setup(struct holders_files *f, const char *dir, enum holders_event ev)
{
	int ret;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	snprintf(f->path, sizeof(f->path), "%s/f.dat", dir);
	snprintf(f->other, sizeof(f->other), "%s/other.dat", dir);
	snprintf(f->clone, sizeof(f->clone), "%s/clone.dat", dir);
	ret = holders_write_file(f->path, HOLDERS_DATA_OLD);
	if (!ret && (ev == HOLDERS_EV_MOVE_EXT_DONOR || ev == HOLDERS_EV_SWAPEXT ||
		     ev == HOLDERS_EV_MOVE_EXT_ORIG))
		ret = holders_write_file(f->other, HOLDERS_DATA_TMP);
	if (ret)
		return ret;
	sync();		/* the metadata too: the host reads committed trees */
	f->fd = open(f->path, O_RDWR | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	f->map = mmap(NULL, HOLDERS_FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		return -errno;
	}
	return 0;
}

int holders_drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, "3", 1) == 1 ? 0 : -errno;
	close(fd);
	return ret;
}

int holders_uffd_setup(char **src, int *uffd)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	*src = mmap(NULL, PS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*src == MAP_FAILED)
		return -errno;
	*uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (*uffd < 0)
		return -errno;
	reg.range.start = (unsigned long)*src;
	reg.range.len = PS;
	if (ioctl(*uffd, UFFDIO_API, &api) || ioctl(*uffd, UFFDIO_REGISTER, &reg))
		return -errno;
	return 0;
}

int holders_uffd_answer(int uffd, char *src)
{
	struct uffdio_copy copy = { 0 };
	struct uffd_msg msg;
	char *page;
	int ret;

	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg))
		return -errno;
	page = aligned_alloc(PS, PS);
	if (!page)
		return -ENOMEM;
	holders_fill(page, PS, HOLDERS_DATA_NEW, HOLDERS_PAGE);
	copy.dst = (unsigned long)src;
	copy.src = (unsigned long)page;
	copy.len = PS;
	ret = ioctl(uffd, UFFDIO_COPY, &copy) ? -errno : 0;
	free(page);
	return ret;
}

/*
 * mm/process_vm_access.c pins the target page (the file's), then copies
 * from the source, whose fault the userfaultfd holds: the pin is held
 * until holders_uffd_answer().
 */
long holders_pvw(char *src, char *dst)
{
	struct iovec local = { src, PS };
	struct iovec remote = { dst, PS };
	long n = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);

	return n < 0 ? -errno : n;
}

/* ---- the holders ---- */

static void *odirect_thread(void *arg)
{
	struct holders_hold *h = arg;
	int fd = open(HOLDERS_SLOW_NODE, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd < 0) {
		h->result = -errno;
	} else {
		h->result = read(fd, h->dst, PS);
		if (h->result < 0)
			h->result = -errno;
		close(fd);
	}
	__atomic_store_n(&h->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void *uring_thread(void *arg)
{
	struct holders_hold *h = arg;
#ifndef HOLDERS_NO_URING
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	int fd, ret;

	fd = open(HOLDERS_SLOW_NODE, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		h->result = -errno;
		goto out;
	}
	ret = io_uring_queue_init(2, &ring, 0);
	if (ret) {
		h->result = ret;
		close(fd);
		goto out;
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, h->dst, PS, 0);
	ret = io_uring_submit(&ring);
	if (ret == 1)
		ret = io_uring_wait_cqe(&ring, &cqe);
	else if (ret >= 0)
		ret = -EIO;
	h->result = ret ? ret : cqe->res;
	io_uring_queue_exit(&ring);
	close(fd);
out:
#else
	h->result = -EOPNOTSUPP;
#endif
	__atomic_store_n(&h->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void *pvw_thread(void *arg)
{
	struct holders_hold *h = arg;

	h->result = holders_pvw(h->src, h->dst);
	__atomic_store_n(&h->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* The slow device: NEW at its start, then dm-delay over it, reads held. */
static int slow_setup(struct holders_hold *h)
{
	char params[256], *buf;
	unsigned long long sectors;
	int fd, ret = 0;

	if (!h->slow_dev)
		return -EINVAL;
	fd = open(h->slow_dev, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (posix_memalign((void **)&buf, PS, PS)) {
		close(fd);
		return -ENOMEM;
	}
	holders_fill(buf, PS, HOLDERS_DATA_NEW, HOLDERS_PAGE);
	if (pwrite(fd, buf, PS, 0) != PS || fsync(fd) ||
	    ioctl(fd, BLKGETSIZE64, &sectors))
		ret = -errno;
	free(buf);
	close(fd);
	if (ret)
		return ret;
	sectors >>= 9;
	/* reads held SLOW_DELAY_MS, writes not delayed */
	snprintf(params, sizeof(params), "%s 0 %d %s 0 0", h->slow_dev, SLOW_DELAY_MS,
		 h->slow_dev);
	dm_remove(HOLDERS_SLOW_NAME);	/* a previous cell's, if it failed */
	ret = dm_create(HOLDERS_SLOW_NAME, sectors, "delay", params, HOLDERS_SLOW_NODE);
	h->dm_made = !ret;
	return ret;
}

int holders_hold_setup(struct holders_hold *h)
{
	h->uffd = -1;
	return h->kind == HOLDERS_PVW ? holders_uffd_setup(&h->src, &h->uffd) : slow_setup(h);
}

int holders_hold_start(struct holders_hold *h)
{
	void *(*thread[])(void *) = { odirect_thread, pvw_thread, uring_thread };

	return -pthread_create(&h->thread, NULL, thread[h->kind], h);
}

/* Is the holder's pin held now?  dm-delay's count, or the uffd fault. */
static bool held(struct holders_hold *h)
{
	char status[128];
	unsigned int reads = 0;
	struct pollfd pfd;

	if (h->kind == HOLDERS_PVW) {
		pfd.fd = h->uffd;
		pfd.events = POLLIN;
		return poll(&pfd, 1, 0) == 1;
	}
	return !dm_status(HOLDERS_SLOW_NAME, status, sizeof(status)) &&
	       sscanf(status, "%u", &reads) == 1 && reads > 0;
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int holders_hold_wait(struct holders_hold *h)
{
	double t0 = seconds();

	while (!__atomic_load_n(&h->done, __ATOMIC_ACQUIRE)) {
		if (held(h))
			return 0;
		if ((seconds() - t0) * 1000 > HELD_TIMEOUT_MS)
			return -ETIMEDOUT;
		usleep(2000);
	}
	return -ENOENT;	/* the holder finished without being held */
}

int holders_hold_release(struct holders_hold *h)
{
	int ret;

	if (h->kind != HOLDERS_PVW) {
		ret = dm_suspend(HOLDERS_SLOW_NAME, 1);
		return ret ? ret : dm_suspend(HOLDERS_SLOW_NAME, 0);
	}
	return holders_uffd_answer(h->uffd, h->src);
}

void holders_hold_join(struct holders_hold *h)
{
	pthread_join(h->thread, NULL);
}

int holders_hold_cleanup(struct holders_hold *h)
{
	if (h->uffd >= 0)
		close(h->uffd);
	h->uffd = -1;
	if (!h->dm_made)
		return 0;
	h->dm_made = false;
	return dm_remove(HOLDERS_SLOW_NAME);
}

/* ---- the events ---- */

/* The page's blocks, in the file system's blocks (the scratch ext4 has 1 KiB ones). */
static int ev_move_ext(const struct holders_files *f, bool pinned_is_donor, long long *moved)
{
	struct ext4_move_extent me = { 0 };
	struct stat st;
	int ofd, ret;

	if (fstat(f->fd, &st))
		return -errno;
	me.len = PS / st.st_blksize;
	me.orig_start = me.donor_start = (__u64)HOLDERS_PAGE * me.len;
	ofd = open(f->other, O_RDWR | O_CLOEXEC);
	if (ofd < 0)
		return -errno;
	if (pinned_is_donor) {
		me.donor_fd = f->fd;
		ret = ioctl(ofd, EXT4_IOC_MOVE_EXT, &me) ? -errno : 0;
	} else {
		me.donor_fd = ofd;
		ret = ioctl(f->fd, EXT4_IOC_MOVE_EXT, &me) ? -errno : 0;
	}
	close(ofd);
	*moved = me.moved_len;
	return ret;
}

/* xfs_fsr's call: the whole file, the target's times taken now. */
static int ev_swapext(const struct holders_files *f)
{
	struct xfs_swapext sx = { .sx_version = XFS_SX_VERSION, .sx_length = HOLDERS_FILE_SIZE };
	struct stat st;
	int tfd, ret;

	tfd = open(f->other, O_RDWR | O_CLOEXEC);
	if (tfd < 0)
		return -errno;
	if (fstat(f->fd, &st)) {
		ret = -errno;
		goto out;
	}
	sx.sx_fdtarget = f->fd;
	sx.sx_fdtmp = tfd;
	sx.sx_stat.bs_ctime.tv_sec = st.st_ctim.tv_sec;
	sx.sx_stat.bs_ctime.tv_nsec = st.st_ctim.tv_nsec;
	sx.sx_stat.bs_mtime.tv_sec = st.st_mtim.tv_sec;
	sx.sx_stat.bs_mtime.tv_nsec = st.st_mtim.tv_nsec;
	ret = ioctl(f->fd, XFS_IOC_SWAPEXT, &sx) ? -errno : 0;
out:
	close(tfd);
	return ret;
}

static int ev_defrag(const struct holders_files *f)
{
	struct btrfs_ioctl_defrag_range_args a = {
		.len = (__u64)-1, .flags = BTRFS_DEFRAG_RANGE_START_IO,
	};

	return ioctl(f->fd, BTRFS_IOC_DEFRAG_RANGE, &a) ? -errno : 0;
}

static int ev_ficlone(const struct holders_files *f)
{
	int cfd = open(f->clone, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), ret;

	if (cfd < 0)
		return -errno;
	ret = ioctl(cfd, FICLONE, f->fd) ? -errno : 0;
	close(cfd);
	return ret;
}

/* The event; "writes back first" events fsync the file, as their text says. */
int holders_event(enum holders_event ev, const struct holders_files *f, long long *moved)
{
	off_t at = (off_t)HOLDERS_PAGE * PS;

	*moved = 0;
	switch (ev) {
	case HOLDERS_EV_NONE:
		return 0;
	case HOLDERS_EV_PUNCH:
		return fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, at, PS) ?
		       -errno : 0;
	case HOLDERS_EV_COLLAPSE:
		return fallocate(f->fd, FALLOC_FL_COLLAPSE_RANGE, at, PS) ? -errno : 0;
	case HOLDERS_EV_TRUNCATE:
		return ftruncate(f->fd, 0) || ftruncate(f->fd, HOLDERS_FILE_SIZE) ? -errno : 0;
	case HOLDERS_EV_SWAPEXT:
		return ev_swapext(f);
	case HOLDERS_EV_FICLONE:
		return ev_ficlone(f);
	default:
		break;
	}
	if (fsync(f->fd))
		return -errno;
	switch (ev) {
	case HOLDERS_EV_PAGEOUT:
		return madvise(f->map + at, PS, MADV_PAGEOUT) ? -errno : 0;
	case HOLDERS_EV_DROP_CACHES:
		return holders_drop_caches();
	case HOLDERS_EV_MOVE_EXT_DONOR:
		return ev_move_ext(f, true, moved);
	case HOLDERS_EV_MOVE_EXT_ORIG:
		return ev_move_ext(f, false, moved);
	case HOLDERS_EV_DEFRAG:
		return ev_defrag(f) ?: (fsync(f->fd) ? -errno : 0);
	default:
		return 0;
	}
}

int holders_read_class(const char *path, bool direct)
{
	char *buf;
	ssize_t n;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
	if (fd < 0)
		return -errno;
	if (posix_memalign((void **)&buf, PS, PS)) {
		close(fd);
		return -ENOMEM;
	}
	n = pread(fd, buf, PS, (off_t)HOLDERS_PAGE * PS);
	if (n == 0)
		memset(buf, 0, PS);	/* past the end: what a host read gives */
	ret = n < 0 ? -errno : (int)holders_classify(buf, n ? n : PS, HOLDERS_PAGE);
	free(buf);
	close(fd);
	return ret;
}
