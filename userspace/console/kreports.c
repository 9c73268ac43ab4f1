// SPDX-License-Identifier: GPL-2.0
/*
 * kreports: qemu/scan-console.sh --reports, read (kreports.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console/kreports.h"
#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/util.h"
#include "model/policy.h"

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
	k->doc = jsonfile_read(path, cmd);
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

/*
 * Does line @lineno of @file in the source tree @src hold @text?  If not,
 * @why says what the line reads (or why it could not be read).
 */
bool src_line_holds(const char *src, const char *file, unsigned long lineno,
		    const char *text, char *why, size_t size)
{
	unsigned long n = 0;
	char *path, *buf = NULL;
	bool found = false;
	size_t cap = 0;
	ssize_t len;
	FILE *f;

	if (asprintf(&path, "%s/%s", src, file) < 0) {
		snprintf(why, size, "out of memory (ENOMEM)");
		return false;
	}
	f = fopen(path, "re");
	if (!f) {
		snprintf(why, size, "cannot read %.300s: %s", path, errno_name(errno));
		free(path);
		return false;
	}
	while ((len = getline(&buf, &cap, f)) >= 0 && ++n < lineno)
		;
	if (n == lineno && len >= 0) {
		buf[strcspn(buf, "\r\n")] = '\0';
		found = strstr(buf, text);
		snprintf(why, size, "the line reads '%.100s'", buf + strspn(buf, " \t"));
	} else {
		snprintf(why, size, "%.300s has %lu lines", path, n);
	}
	free(buf);
	free(path);
	fclose(f);
	return found;
}

/*
 * Is report @k the one @e expects: its kind, at a location in the expected
 * file whose line in the source tree @src holds the expected text?  @why
 * says why or why not.  (The matrix, the consumers and gup_longterm judge
 * every report with it.)
 */
bool report_matches(const struct report_exp *e, const struct kreport *k,
		    const char *src, char *why, size_t size)
{
	const char *colon = k->location ? strrchr(k->location, ':') : NULL;
	char file[256], what[512];
	unsigned long line;
	char *end;

	if (!e->kind) {
		snprintf(why, size, "expects no kernel report");
		return false;
	}
	if (strcmp(k->kind, e->kind)) {
		snprintf(why, size, "expects a %s, not a %s", e->kind, k->kind);
		return false;
	}
	if (!colon) {
		snprintf(why, size, "expects one in %s, and its title has no file:line", e->file);
		return false;
	}
	snprintf(file, sizeof(file), "%.*s", (int)(colon - k->location), k->location);
	line = strtoul(colon + 1, &end, 10);
	if (strcmp(file, e->file) || *end || !line) {
		snprintf(why, size, "expects it in %s, not at %s", e->file, k->location);
		return false;
	}
	if (!src || !src_line_holds(src, file, line, e->text, what, sizeof(what))) {
		snprintf(why, size, "expects a line holding '%.200s'; %.100s of the flavour's tree does not: %s",
			 e->text, k->location, src ? what : "no source tree to read it from");
		return false;
	}
	snprintf(why, size, "expects it: %.100s holds '%.200s'", k->location, e->text);
	return true;
}

const struct series_finding *series_finding_of(const char *policy, const struct kreport *k,
					       const char *src)
{
	const struct series_finding *s;
	char why[800];

	for (s = series_findings; s->policy; s++)
		if (!strcmp(s->policy, policy) &&
		    report_matches(&s->report, k, src, why, sizeof(why)))
			return s;
	return NULL;
}

/* A report's "series_finding": {what, doc}, or null. */
json_t *series_json(const struct series_finding *s)
{
	return s ? json_pack("{s:s, s:s}", "what", s->what, "doc", s->doc) : json_null();
}

json_t *series_findings_json(const char *path, const char *policy, const char *src)
{
	struct kreports k;
	json_t *a;
	size_t i;

	if (kreports_load(path, "report", &k))
		return NULL;
	a = json_array();
	for (i = 0; i < k.nr; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s?, s:i, s:o}",
			"kind", k.r[i].kind, "title", k.r[i].title,
			"location", k.r[i].location, "console_line", k.r[i].line,
			"series_finding",
			series_json(series_finding_of(policy, &k.r[i], src))));
	kreports_free(&k);
	return a;
}
