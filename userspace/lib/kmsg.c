// SPDX-License-Identifier: GPL-2.0
/*
 * kmsg: markers on the kernel log (kmsg.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/gupdev.h"
#include "lib/kmsg.h"

int kmsg_mark(const char *step, int index)
{
	char msg[64];
	int fd, len, ret = 0;

	if (index == KMSG_MARK_END)
		len = snprintf(msg, sizeof(msg), "<5>" KMSG_MARK_PREFIX "%s end\n",
			       step);
	else
		len = snprintf(msg, sizeof(msg), "<5>" KMSG_MARK_PREFIX "%s cell %d\n",
			       step, index + 1);
	/*
	 * Opened per message: /dev/kmsg rate-limits each open file to 10
	 * messages per 5 s (devkmsg_open(), kernel/printk/printk.c:867).
	 */
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, msg, len) != len)
		ret = -(errno ?: EIO);
	close(fd);
	return ret;
}

void kmsg_marker_mark(struct kmsg_marker *m, int index)
{
	int ret;

	if (!m->on)
		return;
	ret = kmsg_mark(m->step, index);
	if (ret) {
		printf("# no kernel markers: /dev/kmsg: %s (%s)\n",
		       errno_name(ret), strerror(-ret));
		m->on = false;
	}
}
