/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the models of 7.3 (latest) share: the choice between a 6.x reason's
 * citations and 7.3's, and the words of btrfs' writepage fixup, which the
 * holders (model/holders.c) and the reproduction (model/repro.c) both
 * meet (docs/filesystems-guide.md, section 13).  Pure.
 */
#ifndef MODEL_CITE73_H
#define MODEL_CITE73_H

#include <stdbool.h>

/* @old's words on 6.1 and 6.12 (both cited), @v73's on 7.3. */
static inline const char *cite73(bool v73, const char *old, const char *v73_words)
{
	return v73 ? v73_words : old;
}

/* 7.3 writeback meets a folio btrfs_data_dirty_folio() marked fixup-pending. */
#define BTRFS73_FIXUP_WRITEBACK \
	"writepage_fixup() submits none of its blocks, queues " \
	"btrfs_queue_writepage_fixup() and redirties it (7.3 " \
	"fs/btrfs/extent_io.c:1558-1577), whose worker reserves space and makes it " \
	"delalloc with btrfs_set_extent_delalloc() (7.3 fs/btrfs/inode.c:2935-2941); " \
	"a later writeback writes it, at the latest the unmount's"

/* ... and the unmount's close_ctree(), which writes what is left. */
#define BTRFS73_FIXUP_UNMOUNT \
	"flush_workqueue() on the fixup workers (7.3 fs/btrfs/disk-io.c:4396), then " \
	"btrfs_start_delalloc_roots() (7.3 fs/btrfs/disk-io.c:4410-4411): no error, no " \
	"report"

#endif /* MODEL_CITE73_H */
