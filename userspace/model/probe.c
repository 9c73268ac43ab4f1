// SPDX-License-Identifier: GPL-2.0
/*
 * probe: gupctl detect's probes and verdict (probe.h).
 *
 * The probes are a greedy set cover over matrix cells of three backings
 * that are cheap to make and decisive: ext4-shared (the dirty-tracked
 * shared file every series is about), ext4-private (dirty-tracked under
 * v7's test, not under v9's and 6.12's: VM_SHARED decides) and, for two
 * sanity probes, anon-private.  The requirements it covers:
 *   - separation: each pair of models (the release's policies and, if
 *     none of them is it, the reference without a file write policy)
 *     answers one probe differently, so that the measurements can match
 *     one of them only;
 *   - paths: for each named policy, each GUP path on which it answers a
 *     cell otherwise than the reference has a probe, a path being the
 *     method's FOLL_PIN or FOLL_GET, GUP-fast or the slow path, and for
 *     GUP-fast whether it finds a present writable PTE (a write-faulted
 *     page: it takes it, or checks the folio: v7's
 *     folio_longterm_write_pin_allowed(), v9's folio_fast_pin_allowed(),
 *     6.12's gup_fast_folio_allowed()) or falls back to the slow path
 *     (check_vma_flags(): seed 005's can_write_file_mapping(), v7's
 *     writeable_file_mapping_allowed(), v9's and 6.12's
 *     writable_file_mapping_allowed()).
 * Cells decided by the method and flags alone (flags_only: the same WARN
 * on every backing) and cells some model cannot run are left out.  Ties
 * go to the cell fewer models expect a kernel report of, then to the
 * lower index (pin_user_pages before pin_user_pages_fast before
 * get_user_pages..., untouched before read-faulted...).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gup_pin_test.h"
#include "lib/gupdev.h"
#include "model/probe.h"

enum policy_kernel probe_kernel_of(const char *release)
{
	if (!release)
		return POLICY_KERNEL_COUNT;
	if (!strncmp(release, "6.12.", 5) || !strcmp(release, "6.12"))
		return POLICY_KERNEL_612;
	if (!strncmp(release, "7.3.", 4) || !strcmp(release, "7.3"))
		return POLICY_KERNEL_73;
	if (!strncmp(release, "6.1.", 4) || !strcmp(release, "6.1"))
		return POLICY_KERNEL_61;
	return POLICY_KERNEL_COUNT;
}

static bool same_answer(const struct expectation *a, const struct expectation *b)
{
	return a->outcome == b->outcome &&
	       (a->outcome != OUTCOME_REFUSED || a->err == b->err);
}

/* The probed backings, sanity's first. */
static const enum cell_backing probe_backings[] = {
	BACKING_ANON, BACKING_EXT4_SHARED, BACKING_EXT4_PRIVATE,
};
#define NR_PROBE_BACKINGS	(sizeof(probe_backings) / sizeof(probe_backings[0]))

/* The path of a cell: FOLL_PIN?, fast?, fast finding a writable PTE? */
static unsigned int path_of(const struct cell *c)
{
	bool fast = method_is_fast(c->method);

	return (method_is_pin(c->method) ? 4 : 0) | (fast ? 2 : 0) |
	       (fast && c->state == STATE_WRITE ? 1 : 0);
}
#define NR_PATHS	8

static const char *const path_names[NR_PATHS] = {
	[0] = "FOLL_GET, slow path", [1] = "FOLL_GET, slow path",
	[2] = "FOLL_GET, GUP-fast falling back",
	[3] = "FOLL_GET, GUP-fast on a writable PTE",
	[4] = "FOLL_PIN, slow path", [5] = "FOLL_PIN, slow path",
	[6] = "FOLL_PIN, GUP-fast falling back",
	[7] = "FOLL_PIN, GUP-fast on a writable PTE",
};

struct candidate {
	unsigned int cell;
	struct expectation e[PROBE_MAX_MODELS];
	unsigned int nr_reports;
};

/* Is cell @n one to consider?  Fills @c's expectations. */
static bool consider(const struct probe_plan *p, unsigned int n, struct candidate *c)
{
	struct cell cell;
	unsigned int m, b;

	matrix_cell(n, &cell);
	for (b = 0; b < NR_PROBE_BACKINGS && probe_backings[b] != cell.backing; b++)
		;
	if (b == NR_PROBE_BACKINGS)
		return false;
	c->cell = n;
	c->nr_reports = 0;
	for (m = 0; m < p->nr_models; m++) {
		c->e[m] = p->models[m].fn(&cell);
		if (c->e[m].outcome == OUTCOME_NOT_APPLICABLE || c->e[m].flags_only)
			return false;
		c->nr_reports += !!c->e[m].report.kind;
	}
	return true;
}

static int reference_of(const struct probe_plan *p, policy_fn ref)
{
	unsigned int m;

	for (m = 0; m < p->nr_models; m++)
		if (p->models[m].fn == ref)
			return m;
	return -1;
}

/* Requirement ids: pairs first, then model x path. */
#define REQ_PAIR(a, b)	((a) * PROBE_MAX_MODELS + (b))
#define REQ_PATH(m, q)	(PROBE_MAX_MODELS * PROBE_MAX_MODELS + (m) * NR_PATHS + (q))
#define NR_REQS		(PROBE_MAX_MODELS * PROBE_MAX_MODELS + PROBE_MAX_MODELS * NR_PATHS)

/* The requirements cell @c meets, as flags in @meets[NR_REQS]. */
static void requirements(const struct probe_plan *p, int ref,
			 const struct candidate *c, bool *meets)
{
	unsigned int a, b;
	struct cell cell;

	memset(meets, 0, NR_REQS * sizeof(*meets));
	matrix_cell(c->cell, &cell);
	for (a = 0; a < p->nr_models; a++)
		for (b = a + 1; b < p->nr_models; b++)
			meets[REQ_PAIR(a, b)] = !same_answer(&c->e[a], &c->e[b]);
	for (a = 0; a < p->nr_models; a++)
		if (p->models[a].named && (int)a != ref &&
		    !same_answer(&c->e[a], &c->e[ref]))
			meets[REQ_PATH(a, path_of(&cell))] = true;
}

/* @p->probes' why for cell @c: the first models it separates, and the path. */
static void say_why(const struct probe_plan *p, const struct candidate *c,
		    struct probe *pr)
{
	unsigned int a, b, n = 0;
	struct cell cell;
	size_t len;

	matrix_cell(c->cell, &cell);
	len = snprintf(pr->why, sizeof(pr->why), "%s; tells apart", path_names[path_of(&cell)]);
	for (a = 0; a < p->nr_models; a++)
		for (b = a + 1; b < p->nr_models; b++) {
			if (same_answer(&c->e[a], &c->e[b]) || len >= sizeof(pr->why))
				continue;
			len += snprintf(pr->why + len, sizeof(pr->why) - len, "%s %s/%s",
					n++ ? "," : "", p->models[a].name, p->models[b].name);
		}
}

int probe_plan_models(enum policy_kernel k, const struct probe_model *models,
		      unsigned int n, struct probe_plan *p)
{
	static struct candidate cands[MATRIX_NR_CELLS];
	static bool meets[MATRIX_NR_CELLS][NR_REQS];
	bool need[NR_REQS] = { false }, taken[MATRIX_NR_CELLS] = { false };
	unsigned int nr_cands = 0, i, j, r, best, gain, best_gain;
	policy_fn ref_fn = policy_reference(k);
	int ref;

	memset(p, 0, sizeof(*p));
	p->kernel = k;
	if (!ref_fn || !n || n > PROBE_MAX_MODELS)
		return -EINVAL;
	memcpy(p->models, models, n * sizeof(*models));
	p->nr_models = n;
	ref = reference_of(p, ref_fn);
	if (ref < 0)
		return -EINVAL;

	for (i = 0; i < MATRIX_NR_CELLS; i++) {
		if (!consider(p, i, &cands[nr_cands]))
			continue;
		requirements(p, ref, &cands[nr_cands], meets[nr_cands]);
		for (r = 0; r < NR_REQS; r++)
			need[r] |= meets[nr_cands][r];
		nr_cands++;
	}

	/* Sanity: for each pin path, anon WRITE|LONGTERM write-faulted, if all agree. */
	for (i = 0; i < nr_cands; i++) {
		struct cell c;

		matrix_cell(cands[i].cell, &c);
		if (c.backing != BACKING_ANON || c.state != STATE_WRITE ||
		    c.flags != (GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_LONGTERM) ||
		    (c.method != GUP_PIN_METHOD_PIN && c.method != GUP_PIN_METHOD_PIN_FAST))
			continue;
		for (j = 1; j < n && same_answer(&cands[i].e[0], &cands[i].e[j]); j++)
			;
		if (j < n || p->nr >= PROBE_MAX)
			continue;
		p->probes[p->nr].cell = cands[i].cell;
		p->probes[p->nr].sanity = true;
		p->probes[p->nr].report = cands[i].nr_reports;
		snprintf(p->probes[p->nr].why, sizeof(p->probes[p->nr].why),
			 "sanity: every model answers %s (anonymous memory, no file policy applies)",
			 cands[i].e[0].outcome == OUTCOME_PINNED ? "pinned" :
			 errno_name(cands[i].e[0].err));
		p->nr++;
		taken[i] = true;
	}

	/* Greedy cover. */
	for (;;) {
		best = nr_cands;
		best_gain = 0;
		for (i = 0; i < nr_cands; i++) {
			if (taken[i])
				continue;
			for (gain = 0, r = 0; r < NR_REQS; r++)
				gain += need[r] && meets[i][r];
			if (gain > best_gain || (gain && gain == best_gain &&
			    cands[i].nr_reports < cands[best].nr_reports)) {
				best = i;
				best_gain = gain;
			}
		}
		if (best == nr_cands)
			break;
		if (p->nr >= PROBE_MAX)
			return -E2BIG;
		taken[best] = true;
		for (r = 0; r < NR_REQS; r++)
			need[r] &= !meets[best][r];
		p->probes[p->nr].cell = cands[best].cell;
		p->probes[p->nr].report = cands[best].nr_reports;
		say_why(p, &cands[best], &p->probes[p->nr]);
		p->nr++;
	}
	return 0;
}

/* Does @fn answer every considered cell as one of @models[0..n-1] does? */
static bool same_model(const struct probe_model *models, size_t n, policy_fn fn)
{
	struct expectation a, b;
	struct cell c;
	unsigned int i, b_i;
	size_t m;

	for (m = 0; m < n; m++) {
		for (i = 0; i < MATRIX_NR_CELLS; i++) {
			matrix_cell(i, &c);
			for (b_i = 0; b_i < NR_PROBE_BACKINGS && probe_backings[b_i] != c.backing; b_i++)
				;
			if (b_i == NR_PROBE_BACKINGS)
				continue;
			a = models[m].fn(&c);
			b = fn(&c);
			if (a.flags_only || b.flags_only ||
			    a.outcome == OUTCOME_NOT_APPLICABLE ||
			    b.outcome == OUTCOME_NOT_APPLICABLE)
				continue;
			if (!same_answer(&a, &b))
				break;
		}
		if (i == MATRIX_NR_CELLS)
			return true;
	}
	return false;
}

int probe_plan(enum policy_kernel k, struct probe_plan *p)
{
	static char like[PROBE_MAX_MODELS][24];
	struct probe_model models[PROBE_MAX_MODELS];
	const char *names[PROBE_MAX_MODELS], *other[PROBE_MAX_MODELS];
	policy_fn ref = policy_reference(k), fn;
	size_t i, n, nr_other;
	bool have_ref = false;

	if (!ref)
		return -EINVAL;
	n = policy_family(k, names, PROBE_MAX_MODELS - 1);
	for (i = 0; i < n; i++) {
		models[i] = (struct probe_model){ names[i], policy_lookup(names[i]), true };
		have_ref |= models[i].fn == ref;
	}
	if (!have_ref)
		models[n++] = (struct probe_model){ PROBE_REFERENCE, ref, false };
	/*
	 * The other release's policies as hypotheses: a tree of this release
	 * whose writable_file_mapping_allowed() was changed may answer as
	 * seed 005 or v7 do.  Each one whose answers on the probed cells are
	 * not already a model's is one more model to tell apart, never a
	 * verdict (its code is another release's).
	 */
	nr_other = policy_family(k == POLICY_KERNEL_61 ? POLICY_KERNEL_612 : POLICY_KERNEL_61,
				 other, PROBE_MAX_MODELS);
	for (i = 0; i < nr_other && n < PROBE_MAX_MODELS; i++) {
		fn = policy_lookup(other[i]);
		if (same_model(models, n, fn))
			continue;
		snprintf(like[n], sizeof(like[n]), "%s-like", other[i]);
		models[n] = (struct probe_model){ like[n], fn, false };
		n++;
	}
	return probe_plan_models(k, models, n, p);
}

struct expectation probe_expect(const struct probe_plan *p, unsigned int model,
				unsigned int i)
{
	struct cell c;

	matrix_cell(p->probes[i].cell, &c);
	return p->models[model].fn(&c);
}

bool probe_matches(const struct expectation *e, const struct probe_measure *m)
{
	switch (e->outcome) {
	case OUTCOME_PINNED:
		return m->outcome == MATRIX_PINNED;
	case OUTCOME_REFUSED:
		return m->outcome == MATRIX_REFUSED && m->err == e->err;
	default:
		return m->outcome == MATRIX_NOT_RUN;
	}
}

const char *probe_expect_str(const struct expectation *e, char *buf, size_t size)
{
	switch (e->outcome) {
	case OUTCOME_PINNED:
		snprintf(buf, size, "pinned");
		break;
	case OUTCOME_REFUSED:
		snprintf(buf, size, "%s%s%s", errno_name(e->err),
			 e->by_driver ? " by the driver" : "",
			 e->report.kind ? " + WARNING" : "");
		break;
	default:
		snprintf(buf, size, "not-run");
	}
	return buf;
}

const char *probe_measure_str(const struct probe_measure *m, char *buf, size_t size)
{
	if (m->outcome == MATRIX_REFUSED)
		snprintf(buf, size, "%s", errno_name(m->err));
	else
		snprintf(buf, size, "%s", matrix_outcome_name(m->outcome));
	return buf;
}

void probe_simulate(const struct probe_plan *p, policy_fn fn,
		    struct probe_measure *m)
{
	struct expectation e;
	struct cell c;
	unsigned int i;

	for (i = 0; i < p->nr; i++) {
		matrix_cell(p->probes[i].cell, &c);
		e = fn(&c);
		m[i].err = e.outcome == OUTCOME_REFUSED ? e.err : 0;
		m[i].outcome = e.outcome == OUTCOME_PINNED ? MATRIX_PINNED :
			       e.outcome == OUTCOME_REFUSED ? MATRIX_REFUSED :
			       MATRIX_NOT_RUN;
	}
}

void probe_judge(const struct probe_plan *p, const char *candidate,
		 const struct probe_measure *m, struct probe_verdict *v)
{
	unsigned int mi, i;
	int cand = -1;

	memset(v, 0, sizeof(*v));
	for (mi = 0; mi < p->nr_models; mi++) {
		for (i = 0; i < p->nr; i++) {
			struct expectation e = probe_expect(p, mi, i);

			v->matched[mi] += probe_matches(&e, &m[i]);
		}
		if (candidate && p->models[mi].named &&
		    !strcmp(candidate, p->models[mi].name))
			cand = mi;
	}
	if (!p->nr)
		return;
	if (cand >= 0 && v->matched[cand] == p->nr) {
		v->policy = p->models[cand].name;
		v->candidate_confirmed = true;
		return;
	}
	for (mi = 0; mi < p->nr_models; mi++)
		if (p->models[mi].named && v->matched[mi] == p->nr) {
			v->policy = p->models[mi].name;
			return;
		}
}
