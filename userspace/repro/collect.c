// SPDX-License-Identifier: GPL-2.0
/*
 * collect (host only), after each boot of the reproduction: gupctl repro
 * collect, one flavour's judged cells (gupctl repro judge -o CELL.json)
 * into FLAVOUR.json and FLAVOUR.ktap (docs/results.md); a cell of policy
 * none that ran is a KTAP SKIP, "measured, no policy to compare".  The boot's
 * console is cut into its cells' slices by gupctl slice --step repro
 * (console/slice.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/measured.h"
#include "repro/cells.h"
#include "repro/collect.h"

/* A kernel report's severity (scan-console.sh's: 0 the most severe). */
static json_int_t severity(json_t *report)
{
	return json_integer_value(json_object_get(report, "severity"));
}

static int write_ktap(const char *path, json_t *doc)
{
	json_t *cells = json_object_get(doc, "cells"), *c;
	unsigned int bad = 0, measured = 0;
	char line[512];
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -errno;
	fprintf(f, "KTAP version 1\n");
	fprintf(f, "# gup-lab repro ext4-2018 flavour=%s policy=%s ext4=%s kernel=%s\n",
		repro_json_str(doc, "flavour"), repro_json_str(doc, "policy"), repro_json_str(doc, "ext4"),
		repro_json_str(doc, "kernel_release") ? repro_json_str(doc, "kernel_release") : "?");
	fprintf(f, "1..%zu\n", json_array_size(cells));
	json_array_foreach(cells, i, c) {
		/* policy none: a cell that ran is measured, one that did not fails */
		if (json_is_true(json_object_get(c, "measured_only"))) {
			if (json_is_true(json_object_get(c, "match"))) {
				measured++;
				fprintf(f, "%s\n", measured_ktap(line, sizeof(line), i + 1,
								 repro_json_str(c, "cell"),
								 repro_json_outcome(c, "measured")));
			} else {
				bad++;
				fprintf(f, "not ok %zu %s # %s (" MEASURED_ONLY ")\n", i + 1,
					repro_json_str(c, "cell"), repro_json_outcome(c, "measured"));
			}
			continue;
		}
		if (json_is_true(json_object_get(c, "match"))) {
			fprintf(f, "ok %zu %s # %s\n", i + 1, repro_json_str(c, "cell"),
				repro_json_outcome(c, "measured"));
			continue;
		}
		bad++;
		if (strcmp(repro_json_outcome(c, "measured"), repro_json_outcome(c, "expected")))
			fprintf(f, "not ok %zu %s # MISMATCH measured %s, expected %s\n", i + 1,
				repro_json_str(c, "cell"), repro_json_outcome(c, "measured"),
				repro_json_outcome(c, "expected"));
		else
			fprintf(f, "not ok %zu %s # UNEXPECTED kernel report (%s, as expected)\n",
				i + 1, repro_json_str(c, "cell"), repro_json_outcome(c, "measured"));
	}
	fprintf(f, "# repro: %zu cells, %zu as expected, ", json_array_size(cells),
		json_array_size(cells) - bad - measured);
	if (measured)
		fprintf(f, "%u " MEASURED_ONLY ", ", measured);
	fprintf(f, "%u mismatched or not run\n", bad);
	return fclose(f) ? -errno : 0;
}

/*
 * The flavour's document from its cells.  Its kernel verdict is the kind
 * of its most severe report (the verdict the runner gave that boot: the
 * same patterns), "clean" if cells booted without one, null if none did.
 */
static int collect(const char *input_hash, const char *release, const char *json_out,
		   const char *ktap_out, int nr, char **files)
{
	json_t *doc, *cells = json_array(), *reports = json_array(), *c, *r, *worst = NULL;
	const char *v, *first = NULL;
	bool all_match = true, booted = false;
	unsigned int measured = 0;
	size_t j;
	int i, err;

	for (i = 0; i < nr; i++) {
		c = jsonfile_read_object(files[i], "repro collect");
		if (!c)
			goto bad;
		v = repro_json_str(c, "flavour") ?: "";
		if (!first)
			first = v;
		if (strcmp(v, first)) {
			fprintf(stderr, "gupctl repro collect: %s is of flavour %s, not %s\n",
				files[i], v, first);
			json_decref(c);
			goto bad;
		}
		json_array_foreach(json_object_get(c, "kernel_reports"), j, r) {
			json_array_append(reports, r);
			if (!worst || severity(r) < severity(worst))
				worst = r;
		}
		json_object_del(c, "kernel_reports");
		booted |= !!repro_json_str(json_object_get(c, "measured"), "kernel_verdict");
		if (!release)
			release = repro_json_str(json_object_get(c, "measured"), "kernel_release");
		all_match &= json_is_true(json_object_get(c, "match"));
		measured += json_is_true(json_object_get(c, "measured_only")) &&
			    json_is_true(json_object_get(c, "match"));
		json_array_append_new(cells, c);
	}
	c = json_array_get(cells, 0);
	doc = json_pack("{s:s, s:s?, s:s?, s:s?, s:s?, s:s, s:s?, s:O, s:O}",
			"job", "repro", "flavour", repro_json_str(c, "flavour"),
			"policy", repro_json_str(c, "policy"), "ext4", repro_json_str(c, "ext4"),
			"kernel_release", release, "input_hash", input_hash,
			"kernel_verdict", worst ? repro_json_str(worst, "kind") : booted ? "clean" : NULL,
			"cells", cells, "kernel_reports", reports);
	/* policy none's count: only its documents have it */
	if (doc && policy_is_none(repro_json_str(doc, "policy")))
		json_object_set_new(doc, "measured_only", json_integer(measured));
	err = doc ? json_dump_file(doc, json_out, JSON_INDENT(2)) : -1;
	if (err) {
		fprintf(stderr, "gupctl repro collect: cannot write %s\n", json_out);
	} else if (ktap_out) {
		err = write_ktap(ktap_out, doc);
		if (err)
			fprintf(stderr, "gupctl repro collect: cannot write %s: %s\n", ktap_out,
				strerror(-err));
	}
	json_decref(doc);
	json_decref(cells);
	json_decref(reports);
	if (err)
		return GUPCTL_EXIT_USAGE;
	return all_match ? GUPCTL_EXIT_OK : GUPCTL_EXIT_REFUSED;
bad:
	json_decref(cells);
	json_decref(reports);
	return GUPCTL_EXIT_USAGE;
}

int repro_collect(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl repro collect --input-hash H --json F.json [--ktap F.ktap] CELL.json...",
		NULL
	};
	const char *input_hash = NULL, *release = NULL, *json_out = NULL, *ktap_out = NULL;
	const struct gopt opts[] = {
		GOPT_STRING(0, "input-hash", &input_hash, "H", "the flavour kernel's cache key"),
		GOPT_STRING(0, "kernel-release", &release, "R",
			    "the kernel's release (default: what the guest said)"),
		GOPT_STRING(0, "json", &json_out, "FILE", "write the flavour's document here"),
		GOPT_STRING(0, "ktap", &ktap_out, "FILE", "and one KTAP line per cell here"),
		GOPT_END()
	};
	int ret, argi;

	ret = gopt_parse("repro collect", argc, argv, opts, usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (!input_hash || !json_out)
		return usage_error("repro collect", "give --input-hash and --json");
	if (argi >= argc)
		return usage_error("repro collect", "no CELL.json given");
	return collect(input_hash, release, json_out, ktap_out, argc - argi, argv + argi);
}
