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

/*
 * A console cut by one step's markers into its cells' slices: each line,
 * unchanged, goes to the slice of the last marker of @step on or before
 * it; the lines before the first to the first cell's, those from the end
 * marker on to @tail's; a cell marker beyond @nr_names changes nothing.
 */
struct slice_opts {
	const char *console;		/* the boot's console (or its decoded copy) */
	const char *step;		/* "repro" */
	const char *dir, *suffix;	/* the slices: DIR/NAME.SUFFIX */
	const char *tail;		/* the slice after the end marker */
	char **names;			/* cell N's (1..) slice is names[N - 1] */
	unsigned int nr_names;
};

/*
 * Write every slice afresh (empty when nothing falls in it) and print the
 * name of each cell marker on stdout, in console order (a cell not there
 * never began; the last is the cell the boot ended in).  0 or an exit code.
 */
int markers_slice(const char *cmd, const struct slice_opts *o);

#endif /* CONSOLE_MARKERS_H */
