// SPDX-License-Identifier: GPL-2.0
/* lines (host only): console/lines.h. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console/lines.h"
#include "console/markers.h"

json_t *console_lines(const char *path)
{
	json_t *lines = json_array();
	char *line = NULL, *p;
	size_t cap = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return lines;
	while (getline(&line, &cap, f) >= 0) {
		json_t *v;

		line[strcspn(line, "\r\n")] = '\0';
		v = json_string(line);
		/* a console may hold bytes that are not UTF-8 */
		if (!v) {
			for (p = line; *p; p++)
				if ((unsigned char)*p >= 0x80)
					*p = '?';
			v = json_string(line);
		}
		json_array_append_new(lines, v ?: json_string(""));
	}
	free(line);
	fclose(f);
	return lines;
}

int console_cell_lines(const char *path, const char *step, size_t nr_lines,
		       unsigned int nr_cells, unsigned int *first, unsigned int *last)
{
	struct markers ms = { 0 };
	unsigned int i;

	if (read_markers(path, "report", &ms))
		return -1;
	for (i = 0; i < ms.nr; i++) {
		const struct marker *m = &ms.m[i];

		if (strcmp(m->step, step) || m->index < 0 || (unsigned int)m->index >= nr_cells)
			continue;
		first[m->index] = m->line;
		last[m->index] = i + 1 < ms.nr ? ms.m[i + 1].line - 1 : nr_lines;
	}
	free(ms.m);
	return 0;
}
