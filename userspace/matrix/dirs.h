/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dirs: where file-backed cells create their files, and the options that
 * move them (gupctl matrix and gupctl xcheck share both).
 */
#ifndef MATRIX_DIRS_H
#define MATRIX_DIRS_H

#include "lib/mounts.h"
#include "model/cell.h"

#define MATRIX_EXT4_DIR		LAB_EXT4_DIR
#define MATRIX_TMPFS_DIR	LAB_TMPFS_DIR
#define MATRIX_RAMFS_DIR	LAB_RAMFS_DIR
#define MATRIX_XFS_DIR		LAB_XFS_DIR
#define MATRIX_BTRFS_DIR	LAB_BTRFS_DIR
/* Those directories: the options that give them, indexed by enum matrix_dir. */
enum matrix_dir {
	MATRIX_DIR_EXT4,
	MATRIX_DIR_TMPFS,
	MATRIX_DIR_RAMFS,
	MATRIX_DIR_XFS,
	MATRIX_DIR_BTRFS,
	MATRIX_NR_DIRS
};

struct matrix_dir_opt {
	const char *option;	/* "--ext4-dir" */
	const char *fs;		/* "ext4", as /proc/filesystems names it */
	unsigned long magic;	/* its statfs() f_type, as in backing_spec() */
	const char *def;	/* MATRIX_EXT4_DIR */
	/*
	 * A scratch disk of its own (qemu/run.sh --fs TYPE) that a boot may
	 * lack: without it the run goes on and its cells are not run, with
	 * the reason, each a failure.  The others are the root image's: a
	 * usage error.
	 */
	bool scratch;
};

extern const struct matrix_dir_opt matrix_dirs[MATRIX_NR_DIRS];
/* The directory a file backing's file is made in, or -1 (not a file). */
int matrix_backing_dir(enum cell_backing backing);
/* Set @dir[MATRIX_NR_DIRS] to the default directories. */
void matrix_dir_defaults(const char **dir);
/* Their options' help, in both commands' tables. */
#define MATRIX_EXT4_HELP	"a directory on ext4 (" MATRIX_EXT4_DIR ")"
#define MATRIX_TMPFS_HELP	"a directory on tmpfs (" MATRIX_TMPFS_DIR ")"
#define MATRIX_RAMFS_HELP	"a directory on ramfs (" MATRIX_RAMFS_DIR ")"
#define MATRIX_XFS_HELP		"a directory on xfs (" MATRIX_XFS_DIR "; not there: its cells are not run)"
#define MATRIX_BTRFS_HELP	"a directory on btrfs (" MATRIX_BTRFS_DIR "; not there: its cells are not run)"
/* The help of matrix's and xcheck's --policy (it names the policies). */
const char *matrix_policy_help(void);

#endif /* MATRIX_DIRS_H */
