/* SPDX-License-Identifier: GPL-2.0 */
/*
 * markers: the console's markers (lib/kmsg.h: "gup-lab: STEP cell N",
 * "gup-lab: STEP end"), read on the host to attribute each kernel report
 * to the step and cell that ran before it.  Host only.
 */
#ifndef CONSOLE_MARKERS_H
#define CONSOLE_MARKERS_H

#include <stdbool.h>

#include "lib/kmsg.h"

/* The largest N a marker may carry; a step bounds its own cells. */
#define KMSG_MAX_CELLS	(1 << 20)

struct marker {
	unsigned int line;		/* the console line it is on, 1.. */
	char step[KMSG_STEP_LEN];
	int index;			/* KMSG_MARK_END: an end marker */
};

struct markers {
	struct marker *m;
	unsigned int nr, cap;
};

/* A marker in @line: true with its step and index (0..). */
bool parse_mark(const char *line, char step[KMSG_STEP_LEN], int *index);
/* Every marker of the console @path, in console order (free ms->m); errors name @cmd. */
int read_markers(const char *path, const char *cmd, struct markers *ms);
/* The last marker before console line @line, or NULL. */
const struct marker *marker_before(const struct markers *ms, unsigned int line);

#endif /* CONSOLE_MARKERS_H */
