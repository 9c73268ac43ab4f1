// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl: user CLI of /dev/gup_test (gup-lab).  Main dispatch, and the helpers every command shares.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gupctl.h"
#include "options.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);	/* NULL: host-only, not built */
	const char *summary;
};

#ifdef GUPCTL_GUEST
#define HOST_ONLY(f)	NULL
#else
#define HOST_ONLY(f)	(f)
#endif

static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
	{ .name = "pin", .run = cmd_pin,
	  .summary = "pin pages of a file or memory, show the kernel's answer, unpin" },
	{ .name = "status", .run = cmd_status,
	  .summary = "show the driver's debugfs pins and counters" },
	{ .name = "matrix", .run = cmd_matrix,
	  .summary = "run every GUP matrix cell, compare with a policy (KTAP, JSON)" },
	/* reads results, needs no device: not in gupctl-guest */
	{ .name = "report", .run = HOST_ONLY(cmd_report),
	  .summary =
		"a flavour's results document; docs/matrix.md and the SVG from results (no device)",
	},
	{ .name = "xcheck", .run = cmd_xcheck,
	  .summary = "cross-check the matrix with the kernel's own gup_test" },
	{ .name = "longterm", .run = HOST_ONLY(cmd_longterm),
	  .summary = "the mm selftests' gup_longterm: predicted from a policy, judged (no device)" },
	{ .name = "repro", .run = cmd_repro,
	  .summary = "the 2018 ext4 crash and its 6.1 data loss, step by step" },
	{ .name = "fuzz", .run = cmd_fuzz,
	  .summary = "seeded random and adversarial requests, each answer judged against the ABI" },

	{ .name = "bench", .run = cmd_bench,
	  .summary = "time GUP in the kernel per method, flags and backing, beside gup_test" },
	{ .name = "consumers", .run = cmd_consumers,
	  .summary = "the kernel's GUP users (ptrace, O_DIRECT, io_uring...) per backing, judged" },
	{ .name = "help", .run = cmd_help,
	  .summary = "print a command's help (the same as COMMAND --help)" },
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

/* All @len bytes through read(2) or write(2) (@out), across EINTR: 0 or -1. */
static int io_all(int fd, void *buf, size_t len, bool out)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = out ? write(fd, p, len) : read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
	return io_all(fd, (void *)buf, len, true);
}

int read_all(int fd, void *buf, size_t len)
{
	return io_all(fd, buf, len, false);
}

int gupctl_open_device(struct gupdev *dev, const char *cmd)
{
	int ret = gupdev_open(dev);

	switch (ret) {
	case 0:
		return GUPCTL_EXIT_OK;
	case -ENOENT:
		fprintf(stderr,
			"gupctl %s: %s not found: the gup_pin_test module is not loaded; load it: insmod gup_pin_test.ko\n",
			cmd, GUP_PIN_TEST_DEVICE);
		break;
	case -EPROTO:
		fprintf(stderr,
			"gupctl %s: ABI version mismatch: the module speaks %u, gupctl %u: rebuild gupctl and the module from the same tree\n",
			cmd, dev->ver.abi_version, GUP_PIN_TEST_ABI_VERSION);
		break;
	case -ENOTTY:
		fprintf(stderr,
			"gupctl %s: %s does not answer GUP_PIN_IOC_VERSION (ENOTTY): it is not the gup_pin_test driver; reload gup_pin_test.ko\n",
			cmd, GUP_PIN_TEST_DEVICE);
		break;
	default:
		fprintf(stderr, "gupctl %s: cannot open %s: %s (%s)%s\n", cmd,
			GUP_PIN_TEST_DEVICE, errno_name(ret), strerror(-ret),
			ret == -EACCES || ret == -EPERM ? ": run as root" : "");
	}
	return GUPCTL_EXIT_NODEV;
}

static const char * const main_usage[] = {
	"gupctl [--version] COMMAND [OPTIONS] [ARGS]",
	"gupctl help COMMAND",
	"",
	"The user CLI of " GUP_PIN_TEST_DEVICE " (gup_pin_test.ko).",
	NULL
};

/* gupctl's own options, and its commands as lines of the help. */
static void main_opts(struct gopt *opts, bool *version)
{
	size_t i, n = 0;

	opts[n++] = (struct gopt)GOPT_GROUP("Commands");
	for (i = 0; i < NR_COMMANDS; i++) {
		opts[n] = (struct gopt)GOPT_TEXT(commands[i].name, commands[i].summary);
		if (!commands[i].run)
			opts[n].help = "(host build only: not in this gupctl)";
		n++;
	}
	opts[n++] = (struct gopt)GOPT_GROUP("Options");
	opts[n++] = (struct gopt)GOPT_BOOL(0, "version", version,
					   "print the gup_pin_test ABI version gupctl speaks");
	opts[n] = (struct gopt)GOPT_END();
}

static void main_help(FILE *f)
{
	struct gopt opts[NR_COMMANDS + 4];
	bool version;

	main_opts(opts, &version);
	gopt_usage(f, NULL, opts, main_usage);
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* The command named @name, or NULL after saying why there is none. */
static const struct command *get_command(const char *name)
{
	const struct command *c = find_command(name);

	if (!c) {
		usage_error(NULL, "unknown command '%s'", name);
		return NULL;
	}
	if (!c->run) {
		fprintf(stderr,
			"gupctl: '%s' is a host-only command, not in this build (gupctl-guest): run it on the host\n",
			name);
		return NULL;
	}
	return c;
}

static int cmd_help(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl help [COMMAND]",
		"",
		"Print the help of COMMAND (what COMMAND --help prints), or gupctl's.",
		NULL
	};
	const struct gopt opts[] = { GOPT_END() };
	char *args[3] = { NULL, "--help", NULL };	/* for cmd_X() */
	const struct command *c;
	int ret, argi;

	ret = gopt_parse("help", argc, argv, opts, usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (argi == argc) {
		main_help(stdout);
		return GUPCTL_EXIT_OK;
	}
	if (argc - argi > 1)
		return usage_error("help", "give one COMMAND, not '%s' too", argv[argi + 1]);
	c = get_command(argv[argi]);
	if (!c)
		return GUPCTL_EXIT_USAGE;
	args[0] = (char *)c->name;
	return c->run(2, args);
}

int main(int argc, char **argv)
{
	struct gopt opts[NR_COMMANDS + 4];
	const struct command *c;
	bool version = false;
	int ret, argi;

	main_opts(opts, &version);
	ret = gopt_parse_flags(NULL, argc, argv, opts, main_usage,
			       GOPT_STOP_AT_OPERAND, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (version && argi < argc)
		return usage_error(NULL, "--version takes no COMMAND");
	if (version) {
		printf("gupctl: gup_pin_test ABI version %u\n",
		       GUP_PIN_TEST_ABI_VERSION);
		return GUPCTL_EXIT_OK;
	}
	if (argi == argc) {
		main_help(stderr);
		return GUPCTL_EXIT_USAGE;
	}
	c = get_command(argv[argi]);
	if (!c)
		return GUPCTL_EXIT_USAGE;
	return c->run(argc - argi, argv + argi);
}
