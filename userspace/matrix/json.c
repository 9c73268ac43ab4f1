// SPDX-License-Identifier: GPL-2.0
/*
 * json: write a matrix cell as JSON and read a matrix document back
 * (docs/results.md), checking every field it uses: cells are found by
 * their names and must sit at their index.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/kmsg.h"
#include "matrix/json.h"
#include "model/policy.h"

/* ---- Writing ---- */

/* "dirty,uptodate" as ["dirty", "uptodate"]. */
static json_t *page_state_json(unsigned int state)
{
	char buf[128], *tok, *save;
	json_t *a = json_array();

	if (!state)
		return a;
	gup_page_state_str(state, buf, sizeof(buf));
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		json_array_append_new(a, json_string(tok));
	return a;
}

static json_t *page_json(const struct mcell *c)
{
	char fs[sizeof(c->page.fs_name) + 1];

	if (!c->have_page)
		return json_null();
	snprintf(fs, sizeof(fs), "%.*s", (int)sizeof(c->page.fs_name),
		 c->page.fs_name);
	return json_pack("{s:s, s:s?, s:o, s:i, s:i}",
			 "kind", gup_page_kind_name(c->page.kind),
			 "fs", fs[0] ? fs : NULL,
			 "state", page_state_json(c->page.state),
			 "mapcount", (int)c->page.mapcount,
			 "refcount", (int)c->page.refcount);
}

static const char *or_null(const char *s)
{
	return s[0] ? s : NULL;
}

json_t *matrix_json_cell_id(unsigned int idx)
{
	struct cell c;
	char flags[64];

	matrix_cell(idx, &c);
	return json_pack("{s:i, s:s, s:s, s:s, s:s}", "index", idx + 1,
			 "backing", backing_name(c.backing),
			 "state", state_name(c.state),
			 "method", gup_method_name(c.method),
			 "flags", gup_flags_str(c.flags, flags, sizeof(flags)));
}

json_t *matrix_json_cell(unsigned int idx, const struct mcell *c)
{
	json_t *j = matrix_json_cell_id(idx);

	json_object_set_new(j, "expected", c->measured_only ? json_null() :
			    json_pack("{s:s, s:s?, s:s, s:s, s:o}",
				      "outcome", matrix_outcome_name(c->expected),
				      "errno", or_null(c->exp_err),
				      "reason", c->reason,
				      "by", c->by_driver ? "driver" : "kernel",
				      "kernel_report", !c->report.kind ? json_null() :
				      json_pack("{s:s, s:s, s:s}", "kind", c->report.kind,
						"file", c->report.file,
						"text", c->report.text)));
	json_object_set_new(j, "measured",
			    json_pack("{s:s, s:s?, s:o, s:s?, s:o}",
				      "outcome", matrix_outcome_name(c->measured),
				      "errno", or_null(c->meas_err),
				      "nr_pinned", c->nr_pinned < 0 ? json_null() :
						   json_integer(c->nr_pinned),
				      "unpin_errno", or_null(c->unpin_err),
				      "page", page_json(c)));
	if (c->thp_kb >= 0)
		json_object_set_new(json_object_get(j, "measured"), "thp_kb",
				    json_integer(c->thp_kb));
	if (c->why_not_run)
		json_object_set_new(json_object_get(j, "measured"), "why_not_run",
				    json_string(c->why_not_run));
	json_object_set_new(j, "match", json_boolean(c->match));
	return j;
}

void mcell_measured_str(char *buf, size_t size, const struct mcell *c)
{
	switch (c->measured) {
	case MATRIX_PINNED:
		if (c->unpin_err[0])
			snprintf(buf, size, "pinned, but the unpin failed: %s",
				 c->unpin_err);
		else
			snprintf(buf, size, "pinned");
		break;
	case MATRIX_NONE_PINNED:
		snprintf(buf, size, "none pinned (no error, no page)");
		break;
	case MATRIX_REFUSED:
		snprintf(buf, size, "%s", c->meas_err);
		break;
	default:
		if (c->why_not_run)
			snprintf(buf, size, "not run: %s", c->why_not_run);
		else if (c->meas_err[0])
			snprintf(buf, size, "not run (setup failed: %s)", c->meas_err);
		else
			snprintf(buf, size, "not run");
	}
}

void mcell_expected_str(char *buf, size_t size, const struct mcell *c)
{
	if (c->measured_only) {
		snprintf(buf, size, "nothing (" MATRIX_MEASURED_ONLY ")");
		return;
	}
	switch (c->expected) {
	case MATRIX_PINNED:
		snprintf(buf, size, "pinned");
		break;
	case MATRIX_REFUSED:
		snprintf(buf, size, "%s%s%s", c->exp_err,
			 c->by_driver ? " by the driver" : "",
			 c->report.kind ? " with a WARNING" : "");
		break;
	case MATRIX_NONE_PINNED:
		snprintf(buf, size, "none pinned");
		break;
	default:
		snprintf(buf, size, "not run (not applicable)");
	}
}

/* ---- Reading ---- */

struct jreader {
	const char *cmd, *path;
	char where[64];			/* the object being read, "" the top */
};

static int jerr(const struct jreader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int jerr(const struct jreader *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gupctl %s: %s: %s%s", r->cmd, r->path, r->where,
		r->where[0] ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return GUPCTL_EXIT_USAGE;
}

/* @obj's string @key into *@out; null or absent (if @nullable): NULL. */
static int get_str(const struct jreader *r, json_t *obj, const char *key,
		   bool nullable, const char **out)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (json_is_string(v)) {
		*out = json_string_value(v);
		return 0;
	}
	if (nullable && (!v || json_is_null(v)))
		return 0;
	return jerr(r, "\"%s\" is %s: want a string%s", key,
		    v ? "not a string" : "missing", nullable ? " or null" : "");
}

/* An errno name ("E" and capitals or digits) or null into @out. */
static int get_errno(const struct jreader *r, json_t *obj, const char *key,
		     char out[MATRIX_ERRNO_LEN])
{
	const char *s;
	size_t n;
	int ret = get_str(r, obj, key, true, &s);

	out[0] = '\0';
	if (ret || !s)
		return ret;
	n = strspn(s + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789?");
	if (s[0] != 'E' || s[1 + n] || n + 2 > MATRIX_ERRNO_LEN)
		return jerr(r, "\"%s\": '%s' is not an errno name", key, s);
	strcpy(out, s);
	return 0;
}

static int get_outcome(const struct jreader *r, json_t *obj,
		       enum matrix_outcome *o)
{
	const char *s;
	int ret = get_str(r, obj, "outcome", false, &s);

	if (!ret && matrix_parse_outcome(s, o))
		ret = jerr(r, "unknown outcome '%s'", s);
	return ret;
}

/* @key's number (or null, if @nullable: -1) into @out. */
static int get_num(const struct jreader *r, json_t *obj, const char *key,
		   bool nullable, double *out)
{
	json_t *v = json_object_get(obj, key);

	*out = -1;
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return 0;
	}
	if (nullable && (!v || json_is_null(v)))
		return 0;
	return jerr(r, "\"%s\" is %s: want a number", key,
		    v ? "not a number" : "missing");
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

static const char *backing_name_of(unsigned int i)
{
	return backing_name(i);
}

static const char *state_name_of(unsigned int i)
{
	return state_name(i);
}

/* One of the matrix's flag sets, by its name (gup_flags_str()): 0 or -1. */
static int parse_flags(const char *s, unsigned int *flags)
{
	char buf[64];
	unsigned int f;

	for (f = 0; f < MATRIX_NR_FLAGS; f++) {
		if (!strcmp(s, gup_flags_str(matrix_flag_sets[f], buf, sizeof(buf)))) {
			*flags = matrix_flag_sets[f];
			return 0;
		}
	}
	return -1;
}

/* Which cell @j names, checked against its "index": *@idx, 0-based. */
static int parse_cell_id(const struct jreader *r, json_t *j, struct cell *c,
			 int *idx)
{
	const char *method, *flags, *backing, *state;
	json_t *index = json_object_get(j, "index");
	int ret, i;

	ret = get_str(r, j, "method", false, &method) ?:
	      get_str(r, j, "flags", false, &flags) ?:
	      get_str(r, j, "backing", false, &backing) ?:
	      get_str(r, j, "state", false, &state);
	if (ret)
		return ret;
	i = find_name(method, gup_method_name, GUP_PIN_METHOD_COUNT);
	if (i < 0)
		return jerr(r, "unknown method '%s'", method);
	c->method = i;
	if (parse_flags(flags, &c->flags))
		return jerr(r, "flags '%s' are not one of the matrix's mixes", flags);
	i = find_name(backing, backing_name_of, BACKING_COUNT);
	if (i < 0)
		return jerr(r, "unknown backing '%s'", backing);
	c->backing = i;
	i = find_name(state, state_name_of, STATE_COUNT);
	if (i < 0)
		return jerr(r, "unknown state '%s'", state);
	c->state = i;
	*idx = matrix_index(c);
	if (!json_is_integer(index) || json_integer_value(index) != *idx + 1)
		return jerr(r, "\"index\" is not %d, the index of %s %s %s %s",
			    *idx + 1, method, flags, backing, state);
	return 0;
}

/* expected.kernel_report: null, or {kind, file, text}, none empty. */
static int parse_report_exp(const struct jreader *r, json_t *exp,
			    struct report_exp *rep)
{
	json_t *j = json_object_get(exp, "kernel_report");
	int ret;

	memset(rep, 0, sizeof(*rep));
	if (json_is_null(j))
		return 0;
	if (!json_is_object(j))
		return jerr(r, "\"kernel_report\" is %s: want null or {kind, file, text}",
			    j ? "not an object" : "missing");
	ret = get_str(r, j, "kind", false, &rep->kind) ?:
	      get_str(r, j, "file", false, &rep->file) ?:
	      get_str(r, j, "text", false, &rep->text);
	if (ret)
		return ret;
	if (!rep->kind[0] || !rep->file[0] || !rep->text[0])
		return jerr(r, "\"kernel_report\" has an empty kind, file or text");
	return 0;
}

/* expected.by and expected.kernel_report, checked against the outcome. */
static int parse_expected_more(const struct jreader *r, json_t *exp,
			       struct mcell *mc)
{
	const char *by;
	int ret = get_str(r, exp, "by", false, &by) ?:
		  parse_report_exp(r, exp, &mc->report);

	if (ret)
		return ret;
	if (strcmp(by, "driver") && strcmp(by, "kernel"))
		return jerr(r, "expected \"by\" '%s': want \"driver\" or \"kernel\"", by);
	mc->by_driver = !strcmp(by, "driver");
	if (mc->by_driver && mc->expected != MATRIX_REFUSED)
		return jerr(r, "expected %s by the driver: the driver only refuses",
			    matrix_outcome_name(mc->expected));
	if (mc->by_driver && mc->report.kind)
		return jerr(r, "expected a kernel report from a refusal by the driver, before GUP is called");
	if (mc->expected == MATRIX_NOT_RUN && mc->report.kind)
		return jerr(r, "expected a kernel report from a cell that is not run");
	return 0;
}

/* measured.thp_kb: kB a THP backing's pinned page had PMD-mapped. */
static int parse_thp(const struct jreader *r, json_t *meas, struct mcell *mc)
{
	json_t *j = json_object_get(meas, "thp_kb");

	mc->thp_kb = -1;
	if (!j)
		return 0;
	if (!json_is_integer(j) || json_integer_value(j) < 0)
		return jerr(r, "\"thp_kb\" is not a number of kB");
	if (!backing_spec(mc->cell.backing)->thp)
		return jerr(r, "\"thp_kb\" on %s, not a transparent huge page backing",
			    backing_name(mc->cell.backing));
	if (mc->measured != MATRIX_PINNED)
		return jerr(r, "\"thp_kb\" on a cell measured %s: it is taken of a pinned page",
			    matrix_outcome_name(mc->measured));
	mc->thp_kb = json_integer_value(j);
	return 0;
}

static int parse_cell(const struct jreader *r, json_t *j, struct mflavour *fl)
{
	json_t *exp = json_object_get(j, "expected");
	json_t *meas = json_object_get(j, "measured");
	json_t *match = json_object_get(j, "match");
	struct mcell *mc;
	struct cell c;
	int idx = 0, ret;

	if (!json_is_object(j))
		return jerr(r, "not an object");
	ret = parse_cell_id(r, j, &c, &idx);
	if (ret)
		return ret;
	mc = &fl->cells[idx];
	if (mc->present)
		return jerr(r, "the cell is there twice");
	mc->measured_only = json_is_null(exp);
	if (mc->measured_only && !policy_is_none(fl->policy))
		return jerr(r, "\"expected\" is null (measured only) in a document of policy %s: only policy %s has no expectation",
			    fl->policy, POLICY_NONE);
	if ((!mc->measured_only && !json_is_object(exp)) || !json_is_object(meas) ||
	    !json_is_boolean(match))
		return jerr(r, "want objects \"expected\" (null: policy %s), \"measured\" and a boolean \"match\"",
			    POLICY_NONE);
	mc->cell = c;
	mc->expected = MATRIX_NOT_RUN;
	mc->reason = mc->measured_only ? MATRIX_MEASURED_ONLY : NULL;
	ret = (mc->measured_only ? 0 :
	       get_outcome(r, exp, &mc->expected) ?:
	       get_errno(r, exp, "errno", mc->exp_err) ?:
	       get_str(r, exp, "reason", false, &mc->reason)) ?:
	      get_outcome(r, meas, &mc->measured) ?:
	      get_errno(r, meas, "errno", mc->meas_err) ?:
	      get_errno(r, meas, "unpin_errno", mc->unpin_err) ?:
	      get_str(r, meas, "why_not_run", true, &mc->why_not_run);
	if (ret)
		return ret;
	if (mc->expected == MATRIX_REFUSED ? !mc->exp_err[0] : !!mc->exp_err[0])
		return jerr(r,
			    "expected %s with errno '%s': refused needs an errno, nothing else has one",
			    matrix_outcome_name(mc->expected), mc->exp_err);
	if (mc->measured == MATRIX_REFUSED && !mc->meas_err[0])
		return jerr(r, "measured refused without an errno");
	if ((mc->measured == MATRIX_PINNED || mc->measured == MATRIX_NONE_PINNED) &&
	    mc->meas_err[0])
		return jerr(r, "measured %s with errno %s",
			    matrix_outcome_name(mc->measured), mc->meas_err);
	mc->match = json_is_true(match);
	if (mc->why_not_run && (mc->measured != MATRIX_NOT_RUN || mc->match))
		return jerr(r, "\"why_not_run\" on a cell measured %s%s: it says why a cell did not run, which is never a match",
			    matrix_outcome_name(mc->measured), mc->match ? " and matched" : "");
	ret = (mc->measured_only ? 0 : parse_expected_more(r, exp, mc)) ?:
	      parse_thp(r, meas, mc) ?:
	      get_str(r, j, "note", true, &mc->note);
	if (ret)
		return ret;
	mc->present = true;

	fl->nr_present++;
	if (mc->measured != MATRIX_NOT_RUN)
		fl->nr_run++;
	if (mc->measured_only)
		fl->nr_measured_only++;
	else if (mc->expected == MATRIX_NOT_RUN)
		fl->nr_not_applicable++;
	if (!mc->match)
		fl->nr_mismatch++;
	return 0;
}

static int parse_cells(struct jreader *r, json_t *cells, struct mflavour *fl)
{
	size_t i;
	json_t *j;
	int ret;

	if (!json_is_array(cells))
		return jerr(r, "\"cells\" is %s: want an array",
			    cells ? "not an array" : "missing");
	json_array_foreach(cells, i, j) {
		snprintf(r->where, sizeof(r->where), "cells[%zu]", i);
		ret = parse_cell(r, j, fl);
		if (ret)
			return ret;
	}
	r->where[0] = '\0';
	return 0;
}

/* FLAVOUR.json's "xcheck": the counts, and the cells not cross-checked. */
static int parse_xcheck(struct jreader *r, json_t *x, struct mflavour *fl)
{
	json_t *checked = json_object_get(x, "checked");
	json_t *disagree = json_object_get(x, "disagree");
	json_t *skipped = json_object_get(x, "not_checked"), *j;
	size_t i;

	fl->xcheck_nr = -1;
	if (!x || json_is_null(x))
		return 0;
	snprintf(r->where, sizeof(r->where), "xcheck");
	if (!json_is_integer(checked) || !json_is_integer(disagree))
		return jerr(r, "want integers \"checked\" and \"disagree\"");
	if (skipped && !json_is_array(skipped))
		return jerr(r, "\"not_checked\" is not an array");
	json_array_foreach(skipped, i, j)
		if (!json_is_string(json_object_get(j, "reason")) ||
		    !json_is_integer(json_object_get(j, "cells")))
			return jerr(r, "not_checked[%zu]: want \"reason\" and \"cells\"", i);
	fl->xcheck_nr = json_integer_value(checked);
	fl->xcheck_disagree = json_integer_value(disagree);
	r->where[0] = '\0';
	return 0;
}

/* A report's "series_finding": absent or null, or {what, doc}. */
static int parse_series(struct jreader *r, json_t *j, struct mreport *rep)
{
	const char *what;

	rep->series = NULL;
	if (!j || json_is_null(j))
		return 0;
	what = json_string_value(json_object_get(j, "what"));
	if (!json_is_object(j) || !what || !json_is_string(json_object_get(j, "doc")))
		return jerr(r, "\"series_finding\" is not null or {what, doc}");
	if (rep->expected)
		return jerr(r, "an expected report is not a series finding");
	rep->series = what;
	return 0;
}

/* FLAVOUR.json's "kernel_reports". */
static int parse_reports(struct jreader *r, json_t *a, struct mflavour *fl)
{
	struct mreport *rep;
	json_t *j, *cell;
	size_t i;
	int ret;

	if (!a)
		return 0;
	if (!json_is_array(a))
		return jerr(r, "\"kernel_reports\" is not an array");
	fl->reports = calloc(json_array_size(a) + 1, sizeof(*fl->reports));
	if (!fl->reports)
		return jerr(r, "out of memory (ENOMEM)");
	json_array_foreach(a, i, j) {
		snprintf(r->where, sizeof(r->where), "kernel_reports[%zu]", i);
		rep = &fl->reports[i];
		cell = json_object_get(j, "cell");
		ret = get_str(r, j, "kind", false, &rep->kind) ?:
		      get_str(r, j, "title", false, &rep->title) ?:
		      get_str(r, j, "location", true, &rep->location) ?:
		      get_str(r, j, "step", true, &rep->step) ?:
		      get_str(r, j, "note", true, &rep->note);
		if (ret)
			return ret;
		if (json_is_integer(cell) && json_integer_value(cell) >= 1 &&
		    json_integer_value(cell) <= MATRIX_NR_CELLS)
			rep->cell = json_integer_value(cell) - 1;
		else if (json_is_null(cell))
			rep->cell = KMSG_MARK_END;
		else
			return jerr(r, "\"cell\" is not null or a cell index 1..%u",
				    MATRIX_NR_CELLS);
		if (!json_is_boolean(json_object_get(j, "expected")))
			return jerr(r, "\"expected\" is not a boolean");
		rep->expected = json_is_true(json_object_get(j, "expected"));
		ret = parse_series(r, json_object_get(j, "series_finding"), rep);
		if (ret)
			return ret;
		rep->finding = json_is_true(json_object_get(j, "no_policy_finding"));
		if (rep->finding && (rep->expected || rep->series ||
				     !policy_is_none(fl->policy)))
			return jerr(r, "\"no_policy_finding\" on a report that is expected, a series finding, or of policy %s: only a report during a cell of policy %s is one",
				    fl->policy, POLICY_NONE);
		fl->nr_series += !rep->expected && rep->series;
		fl->nr_findings += rep->finding;
		fl->nr_unexpected += !rep->expected && !rep->series && !rep->finding;
		fl->nr_reports++;
	}
	r->where[0] = '\0';
	return 0;
}

/* "kernel_policy": {"name": POLICY or null, "evidence": TEXT}, optional. */
static int parse_kernel_policy(struct jreader *r, json_t *kp, struct mflavour *fl)
{
	int ret;

	if (!kp)
		return 0;
	if (!json_is_object(kp))
		return jerr(r, "\"kernel_policy\" is not an object");
	snprintf(r->where, sizeof(r->where), "kernel_policy");
	ret = get_str(r, kp, "name", true, &fl->kernel_policy) ?:
	      get_str(r, kp, "evidence", false, &fl->kernel_policy_why);
	r->where[0] = '\0';
	fl->kernel_policy_read = !ret;
	return ret;
}

int matrix_json_parse(json_t *doc, const char *path, struct mflavour *fl,
		      const char *cmd)
{
	struct jreader r = { .cmd = cmd, .path = path };
	json_t *wall = json_object_get(doc, "wall_seconds");
	int ret;

	fl->doc = json_incref(doc);
	fl->path = path;
	if (!json_is_object(doc))
		return jerr(&r, "not a JSON object (is this a gupctl matrix document?)");
	ret = get_str(&r, doc, "flavour", false, &fl->name) ?:
	      get_str(&r, doc, "policy", false, &fl->policy) ?:
	      get_str(&r, doc, "kernel_release", true, &fl->kernel) ?:
	      get_str(&r, doc, "kernel_verdict", true, &fl->verdict);
	if (ret)
		return ret;
	if (!matrix_valid_flavour(fl->name))
		return jerr(&r, "bad flavour '%s'", fl->name);
	fl->quick = json_is_true(json_object_get(doc, "quick"));
	ret = parse_kernel_policy(&r, json_object_get(doc, "kernel_policy"), fl);
	if (ret)
		return ret;
	if (!json_is_object(wall))
		return jerr(&r, "\"wall_seconds\" is not an object");
	snprintf(r.where, sizeof(r.where), "wall_seconds");
	ret = get_num(&r, wall, "matrix", true, &fl->wall_matrix) ?:
	      get_num(&r, wall, "boot", true, &fl->wall_boot);
	r.where[0] = '\0';
	return ret ?:
	       parse_cells(&r, json_object_get(doc, "cells"), fl) ?:
	       parse_xcheck(&r, json_object_get(doc, "xcheck"), fl) ?:
	       parse_reports(&r, json_object_get(doc, "kernel_reports"), fl);
}

int matrix_json_load(const char *path, struct mflavour *fl, const char *cmd)
{
	json_t *doc = jsonfile_read(path, cmd);
	int ret;

	if (!doc)
		return GUPCTL_EXIT_USAGE;
	ret = matrix_json_parse(doc, path, fl, cmd);
	json_decref(doc);
	return ret;
}

void matrix_json_free(struct mflavour *fl)
{
	free(fl->reports);
	fl->reports = NULL;
	json_decref(fl->doc);
	fl->doc = NULL;
}

bool matrix_flavour_failed(const struct mflavour *fl)
{
	/* The verdict names the worst report: WARNINGs the cells expect are fine. */
	bool verdict_ok = !fl->verdict || !strcmp(fl->verdict, "clean") ||
			  (!strcmp(fl->verdict, "warning") && !fl->nr_unexpected);

	return fl->nr_present != MATRIX_NR_CELLS || fl->nr_mismatch ||
	       fl->xcheck_disagree > 0 || fl->nr_unexpected || !verdict_ok ||
	       matrix_flavour_mislabelled(fl);
}

bool matrix_flavour_mislabelled(const struct mflavour *fl)
{
	/* none: the job found no policy (gupctl detect); nothing to contradict */
	return fl->kernel_policy_read && !policy_is_none(fl->policy) &&
	       (!fl->kernel_policy || strcmp(fl->kernel_policy, fl->policy));
}

json_t *matrix_json_summary(const struct mflavour *fl)
{
	json_t *s = json_pack("{s:i, s:i, s:i, s:i, s:o, s:i, s:i, s:i, s:i, s:b}",
			 "cells", fl->nr_present, "run", fl->nr_run,
			 "not_applicable", fl->nr_not_applicable,
			 "mismatches", fl->nr_mismatch,
			 "xcheck_disagree", fl->xcheck_nr < 0 ? json_null() :
					    json_integer(fl->xcheck_disagree),
			 "kernel_reports", fl->nr_reports,
			 "expected_kernel_reports", mflavour_expected_reports(fl),
			 "unexpected_kernel_reports", fl->nr_unexpected,
			 "series_findings", fl->nr_series,
			 "passed", !matrix_flavour_failed(fl));

	/* policy none's counts: only its documents have them */
	if (s && policy_is_none(fl->policy)) {
		json_object_set_new(s, "measured_only", json_integer(fl->nr_measured_only));
		json_object_set_new(s, "no_policy_findings", json_integer(fl->nr_findings));
	}
	return s;
}
