/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm: a device-mapper device from its ioctls (<linux/dm-ioctl.h>), what
 * dmsetup does, without dmsetup or udev in the guest: create with one
 * table line, the target's status line, suspend and resume, remove.
 */
#ifndef LIB_DM_H
#define LIB_DM_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Create device @name with one target (@type, @params) over @sectors and
 * resume it; its block device node is made at @node.  0 or -errno.
 */
int dm_create(const char *name, unsigned long long sectors, const char *type,
	      const char *params, const char *node);
/* The target's status line (STATUSTYPE_INFO) into @buf.  0 or -errno. */
int dm_status(const char *name, char *buf, size_t size);
/* Suspend (@suspend true: dm flushes the target's held I/O first) or resume. */
int dm_suspend(const char *name, int suspend);
int dm_remove(const char *name);

#endif /* LIB_DM_H */
