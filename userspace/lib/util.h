/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util: what every part of gupctl needs and nothing in particular owns:
 * the exit codes, ARRAY_SIZE, whole reads and writes, a monotonic clock.
 * Depends on nothing.
 */
#ifndef LIB_UTIL_H
#define LIB_UTIL_H

#include <stddef.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* gupctl's exit codes (docs/gupctl.md, "Exit status"). */
enum gupctl_exit {
	GUPCTL_EXIT_OK		= 0,	/* done (a pin: at least one page) */
	GUPCTL_EXIT_REFUSED	= 1,	/* the kernel said no */
	GUPCTL_EXIT_USAGE	= 2,	/* bad options or unusable target */
	GUPCTL_EXIT_NODEV	= 3,	/* module/device missing or other ABI */
	GUPCTL_EXIT_NO_MODEL	= 4,	/* the job has no model of this kernel yet */
};

/* All @len bytes through write(2) / read(2), across EINTR and short counts: 0 or -1. */
int write_all(int fd, const void *buf, size_t len);
int read_all(int fd, void *buf, size_t len);

/* CLOCK_MONOTONIC in seconds. */
double now_seconds(void);

#endif /* LIB_UTIL_H */
