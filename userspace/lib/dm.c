// SPDX-License-Identifier: GPL-2.0
/*
 * dm: device-mapper ioctls on /dev/mapper/control (lib/dm.h).  Each call
 * is one struct dm_ioctl followed by its data, as libdevmapper sends it
 * (drivers/md/dm-ioctl.c: ctl_ioctl() copies data_size bytes in).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/dm-ioctl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "lib/dm.h"	/* export: lab include */

#define DM_CONTROL	"/dev/mapper/control"
#define DM_BUF_SIZE	16384

union dm_buf {
	struct dm_ioctl io;
	char bytes[DM_BUF_SIZE];
};

/*
 * /dev/mapper/control, made here if devtmpfs has no /dev/mapper (no udev
 * in the guest): misc major 10, minor MAPPER_CTRL_MINOR (236).
 */
static int dm_control(void)
{
	int fd = open(DM_CONTROL, O_RDWR | O_CLOEXEC);

	if (fd >= 0 || errno != ENOENT)
		return fd < 0 ? -errno : fd;
	mkdir("/dev/mapper", 0755);
	if (mknod(DM_CONTROL, S_IFCHR | 0600, makedev(10, 236)) && errno != EEXIST)
		return -errno;
	fd = open(DM_CONTROL, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void dm_init(union dm_buf *b, const char *name, unsigned int flags)
{
	memset(b, 0, sizeof(*b));
	b->io.version[0] = DM_VERSION_MAJOR;
	b->io.version[1] = 0;
	b->io.version[2] = 0;
	b->io.data_size = sizeof(*b);
	b->io.data_start = sizeof(struct dm_ioctl);
	b->io.flags = flags;
	snprintf(b->io.name, sizeof(b->io.name), "%s", name);
}

static int dm_call(unsigned long cmd, union dm_buf *b)
{
	int fd = dm_control(), ret;

	if (fd < 0)
		return fd;
	ret = ioctl(fd, cmd, b) ? -errno : 0;
	close(fd);
	return ret;
}

int dm_create(const char *name, unsigned long long sectors, const char *type,
	      const char *params, const char *node)
{
	struct dm_target_spec *t;
	union dm_buf b;
	int ret;

	dm_init(&b, name, 0);
	ret = dm_call(DM_DEV_CREATE, &b);
	if (ret)
		return ret;
	dm_init(&b, name, 0);
	b.io.target_count = 1;
	t = (struct dm_target_spec *)(b.bytes + b.io.data_start);
	t->sector_start = 0;
	t->length = sectors;
	snprintf(t->target_type, sizeof(t->target_type), "%s", type);
	snprintf((char *)(t + 1), DM_BUF_SIZE - b.io.data_start - sizeof(*t), "%s", params);
	/* the next spec's offset, 8-byte aligned, past the parameters */
	t->next = (sizeof(*t) + strlen(params) + 1 + 7) & ~7UL;
	ret = dm_call(DM_TABLE_LOAD, &b);
	if (!ret)
		ret = dm_suspend(name, 0);
	if (ret) {
		dm_remove(name);
		return ret;
	}
	dm_init(&b, name, 0);
	ret = dm_call(DM_DEV_STATUS, &b);
	if (ret)
		return ret;
	unlink(node);
	return mknod(node, S_IFBLK | 0600, (dev_t)b.io.dev) ? -errno : 0;
}

int dm_status(const char *name, char *buf, size_t size)
{
	struct dm_target_spec *t;
	union dm_buf b;
	int ret;

	dm_init(&b, name, 0);
	ret = dm_call(DM_TABLE_STATUS, &b);
	if (ret)
		return ret;
	if (b.io.target_count < 1 || (b.io.flags & DM_BUFFER_FULL_FLAG))
		return -EIO;
	t = (struct dm_target_spec *)(b.bytes + b.io.data_start);
	snprintf(buf, size, "%s", (char *)(t + 1));
	return 0;
}

int dm_suspend(const char *name, int suspend)
{
	union dm_buf b;

	dm_init(&b, name, suspend ? DM_SUSPEND_FLAG : 0);
	return dm_call(DM_DEV_SUSPEND, &b);
}

int dm_remove(const char *name)
{
	union dm_buf b;

	dm_init(&b, name, 0);
	return dm_call(DM_DEV_REMOVE, &b);
}
