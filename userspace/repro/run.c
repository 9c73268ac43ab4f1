// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl repro ext4-2018: Jan Kara's 2018 ext4 crash, on 6.1.
 *
 * A file page read in by ext4_mpage_readpages() after a cache drop has no
 * buffer heads.  Pin it without FOLL_WRITE (so ext4_page_mkwrite(), which
 * would attach buffers, never runs), unmap it, write through the kernel's
 * mapping, release it dirty: ext4_dirty_folio() WARNs, and the fsync that
 * follows meets a dirty page without buffers in
 * mpage_prepare_extent_to_map().  6.1 as packaged (cc5095747edf) warns
 * "page N does not have buffers attached" and clears the dirty bit: the
 * write is lost; with cc5095747edf reverted, page_buffers() BUGs.
 *
 * --route move-ext takes the page with FOLL_WRITE instead (ext4_page_mkwrite
 * attaches buffers), writes it back, then has EXT4_IOC_MOVE_EXT swap the
 * file's blocks with another file's: move_extent_per_page() (7.3:
 * mext_move_extent()) calls filemap_release_folio() on the donor's page, which frees clean buffers
 * without looking at the page's references, pin or not.  The rest is the
 * same: no buffers, a dirty unpin, fsync.
 *
 * --route hole reads a page over a hole of a sparse file instead: ext4 and
 * xfs never attach any state to it.
 *
 * --fs xfs and --fs btrfs run the same routes on /mnt/xfs and /mnt/btrfs
 * (jobs/guest/disks.sh mounts them), with each file system's own second
 * route: --route swapext has XFS_IOC_SWAPEXT (xfs_fsr's) swap the file's
 * extents with a copy's, which truncates the held page out of the file;
 * --route writeback (btrfs) only fsyncs while the page is held, so that
 * the write lands in a clean page btrfs has finished with.  What each file
 * system then does with the page: docs/filesystems-guide.md, sections 2
 * and 8, and model/repro.c.
 *
 * Each step prints the page state through an observer: a second, plain
 * get_user_pages_fast() reference taken right after the route's pin, so the
 * page stays observable after the route's unpin and the munmap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>

#include "lib/fsioctl.h"
#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/kernel.h"
#include "lib/options.h"
#include "lib/target.h"
#include "lib/util.h"
#include "model/cell.h"
#include "model/detect.h"
#include "model/measured.h"
#include "repro/cells.h"
#include "repro/collect.h"
#include "repro/judge.h"
#include "repro/report.h"
#include "repro/run.h"

/* Each file system's statfs() f_type (<linux/magic.h>), by enum repro_fs. */
static const unsigned long repro_fs_magic[REPRO_FS_COUNT] = {
	[REPRO_FS_EXT4] = EXT4_SUPER_MAGIC,
	[REPRO_FS_XFS] = XFS_SUPER_MAGIC,
	[REPRO_FS_BTRFS] = BTRFS_SUPER_MAGIC,
};

struct repro_opts {
	struct repro_cell cell;
	struct repro_flavour fl;
	const char *dir;
	const char *json;		/* --json FILE, or NULL */
	bool expect_only;		/* --expect */
};

static const char * const repro_usage[] = {
	"gupctl repro ext4-2018 [--fs FS] [--route R] [--method M] [--longterm] [--write] [--policy P ...]",
	"gupctl repro cells [--quick] [--policy P --ext4 B [--source V]]",
	"gupctl repro judge|collect|slice|report [OPTIONS]    (host only; see their --help)",
	NULL
};

/*
 * An errno's name: lib's errno_name(), or glibc's for one it does not
 * know (btrfs 6.12's fsync fails with EUCLEAN).
 */
static const char *err_name(int err)
{
	const char *name = errno_name(err);

	if (strcmp(name, "E?"))
		return name;
	name = strerrorname_np(err < 0 ? -err : err);
	return name ? name : "E?";
}

static const char *flags_part(unsigned int flags)
{
	bool w = flags & GUP_PIN_FLAG_WRITE, l = flags & GUP_PIN_FLAG_LONGTERM;

	return w && l ? "longterm-write" : w ? "write" : l ? "longterm" : "none";
}

/* The expectation line, or why there is none; fills @e (outcome "" if none). */
static void print_expectation(const struct repro_opts *o, struct repro_expectation *e)
{
	memset(e, 0, sizeof(*e));
	if (!o->fl.policy) {
		printf("repro-expect: none (give --policy and --ext4: the flavour's columns)\n");
		return;
	}
	if (policy_is_none(o->fl.policy)) {
		printf("repro-expect: nothing because " MEASURED_ONLY " (policy %s)\n",
		       POLICY_NONE);
		fflush(stdout);
		return;
	}
	repro_expect(o->fl.policy, o->fl.ext4, o->fl.bug_site, &o->cell, e);
	printf("repro-expect: %s because %s\n", e->outcome, e->reason);
	fflush(stdout);
}

struct repro {
	struct gupdev dev;
	struct target t;
	const struct repro_opts *o;
	char path[4096];
	char other_path[4096];		/* move-ext's orig, swapext's copy */
	size_t ps;
	char *old_pat, *new_pat, *buf;
	__u32 pin_id, obs_id;
	int step;
	const char *policy;		/* the kernel's (policy_detect()), or NULL */
	char policy_why[256];		/* how it was decided */
	json_t *facts;			/* what --json FILE holds */
	bool json_failed;		/* said once */
};

/*
 * Rewrite --json FILE and sync its file system (the guest's /lab): a BUG in
 * the next step panics the guest, and the host reads the file from the
 * image without replaying the journal.  syncfs() leaves the scratch ext4,
 * and the dirty page under test, alone.
 */
static void facts_write(struct repro *r)
{
	FILE *f;
	int err = 0;

	if (!r->o->json || r->json_failed)
		return;
	f = fopen(r->o->json, "w");
	if (!f || json_dumpf(r->facts, f, JSON_INDENT(2)) || fputc('\n', f) == EOF ||
	    fflush(f) || fsync(fileno(f)) || syncfs(fileno(f)))
		err = errno ? errno : EIO;
	if (f && fclose(f) && !err)
		err = errno;
	if (err) {
		printf("  note: --json %s: %s (%s): the facts stop here\n", r->o->json,
		       errno_name(err), strerror(err));
		r->json_failed = true;
	}
}

/* Set fact @key (a new reference) and write the file. */
static void fact(struct repro *r, const char *key, json_t *value)
{
	json_object_set_new(r->facts, key, value);
	facts_write(r);
}

static void step(struct repro *r, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Print "repro-step N: ..." and record step N, @name, as the last one begun. */
static void step(struct repro *r, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("repro-step %d: ", ++r->step);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	fact(r, "last_step", json_pack("{s:i, s:s}", "number", r->step, "name", name));
}

/* One line of page state, read through pin @id (observer or route pin). */
static void show_state(struct repro *r, __u32 id, const char *via)
{
	struct gup_page_state st;
	__u32 count = 1;
	int ret = gupdev_state(&r->dev, id, 0, &st, &count);

	if (ret || count != 1) {
		printf("  state: unreadable through %s (pin %u): %s\n", via, id,
		       ret ? errno_name(ret) : "no entry");
	} else {
		printf("  state (%s): dirty=%d writeback=%d buffers=%d ", via,
		       !!(st.state & GUP_PAGE_DIRTY),
		       !!(st.state & GUP_PAGE_WRITEBACK),
		       !!(st.state & GUP_PAGE_HAS_BUFFERS));
		/* xfs' and btrfs' state is no buffer heads: PG_private, whoever's */
		if (r->o->cell.fs != REPRO_FS_EXT4)
			printf("private=%d ", !!(st.state & GUP_PAGE_PRIVATE));
		printf("maybe-dma-pinned=%d uptodate=%d ",
		       !!(st.state & GUP_PAGE_MAYBE_DMA_PINNED),
		       !!(st.state & GUP_PAGE_UPTODATE));
		printf("refcount=%d mapcount=%d index=%llu fs=%s\n", st.refcount, st.mapcount,
		       (unsigned long long)st.index,
		       st.fs_name[0] ? st.fs_name : "-");
	}
	fflush(stdout);
}

/* The page's state through pin @id; false if it cannot be read. */
static bool page_state(struct repro *r, __u32 id, struct gup_page_state *st)
{
	__u32 count = 1;

	return !gupdev_state(&r->dev, id, 0, st, &count) && count == 1;
}

static bool page_has_buffers_now(struct repro *r, __u32 id)
{
	struct gup_page_state st;

	return page_state(r, id, &st) && (st.state & GUP_PAGE_HAS_BUFFERS);
}

static int drop_caches(void)
{
	int fd, ret = 0;

	sync();
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "3\n", 2) != 2)
		ret = -errno;
	close(fd);
	return ret;
}

/* One page of the OLD pattern, or (@hole) a page-sized hole, fsynced. */
static int write_old_file(struct repro *r, const char *path, bool hole)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (hole) {
		if (ftruncate(fd, r->ps) < 0)
			ret = -errno;
	} else if (pwrite(fd, r->old_pat, r->ps, 0) != (ssize_t)r->ps) {
		ret = errno ? -errno : -EIO;
	}
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* pread (or O_DIRECT pread) the page: "new"/"old"/..., or "error:ERRNO". */
static const char *read_back(struct repro *r, bool direct, char *err, size_t size)
{
	int fd = open(r->path, O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
	ssize_t n;

	if (fd < 0) {
		snprintf(err, size, "error:%s", errno_name(errno));
		return err;
	}
	memset(r->buf, 0, r->ps);
	n = pread(fd, r->buf, r->ps, 0);
	if (n < 0)
		snprintf(err, size, "error:%s", errno_name(errno));
	close(fd);
	if (n < 0)
		return err;
	if ((size_t)n != r->ps) {
		snprintf(err, size, "short:%zd", n);
		return err;
	}
	return repro_classify(r->buf, r->ps);
}

/* The reads (NULL: not made), as a line for people and as facts. */
static void result(struct repro *r, const char *guest, const char *direct,
		   const char *evicted)
{
	printf("repro-result: pinned=%s guest-read=%s direct-read=%s evicted-read=%s file=%s\n",
	       json_string_value(json_object_get(r->facts, "pinned")), guest,
	       direct ? direct : "-", evicted ? evicted : "-", r->path);
	fflush(stdout);
	json_object_set_new(r->facts, "reads",
			    json_pack("{s:s, s:s?, s:s?}", "guest", guest,
				      "direct", direct, "evicted", evicted));
	fact(r, "finished", json_true());
}

/* A step other than the route's pin failed: say which, exit 1. */
static int step_failed(struct repro *r, const char *what, int err)
{
	printf("  FAILED: %s: %s (%s)\n", what, errno_name(err), strerror(-err));
	printf("repro-result: pinned=%s guest-read=none failed-step=%d file=%s\n",
	       r->pin_id ? "yes" : "none", r->step, r->path);
	fflush(stdout);
	fact(r, "failed", json_pack("{s:i, s:s, s:s}", "step", r->step, "what", what,
				    "errno", errno_name(err)));
	return GUPCTL_EXIT_REFUSED;
}

/*
 * ROUTE_MOVE_EXT, after the fsync: EXT4_IOC_MOVE_EXT, called on @ofd (the
 * orig), this file the donor, frees the clean page's buffers.
 */
static int move_ext(struct repro *r, int ofd)
{
	struct ext4_move_extent me = { 0 };
	struct statfs sfs;
	int ret;
	bool kept;

	if (fstatfs(r->t.fd, &sfs) < 0)
		return step_failed(r, "fstatfs", -errno);
	me.donor_fd = r->t.fd;
	me.len = r->ps / sfs.f_bsize;
	ret = ioctl(ofd, EXT4_IOC_MOVE_EXT, &me) < 0 ? -errno : 0;
	if (ret)
		return step_failed(r, "EXT4_IOC_MOVE_EXT", ret);
	printf("  moved %llu of %llu blocks\n", (unsigned long long)me.moved_len,
	       (unsigned long long)me.len);
	show_state(r, r->obs_id, "observer");
	kept = page_has_buffers_now(r, r->obs_id);
	if (kept)
		printf("  note: the page kept its buffers: this route's precondition is not met\n");
	else
		printf("  the pinned page lost its buffer heads: EXT4_IOC_MOVE_EXT's "
		       "filemap_release_folio() released them\n");
	fact(r, "move_ext", json_pack("{s:I, s:I, s:b}", "moved_blocks", (json_int_t)me.moved_len,
				      "blocks", (json_int_t)me.len, "buffers_released", !kept));
	return 0;
}

/*
 * ROUTE_SWAPEXT, after the fsync: xfs_fsr's call, this file the target,
 * @tfd (the copy) the temporary file: the whole file (sx_offset 0,
 * sx_length both sizes), the target's times as they are now (the pin's
 * write fault updated them; xfs_swap_extents() refuses times that changed:
 * EBUSY).
 */
static int swapext(struct repro *r, int tfd)
{
	struct xfs_swapext sx = { .sx_version = XFS_SX_VERSION };
	struct gup_page_state st;
	struct stat sb;
	bool left;

	if (fstat(r->t.fd, &sb) < 0)
		return step_failed(r, "fstat", -errno);
	sx.sx_fdtarget = r->t.fd;
	sx.sx_fdtmp = tfd;
	sx.sx_length = sb.st_size;
	sx.sx_stat.bs_ctime.tv_sec = sb.st_ctim.tv_sec;
	sx.sx_stat.bs_ctime.tv_nsec = sb.st_ctim.tv_nsec;
	sx.sx_stat.bs_mtime.tv_sec = sb.st_mtim.tv_sec;
	sx.sx_stat.bs_mtime.tv_nsec = sb.st_mtim.tv_nsec;
	if (ioctl(r->t.fd, XFS_IOC_SWAPEXT, &sx) < 0)
		return step_failed(r, "XFS_IOC_SWAPEXT", -errno);
	show_state(r, r->obs_id, "observer");
	/* a page truncated out of its file has no mapping: the driver says "-" */
	left = page_state(r, r->obs_id, &st) && st.kind != GUP_PAGE_FILE;
	if (left)
		printf("  the held page left the file: %s truncated the page cache\n",
		       "xfs_swap_extent_flush()");
	else
		printf("  note: the held page is still the file's: this route's precondition is not met\n");
	fact(r, "swapext", json_pack("{s:b}", "page_left_file", left));
	return 0;
}

/*
 * The second routes' event between the munmap and the write: each first
 * writes the held page back (fsync: clean, write-protected, still held);
 * ROUTE_WRITEBACK (btrfs) stops there, so that the write dirties a page
 * btrfs wrote and finished with (not Ordered, no delalloc); move-ext and
 * swapext then call their file system's extent swap with the other file.
 */
static int route_event(struct repro *r)
{
	static const char * const cleaned[REPRO_FS_COUNT] = {
		[REPRO_FS_EXT4] = "clean, clean buffers",
		[REPRO_FS_XFS] = "clean, its blocks allocated",
		[REPRO_FS_BTRFS] = "clean, its ordered extent finished",
	};
	enum repro_route route = r->o->cell.route;
	bool ext4 = route == REPRO_ROUTE_MOVE_EXT;
	struct gup_page_state st;
	int ret, ofd;
	bool clean;

	if (route != REPRO_ROUTE_MOVE_EXT && route != REPRO_ROUTE_SWAPEXT &&
	    route != REPRO_ROUTE_WRITEBACK)
		return 0;
	step(r, "fsync-clean", "fsync: the pinned page is written back (%s)",
	     cleaned[r->o->cell.fs]);
	if (fsync(r->t.fd) < 0)
		return step_failed(r, "fsync", -errno);
	show_state(r, r->obs_id, "observer");
	if (route == REPRO_ROUTE_WRITEBACK) {
		clean = page_state(r, r->obs_id, &st) && !(st.state & GUP_PAGE_DIRTY);
		if (!clean)
			printf("  note: the page is still dirty: this route's precondition is not met\n");
		fact(r, "writeback", json_pack("{s:b}", "clean", clean));
		return 0;
	}
	step(r, repro_route_choices[route], "%s: swap the %s with %s's (%s)",
	     ext4 ? "EXT4_IOC_MOVE_EXT" : "XFS_IOC_SWAPEXT",
	     ext4 ? "page's blocks" : "file's extents", r->other_path,
	     ext4 ? "donor: this file" : "xfs_fsr's call, this file the target");
	ofd = open(r->other_path, O_RDWR | O_CLOEXEC);
	if (ofd < 0)
		return step_failed(r, ext4 ? "opening the orig file" : "opening the copy", -errno);
	ret = ext4 ? move_ext(r, ofd) : swapext(r, ofd);
	close(ofd);
	return ret;
}

/* Step 1: the file (a hole on the hole route) and the second route's other file. */
static int write_files(struct repro *r)
{
	enum repro_route route = r->o->cell.route;
	int ret;

	if (route == REPRO_ROUTE_HOLE)
		step(r, "write-old", "create %s: a one-page hole (ftruncate), fsync, close",
		     r->path);
	else
		step(r, "write-old", "write %s: one page of the OLD pattern, fsync, close",
		     r->path);
	ret = write_old_file(r, r->path, route == REPRO_ROUTE_HOLE);
	if (ret)
		return step_failed(r, "writing the file", ret);
	if (route != REPRO_ROUTE_MOVE_EXT && route != REPRO_ROUTE_SWAPEXT)
		return 0;
	printf("  and %s, the same OLD pattern (%s)\n", r->other_path,
	       route == REPRO_ROUTE_MOVE_EXT ? "EXT4_IOC_MOVE_EXT's orig file" :
	       "XFS_IOC_SWAPEXT's temporary file: xfs_fsr's copy");
	ret = write_old_file(r, r->other_path, false);
	return ret ? step_failed(r, "writing the other file", ret) : 0;
}

/* What the page's state right after the pin says about the route. */
static void after_pin(struct repro *r)
{
	const struct repro_opts *o = r->o;
	struct gup_page_state st;
	bool buffers = page_has_buffers_now(r, r->pin_id);
	bool priv = page_state(r, r->pin_id, &st) && (st.state & GUP_PAGE_PRIVATE);

	json_object_set_new(r->facts, "buffers_after_pin", json_boolean(buffers));
	json_object_set_new(r->facts, "private_after_pin", json_boolean(priv));
	fact(r, "pinned", json_string("yes"));
	if (o->cell.fs != REPRO_FS_EXT4)
		printf("  page private state: %s (%s)\n", priv ? "yes" : "none",
		       o->cell.fs == REPRO_FS_XFS ?
		       "xfs keeps none with one block per folio" :
		       "btrfs' extent-mapped private, whatever the page's history");
	else if (!buffers)
		printf("  the page has no buffer heads: ext4 was never told it may be written\n");
	else if (o->cell.flags & GUP_PIN_FLAG_WRITE)
		printf("  buffer heads attached: the write fault ran ext4_page_mkwrite\n");
	else
		printf("  note: buffer heads attached although no write fault ran: %s\n",
		       "this route's precondition is not met");
}

static int run_sequence(struct repro *r)
{
	const struct repro_opts *o = r->o;
	struct target_spec spec = {
		.kind = TARGET_FILE,
		.path = r->path,
		.length = r->ps,
		.prefault = TARGET_PREFAULT_NONE,
	};
	struct gup_pin_req req;
	char flags[64], desc[256], e1[32], e2[32], e3[32];
	const char *guest, *direct, *evicted, *fs = repro_fs_choices[o->cell.fs];
	char fsynced[64];
	int ret;

	ret = write_files(r);
	if (ret)
		return ret;

	step(r, "drop-caches", "sync, echo 3 >/proc/sys/vm/drop_caches: the page leaves the cache");
	ret = drop_caches();
	if (ret)
		return step_failed(r, "drop_caches (run as root)", ret);

	step(r, "mmap", "open, mmap one page MAP_SHARED PROT_READ|PROT_WRITE, nothing touched");
	if (target_setup(&r->t, &spec)) {
		printf("  FAILED: %s\n", r->t.err);
		fact(r, "failed", json_pack("{s:i, s:s, s:n}", "step", r->step,
					    "what", r->t.err, "errno"));
		return GUPCTL_EXIT_REFUSED;
	}
	printf("  target: %s at %p\n", target_describe(&r->t, desc, sizeof(desc)),
	       r->t.addr);

	step(r, "pin", "%s, flags %s: GUP faults the page in", gup_method_name(o->cell.method),
	     gup_flags_str(o->cell.flags, flags, sizeof(flags)));
	ret = gupdev_pin(&r->dev, r->t.addr, r->ps, o->cell.method, o->cell.flags, &req);
	if (!ret && !req.nr_pinned)
		ret = -EFAULT;		/* reported as such: nothing was taken */
	if (ret) {
		printf("  refused: %s (%s); the kernel's GUP policy: %s (%s)\n",
		       errno_name(ret), strerror(-ret), r->policy ?: "unknown", r->policy_why);
		target_teardown(&r->t);
		guest = read_back(r, false, e1, sizeof(e1));
		printf("  the file still holds the %s pattern\n", guest);
		json_object_set_new(r->facts, "pinned", json_string(errno_name(ret)));
		result(r, guest, NULL, NULL);
		return GUPCTL_EXIT_REFUSED;
	}
	r->pin_id = req.id;
	printf("  pinned: pin id %u\n", r->pin_id);
	show_state(r, r->pin_id, "route pin");
	after_pin(r);

	step(r, "observer", "observer reference: get_user_pages_fast, no flags");
	ret = gupdev_pin(&r->dev, r->t.addr, r->ps, GUP_PIN_METHOD_GET_FAST, 0, &req);
	if (!ret && !req.nr_pinned)
		ret = -EFAULT;
	if (ret)
		return step_failed(r, "observer reference", ret);
	r->obs_id = req.id;
	show_state(r, r->obs_id, "observer");

	step(r, "munmap", "munmap: no user mapping is left, only the pin and the observer");
	munmap(r->t.map, r->t.map_len);
	r->t.map = MAP_FAILED;
	show_state(r, r->obs_id, "observer");

	ret = route_event(r);
	if (ret)
		return ret;

	step(r, "write-new", "GUP_PIN_IOC_WRITE: %s",
	     "the NEW pattern over the whole page through the pin (kernel mapping)");
	ret = gupdev_write(&r->dev, r->pin_id, 0, r->new_pat, r->ps);
	if (ret)
		return step_failed(r, "GUP_PIN_IOC_WRITE", ret);
	show_state(r, r->obs_id, "observer");

	if (o->cell.fs == REPRO_FS_EXT4)
		step(r, "unpin-dirty", "release the pin with GUP_UNPIN_DIRTY (%s)",
		     "set_page_dirty: ext4_dirty_folio");
	else
		step(r, "unpin-dirty", "release the pin with GUP_UNPIN_DIRTY (%s: %s)",
		     "set_page_dirty", "the file system's ->dirty_folio");
	ret = gupdev_unpin(&r->dev, r->pin_id, GUP_UNPIN_DIRTY);
	if (ret)
		return step_failed(r, "GUP_PIN_IOC_UNPIN", ret);
	show_state(r, r->obs_id, "observer");

	step(r, "fsync", "fsync: %s writeback meets the page", fs);
	ret = fsync(r->t.fd) < 0 ? -errno : 0;
	printf("  fsync returned %s\n", ret ? err_name(ret) : "0");
	fact(r, "fsync", json_string(ret ? err_name(ret) : "0"));
	if (ret)
		snprintf(fsynced, sizeof(fsynced), "fsync failed: %s", err_name(ret));
	else
		snprintf(fsynced, sizeof(fsynced), "fsync returned without writing the page");
	show_state(r, r->obs_id, "observer");

	step(r, "read-back", "drop caches, pread (%s), O_DIRECT pread (the disk)",
	     "the observer keeps the page cached");
	ret = drop_caches();
	if (ret)
		return step_failed(r, "drop_caches", ret);
	show_state(r, r->obs_id, "observer");
	guest = read_back(r, false, e1, sizeof(e1));
	direct = read_back(r, true, e2, sizeof(e2));
	printf("  pread: %s; O_DIRECT pread: %s\n", guest, direct);

	step(r, "evict-read", "release the observer (no dirtying), drop caches, pread");
	ret = gupdev_unpin(&r->dev, r->obs_id, 0);
	if (ret)
		return step_failed(r, "releasing the observer", ret);
	r->obs_id = 0;
	ret = drop_caches();
	if (ret)
		return step_failed(r, "drop_caches", ret);
	evicted = read_back(r, false, e3, sizeof(e3));
	printf("  pread: %s\n", evicted);

	if (!strcmp(guest, "new") && strcmp(direct, "new"))
		printf("verdict: DATA LOST: the page cache showed NEW, the disk holds %s (%s)\n",
		       direct, fsynced);
	else if (strcmp(direct, "new") && !strcmp(guest, direct))
		printf("verdict: the write never reached the file: cache and disk hold %s\n",
		       direct);
	else if (!strcmp(direct, "new"))
		printf("verdict: no loss: the NEW pattern reached the disk\n");
	else
		printf("verdict: cache %s, disk %s\n", guest, direct);
	result(r, guest, direct, evicted);
	return GUPCTL_EXIT_OK;
}

/* The facts known before the first step (--json FILE). */
static json_t *initial_facts(const struct repro *r, const struct repro_expectation *e,
			     const char *release, long bsize)
{
	static const char * const later[] = {	/* null until known */
		"last_step", "pinned", "buffers_after_pin", "private_after_pin", "move_ext",
		"swapext", "writeback", "fsync", "reads", "failed",
	};
	const struct repro_opts *o = r->o;
	char label[REPRO_LABEL_MAX];
	json_t *f;
	size_t i;

	f = json_pack("{s:s, s:{s:s, s:s, s:s, s:s, s:b, s:b}, s:s?, s:s?}",
		      "scenario", REPRO_SCENARIO,
		      "cell", "label", repro_cell_label(&o->cell, label, sizeof(label)),
		      "fs", repro_fs_choices[o->cell.fs],
		      "route", repro_route_choices[o->cell.route],
		      "method", repro_method_choices[o->cell.method],
		      "longterm", !!(o->cell.flags & GUP_PIN_FLAG_LONGTERM),
		      "write", !!(o->cell.flags & GUP_PIN_FLAG_WRITE),
		      "policy", o->fl.policy,
		      "ext4", o->fl.policy ? repro_ext4_choices[o->fl.ext4] : NULL);
	if (!f)
		return NULL;
	json_object_set_new(f, "expected", e->outcome[0] ?
			    json_pack("{s:s, s:s}", "outcome", e->outcome, "reason", e->reason) :
			    json_null());
	json_object_set_new(f, "kernel_release", json_string(release));
	json_object_set_new(f, "kernel_policy",
			    json_pack("{s:s?, s:s}", "name", r->policy, "why", r->policy_why));
	json_object_set_new(f, "block_size", json_integer(bsize));
	json_object_set_new(f, "file", json_string(r->path));
	for (i = 0; i < ARRAY_SIZE(later); i++)
		json_object_set_new(f, later[i], json_null());
	json_object_set_new(f, "finished", json_false());
	return f;
}

static int run_ext4_2018(struct repro_opts *o)
{
	struct repro_expectation e;
	struct kernel_facts kf;
	struct repro r;
	struct statfs sfs;
	struct utsname u;
	const char *release, *fs = repro_fs_choices[o->cell.fs];
	char dir[64];
	size_t n;
	int ret;

	if (o->expect_only) {
		print_expectation(o, &e);
		return e.outcome[0] || policy_is_none(o->fl.policy) ? GUPCTL_EXIT_OK :
		       GUPCTL_EXIT_USAGE;
	}
	/* where jobs/guest/disks.sh mounts each scratch file system */
	snprintf(dir, sizeof(dir), "/mnt/%s", fs);
	if (!o->dir)
		o->dir = dir;
	if (statfs(o->dir, &sfs) < 0)
		return usage_error("repro", "cannot statfs --dir %s: %s (%s)", o->dir,
				   errno_name(errno), strerror(errno));
	if ((unsigned long)sfs.f_type != repro_fs_magic[o->cell.fs])
		return usage_error("repro", "--dir %s is not on %s (f_type %#lx)",
				   o->dir, fs, (unsigned long)sfs.f_type);

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.t.fd = -1;
	r.t.map = MAP_FAILED;
	r.ps = getpagesize();
	ret = snprintf(r.path, sizeof(r.path), "%s/repro-%s%s%s-%s.dat", o->dir,
		       o->cell.route == REPRO_ROUTE_READ ? "" : repro_route_choices[o->cell.route],
		       o->cell.route == REPRO_ROUTE_READ ? "" : "-",
		       repro_method_choices[o->cell.method], flags_part(o->cell.flags));
	if (ret < 0 || (size_t)ret >= sizeof(r.path) - 8)
		return usage_error("repro", "--dir %s: path too long", o->dir);
	/* move-ext's orig file, swapext's temporary copy: beside the file */
	n = ret - 4;
	memcpy(r.other_path, r.path, n);
	strcpy(r.other_path + n, o->cell.route == REPRO_ROUTE_SWAPEXT ? ".tmp" : ".orig");

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("repro-file: %s\n", r.path);
	kernel_facts_read(&kf);
	r.policy = policy_detect(&kf, r.policy_why, sizeof(r.policy_why));
	release = uname(&u) ? "?" : u.release;
	printf("repro ext4-2018: %s%s%sroute %s, method %s, flags %s, kernel %s, ",
	       o->cell.fs == REPRO_FS_EXT4 ? "" : "fs ",
	       o->cell.fs == REPRO_FS_EXT4 ? "" : fs,
	       o->cell.fs == REPRO_FS_EXT4 ? "" : ", ",
	       repro_route_choices[o->cell.route], repro_method_choices[o->cell.method],
	       flags_part(o->cell.flags), release);
	printf("GUP policy %s (%s), fs block size %ld\n", r.policy ?: "unknown", r.policy_why,
	       (long)sfs.f_bsize);
	print_expectation(o, &e);

	r.facts = initial_facts(&r, &e, release, (long)sfs.f_bsize);
	if (!r.facts) {
		fprintf(stderr, "gupctl repro: out of memory\n");
		return GUPCTL_EXIT_REFUSED;
	}
	facts_write(&r);
	if (r.json_failed) {
		json_decref(r.facts);
		return usage_error("repro", "cannot write --json %s", o->json);
	}

	ret = gupctl_open_device(&r.dev, "repro");
	if (ret) {
		json_decref(r.facts);
		return ret;
	}
	r.old_pat = malloc(r.ps);
	r.new_pat = malloc(r.ps);
	/* O_DIRECT wants an aligned buffer */
	if (!r.old_pat || !r.new_pat || posix_memalign((void **)&r.buf, r.ps, r.ps)) {
		fprintf(stderr, "gupctl repro: out of memory\n");
		ret = GUPCTL_EXIT_REFUSED;
	} else {
		repro_fill_pattern(r.old_pat, r.ps, "OLD");
		repro_fill_pattern(r.new_pat, r.ps, "NEW");
		ret = run_sequence(&r);
	}

	target_teardown(&r.t);
	gupdev_close(&r.dev);		/* releases whatever is still held */
	free(r.old_pat);
	free(r.new_pat);
	free(r.buf);
	json_decref(r.facts);
	return ret;
}

/* A cell and the ext4 column, for ends_boot_under(). */
struct boot_ctx {
	const struct repro_cell *cell;
	enum repro_ext4 ext4;
};

/* Does @policy expect the cell to end its boot (a BUG)? */
static bool ends_boot_under(const char *policy, void *ctx)
{
	const struct boot_ctx *b = ctx;
	struct repro_expectation e;

	return !repro_expect(policy, b->ext4, NULL, b->cell, &e) && repro_ends_boot(&e);
}

/*
 * gupctl repro cells: the run's cells as JSON, for jobs/repro.sh.  Given
 * the flavour's columns, each cell also says whether it needs a boot of
 * its own ("boot": "own", a cell expected to end in a BUG) or can share
 * one ("shared"), from the same expectation the judge holds it to.  Policy
 * none: every cell (the quick set of its --source), and a boot of its own
 * for a cell that any policy of that source, with that ext4 column,
 * expects to BUG (measured_any_policy()): no cell of a shared boot is lost
 * to a panic any known policy foresees.
 */
static int repro_cells_cmd(int argc, char **argv)
{
	static const char * const usage[] = {
		"gupctl repro cells [--quick] [--policy P --ext4 B [--source V]]", NULL
	};
	struct repro_cell cells[REPRO_MAX_CELLS];
	struct repro_flavour fl = REPRO_FLAVOUR_UNSET;
	struct repro_expectation e;
	char label[REPRO_LABEL_MAX], file[REPRO_LABEL_MAX];
	struct repro_cell any = REPRO_CELL_DEFAULT;
	bool quick = false;
	const struct gopt opts[] = {
		GOPT_BOOL(0, "quick", &quick,
			  "only the quick set (5 ext4 cells; on a 6.12 policy or source, and an xfs and a btrfs one)"),
		REPRO_GOPT_POLICY(&fl),
		REPRO_GOPT_EXT4(&fl),
		REPRO_GOPT_SOURCE(&fl),
		GOPT_END()
	};
	enum policy_kernel kernel;
	unsigned int i, n;
	json_t *list, *args, *cell;
	int ret = repro_parse("repro cells", argc, argv, opts, usage);

	if (ret >= 0)
		return ret;
	ret = repro_check_opts("repro cells", &any, &fl, false);
	if (ret)
		return ret;
	kernel = measured_kernel(fl.policy, fl.source);
	n = repro_cells(quick, kernel == POLICY_KERNEL_612 || kernel == POLICY_KERNEL_73,
			cells, REPRO_MAX_CELLS);
	list = json_array();
	for (i = 0; i < n; i++) {
		args = cells[i].fs == REPRO_FS_EXT4 ? json_array() :
		       json_pack("[s, s]", "--fs", repro_fs_choices[cells[i].fs]);
		json_array_append_new(args, json_string("--route"));
		json_array_append_new(args, json_string(repro_route_choices[cells[i].route]));
		json_array_append_new(args, json_string("--method"));
		json_array_append_new(args, json_string(repro_method_choices[cells[i].method]));
		if (cells[i].flags & GUP_PIN_FLAG_LONGTERM)
			json_array_append_new(args, json_string("--longterm"));
		if (cells[i].flags & GUP_PIN_FLAG_WRITE)
			json_array_append_new(args, json_string("--write"));
		repro_cell_label(&cells[i], label, sizeof(label));
		repro_cell_file(&cells[i], file, sizeof(file));
		cell = json_pack("{s:s, s:s, s:s, s:o}", "label", label, "file", file,
				 "fs", repro_fs_choices[cells[i].fs], "args", args);
		if (policy_is_none(fl.policy)) {
			struct boot_ctx b = { &cells[i], fl.ext4 };

			json_object_set_new(cell, "boot", json_string(
				measured_any_policy(measured_kernel(fl.policy, fl.source),
						    ends_boot_under, &b) ? "own" : "shared"));
		} else if (fl.policy && !repro_expect(fl.policy, fl.ext4, NULL, &cells[i], &e)) {
			json_object_set_new(cell, "boot", json_string(repro_ends_boot(&e) ? "own" : "shared"));
		}
		json_array_append_new(list, cell);
	}
	ret = json_dumpf(list, stdout, JSON_INDENT(2)) ? GUPCTL_EXIT_USAGE : GUPCTL_EXIT_OK;
	putchar('\n');
	json_decref(list);
	return ret;
}

static const struct gopt_cmd repro_subcommands[] = {
	GOPT_CMD("cells", repro_cells_cmd, "the cells of a run, as JSON"),
	GOPT_CMD_HOST("judge", repro_judge, "judge a cell's guest facts"),
	GOPT_CMD_HOST("collect", repro_collect, "a flavour's cells in one document"),
	GOPT_CMD_HOST("report", repro_report, "the results page"),
	GOPT_CMD_END()
};

int cmd_repro(int argc, char **argv)
{
	struct repro_opts o = {
		.cell = REPRO_CELL_DEFAULT,
		.fl = REPRO_FLAVOUR_UNSET,
	};
	const struct gopt opts[] = {
		GOPT_GROUP("The cell"),
		REPRO_GOPT_FS(&o.cell),
		REPRO_GOPT_ROUTE(&o.cell),
		REPRO_GOPT_METHOD(&o.cell),
		REPRO_GOPT_LONGTERM(&o.cell),
		REPRO_GOPT_WRITE(&o.cell),
		GOPT_GROUP("The expectation, printed before the run (repro-expect:)"),
		REPRO_GOPT_POLICY(&o.fl),
		REPRO_GOPT_EXT4(&o.fl),
		REPRO_GOPT_SOURCE(&o.fl),
		REPRO_GOPT_SITE(&o.fl),
		GOPT_BOOL(0, "expect", &o.expect_only,
			  "print the expectation and exit (no device needed)"),
		GOPT_GROUP("Where"),
		GOPT_STRING(0, "dir", &o.dir, "DIR",
			    "a directory of --fs for the files (default /mnt/FS)"),
		GOPT_STRING(0, "json", &o.json, "FILE",
			    "keep the guest-side facts in FILE as JSON, synced after each step"),
		GOPT_END()
	};
	int ret, argi;

	ret = gopt_cmd_run("repro", repro_subcommands, argc - 1, argv + 1);
	if (ret != GOPT_CMD_NONE)
		return ret;

	ret = gopt_parse("repro", argc, argv, opts, repro_usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if (argi >= argc)
		return usage_error("repro", "no scenario: give ext4-2018 (or a subcommand)");
	if (strcmp(argv[argi], REPRO_SCENARIO))
		return usage_error("repro", "unknown scenario '%s': the one scenario is ext4-2018",
				   argv[argi]);
	if (argi + 1 < argc)
		return usage_error("repro", "unexpected argument '%s'", argv[argi + 1]);
	ret = repro_check_opts("repro", &o.cell, &o.fl, o.expect_only);
	if (ret)
		return ret;
	return run_ext4_2018(&o);
}
