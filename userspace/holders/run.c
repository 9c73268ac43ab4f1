// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl holders run: one cell of the real-interface holders
 * (docs/filesystems-guide.md, section 7).  No test driver: a page of a
 * MAP_SHARED file is held by one of the kernel's own short-term GUP users,
 * a file-system event runs while it is held, the holder completes and
 * releases the page dirty, the file is synced, and every view of the page
 * is recorded.  The host then reads the file from the image (jobs/holders.sh).
 *
 * The cell's system calls are lib/holders_steps.c's, which `gupctl export`
 * copies into a reproducer: "held" is proven there, never slept on
 * (struct holders_hold).  Here the facts are gathered around them: the
 * page's flags at each step, every read of it, every error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "holders/judge.h"
#include "holders/report.h"
#include "holders/run.h"
#include "lib/jsonfile.h"
#include "lib/options.h"
#include "lib/pageflags.h"
#include "lib/util.h"
#include "model/holders.h"
#include "model/measured.h"

#define PS		HOLDERS_PAGE_SIZE

struct cell_run {
	struct holders_cell c;
	const char *dir, *slow_dev, *json;
	struct holders_files f;
	struct holders_hold h;
	/* what was seen */
	bool held;
	uint64_t pfn;
	json_t *facts;
};

static void fact(struct cell_run *r, const char *key, json_t *v)
{
	json_object_set_new(r->facts, key, v);
}

static json_t *errno_json(int err)
{
	return err ? json_string(strerrorname_np(-err) ? strerrorname_np(-err) : "?") :
		     json_null();
}

/* ---- the cell ---- */

static void page_fact(struct cell_run *r, const char *key)
{
	struct page_state s = { .present = true, .pfn = r->pfn };
	char buf[64];

	if (!r->pfn || kpageflags_of(r->pfn, &s.flags)) {
		fact(r, key, json_string("unknown"));
		return;
	}
	fact(r, key, json_string(page_state_str(&s, buf, sizeof(buf))));
}

/* What @path's page holds, read through the cache or with O_DIRECT. */
static json_t *read_class(const char *path, bool direct)
{
	int c = holders_read_class(path, direct);

	return json_string(c < 0 ? "unreadable" : holders_data_names[c]);
}

/*
 * io_uring's completion comes before the block layer re-dirties a page
 * cleaned meanwhile (bio_check_pages_dirty() defers it to a work item:
 * block/bio.c bio_dirty_fn()): wait for the dirty bit, at most 2 s, and
 * say how long it took.
 */
static void wait_redirty(struct cell_run *r)
{
	double t0 = now_seconds();
	uint64_t flags = 0;

	while (r->pfn && now_seconds() - t0 < 2) {
		if (!kpageflags_of(r->pfn, &flags) && flags >> PAGEFLAG_DIRTY & 1)
			break;
		usleep(5000);
	}
	fact(r, "redirty_wait_ms", json_integer((now_seconds() - t0) * 1000));
}

static int cell_setup(struct cell_run *r)
{
	int ret = holders_bind_cpu0() ?: holders_files_setup(&r->f, r->dir, r->c.event);

	if (ret)
		return ret;
	r->h.kind = r->c.holder;
	r->h.dst = r->f.map + HOLDERS_PAGE * PS;
	r->h.slow_dev = r->slow_dev;
	return holders_hold_setup(&r->h);
}

static int cell_run(struct cell_run *r)
{
	struct page_state s;
	long long moved;
	int ret, err;

	ret = cell_setup(r);
	if (ret) {
		fact(r, "setup_error", errno_json(ret));
		return ret;
	}
	ret = holders_hold_start(&r->h);
	if (ret)
		return ret;
	ret = holders_hold_wait(&r->h);
	r->held = !ret;
	fact(r, "held", json_boolean(r->held));
	if (ret == -ETIMEDOUT)
		fact(r, "held_error", json_string("the pin was not seen held within 10 s"));
	if (r->held && !page_state_of(r->f.map + HOLDERS_PAGE * PS, &s) && s.present)
		r->pfn = s.pfn;
	page_fact(r, "page_held");

	err = holders_event(r->c.event, &r->f, &moved);
	if (r->c.event == HOLDERS_EV_MOVE_EXT_DONOR || r->c.event == HOLDERS_EV_MOVE_EXT_ORIG)
		fact(r, "moved_blocks", json_integer(moved));
	fact(r, "event_error", errno_json(err));
	page_fact(r, "page_after_event");

	err = r->held ? holders_hold_release(&r->h) : 0;
	fact(r, "release_error", errno_json(err));
	holders_hold_join(&r->h);
	fact(r, "holder_result", json_integer(r->h.result));
	fact(r, "holder_error", errno_json(r->h.result < 0 ? r->h.result : 0));
	if (r->c.holder == HOLDERS_URING && r->held)
		wait_redirty(r);
	page_fact(r, "page_released");

	err = fsync(r->f.fd) ? -errno : 0;
	fact(r, "fsync_error", errno_json(err));
	fact(r, "guest_cached", read_class(r->f.path, false));
	fact(r, "guest_direct", read_class(r->f.path, true));
	munmap(r->f.map, HOLDERS_FILE_SIZE);
	r->f.map = NULL;
	holders_drop_caches();
	fact(r, "guest_after_drop", read_class(r->f.path, false));
	if (r->c.event == HOLDERS_EV_FICLONE)
		fact(r, "clone_direct", read_class(r->f.clone, true));
	return 0;
}

static int holders_run(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl holders run --fs FS --holder H --event E --dir DIR [--slow DEV] [--json FILE]",
		"",
		"One real-interface cell in DIR (on the file system under test): no test driver.",
		NULL
	};
	struct cell_run r = { .f.fd = -1, .h.uffd = -1 };
	unsigned int fs = 0, holder = 0, event = 0;
	const struct gopt opts[] = {
		GOPT_CHOICE(0, "fs", &fs, "FS", holders_fs_choices, "the file system DIR is on"),
		GOPT_CHOICE(0, "holder", &holder, "H", holders_holder_choices,
			    "who holds the page"),
		GOPT_CHOICE(0, "event", &event, "E", holders_event_choices,
			    "what the file system does meanwhile"),
		GOPT_STRING(0, "dir", &r.dir, "DIR", "the cell's directory (made)"),
		GOPT_STRING(0, "slow", &r.slow_dev, "DEV",
			    "the raw disk dm-delay goes over (odirect, uring)"),
		GOPT_STRING(0, "json", &r.json, "FILE", "the cell's facts as JSON"),
		GOPT_END()
	};
	char name[64];
	FILE *f;
	int ret, argi;

	ret = gopt_parse("holders run", argc, argv, opts, usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	r.c = (struct holders_cell){ fs, holder, event };
	if (argi != argc)
		return usage_error("holders run", "unexpected operand '%s'", argv[argi]);
	if (!r.dir)
		return usage_error("holders run", "--dir is required");
	if (!holders_cell_valid(&r.c))
		return usage_error("holders run", "--event %s is not an event of %s",
				   holders_event_choices[event], holders_fs_choices[fs]);
	if (holder != HOLDERS_PVW && !r.slow_dev)
		return usage_error("holders run", "--holder %s needs --slow DEV",
				   holders_holder_choices[holder]);
	holders_cell_name(&r.c, name, sizeof(name));
	r.facts = json_pack("{s:s, s:s, s:s, s:s}", "cell", name, "fs", holders_fs_choices[fs],
			    "holder", holders_holder_choices[holder],
			    "event", holders_event_choices[event]);
	ret = cell_run(&r);
	if (holders_hold_cleanup(&r.h))
		fact(&r, "dm_remove_error", json_string("busy"));
	printf("holders %s: %s\n", name, ret ? "setup failed" : "ran");
	if (r.json) {
		f = jsonfile_open(r.json, "holders run");
		if (!f || jsonfile_dump(r.facts, f, r.json, "holders run"))
			ret = ret ?: -EIO;
	} else {
		json_dumpf(r.facts, stdout, JSON_INDENT(2));
		putchar('\n');
	}
	json_decref(r.facts);
	return ret ? GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK;
}

/* ---- the cells and their expectations (host and guest) ---- */

static const char * const source_choices[] = { "6.1", "6.12", "7.3", NULL };
static const char * const ext4_choices[] = { "warn", "bug", NULL };

struct kernel_opts {
	const char *policy;
	unsigned int source, ext4;
	bool quick;
};

json_t *holders_expectation_json(const struct holders_expectation *e)
{
	return json_pack("{s:b, s:b, s:b, s:b, s:s, s:s, s:s, s:s}", "run", e->run,
			 "refused", e->refused, "event_fails", e->event_fails,
			 "fsync_fails", e->fsync_fails, "disk", holders_data_names[e->disk],
			 "clone", holders_data_names[e->clone],
			 "report", holders_report_names[e->report], "reason", e->reason);
}

/* A cell and its kernel's columns, for runs_not_under(). */
struct none_ctx {
	const struct holders_cell *c;
	struct holders_kernel k;
	char why[2200];		/* the policy's reason (2048) and its name */
};

/* Does @policy, on the cell's kernel, expect it not run?  Its reason kept. */
static bool runs_not_under(const char *policy, void *ctx)
{
	struct none_ctx *n = ctx;
	struct holders_kernel k = n->k;
	struct holders_expectation e;

	k.policy = policy;
	if (holders_expect(&k, n->c, &e) || e.run)
		return false;
	snprintf(n->why, sizeof(n->why), "policy %s expects it not run: %s", policy, e.reason);
	return true;
}

/*
 * Policy none's cell (model/measured.h): nothing expected ("expect":
 * null), measured all the same; not run (top-level "run": false, the
 * reason says why) where any policy of the kernel's source, with its ext4
 * column, expects the cell not run: the one reason is a BUG that would
 * panic the guest's one boot and take every later cell with it.
 */
static json_t *holders_none_json(const struct holders_kernel *k, const struct holders_cell *c)
{
	struct none_ctx n = { .c = c, .k = *k };
	bool skip = measured_any_policy(k->kernel, runs_not_under, &n);

	return json_pack("{s:n, s:b, s:b, s:s}", "expect", "measured_only", 1, "run", !skip,
			 "reason", skip ? n.why : MEASURED_ONLY);
}

static int holders_cells(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl holders cells --policy P --source V [--ext4 warn|bug] [--quick]",
		"",
		"Every cell with its expected outcome on that kernel, as a JSON array.",
		NULL
	};
	struct kernel_opts o = { 0 };
	const struct gopt opts[] = {
		GOPT_STRING(0, "policy", &o.policy, "P",
			    "the flavour's gup column, or none: measured, no policy to compare"),
		GOPT_CHOICE(0, "source", &o.source, "V", source_choices,
			    "the flavour's source column"),
		GOPT_CHOICE(0, "ext4", &o.ext4, "B", ext4_choices, "the flavour's ext4 column"),
		GOPT_BOOL(0, "quick", &o.quick, "make check's subset: one cell per file system"),
		GOPT_END()
	};
	struct holders_kernel k;
	struct holders_expectation e;
	struct holders_cell c;
	json_t *cells = json_array(), *cell;
	char name[64];
	int ret, argi;

	ret = gopt_parse("holders cells", argc, argv, opts, usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (!o.policy)
		return usage_error("holders cells", "--policy is required");
	if (!measured_policy_ok(o.policy))
		return usage_error("holders cells", "unknown policy '%s': give one of: %s, or %s",
				   o.policy, policy_names(), POLICY_NONE);
	k = (struct holders_kernel){ o.policy, o.ext4 == 1,
				     policy_kernel_of_source(source_choices[o.source]) };
	for (c.fs = 0; c.fs < HOLDERS_FS_COUNT; c.fs++)
		for (c.holder = 0; c.holder < HOLDERS_HOLDER_COUNT; c.holder++)
			for (c.event = 0; c.event < HOLDERS_EV_COUNT; c.event++) {
				if (!holders_cell_valid(&c) || (o.quick && !holders_cell_quick(&c)))
					continue;
				holders_cell_name(&c, name, sizeof(name));
				if (policy_is_none(o.policy)) {
					cell = json_pack("{s:s, s:s, s:s, s:s}", "name", name,
							 "fs", holders_fs_choices[c.fs],
							 "holder", holders_holder_choices[c.holder],
							 "event", holders_event_choices[c.event]);
					json_object_update_new(cell, holders_none_json(&k, &c));
					json_array_append_new(cells, cell);
					continue;
				}
				if (holders_expect(&k, &c, &e)) {
					json_decref(cells);
					return usage_error("holders cells", "unknown policy '%s'",
							   o.policy);
				}
				cell = json_pack("{s:s, s:s, s:s, s:s, s:o}", "name", name,
						 "fs", holders_fs_choices[c.fs],
						 "holder", holders_holder_choices[c.holder],
						 "event", holders_event_choices[c.event],
						 "expect", holders_expectation_json(&e));
				json_array_append_new(cells, cell);
			}
	json_dumpf(cells, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(cells);
	return GUPCTL_EXIT_OK;
}

static const struct gopt_cmd holders_subcommands[] = {
	GOPT_CMD("run", holders_run, "run one cell in the guest (no test driver)"),
	GOPT_CMD("cells", holders_cells, "every cell with its expectation, as JSON"),
	GOPT_CMD_HOST("judge", holders_judge, "judge a cell from the guest's facts and the host's read"),
	GOPT_CMD_HOST("collect", holders_collect, "a flavour's judged cells in one document, KTAP"),
	GOPT_CMD_HOST("report", holders_report, "docs/filesystems.md from results"),
	GOPT_CMD_END()
};

int cmd_holders(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl holders SUBCOMMAND [OPTIONS]",
		"",
		"Pages held by the kernel's own GUP users across file-system events "
		"(docs/filesystems-guide.md).",
		NULL
	};

	return gopt_cmd_main("holders", holders_subcommands, usage, argc, argv);
}
