// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl diff, on the host: two kernels' results compared cell by cell on
 * what was measured (diff/collect.c reads the operands, diff/judge.c
 * compares), every cell that differs listed grouped by its change, as
 * text, JSON (--json), a markdown page (--markdown) and the same page for
 * docs/ (--page: no links into results/, which is not published, each run
 * named with its commit, and what did not change).  Exit status 0:
 * nothing differs; 1: something does; 2: bad usage or input, or nothing
 * to compare.  The guide: docs/gupctl.md, "gupctl diff".
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console/lines.h"
#include "diff/collect.h"
#include "diff/judge.h"
#include "diff/report.h"
#include "explorer/page.h"
#include "explorer/table.h"
#include "lib/groups.h"
#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/options.h"
#include "lib/util.h"

#define CMD	"diff"

static const char * const diff_usage[] = {
	"gupctl diff [--results ROOT] [--json FILE] [--markdown FILE] [--page FILE] [--html FILE] A B",
	"",
	"Every matrix, gup_longterm, repro, consumers and holders cell whose",
	"measurement differs between the kernels of A and B, grouped by change.",
	"A and B are each one or more of, comma-separated:",
	"  FLAVOUR      the newest run of each job under ROOT that lists FLAVOUR",
	"  DIR          a run directory (results/matrix/20261205-164042): its",
	"               flavours; several on both sides: the same set, flavour by flavour",
	"  DIR:FLAVOUR  one flavour of a run directory",
	"Exit status: 0 nothing differs, 1 a cell differs (cells on one side",
	"only or not run on one side are listed, and do not count), 2 bad usage,",
	"an unreadable side, or nothing compared.",
	NULL
};

struct diff_opts {
	const char *root, *json, *md, *page, *html;
};

/* ---- Grouping ---- */

/* The entries of @df in a state, or the differences in changes: for groups_make(). */
static bool same_change(unsigned int a, unsigned int b, void *ctx)
{
	const struct diff *df = ctx;

	return diff_same_change(&df->e[a], &df->e[b]);
}

static bool same_group(unsigned int a, unsigned int b, void *ctx)
{
	const struct diff *df = ctx;

	return !strcmp(df->e[a].group, df->e[b].group);
}

static bool same_reasons(unsigned int a, unsigned int b, void *ctx)
{
	const struct diff_entry *x = &((const struct diff *)ctx)->e[a];
	const struct diff_entry *y = &((const struct diff *)ctx)->e[b];
	unsigned int k;

	for (k = 0; k < 2; k++)
		if (strcmp(x->s[k].reason ?: "", y->s[k].reason ?: ""))
			return false;
	return true;
}

static bool same_group_why(unsigned int a, unsigned int b, void *ctx)
{
	const struct diff_entry *x = &((const struct diff *)ctx)->e[a];
	const struct diff_entry *y = &((const struct diff *)ctx)->e[b];
	unsigned int k = x->state == DIFF_NOT_RUN_B;

	return same_group(a, b, ctx) &&
	       !strcmp(x->s[k].why_not_run ?: "", y->s[k].why_not_run ?: "");
}

/* The entries in @st, grouped by @same: 0 or an exit code. */
static int group_state(const struct diff *df, enum diff_state st, groups_same_fn same,
		       struct groups *g)
{
	unsigned int *items = calloc(df->nr ?: 1, sizeof(*items)), i, n = 0;
	int ret;

	if (!items)
		return -ENOMEM;
	for (i = 0; i < df->nr; i++)
		if (df->e[i].state == st)
			items[n++] = i;
	ret = groups_make(g, items, n, same, (void *)df);
	free(items);
	return ret;
}

/* Group @k of @g (the items of its slice) grouped again by @same. */
static int regroup(const struct diff *df, const struct groups *g, unsigned int k,
		   groups_same_fn same, struct groups *sub)
{
	return groups_make(sub, g->order + g->start[k], groups_size(g, k), same, (void *)df);
}

/*
 * What a page does at each level of the differences: before them (how
 * many changes), at a change (its first entry and its cells), at a
 * method/backing group in it, at a pair of reasons in that, at each
 * cell, and after a group and a change.  Any may be NULL.
 */
struct walk_at {
	const struct diff *df;
	const struct diff_entry *e;	/* the first of what is visited */
	unsigned int n;			/* how many cells (changes, for begin) */
	void *ctx;
};

struct walk {
	void (*begin)(const struct walk_at *at);
	void (*change)(const struct walk_at *at);
	void (*group)(const struct walk_at *at);
	void (*reasons)(const struct walk_at *at);
	void (*cell)(const struct walk_at *at);
	void (*group_end)(const struct walk_at *at);
	void (*change_end)(const struct walk_at *at);
};

/* Call @w's @f, if it has one, at entry @e and count @n. */
static void walk_call(void (*f)(const struct walk_at *at), const struct diff *df,
		      const struct diff_entry *e, unsigned int n, void *ctx)
{
	const struct walk_at at = { df, e, n, ctx };

	if (f)
		f(&at);
}

/* The differences, change by change, group by group: 0 or -ENOMEM. */
static int walk_differences(const struct diff *df, const struct walk *w, void *ctx)
{
	struct groups g, sub, rs;
	unsigned int k, j, r, i;
	int ret;

	ret = group_state(df, DIFF_DIFFER, same_change, &g);
	if (!ret)
		walk_call(w->begin, df, NULL, g.nr, ctx);
	for (k = 0; !ret && k < g.nr; k++) {
		walk_call(w->change, df, &df->e[groups_first(&g, k)], groups_size(&g, k), ctx);
		ret = regroup(df, &g, k, same_group, &sub);
		for (j = 0; !ret && j < sub.nr; j++) {
			walk_call(w->group, df, &df->e[groups_first(&sub, j)],
				  groups_size(&sub, j), ctx);
			ret = regroup(df, &sub, j, same_reasons, &rs);
			for (r = 0; !ret && r < rs.nr; r++) {
				walk_call(w->reasons, df, &df->e[groups_first(&rs, r)],
					  groups_size(&rs, r), ctx);
				for (i = rs.start[r]; i < rs.start[r + 1]; i++)
					walk_call(w->cell, df, &df->e[rs.order[i]], 1, ctx);
			}
			groups_free(&rs);
			walk_call(w->group_end, df, NULL, 0, ctx);
		}
		groups_free(&sub);
		walk_call(w->change_end, df, NULL, 0, ctx);
	}
	groups_free(&g);
	return ret;
}

/*
 * The cells in one side only or not run on one side: per state, its
 * groups (method/backing, and why not run).  0 or -ENOMEM.
 */
static int walk_apart(const struct diff *df,
		      void (*state)(const struct diff *df, enum diff_state st, void *ctx),
		      void (*group)(const struct diff *df, enum diff_state st,
				    const struct groups *g, unsigned int k, void *ctx),
		      void *ctx)
{
	enum diff_state st;
	struct groups g;
	unsigned int k;

	for (st = DIFF_ONLY_A; st <= DIFF_NOT_RUN_B; st++) {
		if (!df->count[st])
			continue;
		if (group_state(df, st, st >= DIFF_NOT_RUN_A ? same_group_why : same_group, &g))
			return -ENOMEM;
		state(df, st, ctx);
		for (k = 0; k < g.nr; k++)
			group(df, st, &g, k, ctx);
		groups_free(&g);
	}
	return 0;
}

/* The side (0: A) whose why_not_run an entry in @st has. */
static unsigned int apart_side(enum diff_state st)
{
	return st == DIFF_NOT_RUN_B || st == DIFF_ONLY_B;
}

/* ---- Words ---- */

static const char *state_words[DIFF_NR_STATES] = {
	[DIFF_SAME] = "the same",
	[DIFF_DIFFER] = "differ",
	[DIFF_ONLY_A] = "only in A",
	[DIFF_ONLY_B] = "only in B",
	[DIFF_NOT_RUN_A] = "not run in A",
	[DIFF_NOT_RUN_B] = "not run in B",
	[DIFF_NOT_RUN_BOTH] = "not run in either",
};

static const char *pair_flavour(const struct diff_pair *p, unsigned int k)
{
	return p->d[k] ? p->d[k]->flavour : "-";
}

/* "matrix stock -> mainline" */
static void pair_title(FILE *f, const struct diff_pair *p)
{
	fprintf(f, "%s %s -> %s", diff_kind_name(p->kind), pair_flavour(p, 0),
		pair_flavour(p, 1));
}

/* A pair that compared no cell: why, or NULL. */
static const char *pair_not_compared(const struct diff_pair *p, unsigned int *side)
{
	unsigned int k;

	for (k = 0; k < 2; k++) {
		*side = k;
		if (!p->d[k])
			return k ? "only in A: B has no such run" : "only in B: A has no such run";
		if (!p->d[k]->doc)
			return p->d[k]->why_not_run;
	}
	return NULL;
}

/* The counts of a pair (or of all, @p NULL) on one line. */
static void counts_line(FILE *f, const unsigned int *c)
{
	unsigned int st;

	fprintf(f, "%u compared, %u differ", diff_compared(c), c[DIFF_DIFFER]);
	for (st = DIFF_ONLY_A; st < DIFF_NR_STATES; st++)
		if (c[st])
			fprintf(f, ", %u %s", c[st], state_words[st]);
}

/* "PATH:12-40" */
static void evidence_text(FILE *f, const struct diff_evidence *ev)
{
	if (!ev->console) {
		fputs("(no console)", f);
		return;
	}
	fputs(ev->console, f);
	if (ev->from && ev->to)
		fprintf(f, ":%u-%u", ev->from, ev->to);
	else if (ev->from)
		fprintf(f, ":%u-", ev->from);
}

/* ---- Text ---- */

static void text_sides(const struct diff *df, FILE *f)
{
	unsigned int k, i, j;

	for (k = 0; k < 2; k++) {
		const struct diff_side *s = &df->side[k];

		fprintf(f, "%c: %s:", 'A' + k, s->operand);
		for (i = 0; i < s->nr; i++) {
			for (j = 0; j < i && strcmp(s->docs[j].dir, s->docs[i].dir); j++)
				;
			if (j < i)
				continue;	/* named with its first document */
			fprintf(f, "%s %s", i ? "," : "", s->docs[i].dir);
		}
		fputc('\n', f);
	}
}

static void text_pairs(const struct diff *df, FILE *f)
{
	unsigned int i, side;
	const char *why;

	for (i = 0; i < df->nr_pairs; i++) {
		const struct diff_pair *p = &df->pairs[i];

		pair_title(f, p);
		fputs(": ", f);
		why = pair_not_compared(p, &side);
		if (why)
			fprintf(f, "not compared: %s%s\n", p->d[side] ? (side ? "not run in B: " :
				"not run in A: ") : "", why);
		else {
			counts_line(f, p->count);
			fputc('\n', f);
		}
	}
}

static void text_begin(const struct walk_at *at)
{
	unsigned int n = at->df->count[DIFF_DIFFER];

	fprintf(at->ctx, "\n%u cell%s differ%s, in %u change%s\n", n, n == 1 ? "" : "s",
		n == 1 ? "s" : "", at->n, at->n == 1 ? "" : "s");
}

static void text_change(const struct walk_at *at)
{
	fputc('\n', at->ctx);
	pair_title(at->ctx, &at->df->pairs[at->e->pair]);
	fprintf(at->ctx, ": %s -> %s: %u cell%s\n", at->e->s[0].words, at->e->s[1].words,
		at->n, at->n == 1 ? "" : "s");
}

static void text_group(const struct walk_at *at)
{
	fprintf(at->ctx, "  %s: %u cell%s\n", at->e->group, at->n, at->n == 1 ? "" : "s");
}

static void text_reasons(const struct walk_at *at)
{
	fprintf(at->ctx, "    A's reason: %s\n    B's reason: %s\n", at->e->s[0].reason,
		at->e->s[1].reason);
}

static void text_cell(const struct walk_at *at)
{
	FILE *f = at->ctx;

	fprintf(f, "    - %s", at->e->key);
	if (at->e->index >= 0)
		fprintf(f, " (%ld)", at->e->index);
	fputs("\n      A: ", f);
	evidence_text(f, &at->e->s[0].ev);
	fputs("\n      B: ", f);
	evidence_text(f, &at->e->s[1].ev);
	fputc('\n', f);
}

static void text_apart_state(const struct diff *df, enum diff_state st, void *ctx)
{
	fprintf(ctx, "\n%s: %u cell%s (they do not count; --json lists each)\n",
		state_words[st], df->count[st], df->count[st] == 1 ? "" : "s");
}

static void text_apart_group(const struct diff *df, enum diff_state st,
			     const struct groups *g, unsigned int k, void *ctx)
{
	const struct diff_entry *e = &df->e[groups_first(g, k)];

	fprintf(ctx, "  %u: ", groups_size(g, k));
	pair_title(ctx, &df->pairs[e->pair]);
	fprintf(ctx, ", %s", e->group);
	if (st >= DIFF_NOT_RUN_A)
		fprintf(ctx, ": %s", e->s[apart_side(st)].why_not_run);
	fputc('\n', ctx);
}

static int write_text(const struct diff *df, FILE *f)
{
	static const struct walk w = {
		.begin = text_begin, .change = text_change, .group = text_group,
		.reasons = text_reasons, .cell = text_cell,
	};

	text_sides(df, f);
	fputc('\n', f);
	text_pairs(df, f);

	if (walk_differences(df, &w, f) ||
	    walk_apart(df, text_apart_state, text_apart_group, f))
		return -ENOMEM;
	return 0;
}

/* ---- JSON ---- */

static json_t *json_str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *evidence_json(const struct diff_evidence *ev)
{
	if (!ev->console)
		return json_null();
	return json_pack("{s:s, s:o}", "console", ev->console, "lines",
			 ev->from ? json_pack("[i, o]", ev->from,
					      ev->to ? json_integer(ev->to) : json_null()) :
				    json_null());
}

static json_t *side_cell_json(const struct diff_cell *c)
{
	if (!c->cell)
		return json_null();
	return json_pack("{s:O, s:s, s:s, s:o, s:o}", "measured", c->measured,
			 "words", c->words, "reason", c->reason,
			 "why_not_run", json_str_or_null(c->why_not_run),
			 "evidence", evidence_json(&c->ev));
}

static json_t *entry_json(const struct diff *df, const struct diff_entry *e)
{
	const struct diff_pair *p = &df->pairs[e->pair];

	return json_pack("{s:s, s:{s:s, s:s}, s:s, s:o, s:s, s:o, s:o}",
			 "job", diff_kind_name(p->kind), "flavours",
			 "a", pair_flavour(p, 0), "b", pair_flavour(p, 1),
			 "cell", e->key,
			 "index", e->index >= 0 ? json_integer(e->index) : json_null(),
			 "group", e->group, "a", side_cell_json(&e->s[0]),
			 "b", side_cell_json(&e->s[1]));
}

static json_t *counts_json(const unsigned int *c)
{
	return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i}",
			 "compared", diff_compared(c), "differ", c[DIFF_DIFFER],
			 "only_in_a", c[DIFF_ONLY_A], "only_in_b", c[DIFF_ONLY_B],
			 "not_run_in_a", c[DIFF_NOT_RUN_A], "not_run_in_b", c[DIFF_NOT_RUN_B],
			 "not_run_in_both", c[DIFF_NOT_RUN_BOTH]);
}

static json_t *doc_json(const struct diff_doc *d)
{
	if (!d)
		return json_null();
	return json_pack("{s:s, s:s, s:s, s:o, s:o}", "job", diff_kind_name(d->kind),
			 "flavour", d->flavour, "dir", d->dir,
			 "document", json_str_or_null(d->path),
			 "why_not_run", json_str_or_null(d->why_not_run));
}

static json_t *sides_json(const struct diff *df)
{
	json_t *a = json_array(), *docs;
	unsigned int k, i;

	for (k = 0; a && k < 2; k++) {
		docs = json_array();
		for (i = 0; docs && i < df->side[k].nr; i++)
			json_array_append_new(docs, doc_json(&df->side[k].docs[i]));
		json_array_append_new(a, json_pack("{s:s, s:s, s:o}", "name", k ? "B" : "A",
						   "operand", df->side[k].operand,
						   "documents", docs));
	}
	return a;
}

static json_t *pairs_json(const struct diff *df)
{
	json_t *a = json_array(), *o;
	unsigned int i, side;
	const char *why;

	for (i = 0; a && i < df->nr_pairs; i++) {
		const struct diff_pair *p = &df->pairs[i];

		why = pair_not_compared(p, &side);
		o = json_pack("{s:s, s:o, s:o, s:o, s:o}", "job", diff_kind_name(p->kind),
			      "a", doc_json(p->d[0]), "b", doc_json(p->d[1]),
			      "not_compared", json_str_or_null(why),
			      "counts", counts_json(p->count));
		json_array_append_new(a, o);
	}
	return a;
}

/* The groups being built: the changes, the current one's groups, its cells. */
struct json_walk {
	json_t *groups, *by, *cells;
};

static void json_change(const struct walk_at *at)
{
	const struct diff_pair *p = &at->df->pairs[at->e->pair];
	struct json_walk *jw = at->ctx;

	jw->by = json_array();
	json_array_append_new(jw->groups,
			      json_pack("{s:s, s:{s:s, s:s}, s:{s:s, s:s}, s:i, s:O*}",
					"job", diff_kind_name(p->kind),
					"flavours", "a", pair_flavour(p, 0), "b", pair_flavour(p, 1),
					"change", "a", at->e->s[0].words, "b", at->e->s[1].words,
					"count", at->n, "by", jw->by));
	json_decref(jw->by);
}

static void json_group(const struct walk_at *at)
{
	struct json_walk *jw = at->ctx;

	jw->cells = json_array();
	json_array_append_new(jw->by, json_pack("{s:s, s:i, s:O*}", "group", at->e->group,
						"count", at->n, "cells", jw->cells));
	json_decref(jw->cells);
}

static void json_cell(const struct walk_at *at)
{
	json_array_append_new(((struct json_walk *)at->ctx)->cells, entry_json(at->df, at->e));
}

/* The differences as "groups": each change, its groups, their cells. */
static json_t *groups_json(const struct diff *df)
{
	static const struct walk w = {
		.change = json_change, .group = json_group, .cell = json_cell,
	};
	struct json_walk jw = { .groups = json_array() };

	if (!jw.groups || walk_differences(df, &w, &jw)) {
		json_decref(jw.groups);
		return NULL;
	}
	return jw.groups;
}

static json_t *state_json(const struct diff *df, enum diff_state st)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; a && i < df->nr; i++)
		if (df->e[i].state == st)
			json_array_append_new(a, entry_json(df, &df->e[i]));
	return a;
}

static int write_json(const struct diff *df, int status, const char *path)
{
	json_t *doc;
	FILE *f;

	doc = json_pack("{s:s, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			"job", "diff", "sides", sides_json(df), "exit_status", status,
			"summary", counts_json(df->count), "pairs", pairs_json(df),
			"groups", groups_json(df),
			"only_in_a", state_json(df, DIFF_ONLY_A),
			"only_in_b", state_json(df, DIFF_ONLY_B),
			"not_run_in_a", state_json(df, DIFF_NOT_RUN_A),
			"not_run_in_b", state_json(df, DIFF_NOT_RUN_B));
	f = jsonfile_open(path, CMD);
	if (!f) {
		json_decref(doc);
		return GUPCTL_EXIT_USAGE;
	}
	status = jsonfile_dump(doc, f, path, CMD);
	json_decref(doc);
	return status;
}

/* ---- Markdown ---- */

/* Text safe inside a markdown table cell or a list item. */
static void md_puts(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (strchr("|\\*`[]", *s))
			fputc('\\', f);
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '\n' || *s == '\t' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

/* Text inside a code span of a table: GFM's \| only (a backslash shows as is). */
static void md_code(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s == '`' ? '\'' : *s == '\n' ? ' ' : *s, f);
	}
}

/* @path relative to directory @base (both made absolute): malloc'd, or NULL. */
static char *relative_to(const char *base, const char *path)
{
	char *b = realpath(base, NULL), *p = realpath(path, NULL), *out = NULL;
	size_t i, common = 0, up = 0;
	const char *q;

	if (!b || !p)
		goto out;
	for (i = 0; b[i] && b[i] == p[i]; i++)
		if (b[i] == '/')
			common = i;
	if (!b[i] && (p[i] == '/' || !p[i]))
		common = i;
	for (q = b + common; *q; q++)
		up += *q == '/';
	out = calloc(1, 3 * up + strlen(p) + 2);
	if (!out)
		goto out;
	for (i = 0; i < up; i++)
		strcat(out, "../");
	strcat(out, p[common] == '/' ? p + common + 1 : p + common);
out:
	free(b);
	free(p);
	return out;
}

/*
 * A link to the evidence, relative to the page's directory @base; with no
 * @base (--page) its run's file and lines in words, results/ not being
 * published.
 */
static void md_evidence(FILE *f, const struct diff_evidence *ev, const char *base)
{
	char *rel;
	const char *name;

	if (!ev->console) {
		fputs("no console", f);
		return;
	}
	name = strrchr(ev->console, '/');
	name = name ? name + 1 : ev->console;
	if (!base) {
		md_puts(f, name);
		if (ev->from && ev->to)
			fprintf(f, " lines %u-%u", ev->from, ev->to);
		else if (ev->from)
			fprintf(f, " from line %u", ev->from);
		return;
	}
	rel = relative_to(base, ev->console);
	fputc('[', f);
	md_puts(f, name);
	if (ev->from && ev->to)
		fprintf(f, " lines %u-%u", ev->from, ev->to);
	else if (ev->from)
		fprintf(f, " from line %u", ev->from);
	fputs("](", f);
	fputs(rel ?: ev->console, f);	/* no such file: the path as it is */
	fputc(')', f);
	free(rel);
}

/* What did not change: each job's cells measured the same on both sides. */
static void md_unchanged(const struct diff *df, FILE *f)
{
	unsigned int i, same;

	fputs("## What did not change\n\n", f);
	for (i = 0; i < df->nr_pairs; i++) {
		const struct diff_pair *p = &df->pairs[i];
		unsigned int side;

		if (pair_not_compared(p, &side))
			continue;
		same = diff_compared(p->count) - p->count[DIFF_DIFFER];
		fputs("- ", f);
		pair_title(f, p);
		fprintf(f, ": %u of %u cells compared measured the same%s\n", same,
			diff_compared(p->count), same == diff_compared(p->count) ? ": nothing changed" : "");
	}
	fputc('\n', f);
}

/* The commit run directory @dir's run.json names, or "?". */
static void md_run_commit(FILE *f, const char *dir)
{
	char path[PATH_MAX];
	json_t *run;

	snprintf(path, sizeof(path), "%s/run.json", dir);
	run = json_load_file(path, 0, NULL);
	md_code(f, json_string_value(json_object_get(run, "commit")) ?: "?");
	json_decref(run);
}

/* One side's documents: the run directories as given, or (@page) by name and commit. */
static void md_side(FILE *f, const struct diff_side *sd, bool page)
{
	const char *name;
	unsigned int i;

	for (i = 0; i < sd->nr; i++) {
		fprintf(f, "%s %s `", i ? "," : "", diff_kind_name(sd->docs[i].kind));
		md_code(f, sd->docs[i].flavour);
		fputs(page ? "` of run `" : "` in `", f);
		name = strrchr(sd->docs[i].dir, '/');
		md_code(f, page && name && name[1] ? name + 1 : sd->docs[i].dir);
		fputc('`', f);
		if (page) {
			fputs(" at `", f);
			md_run_commit(f, sd->docs[i].dir);
			fputc('`', f);
		}
	}
}

/* A side's name: its operand, or (@page: paths are the machine's) its first flavour. */
static const char *side_name(const struct diff_side *sd, bool page)
{
	return page && sd->nr ? sd->docs[0].flavour : sd->operand;
}

static void md_head(const struct diff *df, FILE *f, int status, bool page)
{
	unsigned int k, i, side;
	const char *why;

	if (page) {
		fputs("# What changed from `", f);
		md_code(f, side_name(&df->side[0], page));
		fputs("` to `", f);
		md_code(f, side_name(&df->side[1], page));
		fputs("`\n\n<!-- Generated by gupctl diff --page (make docs); do not edit. -->\n\n"
		      "Every cell the lab measured on both kernels, job by job, compared on what "
		      "was measured; each change with both sides' reasons (the kernel code each "
		      "side's model cites) and the consoles' lines that show it.\n\n", f);
	} else {
		fputs("# What the kernels measured differently\n\n"
		      "<!-- Generated by gupctl diff; do not edit. -->\n\n", f);
	}
	for (k = 0; k < 2; k++) {
		fprintf(f, "- %c: `", 'A' + k);
		md_code(f, side_name(&df->side[k], page));
		fputs("`:", f);
		md_side(f, &df->side[k], page);
		fputc('\n', f);
	}
	fprintf(f, "- exit status %d: %s\n\n", status,
		status == 1 ? "cells differ" : status ? "nothing compared" : "nothing differs");
	fputs("Measured outcomes compared (docs/gupctl.md, \"gupctl diff\"): expectations, verdicts,\n"
	      "wall times and page bookkeeping do not count; cells on one side only or\n"
	      "not run on one side are listed apart and do not count.\n\n"
	      "| job | A | B | compared | differ | only in A | only in B | not run in A | not run in B |\n"
	      "|---|---|---|--:|--:|--:|--:|--:|--:|\n", f);
	for (i = 0; i < df->nr_pairs; i++) {
		const struct diff_pair *p = &df->pairs[i];

		fprintf(f, "| %s | `", diff_kind_name(p->kind));
		md_code(f, pair_flavour(p, 0));
		fputs("` | `", f);
		md_code(f, pair_flavour(p, 1));
		why = pair_not_compared(p, &side);
		if (why) {
			fputs("` | not compared: ", f);
			md_puts(f, why);
			fputs(" | | | | | |\n", f);
			continue;
		}
		fprintf(f, "` | %u | %u | %u | %u | %u | %u |\n", diff_compared(p->count),
			p->count[DIFF_DIFFER], p->count[DIFF_ONLY_A], p->count[DIFF_ONLY_B],
			p->count[DIFF_NOT_RUN_A], p->count[DIFF_NOT_RUN_B]);
	}
	fputc('\n', f);
	if (page)
		md_unchanged(df, f);
}

/* The page being written, its directory (for the links; NULL: --page), and in a table? */
struct md_walk {
	FILE *f;
	const char *base;
	bool in_table;
};

static void md_begin(const struct walk_at *at)
{
	unsigned int n = at->df->count[DIFF_DIFFER];

	fprintf(((struct md_walk *)at->ctx)->f, "## Differences: %u cell%s in %u change%s\n\n",
		n, n == 1 ? "" : "s", at->n, at->n == 1 ? "" : "s");
}

static void md_change(const struct walk_at *at)
{
	FILE *f = ((struct md_walk *)at->ctx)->f;

	fputs("### ", f);
	pair_title(f, &at->df->pairs[at->e->pair]);
	fputs(": `", f);
	md_code(f, at->e->s[0].words);
	fputs("` \u2192 `", f);
	md_code(f, at->e->s[1].words);
	fprintf(f, "`, %u cell%s\n\n", at->n, at->n == 1 ? "" : "s");
}

static void md_group(const struct walk_at *at)
{
	struct md_walk *mw = at->ctx;

	fputs("#### ", mw->f);
	md_puts(mw->f, at->e->group);
	fprintf(mw->f, ", %u cell%s\n\n", at->n, at->n == 1 ? "" : "s");
	mw->in_table = false;
}

static void md_reasons(const struct walk_at *at)
{
	struct md_walk *mw = at->ctx;

	if (mw->in_table)
		fputc('\n', mw->f);	/* after the table before */
	mw->in_table = true;
	fputs("- A's reason: ", mw->f);
	md_puts(mw->f, at->e->s[0].reason);
	fputs("\n- B's reason: ", mw->f);
	md_puts(mw->f, at->e->s[1].reason);
	fputs("\n\n| cell | A's console | B's console |\n|---|---|---|\n", mw->f);
}

static void md_cell(const struct walk_at *at)
{
	const struct md_walk *mw = at->ctx;

	fputs("| `", mw->f);
	md_code(mw->f, at->e->key);
	fputc('`', mw->f);
	if (at->e->index >= 0)
		fprintf(mw->f, " (%ld)", at->e->index);
	fputs(" | ", mw->f);
	md_evidence(mw->f, &at->e->s[0].ev, mw->base);
	fputs(" | ", mw->f);
	md_evidence(mw->f, &at->e->s[1].ev, mw->base);
	fputs(" |\n", mw->f);
}

static void md_group_end(const struct walk_at *at)
{
	fputc('\n', ((struct md_walk *)at->ctx)->f);
}

static void md_apart_state(const struct diff *df, enum diff_state st, void *ctx)
{
	bool why = st >= DIFF_NOT_RUN_A;

	fprintf(((struct md_walk *)ctx)->f,
		"## %c%s: %u cell%s\n\n| job | cells | which |%s\n|---|---|---|%s\n",
		toupper(state_words[st][0]), state_words[st] + 1, df->count[st],
		df->count[st] == 1 ? "" : "s", why ? " why |" : "", why ? "---|" : "");
}

static void md_apart_group(const struct diff *df, enum diff_state st,
			   const struct groups *g, unsigned int k, void *ctx)
{
	const struct diff_entry *e = &df->e[groups_first(g, k)];
	FILE *f = ((struct md_walk *)ctx)->f;
	unsigned int i;

	fputs("| ", f);
	pair_title(f, &df->pairs[e->pair]);
	fprintf(f, " | %u: ", groups_size(g, k));
	md_puts(f, e->group);
	fputs(" | ", f);
	for (i = g->start[k]; i < g->start[k + 1]; i++) {
		fputs(i > g->start[k] ? ", `" : "`", f);
		md_code(f, df->e[g->order[i]].key);
		fputc('`', f);
	}
	if (st >= DIFF_NOT_RUN_A) {
		fputs(" | ", f);
		md_puts(f, e->s[apart_side(st)].why_not_run);
	}
	fputs(" |\n", f);
	if (k + 1 == g->nr)
		fputc('\n', f);
}

static int write_md(const struct diff *df, int status, const char *path, bool page)
{
	static const struct walk w = {
		.begin = md_begin, .change = md_change, .group = md_group,
		.reasons = md_reasons, .cell = md_cell, .group_end = md_group_end,
	};
	struct md_walk mw = { 0 };
	char *copy = strdup(path), *slash;
	const char *base;
	FILE *f;
	int ret;

	if (!copy)
		return GUPCTL_EXIT_USAGE;
	slash = strrchr(copy, '/');
	if (slash == copy)
		base = "/";
	else if (slash && (*slash = '\0', 1))
		base = copy;
	else
		base = ".";
	f = fopen(path, "we");
	if (!f) {
		fprintf(stderr, "gupctl " CMD ": cannot open %s: %s (%s)\n", path,
			errno_name(errno), strerror(errno));
		free(copy);
		return GUPCTL_EXIT_USAGE;
	}
	md_head(df, f, status, page);
	mw.f = f;
	mw.base = page ? NULL : base;
	ret = walk_differences(df, &w, &mw) ||
	      walk_apart(df, md_apart_state, md_apart_group, &mw);
	free(copy);
	if (fclose(f) || ret) {
		fprintf(stderr, "gupctl " CMD ": writing %s failed\n", path);
		return GUPCTL_EXIT_USAGE;
	}
	return 0;
}

/* ---- The explorer's diff view (explorer/table.h) ---- */

/*
 * @cell's evidence @ev: its lines of its console, which the page carries
 * once (@read: the page's number of each console read so far, by path; a
 * run's cells share a few consoles); a whole file (@ev->from 0): its path.
 */
static void evidence_lines(json_t *t, json_t *cell, const struct diff_evidence *ev,
			   json_t *read)
{
	json_t *n;
	size_t to;

	if (!ev->console || !ev->from)
		return;
	n = json_object_get(read, ev->console);
	if (!n) {
		n = json_integer(explorer_add_console(t, console_lines(ev->console)));
		json_object_set_new(read, ev->console, n);
	}
	to = ev->to ?: json_array_size(json_array_get(json_object_get(t, "consoles"),
						      json_integer_value(n)));
	explorer_console_lines(cell, json_integer_value(n), ev->from, to);
}

/* One side of an entry as a table cell: its words, reason, measurement, evidence. */
static void html_side(json_t *t, const char *const *key, unsigned int k,
		      const struct diff_cell *c, json_t *read)
{
	char text[512];
	json_t *cell;
	char *m;

	if (!c->cell) {
		explorer_cell(t, key, k, k ? "not in B" : "not in A", EXPLORER_NOT_JUDGED);
		return;
	}
	if (c->why_not_run)
		snprintf(text, sizeof(text), "not run: %s", c->why_not_run);
	else
		snprintf(text, sizeof(text), "%s", c->words);
	/* a diff holds two measurements against each other, not against an expectation */
	cell = explorer_cell(t, key, k, text, EXPLORER_NOT_JUDGED);
	explorer_field(cell, "reason", c->reason);
	m = json_dumps(c->measured, JSON_COMPACT | JSON_SORT_KEYS);
	explorer_field(cell, "measured (the fields compared)", m);
	free(m);
	explorer_field(cell, "why not run", c->why_not_run);
	explorer_field(cell, "console file", c->ev.console);
	evidence_lines(t, cell, &c->ev, read);
}

static int write_html(const struct diff *df, const char *path)
{
	static const char * const keys[] = { "job", "flavours", "change", "cell" };
	char counts[512], flavours[256], title[1024];
	json_t *t, *read = json_object();
	unsigned int i, k, st;
	size_t n;
	int ret;

	snprintf(title, sizeof(title), "A: %s, B: %s", df->side[0].operand, df->side[1].operand);
	t = explorer_table("diff", "gupctl diff: what A and B measured differently", title, NULL,
			   keys, ARRAY_SIZE(keys));
	n = snprintf(counts, sizeof(counts), "%u compared, %u differ", diff_compared(df->count),
		     df->count[DIFF_DIFFER]);
	for (st = DIFF_ONLY_A; st < DIFF_NR_STATES && n < sizeof(counts); st++)
		if (df->count[st])
			n += snprintf(counts + n, sizeof(counts) - n, ", %u %s", df->count[st],
				      state_words[st]);
	explorer_words(t, "column_title", "side");
	explorer_words(t, "legend", "A row per cell that differs between A and B, is in one "
		       "side's results only, or ran on one side only (cells measured the same "
		       "are not shown); a cell is what that side measured, in words; click it "
		       "for the fields compared, the reason its side gives and its console "
		       "evidence.  Nothing here is judged against an expectation: the two "
		       "measurements are held against each other.");
	for (k = 0; k < 2; k++)
		explorer_column(t, k ? "B" : "A", NULL, NULL, df->side[k].operand, NULL);
	for (i = 0; i < df->nr; i++) {
		const struct diff_entry *e = &df->e[i];
		const struct diff_pair *p = &df->pairs[e->pair];
		const char *key[] = { diff_kind_name(p->kind), flavours, state_words[e->state],
				      e->key };

		snprintf(flavours, sizeof(flavours), "%s -> %s", pair_flavour(p, 0),
			 pair_flavour(p, 1));
		for (k = 0; k < 2; k++)
			html_side(t, key, k, &e->s[k], read);
	}
	json_object_set_new(t, "counts", json_string(counts));
	snprintf(title, sizeof(title), "diff: %s vs %s", df->side[0].operand,
		 df->side[1].operand);
	ret = explorer_write(CMD, path, title, t);
	json_decref(t);
	json_decref(read);
	return ret;
}

/* ---- The command ---- */

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = { 0 };
	const struct gopt opts[] = {
		GOPT_STRING(0, "results", &o.root, "ROOT",
			    "where FLAVOUR operands are looked up (default: $GUP_LAB_RESULTS, else ./results)"),
		GOPT_STRING(0, "json", &o.json, "FILE",
			    "also write every cell that differs, is apart or not run, as JSON"),
		GOPT_STRING(0, "markdown", &o.md, "FILE", "also write the differences as a page"),
		GOPT_STRING(0, "page", &o.page, "FILE",
			    "the same page for docs/: runs named with their commits, no links into results/, what did not change"),
		GOPT_STRING(0, "html", &o.html, "FILE",
			    "also write them as the explorer's diff view (docs/results.md)"),
		GOPT_END()
	};
	struct diff df = { 0 };
	int ret, argi, status;
	unsigned int k;

	ret = gopt_parse(CMD, argc, argv, opts, diff_usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (argc - argi != 2)
		return usage_error(CMD, "give two sides, A and B (%d given)", argc - argi);
	if (o.json && o.md && !strcmp(o.json, o.md))
		return usage_error(CMD, "--json and --markdown name the same file '%s'", o.json);
	if (o.page && ((o.json && !strcmp(o.page, o.json)) || (o.md && !strcmp(o.page, o.md)) ||
		       (o.html && !strcmp(o.page, o.html))))
		return usage_error(CMD, "--page and another option name the same file '%s'", o.page);
	if (o.html && ((o.json && !strcmp(o.html, o.json)) || (o.md && !strcmp(o.html, o.md))))
		return usage_error(CMD, "--html and --%s name the same file '%s'",
				   o.json && !strcmp(o.html, o.json) ? "json" : "markdown", o.html);
	if (!o.root)
		o.root = getenv("GUP_LAB_RESULTS") ?: "results";
	for (k = 0; k < 2; k++) {
		ret = diff_side_collect(k ? "B" : "A", argv[argi + k], o.root, &df.side[k]);
		if (ret)
			goto out;
	}
	ret = diff_compare(&df);
	if (ret)
		goto out;
	status = df.count[DIFF_DIFFER] ? 1 : diff_compared(df.count) ? 0 : GUPCTL_EXIT_USAGE;
	if (write_text(&df, stdout)) {
		ret = GUPCTL_EXIT_USAGE;
		goto out;
	}
	if (status == GUPCTL_EXIT_USAGE)
		fprintf(stderr, "gupctl " CMD ": nothing compared: no cell ran on both sides\n");
	ret = (o.json ? write_json(&df, status, o.json) : 0) ?:
	      (o.md ? write_md(&df, status, o.md, false) : 0) ?:
	      (o.page ? write_md(&df, status, o.page, true) : 0) ?:
	      (o.html ? write_html(&df, o.html) : 0) ?: status;
out:
	diff_free(&df);
	return ret;
}
