// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl: user CLI of /dev/gup_test (gup-lab).  The table of commands and
 * the dispatch; each command lives in the folder of its feature
 * (docs/lab.md, "Layout") and parses with lib/options.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench/report.h"
#include "bench/run.h"
#include "console/slice.h"
#include "consumers/consumers.h"
#include "diff/report.h"
#include "fuzz/run.h"
#include "gup_pin_test.h"
#include "export/export.h"
#include "holders/run.h"
#include "lib/options.h"
#include "lib/util.h"
#include "longterm/judge.h"
#include "matrix/detect.h"
#include "matrix/report.h"
#include "matrix/run.h"
#include "matrix/xcheck.h"
#include "pin/pin.h"
#include "pin/status.h"
#include "repro/run.h"

static int cmd_help(int argc, char **argv);

/* Host-only commands read results and need no device: not in gupctl-guest. */
static const struct gopt_cmd commands[] = {
	GOPT_CMD("pin", cmd_pin,
		 "pin pages of a file or memory, show the kernel's answer, unpin"),
	GOPT_CMD("status", cmd_status,
		 "show the driver's debugfs pins and counters"),
	GOPT_CMD("matrix", cmd_matrix,
		 "run every GUP matrix cell, compare with a policy (KTAP, JSON)"),
	GOPT_CMD("detect", cmd_detect,
		 "the kernel's GUP policy: its facts, confirmed by decisive matrix cells"),
	GOPT_CMD_HOST("report", cmd_report,
		      "a flavour's results document; docs/matrix.md and the SVG from results (no device)"),
	GOPT_CMD("xcheck", cmd_xcheck,
		 "cross-check the matrix with the kernel's own gup_test"),
	GOPT_CMD_HOST("longterm", cmd_longterm,
		      "the mm selftests' gup_longterm: predicted from a policy, judged (no device)"),
	GOPT_CMD("repro", cmd_repro,
		 "the 2018 ext4 crash and its 6.1 data loss, step by step"),
	GOPT_CMD("fuzz", cmd_fuzz,
		 "seeded random and adversarial requests, each answer judged against the ABI"),
	GOPT_CMD("bench", cmd_bench,
		 "time GUP in the kernel per method, flags and backing, beside gup_test"),
	GOPT_CMD("consumers", cmd_consumers,
		 "the kernel's GUP users (ptrace, O_DIRECT, io_uring...) per backing, judged"),
	GOPT_CMD("holders", cmd_holders,
		 "real GUP users hold a file page across fs events: what reaches the disk"),
	GOPT_CMD_HOST("export", cmd_export,
		      "a holders cell as a reproducer that needs nothing of the lab (no device)"),
	GOPT_CMD_HOST("diff", cmd_diff,
		      "what two kernels' results measured differently, cell by cell (no device)"),
	GOPT_CMD_HOST("slice", cmd_slice,
		      "a boot's console cut into its cells' slices by the jobs' markers (no device)"),
	GOPT_CMD("help", cmd_help,
		 "print a command's help (the same as COMMAND --help)"),
	GOPT_CMD_END()
};

#define NR_COMMANDS	(ARRAY_SIZE(commands) - 1)

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

/* The command named @name, or NULL after saying why there is none. */
static const struct gopt_cmd *get_command(const char *name)
{
	const struct gopt_cmd *c = gopt_cmd_find(commands, name);

	if (!c) {
		usage_error(NULL, "unknown command '%s'", name);
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
	const struct gopt_cmd *c;
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
	return gopt_cmd_run(NULL, commands, 2, args);
}

int main(int argc, char **argv)
{
	struct gopt opts[NR_COMMANDS + 4];
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
	if (!get_command(argv[argi]))
		return GUPCTL_EXIT_USAGE;
	return gopt_cmd_run(NULL, commands, argc - argi, argv + argi);
}
