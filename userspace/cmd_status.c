// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl status: the driver's debugfs files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gupctl.h"

void cmd_status_help(FILE *f)
{
	fprintf(f,
"usage: gupctl status\n"
"\n"
"Print the gup_pin_test debugfs files pins and counters from\n"
GUP_PIN_TEST_DEBUGFS "/, and whether the running kernel has the\n"
"GUP file-write policy (vma_needs_dirty_tracking in /proc/kallsyms).\n"
"\n"
"Options:\n"
"  -h, --help  this help\n"
"\n"
"Exit status: 0 shown, 2 usage error, 3 debugfs not mounted, module not\n"
"loaded, or its files unreadable.\n");
}

#define DEBUGFS_FILE_MAX	(1 << 20)

static int show_file(const char *name)
{
	char *buf = malloc(DEBUGFS_FILE_MAX);
	ssize_t n = buf ? gupdev_debugfs_read(name, buf, DEBUGFS_FILE_MAX) :
		    -ENOMEM;

	if (n < 0) {
		free(buf);
		fprintf(stderr, "gupctl status: cannot read %s/%s: %s (%s)%s\n",
			GUP_PIN_TEST_DEBUGFS, name, errno_name(n), strerror(-n),
			n == -EACCES || n == -EPERM ? ": run as root" :
			": is the module the one gupctl was built for?");
		return GUPCTL_EXIT_NODEV;
	}
	printf("== %s/%s ==\n%s", GUP_PIN_TEST_DEBUGFS, name, buf);
	if (n && buf[n - 1] != '\n')
		putchar('\n');
	free(buf);
	return GUPCTL_EXIT_OK;
}

int cmd_status(int argc, char **argv)
{
	int ret, policy;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		cmd_status_help(stdout);
		return GUPCTL_EXIT_OK;
	}
	if (argc > 1)
		return usage_error("status", argv[1][0] == '-' ?
				   "unknown option '%s'" : "unexpected argument '%s'",
				   argv[1]);

	policy = gup_file_write_policy();
	if (policy < 0)
		printf("kernel: GUP file-write policy unknown (/proc/kallsyms: %s)\n",
		       errno_name(policy));
	else
		printf("kernel: GUP file-write policy %s\n",
		       policy ? "present" : "absent");

	ret = gupdev_debugfs_probe();
	switch (ret) {
	case 0:
		break;
	case -ENODEV:
		fprintf(stderr, "gupctl status: debugfs is not mounted on /sys/kernel/debug: mount it: mount -t debugfs none /sys/kernel/debug\n");
		return GUPCTL_EXIT_NODEV;
	case -ENOENT:
		fprintf(stderr, "gupctl status: %s absent: the gup_pin_test module is not loaded; load it: insmod gup_pin_test.ko\n",
			GUP_PIN_TEST_DEBUGFS);
		return GUPCTL_EXIT_NODEV;
	default:
		fprintf(stderr, "gupctl status: cannot look into %s: %s (%s)%s\n",
			GUP_PIN_TEST_DEBUGFS, errno_name(ret), strerror(-ret),
			ret == -EACCES ? ": debugfs is root only, run as root" : "");
		return GUPCTL_EXIT_NODEV;
	}
	ret = show_file("pins");
	return show_file("counters") ?: ret;
}
