// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl slice: a boot's console cut into one slice per cell by the
 * markers every job writes ("gup-lab: STEP cell N", "gup-lab: STEP end":
 * lib/kmsg.h), read by console/markers.c's one parser of them.
 */
#include "console/markers.h"
#include "console/slice.h"
#include "lib/options.h"
#include "lib/util.h"

int cmd_slice(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl slice --step STEP --console FILE --dir DIR --suffix S --tail T NAME...",
		"",
		"Cut a boot's console into DIR/NAME.S, one slice per cell (\"gup-lab: STEP",
		"cell N\" starts the Nth NAME's), DIR/T.S after \"gup-lab: STEP end\"; print",
		"the NAME of each cell marker, in order.",
		NULL
	};
	struct slice_opts o = { 0 };
	const struct gopt opts[] = {
		GOPT_STRING(0, "step", &o.step, "STEP", "the markers' step (repro, holders...)"),
		GOPT_STRING(0, "console", &o.console, "FILE", "the boot's console"),
		GOPT_STRING(0, "dir", &o.dir, "DIR", "where the slices go"),
		GOPT_STRING(0, "suffix", &o.suffix, "S", "their suffix (console.log, console.decoded)"),
		GOPT_STRING(0, "tail", &o.tail, "T", "the slice after the last cell"),
		GOPT_END()
	};
	int ret, argi;

	ret = gopt_parse("slice", argc, argv, opts, usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (!o.step || !o.console || !o.dir || !o.suffix || !o.tail)
		return usage_error("slice", "give --step, --console, --dir, --suffix and --tail");
	if (argi == argc)
		return usage_error("slice", "give the boot's cells' NAMEs, in order");
	o.names = argv + argi;
	o.nr_names = argc - argi;
	return markers_slice("slice", &o);
}
