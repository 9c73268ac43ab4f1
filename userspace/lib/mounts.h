/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mounts: where the guest's scratch file systems are (rootfs/fstab and
 * rootfs/init mount ext4 and ramfs; jobs/guest/disks.sh's scratch_mount
 * mounts xfs and btrfs, from qemu/run.sh --fs TYPE), the defaults of
 * every command that makes files, and whether one is there.
 */
#ifndef LIB_MOUNTS_H
#define LIB_MOUNTS_H

#include <stddef.h>

#define LAB_EXT4_DIR	"/mnt/ext4"
#define LAB_XFS_DIR	"/mnt/xfs"
#define LAB_BTRFS_DIR	"/mnt/btrfs"
#define LAB_TMPFS_DIR	"/tmp"
#define LAB_RAMFS_DIR	"/mnt/ramfs"

/*
 * Is @dir on file system @fs (its name in /proc/filesystems) of statfs()
 * magic @magic?  0; or -1 with why not in @why: the kernel has no @fs
 * (/proc/filesystems), or @dir is not on it (not mounted there).
 */
int lab_fs_ready(const char *dir, const char *fs, unsigned long magic,
		 char *why, size_t size);

#endif /* LIB_MOUNTS_H */
