// SPDX-License-Identifier: GPL-2.0
/*
 * jsonfile: JSON documents to and from files, every failure said once
 * with the command and the path (jsonfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/util.h"

FILE *jsonfile_open(const char *path, const char *cmd)
{
	FILE *f = fopen(path, "we");

	if (!f)
		fprintf(stderr, "gupctl %s: cannot open %s: %s (%s)\n", cmd, path,
			errno_name(errno), strerror(errno));
	return f;
}

int jsonfile_dump(json_t *doc, FILE *f, const char *path, const char *cmd)
{
	int err = 0;

	if (!doc)
		err = ENOMEM;		/* a json_pack() that failed */
	else if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) ||
		 fputc('\n', f) == EOF || fflush(f))
		err = errno ?: EIO;
	/* The guest reboots right after: get it onto the disk. */
	else if (fsync(fileno(f)) && errno != EINVAL && errno != EROFS)
		err = errno;
	if (fclose(f) && !err)
		err = errno;
	if (err) {
		fprintf(stderr, "gupctl %s: writing %s failed: %s (%s)\n", cmd,
			path, errno_name(err), strerror(err));
		return GUPCTL_EXIT_USAGE;
	}
	return 0;
}

json_t *jsonfile_read(const char *path, const char *cmd)
{
	json_error_t e;
	json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &e);

	if (!doc) {
		if (e.line < 0)		/* not JSON's fault: the file's */
			fprintf(stderr, "gupctl %s: %s\n", cmd, e.text);
		else
			fprintf(stderr, "gupctl %s: %s:%d:%d: not JSON: %s\n", cmd,
				path, e.line, e.column, e.text);
	}
	return doc;
}

json_t *jsonfile_read_object(const char *path, const char *cmd)
{
	json_t *doc = jsonfile_read(path, cmd);

	if (doc && !json_is_object(doc)) {
		fprintf(stderr, "gupctl %s: %s: not a JSON object\n", cmd, path);
		json_decref(doc);
		return NULL;
	}
	return doc;
}

void run_json_sources(json_t *run, char *buf, size_t size)
{
	json_t *pkgs = json_object_get(run, "source_packages"), *p;
	size_t i, n = 0;

	buf[0] = '\0';
	json_array_foreach(pkgs, i, p) {
		const char *name = json_string_value(json_object_get(p, "name"));
		const char *ver = json_string_value(json_object_get(p, "version"));

		if (n < size)
			n += snprintf(buf + n, size - n, "%s%s %s", n ? ", " : "",
				      name ?: "?", ver ?: "?");
	}
	if (!buf[0])
		snprintf(buf, size, "?");
}
