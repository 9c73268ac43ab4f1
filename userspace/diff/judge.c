// SPDX-License-Identifier: GPL-2.0
/*
 * judge: gupctl diff's comparison (judge.h).  What counts is each job's
 * measurement as its document records it (docs/results.md), and nothing
 * else: not the expectation, not whether the cell matched it (a verdict),
 * not a wall time, a date, an address or a page's bookkeeping; a source
 * line number inside a measured string (BUG (fs/ext4/inode.c:2658)) is
 * dropped before comparing: a kernel of one's own moves lines without
 * changing what happens.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/judge.h"
#include "lib/gupdev.h"
#include "lib/util.h"
#include "model/measured.h"

#define CMD	"diff"

/*
 * What identifies a cell, what of it counts, and where its reason and
 * console are: one per kind of document.  The outcome fields are always
 * in the cell's words; the other counted fields only where they differ.
 */
struct diff_spec {
	const char *key[4];
	const char *key_absent[4];	/* a key field's value where a document lacks it */
	const char *outcome[3];
	const char *more[10];
	bool named;			/* the outcome's words name its fields */
	const char *group[2];		/* "METHOD on BACKING" */
	const char *reason;
	const char *index;		/* the cell's number, NULL: none */
	const char *step;		/* its console markers' step, NULL: the cell's "console" */
};

static const struct diff_spec specs[DIFF_NR_KINDS] = {
	/*
	 * The page's state after the pin (kind, flags, mapcount, refcount)
	 * is a snapshot of the kernel's bookkeeping: 6.12 counts a folio's
	 * references and names its flags otherwise than 6.1 with the same
	 * GUP answer.  Not counted.
	 */
	[DIFF_MATRIX] = {
		.key = { "backing", "state", "method", "flags" },
		.outcome = { "measured.outcome", "measured.errno" },
		.more = { "measured.nr_pinned", "measured.unpin_errno", "measured.thp_kb" },
		.group = { "method", "backing" },
		.reason = "expected.reason",
		.index = "index",
		.step = "matrix",
	},
	/*
	 * The test's number in the KTAP is its place, not a measurement.
	 * Documents older than the xfs and btrfs runs have no local_fs:
	 * their one run was from /mnt/ext4.
	 */
	[DIFF_LONGTERM] = {
		.key = { "local_fs", "name" },
		.key_absent = { "ext4" },
		.outcome = { "measured.verdict" },
		.more = { "measured.text" },
		.group = { "via", "backing" },
		.reason = "predicted.reason",
		.index = "index",
		.step = "longterm",
	},
	/* The guest's steps and warnings are the outcome's evidence. */
	[DIFF_REPRO] = {
		.key = { "cell" },
		.outcome = { "measured.outcome" },
		.more = { "measured.pinned", "measured.reads.guest", "measured.reads.direct",
			  "measured.reads.evicted", "measured.reads.host" },
		.group = { "method", "fs" },
		.reason = "expected.reason",
	},
	[DIFF_CONSUMERS] = {
		.key = { "interface", "backing", "state" },
		.outcome = { "measured.outcome" },
		.more = { "measured.bytes", "measured.errno", "measured.register_errno",
			  "measured.mapping", "measured.file", "measured.disk", "measured.read",
			  "measured.kernel_reports", "measured.setup_error" },
		.group = { "interface", "backing" },
		.reason = "expected.reason",
		.index = "index",
		.step = "consumers",
	},
	/* The guest's facts (page flags, reads) are the evidence. */
	[DIFF_HOLDERS] = {
		.key = { "name" },
		.outcome = { "measured.disk", "measured.report" },
		.more = { "measured.held", "measured.refused", "measured.event_fails",
			  "measured.fsync_fails", "measured.clone" },
		.named = true,
		.group = { "holder", "fs" },
		.reason = "expect.reason",
	},
};

/* The value at dotted @path in @j: NULL if a key on the way is absent. */
static json_t *get_path(json_t *j, const char *path)
{
	char key[64];
	const char *dot;
	size_t n;

	while (j && (dot = strchr(path, '.'))) {
		n = dot - path;
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		j = json_object_get(j, key);
		path = dot + 1;
	}
	return j ? json_object_get(j, path) : NULL;
}

/* @s without the line numbers of source locations (inode.c:2658, .c:2670-2675). */
static char *strip_lines(const char *s)
{
	char *out = strdup(s), *o = out;
	const char *p;

	if (!out)
		return NULL;
	for (p = s; *p; p++) {
		*o++ = *p;
		if (*p == ':' && p - s >= 2 && p[-2] == '.' && strchr("chS", p[-1]) &&
		    isdigit((unsigned char)p[1])) {
			o--;
			while (isdigit((unsigned char)p[1]) || (p[1] == '-' && isdigit((unsigned char)p[2])))
				p++;
		}
	}
	*o = '\0';
	return out;
}

/* Are two measured values the same, line numbers aside? */
static bool same_value(json_t *a, json_t *b)
{
	char *x, *y;
	bool same;

	if (!json_is_string(a) || !json_is_string(b))
		return json_equal(a, b);
	x = strip_lines(json_string_value(a));
	y = strip_lines(json_string_value(b));
	same = x && y && !strcmp(x, y);
	free(x);
	free(y);
	return same;
}

/* A value in words: NULL for null (the caller leaves it out). */
static char *value_words(json_t *v)
{
	char *s = NULL;

	if (json_is_string(v))
		return strdup(json_string_value(v));
	if (json_is_integer(v) && asprintf(&s, "%lld", (long long)json_integer_value(v)) >= 0)
		return s;
	if (json_is_real(v) && asprintf(&s, "%g", json_real_value(v)) >= 0)
		return s;
	if (json_is_boolean(v))
		return strdup(json_is_true(v) ? "true" : "false");
	if (json_is_null(v) || !v)
		return NULL;
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* @path without its "measured." */
static const char *field_name(const char *path)
{
	return strncmp(path, "measured.", 9) ? path : path + 9;
}

/* Append ", " or " " and @s to *@buf (NULL after a failure). */
static void append(char **buf, const char *sep, const char *s)
{
	char *n = NULL;

	if (!*buf)
		return;
	if (asprintf(&n, "%s%s%s", *buf, **buf ? sep : "", s) < 0)
		n = NULL;
	free(*buf);
	*buf = n;
}

/* Are the outcome fields of @a and @b the same (those absent left out)? */
static bool same_outcome(const struct diff_spec *sp, json_t *a, json_t *b)
{
	unsigned int i;
	json_t *x, *y;

	for (i = 0; i < ARRAY_SIZE(sp->outcome) && sp->outcome[i]; i++) {
		x = get_path(a, sp->outcome[i]);
		y = get_path(b, sp->outcome[i]);
		if (x && y && !same_value(x, y))
			return false;
	}
	return true;
}

/*
 * Cell @c's measurement in words: its outcome, then, if @other's outcome
 * is the same, each other counted field in which they differ
 * ("thp_kb=0"); where the outcomes differ, the outcome says the change.
 */
static char *cell_words(const struct diff_spec *sp, json_t *c, json_t *other)
{
	char *buf = strdup(""), *v, *item;
	json_t *a, *b;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sp->outcome) && sp->outcome[i]; i++) {
		a = get_path(c, sp->outcome[i]);
		if (sp->named && json_is_boolean(a)) {
			item = NULL;
			if (asprintf(&item, "%s%s", json_is_true(a) ? "" : "not ",
				     field_name(sp->outcome[i])) < 0)
				item = NULL;
		} else if ((v = value_words(a)) && sp->named) {
			item = NULL;
			if (asprintf(&item, "%s %s", field_name(sp->outcome[i]), v) < 0)
				item = NULL;
			free(v);
		} else {
			item = v;
		}
		if (item)
			append(&buf, sp->named ? ", " : " ", item);
		free(item);
	}
	if (buf && !*buf)
		append(&buf, "", "(nothing measured)");
	for (i = 0; same_outcome(sp, c, other) && i < ARRAY_SIZE(sp->more) && sp->more[i]; i++) {
		a = get_path(c, sp->more[i]);
		b = get_path(other, sp->more[i]);
		if (!a || !b || same_value(a, b))
			continue;
		v = value_words(a);
		item = NULL;
		if (asprintf(&item, "%s=%s", field_name(sp->more[i]), v ?: "null") < 0)
			item = NULL;
		free(v);
		append(&buf, ", ", item ?: "?");
		free(item);
	}
	return buf;
}

/* The counted fields of @c, as {path: value}, those absent left out. */
static json_t *cell_measured(const struct diff_spec *sp, json_t *c)
{
	json_t *m = json_object(), *v;
	unsigned int i;

	for (i = 0; m && i < ARRAY_SIZE(sp->outcome) && sp->outcome[i]; i++)
		if ((v = get_path(c, sp->outcome[i])))
			json_object_set(m, field_name(sp->outcome[i]), v);
	for (i = 0; m && i < ARRAY_SIZE(sp->more) && sp->more[i]; i++)
		if ((v = get_path(c, sp->more[i])))
			json_object_set(m, field_name(sp->more[i]), v);
	return m;
}

/*
 * Does a counted field differ?  One a side's document lacks (a job
 * older than the field) is not compared.
 */
static bool cells_differ(const struct diff_spec *sp, json_t *a, json_t *b)
{
	unsigned int i;
	json_t *x, *y;

	for (i = 0; i < ARRAY_SIZE(sp->outcome) + ARRAY_SIZE(sp->more); i++) {
		const char *p = i < ARRAY_SIZE(sp->outcome) ? sp->outcome[i] :
				sp->more[i - ARRAY_SIZE(sp->outcome)];

		if (!p)
			continue;
		x = get_path(a, p);
		y = get_path(b, p);
		if (x && y && !same_value(x, y))
			return true;
	}
	return false;
}

/* Why cell @c of @d did not run, or NULL. */
static const char *cell_why_not_run(const struct diff_doc *d, json_t *c)
{
	json_t *m = json_object_get(c, "measured"), *runs, *r;
	const char *s;
	size_t i;

	switch (d->kind) {
	case DIFF_MATRIX:
		if (strcmp(json_string_value(json_object_get(m, "outcome")) ?: "", "not-run"))
			return NULL;
		return json_string_value(json_object_get(m, "why_not_run")) ?:
		       json_string_value(get_path(c, "expected.reason")) ?: "not run";
	case DIFF_LONGTERM:
		if (json_string_value(json_object_get(m, "verdict")))
			return NULL;
		runs = json_object_get(d->doc, "runs");
		s = json_string_value(json_object_get(c, "local_fs"));
		json_array_foreach(runs, i, r)
			if (s && !strcmp(s, json_string_value(json_object_get(r, "local_fs")) ?: "") &&
			    json_string_value(json_object_get(r, "not_run")))
				return json_string_value(json_object_get(r, "not_run"));
		return "no verdict: the test is not in the suite's output";
	case DIFF_REPRO:
		s = json_string_value(json_object_get(m, "outcome"));
		return !s || !strncmp(s, "not run", 7) ? s ?: "no outcome measured" : NULL;
	case DIFF_CONSUMERS:
		s = json_string_value(json_object_get(c, "skip"));
		return s ?: (json_is_object(m) ? NULL : "nothing measured");
	case DIFF_HOLDERS:
		s = json_string_value(json_object_get(c, "why_not_run"));
		return s ?: (json_is_object(m) ? NULL : "nothing measured");
	default:
		return NULL;
	}
}

/* The console marker number of cell @c of @d: its index, or its run's. */
static int cell_marker(const struct diff_doc *d, json_t *c)
{
	const char *fs = json_string_value(json_object_get(c, "local_fs"));
	json_t *runs, *r;
	size_t i;

	if (d->kind != DIFF_LONGTERM)
		return (int)json_integer_value(get_path(c, specs[d->kind].index));
	/* gup_longterm's markers: one per run ("longterm cell 2": the second) */
	if (!fs)
		return 1;	/* an older document: its one run */
	runs = json_object_get(d->doc, "runs");
	json_array_foreach(runs, i, r)
		if (fs && !strcmp(fs, json_string_value(json_object_get(r, "local_fs")) ?: ""))
			return (int)i + 1;
	return 0;
}

/* Where cell @c's console evidence is. */
static void cell_evidence(struct diff_doc *d, json_t *c, struct diff_evidence *ev)
{
	const struct diff_spec *sp = &specs[d->kind];
	const char *rel;

	memset(ev, 0, sizeof(*ev));
	if (!sp->step) {		/* the cell's own slice, a file of the run */
		rel = json_string_value(json_object_get(c, "console"));
		if (rel && asprintf(&ev->console, "%s/%s", d->dir, rel) < 0)
			ev->console = NULL;
		return;
	}
	if (!d->console)
		return;
	ev->console = strdup(d->console);
	if (!diff_doc_slice(d, sp->step, cell_marker(d, c), &ev->from, &ev->to))
		ev->from = ev->to = 0;
}

/*
 * "a b c": the values of @fields in @c joined by @sep; for one absent,
 * its @absent (NULL: none) or "-".
 */
static char *join_fields(json_t *c, const char * const *fields,
			 const char * const *absent, unsigned int n, const char *sep)
{
	char *buf = strdup(""), *v, *j;
	unsigned int i;

	for (i = 0; buf && i < n && fields[i]; i++) {
		v = value_words(get_path(c, fields[i]));
		if (asprintf(&j, "%s%s%s", buf, i ? sep : "",
			     v ?: (absent && absent[i] ? absent[i] : "-")) < 0)
			j = NULL;
		free(buf);
		free(v);
		buf = j;
	}
	return buf;
}

/* One cell of a document, for sorting by key. */
struct keyed {
	char *key;
	json_t *cell;
	unsigned int pos;
};

static int keyed_cmp(const void *a, const void *b)
{
	return strcmp(((const struct keyed *)a)->key, ((const struct keyed *)b)->key);
}

static void keyed_free(struct keyed *k, unsigned int n)
{
	unsigned int i;

	for (i = 0; k && i < n; i++)
		free(k[i].key);
	free(k);
}

/* @d's cells keyed and sorted; NULL after a message (a key twice). */
static struct keyed *keyed_cells(const struct diff_doc *d, unsigned int *nr)
{
	const struct diff_spec *sp = &specs[d->kind];
	size_t n = json_array_size(d->cells), i;
	struct keyed *k = calloc(n ?: 1, sizeof(*k));

	*nr = 0;
	if (!k)
		return NULL;
	for (i = 0; i < n; i++) {
		k[i].cell = json_array_get(d->cells, i);
		k[i].pos = i;
		k[i].key = join_fields(k[i].cell, sp->key, sp->key_absent, ARRAY_SIZE(sp->key), " ");
		if (!k[i].key) {
			keyed_free(k, i);
			return NULL;
		}
	}
	qsort(k, n, sizeof(*k), keyed_cmp);
	for (i = 1; i < n; i++) {
		if (strcmp(k[i - 1].key, k[i].key))
			continue;
		fprintf(stderr, "gupctl " CMD ": %s: cell '%s' is there twice\n",
			d->path, k[i].key);
		keyed_free(k, n);
		return NULL;
	}
	*nr = n;
	return k;
}

static int oom(void)
{
	fprintf(stderr, "gupctl " CMD ": out of memory (ENOMEM)\n");
	return GUPCTL_EXIT_USAGE;
}

/* Record cells @a (of A) and @b (of B), either NULL, of pair @p. */
static int add_entry(struct diff *df, unsigned int p, json_t *a, json_t *b,
		     const char *key, unsigned int pos)
{
	struct diff_pair *pair = &df->pairs[p];
	const struct diff_spec *sp = &specs[pair->kind];
	json_t *c[2] = { a, b };
	struct diff_entry *e;
	enum diff_state st;
	unsigned int k;

	if (!a)
		st = DIFF_ONLY_B;
	else if (!b)
		st = DIFF_ONLY_A;
	else if (cell_why_not_run(pair->d[0], a))
		st = cell_why_not_run(pair->d[1], b) ? DIFF_NOT_RUN_BOTH : DIFF_NOT_RUN_A;
	else if (cell_why_not_run(pair->d[1], b))
		st = DIFF_NOT_RUN_B;
	else
		st = cells_differ(sp, a, b) ? DIFF_DIFFER : DIFF_SAME;
	pair->count[st]++;
	df->count[st]++;
	if (st == DIFF_SAME || st == DIFF_NOT_RUN_BOTH)
		return 0;
	e = reallocarray(df->e, df->nr + 1, sizeof(*e));
	if (!e)
		return oom();
	df->e = e;
	e = &df->e[df->nr++];
	memset(e, 0, sizeof(*e));
	e->pair = p;
	e->state = st;
	e->pos = pos;
	e->key = strdup(key);
	e->group = join_fields(a ?: b, sp->group, NULL, ARRAY_SIZE(sp->group), " on ");
	e->index = sp->index ? (long)json_integer_value(get_path(a ?: b, sp->index)) : -1;
	if (!e->key || !e->group)
		return oom();
	for (k = 0; k < 2; k++) {
		if (!c[k])
			continue;
		e->s[k].cell = c[k];
		e->s[k].measured = cell_measured(sp, c[k]);
		e->s[k].words = cell_words(sp, c[k], c[!k]);
		e->s[k].reason = json_string_value(get_path(c[k], sp->reason));
		/* a policy none cell has no expectation, so no reason */
		if (!e->s[k].reason)
			e->s[k].reason = json_is_null(json_object_get(c[k], "expected")) ?
					 MEASURED_ONLY : "(no reason recorded)";
		e->s[k].why_not_run = cell_why_not_run(pair->d[k], c[k]);
		cell_evidence(pair->d[k], c[k], &e->s[k].ev);
		if (!e->s[k].measured || !e->s[k].words)
			return oom();
	}
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct diff_entry *x = a, *y = b;

	if (x->pair != y->pair)
		return x->pair < y->pair ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Compare the cells of pair @p, both of whose documents have cells. */
static int compare_pair(struct diff *df, unsigned int p)
{
	struct diff_pair *pair = &df->pairs[p];
	struct keyed *ka, *kb;
	unsigned int na, nb, i = 0, j = 0, first = df->nr;
	int c, ret = 0;

	ka = keyed_cells(pair->d[0], &na);
	kb = ka ? keyed_cells(pair->d[1], &nb) : NULL;
	if (!ka || !kb) {
		keyed_free(ka, na);
		return GUPCTL_EXIT_USAGE;
	}
	while (!ret && (i < na || j < nb)) {
		c = i == na ? 1 : j == nb ? -1 : strcmp(ka[i].key, kb[j].key);
		if (c < 0) {
			ret = add_entry(df, p, ka[i].cell, NULL, ka[i].key, ka[i].pos);
			i++;
		} else if (c > 0) {
			ret = add_entry(df, p, NULL, kb[j].cell, kb[j].key, kb[j].pos);
			j++;
		} else {
			ret = add_entry(df, p, ka[i].cell, kb[j].cell, ka[i].key, ka[i].pos);
			i++;
			j++;
		}
	}
	keyed_free(ka, na);
	keyed_free(kb, nb);
	if (!ret)
		qsort(df->e + first, df->nr - first, sizeof(*df->e), entry_cmp);
	return ret;
}

static int add_pair(struct diff *df, enum diff_kind kind, struct diff_doc *a,
		    struct diff_doc *b)
{
	struct diff_pair *p = reallocarray(df->pairs, df->nr_pairs + 1, sizeof(*p));

	if (!p)
		return oom();
	df->pairs = p;
	p = &df->pairs[df->nr_pairs++];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->d[0] = a;
	p->d[1] = b;
	if (!a || !b || !a->doc || !b->doc)
		return 0;	/* said at the pair's level */
	return compare_pair(df, df->nr_pairs - 1);
}

/* The document of @kind and @flavour on side @s, or NULL. */
static struct diff_doc *find_doc(struct diff_side *s, enum diff_kind kind,
				 const char *flavour)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		if (s->docs[i].kind == kind && (!flavour || !strcmp(s->docs[i].flavour, flavour)))
			return &s->docs[i];
	return NULL;
}

static unsigned int nr_docs(const struct diff_side *s, enum diff_kind kind)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->nr; i++)
		n += s->docs[i].kind == kind;
	return n;
}

/* Say which flavours each side has of @kind, which are not the same set. */
static int not_same_set(const struct diff *df, enum diff_kind kind)
{
	unsigned int k, i;

	fprintf(stderr, "gupctl " CMD ": A and B hold %s runs of different flavours:",
		diff_kind_name(kind));
	for (k = 0; k < 2; k++) {
		fprintf(stderr, " %c has", 'A' + k);
		for (i = 0; i < df->side[k].nr; i++)
			if (df->side[k].docs[i].kind == kind)
				fprintf(stderr, " %s", df->side[k].docs[i].flavour);
		fputc(k ? '\n' : ';', stderr);
	}
	fprintf(stderr, "gupctl " CMD ": give DIR:FLAVOUR to compare one flavour with another\n");
	return GUPCTL_EXIT_USAGE;
}

int diff_compare(struct diff *df)
{
	unsigned int k, i, n[2];
	struct diff_doc *d;
	enum diff_kind kind;
	int ret = 0;

	for (kind = 0; kind < DIFF_NR_KINDS && !ret; kind++) {
		for (k = 0; k < 2; k++)
			n[k] = nr_docs(&df->side[k], kind);
		if (n[0] == 1 && n[1] == 1) {
			ret = add_pair(df, kind, find_doc(&df->side[0], kind, NULL),
				       find_doc(&df->side[1], kind, NULL));
			continue;
		}
		if (n[0] && n[1]) {	/* flavour by flavour: the same set */
			if (n[0] != n[1])
				return not_same_set(df, kind);
			for (i = 0; i < df->side[0].nr; i++) {
				d = &df->side[0].docs[i];
				if (d->kind == kind && !find_doc(&df->side[1], kind, d->flavour))
					return not_same_set(df, kind);
			}
		}
		for (k = 0; k < 2 && !ret; k++) {
			for (i = 0; i < df->side[k].nr && !ret; i++) {
				d = &df->side[k].docs[i];
				if (d->kind != kind || (k && n[0]))
					continue;	/* B's were paired with A's */
				if (!k && n[1])
					ret = add_pair(df, kind, d, find_doc(&df->side[1], kind,
									     d->flavour));
				else
					ret = add_pair(df, kind, k ? NULL : d, k ? d : NULL);
			}
		}
	}
	return ret;
}

void diff_free(struct diff *df)
{
	unsigned int i, k;

	for (i = 0; i < df->nr; i++) {
		free(df->e[i].key);
		free(df->e[i].group);
		for (k = 0; k < 2; k++) {
			json_decref(df->e[i].s[k].measured);
			free(df->e[i].s[k].words);
			free(df->e[i].s[k].ev.console);
		}
	}
	free(df->e);
	free(df->pairs);
	for (k = 0; k < 2; k++)
		diff_side_free(&df->side[k]);
	memset(df, 0, sizeof(*df));
}

bool diff_same_change(const struct diff_entry *a, const struct diff_entry *b)
{
	return a->pair == b->pair && a->state == b->state &&
	       !strcmp(a->s[0].words ?: "", b->s[0].words ?: "") &&
	       !strcmp(a->s[1].words ?: "", b->s[1].words ?: "");
}
