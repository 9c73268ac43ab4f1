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
 * file's blocks with another file's: move_extent_per_page() calls
 * filemap_release_folio() on the donor's page, which frees clean buffers
 * without looking at the page's references, pin or not.  The rest is the
 * same: no buffers, a dirty unpin, fsync.
 *
 * Each step prints the page state through an observer: a second, plain
 * get_user_pages_fast() reference taken right after the route's pin, so the
 * page stays observable after the route's unpin and the munmap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/vfs.h>

#include "gupctl.h"
#include "target.h"

#define REPRO_LINE	64		/* bytes per pattern line */

/* fs/ext4/ext4.h (not uapi in 6.1): EXT4_IOC_MOVE_EXT's argument */
struct repro_move_extent {
	__u32 reserved;			/* must be zero */
	__u32 donor_fd;
	__u64 orig_start;		/* in blocks */
	__u64 donor_start;		/* in blocks */
	__u64 len;			/* in blocks */
	__u64 moved_len;		/* out */
};
#define REPRO_EXT4_IOC_MOVE_EXT	_IOWR('f', 15, struct repro_move_extent)

enum repro_route {
	ROUTE_READ,			/* readpages page, no FOLL_WRITE needed */
	ROUTE_MOVE_EXT,			/* buffers released by EXT4_IOC_MOVE_EXT */
};

struct repro_opts {
	unsigned int method;		/* enum gup_pin_method */
	unsigned int flags;		/* GUP_PIN_FLAG_WRITE / _LONGTERM */
	enum repro_route route;
	const char *dir;
	const char *classify;		/* --classify FILE, or NULL */
};

static const struct {
	const char *opt;		/* --method value, file name part */
	unsigned int method;
} repro_methods[] = {
	{ "pin",	GUP_PIN_METHOD_PIN },
	{ "pin-fast",	GUP_PIN_METHOD_PIN_FAST },
	{ "get",	GUP_PIN_METHOD_GET },
	{ "get-fast",	GUP_PIN_METHOD_GET_FAST },
};

#define NR_REPRO_METHODS	(sizeof(repro_methods) / sizeof(repro_methods[0]))

enum { OPT_METHOD = 256, OPT_LONGTERM, OPT_WRITE, OPT_DIR, OPT_ROUTE, OPT_CLASSIFY };

static const struct option repro_options[] = {
	{ "method",	required_argument,	NULL, OPT_METHOD },
	{ "longterm",	no_argument,		NULL, OPT_LONGTERM },
	{ "write",	no_argument,		NULL, OPT_WRITE },
	{ "dir",	required_argument,	NULL, OPT_DIR },
	{ "route",	required_argument,	NULL, OPT_ROUTE },
	{ "classify",	required_argument,	NULL, OPT_CLASSIFY },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

void cmd_repro_help(FILE *f)
{
	fprintf(f,
"usage: gupctl repro ext4-2018 [--method M] [--longterm] [--write]\n"
"                              [--route read|move-ext] [--dir DIR]\n"
"\n"
"Reproduce the 2018 ext4 crash (Jan Kara) and its 6.1 successor, silent\n"
"data loss, step by step, printing the page state after each step:\n"
"\n"
"   1. write DIR/repro-M-FLAGS.dat: one page of the OLD pattern, fsync\n"
"   2. sync, drop caches (the page leaves the page cache)\n"
"   3. open, mmap MAP_SHARED read/write, nothing touched\n"
"   4. take the page with M and the flags (GUP faults it in; a read fault\n"
"      goes through ext4_mpage_readpages: no buffer heads); a refusal\n"
"      ends the run: the policy blocks this route\n"
"   5. take an observer reference (get_user_pages_fast, no flags)\n"
"   6. munmap\n"
"   7. write the NEW pattern over the page through the pin\n"
"   8. release the pin dirty (GUP_UNPIN_DIRTY)\n"
"   9. fsync (ext4 writeback meets the page: a warning and the dirty bit\n"
"      cleared, or a kernel BUG where cc5095747edf is reverted)\n"
"  10. drop caches, pread: the guest's view (the observer still holds the\n"
"      page in the cache); O_DIRECT pread: the disk's view\n"
"  11. drop the observer, drop caches, pread again: the view once the\n"
"      page has left the cache\n"
"\n"
"--route move-ext (meant with --write) strips the buffers another way:\n"
"step 1 also writes DIR/repro-move-ext-M-FLAGS.orig (OLD pattern), and\n"
"after the munmap the page is written back (fsync: clean, clean buffers)\n"
"and EXT4_IOC_MOVE_EXT swaps its blocks with the .orig file's, which\n"
"releases the pinned page's buffers (filemap_release_folio() on the donor\n"
"page); the file is then DIR/repro-move-ext-M-FLAGS.dat.  The donor's\n"
"new extent is marked unwritten (the blocks it gets are the defrag's\n"
"leftovers): on disk it reads as zeros until the page is written back.\n"
"\n"
"Options:\n"
"  --method M   pin (pin_user_pages, default), pin-fast\n"
"               (pin_user_pages_fast), get (get_user_pages), get-fast\n"
"               (get_user_pages_fast)\n"
"  --longterm   FOLL_LONGTERM (pin and pin-fast only)\n"
"  --write      FOLL_WRITE: the pin's write fault runs ext4_page_mkwrite,\n"
"               which attaches buffers: the route does not strip them\n"
"  --route R    read (default): the page comes from a read fault after a\n"
"               cache drop, without buffers; move-ext: see above\n"
"  --dir DIR    an ext4 directory for the file (default /mnt/ext4)\n"
"  --classify FILE\n"
"               run nothing: print how FILE's first page compares with\n"
"               the two patterns (new, old, mixed, zeros, other) and exit;\n"
"               no device needed (the host uses it on the file it reads\n"
"               back from the guest's scratch image)\n"
"  -h, --help   this help\n"
"\n"
"The first line and the last lines are machine readable:\n"
"  repro-file: PATH\n"
"  repro-result: pinned=yes|ERRNO guest-read=new|old|mixed|zeros|other\n"
"                direct-read=... evicted-read=... file=PATH\n"
"\n"
"Needs root, the gup_pin_test module, and a kernel that is allowed to\n"
"WARN (and, with cc5095747edf reverted, to BUG: fsync never returns).\n"
"\n"
"Exit status: 0 the sequence ran to the end, 1 the kernel refused the\n"
"route's pin (or a step failed), 2 usage error, 3 " GUP_PIN_TEST_DEVICE "\n"
"missing or of another ABI version.\n");
}

/* 0: valid; -1: help printed; otherwise an exit code. */
static int parse_repro_opts(int argc, char **argv, struct repro_opts *o)
{
	size_t i;
	int c;

	memset(o, 0, sizeof(*o));
	o->method = GUP_PIN_METHOD_PIN;
	o->dir = "/mnt/ext4";

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", repro_options, NULL)) != -1) {
		switch (c) {
		case 'h':
			cmd_repro_help(stdout);
			return -1;
		case OPT_METHOD:
			for (i = 0; i < NR_REPRO_METHODS; i++)
				if (!strcmp(optarg, repro_methods[i].opt))
					break;
			if (i == NR_REPRO_METHODS)
				return usage_error("repro", "bad --method '%s': give pin, pin-fast, get or get-fast",
						   optarg);
			o->method = repro_methods[i].method;
			break;
		case OPT_LONGTERM:
			o->flags |= GUP_PIN_FLAG_LONGTERM;
			break;
		case OPT_WRITE:
			o->flags |= GUP_PIN_FLAG_WRITE;
			break;
		case OPT_DIR:
			o->dir = optarg;
			break;
		case OPT_CLASSIFY:
			o->classify = optarg;
			break;
		case OPT_ROUTE:
			if (!strcmp(optarg, "read"))
				o->route = ROUTE_READ;
			else if (!strcmp(optarg, "move-ext"))
				o->route = ROUTE_MOVE_EXT;
			else
				return usage_error("repro", "bad --route '%s': give read or move-ext",
						   optarg);
			break;
		case ':':
			return usage_error("repro", "option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			if (optopt)
				return usage_error("repro", "unknown option '-%c'", optopt);
			return usage_error("repro", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("repro", "no scenario: give ext4-2018");
	if (strcmp(argv[optind], "ext4-2018"))
		return usage_error("repro", "unknown scenario '%s': the one scenario is ext4-2018",
				   argv[optind]);
	if (optind + 1 < argc)
		return usage_error("repro", "unexpected argument '%s'", argv[optind + 1]);
	if ((o->flags & GUP_PIN_FLAG_LONGTERM) &&
	    (o->method == GUP_PIN_METHOD_GET || o->method == GUP_PIN_METHOD_GET_FAST))
		return usage_error("repro", "--longterm needs --method pin or pin-fast: FOLL_LONGTERM requires FOLL_PIN");
	return 0;
}

static const char *method_opt(unsigned int method)
{
	size_t i;

	for (i = 0; i < NR_REPRO_METHODS; i++)
		if (repro_methods[i].method == method)
			return repro_methods[i].opt;
	return "?";
}

static const char *flags_part(unsigned int flags)
{
	bool w = flags & GUP_PIN_FLAG_WRITE, l = flags & GUP_PIN_FLAG_LONGTERM;

	return w && l ? "longterm-write" : w ? "write" : l ? "longterm" : "none";
}

/* One page of lines "gup-lab repro OLD line 00", space padded, '\n'. */
static void fill_pattern(char *buf, size_t len, const char *tag)
{
	char line[REPRO_LINE + 1];
	size_t off;
	int n;

	for (off = 0; off + REPRO_LINE <= len; off += REPRO_LINE) {
		n = snprintf(line, sizeof(line), "gup-lab repro %s line %02zu",
			     tag, off / REPRO_LINE);
		memset(buf + off, ' ', REPRO_LINE);
		memcpy(buf + off, line, n < REPRO_LINE ? n : REPRO_LINE - 1);
		buf[off + REPRO_LINE - 1] = '\n';
	}
}

/* "new", "old", "mixed" (whole lines of both), "zeros" or "other". */
static const char *classify(const char *buf, size_t len, const char *old_pat,
			    const char *new_pat)
{
	size_t off, nr_old = 0, nr_new = 0, nr_lines = len / REPRO_LINE;

	for (off = 0; off < len && !buf[off]; off++)
		;
	if (off == len)
		return "zeros";

	for (off = 0; off + REPRO_LINE <= len; off += REPRO_LINE) {
		if (!memcmp(buf + off, old_pat + off, REPRO_LINE))
			nr_old++;
		else if (!memcmp(buf + off, new_pat + off, REPRO_LINE))
			nr_new++;
	}
	if (nr_new == nr_lines)
		return "new";
	if (nr_old == nr_lines)
		return "old";
	if (nr_old + nr_new == nr_lines)
		return "mixed";
	return "other";
}

/* --classify: the same verdict the guest prints, for a file read elsewhere. */
static int classify_file(const char *path)
{
	size_t ps = getpagesize(), len = 0;
	char *old_pat = malloc(ps), *new_pat = malloc(ps), *buf = malloc(ps);
	ssize_t n = 1;
	int fd = open(path, O_RDONLY), ret = GUPCTL_EXIT_OK;

	if (fd < 0 || !old_pat || !new_pat || !buf) {
		fprintf(stderr, "gupctl repro: --classify %s: %s (%s)\n", path,
			errno_name(errno), strerror(errno));
		ret = GUPCTL_EXIT_USAGE;
		goto out;
	}
	while (len < ps && (n = read(fd, buf + len, ps - len)) > 0)
		len += n;
	fill_pattern(old_pat, ps, "OLD");
	fill_pattern(new_pat, ps, "NEW");
	/* A short file is no page of either pattern. */
	puts(n < 0 || len < ps ? "other" : classify(buf, ps, old_pat, new_pat));
out:
	if (fd >= 0)
		close(fd);
	free(old_pat);
	free(new_pat);
	free(buf);
	return ret;
}

struct repro {
	struct gupdev dev;
	struct target t;
	const struct repro_opts *o;
	char path[4096];
	char orig_path[4096];		/* ROUTE_MOVE_EXT: the other file */
	size_t ps;
	char *old_pat, *new_pat, *buf;
	__u32 pin_id, obs_id;
	int step;
};

static void step(struct repro *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void step(struct repro *r, const char *fmt, ...)
{
	va_list ap;

	printf("repro-step %d: ", ++r->step);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
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
		printf("  state (%s): dirty=%d writeback=%d buffers=%d maybe-dma-pinned=%d uptodate=%d refcount=%d mapcount=%d index=%llu fs=%s\n",
		       via, !!(st.state & GUP_PAGE_DIRTY),
		       !!(st.state & GUP_PAGE_WRITEBACK),
		       !!(st.state & GUP_PAGE_HAS_BUFFERS),
		       !!(st.state & GUP_PAGE_MAYBE_DMA_PINNED),
		       !!(st.state & GUP_PAGE_UPTODATE),
		       st.refcount, st.mapcount,
		       (unsigned long long)st.index,
		       st.fs_name[0] ? st.fs_name : "-");
	}
	fflush(stdout);
}

static bool page_has_buffers_now(struct repro *r, __u32 id)
{
	struct gup_page_state st;
	__u32 count = 1;

	return !gupdev_state(&r->dev, id, 0, &st, &count) && count == 1 &&
	       (st.state & GUP_PAGE_HAS_BUFFERS);
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

static int write_old_file(struct repro *r, const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (pwrite(fd, r->old_pat, r->ps, 0) != (ssize_t)r->ps)
		ret = errno ? -errno : -EIO;
	else if (fsync(fd) < 0)
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
	return classify(r->buf, r->ps, r->old_pat, r->new_pat);
}

static void result_line(struct repro *r, const char *pinned, const char *guest,
			const char *direct, const char *evicted)
{
	printf("repro-result: pinned=%s guest-read=%s direct-read=%s evicted-read=%s file=%s\n",
	       pinned, guest, direct, evicted, r->path);
	fflush(stdout);
}

/* A step other than the route's pin failed: say which, exit 1. */
static int step_failed(struct repro *r, const char *what, int err)
{
	printf("  FAILED: %s: %s (%s)\n", what, errno_name(err), strerror(-err));
	printf("repro-result: pinned=%s guest-read=none failed-step=%d file=%s\n",
	       r->pin_id ? "yes" : "none", r->step, r->path);
	fflush(stdout);
	return GUPCTL_EXIT_REFUSED;
}

/* ROUTE_MOVE_EXT: write the page back, then let EXT4_IOC_MOVE_EXT free its buffers. */
static int move_ext(struct repro *r)
{
	struct repro_move_extent me = { 0 };
	struct statfs sfs;
	int ofd, ret;

	step(r, "fsync: the pinned page is written back (clean, clean buffers)");
	ret = fsync(r->t.fd) < 0 ? -errno : 0;
	if (ret)
		return step_failed(r, "fsync", ret);
	show_state(r, r->obs_id, "observer");

	step(r, "EXT4_IOC_MOVE_EXT: swap the page's blocks with %s's (donor: this file)",
	     r->orig_path);
	if (fstatfs(r->t.fd, &sfs) < 0)
		return step_failed(r, "fstatfs", -errno);
	ofd = open(r->orig_path, O_RDWR | O_CLOEXEC);
	if (ofd < 0)
		return step_failed(r, "opening the orig file", -errno);
	me.donor_fd = r->t.fd;
	me.len = r->ps / sfs.f_bsize;
	ret = ioctl(ofd, REPRO_EXT4_IOC_MOVE_EXT, &me) < 0 ? -errno : 0;
	close(ofd);
	if (ret)
		return step_failed(r, "EXT4_IOC_MOVE_EXT", ret);
	printf("  moved %llu of %llu blocks\n", (unsigned long long)me.moved_len,
	       (unsigned long long)me.len);
	show_state(r, r->obs_id, "observer");
	if (page_has_buffers_now(r, r->obs_id))
		printf("  note: the page kept its buffers: this route's precondition is not met\n");
	else
		printf("  the pinned page lost its buffer heads: move_extent_per_page() released them\n");
	return 0;
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
	const char *guest, *direct, *evicted;
	int ret;

	step(r, "write %s: one page of the OLD pattern, fsync, close", r->path);
	ret = write_old_file(r, r->path);
	if (ret)
		return step_failed(r, "writing the file", ret);
	if (o->route == ROUTE_MOVE_EXT) {
		printf("  and %s, the same OLD pattern (EXT4_IOC_MOVE_EXT's orig file)\n",
		       r->orig_path);
		ret = write_old_file(r, r->orig_path);
		if (ret)
			return step_failed(r, "writing the orig file", ret);
	}

	step(r, "sync, echo 3 >/proc/sys/vm/drop_caches: the page leaves the cache");
	ret = drop_caches();
	if (ret)
		return step_failed(r, "drop_caches (run as root)", ret);

	step(r, "open, mmap one page MAP_SHARED PROT_READ|PROT_WRITE, nothing touched");
	if (target_setup(&r->t, &spec)) {
		printf("  FAILED: %s\n", r->t.err);
		return GUPCTL_EXIT_REFUSED;
	}
	printf("  target: %s at %p\n", target_describe(&r->t, desc, sizeof(desc)),
	       r->t.addr);

	step(r, "%s, flags %s: GUP faults the page in", gup_method_name(o->method),
	     gup_flags_str(o->flags, flags, sizeof(flags)));
	ret = gupdev_pin(&r->dev, r->t.addr, r->ps, o->method, o->flags, &req);
	if (!ret && !req.nr_pinned)
		ret = -EFAULT;		/* reported as such: nothing was taken */
	if (ret) {
		printf("  refused: %s (%s): the policy blocks this route%s\n",
		       errno_name(ret), strerror(-ret),
		       gup_file_write_policy() == 1 ? "" :
		       " (but this kernel has no GUP file-write policy: cause not established)");
		target_teardown(&r->t);
		guest = read_back(r, false, e1, sizeof(e1));
		printf("  the file still holds the %s pattern\n", guest);
		result_line(r, errno_name(ret), guest, "-", "-");
		return GUPCTL_EXIT_REFUSED;
	}
	r->pin_id = req.id;
	printf("  pinned: pin id %u\n", r->pin_id);
	show_state(r, r->pin_id, "route pin");
	if (!page_has_buffers_now(r, r->pin_id))
		printf("  the page has no buffer heads: ext4 was never told it may be written\n");
	else if (o->flags & GUP_PIN_FLAG_WRITE)
		printf("  buffer heads attached: the write fault ran ext4_page_mkwrite\n");
	else
		printf("  note: buffer heads attached although no write fault ran: this route's precondition is not met\n");

	step(r, "observer reference: get_user_pages_fast, no flags");
	ret = gupdev_pin(&r->dev, r->t.addr, r->ps, GUP_PIN_METHOD_GET_FAST, 0, &req);
	if (!ret && !req.nr_pinned)
		ret = -EFAULT;
	if (ret)
		return step_failed(r, "observer reference", ret);
	r->obs_id = req.id;
	show_state(r, r->obs_id, "observer");

	step(r, "munmap: no user mapping is left, only the pin and the observer");
	munmap(r->t.map, r->t.map_len);
	r->t.map = MAP_FAILED;
	show_state(r, r->obs_id, "observer");

	if (o->route == ROUTE_MOVE_EXT) {
		ret = move_ext(r);
		if (ret)
			return ret;
	}

	step(r, "GUP_PIN_IOC_WRITE: the NEW pattern over the whole page through the pin (kernel mapping)");
	ret = gupdev_write(&r->dev, r->pin_id, 0, r->new_pat, r->ps);
	if (ret)
		return step_failed(r, "GUP_PIN_IOC_WRITE", ret);
	show_state(r, r->obs_id, "observer");

	step(r, "release the pin with GUP_UNPIN_DIRTY (set_page_dirty: ext4_dirty_folio)");
	ret = gupdev_unpin(&r->dev, r->pin_id, GUP_UNPIN_DIRTY);
	if (ret)
		return step_failed(r, "GUP_PIN_IOC_UNPIN", ret);
	show_state(r, r->obs_id, "observer");

	step(r, "fsync: ext4 writeback meets the page");
	ret = fsync(r->t.fd) < 0 ? -errno : 0;
	printf("  fsync returned %s\n", ret ? errno_name(ret) : "0");
	show_state(r, r->obs_id, "observer");

	step(r, "drop caches, pread (the observer keeps the page cached), O_DIRECT pread (the disk)");
	ret = drop_caches();
	if (ret)
		return step_failed(r, "drop_caches", ret);
	show_state(r, r->obs_id, "observer");
	guest = read_back(r, false, e1, sizeof(e1));
	direct = read_back(r, true, e2, sizeof(e2));
	printf("  pread: %s; O_DIRECT pread: %s\n", guest, direct);

	step(r, "release the observer (no dirtying), drop caches, pread");
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
		printf("verdict: DATA LOST: the page cache showed NEW, the disk holds %s (fsync returned without writing the page)\n",
		       direct);
	else if (!strcmp(direct, "new"))
		printf("verdict: no loss: the NEW pattern reached the disk\n");
	else
		printf("verdict: cache %s, disk %s\n", guest, direct);
	result_line(r, "yes", guest, direct, evicted);
	return GUPCTL_EXIT_OK;
}

int cmd_repro(int argc, char **argv)
{
	struct repro_opts o;
	struct repro r;
	struct statfs sfs;
	struct utsname u;
	int ret, policy;

	ret = parse_repro_opts(argc, argv, &o);
	if (ret)
		return ret < 0 ? GUPCTL_EXIT_OK : ret;
	if (o.classify)
		return classify_file(o.classify);
	if (statfs(o.dir, &sfs) < 0)
		return usage_error("repro", "cannot statfs --dir %s: %s (%s)", o.dir,
				   errno_name(errno), strerror(errno));
	if (sfs.f_type != EXT4_SUPER_MAGIC)
		return usage_error("repro", "--dir %s is not on ext4 (f_type %#lx): give a directory on ext4",
				   o.dir, (unsigned long)sfs.f_type);

	memset(&r, 0, sizeof(r));
	r.o = &o;
	r.t.fd = -1;
	r.t.map = MAP_FAILED;
	r.ps = getpagesize();
	ret = snprintf(r.path, sizeof(r.path), "%s/repro-%s%s-%s.dat", o.dir,
		       o.route == ROUTE_MOVE_EXT ? "move-ext-" : "",
		       method_opt(o.method), flags_part(o.flags));
	if (ret < 0 || (size_t)ret >= sizeof(r.path) - 8)
		return usage_error("repro", "--dir %s: path too long", o.dir);
	memcpy(r.orig_path, r.path, ret - 4);
	strcpy(r.orig_path + ret - 4, ".orig");

	ret = gupctl_open_device(&r.dev, "repro");
	if (ret)
		return ret;
	r.old_pat = malloc(r.ps);
	r.new_pat = malloc(r.ps);
	/* O_DIRECT wants an aligned buffer */
	if (!r.old_pat || !r.new_pat || posix_memalign((void **)&r.buf, r.ps, r.ps)) {
		fprintf(stderr, "gupctl repro: out of memory\n");
		gupdev_close(&r.dev);
		return GUPCTL_EXIT_REFUSED;
	}
	fill_pattern(r.old_pat, r.ps, "OLD");
	fill_pattern(r.new_pat, r.ps, "NEW");

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("repro-file: %s\n", r.path);
	policy = gup_file_write_policy();
	printf("repro ext4-2018: route %s, method %s, flags %s, kernel %s, GUP file-write policy %s, fs block size %ld\n",
	       o.route == ROUTE_MOVE_EXT ? "move-ext" : "read",
	       method_opt(o.method), flags_part(o.flags),
	       uname(&u) ? "?" : u.release,
	       policy < 0 ? "unknown" : policy ? "present" : "absent",
	       (long)sfs.f_bsize);

	ret = run_sequence(&r);

	target_teardown(&r.t);
	gupdev_close(&r.dev);		/* releases whatever is still held */
	free(r.old_pat);
	free(r.new_pat);
	free(r.buf);
	return ret;
}
