/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gupdev: a small library over /dev/gup_test, the gup-lab test driver.
 *
 * The ABI (ioctl numbers, structures, flags) lives in gup_pin_test.h and
 * only there.  Functions returning int return 0 (or a count) on success and
 * -errno on failure; none of them prints anything.
 */
#ifndef GUPDEV_H
#define GUPDEV_H

#include <stddef.h>
#include <sys/types.h>

#include "gup_pin_test.h"

struct gupdev {
	int fd;				/* -1 when closed */
	struct gup_pin_version ver;	/* what the module reported */
};

/*
 * Open GUP_PIN_TEST_DEVICE and check GUP_PIN_IOC_VERSION against the ABI
 * gupctl was built with.  Errors: -ENOENT the device node is absent (module
 * not loaded); -ENOTTY the node does not answer GUP_PIN_IOC_VERSION (not
 * this driver); -EPROTO the module speaks another ABI version
 * (dev->ver.abi_version says which, ABI 1 included); any open() errno
 * (EACCES, or EPERM without CAP_SYS_ADMIN).  On error the device is left
 * closed.
 */
int gupdev_open(struct gupdev *dev);
void gupdev_close(struct gupdev *dev);

/*
 * Pin [addr, addr + len) with @method (enum gup_pin_method) and @flags
 * (GUP_PIN_FLAG_*).  0 means the ioctl succeeded: @req then holds the
 * answer (id, nr_requested, nr_pinned; id 0 and nr_pinned 0 when no page
 * was taken).  -errno is the GUP call's (or the driver's) refusal.
 */
int gupdev_pin(struct gupdev *dev, void *addr, size_t len,
	       unsigned int method, unsigned int flags,
	       struct gup_pin_req *req);
/* Release pin @id; @flags: GUP_UNPIN_* (GUP_UNPIN_DIRTY). */
int gupdev_unpin(struct gupdev *dev, __u32 id, unsigned int flags);
/* Copy @buf to the pinned pages of @id through the kernel map. */
int gupdev_write(struct gupdev *dev, __u32 id, __u64 offset,
		 const void *buf, size_t len);
/* Copy the pinned pages of @id to @buf through the kernel map. */
int gupdev_read(struct gupdev *dev, __u32 id, __u64 offset,
		void *buf, size_t len);
/*
 * Fill up to *@count entries of @pages with the state of pages
 * [@first, @first + *@count) of pin @id; *@count becomes the number written.
 */
int gupdev_state(struct gupdev *dev, __u32 id, __u32 first,
		 struct gup_page_state *pages, __u32 *count);

/*
 * GUP_PIN_IOC_BENCH: @b in (addr, len, method, flags, nr_per_call, the
 * rest 0), the timings out.  -errno: the driver refused the request; a
 * GUP call's error is b->err.
 */
int gupdev_bench(struct gupdev *dev, struct gup_pin_bench *b);

/*
 * debugfs (GUP_PIN_TEST_DEBUGFS).  gupdev_debugfs_probe(): 0 the module's
 * directory is there; -ENODEV debugfs is not mounted on /sys/kernel/debug;
 * -ENOENT debugfs is mounted but the module's directory is absent; -EACCES
 * not allowed to look (debugfs is root only).
 */
int gupdev_debugfs_probe(void);
/* Read file @name of the module's directory into @buf, NUL terminated. */
ssize_t gupdev_debugfs_read(const char *name, char *buf, size_t size);

/* Names.  errno_name() takes err or -err and never returns NULL. */
const char *errno_name(int err);
const char *gup_method_name(unsigned int method);	/* NULL if invalid */
const char *gup_page_kind_name(unsigned int kind);	/* "?" if invalid */
/* "WRITE|LONGTERM" ("none" if 0) and "dirty,uptodate,..." ("-" if 0). */
char *gup_flags_str(unsigned int flags, char *buf, size_t size);
char *gup_page_state_str(unsigned int state, char *buf, size_t size);

/* Open the device via gupdev_open(); explain a failure.  A gupctl exit code. */
int gupctl_open_device(struct gupdev *dev, const char *cmd);

#endif /* GUPDEV_H */
