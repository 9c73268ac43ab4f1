// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl holders run: one cell of the real-interface holders
 * (docs/filesystems-guide.md, section 7).  No test driver: a page of a
 * MAP_SHARED file is held by one of the kernel's own short-term GUP users,
 * a file-system event runs while it is held, the holder completes and
 * releases the page dirty, the file is synced, and every view of the page
 * is recorded.  The host then reads the file from the image (jobs/holders.sh).
 *
 * "Held" is proven, never slept on: the O_DIRECT and io_uring reads are
 * held by a dm-delay device until the cell suspends it (dm-delay's status
 * counts the reads it holds; its presuspend flushes them:
 * drivers/md/dm-delay.c delay_status(), delay_presuspend()); the
 * process_vm_writev() waits in a userfaultfd fault on its source after it
 * pinned the target page (mm/process_vm_access.c pins, then copies), and
 * the fault message is the proof.  The cell's threads are bound to CPU 0,
 * so that MADV_PAGEOUT's lru_add_drain() drains the batch the page is in.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include <liburing.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "holders/judge.h"
#include "holders/report.h"
#include "holders/run.h"
#include "lib/dm.h"
#include "lib/jsonfile.h"
#include "lib/options.h"
#include "lib/pageflags.h"
#include "lib/util.h"
#include "model/holders.h"
#include "model/measured.h"

#define PS		HOLDERS_PAGE_SIZE
#define SLOW_NAME	"gl-slow"
#define SLOW_NODE	"/dev/gl-slow"
/* dm-delay's backstop: a read is released after this even if the cell fails */
#define SLOW_DELAY_MS	20000
#define HELD_TIMEOUT_MS	10000

struct cell_run {
	struct holders_cell c;
	const char *dir, *slow_dev, *json;
	struct holders_files f;
	/* the holder */
	pthread_t thread;
	bool done;		/* set by the holder's thread: __atomic_* */
	long result;		/* bytes, or -errno */
	int uffd;
	char *src;		/* pvw: the userfaultfd-registered source */
	bool dm_made;
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

/* ---- the holders ---- */

static void *odirect_thread(void *arg)
{
	struct cell_run *r = arg;
	int fd = open(SLOW_NODE, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd < 0) {
		r->result = -errno;
	} else {
		r->result = read(fd, r->f.map + HOLDERS_PAGE * PS, PS);
		if (r->result < 0)
			r->result = -errno;
		close(fd);
	}
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void *uring_thread(void *arg)
{
	struct cell_run *r = arg;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	int fd, ret;

	fd = open(SLOW_NODE, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		r->result = -errno;
		goto out;
	}
	ret = io_uring_queue_init(2, &ring, 0);
	if (ret) {
		r->result = ret;
		close(fd);
		goto out;
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, r->f.map + HOLDERS_PAGE * PS, PS, 0);
	ret = io_uring_submit(&ring);
	if (ret == 1)
		ret = io_uring_wait_cqe(&ring, &cqe);
	else if (ret >= 0)
		ret = -EIO;
	r->result = ret ? ret : cqe->res;
	io_uring_queue_exit(&ring);
	close(fd);
out:
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void *pvw_thread(void *arg)
{
	struct cell_run *r = arg;

	r->result = holders_pvw(r->src, r->f.map + HOLDERS_PAGE * PS);
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* The slow device: NEW at its start, then dm-delay over it, reads held. */
static int slow_setup(struct cell_run *r)
{
	char params[256], *buf;
	unsigned long long sectors;
	int fd, ret = 0;

	if (!r->slow_dev)
		return -EINVAL;
	fd = open(r->slow_dev, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (posix_memalign((void **)&buf, PS, PS)) {
		close(fd);
		return -ENOMEM;
	}
	holders_fill(buf, PS, HOLDERS_DATA_NEW, HOLDERS_PAGE);
	if (pwrite(fd, buf, PS, 0) != PS || fsync(fd) ||
	    ioctl(fd, BLKGETSIZE64, &sectors))
		ret = -errno;
	free(buf);
	close(fd);
	if (ret)
		return ret;
	sectors >>= 9;
	/* reads held SLOW_DELAY_MS, writes not delayed */
	snprintf(params, sizeof(params), "%s 0 %d %s 0 0", r->slow_dev, SLOW_DELAY_MS,
		 r->slow_dev);
	dm_remove(SLOW_NAME);	/* a previous cell's, if it failed */
	ret = dm_create(SLOW_NAME, sectors, "delay", params, SLOW_NODE);
	r->dm_made = !ret;
	return ret;
}

/* Is the holder's pin held now?  dm-delay's count, or the uffd fault. */
static bool holder_held(struct cell_run *r)
{
	char status[128];
	unsigned int reads = 0;
	struct pollfd pfd;

	if (r->c.holder == HOLDERS_PVW) {
		pfd.fd = r->uffd;
		pfd.events = POLLIN;
		return poll(&pfd, 1, 0) == 1;
	}
	return !dm_status(SLOW_NAME, status, sizeof(status)) &&
	       sscanf(status, "%u", &reads) == 1 && reads > 0;
}

static int wait_held(struct cell_run *r)
{
	double t0 = now_seconds();

	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		if (holder_held(r))
			return 0;
		if ((now_seconds() - t0) * 1000 > HELD_TIMEOUT_MS)
			return -ETIMEDOUT;
		usleep(2000);
	}
	return -ENOENT;	/* the holder finished without being held */
}

/* Let the holder complete: release the held read, or answer the fault. */
static int holder_release(struct cell_run *r)
{
	int ret;

	if (r->c.holder != HOLDERS_PVW) {
		ret = dm_suspend(SLOW_NAME, 1);
		return ret ? ret : dm_suspend(SLOW_NAME, 0);
	}
	return holders_uffd_answer(r->uffd, r->src);
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
	return r->c.holder == HOLDERS_PVW ? holders_uffd_setup(&r->src, &r->uffd) : slow_setup(r);
}

static int cell_run(struct cell_run *r)
{
	void *(*thread[])(void *) = { odirect_thread, pvw_thread, uring_thread };
	struct page_state s;
	long long moved;
	int ret, err;

	ret = cell_setup(r);
	if (ret) {
		fact(r, "setup_error", errno_json(ret));
		return ret;
	}
	ret = pthread_create(&r->thread, NULL, thread[r->c.holder], r);
	if (ret)
		return -ret;
	ret = wait_held(r);
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

	err = r->held ? holder_release(r) : 0;
	fact(r, "release_error", errno_json(err));
	pthread_join(r->thread, NULL);
	fact(r, "holder_result", json_integer(r->result));
	fact(r, "holder_error", errno_json(r->result < 0 ? r->result : 0));
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
	struct cell_run r = { .f.fd = -1, .uffd = -1 };
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
	if (r.dm_made && dm_remove(SLOW_NAME))
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
