// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl: user CLI of /dev/gup_test (gup-lab).  Main dispatch.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gupctl.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	void (*help)(FILE *f);
	const char *summary;
};

static const struct command commands[] = {
	{ "pin", cmd_pin, cmd_pin_help,
	  "pin pages of a file or memory, show the kernel's answer, unpin" },
	{ "status", cmd_status, cmd_status_help,
	  "show the driver's debugfs pins and counters" },
	{ "matrix", cmd_matrix, cmd_matrix_help,
	  "run every GUP matrix cell, compare with a policy (KTAP, TSV, JSON)" },
#ifndef GUPCTL_GUEST
	/* host only: reads results, needs no device (not in gupctl-guest) */
	{ "report", cmd_report, cmd_report_help,
	  "turn matrix TSVs into docs/matrix.md and a heatmap SVG (no device)" },
#endif
	{ "xcheck", cmd_xcheck, cmd_xcheck_help,
	  "cross-check the matrix with the kernel's own gup_test" },
	{ "repro", cmd_repro, cmd_repro_help, "the 2018 ext4 crash and its 6.1 data loss, step by step" },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_COMMANDS	ARRAY_SIZE(commands)

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gupctl%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'gupctl %s%s--help'.\n", cmd ? cmd : "",
		cmd ? " " : "");
	return GUPCTL_EXIT_USAGE;
}

int gupctl_open_device(struct gupdev *dev, const char *cmd)
{
	int ret = gupdev_open(dev);

	switch (ret) {
	case 0:
		return GUPCTL_EXIT_OK;
	case -ENOENT:
		fprintf(stderr, "gupctl %s: %s not found: the gup_pin_test module is not loaded; load it: insmod gup_pin_test.ko\n",
			cmd, GUP_PIN_TEST_DEVICE);
		break;
	case -EPROTO:
		fprintf(stderr, "gupctl %s: ABI version mismatch: the module speaks %u, gupctl %u: rebuild gupctl and the module from the same tree\n",
			cmd, dev->ver.abi_version, GUP_PIN_TEST_ABI_VERSION);
		break;
	case -ENOTTY:
		fprintf(stderr, "gupctl %s: %s does not answer GUP_PIN_IOC_VERSION (ENOTTY): it is not the gup_pin_test driver; reload gup_pin_test.ko\n",
			cmd, GUP_PIN_TEST_DEVICE);
		break;
	default:
		fprintf(stderr, "gupctl %s: cannot open %s: %s (%s)%s\n", cmd,
			GUP_PIN_TEST_DEVICE, errno_name(ret), strerror(-ret),
			ret == -EACCES || ret == -EPERM ? ": run as root" : "");
	}
	return GUPCTL_EXIT_NODEV;
}

static void main_help(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: gupctl COMMAND [OPTIONS]\n"
		"       gupctl help COMMAND | gupctl COMMAND --help\n"
		"       gupctl --help | --version\n"
		"\n"
		"User CLI of %s (gup_pin_test.ko, ABI version %u).\n"
		"\n"
		"Commands:\n", GUP_PIN_TEST_DEVICE, GUP_PIN_TEST_ABI_VERSION);
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"  help     show the help of a command\n"
		"\n"
		"Options:\n"
		"  -h, --help  this help\n"
		"  --version   print the gup_pin_test ABI version gupctl speaks\n"
		"\n"
		"Exit status: 0 done, 1 refused by the kernel (matrix, report:\n"
		"some cell not as expected), 2 usage error, 3 device missing or\n"
		"of another ABI version.  Each command's help says more.\n");
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *c;
	const char *arg = argc > 1 ? argv[1] : NULL;

	if (!arg) {
		main_help(stderr);
		return GUPCTL_EXIT_USAGE;
	}
	if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
		main_help(stdout);
		return GUPCTL_EXIT_OK;
	}
	if (!strcmp(arg, "--version")) {
		printf("gupctl: gup_pin_test ABI version %u\n",
		       GUP_PIN_TEST_ABI_VERSION);
		return GUPCTL_EXIT_OK;
	}
	if (!strcmp(arg, "help")) {
		if (argc == 2) {
			main_help(stdout);
			return GUPCTL_EXIT_OK;
		}
		if (argc > 3)
			return usage_error(NULL, "help takes one COMMAND");
		c = find_command(argv[2]);
		if (!c)
			return usage_error(NULL, "unknown command '%s'", argv[2]);
		c->help(stdout);
		return GUPCTL_EXIT_OK;
	}
	if (arg[0] == '-')
		return usage_error(NULL, "unknown option '%s'", arg);
	c = find_command(arg);
	if (!c)
		return usage_error(NULL, "unknown command '%s'", arg);
	return c->run(argc - 1, argv + 1);
}
