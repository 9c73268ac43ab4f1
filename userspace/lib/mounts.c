// SPDX-License-Identifier: GPL-2.0
/*
 * mounts: is a scratch directory on its file system (mounts.h)?
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>

#include "lib/gupdev.h"
#include "lib/mounts.h"

/* Does /proc/filesystems list @fs ("nodev\tramfs" or "\txfs")? */
static bool proc_filesystems_has(const char *fs)
{
	char line[128], *name;
	bool found = false;
	FILE *f = fopen("/proc/filesystems", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		name = strrchr(line, '\t');
		found = !strcmp(name ? name + 1 : line, fs);
	}
	fclose(f);
	return found;
}

int lab_fs_ready(const char *dir, const char *fs, unsigned long magic,
		 char *why, size_t size)
{
	struct statfs sfs;
	int err = statfs(dir, &sfs) ? errno : 0;

	if (!err && (unsigned long)sfs.f_type == magic)
		return 0;
	if (!proc_filesystems_has(fs))
		snprintf(why, size, "this kernel has no %s (/proc/filesystems): nothing is mounted at %s",
			 fs, dir);
	else if (err)
		snprintf(why, size, "no %s mounted at %s (statfs: %s)", fs, dir,
			 errno_name(err));
	else
		snprintf(why, size, "no %s mounted at %s (it is on file system magic %#lx)",
			 fs, dir, (unsigned long)sfs.f_type);
	return -1;
}
