// SPDX-License-Identifier: GPL-2.0
/*
 * matrix_tsv: read a `gupctl matrix --tsv` file back, checking every
 * field: columns are found by their header names, cells by matrix_index().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix_tsv.h"
#include "policy.h"

#define MAX_FIELDS	64

struct tsv_reader {
	const char *cmd;		/* for messages: "gupctl CMD: ..." */
	const char *path;
	unsigned int line;
	int col[MCOL_COUNT];		/* field index of each column, -1 none */
	bool have_header;
};

static int tsv_error(const struct tsv_reader *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int tsv_error(const struct tsv_reader *t, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gupctl %s: %s:%u: ", t->cmd, t->path, t->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return GUPCTL_EXIT_USAGE;
}

/* Split @line at tabs, in place; the number of fields (at most @max). */
static unsigned int split_tabs(char *line, char **fields, unsigned int max)
{
	unsigned int n = 0;
	char *p = line;

	while (n < max) {
		fields[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

static int parse_header(struct tsv_reader *t, char **fields, unsigned int nr)
{
	unsigned int i, col;

	for (col = 0; col < MCOL_COUNT; col++)
		t->col[col] = -1;
	for (i = 0; i < nr; i++)
		for (col = 0; col < MCOL_COUNT; col++)
			if (!strcmp(fields[i], matrix_column_name(col)))
				t->col[col] = i;
	for (col = 0; col < MCOL_COUNT; col++)
		if (t->col[col] < 0)
			return tsv_error(t, "the header line has no column '%s' (is this a gupctl matrix TSV?)",
					 matrix_column_name(col));
	t->have_header = true;
	return 0;
}

/* "# flavour=.. kernel=.. wall_seconds=..": keep what the report shows. */
static void parse_comment(struct rflavour *fl, const char *line)
{
	const char *p = line + 1, *end;
	size_t len;

	for (;;) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		end = p + strcspn(p, " \t");
		len = end - p;
		if (len > 7 && !strncmp(p, "kernel=", 7))
			snprintf(fl->kernel, sizeof(fl->kernel), "%.*s",
				 (int)(len - 7), p + 7);
		else if (len > 13 && !strncmp(p, "wall_seconds=", 13))
			snprintf(fl->wall, sizeof(fl->wall), "%.*s",
				 (int)(len - 13), p + 13);
		p = end;
	}
}

static int find_name(const char *s, const char *(*name)(unsigned int),
		     unsigned int count)
{
	unsigned int i;

	for (i = 0; i < count; i++)
		if (!strcmp(s, name(i)))
			return i;
	return -1;
}

static const char *method_name_of(unsigned int i)
{
	return gup_method_name(i);
}

static const char *backing_name_of(unsigned int i)
{
	return backing_name(i);
}

static const char *state_name_of(unsigned int i)
{
	return state_name(i);
}

/* "none", "WRITE", "LONGTERM", "WRITE|LONGTERM" (either order): 0 or -1. */
static int parse_flags(const char *s, unsigned int *flags)
{
	char buf[64], *tok, *save;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return -1;
	*flags = 0;
	if (!strcmp(buf, "none"))
		return 0;
	for (tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
		if (!strcmp(tok, "WRITE"))
			*flags |= GUP_PIN_FLAG_WRITE;
		else if (!strcmp(tok, "LONGTERM"))
			*flags |= GUP_PIN_FLAG_LONGTERM;
		else
			return -1;
	}
	return *flags ? 0 : -1;
}

/* "-" -> "", an errno name (E followed by capitals/digits, or E?) -> it. */
static int parse_errno(const char *s, char *out, size_t size)
{
	size_t n;

	if (!strcmp(s, "-")) {
		out[0] = '\0';
		return 0;
	}
	n = strspn(s + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789?");
	if (s[0] != 'E' || s[1 + n] || n + 2 > size)
		return -1;
	strcpy(out, s);
	return 0;
}

bool rcell_mismatch(const struct rcell *c)
{
	if (c->expected != c->measured)
		return true;
	return c->expected == MATRIX_REFUSED && strcmp(c->exp_err, c->meas_err);
}

static int parse_row(struct tsv_reader *t, struct rflavour *fl, char **fields,
		     unsigned int nr)
{
	const char *v[MCOL_COUNT];
	struct rcell *rc;
	struct cell c;
	unsigned int col;
	int i, idx;

	for (col = 0; col < MCOL_COUNT; col++) {
		if ((unsigned int)t->col[col] >= nr)
			return tsv_error(t, "%u fields, no '%s' column: a truncated line?",
					 nr, matrix_column_name(col));
		v[col] = fields[t->col[col]];
	}

	if (!matrix_valid_flavour(v[MCOL_FLAVOUR]))
		return tsv_error(t, "bad flavour '%s'", v[MCOL_FLAVOUR]);
	if (!fl->name[0]) {
		snprintf(fl->name, sizeof(fl->name), "%s", v[MCOL_FLAVOUR]);
		snprintf(fl->policy, sizeof(fl->policy), "%s", v[MCOL_POLICY]);
	} else if (strcmp(fl->name, v[MCOL_FLAVOUR]) ||
		   strcmp(fl->policy, v[MCOL_POLICY])) {
		return tsv_error(t, "flavour %s policy %s, but earlier lines say flavour %s policy %s: one run per TSV",
				 v[MCOL_FLAVOUR], v[MCOL_POLICY], fl->name, fl->policy);
	}

	i = find_name(v[MCOL_METHOD], method_name_of, GUP_PIN_METHOD_COUNT);
	if (i < 0)
		return tsv_error(t, "unknown method '%s'", v[MCOL_METHOD]);
	c.method = i;
	if (parse_flags(v[MCOL_FLAGS], &c.flags))
		return tsv_error(t, "bad flags '%s'", v[MCOL_FLAGS]);
	i = find_name(v[MCOL_BACKING], backing_name_of, BACKING_COUNT);
	if (i < 0)
		return tsv_error(t, "unknown backing '%s'", v[MCOL_BACKING]);
	c.backing = i;
	i = find_name(v[MCOL_STATE], state_name_of, STATE_COUNT);
	if (i < 0)
		return tsv_error(t, "unknown state '%s'", v[MCOL_STATE]);
	c.state = i;
	idx = matrix_index(&c);
	if (idx < 0)
		return tsv_error(t, "flags '%s' are not in the matrix", v[MCOL_FLAGS]);

	rc = &fl->cells[idx];
	if (rc->present)
		return tsv_error(t, "cell %s %s %s %s appears twice", v[MCOL_METHOD],
				 v[MCOL_FLAGS], v[MCOL_BACKING], v[MCOL_STATE]);
	if (matrix_parse_outcome(v[MCOL_EXPECTED], &rc->expected))
		return tsv_error(t, "bad expected '%s'", v[MCOL_EXPECTED]);
	if (matrix_parse_outcome(v[MCOL_MEASURED], &rc->measured))
		return tsv_error(t, "bad measured '%s'", v[MCOL_MEASURED]);
	if (parse_errno(v[MCOL_EXPECTED_ERRNO], rc->exp_err, sizeof(rc->exp_err)))
		return tsv_error(t, "bad expected_errno '%s'", v[MCOL_EXPECTED_ERRNO]);
	if (parse_errno(v[MCOL_MEASURED_ERRNO], rc->meas_err, sizeof(rc->meas_err)))
		return tsv_error(t, "bad measured_errno '%s'", v[MCOL_MEASURED_ERRNO]);
	if ((rc->expected == MATRIX_REFUSED) != !!rc->exp_err[0])
		return tsv_error(t, "expected %s with expected_errno '%s': refused needs an errno, nothing else has one",
				 v[MCOL_EXPECTED], v[MCOL_EXPECTED_ERRNO]);
	if (rc->measured == MATRIX_REFUSED && !rc->meas_err[0])
		return tsv_error(t, "measured refused without a measured_errno");
	if ((rc->measured == MATRIX_PINNED || rc->measured == MATRIX_NONE_PINNED) &&
	    rc->meas_err[0])
		return tsv_error(t, "measured %s with measured_errno %s",
				 v[MCOL_MEASURED], rc->meas_err);
	rc->reason = strdup(v[MCOL_REASON]);
	if (!rc->reason)
		return tsv_error(t, "out of memory (ENOMEM)");
	rc->present = true;

	fl->nr_present++;
	if (rc->measured != MATRIX_NOT_RUN)
		fl->nr_run++;
	if (rc->expected == MATRIX_NOT_RUN)
		fl->nr_not_applicable++;
	if (rcell_mismatch(rc))
		fl->nr_mismatch++;
	return 0;
}

int matrix_read_tsv(const char *path, struct rflavour *fl, const char *cmd)
{
	struct tsv_reader t = { .cmd = cmd, .path = path };
	char *line = NULL, *fields[MAX_FIELDS];
	size_t cap = 0;
	ssize_t len;
	unsigned int nr;
	FILE *f;
	int ret = 0;

	fl->path = path;
	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "gupctl %s: cannot open %s: %s (%s)\n", cmd, path,
			errno_name(errno), strerror(errno));
		return GUPCTL_EXIT_USAGE;
	}
	while (!ret && (len = getline(&line, &cap, f)) >= 0) {
		t.line++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len)
			continue;
		if (line[0] == '#') {
			parse_comment(fl, line);
			continue;
		}
		nr = split_tabs(line, fields, MAX_FIELDS);
		if (!t.have_header)
			ret = parse_header(&t, fields, nr);
		else
			ret = parse_row(&t, fl, fields, nr);
	}
	if (!ret && ferror(f)) {
		fprintf(stderr, "gupctl %s: reading %s failed: %s (%s)\n", cmd, path,
			errno_name(errno), strerror(errno));
		ret = GUPCTL_EXIT_USAGE;
	}
	if (!ret && !fl->nr_present) {
		t.line = 0;
		ret = tsv_error(&t, "%s: not a gupctl matrix TSV with at least one cell",
				t.have_header ? "no cells" : "no header line");
	}
	free(line);
	fclose(f);
	return ret;
}
