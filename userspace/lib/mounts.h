/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mounts: where the guest's scratch file systems are (rootfs/fstab and
 * rootfs/init mount them), the defaults of every command that makes files.
 */
#ifndef LIB_MOUNTS_H
#define LIB_MOUNTS_H

#define LAB_EXT4_DIR	"/mnt/ext4"
#define LAB_TMPFS_DIR	"/tmp"
#define LAB_RAMFS_DIR	"/mnt/ramfs"

#endif /* LIB_MOUNTS_H */
