// SPDX-License-Identifier: GPL-2.0
/*
 * markers: the console's markers (lib/kmsg.h) read back on the host, so
 * that a kernel report is attributed to the step and cell that ran
 * before it (markers.h).  The one parser of every job's markers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console/markers.h"
#include "lib/gupdev.h"
#include "lib/util.h"

/* A marker (lib/kmsg.h) in @line: true with its step and index. */
bool parse_mark(const char *line, char step[KMSG_STEP_LEN], int *index)
{
	const char *p = strstr(line, KMSG_MARK_PREFIX);
	size_t n;
	char *end;
	long v;

	if (!p)
		return false;
	p += strlen(KMSG_MARK_PREFIX);
	n = strspn(p, "abcdefghijklmnopqrstuvwxyz");
	if (!n || n >= KMSG_STEP_LEN)
		return false;
	memcpy(step, p, n);
	step[n] = '\0';
	p += n;
	if (!strncmp(p, " end", 4) && strspn(p + 4, "\r\n") == strlen(p + 4)) {
		*index = KMSG_MARK_END;
		return true;
	}
	if (strncmp(p, " cell ", 6))
		return false;
	v = strtol(p + 6, &end, 10);
	if (v < 1 || v > KMSG_MAX_CELLS || strspn(end, "\r\n") != strlen(end))
		return false;
	*index = v - 1;
	return true;
}

/* Every marker of the console @path, in console order. */
int read_markers(const char *path, const char *cmd, struct markers *ms)
{
	struct marker m, *p;
	unsigned int line = 0;
	char *buf = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "gupctl %s: %s: cannot open: %s (%s)\n", cmd, path,
			errno_name(errno), strerror(errno));
		return GUPCTL_EXIT_USAGE;
	}
	while (!ret && getline(&buf, &cap, f) >= 0) {
		line++;
		if (!parse_mark(buf, m.step, &m.index))
			continue;
		m.line = line;
		if (ms->nr == ms->cap) {
			ms->cap = ms->cap ? 2 * ms->cap : 1024;
			p = realloc(ms->m, ms->cap * sizeof(*p));
			if (!p) {
				fprintf(stderr, "gupctl %s: out of memory (ENOMEM)\n", cmd);
				ret = GUPCTL_EXIT_USAGE;
				break;
			}
			ms->m = p;
		}
		ms->m[ms->nr++] = m;
	}
	if (!ret && ferror(f)) {
		fprintf(stderr, "gupctl %s: %s: reading failed: %s (%s)\n", cmd, path,
			errno_name(errno), strerror(errno));
		ret = GUPCTL_EXIT_USAGE;
	}
	free(buf);
	fclose(f);
	return ret;
}

/* The last marker before console line @line, or NULL. */
const struct marker *marker_before(const struct markers *ms, unsigned int line)
{
	const struct marker *last = NULL;
	unsigned int i;

	for (i = 0; i < ms->nr && ms->m[i].line < line; i++)
		last = &ms->m[i];
	return last;
}

/* Open DIR/NAME.SUFFIX for writing, truncated: NULL after saying why. */
static FILE *slice_open(const char *cmd, const char *dir, const char *name,
			const char *suffix)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, suffix);
	f = fopen(path, "we");
	if (!f)
		fprintf(stderr, "gupctl %s: cannot write %s: %s (%s)\n", cmd, path,
			errno_name(errno), strerror(errno));
	return f;
}

int markers_slice(const char *cmd, const struct slice_opts *o)
{
	FILE *in, *out[o->nr_names + 1];
	unsigned int i, cur = 0;
	char step[KMSG_STEP_LEN];
	char *buf = NULL;
	size_t cap = 0;
	int ret = 0, idx;

	in = fopen(o->console, "re");
	if (!in) {
		fprintf(stderr, "gupctl %s: %s: cannot open: %s (%s)\n", cmd, o->console,
			errno_name(errno), strerror(errno));
		return GUPCTL_EXIT_USAGE;
	}
	/* out[0..n-1]: the cells' slices, out[n]: the tail's */
	for (i = 0; i <= o->nr_names; i++) {
		out[i] = slice_open(cmd, o->dir, i < o->nr_names ? o->names[i] : o->tail,
				    o->suffix);
		if (!out[i])
			ret = GUPCTL_EXIT_USAGE;
	}
	while (!ret && getline(&buf, &cap, in) >= 0) {
		if (parse_mark(buf, step, &idx) && !strcmp(step, o->step)) {
			if (idx == KMSG_MARK_END) {
				cur = o->nr_names;
			} else if ((unsigned int)idx < o->nr_names) {
				cur = idx;
				printf("%s\n", o->names[cur]);
			}
		}
		fputs(buf, out[cur]);
	}
	if (!ret && ferror(in)) {
		fprintf(stderr, "gupctl %s: %s: reading failed: %s (%s)\n", cmd, o->console,
			errno_name(errno), strerror(errno));
		ret = GUPCTL_EXIT_USAGE;
	}
	for (i = 0; i <= o->nr_names; i++)
		if (out[i] && fclose(out[i]) && !ret) {
			fprintf(stderr, "gupctl %s: writing a slice in %s failed: %s\n", cmd,
				o->dir, strerror(errno));
			ret = GUPCTL_EXIT_USAGE;
		}
	free(buf);
	fclose(in);
	return ret;
}
