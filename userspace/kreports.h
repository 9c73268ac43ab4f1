/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kreports (host only): the kernel reports of a console as
 * qemu/scan-console.sh --reports lists them, read and checked.  The one C
 * reader of that JSON, for gupctl report --collect (matrix_collect.c) and
 * gupctl repro judge (repro_judge.c); the patterns that find the reports
 * live in scan-console.sh alone.
 */
#ifndef KREPORTS_H
#define KREPORTS_H

#include <stddef.h>
#include <jansson.h>

struct kreport {
	unsigned int line;	/* the console line it starts on, 1.. */
	unsigned int severity;	/* of its kind: 0 the most severe */
	const char *kind;	/* panic, bug, oops, hung-task, warning, leak */
	const char *title;	/* its first line, without the time stamp */
	const char *location;	/* file:line from the source root, or NULL */
};

struct kreports {
	json_t *doc;		/* owns the strings */
	struct kreport *r;	/* in console order */
	size_t nr;
};

/*
 * Read the list at @path into @k.  0, or GUPCTL_EXIT_USAGE after saying
 * on stderr ("gupctl @cmd: @path: ...") what is wrong with it.
 */
int kreports_load(const char *path, const char *cmd, struct kreports *k);
void kreports_free(struct kreports *k);

#endif /* KREPORTS_H */
