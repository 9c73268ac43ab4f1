// SPDX-License-Identifier: GPL-2.0
/*
 * gupdev: /dev/gup_test wrappers, debugfs readers, names.  See gupdev.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>

#include "lib/gupdev.h"
#include "lib/util.h"

#define DEBUGFS_ROOT	"/sys/kernel/debug"

static int xioctl(struct gupdev *dev, unsigned long cmd, void *arg)
{
	return ioctl(dev->fd, cmd, arg) < 0 ? -errno : 0;
}

int gupdev_open(struct gupdev *dev)
{
	int ret;

	memset(dev, 0, sizeof(*dev));
	dev->fd = open(GUP_PIN_TEST_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0)
		return -errno;
	ret = xioctl(dev, GUP_PIN_IOC_VERSION, &dev->ver);
	/*
	 * A module of ABI 1 answers VERSION only with its 16-byte structure
	 * (the first fields of ours); ask that way to learn its abi_version.
	 */
	if (ret == -ENOTTY)
		ret = xioctl(dev, _IOR(GUP_PIN_IOC_TYPE, GUP_PIN_IOC_VERSION_NR,
				       __u32[4]), &dev->ver);
	if (!ret && dev->ver.abi_version != GUP_PIN_TEST_ABI_VERSION)
		ret = -EPROTO;
	if (ret)
		gupdev_close(dev);
	return ret;
}

void gupdev_close(struct gupdev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

int gupdev_pin(struct gupdev *dev, void *addr, size_t len,
	       unsigned int method, unsigned int flags,
	       struct gup_pin_req *req)
{
	memset(req, 0, sizeof(*req));
	req->addr = (unsigned long)addr;
	req->len = len;
	req->method = method;
	req->flags = flags;
	return xioctl(dev, GUP_PIN_IOC_PIN, req);
}

int gupdev_unpin(struct gupdev *dev, __u32 id, unsigned int flags)
{
	struct gup_pin_unpin u = { .id = id, .flags = flags };

	return xioctl(dev, GUP_PIN_IOC_UNPIN, &u);
}

static int gupdev_io(struct gupdev *dev, unsigned long cmd, __u32 id,
		     __u64 offset, const void *buf, size_t len)
{
	struct gup_pin_io io = {
		.id = id,
		.offset = offset,
		.len = len,
		.buf = (unsigned long)buf,
	};

	return xioctl(dev, cmd, &io);
}

int gupdev_write(struct gupdev *dev, __u32 id, __u64 offset,
		 const void *buf, size_t len)
{
	return gupdev_io(dev, GUP_PIN_IOC_WRITE, id, offset, buf, len);
}

int gupdev_read(struct gupdev *dev, __u32 id, __u64 offset,
		void *buf, size_t len)
{
	return gupdev_io(dev, GUP_PIN_IOC_READ, id, offset, buf, len);
}

int gupdev_state(struct gupdev *dev, __u32 id, __u32 first,
		 struct gup_page_state *pages, __u32 *count)
{
	struct gup_pin_state_req r = {
		.id = id,
		.first = first,
		.count = *count,
		.pages = (unsigned long)pages,
	};
	int ret = xioctl(dev, GUP_PIN_IOC_STATE, &r);

	if (!ret)
		*count = r.count;
	return ret;
}

int gupdev_bench(struct gupdev *dev, struct gup_pin_bench *b)
{
	return xioctl(dev, GUP_PIN_IOC_BENCH, b);
}

int gupdev_debugfs_probe(void)
{
	struct statfs sfs;

	if (statfs(DEBUGFS_ROOT, &sfs) < 0)
		return errno == EACCES ? -EACCES : -ENODEV;
	if (sfs.f_type != DEBUGFS_MAGIC)
		return -ENODEV;
	return access(GUP_PIN_TEST_DEBUGFS, R_OK | X_OK) < 0 ? -errno : 0;
}

ssize_t gupdev_debugfs_read(const char *name, char *buf, size_t size)
{
	char path[256];
	ssize_t n = 0, r = 0;
	int fd;

	if (!size)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s", GUP_PIN_TEST_DEBUGFS, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)n < size - 1) {
		r = read(fd, buf + n, size - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	if (r < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

#define E(x)	{ x, #x }
static const struct {
	int err;
	const char *name;
} errno_names[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG),
	E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES),
	E(EFAULT), E(ENOTBLK), E(EBUSY), E(EEXIST), E(EXDEV), E(ENODEV),
	E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY),
	E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK),
	E(EPIPE), E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK),
	E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(ENODATA), E(ETIME), E(EPROTO),
	E(EOVERFLOW), E(EBADFD), E(EOPNOTSUPP), E(ETIMEDOUT), E(EALREADY),
	E(EINPROGRESS), E(ECANCELED), E(EOWNERDEAD), E(EHWPOISON),
};

#undef E

const char *errno_name(int err)
{
	size_t i;

	if (err < 0)
		err = -err;
	for (i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	return "E?";
}

const char *gup_method_name(unsigned int method)
{
	static const char * const names[] = {
		[GUP_PIN_METHOD_PIN]		= "pin_user_pages",
		[GUP_PIN_METHOD_PIN_FAST]	= "pin_user_pages_fast",
		[GUP_PIN_METHOD_GET]		= "get_user_pages",
		[GUP_PIN_METHOD_GET_FAST]	= "get_user_pages_fast",
		[GUP_PIN_METHOD_PIN_REMOTE]	= "pin_user_pages_remote",
		[GUP_PIN_METHOD_GET_REMOTE]	= "get_user_pages_remote",
		[GUP_PIN_METHOD_PIN_UNLOCKED]	= "pin_user_pages_unlocked",
		[GUP_PIN_METHOD_GET_UNLOCKED]	= "get_user_pages_unlocked",
	};

	return method < ARRAY_SIZE(names) ? names[method] : NULL;
}

const char *gup_page_kind_name(unsigned int kind)
{
	static const char * const names[] = {
		[GUP_PAGE_ANON]		= "anon",
		[GUP_PAGE_SHMEM]	= "shmem",
		[GUP_PAGE_HUGETLB]	= "hugetlb",
		[GUP_PAGE_FILE]		= "file",
		[GUP_PAGE_OTHER]	= "other",
	};

	return kind < ARRAY_SIZE(names) ? names[kind] : "?";
}

struct bit_name {
	unsigned int bit;
	const char *name;
};

static char *bits_str(unsigned int v, const struct bit_name *t, size_t n,
		      const char *sep, const char *none, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (!(v & t[i].bit))
			continue;
		len += snprintf(buf + len, len < size ? size - len : 0, "%s%s",
				len ? sep : "", t[i].name);
		v &= ~t[i].bit;
	}
	if (v)
		len += snprintf(buf + len, len < size ? size - len : 0,
				"%s%#x", len ? sep : "", v);
	if (!len)
		snprintf(buf, size, "%s", none);
	return buf;
}

char *gup_flags_str(unsigned int flags, char *buf, size_t size)
{
	static const struct bit_name t[] = {
		{ GUP_PIN_FLAG_WRITE, "WRITE" },
		{ GUP_PIN_FLAG_LONGTERM, "LONGTERM" },
		{ GUP_PIN_FLAG_FORCE, "FORCE" },
		{ GUP_PIN_FLAG_ALLOW_BROKEN, "ALLOW_BROKEN" },
	};

	return bits_str(flags, t, ARRAY_SIZE(t), "|", "none", buf, size);
}

char *gup_page_state_str(unsigned int state, char *buf, size_t size)
{
	static const struct bit_name t[] = {
		{ GUP_PAGE_DIRTY, "dirty" },
		{ GUP_PAGE_WRITEBACK, "writeback" },
		{ GUP_PAGE_HAS_BUFFERS, "buffers" },
		{ GUP_PAGE_MAYBE_DMA_PINNED, "dma-pinned" },
		{ GUP_PAGE_UPTODATE, "uptodate" },
		{ GUP_PAGE_LRU, "lru" },
		{ GUP_PAGE_PRIVATE, "private" },
	};

	return bits_str(state, t, ARRAY_SIZE(t), ",", "-", buf, size);
}

int gupctl_open_device(struct gupdev *dev, const char *cmd)
{
	int ret = gupdev_open(dev);

	switch (ret) {
	case 0:
		return GUPCTL_EXIT_OK;
	case -ENOENT:
		fprintf(stderr,
			"gupctl %s: %s not found: the gup_pin_test module is not loaded; load it: insmod gup_pin_test.ko\n",
			cmd, GUP_PIN_TEST_DEVICE);
		break;
	case -EPROTO:
		fprintf(stderr,
			"gupctl %s: ABI version mismatch: the module speaks %u, gupctl %u: rebuild gupctl and the module from the same tree\n",
			cmd, dev->ver.abi_version, GUP_PIN_TEST_ABI_VERSION);
		break;
	case -ENOTTY:
		fprintf(stderr,
			"gupctl %s: %s does not answer GUP_PIN_IOC_VERSION (ENOTTY): it is not the gup_pin_test driver; reload gup_pin_test.ko\n",
			cmd, GUP_PIN_TEST_DEVICE);
		break;
	default:
		fprintf(stderr, "gupctl %s: cannot open %s: %s (%s)%s\n", cmd,
			GUP_PIN_TEST_DEVICE, errno_name(ret), strerror(-ret),
			ret == -EACCES || ret == -EPERM ? ": run as root" : "");
	}
	return GUPCTL_EXIT_NODEV;
}
