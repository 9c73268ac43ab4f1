// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl status: the driver's debugfs files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gupdev.h"
#include "lib/kernel.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/cell.h"
#include "model/detect.h"
#include "pin/status.h"

#define DEBUGFS_FILE_MAX	(1024 * 1024)	/* bytes */

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
	static const char * const usage[] = {
		"gupctl status",
		"",
		"Print the driver's debugfs files pins and counters, and the kernel's GUP policy.",
		NULL
	};
	const struct gopt opts[] = { GOPT_END() };
	const char *policy;
	struct kernel_facts kf;
	char why[256];
	int ret, argi;

	ret = gopt_parse("status", argc, argv, opts, usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (argi < argc)
		return usage_error("status", "unexpected argument '%s'", argv[argi]);

	kernel_facts_read(&kf);
	policy = policy_detect(&kf, why, sizeof(why));
	printf("kernel: GUP policy %s (%s)\n", policy ?: "unknown", why);

	ret = gupdev_debugfs_probe();
	switch (ret) {
	case 0:
		break;
	case -ENODEV:
		fprintf(stderr,
			"gupctl status: debugfs is not mounted on /sys/kernel/debug: mount it: mount -t debugfs none /sys/kernel/debug\n");
		return GUPCTL_EXIT_NODEV;
	case -ENOENT:
		fprintf(stderr,
			"gupctl status: %s absent: the gup_pin_test module is not loaded; load it: insmod gup_pin_test.ko\n",
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
