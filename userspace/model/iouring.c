// SPDX-License-Identifier: GPL-2.0
/*
 * iouring: io_uring's own check after its pin on 6.1 (iouring.h).  Pure.
 */
#include <linux/magic.h>

#include "lib/target.h"
#include "model/iouring.h"
#include "model/policy.h"

const char *const iouring_61_check =
	"then io_uring's own check: a file VMA neither shmem nor hugetlbfs is -EOPNOTSUPP (6.1: io_uring/rsrc.c:1011-1022), MAP_PRIVATE too; the pages are unpinned";

bool iouring_61_refuses(enum cell_backing b)
{
	const struct backing_spec *bs = backing_spec(b);

	return bs->kind == TARGET_FILE && bs->fs_magic != TMPFS_MAGIC;
}
