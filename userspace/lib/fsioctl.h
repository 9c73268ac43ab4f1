/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsioctl: file-system ioctls whose argument is not in the uapi headers
 * Debian ships (linux-libc-dev), copied from the kernel's own definitions,
 * which are the same in 6.1 and 6.12.
 */
#ifndef LIB_FSIOCTL_H
#define LIB_FSIOCTL_H

#include <linux/types.h>
#include <sys/ioctl.h>

/* fs/ext4/ext4.h: EXT4_IOC_MOVE_EXT's argument (what e4defrag passes) */
struct ext4_move_extent {
	__u32 reserved;			/* must be zero */
	__u32 donor_fd;
	__u64 orig_start;		/* in blocks */
	__u64 donor_start;		/* in blocks */
	__u64 len;			/* in blocks */
	__u64 moved_len;		/* out: blocks moved */
};
#define EXT4_IOC_MOVE_EXT	_IOWR('f', 15, struct ext4_move_extent)

/* fs/xfs/libxfs/xfs_fs.h: XFS_IOC_SWAPEXT's argument (what xfs_fsr passes) */
struct xfs_bstime {
	long tv_sec;			/* __kernel_long_t */
	__s32 tv_nsec;
};

struct xfs_bstat {
	__u64 bs_ino;
	__u16 bs_mode, bs_nlink;
	__u32 bs_uid, bs_gid, bs_rdev;
	__s32 bs_blksize;
	__s64 bs_size;
	struct xfs_bstime bs_atime, bs_mtime, bs_ctime;
	__s64 bs_blocks;
	__u32 bs_xflags;
	__s32 bs_extsize, bs_extents;
	__u32 bs_gen;
	__u16 bs_projid_lo, bs_forkoff, bs_projid_hi;
	__u16 bs_sick, bs_checked;
	unsigned char bs_pad[2];
	__u32 bs_cowextsize, bs_dmevmask;
	__u16 bs_dmstate, bs_aextents;
};

struct xfs_swapext {
	__s64 sx_version;		/* XFS_SX_VERSION */
	__s64 sx_fdtarget;		/* the file whose times are checked */
	__s64 sx_fdtmp;
	__s64 sx_offset;		/* must be 0 */
	__s64 sx_length;		/* both files' size */
	char sx_pad[16];
	struct xfs_bstat sx_stat;	/* the target's times before the copy */
};
#define XFS_SX_VERSION		0
#define XFS_IOC_SWAPEXT		_IOWR('X', 109, struct xfs_swapext)

#endif /* LIB_FSIOCTL_H */
