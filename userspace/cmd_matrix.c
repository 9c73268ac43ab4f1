// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl matrix: run every cell of the GUP matrix (backing x state x method
 * x flags) on fresh memory, each against the outcome a GUP policy expects.
 * KTAP on stdout; the cells as TSV and JSON on request.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/utsname.h>
#include <sys/vfs.h>

#include "gupctl.h"
#include "policy.h"
#include "target.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define MATRIX_FILL_BYTE	0x5a	/* what a cell's file is filled with */

/* ---- The matrix's shape, shared with report (gupctl.h) ---- */

static const unsigned int flag_sets[MATRIX_NR_FLAGS] = {
	0,
	GUP_PIN_FLAG_WRITE,
	GUP_PIN_FLAG_LONGTERM,
	GUP_PIN_FLAG_WRITE | GUP_PIN_FLAG_LONGTERM,
};

unsigned int matrix_flags(unsigned int i)
{
	return i < MATRIX_NR_FLAGS ? flag_sets[i] : 0;
}

void matrix_cell(unsigned int index, struct cell *c)
{
	c->flags = flag_sets[index % MATRIX_NR_FLAGS];
	index /= MATRIX_NR_FLAGS;
	c->method = index % GUP_PIN_METHOD_COUNT;
	index /= GUP_PIN_METHOD_COUNT;
	c->state = index % STATE_COUNT;
	index /= STATE_COUNT;
	c->backing = index;
}

int matrix_index(const struct cell *c)
{
	unsigned int f;

	if (c->backing >= BACKING_COUNT || c->state >= STATE_COUNT ||
	    c->method >= GUP_PIN_METHOD_COUNT)
		return -1;
	for (f = 0; f < MATRIX_NR_FLAGS; f++)
		if (flag_sets[f] == c->flags)
			break;
	if (f == MATRIX_NR_FLAGS)
		return -1;
	return ((c->backing * STATE_COUNT + c->state) * GUP_PIN_METHOD_COUNT +
		c->method) * MATRIX_NR_FLAGS + f;
}

static const char * const outcome_names[MATRIX_OUTCOME_COUNT] = {
	[MATRIX_PINNED]		= "pinned",
	[MATRIX_REFUSED]	= "refused",
	[MATRIX_NOT_RUN]	= "not-run",
	[MATRIX_NONE_PINNED]	= "none-pinned",
};

const char *matrix_outcome_name(enum matrix_outcome o)
{
	return o < MATRIX_OUTCOME_COUNT ? outcome_names[o] : "?";
}

int matrix_parse_outcome(const char *s, enum matrix_outcome *o)
{
	unsigned int i;

	for (i = 0; i < MATRIX_OUTCOME_COUNT; i++) {
		if (!strcmp(s, outcome_names[i])) {
			*o = i;
			return 0;
		}
	}
	return -EINVAL;
}

static const char * const column_names[MCOL_COUNT] = {
	[MCOL_FLAVOUR]		= "flavour",
	[MCOL_POLICY]		= "policy",
	[MCOL_METHOD]		= "method",
	[MCOL_FLAGS]		= "flags",
	[MCOL_BACKING]		= "backing",
	[MCOL_STATE]		= "state",
	[MCOL_EXPECTED]		= "expected",
	[MCOL_EXPECTED_ERRNO]	= "expected_errno",
	[MCOL_MEASURED]		= "measured",
	[MCOL_MEASURED_ERRNO]	= "measured_errno",
	[MCOL_NR_PINNED]	= "nr_pinned",
	[MCOL_PAGE_KIND]	= "page_kind",
	[MCOL_PAGE_FS]		= "page_fs",
	[MCOL_PAGE_STATE]	= "page_state",
	[MCOL_REASON]		= "reason",
};

const char *matrix_column_name(enum matrix_column col)
{
	return col < MCOL_COUNT ? column_names[col] : "?";
}

bool matrix_valid_flavour(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");

	return n && n < 64 && !s[n];
}

/* ---- Options ---- */

/* The directories file-backed cells create their file in. */
enum matrix_dir { DIR_NONE, DIR_EXT4, DIR_TMPFS, DIR_RAMFS, DIR_COUNT };

static const struct {
	const char *option;
	const char *fs;
	unsigned long magic;
	const char *def;
} dirs[DIR_COUNT] = {
	[DIR_EXT4]  = { "--ext4-dir", "ext4", EXT4_SUPER_MAGIC, "/mnt/ext4" },
	[DIR_TMPFS] = { "--tmpfs-dir", "tmpfs", TMPFS_MAGIC, "/tmp" },
	[DIR_RAMFS] = { "--ramfs-dir", "ramfs", RAMFS_MAGIC, "/mnt/ramfs" },
};

/* How each backing's page is set up: a target_spec less the path. */
static const struct {
	enum target_kind kind;
	enum matrix_dir dir;
	bool private;
	bool read_only;
} backings[BACKING_COUNT] = {
	[BACKING_ANON]		 = { TARGET_ANON, DIR_NONE, true, false },
	[BACKING_SHMEM]		 = { TARGET_SHMEM, DIR_NONE, false, false },
	[BACKING_HUGETLB]	 = { TARGET_HUGETLB, DIR_NONE, false, false },
	[BACKING_TMPFS]		 = { TARGET_FILE, DIR_TMPFS, false, false },
	[BACKING_EXT4_SHARED]	 = { TARGET_FILE, DIR_EXT4, false, false },
	[BACKING_EXT4_PRIVATE]	 = { TARGET_FILE, DIR_EXT4, true, false },
	[BACKING_EXT4_SHARED_RO] = { TARGET_FILE, DIR_EXT4, false, true },
	[BACKING_RAMFS]		 = { TARGET_FILE, DIR_RAMFS, false, false },
};

struct matrix_opts {
	const char *flavour;
	const char *policy;
	policy_fn expect;
	const char *dir[DIR_COUNT];
	const char *tsv;
	const char *json;
};

enum {
	OPT_FLAVOUR = 256, OPT_POLICY, OPT_EXT4_DIR, OPT_TMPFS_DIR,
	OPT_RAMFS_DIR, OPT_TSV, OPT_JSON,
};

static const struct option matrix_options[] = {
	{ "flavour",	required_argument,	NULL, OPT_FLAVOUR },
	{ "policy",	required_argument,	NULL, OPT_POLICY },
	{ "ext4-dir",	required_argument,	NULL, OPT_EXT4_DIR },
	{ "tmpfs-dir",	required_argument,	NULL, OPT_TMPFS_DIR },
	{ "ramfs-dir",	required_argument,	NULL, OPT_RAMFS_DIR },
	{ "tsv",	required_argument,	NULL, OPT_TSV },
	{ "json",	required_argument,	NULL, OPT_JSON },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

void cmd_matrix_help(FILE *f)
{
	unsigned int i;

	fprintf(f,
"usage: gupctl matrix --flavour NAME --policy POLICY [OPTIONS]\n"
"\n"
"Run every cell of the GUP matrix through " GUP_PIN_TEST_DEVICE " (as root,\n"
"module loaded) and compare each with what POLICY expects.  The cells,\n"
"numbered in this order, the last varying fastest:\n"
"  backing  (%u) ", BACKING_COUNT);
	for (i = 0; i < BACKING_COUNT; i++)
		fprintf(f, "%s%s", i ? ", " : "", backing_name(i));
	fprintf(f, "\n  state    (%u) ", STATE_COUNT);
	for (i = 0; i < STATE_COUNT; i++)
		fprintf(f, "%s%s", i ? ", " : "", state_name(i));
	fprintf(f, "\n  method   (%u) ", GUP_PIN_METHOD_COUNT);
	for (i = 0; i < GUP_PIN_METHOD_COUNT; i++)
		fprintf(f, "%s%s", i ? ", " : "", gup_method_name(i));
	fprintf(f,
"\n  flags    (%u) none, WRITE, LONGTERM, WRITE|LONGTERM\n"
"  = %u cells.\n"
"\n"
"Each cell gets fresh memory, one page, unmapped (and its file unlinked)\n"
"after the cell:\n"
"  anon-private    MAP_PRIVATE|MAP_ANONYMOUS\n"
"  shmem-memfd     a memfd, MAP_SHARED\n"
"  hugetlb-memfd   a MFD_HUGETLB memfd, MAP_SHARED, one 2 MiB page of\n"
"                  which the first 4 KiB is pinned (needs a free huge page)\n"
"  tmpfs-shared, ext4-shared, ramfs-shared\n"
"                  a new file in the directory of that file system, filled\n"
"                  with one page of 0x%02x by write(), O_RDWR, MAP_SHARED\n"
"  ext4-private    the same on ext4, MAP_PRIVATE\n"
"  ext4-shared-ro  the same on ext4, O_RDONLY, PROT_READ, MAP_SHARED\n"
"The state is what user space did before the pin: nothing, a read of one\n"
"byte, or a write of one byte (its own value).  Then: the expected outcome\n"
"from POLICY, the pin, the page's GUP_PIN_IOC_STATE if pinned, and an unpin\n"
"that does not dirty the page.  Cells POLICY calls not applicable are not\n"
"run.\n"
"\n"
"Options:\n"
"  --flavour NAME   the kernel flavour (patches/flavours), recorded in the\n"
"                   outputs; letters, digits, '.', '_', '-' (required)\n"
"  --policy POLICY  where the expected outcomes come from: the flavour's\n"
"                   gup column, one of: %s (required)\n"
"  --ext4-dir DIR   a directory on ext4 (default %s)\n"
"  --tmpfs-dir DIR  a directory on tmpfs (default %s)\n"
"  --ramfs-dir DIR  a directory on ramfs (default %s)\n"
"  --tsv FILE       write the cells as TSV: a header line, one line per\n"
"                   cell, then a comment line \"# flavour=.. policy=..\n"
"                   kernel=.. wall_seconds=..\"\n"
"  --json FILE      write the same as JSON: {\"flavour\", \"policy\", \"kernel\",\n"
"                   \"wall_seconds\", \"cells\": [...]} (\"-\" becomes null)\n"
"  -h, --help       this help\n"
"\n"
"TSV columns, tab separated:\n"
"  ", MATRIX_NR_FLAGS, MATRIX_NR_CELLS, MATRIX_FILL_BYTE, policy_names(),
		dirs[DIR_EXT4].def, dirs[DIR_TMPFS].def, dirs[DIR_RAMFS].def);
	for (i = 0; i < MCOL_COUNT; i++)
		fprintf(f, "%s%s", matrix_column_name(i),
			i + 1 == MCOL_COUNT ? "\n" : i == 7 ? "\n  " : " ");
	fprintf(f,
"  expected, measured: pinned, refused (with an errno name), not-run, or\n"
"  none-pinned (no error and no page: a mismatch whatever the expectation);\n"
"  a cell whose setup failed is measured not-run with the setup's errno.\n"
"\n"
"Output: KTAP on stdout, one test per cell; \"# SKIP\" for the cells not\n"
"run, a summary and the wall time at the end.\n"
"\n"
"Exit status: 0 every cell as expected, 1 a mismatch, a cell whose setup\n"
"failed, or an unpin that failed, 2 usage error, unusable directory or\n"
"output file, 3 " GUP_PIN_TEST_DEVICE " missing or unusable, or of another ABI\n"
"version.\n");
}

/* 0: options valid; -1: help printed; otherwise an exit code. */
static int parse_matrix_opts(int argc, char **argv, struct matrix_opts *o)
{
	unsigned int d;
	int c;

	memset(o, 0, sizeof(*o));
	for (d = DIR_EXT4; d < DIR_COUNT; d++)
		o->dir[d] = dirs[d].def;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", matrix_options, NULL)) != -1) {
		switch (c) {
		case 'h':
			cmd_matrix_help(stdout);
			return -1;
		case OPT_FLAVOUR:
			o->flavour = optarg;
			break;
		case OPT_POLICY:
			o->policy = optarg;
			break;
		case OPT_EXT4_DIR:
			o->dir[DIR_EXT4] = optarg;
			break;
		case OPT_TMPFS_DIR:
			o->dir[DIR_TMPFS] = optarg;
			break;
		case OPT_RAMFS_DIR:
			o->dir[DIR_RAMFS] = optarg;
			break;
		case OPT_TSV:
			o->tsv = optarg;
			break;
		case OPT_JSON:
			o->json = optarg;
			break;
		case ':':
			return usage_error("matrix", "option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			if (optopt)
				return usage_error("matrix", "unknown option '-%c'", optopt);
			return usage_error("matrix", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("matrix", "unexpected argument '%s'", argv[optind]);
	if (!o->flavour)
		return usage_error("matrix", "no --flavour: name the kernel flavour (e.g. stock)");
	if (!matrix_valid_flavour(o->flavour))
		return usage_error("matrix", "bad --flavour '%s': 1 to 63 letters, digits, '.', '_' or '-'",
				   o->flavour);
	if (!o->policy)
		return usage_error("matrix", "no --policy: give one of: %s",
				   policy_names());
	o->expect = policy_lookup(o->policy);
	if (!o->expect)
		return usage_error("matrix", "unknown --policy '%s': give one of: %s",
				   o->policy, policy_names());
	for (d = DIR_EXT4; d < DIR_COUNT; d++)
		if (!o->dir[d][0])
			return usage_error("matrix", "empty %s", dirs[d].option);
	if (o->tsv && o->json && !strcmp(o->tsv, o->json))
		return usage_error("matrix", "--tsv and --json name the same file '%s'",
				   o->tsv);
	return 0;
}

/* ---- One run ---- */

struct cell_result {
	struct cell cell;
	struct expectation exp;		/* computed before the pin */
	enum matrix_outcome measured;
	int err;			/* refusal, or setup failure; 0: none */
	bool setup_failed;
	bool pin_attempted;
	__u32 nr_pinned;
	bool have_page;			/* @page is valid */
	struct gup_page_state page;
	int state_err;			/* GUP_PIN_IOC_STATE, 0 or -errno */
	int unpin_err;			/* GUP_PIN_IOC_UNPIN, 0 or -errno */
};

struct matrix_run {
	const struct matrix_opts *o;
	struct gupdev dev;
	char kernel[sizeof(((struct utsname *)0)->release)];
	size_t page;
	char *fill;			/* one page of MATRIX_FILL_BYTE */
	FILE *tsv, *json;
	struct cell_result *res;	/* MATRIX_NR_CELLS */
	unsigned int nr_ok, nr_mismatch, nr_setup_failed, nr_unpin_failed,
		     nr_skipped;
	double wall;			/* seconds */
};

/* The memory of one cell. */
struct cell_target {
	struct target t;
	bool mapped;			/* t was set up */
	char path[PATH_MAX];		/* the file to unlink, "" if none */
	char err[PATH_MAX + 128];	/* why the setup failed */
};

static enum target_prefault prefault_of(enum cell_state state)
{
	switch (state) {
	case STATE_READ:
		return TARGET_PREFAULT_READ;
	case STATE_WRITE:
		return TARGET_PREFAULT_WRITE;
	default:
		return TARGET_PREFAULT_NONE;
	}
}

/* Create @ct->path in @dir holding one page of MATRIX_FILL_BYTE. */
static int create_file(const struct matrix_run *r, const char *dir,
		       unsigned int n, struct cell_target *ct)
{
	size_t done = 0;
	ssize_t w;
	int fd, ret;

	if ((size_t)snprintf(ct->path, sizeof(ct->path), "%s/gupctl-matrix.%d.%u",
			     dir, (int)getpid(), n + 1) >= sizeof(ct->path)) {
		ct->path[0] = '\0';
		snprintf(ct->err, sizeof(ct->err), "directory name too long: %s", dir);
		return -ENAMETOOLONG;
	}
	fd = open(ct->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		snprintf(ct->err, sizeof(ct->err), "cannot create %s: %s",
			 ct->path, strerror(-ret));
		ct->path[0] = '\0';	/* not ours: do not unlink */
		return ret;
	}
	while (done < r->page) {
		w = write(fd, r->fill + done, r->page - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ret = w < 0 ? -errno : -EIO;
			snprintf(ct->err, sizeof(ct->err),
				 "cannot write one page to %s: %s", ct->path,
				 w < 0 ? strerror(-ret) : "short write");
			close(fd);
			return ret;
		}
		done += w;
	}
	if (close(fd) < 0) {
		ret = -errno;
		snprintf(ct->err, sizeof(ct->err), "cannot close %s: %s",
			 ct->path, strerror(-ret));
		return ret;
	}
	return 0;
}

static void cell_teardown(struct cell_target *ct)
{
	if (ct->mapped)
		target_teardown(&ct->t);
	ct->mapped = false;
	if (ct->path[0])
		unlink(ct->path);
	ct->path[0] = '\0';
}

/* 0, or -errno with the reason in ct->err; on failure nothing is left. */
static int cell_setup(const struct matrix_run *r, unsigned int n,
		      const struct cell *c, struct cell_target *ct)
{
	struct target_spec spec = {
		.kind = backings[c->backing].kind,
		.private = backings[c->backing].private,
		.read_only = backings[c->backing].read_only,
		.offset = 0,
		.length = r->page,
		.prefault = prefault_of(c->state),
	};
	int ret;

	ct->mapped = false;
	ct->path[0] = '\0';
	ct->err[0] = '\0';
	if (spec.read_only && spec.prefault == TARGET_PREFAULT_WRITE) {
		snprintf(ct->err, sizeof(ct->err),
			 "a PROT_READ mapping cannot be write-faulted from user space");
		return -EINVAL;
	}
	if (spec.kind == TARGET_FILE) {
		ret = create_file(r, r->o->dir[backings[c->backing].dir], n, ct);
		if (ret) {
			cell_teardown(ct);
			return ret;
		}
		spec.path = ct->path;
	}
	/* Maps, then touches the page as the state says. */
	ret = target_setup(&ct->t, &spec);
	if (ret) {
		snprintf(ct->err, sizeof(ct->err), "%s", ct->t.err);
		cell_teardown(ct);
		return ret;
	}
	ct->mapped = true;
	return 0;
}

/* Pin, look, unpin (never dirtying: ext4 would WARN on a page without buffers). */
static void cell_pin(struct matrix_run *r, const struct cell_target *ct,
		     struct cell_result *res)
{
	struct gup_pin_req req;
	__u32 count = 1;
	int ret;

	res->pin_attempted = true;
	ret = gupdev_pin(&r->dev, ct->t.addr, r->page, res->cell.method,
			 res->cell.flags, &req);
	if (ret) {
		res->measured = MATRIX_REFUSED;
		res->err = -ret;
		return;
	}
	res->nr_pinned = req.nr_pinned;
	if (!req.nr_pinned) {
		res->measured = MATRIX_NONE_PINNED;
		return;
	}
	res->measured = MATRIX_PINNED;
	res->state_err = gupdev_state(&r->dev, req.id, 0, &res->page, &count);
	res->have_page = !res->state_err && count == 1;
	res->unpin_err = gupdev_unpin(&r->dev, req.id, 0);
}

static bool cell_as_expected(const struct cell_result *res)
{
	switch (res->exp.outcome) {
	case OUTCOME_PINNED:
		return res->measured == MATRIX_PINNED;
	case OUTCOME_REFUSED:
		return res->measured == MATRIX_REFUSED && res->err == res->exp.err;
	default:
		return res->measured == MATRIX_NOT_RUN && !res->setup_failed;
	}
}

static const char *measured_str(const struct cell_result *res)
{
	return res->measured == MATRIX_REFUSED ? errno_name(res->err) :
	       matrix_outcome_name(res->measured);
}

static const char *expected_str(const struct expectation *e)
{
	switch (e->outcome) {
	case OUTCOME_PINNED:
		return "pinned";
	case OUTCOME_REFUSED:
		return errno_name(e->err);
	default:
		return "not-run";
	}
}

static enum matrix_outcome expected_outcome(const struct expectation *e)
{
	switch (e->outcome) {
	case OUTCOME_PINNED:
		return MATRIX_PINNED;
	case OUTCOME_REFUSED:
		return MATRIX_REFUSED;
	default:
		return MATRIX_NOT_RUN;
	}
}

/* Print cell @n's KTAP result (and the diagnostics before it); count it. */
static void cell_report(struct matrix_run *r, unsigned int n,
			const struct cell_result *res, const char *setup_err)
{
	const struct cell *c = &res->cell;
	char flags[64], desc[160], st[96];

	snprintf(desc, sizeof(desc), "%s %s %s %s", gup_method_name(c->method),
		 gup_flags_str(c->flags, flags, sizeof(flags)),
		 backing_name(c->backing), state_name(c->state));

	if (res->have_page)
		printf("# %u page: kind %s, fs %.16s, index %llu, mapcount %d, refcount %d, state %s\n",
		       n + 1, gup_page_kind_name(res->page.kind),
		       res->page.fs_name[0] ? res->page.fs_name : "-",
		       (unsigned long long)res->page.index, res->page.mapcount,
		       res->page.refcount,
		       gup_page_state_str(res->page.state, st, sizeof(st)));
	else if (res->state_err)
		printf("# %u GUP_PIN_IOC_STATE failed: %s (%s): page state not recorded\n",
		       n + 1, errno_name(res->state_err), strerror(-res->state_err));

	if (res->exp.outcome == OUTCOME_NOT_APPLICABLE && !res->setup_failed) {
		r->nr_skipped++;
		printf("ok %u %s # SKIP not applicable: %s\n", n + 1, desc,
		       res->exp.reason);
	} else if (res->setup_failed) {
		r->nr_setup_failed++;
		printf("not ok %u %s # setup failed: %s: %s\n", n + 1, desc,
		       errno_name(res->err), setup_err);
	} else if (res->unpin_err) {
		r->nr_unpin_failed++;
		printf("not ok %u %s # unpin failed: %s (%s): the pin stays until gupctl exits; measured pinned, expected %s: %s\n",
		       n + 1, desc, errno_name(res->unpin_err),
		       strerror(-res->unpin_err), expected_str(&res->exp),
		       res->exp.reason);
	} else if (cell_as_expected(res)) {
		r->nr_ok++;
		printf("ok %u %s # %s (expected: %s)\n", n + 1, desc,
		       measured_str(res), res->exp.reason);
	} else {
		r->nr_mismatch++;
		printf("not ok %u %s # MISMATCH measured %s, expected %s: %s\n",
		       n + 1, desc, measured_str(res), expected_str(&res->exp),
		       res->exp.reason);
	}
	fflush(stdout);
}

static void run_cell(struct matrix_run *r, unsigned int n)
{
	struct cell_result *res = &r->res[n];
	struct cell_target ct;
	int ret;

	memset(res, 0, sizeof(*res));
	matrix_cell(n, &res->cell);
	res->exp = r->o->expect(&res->cell);
	res->measured = MATRIX_NOT_RUN;
	if (res->exp.outcome == OUTCOME_NOT_APPLICABLE) {
		cell_report(r, n, res, NULL);
		return;
	}

	ret = cell_setup(r, n, &res->cell, &ct);
	if (ret) {
		res->setup_failed = true;
		res->err = -ret;
		cell_report(r, n, res, ct.err);
		return;
	}
	cell_pin(r, &ct, res);
	cell_teardown(&ct);
	cell_report(r, n, res, NULL);
}

/* ---- Outputs ---- */

static const char *or_dash(const char *s)
{
	return s && s[0] ? s : "-";
}

/* Column values of @res as strings ("-" for none); @buf holds some. */
struct cell_fields {
	const char *v[MCOL_COUNT];
	char flags[64], nr[16], fs[17], state[96];
};

static void cell_fields(const struct matrix_run *r, const struct cell_result *res,
			struct cell_fields *f)
{
	const struct cell *c = &res->cell;
	bool exp_refused = res->exp.outcome == OUTCOME_REFUSED;
	bool meas_err = res->measured == MATRIX_REFUSED || res->setup_failed;

	snprintf(f->nr, sizeof(f->nr), "%u", res->nr_pinned);
	snprintf(f->fs, sizeof(f->fs), "%.16s", res->page.fs_name);
	f->v[MCOL_FLAVOUR] = r->o->flavour;
	f->v[MCOL_POLICY] = r->o->policy;
	f->v[MCOL_METHOD] = gup_method_name(c->method);
	f->v[MCOL_FLAGS] = gup_flags_str(c->flags, f->flags, sizeof(f->flags));
	f->v[MCOL_BACKING] = backing_name(c->backing);
	f->v[MCOL_STATE] = state_name(c->state);
	f->v[MCOL_EXPECTED] = matrix_outcome_name(expected_outcome(&res->exp));
	f->v[MCOL_EXPECTED_ERRNO] = exp_refused ? errno_name(res->exp.err) : "-";
	f->v[MCOL_MEASURED] = matrix_outcome_name(res->measured);
	f->v[MCOL_MEASURED_ERRNO] = meas_err ? errno_name(res->err) : "-";
	f->v[MCOL_NR_PINNED] = res->pin_attempted ? f->nr : "-";
	f->v[MCOL_PAGE_KIND] = res->have_page ? gup_page_kind_name(res->page.kind) : "-";
	f->v[MCOL_PAGE_FS] = res->have_page ? or_dash(f->fs) : "-";
	f->v[MCOL_PAGE_STATE] = res->have_page ?
		gup_page_state_str(res->page.state, f->state, sizeof(f->state)) : "-";
	f->v[MCOL_REASON] = or_dash(res->exp.reason);
}

/* A TSV field: tabs and line breaks become spaces. */
static void tsv_field(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static void write_tsv(const struct matrix_run *r, FILE *f)
{
	struct cell_fields cf;
	unsigned int n, col;

	for (col = 0; col < MCOL_COUNT; col++)
		fprintf(f, "%s%c", matrix_column_name(col),
			col + 1 < MCOL_COUNT ? '\t' : '\n');
	for (n = 0; n < MATRIX_NR_CELLS; n++) {
		cell_fields(r, &r->res[n], &cf);
		for (col = 0; col < MCOL_COUNT; col++) {
			tsv_field(f, cf.v[col]);
			fputc(col + 1 < MCOL_COUNT ? '\t' : '\n', f);
		}
	}
	fprintf(f, "# flavour=%s policy=%s kernel=%s wall_seconds=%.1f\n",
		r->o->flavour, r->o->policy, r->kernel, r->wall);
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (ch == '\t')
			fputs("\\t", f);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* "-" is null; nr_pinned is a number. */
static void json_value(FILE *f, enum matrix_column col, const char *v)
{
	if (!strcmp(v, "-"))
		fputs("null", f);
	else if (col == MCOL_NR_PINNED)
		fputs(v, f);
	else
		json_string(f, v);
}

static void write_json(const struct matrix_run *r, FILE *f)
{
	struct cell_fields cf;
	unsigned int n, col;

	fputs("{\n  \"flavour\": ", f);
	json_string(f, r->o->flavour);
	fputs(",\n  \"policy\": ", f);
	json_string(f, r->o->policy);
	fputs(",\n  \"kernel\": ", f);
	json_string(f, r->kernel);
	fprintf(f, ",\n  \"wall_seconds\": %.1f,\n  \"cells\": [\n", r->wall);
	for (n = 0; n < MATRIX_NR_CELLS; n++) {
		cell_fields(r, &r->res[n], &cf);
		fprintf(f, "    {\"index\": %u", n + 1);
		for (col = 0; col < MCOL_COUNT; col++) {
			fprintf(f, ", \"%s\": ", matrix_column_name(col));
			json_value(f, col, cf.v[col]);
		}
		fprintf(f, "}%s\n", n + 1 < MATRIX_NR_CELLS ? "," : "");
	}
	fputs("  ]\n}\n", f);
}

/* Flush, sync (the guest reboots right after) and close; 0 or -errno. */
static int finish_file(FILE *f)
{
	int ret = 0;

	if (fflush(f) || ferror(f))
		ret = -(errno ?: EIO);
	else if (fsync(fileno(f)) && errno != EINVAL && errno != EROFS)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

static int write_outputs(struct matrix_run *r)
{
	int ret, status = 0;

	if (r->tsv) {
		write_tsv(r, r->tsv);
		ret = finish_file(r->tsv);
		r->tsv = NULL;
		if (ret) {
			fprintf(stderr, "gupctl matrix: writing %s failed: %s (%s)\n",
				r->o->tsv, errno_name(ret), strerror(-ret));
			status = GUPCTL_EXIT_USAGE;
		}
	}
	if (r->json) {
		write_json(r, r->json);
		ret = finish_file(r->json);
		r->json = NULL;
		if (ret) {
			fprintf(stderr, "gupctl matrix: writing %s failed: %s (%s)\n",
				r->o->json, errno_name(ret), strerror(-ret));
			status = GUPCTL_EXIT_USAGE;
		}
	}
	return status;
}

/* ---- Checks before the run ---- */

/* Is each directory there, on the file system its cells are named after? */
static int check_dirs(const struct matrix_opts *o)
{
	struct statfs sfs;
	unsigned int d;

	for (d = DIR_EXT4; d < DIR_COUNT; d++) {
		if (statfs(o->dir[d], &sfs) < 0) {
			fprintf(stderr, "gupctl matrix: %s %s: %s (%s): give a directory on %s\n",
				dirs[d].option, o->dir[d], errno_name(errno),
				strerror(errno), dirs[d].fs);
			return GUPCTL_EXIT_USAGE;
		}
		if ((unsigned long)sfs.f_type != dirs[d].magic) {
			fprintf(stderr, "gupctl matrix: %s %s is not on %s (file system magic %#lx): mount %s there or give another %s\n",
				dirs[d].option, o->dir[d], dirs[d].fs,
				(unsigned long)sfs.f_type, dirs[d].fs,
				dirs[d].option);
			return GUPCTL_EXIT_USAGE;
		}
	}
	return 0;
}

static FILE *open_output(const char *opt, const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f)
		fprintf(stderr, "gupctl matrix: cannot open %s %s: %s (%s)\n",
			opt, path, errno_name(errno), strerror(errno));
	return f;
}

/* The running kernel's GUP file-write policy, for the KTAP header. */
static void print_kernel_policy(const struct matrix_opts *o)
{
	int has = gup_file_write_policy();
	/* Every policy but stock's is (a version of) the series. */
	bool want = strcmp(o->policy, "stock") != 0;

	if (has < 0) {
		printf("# kernel GUP file-write policy: unknown (/proc/kallsyms: %s)\n",
		       errno_name(has));
		return;
	}
	printf("# kernel GUP file-write policy: %s (vma_needs_dirty_tracking %sin /proc/kallsyms)\n",
	       has ? "present" : "absent", has ? "" : "not ");
	if (has != want)
		printf("# note: --policy %s expects it %s: expect mismatches\n",
		       o->policy, want ? "present" : "absent");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run_matrix(struct matrix_run *r)
{
	unsigned int n;
	double start;
	int status;

	printf("KTAP version 1\n");
	printf("# gup-lab matrix flavour=%s policy=%s kernel=%s\n",
	       r->o->flavour, r->o->policy, r->kernel);
	printf("1..%u\n", MATRIX_NR_CELLS);
	print_kernel_policy(r->o);
	printf("# dirs: ext4 %s, tmpfs %s, ramfs %s\n", r->o->dir[DIR_EXT4],
	       r->o->dir[DIR_TMPFS], r->o->dir[DIR_RAMFS]);
	fflush(stdout);

	start = now();
	for (n = 0; n < MATRIX_NR_CELLS; n++)
		run_cell(r, n);
	r->wall = now() - start;

	printf("# matrix: %u cells: %u as expected, %u mismatches, %u setup failures, %u unpin failures, %u not applicable (not run)\n",
	       MATRIX_NR_CELLS, r->nr_ok, r->nr_mismatch, r->nr_setup_failed,
	       r->nr_unpin_failed, r->nr_skipped);
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n",
	       r->nr_ok, r->nr_mismatch + r->nr_setup_failed + r->nr_unpin_failed,
	       r->nr_skipped);
	printf("# wall time: %.1f s\n", r->wall);
	fflush(stdout);

	status = write_outputs(r);
	if (status)
		return status;
	return r->nr_mismatch || r->nr_setup_failed || r->nr_unpin_failed ?
	       GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK;
}

int cmd_matrix(int argc, char **argv)
{
	struct matrix_opts o;
	struct matrix_run r;
	struct utsname u;
	int ret;

	ret = parse_matrix_opts(argc, argv, &o);
	if (ret)
		return ret < 0 ? GUPCTL_EXIT_OK : ret;

	memset(&r, 0, sizeof(r));
	r.o = &o;
	r.page = getpagesize();
	if (uname(&u) == 0)
		snprintf(r.kernel, sizeof(r.kernel), "%s", u.release);
	else
		snprintf(r.kernel, sizeof(r.kernel), "unknown");

	ret = gupctl_open_device(&r.dev, "matrix");
	if (ret)
		return ret;
	ret = check_dirs(&o);
	if (ret)
		goto out_dev;

	ret = GUPCTL_EXIT_USAGE;
	r.res = calloc(MATRIX_NR_CELLS, sizeof(*r.res));
	r.fill = malloc(r.page);
	if (!r.res || !r.fill) {
		fprintf(stderr, "gupctl matrix: out of memory (ENOMEM)\n");
		goto out_mem;
	}
	memset(r.fill, MATRIX_FILL_BYTE, r.page);
	if (o.tsv) {
		r.tsv = open_output("--tsv", o.tsv);
		if (!r.tsv)
			goto out_mem;
	}
	if (o.json) {
		r.json = open_output("--json", o.json);
		if (!r.json)
			goto out_files;
	}

	ret = run_matrix(&r);

out_files:
	if (r.tsv)
		fclose(r.tsv);
	if (r.json)
		fclose(r.json);
out_mem:
	free(r.fill);
	free(r.res);
out_dev:
	gupdev_close(&r.dev);
	return ret;
}
