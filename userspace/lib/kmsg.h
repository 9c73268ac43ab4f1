/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmsg: the markers a guest step writes to the kernel log so that the
 * console shows which cell was running when the kernel reported
 * something.  One format for every job: before each cell
 * "gup-lab: STEP cell N" (N = index + 1), after the last "gup-lab: STEP
 * end".  The host reads them back with console/markers.h.
 */
#ifndef LIB_KMSG_H
#define LIB_KMSG_H

#include <stdbool.h>

#define KMSG_MARK_PREFIX	"gup-lab: "
#define KMSG_MARK_END		(-1)	/* the cell of an "end" marker */
#define KMSG_STEP_LEN		16	/* a step's name, NUL included */

/* Write a marker for cell @index, or an end marker (KMSG_MARK_END): 0 or -errno. */
int kmsg_mark(const char *step, int index);

/* A step's markers, turned off (once, with a KTAP comment) when /dev/kmsg fails. */
struct kmsg_marker {
	const char *step;
	bool on;
};

/* kmsg_mark() while @m is on; a failure says so on stdout and turns it off. */
void kmsg_marker_mark(struct kmsg_marker *m, int index);

#endif /* LIB_KMSG_H */
