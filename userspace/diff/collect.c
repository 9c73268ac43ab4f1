// SPDX-License-Identifier: GPL-2.0
/*
 * collect: gupctl diff's operands read into sides (collect.h).  A run
 * directory's run.json names its job and flavours; each flavour that ran
 * has its document beside it (docs/results.md), and one that did not has
 * run.json's (or its document's) why_not_run.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diff/collect.h"
#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/util.h"
#include "model/cell.h"

#define CMD	"diff"

/* Each kind of document: its job, its file beside the flavour's name, its cells. */
static const struct {
	const char *name, *job, *suffix, *array;
	bool console;			/* FLAVOUR.console.log has its cells' markers */
} kinds[DIFF_NR_KINDS] = {
	[DIFF_MATRIX] = { "matrix", "matrix", ".json", "cells", true },
	[DIFF_LONGTERM] = { "gup_longterm", "matrix", ".longterm.json", "tests", true },
	[DIFF_REPRO] = { "repro", "repro", ".json", "cells", false },
	[DIFF_CONSUMERS] = { "consumers", "consumers", ".json", "cells", true },
	[DIFF_HOLDERS] = { "holders", "holders", ".json", "cells", false },
};

/* The jobs a FLAVOUR operand looks in, under the results root. */
static const char * const jobs[] = { "matrix", "repro", "consumers", "holders" };

const char *diff_kind_name(enum diff_kind kind)
{
	return kind < DIFF_NR_KINDS ? kinds[kind].name : "?";
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static int oom(void)
{
	fprintf(stderr, "gupctl " CMD ": out of memory (ENOMEM)\n");
	return GUPCTL_EXIT_USAGE;
}

static char *path_join(const char *dir, const char *a, const char *b)
{
	char *p;

	if (asprintf(&p, "%s/%s%s", dir, a, b ?: "") < 0)
		return NULL;
	return p;
}

/* The run.json entry of @flavour, or NULL. */
static json_t *run_flavour(json_t *run, const char *flavour)
{
	json_t *fl = json_object_get(run, "flavours"), *e;
	size_t i;

	json_array_foreach(fl, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "name")) ?: "", flavour))
			return e;
	return NULL;
}

/* Why the flavour of run.json entry @e did not run, or NULL. */
static const char *entry_why_not_run(json_t *e)
{
	const char *why = json_string_value(json_object_get(e, "why_not_run"));

	if (why)
		return why;
	if (json_is_false(json_object_get(e, "ran")))
		return "run.json says it did not run and gives no reason";
	return NULL;
}

/* Read @d's document, or say why it has none. */
static int doc_read(const char *name, struct diff_doc *d, json_t *entry)
{
	const char *why = entry_why_not_run(entry), *fl;
	char *msg = NULL;

	if (why) {
		d->why_not_run = strdup(why);
		return d->why_not_run ? 0 : oom();
	}
	d->path = path_join(d->dir, d->flavour, kinds[d->kind].suffix);
	if (!d->path)
		return oom();
	if (!is_file(d->path)) {
		if (asprintf(&msg, "%s has no %s%s", d->dir, d->flavour,
			     kinds[d->kind].suffix) < 0)
			return oom();
		d->why_not_run = msg;
		free(d->path);
		d->path = NULL;
		return 0;
	}
	d->doc = jsonfile_read_object(d->path, CMD);
	if (!d->doc)
		return GUPCTL_EXIT_USAGE;
	fl = json_string_value(json_object_get(d->doc, "flavour"));
	if (fl && strcmp(fl, d->flavour)) {
		fprintf(stderr, "gupctl " CMD ": %s: %s is flavour '%s's, not '%s's\n",
			name, d->path, fl, d->flavour);
		return GUPCTL_EXIT_USAGE;
	}
	d->cells = json_object_get(d->doc, kinds[d->kind].array);
	if (!json_is_array(d->cells)) {
		fprintf(stderr, "gupctl " CMD ": %s: %s: no \"%s\" array: not a %s document\n",
			name, d->path, kinds[d->kind].array, kinds[d->kind].name);
		return GUPCTL_EXIT_USAGE;
	}
	why = json_string_value(json_object_get(d->doc, "why_not_run"));
	if (!json_array_size(d->cells)) {
		if (asprintf(&msg, "%s", why ?: "its document has no cells") < 0)
			return oom();
		d->why_not_run = msg;
	}
	if (kinds[d->kind].console) {
		d->console = path_join(d->dir, d->flavour, ".console.log");
		if (!d->console)
			return oom();
	}
	return 0;
}

/* Add @flavour's documents of the run in @dir (run.json @run, job @job). */
static int add_flavour(const char *name, struct diff_side *s, const char *dir,
		       const char *job, json_t *entry, const char *flavour)
{
	struct diff_doc *d, *docs;
	unsigned int k, i;
	int ret;

	for (k = 0; k < DIFF_NR_KINDS; k++) {
		if (strcmp(kinds[k].job, job))
			continue;
		for (i = 0; i < s->nr; i++) {
			if (s->docs[i].kind != k || strcmp(s->docs[i].flavour, flavour))
				continue;
			fprintf(stderr,
				"gupctl " CMD ": %s: flavour '%s's %s is in %s and in %s: give one\n",
				name, flavour, kinds[k].name, s->docs[i].dir, dir);
			return GUPCTL_EXIT_USAGE;
		}
		docs = reallocarray(s->docs, s->nr + 1, sizeof(*docs));
		if (!docs)
			return oom();
		s->docs = docs;
		d = &s->docs[s->nr++];
		memset(d, 0, sizeof(*d));
		d->kind = k;
		d->dir = strdup(dir);
		d->flavour = strdup(flavour);
		if (!d->dir || !d->flavour)
			return oom();
		ret = doc_read(name, d, entry);
		if (ret)
			return ret;
	}
	return 0;
}

/* Every flavour of the run in @dir, or only @flavour (non-NULL). */
static int add_run(const char *name, struct diff_side *s, const char *dir,
		   const char *flavour)
{
	char *path = path_join(dir, "run.json", NULL);
	json_t *run, *fl, *e;
	const char *job, *n;
	unsigned int k;
	size_t i;
	int ret = 0;

	if (!path)
		return oom();
	if (!is_file(path)) {
		fprintf(stderr, "gupctl " CMD ": %s: %s is not a run directory (no run.json)\n",
			name, dir);
		free(path);
		return GUPCTL_EXIT_USAGE;
	}
	run = jsonfile_read_object(path, CMD);
	free(path);
	if (!run)
		return GUPCTL_EXIT_USAGE;
	job = json_string_value(json_object_get(run, "job")) ?: "";
	for (k = 0; k < DIFF_NR_KINDS && strcmp(kinds[k].job, job); k++)
		;
	fl = json_object_get(run, "flavours");
	if (k == DIFF_NR_KINDS) {
		fprintf(stderr,
			"gupctl " CMD ": %s: %s is a run of job '%s': gupctl diff reads matrix, repro, consumers and holders runs\n",
			name, dir, job);
		ret = GUPCTL_EXIT_USAGE;
	} else if (!json_array_size(fl)) {
		fprintf(stderr, "gupctl " CMD ": %s: %s/run.json lists no flavours\n",
			name, dir);
		ret = GUPCTL_EXIT_USAGE;
	} else if (flavour && !run_flavour(run, flavour)) {
		fprintf(stderr, "gupctl " CMD ": %s: %s has no flavour '%s'; it has:", name,
			dir, flavour);
		json_array_foreach(fl, i, e)
			fprintf(stderr, " %s", json_string_value(json_object_get(e, "name")) ?: "?");
		fputc('\n', stderr);
		ret = GUPCTL_EXIT_USAGE;
	}
	json_array_foreach(fl, i, e) {
		if (ret)
			break;
		n = json_string_value(json_object_get(e, "name"));
		if (!n || !matrix_valid_flavour(n)) {
			fprintf(stderr, "gupctl " CMD ": %s: %s/run.json: flavour %zu has no valid name\n",
				name, dir, i + 1);
			ret = GUPCTL_EXIT_USAGE;
		} else if (!flavour || !strcmp(n, flavour)) {
			ret = add_flavour(name, s, dir, job, e, n);
		}
	}
	json_decref(run);
	return ret;
}

static int name_desc(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*b)->d_name, (*a)->d_name);
}

/*
 * The newest run of @job under @root whose run.json lists @flavour (runs
 * still in progress, with their .running, left out): its directory, NULL
 * if there is none.
 */
static char *latest_run(const char *root, const char *job, const char *flavour)
{
	char *jobdir = path_join(root, job, NULL), *dir = NULL, *p;
	struct dirent **ents = NULL;
	json_t *run;
	int n, i;

	if (!jobdir)
		return NULL;
	n = scandir(jobdir, &ents, NULL, name_desc);
	for (i = 0; i < n; i++) {
		if (!dir && ents[i]->d_name[0] != '.' && strcmp(ents[i]->d_name, "latest")) {
			p = path_join(jobdir, ents[i]->d_name, "/.running");
			if (p && !is_file(p)) {
				strcpy(strrchr(p, '/') + 1, "run.json");
				run = is_file(p) ? json_load_file(p, 0, NULL) : NULL;
				if (run_flavour(run, flavour))
					dir = path_join(jobdir, ents[i]->d_name, NULL);
				json_decref(run);
			}
			free(p);
		}
		free(ents[i]);
	}
	free(ents);
	free(jobdir);
	return dir;
}

/* @flavour's latest run of every job under @root. */
static int add_latest(const char *name, struct diff_side *s, const char *root,
		      const char *flavour)
{
	unsigned int j, found = 0;
	char *dir;
	int ret;

	if (!is_dir(root)) {
		fprintf(stderr, "gupctl " CMD ": %s: the results root %s is not a directory (GUP_LAB_RESULTS, --results)\n",
			name, root);
		return GUPCTL_EXIT_USAGE;
	}
	for (j = 0; j < ARRAY_SIZE(jobs); j++) {
		dir = latest_run(root, jobs[j], flavour);
		if (!dir)
			continue;
		ret = add_run(name, s, dir, flavour);
		free(dir);
		if (ret)
			return ret;
		found++;
	}
	if (!found) {
		fprintf(stderr,
			"gupctl " CMD ": %s: no run under %s holds flavour '%s' (no matrix, repro, consumers or holders run.json lists it)\n",
			name, root, flavour);
		return GUPCTL_EXIT_USAGE;
	}
	return 0;
}

/* One comma-separated part of an operand: DIR, DIR:FLAVOUR or FLAVOUR. */
static int add_part(const char *name, struct diff_side *s, char *part,
		    const char *root)
{
	char *colon = strrchr(part, ':');
	int ret;

	if (!*part) {
		fprintf(stderr, "gupctl " CMD ": %s: an empty part in '%s'\n", name,
			s->operand);
		return GUPCTL_EXIT_USAGE;
	}
	if (is_dir(part))
		return add_run(name, s, part, NULL);
	if (colon) {
		*colon = '\0';
		ret = GUPCTL_EXIT_USAGE;
		if (!is_dir(part))
			fprintf(stderr, "gupctl " CMD ": %s: '%s' in '%s:%s' is not a directory\n",
				name, part, part, colon + 1);
		else if (!matrix_valid_flavour(colon + 1))
			fprintf(stderr, "gupctl " CMD ": %s: '%s' after '%s:' is not a flavour name\n",
				name, colon + 1, part);
		else
			ret = add_run(name, s, part, colon + 1);
		*colon = ':';
		return ret;
	}
	if (strchr(part, '/')) {
		fprintf(stderr, "gupctl " CMD ": %s: %s: no such directory\n", name, part);
		return GUPCTL_EXIT_USAGE;
	}
	if (!matrix_valid_flavour(part)) {
		fprintf(stderr,
			"gupctl " CMD ": %s: '%s' is neither a directory nor a flavour name (letters, digits, '.', '_', '+', '@', '-')\n",
			name, part);
		return GUPCTL_EXIT_USAGE;
	}
	return add_latest(name, s, root, part);
}

int diff_side_collect(const char *name, const char *operand, const char *root,
		      struct diff_side *s)
{
	char *copy = strdup(operand), *part, *next;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->operand = operand;
	if (!copy)
		return oom();
	for (part = copy; part && !ret; part = next) {
		next = strchr(part, ',');
		if (next)
			*next++ = '\0';
		ret = add_part(name, s, part, root);
	}
	free(copy);
	return ret;
}

void diff_side_free(struct diff_side *s)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		struct diff_doc *d = &s->docs[i];

		free(d->dir);
		free(d->flavour);
		free(d->path);
		free(d->why_not_run);
		free(d->console);
		free(d->ms.m);
		json_decref(d->doc);
	}
	free(s->docs);
	memset(s, 0, sizeof(*s));
}

bool diff_doc_slice(struct diff_doc *d, const char *step, int n,
		    unsigned int *from, unsigned int *to)
{
	unsigned int i;

	if (!d->console || n < 1)
		return false;
	if (!d->ms_state) {
		d->ms_state = is_file(d->console) &&
			      !read_markers(d->console, CMD, &d->ms) ? 1 : -1;
	}
	if (d->ms_state < 0)
		return false;
	for (i = 0; i < d->ms.nr; i++)
		if (d->ms.m[i].index == n - 1 && !strcmp(d->ms.m[i].step, step))
			break;
	if (i == d->ms.nr)
		return false;
	*from = d->ms.m[i].line;
	*to = 0;
	for (i++; i < d->ms.nr; i++) {
		if (!strcmp(d->ms.m[i].step, step)) {
			*to = d->ms.m[i].line - 1;
			break;
		}
	}
	return true;
}
