/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kreports (host only): the kernel reports of a console as
 * qemu/scan-console.sh --reports lists them, read and checked.  The one C
 * reader of that JSON, for gupctl report --collect (matrix/collect.c),
 * gupctl repro judge (repro/judge.c), gupctl consumers judge
 * (consumers/judge.c) and gupctl longterm judge (longterm/judge.c); the
 * patterns that find the reports live in scan-console.sh alone.
 */
#ifndef KREPORTS_H
#define KREPORTS_H

#include <stdbool.h>
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

/*
 * Does line @lineno of @file in the source tree @src hold @text?  If not,
 * @why says what the line reads (or why it could not be read).
 */
bool src_line_holds(const char *src, const char *file, unsigned long lineno,
		    const char *text, char *why, size_t size);
struct report_exp;
/*
 * Is report @k the one @e expects (kind, file, and the text on its line in
 * the tree @src)?  @why says why or why not.
 */
bool report_matches(const struct report_exp *e, const struct kreport *k,
		    const char *src, char *why, size_t size);
struct series_finding;
/* The documented finding of @policy's series that @k is, or NULL. */
const struct series_finding *series_finding_of(const char *policy, const struct kreport *k,
					       const char *src);
/*
 * The kernel reports at @path (qemu/scan-console.sh --reports) of a boot
 * of @policy, each with its "series_finding" ({what, doc} or null); NULL
 * after saying on stderr why it could not.
 */
json_t *series_findings_json(const char *path, const char *policy, const char *src);

/* A report's "series_finding": {what, doc} of @s, or null. */
json_t *series_json(const struct series_finding *s);

#endif /* KREPORTS_H */
