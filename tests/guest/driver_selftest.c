// SPDX-License-Identifier: GPL-2.0
/*
 * driver_selftest: exercises /dev/gup_test (module/gup_pin_test.c) from
 * inside a gup-lab guest, kselftest style, KTAP on stdout.
 *
 *   gcc -O2 -Wall -Wextra -static -I module/uapi \
 *       -pthread -o driver_selftest tests/guest/driver_selftest.c
 *   driver_selftest [EXT4_DIR]     (default /mnt/ext4)
 *
 * Runs as root with the module loaded and debugfs on /sys/kernel/debug.
 * Every check must hold on each flavour (stock, gup-v7, ext4-2018), and
 * nothing here may make the kernel WARN: the runner fails on any WARNING.
 * In particular no ext4 page is ever pinned with FOLL_WRITE (gup-v7 refuses
 * FOLL_PIN|FOLL_WRITE on dirty-tracked files in its slow path), and no ext4
 * page is dirtied through the driver unless it is seen to have buffers
 * (ext4_dirty_folio() WARNs otherwise, and ext4-2018 BUGs at writeback).
 *
 * Each test gets a fresh fd, closed after it: a failing test cannot leave
 * pins behind for the next one.  Exit status 0 only if every test passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gup_pin_test.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum { T_PASS, T_FAIL, T_SKIP };

static const char *ext4_dir = "/mnt/ext4";
static size_t ps;			/* page size */
static struct gup_pin_version ver;
static char why[512];

static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return T_FAIL;
}

static int skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return T_SKIP;
}

#define CHECK(cond, ...)	do { if (!(cond)) return fail(__VA_ARGS__); } while (0)

/* ---- thin wrappers: 0 or -errno ---- */

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static int dev_open(void)
{
	return open(GUP_PIN_TEST_DEVICE, O_RDWR | O_CLOEXEC);
}

static int pin(int fd, const void *addr, size_t len, unsigned int method,
	       unsigned int flags, struct gup_pin_req *req)
{
	memset(req, 0, sizeof(*req));
	req->addr = (uintptr_t)addr;
	req->len = len;
	req->method = method;
	req->flags = flags;
	return xioctl(fd, GUP_PIN_IOC_PIN, req);
}

static int unpin(int fd, unsigned int id, unsigned int flags)
{
	struct gup_pin_unpin u = { .id = id, .flags = flags };

	return xioctl(fd, GUP_PIN_IOC_UNPIN, &u);
}

static int kio(int fd, unsigned long cmd, unsigned int id, uint64_t off,
	       void *buf, uint64_t len)
{
	struct gup_pin_io io = {
		.id = id, .offset = off, .len = len, .buf = (uintptr_t)buf,
	};

	return xioctl(fd, cmd, &io);
}

static int state(int fd, unsigned int id, unsigned int first,
		 unsigned int count, struct gup_page_state *st,
		 unsigned int *written)
{
	struct gup_pin_state_req r = {
		.id = id, .first = first, .count = count,
		.pages = (uintptr_t)st,
	};
	int ret = xioctl(fd, GUP_PIN_IOC_STATE, &r);

	if (!ret && written)
		*written = r.count;
	return ret;
}

static const char *ename(int err)
{
	static char buf[32];

	switch (err) {
	case 0: return "0";
	case -EPERM: return "-EPERM";
	case -ENOENT: return "-ENOENT";
	case -EINTR: return "-EINTR";
	case -E2BIG: return "-E2BIG";
	case -ENOMEM: return "-ENOMEM";
	case -EFAULT: return "-EFAULT";
	case -EINVAL: return "-EINVAL";
	case -ENOSPC: return "-ENOSPC";
	case -ENOTTY: return "-ENOTTY";
	}
	snprintf(buf, sizeof(buf), "%d", err);
	return buf;
}

static void fill(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 12));
}

static void *map_anon(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* ---- debugfs ---- */

static int debugfs_read(const char *name, char *buf, size_t size)
{
	char path[256];
	ssize_t n, total = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", GUP_PIN_TEST_DEBUGFS, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)total < size - 1 &&
	       (n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return 0;
}

/* Value of KEY= on the counters line starting with "total ". */
static int total_counter(const char *key, unsigned long long *val)
{
	static char buf[1 << 16];
	char pat[64], *line, *p;
	int ret = debugfs_read("counters", buf, sizeof(buf));

	if (ret)
		return ret;
	line = strstr(buf, "total ");
	if (!line || line != buf)
		return -EPROTO;
	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	if (!p || p > strchr(line, '\n'))
		return -EPROTO;
	*val = strtoull(p + strlen(pat), NULL, 10);
	return 0;
}

/* Number of lines of debugfs "pins" owned by @pid (0: every line). */
static int pins_lines(pid_t pid)
{
	static char buf[1 << 16];
	char pat[32], *line;
	int n = 0;

	if (debugfs_read("pins", buf, sizeof(buf)))
		return -1;
	snprintf(pat, sizeof(pat), " pid=%d ", (int)pid);
	for (line = buf; *line; line = strchr(line, '\n') + 1) {
		char *end = strchr(line, '\n');

		if (!end || strncmp(line, "id=", 3))
			return -1;
		*end = '\0';
		if (!pid || strstr(line, pat))
			n++;
		*end = '\n';
	}
	return n;
}

/* The driver holds no pin and no page: what every test leaves behind. */
static int check_nothing_pinned(const char *when)
{
	unsigned long long live, pages;
	int lines;

	CHECK(!total_counter("pins_live", &live) &&
	      !total_counter("pages_pinned", &pages),
	      "%s: cannot parse %s/counters", when, GUP_PIN_TEST_DEBUGFS);
	lines = pins_lines(0);
	CHECK(live == 0 && pages == 0 && lines == 0,
	      "%s: pins_live=%llu pages_pinned=%llu pins lines=%d", when,
	      live, pages, lines);
	return T_PASS;
}

/* ---- round trips ---- */

static const char * const kind_names[] = {
	"anon", "shmem", "hugetlb", "file", "other",
};

static const char *kind_name(unsigned int kind)
{
	return kind < ARRAY_SIZE(kind_names) ? kind_names[kind] : "?";
}

/* Every page of pin @id has @kind and @fs; pinned ones look pinned. */
static int check_kind(int fd, const struct gup_pin_req *req,
		      unsigned int kind, const char *fs)
{
	struct gup_page_state st[16];
	unsigned int i, n;
	int ret;

	ret = state(fd, req->id, 0, ARRAY_SIZE(st), st, &n);
	CHECK(!ret, "STATE: %s", ename(ret));
	CHECK(n == (req->nr_pinned < ARRAY_SIZE(st) ? req->nr_pinned :
		    ARRAY_SIZE(st)), "STATE wrote %u entries", n);
	for (i = 0; i < n; i++) {
		CHECK(st[i].kind == kind && !strcmp(st[i].fs_name, fs),
		      "page %u: kind %s fs '%.16s', want %s '%s'", i,
		      kind_name(st[i].kind), st[i].fs_name, kind_name(kind),
		      fs);
		/* FOLL_PIN adds GUP_PIN_COUNTING_BIAS: always visible. */
		CHECK(req->method > GUP_PIN_METHOD_PIN_FAST ||
		      (st[i].state & GUP_PAGE_MAYBE_DMA_PINNED),
		      "page %u: not maybe_dma_pinned after a FOLL_PIN pin", i);
	}
	return T_PASS;
}

/*
 * Pin [map, map + len) with @method/@flags, write a pattern through the
 * kernel mapping (whole range, then a range across a page boundary), read
 * it back, and check the user mapping sees it; unpin with @unpin_flags.
 */
static int roundtrip(int fd, unsigned char *map, size_t len,
		     unsigned int method, unsigned int flags,
		     unsigned int kind, const char *fs,
		     unsigned int unpin_flags)
{
	unsigned char *want = malloc(len), *got = malloc(len);
	struct gup_pin_req req;
	int ret, verdict = T_FAIL;

	if (!want || !got)
		goto out_msg;
	ret = pin(fd, map, len, method, flags, &req);
	if (ret || !req.id || req.nr_pinned != len / ps ||
	    req.nr_requested != len / ps) {
		fail("PIN: %s id=%u pinned=%u requested=%u", ename(ret),
		     req.id, req.nr_pinned, req.nr_requested);
		goto out;
	}
	fill(want, len, req.id);
	ret = kio(fd, GUP_PIN_IOC_WRITE, req.id, 0, want, len);
	if (!ret) {
		fill(want + ps - 50, 100, req.id + 1);
		ret = kio(fd, GUP_PIN_IOC_WRITE, req.id, ps - 50,
			  want + ps - 50, 100);
	}
	if (!ret)
		ret = kio(fd, GUP_PIN_IOC_READ, req.id, 0, got, len);
	if (ret) {
		fail("WRITE/READ: %s", ename(ret));
	} else if (memcmp(want, got, len)) {
		fail("READ back differs from what WRITE wrote");
	} else if (memcmp(want, map, len)) {
		fail("the user mapping does not see the kernel's writes");
	} else {
		verdict = check_kind(fd, &req, kind, fs);
	}
	ret = unpin(fd, req.id, unpin_flags);
	if (ret && verdict == T_PASS)
		verdict = fail("UNPIN: %s", ename(ret));
	goto out;
out_msg:
	fail("out of memory");
out:
	free(want);
	free(got);
	return verdict;
}

static int t_version(int fd)
{
	int ret = xioctl(fd, GUP_PIN_IOC_VERSION, &ver);

	CHECK(!ret, "VERSION: %s", ename(ret));
	CHECK(ver.abi_version == GUP_PIN_TEST_ABI_VERSION,
	      "abi_version %u, want %u", ver.abi_version,
	      GUP_PIN_TEST_ABI_VERSION);
	CHECK(ver.page_size == ps, "page_size %u, want %zu", ver.page_size,
	      ps);
	CHECK(ver.max_pages_per_pin >= 8 &&
	      ver.max_pages_per_pin <= ver.max_pages_total,
	      "max_pages_per_pin %u max_pages_total %u",
	      ver.max_pages_per_pin, ver.max_pages_total);
	return T_PASS;
}

/* Anon memory: every method takes it writable, on every flavour. */
static int t_anon_roundtrip(int fd)
{
	size_t len = 4 * ps;
	unsigned char *map = map_anon(len, PROT_READ | PROT_WRITE);
	int verdict;

	CHECK(map, "mmap: %s", strerror(errno));
	memset(map, 0x5a, len);		/* real pages, not the zero page */
	verdict = roundtrip(fd, map, len, GUP_PIN_METHOD_PIN_FAST,
			    GUP_PIN_FLAG_WRITE, GUP_PAGE_ANON, "",
			    GUP_UNPIN_DIRTY);
	munmap(map, len);
	return verdict;
}

/* shmem is not dirty tracked: gup-v7 allows even LONGTERM|WRITE on it. */
static int t_shmem_roundtrip(int fd)
{
	size_t len = 4 * ps;
	unsigned char *map;
	int mfd, verdict;

	mfd = memfd_create("driver_selftest", MFD_CLOEXEC);
	CHECK(mfd >= 0, "memfd_create: %s", strerror(errno));
	if (ftruncate(mfd, len)) {
		close(mfd);
		return fail("ftruncate: %s", strerror(errno));
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	close(mfd);
	CHECK(map != MAP_FAILED, "mmap: %s", strerror(errno));
	memset(map, 0xa5, len);
	verdict = roundtrip(fd, map, len, GUP_PIN_METHOD_PIN_FAST,
			    GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_LONGTERM,
			    GUP_PAGE_SHMEM, "tmpfs", GUP_UNPIN_DIRTY);
	munmap(map, len);
	return verdict;
}

/*
 * hugetlbfs (memfd MFD_HUGETLB): not dirty tracked, whitelisted by gup-v7
 * in both paths.  Four small pages of one huge page, LONGTERM|WRITE.
 * Skipped when the guest has no free huge page (mmap reserves one).
 */
static int t_hugetlb_roundtrip(int fd)
{
	size_t len = 2UL << 20;
	unsigned char *map;
	int mfd, verdict;

	mfd = memfd_create("driver_selftest", MFD_CLOEXEC | MFD_HUGETLB);
	if (mfd < 0)
		return skip("memfd_create(MFD_HUGETLB): %s", strerror(errno));
	if (ftruncate(mfd, len)) {
		close(mfd);
		return skip("ftruncate 2 MiB: %s", strerror(errno));
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	close(mfd);
	if (map == MAP_FAILED)
		return skip("mmap of a huge page: %s", strerror(errno));
	memset(map, 0x77, 4 * ps);
	verdict = roundtrip(fd, map, 4 * ps, GUP_PIN_METHOD_PIN_FAST,
			    GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_LONGTERM,
			    GUP_PAGE_HUGETLB, "hugetlbfs", GUP_UNPIN_DIRTY);
	munmap(map, len);
	return verdict;
}

struct ext4_file {
	char path[512];
	int fd;
	unsigned char *map;
	size_t len;
};

/*
 * A file on the scratch ext4, written with write() and fsync()ed (clean,
 * blocks allocated), mapped MAP_SHARED and mlock()ed so that neither
 * reclaim nor a cache drop can swap its pages for fresh ones without
 * buffers between the steps of a test.
 */
static int ext4_setup(struct ext4_file *f, size_t len, int prot)
{
	unsigned char *buf = malloc(len);

	f->len = len;
	f->map = NULL;
	snprintf(f->path, sizeof(f->path), "%s/driver_selftest.%d.%lu",
		 ext4_dir, (int)getpid(), (unsigned long)random());
	f->fd = open(f->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (f->fd < 0 || !buf) {
		free(buf);
		return fail("open %s: %s", f->path, strerror(errno));
	}
	fill(buf, len, 7);
	if (pwrite(f->fd, buf, len, 0) != (ssize_t)len || fsync(f->fd)) {
		free(buf);
		return fail("write/fsync %s: %s", f->path, strerror(errno));
	}
	free(buf);
	f->map = mmap(NULL, len, prot, MAP_SHARED, f->fd, 0);
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		return fail("mmap %s: %s", f->path, strerror(errno));
	}
	mlock(f->map, len);	/* best effort: root has CAP_IPC_LOCK */
	return T_PASS;
}

static void ext4_teardown(struct ext4_file *f)
{
	if (f->map) {
		msync(f->map, f->len, MS_SYNC);
		munmap(f->map, f->len);
	}
	if (f->fd >= 0) {
		fsync(f->fd);
		close(f->fd);
		unlink(f->path);
	}
}

/* Make each page dirty through the user mapping: page_mkwrite attaches
 * buffers, which is what makes a later dirtying by the driver safe.
 */
static void ext4_user_write(struct ext4_file *f, unsigned int seed)
{
	size_t off;

	for (off = 0; off < f->len; off += ps)
		f->map[off] = (unsigned char)(seed + off / ps);
}

/*
 * ext4: a pin without FOLL_WRITE (allowed on every flavour, fast or slow
 * path), then the kernel writes through its own mapping.  The pages were
 * dirtied by a user write just before (buffers attached), so the kernel
 * write lands on dirty pages with buffers; unpinned without dirtying.
 */
static int t_ext4_roundtrip(int fd)
{
	struct ext4_file f;
	unsigned char *back;
	int verdict;

	verdict = ext4_setup(&f, 4 * ps, PROT_READ | PROT_WRITE);
	if (verdict != T_PASS)
		goto out;
	ext4_user_write(&f, 1);
	verdict = roundtrip(fd, f.map, f.len, GUP_PIN_METHOD_PIN_FAST, 0,
			    GUP_PAGE_FILE, "ext4", 0);
	if (verdict != T_PASS)
		goto out;
	/* read(2) goes through the page cache: it sees the kernel's bytes. */
	back = malloc(f.len);
	if (!back || pread(f.fd, back, f.len, 0) != (ssize_t)f.len)
		verdict = fail("pread: %s", strerror(errno));
	else if (memcmp(back, f.map, f.len))
		verdict = fail("read(2) does not see the kernel's writes");
	free(back);
out:
	ext4_teardown(&f);
	return verdict;
}

/*
 * ext4, a page that was only read: written with write() and fsync()ed
 * (fsync waits for writeback, so not dirty and not under writeback), mapped
 * read-only and pinned without FOLL_WRITE.  Nothing on any flavour dirties
 * it: GUP without FOLL_WRITE runs no page_mkwrite.
 */
static int t_ext4_read_pin_clean(int fd)
{
	struct gup_page_state st[2];
	struct gup_pin_req req;
	struct ext4_file f;
	unsigned int i, n = 0;
	int ret, verdict;

	verdict = ext4_setup(&f, 2 * ps, PROT_READ);
	if (verdict != T_PASS)
		goto out;
	ret = pin(fd, f.map, f.len, GUP_PIN_METHOD_PIN, 0, &req);
	if (ret || req.nr_pinned != 2) {
		verdict = fail("PIN: %s pinned=%u", ename(ret), req.nr_pinned);
		goto out;
	}
	ret = state(fd, req.id, 0, 2, st, &n);
	if (ret || n != 2)
		verdict = fail("STATE: %s count=%u", ename(ret), n);
	for (i = 0; verdict == T_PASS && i < n; i++) {
		if (st[i].kind != GUP_PAGE_FILE || strcmp(st[i].fs_name, "ext4"))
			verdict = fail("page %u: kind %s fs '%.16s'", i,
				       kind_name(st[i].kind), st[i].fs_name);
		else if (st[i].state & (GUP_PAGE_DIRTY | GUP_PAGE_WRITEBACK))
			verdict = fail("page %u: dirty/writeback (0x%x)", i,
				       st[i].state);
		else if (!(st[i].state & GUP_PAGE_UPTODATE) ||
			 !(st[i].state & GUP_PAGE_MAYBE_DMA_PINNED))
			verdict = fail("page %u: state 0x%x lacks uptodate or maybe_dma_pinned",
				       i, st[i].state);
		else if (st[i].index != i)
			verdict = fail("page %u: index %llu", i,
				       (unsigned long long)st[i].index);
	}
	ret = unpin(fd, req.id, 0);	/* never dirty a page we did not check */
	if (ret && verdict == T_PASS)
		verdict = fail("UNPIN: %s", ename(ret));
out:
	ext4_teardown(&f);
	return verdict;
}

/*
 * ext4, the lab's point in small: a clean page with buffers (user write,
 * then msync: writeback cleans it and ext4 keeps its buffers; mlock keeps
 * it cached), pinned read-only.  The kernel's write does not dirty it (it
 * bypasses the file system); UNPIN with GUP_UNPIN_DIRTY does, and a new pin
 * sees it dirty.  The dirtying happens only once the page is seen to have
 * buffers, so ext4_dirty_folio() has nothing to WARN about; the page is
 * re-dirtied well before periodic writeback (30 s expiry) could clean it.
 */
static int t_ext4_unpin_dirty(int fd)
{
	unsigned char pat[64];
	struct gup_page_state st;
	struct gup_pin_req req;
	struct ext4_file f;
	int ret, verdict;

	verdict = ext4_setup(&f, ps, PROT_READ | PROT_WRITE);
	if (verdict != T_PASS)
		goto out;
	ext4_user_write(&f, 3);
	if (msync(f.map, f.len, MS_SYNC)) {
		verdict = fail("msync: %s", strerror(errno));
		goto out;
	}
	ret = pin(fd, f.map, f.len, GUP_PIN_METHOD_PIN_FAST, 0, &req);
	if (ret || req.nr_pinned != 1) {
		verdict = fail("PIN: %s pinned=%u", ename(ret), req.nr_pinned);
		goto out;
	}
	ret = state(fd, req.id, 0, 1, &st, NULL);
	if (ret || (st.state & GUP_PAGE_DIRTY)) {
		verdict = fail("after msync: STATE %s state 0x%x", ename(ret),
			       st.state);
		goto unpin;
	}
	if (!(st.state & GUP_PAGE_HAS_BUFFERS)) {
		verdict = skip("page has no buffers: dirtying it would WARN");
		goto unpin;
	}
	fill(pat, sizeof(pat), 9);
	ret = kio(fd, GUP_PIN_IOC_WRITE, req.id, 128, pat, sizeof(pat));
	if (!ret)
		ret = state(fd, req.id, 0, 1, &st, NULL);
	if (ret || (st.state & GUP_PAGE_DIRTY)) {
		verdict = fail("kernel write: %s state 0x%x (must stay clean)",
			       ename(ret), st.state);
		goto unpin;
	}
	ret = unpin(fd, req.id, GUP_UNPIN_DIRTY);
	if (ret) {
		verdict = fail("UNPIN DIRTY: %s", ename(ret));
		goto out;
	}
	ret = pin(fd, f.map, f.len, GUP_PIN_METHOD_PIN_FAST, 0, &req);
	if (ret || req.nr_pinned != 1) {
		verdict = fail("re-PIN: %s pinned=%u", ename(ret),
			       req.nr_pinned);
		goto out;
	}
	ret = state(fd, req.id, 0, 1, &st, NULL);
	if (ret || !(st.state & GUP_PAGE_DIRTY))
		verdict = fail("after UNPIN DIRTY: STATE %s state 0x%x",
			       ename(ret), st.state);
	else if (memcmp(f.map + 128, pat, sizeof(pat)))
		verdict = fail("the user mapping does not see the kernel's write");
unpin:
	ret = unpin(fd, req.id, 0);
	if (ret && verdict == T_PASS)
		verdict = fail("UNPIN: %s", ename(ret));
out:
	ext4_teardown(&f);
	return verdict;
}

/*
 * Every method and flag mix on writable anon memory: the driver refuses
 * FOLL_LONGTERM without FOLL_PIN (6.1's GUP contract) with -EINVAL before
 * GUP; everything else pins every page on every flavour.
 */
static int t_anon_matrix(int fd)
{
	size_t len = 4 * ps;
	unsigned char *map = map_anon(len, PROT_READ | PROT_WRITE);
	unsigned int method, flags;
	struct gup_pin_req req;
	int ret;

	CHECK(map, "mmap: %s", strerror(errno));
	memset(map, 0x3c, len);
	for (method = 0; method < GUP_PIN_METHOD_COUNT; method++) {
		for (flags = 0; flags <= GUP_PIN_FLAGS_ALL; flags++) {
			int refused = method >= GUP_PIN_METHOD_GET &&
				      (flags & GUP_PIN_FLAG_LONGTERM);
			unsigned char b = 0;

			ret = pin(fd, map, len, method, flags, &req);
			if (refused) {
				if (ret != -EINVAL)
					break;
				continue;
			}
			if (ret || req.nr_pinned != 4 || !req.id)
				break;
			ret = kio(fd, GUP_PIN_IOC_READ, req.id, 3 * ps, &b, 1);
			if (ret || b != 0x3c || unpin(fd, req.id, 0))
				break;
		}
		if (flags <= GUP_PIN_FLAGS_ALL)
			break;
	}
	munmap(map, len);
	CHECK(method == GUP_PIN_METHOD_COUNT,
	      "method %u flags 0x%x: %s pinned=%u", method, flags, ename(ret),
	      req.nr_pinned);
	return T_PASS;
}

/*
 * FOLL_FORCE: a PROT_READ private mapping is written only with FOLL_FORCE
 * (COW, as ptrace does); without it GUP's -EFAULT comes back unchanged.
 */
static int t_force_readonly_private(int fd)
{
	size_t len = 2 * ps;
	unsigned char *map = map_anon(len, PROT_READ | PROT_WRITE);
	struct gup_pin_req req;
	unsigned int method;
	int ret;

	CHECK(map, "mmap: %s", strerror(errno));
	memset(map, 1, len);
	mprotect(map, len, PROT_READ);
	for (method = 0; method < GUP_PIN_METHOD_COUNT; method++) {
		ret = pin(fd, map, len, method, GUP_PIN_FLAG_WRITE, &req);
		if (ret != -EFAULT) {
			if (!ret && req.id)
				unpin(fd, req.id, 0);
			munmap(map, len);
			return fail("%u WRITE on PROT_READ: %s, want -EFAULT",
				    method, ename(ret));
		}
		ret = pin(fd, map, len, method,
			  GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_FORCE, &req);
		if (ret || req.nr_pinned != 2) {
			munmap(map, len);
			return fail("%u WRITE|FORCE: %s pinned=%u", method,
				    ename(ret), req.nr_pinned);
		}
		unpin(fd, req.id, 0);
	}
	munmap(map, len);
	return T_PASS;
}

/*
 * Fresh anon memory pinned without FOLL_WRITE is the shared zero page on
 * 6.1: STATE calls it "other", READ gives zeros and WRITE is refused
 * (-EPERM) since it would change every process's zeros.
 */
static int t_zero_page(int fd)
{
	unsigned char *map = map_anon(ps, PROT_READ | PROT_WRITE);
	unsigned char b[16] = { 1 };
	struct gup_page_state st;
	struct gup_pin_req req;
	int ret, verdict = T_PASS;

	CHECK(map, "mmap: %s", strerror(errno));
	ret = pin(fd, map, ps, GUP_PIN_METHOD_PIN, 0, &req);
	if (ret || req.nr_pinned != 1) {
		munmap(map, ps);
		return fail("PIN: %s", ename(ret));
	}
	ret = state(fd, req.id, 0, 1, &st, NULL);
	if (ret || st.kind != GUP_PAGE_OTHER)
		verdict = fail("STATE: %s kind %s", ename(ret),
			       kind_name(st.kind));
	else if ((ret = kio(fd, GUP_PIN_IOC_READ, req.id, 0, b, sizeof(b))) ||
		 b[0] || memcmp(b, b + 1, sizeof(b) - 1))
		verdict = fail("READ: %s", ename(ret));
	else if ((ret = kio(fd, GUP_PIN_IOC_WRITE, req.id, 0, b, 1)) != -EPERM)
		verdict = fail("WRITE: %s, want -EPERM", ename(ret));
	unpin(fd, req.id, 0);
	munmap(map, ps);
	return verdict;
}

/* A range whose tail is unmapped: the pages before the hole, kept. */
static int t_partial_pin(int fd)
{
	unsigned char *map = map_anon(4 * ps, PROT_READ | PROT_WRITE);
	struct gup_pin_req req;
	unsigned int method;
	unsigned char b;
	int ret;

	CHECK(map, "mmap: %s", strerror(errno));
	memset(map, 9, 2 * ps);
	munmap(map + 2 * ps, 2 * ps);
	for (method = 0; method < GUP_PIN_METHOD_COUNT; method++) {
		ret = pin(fd, map, 4 * ps, method, GUP_PIN_FLAG_WRITE, &req);
		if (ret || !req.id || req.nr_pinned != 2 ||
		    req.nr_requested != 4)
			break;
		/* IO past the pages actually pinned is out of range. */
		ret = kio(fd, GUP_PIN_IOC_READ, req.id, 2 * ps, &b, 1);
		unpin(fd, req.id, 0);
		if (ret != -EINVAL)
			break;
	}
	munmap(map, 2 * ps);
	CHECK(method == GUP_PIN_METHOD_COUNT, "method %u: %s id=%u pinned=%u",
	      method, ename(ret), req.id, req.nr_pinned);
	return T_PASS;
}

/* Nothing mapped at all: GUP's own -EFAULT, unchanged, nothing kept. */
static int t_unmapped_efault(int fd)
{
	unsigned char *map = map_anon(2 * ps, PROT_READ | PROT_WRITE);
	struct gup_pin_req req;
	unsigned int method;
	int ret;

	CHECK(map, "mmap: %s", strerror(errno));
	munmap(map, 2 * ps);
	for (method = 0; method < GUP_PIN_METHOD_COUNT; method++) {
		ret = pin(fd, map, 2 * ps, method, 0, &req);
		if (ret != -EFAULT)
			return fail("method %u: %s, want -EFAULT", method,
				    ename(ret));
	}
	return check_nothing_pinned("after failed pins");
}

/* Pins belong to the fd that made them. */
static int t_other_fd_enoent(int fd)
{
	unsigned char *map = map_anon(ps, PROT_READ | PROT_WRITE);
	struct gup_pin_req req;
	unsigned char b;
	int fd2, r1, r2;

	CHECK(map, "mmap: %s", strerror(errno));
	map[0] = 1;
	fd2 = dev_open();
	if (fd2 < 0 || pin(fd, map, ps, GUP_PIN_METHOD_PIN_FAST, 0, &req)) {
		munmap(map, ps);
		return fail("open/PIN: %s", strerror(errno));
	}
	r1 = kio(fd2, GUP_PIN_IOC_READ, req.id, 0, &b, 1);
	r2 = unpin(fd2, req.id, 0);
	close(fd2);
	unpin(fd, req.id, 0);
	munmap(map, ps);
	CHECK(r1 == -ENOENT && r2 == -ENOENT, "READ %s UNPIN %s, want -ENOENT",
	      ename(r1), ename(r2));
	return T_PASS;
}

/* close() with live pins unpins them: debugfs shows nothing left. */
static int t_close_releases(int fd)
{
	unsigned char *map = map_anon(3 * ps, PROT_READ | PROT_WRITE);
	struct gup_pin_req r1, r2;
	unsigned long long live = 0, pages = 0;
	int fd2, lines;

	(void)fd;
	CHECK(map, "mmap: %s", strerror(errno));
	memset(map, 2, 3 * ps);
	fd2 = dev_open();
	if (fd2 < 0 ||
	    pin(fd2, map, 3 * ps, GUP_PIN_METHOD_PIN, GUP_PIN_FLAG_WRITE, &r1) ||
	    pin(fd2, map, 2 * ps, GUP_PIN_METHOD_GET_FAST, 0, &r2)) {
		if (fd2 >= 0)
			close(fd2);
		munmap(map, 3 * ps);
		return fail("open/PIN: %s", strerror(errno));
	}
	lines = pins_lines(getpid());
	total_counter("pins_live", &live);
	total_counter("pages_pinned", &pages);
	close(fd2);
	munmap(map, 3 * ps);
	CHECK(lines == 2 && live == 2 && pages == 5,
	      "with 2 pins of 3+2 pages: pins lines=%d pins_live=%llu pages_pinned=%llu",
	      lines, live, pages);
	return check_nothing_pinned("after close");
}

/* max_pages_total: pin one small range over and over up to the limit. */
static int t_total_limit(int fd)
{
	size_t len = (size_t)ver.max_pages_per_pin * ps;
	unsigned char *map = map_anon(len, PROT_READ | PROT_WRITE);
	unsigned int left = ver.max_pages_total, n;
	struct gup_pin_req req;
	int ret = 0;

	CHECK(map, "mmap %zu: %s", len, strerror(errno));
	memset(map, 4, len);
	while (left && !ret) {
		n = left < ver.max_pages_per_pin ? left : ver.max_pages_per_pin;
		ret = pin(fd, map, (size_t)n * ps, GUP_PIN_METHOD_GET_FAST, 0,
			  &req);
		if (!ret && req.nr_pinned != n)
			ret = -EPROTO;
		left -= n;
	}
	if (!ret)
		ret = pin(fd, map, ps, GUP_PIN_METHOD_PIN_FAST, 0, &req) ==
		      -ENOSPC ? 0 : -EPROTO;
	munmap(map, len);
	CHECK(!ret, "pinning up to max_pages_total=%u: %s (want -ENOSPC past it)",
	      ver.max_pages_total, ename(ret));
	return T_PASS;	/* the fd's close() releases the pins */
}

/* ---- bad input: every case expects one specific errno ---- */

struct bad_case {
	const char *name;
	int want;
	int (*run)(int fd, unsigned char *page);	/* -errno */
};

static int pin_raw(int fd, uint64_t addr, uint64_t len, uint32_t method,
		   uint32_t flags, uint32_t reserved)
{
	struct gup_pin_req req = {
		.addr = addr, .len = len, .method = method, .flags = flags,
		.reserved = reserved,
	};
	int ret = xioctl(fd, GUP_PIN_IOC_PIN, &req);

	if (!ret && req.id)	/* not expected: don't leave it behind */
		unpin(fd, req.id, 0);
	return ret;
}

/* A pin of the test's page; its id or a negative errno. */
static int pin_page(int fd, unsigned char *page)
{
	struct gup_pin_req req;
	int ret = pin(fd, page, ps, GUP_PIN_METHOD_PIN_FAST, 0, &req);

	return ret ? ret : (int)req.id;
}

#define P(page)	((uintptr_t)(page))

static int b_version_null(int fd, unsigned char *p)
{ (void)p; return xioctl(fd, GUP_PIN_IOC_VERSION, NULL); }
static int b_version_kernel_ptr(int fd, unsigned char *p)
{ (void)p; return xioctl(fd, GUP_PIN_IOC_VERSION, (void *)0xffff800000000000ULL); }
static int b_pin_null(int fd, unsigned char *p)
{ (void)p; return xioctl(fd, GUP_PIN_IOC_PIN, NULL); }
static int b_pin_misaligned_addr(int fd, unsigned char *p)
{ return pin_raw(fd, P(p) + 1, ps, 0, 0, 0); }
static int b_pin_misaligned_len(int fd, unsigned char *p)
{ return pin_raw(fd, P(p), ps + 1, 0, 0, 0); }
static int b_pin_len_zero(int fd, unsigned char *p)
{ return pin_raw(fd, P(p), 0, 0, 0, 0); }
static int b_pin_len_wraps(int fd, unsigned char *p)
{ return pin_raw(fd, P(p), ~(uint64_t)ps + 1, 0, 0, 0); }
static int b_pin_kernel_addr(int fd, unsigned char *p)
{ (void)p; return pin_raw(fd, 0xffff800000000000ULL, ps, 0, 0, 0); }
/* Refused before GUP looks at it: the range need not be mapped. */
static int b_pin_too_many_pages(int fd, unsigned char *p)
{ (void)p; return pin_raw(fd, 1ULL << 30, ((uint64_t)ver.max_pages_per_pin + 1) * ps, 0, 0, 0); }
static int b_pin_method_4(int fd, unsigned char *p)
{ return pin_raw(fd, P(p), ps, GUP_PIN_METHOD_COUNT, 0, 0); }
static int b_pin_method_huge(int fd, unsigned char *p)
{ return pin_raw(fd, P(p), ps, 0xffffffffu, 0, 0); }
static int b_pin_flag_bit3(int fd, unsigned char *p)
{ return pin_raw(fd, P(p), ps, 0, 1u << 3, 0); }
static int b_pin_flag_bit31(int fd, unsigned char *p)
{ return pin_raw(fd, P(p), ps, 0, 1u << 31, 0); }
static int b_pin_reserved(int fd, unsigned char *p)
{ return pin_raw(fd, P(p), ps, 0, 0, 1); }
static int b_pin_get_longterm(int fd, unsigned char *p)
{ return pin_raw(fd, P(p), ps, GUP_PIN_METHOD_GET, GUP_PIN_FLAG_LONGTERM, 0); }
static int b_pin_get_fast_longterm(int fd, unsigned char *p)
{ return pin_raw(fd, P(p), ps, GUP_PIN_METHOD_GET_FAST, GUP_PIN_FLAG_LONGTERM | GUP_PIN_FLAG_WRITE, 0); }
static int b_unpin_null(int fd, unsigned char *p)
{ (void)p; return xioctl(fd, GUP_PIN_IOC_UNPIN, NULL); }
static int b_unpin_id0(int fd, unsigned char *p)
{ (void)p; return unpin(fd, 0, 0); }
static int b_unpin_unknown_id(int fd, unsigned char *p)
{ (void)p; return unpin(fd, 0x7ffffff0, 0); }
static int b_unpin_id_max(int fd, unsigned char *p)
{ (void)p; return unpin(fd, 0xffffffffu, 0); }

static int b_unpin_twice(int fd, unsigned char *p)
{
	int id = pin_page(fd, p);

	if (id < 0)
		return id;
	if (unpin(fd, id, GUP_UNPIN_DIRTY))
		return -EPROTO;
	return unpin(fd, id, 0);
}

static int b_unpin_bad_flags(int fd, unsigned char *p)
{
	int id = pin_page(fd, p), ret;

	if (id < 0)
		return id;
	ret = unpin(fd, id, 2);
	unpin(fd, id, 0);
	return ret;
}

/* Pin the page, run one IO with the given fields, unpin. */
static int io_case(int fd, unsigned char *p, unsigned long cmd, int bad_id,
		   uint64_t off, uint64_t len, uint64_t buf, uint32_t reserved)
{
	unsigned char local[64];
	struct gup_pin_io io;
	int id = pin_page(fd, p), ret;

	if (id < 0)
		return id;
	io = (struct gup_pin_io){
		.id = bad_id ? id + 1000 : id, .reserved = reserved,
		.offset = off, .len = len,
		.buf = buf == 1 ? (uintptr_t)local : buf,
	};
	ret = xioctl(fd, cmd, &io);
	unpin(fd, id, 0);
	return ret;
}

static int b_io_null(int fd, unsigned char *p)
{ (void)p; return xioctl(fd, GUP_PIN_IOC_WRITE, NULL); }
static int b_write_past_end(int fd, unsigned char *p)
{ return io_case(fd, p, GUP_PIN_IOC_WRITE, 0, ps - 8, 16, 1, 0); }
static int b_read_offset_past_end(int fd, unsigned char *p)
{ return io_case(fd, p, GUP_PIN_IOC_READ, 0, ps, 1, 1, 0); }
static int b_read_offset_wraps(int fd, unsigned char *p)
{ return io_case(fd, p, GUP_PIN_IOC_READ, 0, ~(uint64_t)0, 2, 1, 0); }
static int b_write_len_zero(int fd, unsigned char *p)
{ return io_case(fd, p, GUP_PIN_IOC_WRITE, 0, 0, 0, 1, 0); }
static int b_write_reserved(int fd, unsigned char *p)
{ return io_case(fd, p, GUP_PIN_IOC_WRITE, 0, 0, 1, 1, 1); }
static int b_write_unknown_id(int fd, unsigned char *p)
{ return io_case(fd, p, GUP_PIN_IOC_WRITE, 1, 0, 1, 1, 0); }
static int b_write_buf_null(int fd, unsigned char *p)
{ return io_case(fd, p, GUP_PIN_IOC_WRITE, 0, 0, 16, 0, 0); }
static int b_read_buf_null(int fd, unsigned char *p)
{ return io_case(fd, p, GUP_PIN_IOC_READ, 0, 0, 16, 0, 0); }
static int b_read_buf_kernel(int fd, unsigned char *p)
{ return io_case(fd, p, GUP_PIN_IOC_READ, 0, 0, 16, 0xffff800000000000ULL, 0); }

static int state_case(int fd, unsigned char *p, int bad_id, uint32_t first,
		      uint32_t count, uint64_t pages, uint32_t reserved)
{
	struct gup_page_state st[2];
	struct gup_pin_state_req r;
	int id = pin_page(fd, p), ret;

	if (id < 0)
		return id;
	r = (struct gup_pin_state_req){
		.id = bad_id ? id + 1000 : id, .first = first, .count = count,
		.reserved = reserved,
		.pages = pages == 1 ? (uintptr_t)st : pages,
	};
	ret = xioctl(fd, GUP_PIN_IOC_STATE, &r);
	unpin(fd, id, 0);
	return ret;
}

static int b_state_null(int fd, unsigned char *p)
{ (void)p; return xioctl(fd, GUP_PIN_IOC_STATE, NULL); }
static int b_state_unknown_id(int fd, unsigned char *p)
{ return state_case(fd, p, 1, 0, 1, 1, 0); }
static int b_state_first_past_end(int fd, unsigned char *p)
{ return state_case(fd, p, 0, 1, 1, 1, 0); }
static int b_state_reserved(int fd, unsigned char *p)
{ return state_case(fd, p, 0, 0, 1, 1, 1); }
static int b_state_pages_null(int fd, unsigned char *p)
{ return state_case(fd, p, 0, 0, 1, 0, 0); }

static int b_unknown_ioctl(int fd, unsigned char *p)
{ (void)p; return xioctl(fd, _IO(GUP_PIN_IOC_TYPE, 0x7f), NULL); }
static int b_pin_wrong_size(int fd, unsigned char *p)
{ (void)p; return xioctl(fd, _IOWR(GUP_PIN_IOC_TYPE, 0x41, uint32_t), p); }

static const struct bad_case bad_cases[] = {
	{ "bad_version_null", -EFAULT, b_version_null },
	{ "bad_version_kernel_ptr", -EFAULT, b_version_kernel_ptr },
	{ "bad_pin_null", -EFAULT, b_pin_null },
	{ "bad_pin_misaligned_addr", -EINVAL, b_pin_misaligned_addr },
	{ "bad_pin_misaligned_len", -EINVAL, b_pin_misaligned_len },
	{ "bad_pin_len_zero", -EINVAL, b_pin_len_zero },
	{ "bad_pin_len_wraps", -EINVAL, b_pin_len_wraps },
	{ "bad_pin_beyond_task_size", -EINVAL, b_pin_kernel_addr },
	{ "bad_pin_over_max_pages_per_pin", -E2BIG, b_pin_too_many_pages },
	{ "bad_pin_method_count", -EINVAL, b_pin_method_4 },
	{ "bad_pin_method_huge", -EINVAL, b_pin_method_huge },
	{ "bad_pin_flag_bit3", -EINVAL, b_pin_flag_bit3 },
	{ "bad_pin_flag_bit31", -EINVAL, b_pin_flag_bit31 },
	{ "bad_pin_reserved", -EINVAL, b_pin_reserved },
	{ "refused_get_user_pages_longterm", -EINVAL, b_pin_get_longterm },
	{ "refused_get_user_pages_fast_longterm", -EINVAL, b_pin_get_fast_longterm },
	{ "bad_unpin_null", -EFAULT, b_unpin_null },
	{ "bad_unpin_id_0", -ENOENT, b_unpin_id0 },
	{ "bad_unpin_unknown_id", -ENOENT, b_unpin_unknown_id },
	{ "bad_unpin_id_u32_max", -ENOENT, b_unpin_id_max },
	{ "bad_unpin_twice", -ENOENT, b_unpin_twice },
	{ "bad_unpin_unknown_flags", -EINVAL, b_unpin_bad_flags },
	{ "bad_io_null", -EFAULT, b_io_null },
	{ "bad_write_past_end", -EINVAL, b_write_past_end },
	{ "bad_read_offset_past_end", -EINVAL, b_read_offset_past_end },
	{ "bad_read_offset_wraps", -EINVAL, b_read_offset_wraps },
	{ "bad_write_len_zero", -EINVAL, b_write_len_zero },
	{ "bad_write_reserved", -EINVAL, b_write_reserved },
	{ "bad_write_unknown_id", -ENOENT, b_write_unknown_id },
	{ "bad_write_buf_null", -EFAULT, b_write_buf_null },
	{ "bad_read_buf_null", -EFAULT, b_read_buf_null },
	{ "bad_read_buf_kernel", -EFAULT, b_read_buf_kernel },
	{ "bad_state_null", -EFAULT, b_state_null },
	{ "bad_state_unknown_id", -ENOENT, b_state_unknown_id },
	{ "bad_state_first_past_end", -EINVAL, b_state_first_past_end },
	{ "bad_state_reserved", -EINVAL, b_state_reserved },
	{ "bad_state_pages_null", -EFAULT, b_state_pages_null },
	{ "bad_ioctl_unknown_nr", -ENOTTY, b_unknown_ioctl },
	{ "bad_ioctl_pin_wrong_size", -ENOTTY, b_pin_wrong_size },
};

static int run_bad_case(int fd, const struct bad_case *c)
{
	unsigned char *page = map_anon(ps, PROT_READ | PROT_WRITE);
	int got;

	CHECK(page, "mmap: %s", strerror(errno));
	page[0] = 1;
	got = c->run(fd, page);
	munmap(page, ps);
	CHECK(got == c->want, "got %s, want %s", ename(got), ename(c->want));
	return T_PASS;
}

/* ---- concurrency ---- */

#define SMOKE_ITERS	150
#define SMOKE_PAGES	8

/* Pin, write, read back, look, unpin on its own anon range; 0 or -1. */
static int smoke_worker(int fd, unsigned int seed)
{
	size_t len = SMOKE_PAGES * ps;
	unsigned char *map = map_anon(len, PROT_READ | PROT_WRITE);
	struct gup_page_state st[SMOKE_PAGES];
	unsigned char in[32], out[32];
	struct gup_pin_req req;
	unsigned int i, n;
	int ret = 0;

	if (!map)
		return -1;
	memset(map, (int)seed, len);
	for (i = 0; i < SMOKE_ITERS && !ret; i++) {
		unsigned int method = (i + seed) % GUP_PIN_METHOD_COUNT;
		uint64_t off = (i * 97) % (len - sizeof(in));

		if (pin(fd, map, len, method, i & 1 ? GUP_PIN_FLAG_WRITE : 0,
			&req) || req.nr_pinned != SMOKE_PAGES) {
			ret = -1;
			break;
		}
		fill(in, sizeof(in), seed + i);
		if (kio(fd, GUP_PIN_IOC_WRITE, req.id, off, in, sizeof(in)) ||
		    kio(fd, GUP_PIN_IOC_READ, req.id, off, out, sizeof(out)) ||
		    memcmp(in, out, sizeof(in)) ||
		    state(fd, req.id, 0, SMOKE_PAGES, st, &n) ||
		    n != SMOKE_PAGES || st[0].kind != GUP_PAGE_ANON)
			ret = -1;
		if (unpin(fd, req.id, i % 3 ? 0 : GUP_UNPIN_DIRTY))
			ret = -1;
	}
	munmap(map, len);
	return ret;
}

struct smoke_thread {
	pthread_t tid;
	int fd;
	unsigned int seed;
	int ret;
};

static void *smoke_thread_fn(void *arg)
{
	struct smoke_thread *t = arg;

	t->ret = smoke_worker(t->fd, t->seed);
	return NULL;
}

static void *debugfs_reader_fn(void *arg)
{
	static char buf[1 << 16];
	int i, *ret = arg;

	for (i = 0; i < SMOKE_ITERS; i++)
		if (debugfs_read(i & 1 ? "pins" : "counters", buf, sizeof(buf)))
			*ret = -1;
	return NULL;
}

/*
 * Three threads on one fd, one thread reading debugfs, and two child
 * processes with their own fd, each in a short bounded loop.
 */
static int t_concurrency(int fd)
{
	struct smoke_thread th[3];
	pthread_t reader;
	int reader_ret = 0, status, i, bad = 0;
	pid_t kids[2];

	for (i = 0; i < 2; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			int cfd = dev_open();

			_exit(cfd < 0 || smoke_worker(cfd, 100 + i) ? 1 : 0);
		}
	}
	for (i = 0; i < 3; i++) {
		th[i].fd = fd;
		th[i].seed = 10 + i;
		th[i].ret = -1;
		if (pthread_create(&th[i].tid, NULL, smoke_thread_fn, &th[i]))
			th[i].tid = 0;
	}
	if (pthread_create(&reader, NULL, debugfs_reader_fn, &reader_ret))
		reader_ret = -1;
	else
		pthread_join(reader, NULL);
	for (i = 0; i < 3; i++) {
		if (th[i].tid)
			pthread_join(th[i].tid, NULL);
		bad += th[i].ret != 0;
	}
	for (i = 0; i < 2; i++) {
		if (kids[i] < 0 || waitpid(kids[i], &status, 0) != kids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	CHECK(!bad && !reader_ret, "%d of 5 workers failed, debugfs reader %d",
	      bad, reader_ret);
	return check_nothing_pinned("after the concurrency smoke");
}

static int t_nothing_pinned(int fd)
{
	(void)fd;
	return check_nothing_pinned("at the end");
}

/* Refusals are counted per method and flag mix; the format is stable. */
static int t_counters_format(int fd)
{
	static char buf[1 << 16];
	const char *want = "pin method=get_user_pages flags=LONGTERM attempts=";
	char *line;
	int buckets = 0;
	unsigned long long refused = 0;

	(void)fd;
	CHECK(!debugfs_read("counters", buf, sizeof(buf)), "read counters");
	for (line = buf; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, "pin method=", 11))
			buckets++;
		if (!strncmp(line, want, strlen(want))) {
			char *r = strstr(line, " refused=");

			if (r)
				refused = strtoull(r + 9, NULL, 10);
		}
	}
	CHECK(buckets == GUP_PIN_METHOD_COUNT * (GUP_PIN_FLAGS_ALL + 1),
	      "%d bucket lines, want %d", buckets,
	      GUP_PIN_METHOD_COUNT * (GUP_PIN_FLAGS_ALL + 1));
	CHECK(refused >= 1, "get_user_pages LONGTERM refused=%llu", refused);
	return T_PASS;
}

static unsigned long taint_at_start;

static int read_taint(unsigned long *taint)
{
	FILE *f = fopen("/proc/sys/kernel/tainted", "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%lu", taint) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* No oops/BUG (D, bit 7) and no WARN (W, bit 9); O and E are expected. */
static int t_not_tainted(int fd)
{
	unsigned long taint;

	(void)fd;
	CHECK(!read_taint(&taint), "cannot read /proc/sys/kernel/tainted");
	CHECK(!(taint & ((1UL << 7) | (1UL << 9))),
	      "tainted=%lu (D/W; at start: %lu)", taint, taint_at_start);
	return T_PASS;
}

struct test {
	const char *name;
	int (*fn)(int fd);
};

static const struct test tests[] = {
	{ "version", t_version },
	{ "anon_roundtrip", t_anon_roundtrip },
	{ "shmem_roundtrip", t_shmem_roundtrip },
	{ "hugetlb_roundtrip", t_hugetlb_roundtrip },
	{ "ext4_roundtrip_readonly_pin", t_ext4_roundtrip },
	{ "ext4_read_pin_stays_clean", t_ext4_read_pin_clean },
	{ "ext4_unpin_dirty_dirties", t_ext4_unpin_dirty },
	{ "anon_method_flag_matrix", t_anon_matrix },
	{ "force_write_readonly_private", t_force_readonly_private },
	{ "zero_page_write_refused", t_zero_page },
	{ "partial_pin_kept", t_partial_pin },
	{ "unmapped_returns_gup_efault", t_unmapped_efault },
	{ "other_fd_cannot_see_pin", t_other_fd_enoent },
	{ "close_releases_pins", t_close_releases },
	{ "max_pages_total_enospc", t_total_limit },
	/* bad_cases[] run here */
	{ "concurrency_smoke", t_concurrency },
	{ "counters_format", t_counters_format },
	{ "nothing_pinned_at_end", t_nothing_pinned },
	{ "not_tainted", t_not_tainted },
};

#define BAD_CASES_AFTER	15	/* index in tests[] before which they run */

static int report(int n, const char *name, int verdict)
{
	if (verdict == T_PASS)
		printf("ok %d %s\n", n, name);
	else if (verdict == T_SKIP)
		printf("ok %d %s # SKIP %s\n", n, name, why);
	else
		printf("not ok %d %s # %s\n", n, name, why);
	fflush(stdout);
	return verdict == T_FAIL;
}

/* Each test runs on a fresh fd; its close() drops whatever it left. */
static int run_one(int n, const char *name, int (*fn)(int),
		   const struct bad_case *c)
{
	int fd = dev_open(), verdict;

	why[0] = '\0';
	if (fd < 0) {
		verdict = fail("open %s: %s", GUP_PIN_TEST_DEVICE,
			       strerror(errno));
	} else {
		verdict = c ? run_bad_case(fd, c) : fn(fd);
		close(fd);
	}
	return report(n, name, verdict);
}

int main(int argc, char **argv)
{
	size_t i, nbad = ARRAY_SIZE(bad_cases);
	int n = 0, failed = 0;

	if (argc > 1)
		ext4_dir = argv[1];
	ps = (size_t)sysconf(_SC_PAGESIZE);
	srandom((unsigned int)getpid());
	read_taint(&taint_at_start);

	printf("KTAP version 1\n1..%zu\n", ARRAY_SIZE(tests) + nbad);
	printf("# ext4 scratch directory: %s\n", ext4_dir);
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		size_t j;

		if (i == BAD_CASES_AFTER)
			for (j = 0; j < nbad; j++)
				failed += run_one(++n, bad_cases[j].name, NULL,
						  &bad_cases[j]);
		failed += run_one(++n, tests[i].name, tests[i].fn, NULL);
	}
	printf("# %d tests, %d failed\n", n, failed);
	return failed ? 1 : 0;
}
