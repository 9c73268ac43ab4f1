// SPDX-License-Identifier: GPL-2.0
/*
 * driver_selftest: exercises /dev/gup_test (module/gup_pin_test.c) from
 * inside a gup-lab guest, on the kernel's own selftest harness
 * (tools/testing/selftests/kselftest_harness.h of the flavour's tree, the
 * way vm/hmm-tests.c tests lib/test_hmm.c), through the wrappers gupctl
 * uses (userspace/lib/gupdev.h for the device, userspace/lib/target.h for the
 * memory).  rootfs/stage-guest.sh builds it, static, with the flavour's
 * tools/testing/selftests and userspace/ on the include path and
 * userspace/lib/gupdev.c and userspace/lib/target.c linked in.
 *
 *   driver_selftest [EXT4_DIR [RO_IMAGE]]   (default /mnt/ext4, no image)
 *
 * RO_IMAGE: an iso9660 image holding a file "data.bin" of at least one page
 * (tests/lab/20-driver.sh builds it on the host); without it the test
 * that needs it is skipped.
 *
 * Runs as root with the module loaded and debugfs on /sys/kernel/debug.
 * Every check must hold on each flavour, and nothing here may make the
 * kernel WARN: the runner fails on any WARNING.  In particular no ext4 page
 * is ever pinned with FOLL_WRITE (gup-v7 refuses FOLL_PIN|FOLL_WRITE on
 * dirty-tracked files in its slow path), no ext4 page is dirtied through
 * the driver unless it is seen to have buffers (ext4_dirty_folio() WARNs
 * otherwise, and ext4-2018 BUGs at writeback), and no method is asked for
 * a flag mix 6.1 WARNs on (FOLL_LONGTERM with a method other than
 * pin_user_pages, _fast or _remote: mm/gup.c:2171-2187, 2367); the matrix
 * runs those cells, where the WARN is expected and attributed.
 *
 * The harness runs each test in its own process, killed after a timeout.
 * The fixture opens the device for the test and its teardown closes it,
 * then checks that the driver holds no pin and no page: a failing test
 * cannot leave pins behind for the next one.  Output is TAP; exit status 0
 * only if every test passed or was skipped.
 */
/*
 * The harness times each test out with alarm(2) (patches/config.fragment
 * enables POSIX_TIMERS for it); the 6.1 harness leaves
 * __timeout_handler()'s ucontext unused.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/loop.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/gupdev.h"
#include "lib/target.h"

#define KERNEL_ADDR	((void *)0xffff800000000000UL)
#define DEBUGFS_MAX	65536

static const char *ext4_dir = "/mnt/ext4";
static const char *ro_image;		/* iso9660 image, NULL: not given */
static size_t ps;			/* page size */

/* Where the tests that mount something mount it (left in place, empty). */
#define TEST_MNT	"/tmp/driver_selftest.mnt"
/* The file in RO_IMAGE. */
#define RO_IMAGE_FILE	"data.bin"
#define NOBODY		65534

/* The flags a pin may take without a WARN from any method (see above). */
#define SAFE_FLAGS	(GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_FORCE)
static unsigned long taint_at_start;

static const char *ret_name(int ret)
{
	return ret ? errno_name(ret) : "0";
}

/* @expr returns 0 or -errno: check it is @want and name both if not. */
#define EXPECT_RET(want, expr) do {					\
	int __want = (want), __got = (expr);				\
	EXPECT_EQ(__want, __got)					\
		TH_LOG("%s: %s, want %s", #expr, ret_name(__got),	\
		       ret_name(__want));				\
} while (0)

#define ASSERT_RET(want, expr) do {					\
	int __want = (want), __got = (expr);				\
	ASSERT_EQ(__want, __got)					\
		TH_LOG("%s: %s, want %s", #expr, ret_name(__got),	\
		       ret_name(__want));				\
} while (0)

static void fill(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 12));
}

/* ---- debugfs ---- */

/*
 * The value of @key on the first line of @buf that starts with @prefix
 * (docs/ABI/debugfs-gup_pin_test: space separated key=value tokens).
 */
static int line_value(const char *buf, const char *prefix, const char *key,
		      unsigned long long *val)
{
	size_t plen = strlen(prefix), klen = strlen(key);
	const char *line, *end, *tok;

	for (line = buf; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (strncmp(line, prefix, plen))
			continue;
		for (tok = line; tok && tok < end; tok = strchr(tok, ' ')) {
			tok += *tok == ' ';
			if (!strncmp(tok, key, klen) && tok[klen] == '=') {
				*val = strtoull(tok + klen + 1, NULL, 10);
				return 0;
			}
		}
		break;
	}
	return -ENOENT;
}

/* Lines of @buf starting with @prefix and holding @needle (NULL: any). */
static int count_lines(const char *buf, const char *prefix,
		       const char *needle)
{
	const char *line, *end;
	int n = 0;

	for (line = buf; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		if (!needle || memmem(line, end - line, needle, strlen(needle)))
			n++;
	}
	return n;
}

static int debugfs_load(const char *name, char *buf)
{
	ssize_t n = gupdev_debugfs_read(name, buf, DEBUGFS_MAX);

	return n < 0 ? (int)n : 0;
}

/* debugfs counters' "total" pins_live and pages_pinned. */
static int totals(unsigned long long *live, unsigned long long *pages)
{
	static char buf[DEBUGFS_MAX];
	int ret = debugfs_load("counters", buf);

	if (!ret)
		ret = line_value(buf, "total ", "pins_live", live);
	if (!ret)
		ret = line_value(buf, "total ", "pages_pinned", pages);
	return ret;
}

/* Lines of debugfs "pins" owned by @pid (0: every line), or -errno. */
static int pins_lines(pid_t pid)
{
	static char buf[DEBUGFS_MAX];
	char needle[32];
	int ret = debugfs_load("pins", buf);

	if (ret)
		return ret;
	snprintf(needle, sizeof(needle), " pid=%d ", (int)pid);
	return count_lines(buf, "id=", pid ? needle : NULL);
}

/*
 * The driver holds no pin and no page: what every test leaves behind.
 * EXPECTs only, so that fixture teardowns can call it.
 */
static void expect_nothing_pinned(struct __test_metadata *_metadata,
				  const char *when)
{
	unsigned long long live = ~0ULL, pages = ~0ULL;
	int ret = totals(&live, &pages);

	EXPECT_EQ(0, ret) TH_LOG("%s: cannot parse %s/counters: %s", when,
				 GUP_PIN_TEST_DEBUGFS, ret_name(ret));
	EXPECT_EQ(0ULL, live) TH_LOG("%s: pins_live", when);
	EXPECT_EQ(0ULL, pages) TH_LOG("%s: pages_pinned", when);
	EXPECT_EQ(0, pins_lines(0)) TH_LOG("%s: lines in %s/pins", when,
					   GUP_PIN_TEST_DEBUGFS);
}

/* ---- fixtures ---- */

static void dev_setup(struct __test_metadata *_metadata, struct gupdev *dev)
{
	int ret = gupdev_open(dev);

	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", GUP_PIN_TEST_DEVICE,
				 ret_name(ret));
}

/* Close @dev (releasing whatever its test left) and check for leftovers. */
static void dev_teardown(struct __test_metadata *_metadata,
			 struct gupdev *dev)
{
	/*
	 * A failed ASSERT longjmp()s out of its TH_LOG loop with ->trigger
	 * still set: the 6.1 harness would then log our next passing check.
	 */
	_metadata->trigger = 0;
	gupdev_close(dev);
	expect_nothing_pinned(_metadata, "after the test closed its fd");
}

static void mem_setup(struct __test_metadata *_metadata, struct target *mem,
		      const struct target_spec *spec)
{
	int ret = target_setup(mem, spec);

	ASSERT_EQ(0, ret) TH_LOG("%s", mem->err);
}

/* Writable anon memory, @pages pages, each a real page (not the zero page). */
static unsigned char *map_anon(struct __test_metadata *_metadata,
			       struct target *mem, size_t pages)
{
	const struct target_spec spec = {
		.kind = TARGET_ANON,
		.length = pages * ps,
		.prefault = TARGET_PREFAULT_WRITE,
	};

	mem_setup(_metadata, mem, &spec);
	return mem->addr;
}

/*
 * The bad-input suite: every test expects one specific errno.  Each has
 * one writable anon page, pinned with FOLL_WRITE, so writable through the
 * pin (for the tests that need a valid id; the
 * teardown's close() releases it); raw ioctl()s only where the gupdev
 * wrappers cannot say what the test sends (NULL or kernel argument
 * pointers, reserved fields, unknown ioctl numbers).
 */
FIXTURE(bad_input)
{
	struct gupdev dev;
	struct target mem;
	unsigned char *page;
	__u32 id;			/* the page's pin */
};

FIXTURE_SETUP(bad_input)
{
	struct gup_pin_req req;

	self->mem.fd = -1;
	self->mem.map = MAP_FAILED;
	dev_setup(_metadata, &self->dev);
	self->page = map_anon(_metadata, &self->mem, 1);
	ASSERT_RET(0, gupdev_pin(&self->dev, self->page, ps,
				 GUP_PIN_METHOD_PIN_FAST, GUP_PIN_FLAG_WRITE,
				 &req));
	ASSERT_EQ(1U, req.nr_pinned);
	self->id = req.id;
}

FIXTURE_TEARDOWN(bad_input)
{
	target_teardown(&self->mem);
	dev_teardown(_metadata, &self->dev);
}

/* Everything else: a device, optionally a second one, memory to pin. */
FIXTURE(gup_test)
{
	struct gupdev dev;
	struct gupdev dev2;		/* for the tests that need two fds */
	struct target mem;		/* the memory under test */
	char ext4_path[PATH_MAX];	/* "" or a file to remove */
	bool mounted;			/* something is mounted on TEST_MNT */
};

FIXTURE_SETUP(gup_test)
{
	self->dev2.fd = -1;
	self->mem.fd = -1;
	self->mem.map = MAP_FAILED;
	dev_setup(_metadata, &self->dev);
}

FIXTURE_TEARDOWN(gup_test)
{
	gupdev_close(&self->dev2);
	if (self->ext4_path[0] && self->mem.map != MAP_FAILED) {
		msync(self->mem.map, self->mem.map_len, MS_SYNC);
		fsync(self->mem.fd);
	}
	target_teardown(&self->mem);
	if (self->ext4_path[0])
		unlink(self->ext4_path);
	dev_teardown(_metadata, &self->dev);
	if (self->mounted)
		umount2(TEST_MNT, MNT_DETACH);
}

/* ---- bad input ---- */

static int bad_ioctl(const struct gupdev *dev, unsigned long cmd, void *arg)
{
	return ioctl(dev->fd, cmd, arg) < 0 ? -errno : 0;
}

/* A PIN whose answer does not matter, only its return. */
static int try_pin(struct gupdev *dev, void *addr, size_t len,
		   unsigned int method, unsigned int flags)
{
	struct gup_pin_req req;

	return gupdev_pin(dev, addr, len, method, flags, &req);
}

TEST_F(bad_input, version_null)
{
	EXPECT_RET(-EFAULT, bad_ioctl(&self->dev, GUP_PIN_IOC_VERSION, NULL));
}

TEST_F(bad_input, version_kernel_ptr)
{
	EXPECT_RET(-EFAULT,
		   bad_ioctl(&self->dev, GUP_PIN_IOC_VERSION, KERNEL_ADDR));
}

TEST_F(bad_input, pin_null)
{
	EXPECT_RET(-EFAULT, bad_ioctl(&self->dev, GUP_PIN_IOC_PIN, NULL));
}

TEST_F(bad_input, pin_misaligned_addr)
{
	EXPECT_RET(-EINVAL, try_pin(&self->dev, self->page + 1, ps, 0, 0));
}

TEST_F(bad_input, pin_misaligned_len)
{
	EXPECT_RET(-EINVAL, try_pin(&self->dev, self->page, ps + 1, 0, 0));
}

TEST_F(bad_input, pin_len_zero)
{
	EXPECT_RET(-EINVAL, try_pin(&self->dev, self->page, 0, 0, 0));
}

TEST_F(bad_input, pin_len_wraps)
{
	EXPECT_RET(-EINVAL, try_pin(&self->dev, self->page, -ps, 0, 0));
}

TEST_F(bad_input, pin_beyond_task_size)
{
	EXPECT_RET(-EINVAL, try_pin(&self->dev, KERNEL_ADDR, ps, 0, 0));
}

/* Refused before GUP looks at it: the range need not be mapped. */
TEST_F(bad_input, pin_over_max_pages_per_pin)
{
	size_t len = ((size_t)self->dev.ver.max_pages_per_pin + 1) * ps;

	EXPECT_RET(-E2BIG, try_pin(&self->dev, (void *)(1UL << 30), len, 0, 0));
}

TEST_F(bad_input, pin_method_count)
{
	EXPECT_RET(-EINVAL, try_pin(&self->dev, self->page, ps,
				    GUP_PIN_METHOD_COUNT, 0));
}

TEST_F(bad_input, pin_method_huge)
{
	EXPECT_RET(-EINVAL, try_pin(&self->dev, self->page, ps, ~0U, 0));
}

TEST_F(bad_input, pin_flag_bit4)
{
	EXPECT_RET(-EINVAL, try_pin(&self->dev, self->page, ps, 0, 1U << 4));
}

TEST_F(bad_input, pin_flag_bit31)
{
	EXPECT_RET(-EINVAL, try_pin(&self->dev, self->page, ps, 0, 1U << 31));
}

TEST_F(bad_input, pin_reserved)
{
	struct gup_pin_req req = {
		.addr = (uintptr_t)self->page,
		.len = ps,
		.reserved = 1,
	};

	EXPECT_RET(-EINVAL, bad_ioctl(&self->dev, GUP_PIN_IOC_PIN, &req));
}

TEST_F(bad_input, unpin_null)
{
	EXPECT_RET(-EFAULT, bad_ioctl(&self->dev, GUP_PIN_IOC_UNPIN, NULL));
}

TEST_F(bad_input, unpin_id_0)
{
	EXPECT_RET(-ENOENT, gupdev_unpin(&self->dev, 0, 0));
}

TEST_F(bad_input, unpin_unknown_id)
{
	EXPECT_RET(-ENOENT, gupdev_unpin(&self->dev, 0x7ffffff0, 0));
}

TEST_F(bad_input, unpin_id_u32_max)
{
	EXPECT_RET(-ENOENT, gupdev_unpin(&self->dev, UINT32_MAX, 0));
}

TEST_F(bad_input, unpin_twice)
{
	ASSERT_RET(0, gupdev_unpin(&self->dev, self->id, GUP_UNPIN_DIRTY));
	EXPECT_RET(-ENOENT, gupdev_unpin(&self->dev, self->id, 0));
}

TEST_F(bad_input, unpin_unknown_flags)
{
	EXPECT_RET(-EINVAL, gupdev_unpin(&self->dev, self->id, 2));
	EXPECT_RET(0, gupdev_unpin(&self->dev, self->id, 0));
}

TEST_F(bad_input, io_null)
{
	EXPECT_RET(-EFAULT, bad_ioctl(&self->dev, GUP_PIN_IOC_WRITE, NULL));
}

TEST_F(bad_input, write_past_end)
{
	unsigned char buf[16] = { 0 };

	EXPECT_RET(-EINVAL, gupdev_write(&self->dev, self->id, ps - 8, buf,
					 sizeof(buf)));
}

TEST_F(bad_input, read_offset_past_end)
{
	unsigned char buf[1];

	EXPECT_RET(-EINVAL, gupdev_read(&self->dev, self->id, ps, buf, 1));
}

TEST_F(bad_input, read_offset_wraps)
{
	unsigned char buf[2];

	EXPECT_RET(-EINVAL, gupdev_read(&self->dev, self->id, ~0ULL, buf, 2));
}

TEST_F(bad_input, write_len_zero)
{
	unsigned char buf[1] = { 0 };

	EXPECT_RET(-EINVAL, gupdev_write(&self->dev, self->id, 0, buf, 0));
}

TEST_F(bad_input, write_reserved)
{
	unsigned char buf[1] = { 0 };
	struct gup_pin_io io = {
		.id = self->id,
		.reserved = 1,
		.len = 1,
		.buf = (uintptr_t)buf,
	};

	EXPECT_RET(-EINVAL, bad_ioctl(&self->dev, GUP_PIN_IOC_WRITE, &io));
}

TEST_F(bad_input, write_unknown_id)
{
	unsigned char buf[1] = { 0 };

	EXPECT_RET(-ENOENT,
		   gupdev_write(&self->dev, self->id + 1000, 0, buf, 1));
}

TEST_F(bad_input, write_buf_null)
{
	EXPECT_RET(-EFAULT, gupdev_write(&self->dev, self->id, 0, NULL, 16));
}

TEST_F(bad_input, read_buf_null)
{
	EXPECT_RET(-EFAULT, gupdev_read(&self->dev, self->id, 0, NULL, 16));
}

TEST_F(bad_input, read_buf_kernel)
{
	EXPECT_RET(-EFAULT,
		   gupdev_read(&self->dev, self->id, 0, KERNEL_ADDR, 16));
}

TEST_F(bad_input, state_null)
{
	EXPECT_RET(-EFAULT, bad_ioctl(&self->dev, GUP_PIN_IOC_STATE, NULL));
}

TEST_F(bad_input, state_unknown_id)
{
	struct gup_page_state st[1];
	__u32 n = 1;

	EXPECT_RET(-ENOENT,
		   gupdev_state(&self->dev, self->id + 1000, 0, st, &n));
}

TEST_F(bad_input, state_first_past_end)
{
	struct gup_page_state st[1];
	__u32 n = 1;

	EXPECT_RET(-EINVAL, gupdev_state(&self->dev, self->id, 1, st, &n));
}

TEST_F(bad_input, state_reserved)
{
	struct gup_page_state st[1];
	struct gup_pin_state_req r = {
		.id = self->id,
		.count = 1,
		.reserved = 1,
		.pages = (uintptr_t)st,
	};

	EXPECT_RET(-EINVAL, bad_ioctl(&self->dev, GUP_PIN_IOC_STATE, &r));
}

TEST_F(bad_input, state_pages_null)
{
	__u32 n = 1;

	EXPECT_RET(-EFAULT, gupdev_state(&self->dev, self->id, 0, NULL, &n));
}

/* ABI 1's VERSION (16 bytes): answered, with the ABI version in it. */
TEST_F(bad_input, version_abi1_size)
{
	__u32 v[5] = { 0, 0, 0, 0, 0xdeadbeef };

	EXPECT_RET(0, bad_ioctl(&self->dev, _IOR(GUP_PIN_IOC_TYPE,
						 GUP_PIN_IOC_VERSION_NR,
						 __u32[4]), v));
	EXPECT_EQ((__u32)GUP_PIN_TEST_ABI_VERSION, v[0]);
	EXPECT_EQ(0xdeadbeefU, v[4]) TH_LOG("wrote past 16 bytes");
}

/* Smaller than abi_version: not the VERSION ioctl. */
TEST_F(bad_input, version_too_small)
{
	__u16 v = 0;

	EXPECT_RET(-ENOTTY, bad_ioctl(&self->dev, _IOR(GUP_PIN_IOC_TYPE,
						       GUP_PIN_IOC_VERSION_NR,
						       __u16), &v));
}

TEST_F(bad_input, ioctl_unknown_nr)
{
	EXPECT_RET(-ENOTTY, bad_ioctl(&self->dev, _IO(GUP_PIN_IOC_TYPE, 0x7f),
				      NULL));
}

/* GUP_PIN_IOC_PIN's number with another size is another ioctl. */
TEST_F(bad_input, ioctl_pin_wrong_size)
{
	EXPECT_RET(-ENOTTY,
		   bad_ioctl(&self->dev, _IOWR(GUP_PIN_IOC_TYPE, 0x41, __u32),
			     self->page));
}

/* ---- round trips ---- */

/* pin_user_pages*() take FOLL_PIN, get_user_pages*() FOLL_GET. */
static bool method_pins(unsigned int method)
{
	return !strncmp(gup_method_name(method), "pin_", 4);
}

/* Every page of pin @req has @kind and @fs; FOLL_PIN ones look pinned. */
static void check_kind(struct __test_metadata *_metadata, struct gupdev *dev,
		       const struct gup_pin_req *req, unsigned int kind,
		       const char *fs)
{
	struct gup_page_state st[16];
	__u32 i, n = ARRAY_SIZE(st);

	ASSERT_RET(0, gupdev_state(dev, req->id, 0, st, &n));
	ASSERT_EQ(req->nr_pinned < ARRAY_SIZE(st) ? req->nr_pinned :
		  ARRAY_SIZE(st), n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(kind, st[i].kind)
			TH_LOG("page %u: kind %s, want %s", i,
			       gup_page_kind_name(st[i].kind),
			       gup_page_kind_name(kind));
		EXPECT_STREQ(fs, st[i].fs_name) TH_LOG("page %u", i);
		/* FOLL_PIN adds GUP_PIN_COUNTING_BIAS: always visible. */
		if (!method_pins(req->method))
			continue;
		EXPECT_NE(0U, st[i].state & GUP_PAGE_MAYBE_DMA_PINNED)
			TH_LOG("page %u: FOLL_PIN but not dma-pinned", i);
	}
}

/*
 * Pin @mem's range with @method/@flags, write a pattern through the kernel
 * mapping (whole range, then a range across a page boundary), read it
 * back, and check the user mapping sees it; unpin with @unpin_flags.
 */
static void roundtrip(struct __test_metadata *_metadata, struct gupdev *dev,
		      const struct target *mem, unsigned int method,
		      unsigned int flags, unsigned int kind, const char *fs,
		      unsigned int unpin_flags)
{
	size_t len = mem->len;
	unsigned char *want = malloc(len), *got = malloc(len);
	struct gup_pin_req req;

	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, got);
	ASSERT_RET(0, gupdev_pin(dev, mem->addr, len, method, flags, &req));
	ASSERT_NE(0U, req.id);
	ASSERT_EQ(len / ps, req.nr_requested);
	ASSERT_EQ(len / ps, req.nr_pinned);
	fill(want, len, req.id);
	ASSERT_RET(0, gupdev_write(dev, req.id, 0, want, len));
	fill(want + ps - 50, 100, req.id + 1);
	ASSERT_RET(0, gupdev_write(dev, req.id, ps - 50, want + ps - 50, 100));
	ASSERT_RET(0, gupdev_read(dev, req.id, 0, got, len));
	EXPECT_EQ(0, memcmp(want, got, len))
		TH_LOG("READ back differs from what WRITE wrote");
	EXPECT_EQ(0, memcmp(want, mem->addr, len))
		TH_LOG("the user mapping does not see the kernel's writes");
	check_kind(_metadata, dev, &req, kind, fs);
	EXPECT_RET(0, gupdev_unpin(dev, req.id, unpin_flags));
	free(want);
	free(got);
}

TEST_F(gup_test, version)
{
	const struct gup_pin_version *ver = &self->dev.ver;

	/* gupdev_open() asked GUP_PIN_IOC_VERSION and checked the ABI. */
	EXPECT_EQ((__u32)GUP_PIN_TEST_ABI_VERSION, ver->abi_version);
	EXPECT_EQ(ps, ver->page_size);
	EXPECT_LE(8U, ver->max_pages_per_pin);
	EXPECT_LE(ver->max_pages_per_pin, ver->max_pages_total);
	EXPECT_EQ(0U, ver->features & ~GUP_PIN_FEATURE_ALLOW_BROKEN);
	EXPECT_EQ(0U, ver->reserved[0] | ver->reserved[1] | ver->reserved[2]);
}

/* ---- BENCH (ABI 3): bad requests refused, nothing outlives the call ---- */

/* A BENCH of the fixture's page: one page, one per call. */
static struct gup_pin_bench bench_req(const unsigned char *page)
{
	struct gup_pin_bench b = {
		.addr = (uintptr_t)page, .len = ps,
		.method = GUP_PIN_METHOD_PIN_FAST, .flags = GUP_PIN_FLAG_WRITE,
		.nr_per_call = 1,
	};

	return b;
}

TEST_F(bad_input, bench_null)
{
	EXPECT_RET(-EFAULT, bad_ioctl(&self->dev, GUP_PIN_IOC_BENCH, NULL));
}

TEST_F(bad_input, bench_nr_per_call_zero)
{
	struct gup_pin_bench b = bench_req(self->page);

	b.nr_per_call = 0;
	EXPECT_RET(-EINVAL, gupdev_bench(&self->dev, &b));
}

TEST_F(bad_input, bench_method_count)
{
	struct gup_pin_bench b = bench_req(self->page);

	b.method = GUP_PIN_METHOD_COUNT;
	EXPECT_RET(-EINVAL, gupdev_bench(&self->dev, &b));
}

TEST_F(bad_input, bench_flag_bit4)
{
	struct gup_pin_bench b = bench_req(self->page);

	b.flags = 1U << 4;
	EXPECT_RET(-EINVAL, gupdev_bench(&self->dev, &b));
}

TEST_F(bad_input, bench_misaligned_len)
{
	struct gup_pin_bench b = bench_req(self->page);

	b.len = ps + 1;
	EXPECT_RET(-EINVAL, gupdev_bench(&self->dev, &b));
}

TEST_F(bad_input, bench_len_wraps)
{
	struct gup_pin_bench b = bench_req(self->page);

	b.len = -(__u64)ps;
	EXPECT_RET(-EINVAL, gupdev_bench(&self->dev, &b));
}

/* The out fields must come in as 0, the reserved ones too. */
TEST_F(bad_input, bench_out_fields_set)
{
	struct gup_pin_bench b = bench_req(self->page);

	b.pin_ns = 1;
	EXPECT_RET(-EINVAL, gupdev_bench(&self->dev, &b));
	b = bench_req(self->page);
	b.reserved[2] = 1;
	EXPECT_RET(-EINVAL, gupdev_bench(&self->dev, &b));
}

/* One page past what max_pages_total leaves beside the fixture's pin. */
TEST_F(bad_input, bench_over_max_pages_total)
{
	struct gup_pin_bench b = bench_req(self->page);

	b.addr = 1UL << 30;
	b.len = (__u64)self->dev.ver.max_pages_total * ps;
	EXPECT_RET(-ENOSPC, gupdev_bench(&self->dev, &b));
}

/*
 * A hole: the GUP call's -EFAULT is the answer's err, the ioctl succeeds,
 * nothing is taken and nothing stays.
 */
TEST_F(bad_input, bench_hole_is_err)
{
	struct gup_pin_bench b = bench_req(self->page);

	b.addr = 1UL << 30;
	EXPECT_RET(0, gupdev_bench(&self->dev, &b));
	EXPECT_EQ((__u32)EFAULT, b.err);
	EXPECT_EQ(0U, b.nr_taken);
}

/*
 * Every method takes every page of 16 written anon pages, a few per call,
 * and gives them back: no pin left, the pages still the process's own.
 */
TEST_F(gup_test, bench_takes_and_gives_back)
{
	unsigned char *p = map_anon(_metadata, &self->mem, 16);
	unsigned int m;

	memset(p, 0x3c, 16 * ps);
	for (m = 0; m < GUP_PIN_METHOD_COUNT; m++) {
		struct gup_pin_bench b = {
			.addr = (uintptr_t)p, .len = 16 * ps, .method = m,
			.flags = GUP_PIN_FLAG_WRITE, .nr_per_call = 5,
		};

		ASSERT_RET(0, gupdev_bench(&self->dev, &b));
		EXPECT_EQ(0U, b.err) TH_LOG("method %u: %s", m, ret_name(-(int)b.err));
		EXPECT_EQ(16U, b.nr_taken) TH_LOG("method %u", m);
		/* 0 is possible: under the jiffies clock a short run is one tick */
		EXPECT_LT(b.pin_ns + b.unpin_ns, 10000000000ULL) TH_LOG("method %u: over 10 s", m);
		expect_nothing_pinned(_metadata, "after BENCH");
	}
	EXPECT_EQ(0x3c, p[15 * ps]);
}

/* Anon memory: every method takes it writable, on every flavour. */
static void anon_roundtrip(struct __test_metadata *_metadata,
			   struct gupdev *dev, struct target *mem,
			   unsigned int method)
{
	memset(map_anon(_metadata, mem, 4), 0x5a, 4 * ps);
	roundtrip(_metadata, dev, mem, method, GUP_PIN_FLAG_WRITE,
		  GUP_PAGE_ANON, "", GUP_UNPIN_DIRTY);
}

TEST_F(gup_test, anon_roundtrip)
{
	anon_roundtrip(_metadata, &self->dev, &self->mem,
		       GUP_PIN_METHOD_PIN_FAST);
}

/* The caller's own mm, mmap_lock held, locked NULL. */
TEST_F(gup_test, anon_roundtrip_pin_remote)
{
	anon_roundtrip(_metadata, &self->dev, &self->mem,
		       GUP_PIN_METHOD_PIN_REMOTE);
}

TEST_F(gup_test, anon_roundtrip_get_remote)
{
	anon_roundtrip(_metadata, &self->dev, &self->mem,
		       GUP_PIN_METHOD_GET_REMOTE);
}

/* They take mmap_lock themselves. */
TEST_F(gup_test, anon_roundtrip_pin_unlocked)
{
	anon_roundtrip(_metadata, &self->dev, &self->mem,
		       GUP_PIN_METHOD_PIN_UNLOCKED);
}

TEST_F(gup_test, anon_roundtrip_get_unlocked)
{
	anon_roundtrip(_metadata, &self->dev, &self->mem,
		       GUP_PIN_METHOD_GET_UNLOCKED);
}

/* shmem is not dirty tracked: gup-v7 allows even LONGTERM|WRITE on it. */
TEST_F(gup_test, shmem_roundtrip)
{
	const struct target_spec spec = {
		.kind = TARGET_SHMEM,
		.length = 4 * ps,
	};

	mem_setup(_metadata, &self->mem, &spec);
	memset(self->mem.addr, 0xa5, 4 * ps);
	roundtrip(_metadata, &self->dev, &self->mem, GUP_PIN_METHOD_PIN_FAST,
		  GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_LONGTERM, GUP_PAGE_SHMEM,
		  "tmpfs", GUP_UNPIN_DIRTY);
}

/*
 * hugetlbfs (memfd MFD_HUGETLB): not dirty tracked, whitelisted by gup-v7
 * in both paths.  Four small pages of one huge page, LONGTERM|WRITE.
 * Skipped when the guest has no free huge page (mmap reserves one).
 */
TEST_F(gup_test, hugetlb_roundtrip)
{
	const struct target_spec spec = {
		.kind = TARGET_HUGETLB,
		.length = 4 * ps,
	};

	if (target_setup(&self->mem, &spec))
		SKIP(return, "%s", self->mem.err);
	memset(self->mem.addr, 0x77, 4 * ps);
	roundtrip(_metadata, &self->dev, &self->mem, GUP_PIN_METHOD_PIN_FAST,
		  GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_LONGTERM, GUP_PAGE_HUGETLB,
		  "hugetlbfs", GUP_UNPIN_DIRTY);
}

/*
 * A file of @pages pages on the scratch ext4, written with write() and
 * fsync()ed (clean, blocks allocated), mapped by target_setup()
 * (MAP_SHARED, or MAP_PRIVATE if @private; touched as @prefault says) and
 * mlock()ed so that neither reclaim nor a cache drop can swap its pages for
 * fresh ones without buffers between the steps of a test.  The teardown
 * syncs and removes it.
 */
/*
 * Write @pages pages of pattern 7 to a new file of the scratch ext4 (its
 * path in @path), fsync it (clean, blocks allocated).
 */
static void write_ext4_file(struct __test_metadata *_metadata,
			    char path[PATH_MAX], size_t pages)
{
	size_t len = pages * ps;
	unsigned char *buf = malloc(len);
	int fd;

	ASSERT_NE(NULL, buf);
	snprintf(path, PATH_MAX, "%s/driver_selftest.%d", ext4_dir,
		 (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", path, strerror(errno));
	fill(buf, len, 7);
	ASSERT_EQ((ssize_t)len, pwrite(fd, buf, len, 0))
		TH_LOG("write %s: %s", path, strerror(errno));
	ASSERT_EQ(0, fsync(fd)) TH_LOG("fsync %s: %s", path, strerror(errno));
	close(fd);
	free(buf);
}

static unsigned char *map_ext4(struct __test_metadata *_metadata,
			       struct target *mem, char path[PATH_MAX],
			       size_t pages, bool read_only, bool private,
			       enum target_prefault prefault)
{
	const struct target_spec spec = {
		.kind = TARGET_FILE,
		.path = path,
		.read_only = read_only,
		.private = private,
		.length = pages * ps,
		.prefault = prefault,
	};

	write_ext4_file(_metadata, path, pages);
	mem_setup(_metadata, mem, &spec);
	mlock(mem->addr, spec.length);	/* best effort (CAP_IPC_LOCK) */
	return mem->addr;
}

/*
 * ext4: a pin without FOLL_WRITE (allowed on every flavour, fast or slow
 * path), then the kernel writes through its own mapping.  The pages were
 * dirtied by a user write just before (page_mkwrite attached buffers), so
 * the kernel write lands on dirty pages with buffers; unpinned without
 * dirtying.
 */
TEST_F(gup_test, ext4_roundtrip_readonly_pin)
{
	unsigned char *map, *back = malloc(4 * ps);

	ASSERT_NE(NULL, back);
	map = map_ext4(_metadata, &self->mem, self->ext4_path, 4, false, false,
		       TARGET_PREFAULT_WRITE);
	roundtrip(_metadata, &self->dev, &self->mem, GUP_PIN_METHOD_PIN_FAST, 0,
		  GUP_PAGE_FILE, "ext4", 0);
	/* read(2) goes through the page cache: it sees the kernel's bytes. */
	ASSERT_EQ((ssize_t)(4 * ps), pread(self->mem.fd, back, 4 * ps, 0))
		TH_LOG("pread: %s", strerror(errno));
	EXPECT_EQ(0, memcmp(back, map, 4 * ps))
		TH_LOG("read(2) does not see the kernel's writes");
	free(back);
}

/*
 * ext4, a page that was only read: written with write() and fsync()ed
 * (fsync waits for writeback, so not dirty and not under writeback), opened
 * O_RDONLY, mapped read-only and pinned without FOLL_WRITE.  Nothing on any
 * flavour dirties it: GUP without FOLL_WRITE runs no page_mkwrite.
 */
TEST_F(gup_test, ext4_read_pin_stays_clean)
{
	struct gup_page_state st[2];
	struct gup_pin_req req;
	__u32 i, n = 2;

	map_ext4(_metadata, &self->mem, self->ext4_path, 2, true, false,
		 TARGET_PREFAULT_NONE);
	ASSERT_RET(0, gupdev_pin(&self->dev, self->mem.addr, 2 * ps,
				 GUP_PIN_METHOD_PIN, 0, &req));
	ASSERT_EQ(2U, req.nr_pinned);
	ASSERT_RET(0, gupdev_state(&self->dev, req.id, 0, st, &n));
	ASSERT_EQ(2U, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ((__u32)GUP_PAGE_FILE, st[i].kind)
			TH_LOG("page %u: kind %s", i,
			       gup_page_kind_name(st[i].kind));
		EXPECT_STREQ("ext4", st[i].fs_name) TH_LOG("page %u", i);
		EXPECT_EQ(0U, st[i].state & GUP_PAGE_DIRTY)
			TH_LOG("page %u: dirty (0x%x)", i, st[i].state);
		EXPECT_EQ(0U, st[i].state & GUP_PAGE_WRITEBACK)
			TH_LOG("page %u: writeback (0x%x)", i, st[i].state);
		EXPECT_NE(0U, st[i].state & GUP_PAGE_UPTODATE)
			TH_LOG("page %u: state 0x%x", i, st[i].state);
		EXPECT_NE(0U, st[i].state & GUP_PAGE_MAYBE_DMA_PINNED)
			TH_LOG("page %u: state 0x%x", i, st[i].state);
		EXPECT_EQ(i, st[i].index);
	}
	/* Never dirty a page we did not check. */
	EXPECT_RET(0, gupdev_unpin(&self->dev, req.id, 0));
}

/*
 * ext4, the lab's point in small: a clean page with buffers (user write,
 * then msync: writeback cleans it and ext4 keeps its buffers; mlock keeps
 * it cached), pinned read-only.  The kernel's write does not dirty it (it
 * bypasses the file system); UNPIN with GUP_UNPIN_DIRTY does, and a new pin
 * sees it dirty.  The dirtying happens only once the page is seen to have
 * buffers, so ext4_dirty_folio() has nothing to WARN about; the page is
 * re-dirtied well before periodic writeback (30 s expiry) could clean it.
 * An ASSERT failing before the dirtying unpin leaves the pin to the
 * teardown's close(), which does not dirty.
 */
TEST_F(gup_test, ext4_unpin_dirty_dirties)
{
	unsigned char pat[64], *map;
	struct gup_page_state st;
	struct gup_pin_req req;
	__u32 n = 1;

	map = map_ext4(_metadata, &self->mem, self->ext4_path, 1, false, false,
		       TARGET_PREFAULT_WRITE);
	ASSERT_EQ(0, msync(map, ps, MS_SYNC)) TH_LOG("msync: %s",
						     strerror(errno));
	ASSERT_RET(0, gupdev_pin(&self->dev, map, ps, GUP_PIN_METHOD_PIN_FAST,
				 0, &req));
	ASSERT_EQ(1U, req.nr_pinned);
	ASSERT_RET(0, gupdev_state(&self->dev, req.id, 0, &st, &n));
	ASSERT_EQ(0U, st.state & GUP_PAGE_DIRTY)
		TH_LOG("dirty after msync: state 0x%x", st.state);
	if (!(st.state & GUP_PAGE_HAS_BUFFERS))
		SKIP(return, "page has no buffers: dirtying it would WARN");
	fill(pat, sizeof(pat), 9);
	ASSERT_RET(0, gupdev_write(&self->dev, req.id, 128, pat, sizeof(pat)));
	ASSERT_RET(0, gupdev_state(&self->dev, req.id, 0, &st, &n));
	ASSERT_EQ(0U, st.state & GUP_PAGE_DIRTY)
		TH_LOG("the kernel's write dirtied the page: state 0x%x",
		       st.state);
	ASSERT_RET(0, gupdev_unpin(&self->dev, req.id, GUP_UNPIN_DIRTY));
	ASSERT_RET(0, gupdev_pin(&self->dev, map, ps, GUP_PIN_METHOD_PIN_FAST,
				 0, &req));
	ASSERT_EQ(1U, req.nr_pinned);
	ASSERT_RET(0, gupdev_state(&self->dev, req.id, 0, &st, &n));
	EXPECT_NE(0U, st.state & GUP_PAGE_DIRTY)
		TH_LOG("not dirty after UNPIN DIRTY: state 0x%x", st.state);
	EXPECT_EQ(0, memcmp(map + 128, pat, sizeof(pat)))
		TH_LOG("the user mapping does not see the kernel's write");
	EXPECT_RET(0, gupdev_unpin(&self->dev, req.id, 0));
}

/* 6.1 takes FOLL_LONGTERM with these methods only (see the top). */
static bool takes_longterm(unsigned int method)
{
	return method == GUP_PIN_METHOD_PIN ||
	       method == GUP_PIN_METHOD_PIN_FAST ||
	       method == GUP_PIN_METHOD_PIN_REMOTE;
}

/*
 * Every method and flag mix on writable anon memory, but for the mixes
 * 6.1 WARNs on and ALLOW_BROKEN (tested on its own): every page is pinned
 * on every flavour, READ works, and WRITE and a dirtying UNPIN work exactly
 * for the FOLL_WRITE pins (the write rule: anonymous memory may be shared
 * with a fork child, only a write pin has a page of its own).
 */
TEST_F(gup_test, anon_method_flag_matrix)
{
	unsigned char *map = map_anon(_metadata, &self->mem, 4);
	unsigned int method, flags;
	struct gup_pin_req req;
	char fl[64];

	memset(map, 0x3c, 4 * ps);
	for (method = 0; method < GUP_PIN_METHOD_COUNT; method++) {
		for (flags = 0; flags <= GUP_PIN_FLAGS_ALL; flags++) {
			const char *name = gup_method_name(method);
			int want = flags & GUP_PIN_FLAG_WRITE ? 0 : -EPERM;
			unsigned char b = 0;
			int ret;

			if ((flags & GUP_PIN_FLAG_ALLOW_BROKEN) ||
			    ((flags & GUP_PIN_FLAG_LONGTERM) &&
			     !takes_longterm(method)))
				continue;
			gup_flags_str(flags, fl, sizeof(fl));
			ret = gupdev_pin(&self->dev, map, 4 * ps, method, flags,
					 &req);
			ASSERT_EQ(0, ret) TH_LOG("%s %s: %s", name, fl,
						 ret_name(ret));
			ASSERT_EQ(4U, req.nr_pinned) TH_LOG("%s %s", name, fl);
			ASSERT_RET(0, gupdev_read(&self->dev, req.id, 3 * ps,
						  &b, 1));
			ASSERT_EQ(0x3c, b);
			ret = gupdev_write(&self->dev, req.id, 3 * ps, &b, 1);
			EXPECT_EQ(want, ret) TH_LOG("%s %s: WRITE %s", name, fl,
						    ret_name(ret));
			ret = gupdev_unpin(&self->dev, req.id, GUP_UNPIN_DIRTY);
			EXPECT_EQ(want, ret) TH_LOG("%s %s: UNPIN DIRTY %s",
						    name, fl, ret_name(ret));
			if (ret)
				ASSERT_RET(0, gupdev_unpin(&self->dev, req.id,
							   0));
		}
	}
}

/*
 * FOLL_FORCE: a PROT_READ private mapping is written only with FOLL_FORCE
 * (COW, as ptrace does); without it GUP's -EFAULT comes back unchanged.
 */
TEST_F(gup_test, force_write_readonly_private)
{
	unsigned char *map = map_anon(_metadata, &self->mem, 2);
	struct gup_pin_req req;
	unsigned int method;
	int ret;

	memset(map, 1, 2 * ps);
	ASSERT_EQ(0, mprotect(map, 2 * ps, PROT_READ));
	for (method = 0; method < GUP_PIN_METHOD_COUNT; method++) {
		const char *name = gup_method_name(method);

		ret = gupdev_pin(&self->dev, map, 2 * ps, method,
				 GUP_PIN_FLAG_WRITE, &req);
		ASSERT_EQ(-EFAULT, ret)
			TH_LOG("%s WRITE: %s", name, ret_name(ret));
		ret = gupdev_pin(&self->dev, map, 2 * ps, method,
				 GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_FORCE, &req);
		ASSERT_EQ(0, ret) TH_LOG("%s WRITE|FORCE: %s", name,
					 ret_name(ret));
		ASSERT_EQ(2U, req.nr_pinned) TH_LOG("%s WRITE|FORCE", name);
		ASSERT_RET(0, gupdev_unpin(&self->dev, req.id, 0));
	}
}

/*
 * Fresh anon memory pinned without FOLL_WRITE is the shared zero page on
 * 6.1: STATE calls it "other", READ gives zeros and WRITE is refused
 * (-EPERM) twice over: a read pin of anon memory is not writable (the
 * write rule), and the zero page never is (it would change every
 * process's zeros).
 */
TEST_F(gup_test, zero_page_write_refused)
{
	const struct target_spec spec = { .kind = TARGET_ANON, .length = ps };
	unsigned char b[16] = { 1 }, zeros[16] = { 0 };
	struct gup_page_state st;
	struct gup_pin_req req;
	__u32 n = 1;

	mem_setup(_metadata, &self->mem, &spec);	/* never touched */
	ASSERT_RET(0, gupdev_pin(&self->dev, self->mem.addr, ps,
				 GUP_PIN_METHOD_PIN, 0, &req));
	ASSERT_EQ(1U, req.nr_pinned);
	ASSERT_RET(0, gupdev_state(&self->dev, req.id, 0, &st, &n));
	EXPECT_EQ((__u32)GUP_PAGE_OTHER, st.kind)
		TH_LOG("kind %s", gup_page_kind_name(st.kind));
	EXPECT_RET(0, gupdev_read(&self->dev, req.id, 0, b, sizeof(b)));
	EXPECT_EQ(0, memcmp(b, zeros, sizeof(b)));
	EXPECT_RET(-EPERM, gupdev_write(&self->dev, req.id, 0, b, 1));
	EXPECT_RET(0, gupdev_unpin(&self->dev, req.id, 0));
}

/* A range whose tail is unmapped: the pages before the hole, kept. */
TEST_F(gup_test, partial_pin_kept)
{
	unsigned char *map = map_anon(_metadata, &self->mem, 4), b;
	struct gup_pin_req req;
	unsigned int method;
	int ret;

	ASSERT_EQ(0, munmap(map + 2 * ps, 2 * ps));
	self->mem.map_len = 2 * ps;	/* what the teardown unmaps */
	for (method = 0; method < GUP_PIN_METHOD_COUNT; method++) {
		const char *name = gup_method_name(method);

		ret = gupdev_pin(&self->dev, map, 4 * ps, method,
				 GUP_PIN_FLAG_WRITE, &req);
		ASSERT_EQ(0, ret) TH_LOG("%s: %s", name, ret_name(ret));
		ASSERT_NE(0U, req.id) TH_LOG("%s", name);
		ASSERT_EQ(2U, req.nr_pinned) TH_LOG("%s", name);
		ASSERT_EQ(4U, req.nr_requested) TH_LOG("%s", name);
		/* IO past the pages actually pinned is out of range. */
		ret = gupdev_read(&self->dev, req.id, 2 * ps, &b, 1);
		ASSERT_EQ(-EINVAL, ret)
			TH_LOG("%s: READ past the pinned pages: %s", name,
			       ret_name(ret));
		ASSERT_RET(0, gupdev_unpin(&self->dev, req.id, 0));
	}
}

/* Nothing mapped at all: GUP's own -EFAULT, unchanged, nothing kept. */
TEST_F(gup_test, unmapped_returns_gup_efault)
{
	unsigned char *map = map_anon(_metadata, &self->mem, 2);
	struct gup_pin_req req;
	unsigned int method;
	int ret;

	target_teardown(&self->mem);
	for (method = 0; method < GUP_PIN_METHOD_COUNT; method++) {
		ret = gupdev_pin(&self->dev, map, 2 * ps, method, 0, &req);
		ASSERT_EQ(-EFAULT, ret) TH_LOG("%s: %s, want EFAULT",
					       gup_method_name(method),
					       ret_name(ret));
	}
	expect_nothing_pinned(_metadata, "after failed pins");
}

/* Pins belong to the fd that made them. */
TEST_F(gup_test, other_fd_cannot_see_pin)
{
	unsigned char *map = map_anon(_metadata, &self->mem, 1), b;
	struct gup_pin_req req;

	dev_setup(_metadata, &self->dev2);
	ASSERT_RET(0, gupdev_pin(&self->dev, map, ps, GUP_PIN_METHOD_PIN_FAST,
				 0, &req));
	EXPECT_RET(-ENOENT, gupdev_read(&self->dev2, req.id, 0, &b, 1));
	EXPECT_RET(-ENOENT, gupdev_unpin(&self->dev2, req.id, 0));
	EXPECT_RET(0, gupdev_unpin(&self->dev, req.id, 0));
}

/* close() with live pins unpins them: debugfs shows nothing left. */
TEST_F(gup_test, close_releases_pins)
{
	unsigned char *map = map_anon(_metadata, &self->mem, 3);
	unsigned long long live = 0, pages = 0;
	struct gup_pin_req r1, r2;
	int lines;

	dev_setup(_metadata, &self->dev2);
	ASSERT_RET(0, gupdev_pin(&self->dev2, map, 3 * ps, GUP_PIN_METHOD_PIN,
				 GUP_PIN_FLAG_WRITE, &r1));
	ASSERT_RET(0, gupdev_pin(&self->dev2, map, 2 * ps,
				 GUP_PIN_METHOD_GET_FAST, 0, &r2));
	lines = pins_lines(getpid());
	ASSERT_RET(0, totals(&live, &pages));
	gupdev_close(&self->dev2);
	EXPECT_EQ(2, lines) TH_LOG("lines of %s/pins with 2 pins",
				   GUP_PIN_TEST_DEBUGFS);
	EXPECT_EQ(2ULL, live) TH_LOG("pins_live with 2 pins");
	EXPECT_EQ(5ULL, pages) TH_LOG("pages_pinned with 3 + 2 pages pinned");
	expect_nothing_pinned(_metadata, "after close");
}

/* max_pages_total: pin one small range over and over up to the limit. */
TEST_F(gup_test, max_pages_total_enospc)
{
	unsigned int per_pin = self->dev.ver.max_pages_per_pin;
	unsigned int left = self->dev.ver.max_pages_total, n;
	unsigned char *map = map_anon(_metadata, &self->mem, per_pin);
	struct gup_pin_req req;
	int ret;

	while (left) {
		n = left < per_pin ? left : per_pin;
		ret = gupdev_pin(&self->dev, map, (size_t)n * ps,
				 GUP_PIN_METHOD_GET_FAST, 0, &req);
		ASSERT_EQ(0, ret)
			TH_LOG("%s, %u pages below max_pages_total=%u",
			       ret_name(ret), left,
			       self->dev.ver.max_pages_total);
		ASSERT_EQ(n, req.nr_pinned);
		left -= n;
	}
	EXPECT_RET(-ENOSPC, gupdev_pin(&self->dev, map, ps,
				       GUP_PIN_METHOD_PIN_FAST, 0, &req));
	/* The teardown's close() releases the pins. */
}

/* ---- the write rule (uapi header, docs/driver.md) ---- */

/* debugfs counters' "total" write_refused and dirty_refused. */
static int refusals(unsigned long long *writes, unsigned long long *dirty)
{
	static char buf[DEBUGFS_MAX];
	int ret = debugfs_load("counters", buf);

	if (!ret)
		ret = line_value(buf, "total ", "write_refused", writes);
	if (!ret)
		ret = line_value(buf, "total ", "dirty_refused", dirty);
	return ret;
}

/* Lines of debugfs "pins" for pin @id that hold @token. */
static int pin_line_has(__u32 id, const char *token)
{
	static char buf[DEBUGFS_MAX];
	char prefix[32];
	int ret = debugfs_load("pins", buf);

	if (ret)
		return ret;
	snprintf(prefix, sizeof(prefix), "id=%u ", id);
	return count_lines(buf, prefix, token);
}

/*
 * Pin @id is read-only under the write rule: debugfs shows writable=no,
 * WRITE and a dirtying UNPIN fail with EPERM and are counted, nothing is
 * written and the pin stays; then it is released clean.
 */
static void expect_read_only_pin(struct __test_metadata *_metadata,
				 struct gupdev *dev, __u32 id)
{
	unsigned long long w0 = 0, d0 = 0, w1 = 0, d1 = 0;
	unsigned char before[64], after[64], junk[64];

	EXPECT_EQ(1, pin_line_has(id, " writable=no"))
		TH_LOG("%s/pins does not show pin %u writable=no",
		       GUP_PIN_TEST_DEBUGFS, id);
	ASSERT_RET(0, refusals(&w0, &d0));
	ASSERT_RET(0, gupdev_read(dev, id, 0, before, sizeof(before)));
	memset(junk, 0xee, sizeof(junk));
	EXPECT_RET(-EPERM, gupdev_write(dev, id, 0, junk, sizeof(junk)));
	EXPECT_RET(-EPERM, gupdev_unpin(dev, id, GUP_UNPIN_DIRTY));
	/* Still pinned: READ finds it, and it is unchanged. */
	ASSERT_RET(0, gupdev_read(dev, id, 0, after, sizeof(after)));
	EXPECT_EQ(0, memcmp(before, after, sizeof(after)))
		TH_LOG("a refused WRITE changed the page");
	ASSERT_RET(0, refusals(&w1, &d1));
	EXPECT_EQ(w0 + 1, w1) TH_LOG("write_refused after one refusal");
	EXPECT_EQ(d0 + 1, d1) TH_LOG("dirty_refused after one refusal");
	EXPECT_RET(0, gupdev_unpin(dev, id, 0));
}

/* One page at @addr, pinned by @method without flags: a read pin. */
static __u32 read_pin(struct __test_metadata *_metadata, struct gupdev *dev,
		      void *addr, unsigned int method)
{
	struct gup_pin_req req;
	int ret = gupdev_pin(dev, addr, ps, method, 0, &req);

	ASSERT_EQ(0, ret) TH_LOG("%s: %s", gup_method_name(method),
				 ret_name(ret));
	ASSERT_EQ(1U, req.nr_pinned) TH_LOG("%s", gup_method_name(method));
	return req.id;
}

/* The file at @fd still holds map_ext4()'s pattern. */
static void expect_file_unchanged(struct __test_metadata *_metadata, int fd,
				  size_t len)
{
	unsigned char *want = malloc(len), *got = malloc(len);

	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, got);
	fill(want, len, 7);
	ASSERT_EQ((ssize_t)len, pread(fd, got, len, 0))
		TH_LOG("pread: %s", strerror(errno));
	EXPECT_EQ(0, memcmp(want, got, len)) TH_LOG("the file changed");
	free(want);
	free(got);
}

/*
 * The oops of issue 12: a read pin of the vDSO (kernel read-only data,
 * read-only in the direct map too), then WRITE: "BUG: unable to handle
 * page fault" before the rule.  Every method; the page is no file's and
 * nobody's anonymous memory (kind "other").
 */
TEST_F(gup_test, vdso_read_pin_write_refused)
{
	unsigned char *vdso = (unsigned char *)getauxval(AT_SYSINFO_EHDR);
	struct gup_page_state st;
	unsigned int method;
	__u32 id, n;

	if (!vdso)
		SKIP(return, "no vDSO: getauxval(AT_SYSINFO_EHDR) is 0");
	for (method = 0; method < GUP_PIN_METHOD_COUNT; method++) {
		id = read_pin(_metadata, &self->dev, vdso, method);
		n = 1;
		ASSERT_RET(0, gupdev_state(&self->dev, id, 0, &st, &n));
		EXPECT_EQ((__u32)GUP_PAGE_OTHER, st.kind)
			TH_LOG("%s: kind %s", gup_method_name(method),
			       gup_page_kind_name(st.kind));
		expect_read_only_pin(_metadata, &self->dev, id);
	}
	EXPECT_EQ(0, memcmp(vdso, "\177ELF", 4));
}

/*
 * fork() a child that waits for a byte on @go, then exits 0 if its copy
 * of @map still holds the @len bytes of @want, 1 if not (2: no byte came):
 * it tells whether a write through a pin reached the child's memory.  In
 * the parent: the child's pid (or -1), go[0] closed.
 */
static pid_t fork_watcher(const void *map, const void *want, size_t len, int go[2])
{
	pid_t kid = fork();

	if (!kid) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(memcmp(map, want, len) ? 1 : 0);
	}
	close(go[0]);
	return kid;
}

/* Let fork_watcher()'s child look, and reap it: its wait status, or -1. */
static int watcher_status(pid_t kid, int go[2])
{
	int status = -1;

	if (write(go[1], "x", 1) != 1)
		status = -1;
	close(go[1]);
	if (waitpid(kid, &status, 0) != kid)
		return -1;
	return status;
}

/*
 * get_user_pages without FOLL_WRITE takes the page a fork child shares
 * (FOLL_GET does not unshare): a write through it would change the
 * child's memory.
 */
TEST_F(gup_test, fork_shared_anon_read_pin_write_refused)
{
	unsigned char *map = map_anon(_metadata, &self->mem, 1), first[64];
	struct gup_page_state st;
	int go[2], status;
	__u32 id, n = 1;
	pid_t kid;

	memset(map, 'P', ps);
	memcpy(first, map, sizeof(first));
	ASSERT_EQ(0, pipe(go));
	kid = fork_watcher(map, first, sizeof(first), go);
	ASSERT_LE(0, kid);
	id = read_pin(_metadata, &self->dev, map, GUP_PIN_METHOD_GET);
	ASSERT_RET(0, gupdev_state(&self->dev, id, 0, &st, &n));
	EXPECT_EQ(2, st.mapcount) TH_LOG("the page is not shared with the child");
	expect_read_only_pin(_metadata, &self->dev, id);
	status = watcher_status(kid, go);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child's memory changed (status %#x)", status);
}

/*
 * The fork tests' page: one anonymous page written with 'P', its first
 * @n bytes kept in @first (what the watching child must keep seeing),
 * pinned WRITE by @method into @req.
 */
static unsigned char *anon_write_pinned(struct __test_metadata *_metadata, struct target *mem,
					struct gupdev *dev, unsigned int method,
					unsigned char *first, size_t n, struct gup_pin_req *req)
{
	unsigned char *map = map_anon(_metadata, mem, 1);

	memset(map, 'P', ps);
	memcpy(first, map, n);
	ASSERT_RET(0, gupdev_pin(dev, map, ps, method, GUP_PIN_FLAG_WRITE, req));
	ASSERT_EQ(1U, req->nr_pinned);
	return map;
}

/*
 * A WRITE pin taken with get_user_pages() (FOLL_GET): fork() shares the
 * page with the child (only pages that may be pinned, FOLL_PIN, are copied
 * at fork), so from then on WRITE and UNPIN DIRTY are refused (ABI 4): the
 * write would land in the child's memory too.  Still refused once the
 * parent has written its own copy: the pinned page is then the child's
 * alone.  The child checks that its memory never changed.
 */
TEST_F(gup_test, get_write_pin_then_fork_write_refused)
{
	unsigned char junk[64], first[64], *map;
	struct gup_pin_req req;
	int go[2], status;
	pid_t kid;

	map = anon_write_pinned(_metadata, &self->mem, &self->dev, GUP_PIN_METHOD_GET,
				first, sizeof(first), &req);
	memset(junk, 0xee, sizeof(junk));
	EXPECT_EQ(1, pin_line_has(req.id, " writable=yes"));
	ASSERT_EQ(0, pipe(go));
	kid = fork_watcher(map, first, sizeof(first), go);
	ASSERT_LE(0, kid);
	/* WRITE into a page shared with the fork child */
	EXPECT_RET(-EPERM, gupdev_write(&self->dev, req.id, 0, junk, sizeof(junk)));
	EXPECT_RET(-EPERM, gupdev_unpin(&self->dev, req.id, GUP_UNPIN_DIRTY));
	map[0] = 'Q';	/* the parent's own copy now; the pinned page is the child's */
	EXPECT_RET(-EPERM, gupdev_write(&self->dev, req.id, 0, junk, sizeof(junk)));
	status = watcher_status(kid, go);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child's memory changed (status %#x)", status);
	EXPECT_RET(0, gupdev_unpin(&self->dev, req.id, 0));
}

/*
 * The debugger's breakpoint (private_file_write_pin_is_a_cow_copy), then
 * fork(): the COW copy the FOLL_GET pin holds is an anonymous page, now
 * shared with the child: WRITE and UNPIN DIRTY refused (ABI 4).
 */
TEST_F(gup_test, force_cow_copy_then_fork_write_refused)
{
	unsigned int flags = GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_FORCE;
	unsigned char pat[64], first[64];
	struct gup_pin_req req;
	unsigned char *map;
	int go[2], status;
	pid_t kid;

	if (self->dev.ver.features & GUP_PIN_FEATURE_ALLOW_BROKEN)
		flags |= GUP_PIN_FLAG_ALLOW_BROKEN;
	map = map_ext4(_metadata, &self->mem, self->ext4_path, 1, true, true,
		       TARGET_PREFAULT_READ);
	ASSERT_RET(0, gupdev_pin(&self->dev, map, ps, GUP_PIN_METHOD_GET,
				 flags, &req));
	ASSERT_EQ(1U, req.nr_pinned);
	memcpy(first, map, sizeof(first));
	ASSERT_EQ(0, pipe(go));
	kid = fork_watcher(map, first, sizeof(first), go);
	ASSERT_LE(0, kid);
	fill(pat, sizeof(pat), 5);
	EXPECT_RET(-EPERM, gupdev_write(&self->dev, req.id, 0, pat, sizeof(pat)));
	EXPECT_RET(-EPERM, gupdev_unpin(&self->dev, req.id, GUP_UNPIN_DIRTY));
	status = watcher_status(kid, go);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child's copy changed (status %#x)", status);
	EXPECT_RET(0, gupdev_unpin(&self->dev, req.id, 0));
	expect_file_unchanged(_metadata, self->mem.fd, ps);
}

/*
 * The same with pin_user_pages() (FOLL_PIN): fork() gives the child a copy
 * of the pinned page, the parent keeps it alone, and WRITE goes on
 * working; the child never sees it.
 */
TEST_F(gup_test, pin_write_pin_survives_fork)
{
	unsigned char junk[64], first[64], *map;
	struct gup_pin_req req;
	int go[2], status;
	pid_t kid;

	map = anon_write_pinned(_metadata, &self->mem, &self->dev, GUP_PIN_METHOD_PIN,
				first, sizeof(first), &req);
	memset(junk, 'J', sizeof(junk));
	ASSERT_EQ(0, pipe(go));
	kid = fork_watcher(map, first, sizeof(first), go);
	ASSERT_LE(0, kid);
	EXPECT_RET(0, gupdev_write(&self->dev, req.id, 0, junk, sizeof(junk)));
	EXPECT_EQ('J', map[0]) TH_LOG("the parent's page is the pinned one");
	status = watcher_status(kid, go);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child's memory changed (status %#x)", status);
	EXPECT_RET(0, gupdev_unpin(&self->dev, req.id, GUP_UNPIN_DIRTY));
}

/*
 * Are the VM_IO or VM_PFNMAP flags set on the mapping at @addr (its
 * VmFlags in /proc/self/smaps: "io", "pf")?  -1 if it is not found.
 */
static int vma_io_pfnmap(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	unsigned long a, b, at = (unsigned long)addr;
	char line[512];
	bool in = false;
	int ret = -1;

	if (!f)
		return -1;
	while (ret < 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2)
			in = a <= at && at < b;
		else if (in && !strncmp(line, "VmFlags:", 8))
			ret = strstr(line, " io") || strstr(line, " pf");
	}
	fclose(f);
	return ret;
}

/*
 * A read pin of a perf ring buffer mapped PROT_READ|PROT_WRITE, MAP_SHARED:
 * its pages' mapping is the address space every anon_inode file shares,
 * which has ->dirty_folio, but the file is not a regular one, and the
 * write rule's file case wants one (ABI 4): the pin is read-only.  Where
 * perf maps the ring VM_PFNMAP (7.3: map_range(), remap_pfn_range(),
 * kernel/events/core.c:7170-7229), GUP takes nothing there:
 * check_vma_flags() refuses VM_IO|VM_PFNMAP with -EFAULT (7.3
 * mm/gup.c:1207-1208), and the driver has no pin to judge.
 */
TEST_F(gup_test, perf_ring_read_pin_write_refused)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
	};
	void *ring;
	__u32 id;
	int pfd, pfnmap;

	pfd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, pfd) TH_LOG("perf_event_open: %s", strerror(errno));
	ring = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
	ASSERT_NE(MAP_FAILED, ring) TH_LOG("mmap of the ring: %s", strerror(errno));
	pfnmap = vma_io_pfnmap(ring);
	ASSERT_LE(0, pfnmap) TH_LOG("the ring's VmFlags are not in /proc/self/smaps");
	if (pfnmap) {
		struct gup_pin_req req;

		EXPECT_RET(-EFAULT, gupdev_pin(&self->dev, ring, ps, GUP_PIN_METHOD_PIN,
					       0, &req));
	} else {
		id = read_pin(_metadata, &self->dev, ring, GUP_PIN_METHOD_PIN);
		expect_read_only_pin(_metadata, &self->dev, id);
	}
	munmap(ring, 2 * ps);
	close(pfd);
}

/*
 * MAP_PRIVATE of a file opened O_RDONLY: a read pin takes the page cache
 * page itself; a write through it would change the file.
 */
TEST_F(gup_test, private_file_read_pin_write_refused)
{
	unsigned char *map;
	struct gup_page_state st;
	__u32 id, n = 1;

	map = map_ext4(_metadata, &self->mem, self->ext4_path, 1, true, true,
		       TARGET_PREFAULT_READ);
	id = read_pin(_metadata, &self->dev, map, GUP_PIN_METHOD_PIN);
	ASSERT_RET(0, gupdev_state(&self->dev, id, 0, &st, &n));
	EXPECT_EQ((__u32)GUP_PAGE_FILE, st.kind)
		TH_LOG("kind %s", gup_page_kind_name(st.kind));
	expect_read_only_pin(_metadata, &self->dev, id);
	expect_file_unchanged(_metadata, self->mem.fd, ps);
}

/*
 * The same mapping taken with FOLL_WRITE|FOLL_FORCE (the debugger's
 * breakpoint): GUP breaks COW, the pin holds an anonymous copy, which may
 * be written and dirtied; the user sees it, the file does not change.
 * get_user_pages, as gup-v7 refuses FOLL_PIN writes to private file
 * mappings too (EFAULT); with ALLOW_BROKEN where the kernel has it (gup-v1
 * WARNs on a GUP write to any non-shmem file mapping otherwise).
 */
TEST_F(gup_test, private_file_write_pin_is_a_cow_copy)
{
	unsigned int flags = GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_FORCE;
	unsigned char pat[64], *map;
	struct gup_page_state st;
	struct gup_pin_req req;
	__u32 n = 1;

	if (self->dev.ver.features & GUP_PIN_FEATURE_ALLOW_BROKEN)
		flags |= GUP_PIN_FLAG_ALLOW_BROKEN;
	map = map_ext4(_metadata, &self->mem, self->ext4_path, 1, true, true,
		       TARGET_PREFAULT_READ);
	ASSERT_RET(0, gupdev_pin(&self->dev, map, ps, GUP_PIN_METHOD_GET,
				 flags, &req));
	ASSERT_EQ(1U, req.nr_pinned);
	ASSERT_RET(0, gupdev_state(&self->dev, req.id, 0, &st, &n));
	EXPECT_EQ((__u32)GUP_PAGE_ANON, st.kind)
		TH_LOG("kind %s", gup_page_kind_name(st.kind));
	EXPECT_EQ(1, pin_line_has(req.id, " writable=yes"));
	fill(pat, sizeof(pat), 5);
	EXPECT_RET(0, gupdev_write(&self->dev, req.id, 64, pat, sizeof(pat)));
	EXPECT_RET(0, gupdev_unpin(&self->dev, req.id, GUP_UNPIN_DIRTY));
	EXPECT_EQ(0, memcmp(map + 64, pat, sizeof(pat)))
		TH_LOG("the user mapping does not see the COW copy");
	expect_file_unchanged(_metadata, self->mem.fd, ps);
}

/* A memfd sealed against writes: only read-only mappings are left. */
TEST_F(gup_test, sealed_memfd_read_pin_write_refused)
{
	unsigned char *buf = malloc(ps);
	int fd;

	ASSERT_NE(NULL, buf);
	fd = memfd_create("driver_selftest", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ASSERT_LE(0, fd) TH_LOG("memfd_create: %s", strerror(errno));
	self->mem.fd = fd;
	fill(buf, ps, 7);
	ASSERT_EQ((ssize_t)ps, pwrite(fd, buf, ps, 0));
	ASSERT_EQ(0, fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK |
			   F_SEAL_GROW)) TH_LOG("F_ADD_SEALS: %s", strerror(errno));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, ps, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 0));
	self->mem.map = mmap(NULL, ps, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, self->mem.map) TH_LOG("mmap: %s", strerror(errno));
	self->mem.map_len = ps;
	expect_read_only_pin(_metadata, &self->dev,
			     read_pin(_metadata, &self->dev, self->mem.map,
				      GUP_PIN_METHOD_PIN_FAST));
	expect_file_unchanged(_metadata, fd, ps);
	free(buf);
}

/* One page of @path, opened O_RDONLY, mapped MAP_SHARED PROT_READ, read. */
static void map_read_only(struct __test_metadata *_metadata,
			  struct target *mem, const char *path)
{
	const struct target_spec spec = {
		.kind = TARGET_FILE,
		.path = path,
		.read_only = true,
		.length = ps,
		.prefault = TARGET_PREFAULT_READ,
	};

	mem_setup(_metadata, mem, &spec);
}

static void make_test_mnt(struct __test_metadata *_metadata)
{
	ASSERT_TRUE(!mkdir(TEST_MNT, 0700) || errno == EEXIST)
		TH_LOG("mkdir %s: %s", TEST_MNT, strerror(errno));
}

/*
 * A file on a read-only mount (a read-only bind mount of the scratch
 * ext4): it cannot be opened for writing, so it has no writable shared
 * mapping, and a read pin of it is not written.
 */
TEST_F(gup_test, ro_mount_read_pin_write_refused)
{
	char ro_path[PATH_MAX];

	write_ext4_file(_metadata, self->ext4_path, 1);
	make_test_mnt(_metadata);
	ASSERT_EQ(0, mount(ext4_dir, TEST_MNT, NULL, MS_BIND, NULL))
		TH_LOG("bind mount %s: %s", ext4_dir, strerror(errno));
	self->mounted = true;
	ASSERT_EQ(0, mount(NULL, TEST_MNT, NULL,
			   MS_REMOUNT | MS_BIND | MS_RDONLY, NULL))
		TH_LOG("remount read-only: %s", strerror(errno));
	snprintf(ro_path, sizeof(ro_path), "%s/%s", TEST_MNT,
		 strrchr(self->ext4_path, '/') + 1);
	EXPECT_EQ(-1, open(ro_path, O_RDWR | O_CLOEXEC));
	EXPECT_EQ(EROFS, errno);
	map_read_only(_metadata, &self->mem, ro_path);
	expect_read_only_pin(_metadata, &self->dev,
			     read_pin(_metadata, &self->dev, self->mem.addr,
				      GUP_PIN_METHOD_GET_FAST));
	expect_file_unchanged(_metadata, self->mem.fd, ps);
}

/*
 * Attach @image read-only to a free loop device, its path in @dev; the
 * returned fd holds it: LO_FLAGS_AUTOCLEAR detaches it once that fd is
 * closed and nothing else (a mount) uses it.
 */
static int loop_attach(struct __test_metadata *_metadata, const char *image,
		       char *dev, size_t size)
{
	struct loop_info64 info = { .lo_flags = LO_FLAGS_AUTOCLEAR };
	int ctl, nr, lfd, ifd;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, ctl) TH_LOG("/dev/loop-control: %s", strerror(errno));
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	ASSERT_LE(0, nr) TH_LOG("LOOP_CTL_GET_FREE: %s", strerror(errno));
	snprintf(dev, size, "/dev/loop%d", nr);
	lfd = open(dev, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, lfd) TH_LOG("%s: %s", dev, strerror(errno));
	ifd = open(image, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ifd) TH_LOG("%s: %s", image, strerror(errno));
	ASSERT_EQ(0, ioctl(lfd, LOOP_SET_FD, ifd))
		TH_LOG("LOOP_SET_FD %s: %s", dev, strerror(errno));
	close(ifd);
	ASSERT_EQ(0, ioctl(lfd, LOOP_SET_STATUS64, &info))
		TH_LOG("LOOP_SET_STATUS64 %s: %s", dev, strerror(errno));
	return lfd;
}

/*
 * iso9660 (isofs_aops has no ->dirty_folio: 6.1's folio_mark_dirty()
 * would call a NULL pointer, with the folio locked): a read pin of a
 * MAP_SHARED mapping of a file there is neither written nor dirtied.
 */
TEST_F(gup_test, iso9660_read_pin_unpin_dirty_refused)
{
	char loopdev[32], path[PATH_MAX];
	struct gup_page_state st;
	__u32 id, n = 1;
	int lfd, ret;

	if (!ro_image)
		SKIP(return, "%s",
		     "no iso9660 image: give driver_selftest EXT4_DIR RO_IMAGE (tests/lab/20-driver.sh builds one)");
	if (access(ro_image, R_OK))
		SKIP(return, "iso9660 image %s: %s", ro_image, strerror(errno));
	make_test_mnt(_metadata);
	lfd = loop_attach(_metadata, ro_image, loopdev, sizeof(loopdev));
	ret = mount(loopdev, TEST_MNT, "iso9660", MS_RDONLY, NULL);
	close(lfd);
	ASSERT_EQ(0, ret) TH_LOG("mount %s (%s) iso9660: %s", loopdev,
				 ro_image, strerror(errno));
	self->mounted = true;
	snprintf(path, sizeof(path), "%s/%s", TEST_MNT, RO_IMAGE_FILE);
	map_read_only(_metadata, &self->mem, path);
	id = read_pin(_metadata, &self->dev, self->mem.addr, GUP_PIN_METHOD_PIN);
	ASSERT_RET(0, gupdev_state(&self->dev, id, 0, &st, &n));
	EXPECT_EQ((__u32)GUP_PAGE_FILE, st.kind)
		TH_LOG("kind %s", gup_page_kind_name(st.kind));
	EXPECT_STREQ("iso9660", st.fs_name);
	expect_read_only_pin(_metadata, &self->dev, id);
}

/*
 * The 2018 route stays open: a read pin of a writable MAP_SHARED ext4
 * mapping, munmap, then WRITE and UNPIN with GUP_UNPIN_DIRTY succeed (the
 * verdict was taken at pin time).  Dirtied only once the page is seen to
 * have buffers (ext4_dirty_folio() WARNs otherwise): the user write just
 * before attached them.
 */
TEST_F(gup_test, ext4_2018_route_allowed)
{
	unsigned char pat[64], back[64], *map;
	struct gup_page_state st;
	struct gup_pin_req req;
	__u32 n = 1;

	map = map_ext4(_metadata, &self->mem, self->ext4_path, 1, false, false,
		       TARGET_PREFAULT_WRITE);
	ASSERT_RET(0, gupdev_pin(&self->dev, map, ps, GUP_PIN_METHOD_PIN, 0,
				 &req));
	ASSERT_EQ(1U, req.nr_pinned);
	EXPECT_EQ(1, pin_line_has(req.id, " writable=yes"));
	ASSERT_EQ(0, munmap(self->mem.map, self->mem.map_len));
	self->mem.map = MAP_FAILED;
	ASSERT_RET(0, gupdev_state(&self->dev, req.id, 0, &st, &n));
	if (!(st.state & GUP_PAGE_HAS_BUFFERS))
		SKIP(return, "page has no buffers: dirtying it would WARN");
	fill(pat, sizeof(pat), 11);
	ASSERT_RET(0, gupdev_write(&self->dev, req.id, 256, pat, sizeof(pat)));
	ASSERT_RET(0, gupdev_unpin(&self->dev, req.id, GUP_UNPIN_DIRTY));
	ASSERT_EQ((ssize_t)sizeof(back),
		  pread(self->mem.fd, back, sizeof(back), 256));
	EXPECT_EQ(0, memcmp(pat, back, sizeof(pat)))
		TH_LOG("read(2) does not see the write through the pin");
}

/* ---- page state ---- */

/* STATE's index of page @page of pin @id. */
static __u64 state_index(struct __test_metadata *_metadata,
			 struct gupdev *dev, __u32 id, __u32 page)
{
	struct gup_page_state st;
	__u32 n = 1;

	ASSERT_RET(0, gupdev_state(dev, id, page, &st, &n));
	EXPECT_EQ((__u32)GUP_PAGE_HUGETLB, st.kind)
		TH_LOG("kind %s", gup_page_kind_name(st.kind));
	return st.index;
}

/*
 * Does the kernel give an anonymous folio of a MAP_PRIVATE file mapping
 * the "anonymous page offset" of its address (7.3: __folio_set_anon()
 * sets folio->index = linear_anon_page_index(), mm/rmap.c:1495; for a
 * VMA not moved since its first fault that is address >> PAGE_SHIFT,
 * include/linux/mm.h:4456-4479, include/linux/pagemap.h:1100-1125)
 * rather than its file offset (6.1 and 6.12: linear_page_index(), 6.12
 * mm/rmap.c:1261)?  The lab runs 6.1, 6.12 and 7.3: the release decides.
 */
static bool anon_index_is_address(void)
{
	struct utsname u;

	return !uname(&u) && atoi(u.release) >= 7;
}

/*
 * Pages 5, 6 and the last of the second huge page of @mem (two huge pages
 * from offset 0 of their file): STATE counts PAGE_SIZE pages, where 6.1's
 * hugetlb folio->index counts huge pages.  @anon: MAP_PRIVATE, the folios
 * anonymous, whose index on 7.3 is their address's (anon_index_is_address()).
 */
static void expect_hugetlb_indexes(struct __test_metadata *_metadata,
				   struct gupdev *dev, unsigned char *map, bool anon)
{
	size_t per_huge = TARGET_HUGE_PAGE_SIZE / ps;
	__u64 base = anon && anon_index_is_address() ? (uintptr_t)map / ps : 0;
	struct gup_pin_req req;

	memset(map, 0x11, 2 * TARGET_HUGE_PAGE_SIZE);
	ASSERT_RET(0, gupdev_pin(dev, map + (per_huge + 5) * ps, 2 * ps,
				 GUP_PIN_METHOD_PIN, 0, &req));
	ASSERT_EQ(2U, req.nr_pinned);
	EXPECT_EQ(base + per_huge + 5, state_index(_metadata, dev, req.id, 0));
	EXPECT_EQ(base + per_huge + 6, state_index(_metadata, dev, req.id, 1));
	EXPECT_RET(0, gupdev_unpin(dev, req.id, 0));
	ASSERT_RET(0, gupdev_pin(dev, map + (2 * per_huge - 1) * ps, ps,
				 GUP_PIN_METHOD_GET_FAST, 0, &req));
	EXPECT_EQ(base + 2 * per_huge - 1, state_index(_metadata, dev, req.id, 0));
	EXPECT_RET(0, gupdev_unpin(dev, req.id, 0));
}

/* A hugetlb memfd, MAP_SHARED: page cache indexes. */
TEST_F(gup_test, hugetlb_file_state_index_in_pages)
{
	const struct target_spec spec = {
		.kind = TARGET_HUGETLB,
		.length = 2 * TARGET_HUGE_PAGE_SIZE,
	};

	if (target_setup(&self->mem, &spec))
		SKIP(return, "%s", self->mem.err);
	expect_hugetlb_indexes(_metadata, &self->dev, self->mem.addr, false);
}

/*
 * MAP_PRIVATE|MAP_HUGETLB: anonymous hugetlb folios, linear indexes (of
 * the file on 6.1 and 6.12, of the address on 7.3).
 */
TEST_F(gup_test, hugetlb_anon_state_index_in_pages)
{
	self->mem.map = mmap(NULL, 2 * TARGET_HUGE_PAGE_SIZE,
			     PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (self->mem.map == MAP_FAILED)
		SKIP(return, "mmap MAP_HUGETLB of 2 huge pages: %s",
		     strerror(errno));
	self->mem.map_len = 2 * TARGET_HUGE_PAGE_SIZE;
	expect_hugetlb_indexes(_metadata, &self->dev, self->mem.map, true);
}

/* ---- privileges ---- */

/*
 * In a child: become nobody, then try the device and every debugfs file;
 * the exit status says which step went wrong (0: all refused).
 */
static int unprivileged_child(void)
{
	static const char * const files[] = { "pins", "counters", "version" };
	char path[256];
	size_t i;
	int fd;

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return 10;
	fd = open(GUP_PIN_TEST_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		return 1;
	if (errno != EACCES && errno != EPERM)
		return 2;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", GUP_PIN_TEST_DEBUGFS,
			 files[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return 3 + i;
		if (errno != EACCES)
			return 6 + i;
	}
	return 0;
}

/* An unprivileged user cannot open the device nor read debugfs. */
TEST_F(gup_test, unprivileged_open_refused)
{
	int status = -1;
	pid_t kid = fork();

	ASSERT_LE(0, kid);
	if (!kid)
		_exit(unprivileged_child());
	ASSERT_EQ(kid, waitpid(kid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("as uid %d: %s", NOBODY,
		       WEXITSTATUS(status) == 10 ? "cannot become nobody" :
		       WEXITSTATUS(status) == 1 ? "opened the device" :
		       WEXITSTATUS(status) == 2 ? "device: not EACCES/EPERM" :
		       WEXITSTATUS(status) < 6 ? "opened a debugfs file" :
		       "debugfs: not EACCES");
}

/*
 * Root without CAP_SYS_ADMIN passes the device's mode (0600, root's) but
 * not the driver's own check: EPERM.
 */
/*
 * Drop CAP_SYS_ADMIN from the calling thread's effective set (capset(2)
 * acts on the thread, not its process).  0, or -1 with errno.
 */
static int drop_cap_sys_admin(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	return syscall(SYS_capset, &h, d) ? -1 : 0;
}

TEST_F(gup_test, open_without_cap_sys_admin_eperm)
{
	int status = -1;
	pid_t kid = fork();

	ASSERT_LE(0, kid);
	if (!kid) {
		if (drop_cap_sys_admin())
			_exit(10);
		if (open(GUP_PIN_TEST_DEVICE, O_RDWR | O_CLOEXEC) >= 0)
			_exit(1);
		_exit(errno == EPERM ? 0 : 2);
	}
	ASSERT_EQ(kid, waitpid(kid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("%s", WEXITSTATUS(status) >= 10 ? "capget/capset failed" :
		       WEXITSTATUS(status) == 1 ? "opened the device" :
		       "open failed, but not with EPERM");
}

/*
 * The debugfs files take CAP_SYS_ADMIN too (ABI 4): their mode, 0400
 * root's, lets in a root that dropped it, and "pins" shows every
 * process's pins.
 */
TEST_F(gup_test, debugfs_without_cap_sys_admin_eperm)
{
	int status = -1;
	pid_t kid = fork();

	ASSERT_LE(0, kid);
	if (!kid) {
		static const char * const files[] = { "pins", "counters", "version" };
		char path[256];
		size_t i;

		if (drop_cap_sys_admin())
			_exit(10);
		for (i = 0; i < ARRAY_SIZE(files); i++) {
			snprintf(path, sizeof(path), "%s/%s",
				 GUP_PIN_TEST_DEBUGFS, files[i]);
			if (open(path, O_RDONLY | O_CLOEXEC) >= 0)
				_exit(1 + i);
			if (errno != EPERM)
				_exit(4 + i);
		}
		_exit(0);
	}
	ASSERT_EQ(kid, waitpid(kid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("%s", WEXITSTATUS(status) >= 10 ? "capset failed" :
		       WEXITSTATUS(status) >= 4 ? "a debugfs file: not EPERM" :
		       "opened a debugfs file without CAP_SYS_ADMIN");
}

/* ---- the device answers its opener only (ABI 4) ---- */

static const char * const foreign_ops[] = {
	"READ", "WRITE", "UNPIN", "STATE", "PIN", "BENCH",
};

/*
 * From a process (or thread) that is not the device's opener: every ioctl
 * but VERSION on @dev, pin @id of the opener, must fail with EPERM.
 * @own is a page of the caller's own.  0, or 1 + the index in foreign_ops
 * of the first that did not.
 */
static int foreign_ioctls(struct gupdev *dev, __u32 id, void *own)
{
	unsigned char junk[16];
	struct gup_page_state st;
	struct gup_pin_bench b = { 0 };
	struct gup_pin_req req;
	__u32 n = 1;
	int got[ARRAY_SIZE(foreign_ops)];
	size_t i;

	memset(junk, 0xee, sizeof(junk));
	got[0] = gupdev_read(dev, id, 0, junk, sizeof(junk));
	got[1] = gupdev_write(dev, id, 0, junk, sizeof(junk));
	got[2] = gupdev_unpin(dev, id, 0);
	got[3] = gupdev_state(dev, id, 0, &st, &n);
	got[4] = gupdev_pin(dev, own, ps, GUP_PIN_METHOD_PIN_FAST,
			    GUP_PIN_FLAG_WRITE, &req);
	b.addr = (uintptr_t)own;
	b.len = ps;
	b.method = GUP_PIN_METHOD_PIN_FAST;
	b.nr_per_call = 1;
	got[5] = ioctl(dev->fd, GUP_PIN_IOC_BENCH, &b) < 0 ? -errno : 0;
	for (i = 0; i < ARRAY_SIZE(foreign_ops); i++)
		if (got[i] != -EPERM)
			return 1 + i;
	return 0;
}

/* After foreign_ioctls(): the opener's pin @id is whole and still its own. */
static void expect_pin_intact(struct __test_metadata *_metadata,
			      struct gupdev *dev, __u32 id,
			      const unsigned char *map)
{
	unsigned char got[16];
	size_t i;

	ASSERT_RET(0, gupdev_read(dev, id, 0, got, sizeof(got)));
	for (i = 0; i < sizeof(got); i++)
		ASSERT_EQ('P', got[i]) TH_LOG("byte %zu of the pinned page", i);
	for (i = 0; i < ps; i++)
		ASSERT_EQ('P', map[i]) TH_LOG("byte %zu of the opener's page", i);
	EXPECT_RET(0, gupdev_unpin(dev, id, 0));
}

static const char *foreign_status(int status)
{
	if (!WIFEXITED(status))
		return "the child did not exit";
	if (WEXITSTATUS(status) == 0)
		return "every ioctl refused";
	if (WEXITSTATUS(status) <= ARRAY_SIZE(foreign_ops))
		return foreign_ops[WEXITSTATUS(status) - 1];
	return "the child's set-up failed";
}

/*
 * A fork child inherits the fd: it must not read or write the parent's
 * pinned page, unpin it, see its state, take pins charged to the parent's
 * open file or run BENCH.  A root child, with CAP_SYS_ADMIN: the mm is
 * what decides.
 */
TEST_F(gup_test, inherited_fd_refused_in_child)
{
	unsigned char *map = map_anon(_metadata, &self->mem, 1);
	struct gup_pin_req req;
	int status = -1;
	pid_t kid;

	memset(map, 'P', ps);
	ASSERT_RET(0, gupdev_pin(&self->dev, map, ps, GUP_PIN_METHOD_PIN_FAST,
				 GUP_PIN_FLAG_WRITE, &req));
	kid = fork();
	ASSERT_LE(0, kid);
	if (!kid)
		_exit(foreign_ioctls(&self->dev, req.id, map));
	ASSERT_EQ(kid, waitpid(kid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child's %s was not refused with EPERM",
		       foreign_status(status));
	expect_pin_intact(_metadata, &self->dev, req.id, map);
}

/*
 * The fd passed to another process: pidfd_getfd(2) puts the opener's file
 * in the other process's table, as SCM_RIGHTS over a socket would (the
 * lab's kernels have no AF_UNIX).  The fd is opened after the fork, so it
 * is not inherited.
 */
static int take_fd(pid_t pid, int fd)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0), nfd;

	if (pidfd < 0)
		return -1;
	nfd = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	return nfd;
}

TEST_F(gup_test, passed_fd_refused)
{
	unsigned char *map = map_anon(_metadata, &self->mem, 1);
	struct gup_pin_req req;
	int to_kid[2], status = -1;
	__u32 msg[2];
	pid_t kid;

	memset(map, 'P', ps);
	ASSERT_EQ(0, pipe(to_kid));
	kid = fork();
	ASSERT_LE(0, kid);
	if (!kid) {
		struct gupdev d = self->dev;

		close(to_kid[1]);
		/* the pin's id and the opener's fd number, then take the fd */
		if (read(to_kid[0], msg, sizeof(msg)) != sizeof(msg))
			_exit(20);
		d.fd = take_fd(getppid(), msg[1]);
		if (d.fd < 0)
			_exit(21);
		_exit(foreign_ioctls(&d, msg[0], map));
	}
	close(to_kid[0]);
	ASSERT_EQ(0, gupdev_open(&self->dev2));
	ASSERT_RET(0, gupdev_pin(&self->dev2, map, ps, GUP_PIN_METHOD_PIN_FAST,
				 GUP_PIN_FLAG_WRITE, &req));
	msg[0] = req.id;
	msg[1] = self->dev2.fd;
	ASSERT_EQ((ssize_t)sizeof(msg), write(to_kid[1], msg, sizeof(msg)));
	ASSERT_EQ(kid, waitpid(kid, &status, 0));
	close(to_kid[1]);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the receiver's %s was not refused with EPERM",
		       foreign_status(status));
	expect_pin_intact(_metadata, &self->dev2, req.id, map);
}

/* A thread of the opener that dropped CAP_SYS_ADMIN: refused per call. */
struct capless_arg {
	struct gupdev *dev;
	__u32 id;
	void *own;
	int ret;
};

static void *capless_thread(void *p)
{
	struct capless_arg *a = p;

	a->ret = drop_cap_sys_admin() ? 100 : foreign_ioctls(a->dev, a->id, a->own);
	return NULL;
}

TEST_F(gup_test, thread_without_cap_sys_admin_refused)
{
	unsigned char *map = map_anon(_metadata, &self->mem, 1);
	struct capless_arg a = { .dev = &self->dev, .ret = -1 };
	struct gup_pin_req req;
	pthread_t t;

	memset(map, 'P', ps);
	ASSERT_RET(0, gupdev_pin(&self->dev, map, ps, GUP_PIN_METHOD_PIN_FAST,
				 GUP_PIN_FLAG_WRITE, &req));
	a.id = req.id;
	a.own = map;
	ASSERT_EQ(0, pthread_create(&t, NULL, capless_thread, &a));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, a.ret)
		TH_LOG("%s", a.ret == 100 ? "capset failed" :
		       a.ret > 0 ? foreign_ops[a.ret - 1] : "?");
	expect_pin_intact(_metadata, &self->dev, req.id, map);
}

/* ---- concurrency ---- */

#define SMOKE_ITERS	150
#define SMOKE_PAGES	8

/*
 * Pin, write, read back, look, unpin on its own anon range; 0 or -1.  Odd
 * rounds pin with FOLL_WRITE; even rounds take read pins, which refuse
 * WRITE and a dirtying UNPIN (the write rule) and are then released clean.
 */
static int smoke_worker(struct gupdev *dev, unsigned int seed)
{
	const struct target_spec spec = {
		.kind = TARGET_ANON,
		.length = SMOKE_PAGES * ps,
	};
	struct gup_page_state st[SMOKE_PAGES];
	unsigned char in[32], out[32];
	struct gup_pin_req req;
	struct target mem;
	unsigned int i;
	int ret = 0;

	if (target_setup(&mem, &spec))
		return -1;
	memset(mem.addr, (int)seed, mem.len);
	for (i = 0; i < SMOKE_ITERS && !ret; i++) {
		unsigned int method = (i + seed) % GUP_PIN_METHOD_COUNT;
		__u64 off = (i * 97) % (mem.len - sizeof(in));
		bool write = i & 1;
		unsigned int dirty = i % 3 ? 0 : GUP_UNPIN_DIRTY;
		__u32 n = SMOKE_PAGES;

		if (gupdev_pin(dev, mem.addr, mem.len, method,
			       write ? GUP_PIN_FLAG_WRITE : 0, &req) ||
		    req.nr_pinned != SMOKE_PAGES) {
			ret = -1;
			break;
		}
		fill(in, sizeof(in), seed + i);
		if (gupdev_write(dev, req.id, off, in, sizeof(in)) !=
		    (write ? 0 : -EPERM) ||
		    gupdev_read(dev, req.id, off, out, sizeof(out)) ||
		    (write && memcmp(in, out, sizeof(in))) ||
		    gupdev_state(dev, req.id, 0, st, &n) ||
		    n != SMOKE_PAGES || st[0].kind != GUP_PAGE_ANON)
			ret = -1;
		if (!write && dirty &&
		    gupdev_unpin(dev, req.id, dirty) != -EPERM)
			ret = -1;
		if (gupdev_unpin(dev, req.id, write ? dirty : 0))
			ret = -1;
	}
	target_teardown(&mem);
	return ret;
}

struct smoke_thread {
	pthread_t tid;
	struct gupdev *dev;
	unsigned int seed;
	int ret;
};

static void *smoke_thread_fn(void *arg)
{
	struct smoke_thread *t = arg;

	t->ret = smoke_worker(t->dev, t->seed);
	return NULL;
}

static void *debugfs_reader_fn(void *arg)
{
	static char buf[DEBUGFS_MAX];
	int i, *ret = arg;

	for (i = 0; i < SMOKE_ITERS; i++)
		if (debugfs_load(i & 1 ? "pins" : "counters", buf))
			*ret = -1;
	return NULL;
}

/*
 * Three threads on one fd, one thread reading debugfs, and two child
 * processes with their own fd, each in a short bounded loop.  The
 * workers report and the test checks: no ASSERT outside the test thread.
 */
TEST_F_TIMEOUT(gup_test, concurrency_smoke, 120)
{
	struct smoke_thread th[3];
	pthread_t reader;
	int reader_ret = 0, status, i, bad = 0;
	pid_t kids[2];

	for (i = 0; i < 2; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			struct gupdev dev;

			_exit(gupdev_open(&dev) ||
			      smoke_worker(&dev, 100 + i) ? 1 : 0);
		}
	}
	for (i = 0; i < 3; i++) {
		th[i].dev = &self->dev;
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
	EXPECT_EQ(0, bad) TH_LOG("of 5 workers");
	EXPECT_EQ(0, reader_ret) TH_LOG("the debugfs reader failed");
	expect_nothing_pinned(_metadata, "after the concurrency smoke");
}

/*
 * Outcomes are counted per method and flag mix, one line per bucket; the
 * format is stable (docs/ABI/debugfs-gup_pin_test).  @buckets: the number
 * of bucket lines; @val: @key= of pin_user_pages with ALLOW_BROKEN.
 */
static int allow_broken_bucket(const char *key, int *buckets,
			       unsigned long long *val)
{
	static char buf[DEBUGFS_MAX];
	char fl[64], prefix[128];
	int ret = debugfs_load("counters", buf);

	if (ret)
		return ret;
	snprintf(prefix, sizeof(prefix), "pin method=%s flags=%s ",
		 gup_method_name(GUP_PIN_METHOD_PIN),
		 gup_flags_str(GUP_PIN_FLAG_ALLOW_BROKEN, fl, sizeof(fl)));
	*buckets = count_lines(buf, "pin method=", NULL);
	return line_value(buf, prefix, key, val);
}

/* ALLOW_BROKEN counts as refused= without the kernel flag, else full=. */
TEST_F(gup_test, counters_format)
{
	bool have = self->dev.ver.features & GUP_PIN_FEATURE_ALLOW_BROKEN;
	const char *key = have ? "full" : "refused";
	unsigned char *map = map_anon(_metadata, &self->mem, 1);
	unsigned long long before = 0, after = 0;
	struct gup_pin_req req;
	int buckets = 0, ret;

	ASSERT_RET(0, allow_broken_bucket(key, &buckets, &before));
	ret = gupdev_pin(&self->dev, map, ps, GUP_PIN_METHOD_PIN,
			 GUP_PIN_FLAG_ALLOW_BROKEN, &req);
	EXPECT_RET(have ? 0 : -EOPNOTSUPP, ret);
	if (!ret)
		EXPECT_RET(0, gupdev_unpin(&self->dev, req.id, 0));
	ASSERT_RET(0, allow_broken_bucket(key, &buckets, &after));
	EXPECT_EQ((int)(GUP_PIN_METHOD_COUNT * (GUP_PIN_FLAGS_ALL + 1)),
		  buckets)
		TH_LOG("bucket lines in %s/counters", GUP_PIN_TEST_DEBUGFS);
	EXPECT_EQ(before + 1, after)
		TH_LOG("pin_user_pages ALLOW_BROKEN %s= after one call", key);
}

/*
 * GUP_PIN_FLAG_ALLOW_BROKEN where the kernel has no
 * FOLL_ALLOW_BROKEN_FILE_MAPPING (the version's features say so): EOPNOTSUPP
 * from every method, before GUP, nothing kept.  Where it has it,
 * pin_user_pages takes it (only the slow method: 6.1's
 * internal_get_user_pages_fast() WARNs on a FOLL_* bit outside its mask,
 * mm/gup.c:3047, unless a series adds it there).
 */
TEST_F(gup_test, allow_broken_follows_features)
{
	unsigned char *map = map_anon(_metadata, &self->mem, 1);
	struct gup_pin_req req;
	unsigned int method;
	int ret;

	if (self->dev.ver.features & GUP_PIN_FEATURE_ALLOW_BROKEN) {
		ASSERT_RET(0, gupdev_pin(&self->dev, map, ps,
					 GUP_PIN_METHOD_PIN,
					 GUP_PIN_FLAG_ALLOW_BROKEN, &req));
		EXPECT_EQ(1U, req.nr_pinned);
		EXPECT_RET(0, gupdev_unpin(&self->dev, req.id, 0));
		return;
	}
	for (method = 0; method < GUP_PIN_METHOD_COUNT; method++) {
		ret = gupdev_pin(&self->dev, map, ps, method,
				 GUP_PIN_FLAG_ALLOW_BROKEN | GUP_PIN_FLAG_WRITE,
				 &req);
		EXPECT_EQ(-EOPNOTSUPP, ret) TH_LOG("%s: %s",
						   gup_method_name(method),
						   ret_name(ret));
	}
	expect_nothing_pinned(_metadata, "after the refusals");
}

TEST_F(gup_test, nothing_pinned_at_end)
{
	expect_nothing_pinned(_metadata, "at the end");
}

static int read_taint(unsigned long *taint)
{
	FILE *f = fopen("/proc/sys/kernel/tainted", "re");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%lu", taint) == 1;
	fclose(f);
	return ok ? 0 : -EPROTO;
}

/* No oops/BUG (D, bit 7) and no WARN (W, bit 9); O and E are expected. */
TEST_F(gup_test, not_tainted)
{
	unsigned long taint = 0;

	ASSERT_RET(0, read_taint(&taint));
	EXPECT_EQ(0UL, taint & ((1UL << 7) | (1UL << 9)))
		TH_LOG("tainted=%lu (at start: %lu)", taint, taint_at_start);
}

/*
 * As TEST_HARNESS_MAIN, with an argument (see tools/testing/selftests/rtc).
 * 6.1's harness needs its main() to say in which order the constructors
 * registered the tests; 6.12's (the flavour's tree builds this) finds out
 * itself and has no _CONSTRUCTOR_ORDER_* macros.
 */
#ifdef _CONSTRUCTOR_ORDER_BACKWARD
static void __attribute__((constructor)) __constructor_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}
#endif

int main(int argc, char **argv)
{
	if (argc > 3 || (argc >= 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: %s [EXT4_DIR [RO_IMAGE]]   (default %s, no image)\n",
			argv[0], ext4_dir);
		return 2;
	}
	if (argc >= 2)
		ext4_dir = argv[1];
	if (argc == 3)
		ro_image = argv[2];
	ps = (size_t)sysconf(_SC_PAGESIZE);
	read_taint(&taint_at_start);
	return test_harness_run(argc, argv);
}
