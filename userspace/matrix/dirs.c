// SPDX-License-Identifier: GPL-2.0
/*
 * dirs: where the matrix's file backings make their files (dirs.h), for
 * gupctl matrix and gupctl xcheck.
 */
#include <stdio.h>
#include <linux/magic.h>

#include "matrix/dirs.h"
#include "model/policy.h"

const struct matrix_dir_opt matrix_dirs[MATRIX_NR_DIRS] = {
	[MATRIX_DIR_EXT4]  = { "--ext4-dir", "ext4", EXT4_SUPER_MAGIC, MATRIX_EXT4_DIR, false },
	[MATRIX_DIR_TMPFS] = { "--tmpfs-dir", "tmpfs", TMPFS_MAGIC, MATRIX_TMPFS_DIR, false },
	[MATRIX_DIR_RAMFS] = { "--ramfs-dir", "ramfs", RAMFS_MAGIC, MATRIX_RAMFS_DIR, false },
	[MATRIX_DIR_XFS]   = { "--xfs-dir", "xfs", XFS_SUPER_MAGIC, MATRIX_XFS_DIR, true },
	[MATRIX_DIR_BTRFS] = { "--btrfs-dir", "btrfs", BTRFS_SUPER_MAGIC, MATRIX_BTRFS_DIR, true },
};

int matrix_backing_dir(enum cell_backing backing)
{
	const struct backing_spec *b = backing_spec(backing);
	int d;

	if (!b || b->kind != TARGET_FILE)
		return -1;
	for (d = 0; d < MATRIX_NR_DIRS; d++)
		if (matrix_dirs[d].magic == b->fs_magic)
			return d;
	return -1;
}

void matrix_dir_defaults(const char **dir)
{
	int d;

	for (d = 0; d < MATRIX_NR_DIRS; d++)
		dir[d] = matrix_dirs[d].def;
}

const char *matrix_policy_help(void)
{
	static char help[192];

	snprintf(help, sizeof(help),
		 "%s; %s: measure only (required)",
		 policy_names(), POLICY_NONE);
	return help;
}
