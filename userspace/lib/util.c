// SPDX-License-Identifier: GPL-2.0
/*
 * util: whole reads and writes, the clock (util.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"

/* All @len bytes through read(2) or write(2) (@out), across EINTR: 0 or -1. */
static int io_all(int fd, void *buf, size_t len, bool out)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = out ? write(fd, p, len) : read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
	return io_all(fd, (void *)buf, len, true);
}

int read_all(int fd, void *buf, size_t len)
{
	return io_all(fd, buf, len, false);
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
