// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl consumers: the kernel's own GUP users (process_vm_writev/readv,
 * /proc/PID/mem, PTRACE_POKEDATA, O_DIRECT, vmsplice, io_uring, AF_XDP,
 * RDMA on rxe and siw, uprobes) driven
 * from user space on every matrix backing and page state, no driver.
 *   run     (guest) every cell, measured, as JSON; a marker per cell
 *   expect  every cell's expectation under a policy (consumers/cells.c)
 *   judge   (host) measured against expected: FLAVOUR.json and KTAP
 *   report  (host) docs/consumers.md from a results directory
 *   cell, probe-target  internal: run by consumers run itself
 * The guide: docs/consumers-guide.md.
 */
#include <stdio.h>
#include <string.h>

#include "consumers/cells.h"
#include "consumers/consumers.h"
#include "consumers/judge.h"
#include "consumers/report.h"
#include "consumers/run.h"
#include "lib/gupdev.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/cell.h"
#include "model/measured.h"


static const char * const consumers_usage[] = {
	"gupctl consumers run [--quick] [--json FILE] [--flavour F] [--policy P]",
	"gupctl consumers expect --policy P [--quick] [--cell N]",
	"gupctl consumers judge --flavour F --policy P --json OUT [OPTIONS]   (host)",
	"gupctl consumers report --md FILE DIR                               (host)",
	"",
	"The kernel's GUP users driven from user space, each expected from the policy.",
	NULL
};

static int cmd_run(int argc, char **argv)
{
	struct consumers_run_opts o = { 0 };
	const struct gopt opts[] = {
		GOPT_BOOL(0, "quick", &o.quick, "the quick subset (make check) instead of every cell"),
		GOPT_STRING(0, "json", &o.json, "FILE", "write the measurements here"),
		GOPT_STRING(0, "flavour", &o.flavour, "F", "recorded in the JSON"),
		GOPT_STRING(0, "policy", &o.policy, "P", "recorded in the JSON (the host expects)"),
		GOPT_END()
	};
	int ret, argi;

	ret = gopt_parse("consumers run", argc, argv, opts, consumers_usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (argi < argc)
		return usage_error("consumers run", "unexpected argument '%s'", argv[argi]);
	return consumers_run(&o);
}

static int cmd_expect(int argc, char **argv)
{
	const char *policy = NULL;
	unsigned int only = 0, n, i;
	bool quick = false;
	const struct gopt opts[] = {
		GOPT_STRING(0, "policy", &policy, "P",
			    "the flavour's gup column, or none: measured, no policy to compare"),
		GOPT_BOOL(0, "quick", &quick, "the quick subset's cells and numbers"),
		GOPT_UINT(0, "cell", &only, "N", "only cell N (1..)"),
		GOPT_END()
	};
	struct consumer_cell cc[CONS_MAX_CELLS];
	struct consumer_expectation e;
	char name[160];
	int ret, argi;

	ret = gopt_parse("consumers expect", argc, argv, opts, consumers_usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (argi < argc)
		return usage_error("consumers expect", "unexpected argument '%s'", argv[argi]);
	if (!measured_policy_ok(policy))
		return usage_error("consumers expect", "give --policy: %s, or %s", policy_names(),
				   POLICY_NONE);
	n = consumer_cells(quick, cc, CONS_MAX_CELLS);
	if (only > n)
		return usage_error("consumers expect", "--cell %u: there are %u cells", only, n);
	for (i = 0; i < n; i++) {
		if (only && i + 1 != only)
			continue;
		if (policy_is_none(policy)) {
			printf("%3u %-48s " MEASURED_ONLY "\n", i + 1,
			       consumer_cell_str(&cc[i], name, sizeof(name)));
			continue;
		}
		consumer_expect(policy, &cc[i], &e);
		printf("%3u %-48s %s%s  mapping %s, file %s, disk %s, read %s\n    because %s\n",
		       i + 1, consumer_cell_str(&cc[i], name, sizeof(name)),
		       e.report.kind ? "WARN " : "", e.ok ? "ok" : errno_name(e.err),
		       cons_data_name(e.mapping), cons_data_name(e.file),
		       cons_data_name(e.disk), cons_data_name(e.read), e.reason);
	}
	return GUPCTL_EXIT_OK;
}

int cmd_consumers(int argc, char **argv)
{
	static const struct gopt_cmd sub[] = {
		GOPT_CMD("run", cmd_run, "run every cell in this guest"),
		GOPT_CMD("expect", cmd_expect, "print each cell's expectation"),
		GOPT_CMD_HOST("judge", consumers_judge, "judge a guest's measurements"),
		GOPT_CMD_HOST("report", consumers_report, "the page of a results directory"),
		/* internal: the RDMA helper's cell, the uprobe cells' program */
		GOPT_CMD("cell", consumers_cell, NULL),
		GOPT_CMD("probe-target", consumers_probe_target, NULL),
		GOPT_CMD_END()
	};
	return gopt_cmd_main("consumers", sub, consumers_usage, argc, argv);
}
