// SPDX-License-Identifier: GPL-2.0
/*
 * kreports: qemu/scan-console.sh --reports, read (kreports.h).
 */
#include <stdlib.h>
#include <string.h>

#include "gupctl.h"
#include "kreports.h"
#include "matrix_json.h"

/* @j, an entry of the list, into @r: true if it has every field, of its type. */
static bool kreport_get(json_t *j, struct kreport *r)
{
	json_t *loc = json_object_get(j, "location");
	json_int_t line = json_integer_value(json_object_get(j, "line"));
	json_int_t severity = json_integer_value(json_object_get(j, "severity"));

	r->kind = json_string_value(json_object_get(j, "kind"));
	r->title = json_string_value(json_object_get(j, "title"));
	r->location = json_string_value(loc);
	r->line = line;
	r->severity = severity;
	return r->kind && r->title && line >= 1 && line == r->line &&
	       json_is_integer(json_object_get(j, "severity")) && severity >= 0 &&
	       (json_is_string(loc) || json_is_null(loc));
}

int kreports_load(const char *path, const char *cmd, struct kreports *k)
{
	json_t *j;
	size_t i;

	memset(k, 0, sizeof(*k));
	k->doc = matrix_json_read_file(path, cmd);
	if (!k->doc)
		return GUPCTL_EXIT_USAGE;
	if (!json_is_array(k->doc)) {
		fprintf(stderr, "gupctl %s: %s: not an array (qemu/scan-console.sh --reports)\n",
			cmd, path);
		goto bad;
	}
	k->r = calloc(json_array_size(k->doc) ?: 1, sizeof(*k->r));
	if (!k->r) {
		fprintf(stderr, "gupctl %s: out of memory (ENOMEM)\n", cmd);
		goto bad;
	}
	json_array_foreach(k->doc, i, j) {
		if (!kreport_get(j, &k->r[i])) {
			fprintf(stderr,
				"gupctl %s: %s: [%zu]: want \"line\" (1..), \"kind\", \"severity\" (0..), \"title\" and \"location\" (string or null)\n",
				cmd, path, i);
			goto bad;
		}
		if (i && k->r[i].line <= k->r[i - 1].line) {
			fprintf(stderr,
				"gupctl %s: %s: [%zu]: line %u after line %u: not in console order\n",
				cmd, path, i, k->r[i].line, k->r[i - 1].line);
			goto bad;
		}
		k->nr++;
	}
	return 0;
bad:
	kreports_free(k);
	return GUPCTL_EXIT_USAGE;
}

void kreports_free(struct kreports *k)
{
	json_decref(k->doc);
	free(k->r);
	memset(k, 0, sizeof(*k));
}
