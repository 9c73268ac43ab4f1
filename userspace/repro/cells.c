// SPDX-License-Identifier: GPL-2.0
/*
 * repro: the cells of the ext4-2018 reproduction (on ext4, xfs and btrfs),
 * their names, and the OLD/NEW patterns, shared by the guest and the host
 * sides (cells.h).
 */
#include <string.h>

#include "gup_pin_test.h"
#include "lib/util.h"
#include "model/cell.h"
#include "model/measured.h"
#include "repro/cells.h"

const char * const repro_method_choices[GUP_PIN_METHOD_COUNT + 1] = {
	[GUP_PIN_METHOD_PIN]		= "pin",
	[GUP_PIN_METHOD_PIN_FAST]	= "pin-fast",
	[GUP_PIN_METHOD_GET]		= "get",
	[GUP_PIN_METHOD_GET_FAST]	= "get-fast",
	[GUP_PIN_METHOD_PIN_REMOTE]	= "pin-remote",
	[GUP_PIN_METHOD_GET_REMOTE]	= "get-remote",
	[GUP_PIN_METHOD_PIN_UNLOCKED]	= "pin-unlocked",
	[GUP_PIN_METHOD_GET_UNLOCKED]	= "get-unlocked",
};

char *repro_cell_label(const struct repro_cell *c, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s%s%s%s",
		 c->fs == REPRO_FS_EXT4 || c->fs >= REPRO_FS_COUNT ? "" : repro_fs_choices[c->fs],
		 c->fs == REPRO_FS_EXT4 || c->fs >= REPRO_FS_COUNT ? "" : ":",
		 c->route == REPRO_ROUTE_READ ? "" : repro_route_choices[c->route],
		 c->route == REPRO_ROUTE_READ ? "" : ":",
		 c->method < GUP_PIN_METHOD_COUNT ? repro_method_choices[c->method] : "?",
		 c->flags & GUP_PIN_FLAG_LONGTERM ? "+longterm" : "",
		 c->flags & GUP_PIN_FLAG_WRITE ? "+write" : "");
	return buf;
}

char *repro_cell_file(const struct repro_cell *c, char *buf, size_t size)
{
	char *p;

	repro_cell_label(c, buf, size);
	for (p = strchr(buf, ':'); p; p = strchr(p, ':'))
		*p = '-';
	return buf;
}

const char *repro_route_title(const struct repro_cell *c)
{
	switch (c->route) {
	case REPRO_ROUTE_MOVE_EXT:
		return "MOVE_EXT frees buffers";
	case REPRO_ROUTE_SWAPEXT:
		return "SWAPEXT truncates the cache";
	case REPRO_ROUTE_WRITEBACK:
		return "fsync while held";
	case REPRO_ROUTE_HOLE:
		return c->flags & GUP_PIN_FLAG_WRITE ? "write fault over a hole" :
		       "read fault over a hole";
	default:
		break;
	}
	if (c->flags & GUP_PIN_FLAG_WRITE)
		return "write fault (mkwrite)";
	return c->fs == REPRO_FS_EXT4 ? "read fault (no buffers)" : "read fault (no mkwrite)";
}

/*
 * The quick set: each route's point once per flavour (a read pin, a
 * long-term fast read pin, a pinned write, a FOLL_GET write, FOLL_GET
 * writes on the move-ext route), all on ext4; on a 6.12 or 7.3 kernel also
 * the FOLL_GET write of xfs' and btrfs' second route, the twins of the
 * move-ext cell (6.12 is where btrfs refuses the page, 7.3 where it fixes
 * it up again: make check sees the lab's three file systems, their images
 * read back, in one boot).
 */
static const struct repro_cell repro_quick[] = {
	{ REPRO_ROUTE_READ, GUP_PIN_METHOD_PIN, 0, REPRO_FS_EXT4 },
	{ REPRO_ROUTE_READ, GUP_PIN_METHOD_PIN_FAST, GUP_PIN_FLAG_LONGTERM, REPRO_FS_EXT4 },
	{ REPRO_ROUTE_READ, GUP_PIN_METHOD_PIN, GUP_PIN_FLAG_LONGTERM | GUP_PIN_FLAG_WRITE,
	  REPRO_FS_EXT4 },
	{ REPRO_ROUTE_READ, GUP_PIN_METHOD_GET, GUP_PIN_FLAG_WRITE, REPRO_FS_EXT4 },
	{ REPRO_ROUTE_MOVE_EXT, GUP_PIN_METHOD_GET, GUP_PIN_FLAG_WRITE, REPRO_FS_EXT4 },
};

static const struct repro_cell repro_quick_612[] = {
	{ REPRO_ROUTE_SWAPEXT, GUP_PIN_METHOD_GET, GUP_PIN_FLAG_WRITE, REPRO_FS_XFS },
	{ REPRO_ROUTE_WRITEBACK, GUP_PIN_METHOD_GET, GUP_PIN_FLAG_WRITE, REPRO_FS_BTRFS },
};

/* The hole route's methods: a pin and a plain reference, no FOLL_WRITE. */
static const unsigned int repro_hole_methods[] = {
	GUP_PIN_METHOD_PIN, GUP_PIN_METHOD_GET,
};

/*
 * Every valid cell of one file system: the read route (method, FOLL_LONGTERM,
 * FOLL_WRITE, the last varying fastest), then the file system's second
 * route (move-ext, swapext, writeback), then the hole route.  The second
 * route is about FOLL_WRITE pins (whose write fault tells the file system,
 * which then loses track of the page); without FOLL_WRITE the read route
 * has already shown the page dirtied behind its back.  The hole route is
 * that read route's page over a hole: a pin and a reference suffice, the
 * policies' answers are the read route's.
 */
static unsigned int repro_fs_cells(enum repro_fs fs, struct repro_cell *cells,
				   unsigned int n, unsigned int max)
{
	static const unsigned int flag_sets[] = {
		0, GUP_PIN_FLAG_WRITE, GUP_PIN_FLAG_LONGTERM,
		GUP_PIN_FLAG_LONGTERM | GUP_PIN_FLAG_WRITE,
	};
	enum repro_route routes[] = { REPRO_ROUTE_READ, REPRO_ROUTE_COUNT };
	struct repro_cell c;
	unsigned int r, m, f;
	const char *why;

	for (r = 0; r < REPRO_ROUTE_COUNT; r++)
		if (repro_route_fs(r) == fs)
			routes[1] = r;
	for (r = 0; r < ARRAY_SIZE(routes) && routes[r] != REPRO_ROUTE_COUNT; r++) {
		for (m = 0; m < GUP_PIN_METHOD_COUNT; m++) {
			for (f = 0; f < ARRAY_SIZE(flag_sets); f++) {
				c = (struct repro_cell){ routes[r], m, flag_sets[f], fs };
				if (!repro_cell_valid(&c, &why))
					continue;
				if (r && !(c.flags & GUP_PIN_FLAG_WRITE))
					continue;
				if (n < max)
					cells[n++] = c;
			}
		}
	}
	for (m = 0; m < ARRAY_SIZE(repro_hole_methods) && n < max; m++)
		cells[n++] = (struct repro_cell){ REPRO_ROUTE_HOLE, repro_hole_methods[m], 0, fs };
	return n;
}

unsigned int repro_cells(bool quick, bool twins, struct repro_cell *cells,
			 unsigned int max)
{
	unsigned int n = 0, i, fs;

	if (quick) {
		for (i = 0; i < ARRAY_SIZE(repro_quick) && n < max; i++)
			cells[n++] = repro_quick[i];
		if (twins)
			for (i = 0; i < ARRAY_SIZE(repro_quick_612) && n < max; i++)
				cells[n++] = repro_quick_612[i];
		return n;
	}
	for (fs = 0; fs < REPRO_FS_COUNT; fs++)
		n = repro_fs_cells(fs, cells, n, max);
	return n;
}

/* Line @i of pattern @tag, REPRO_LINE bytes, into @line. */
static void repro_pattern_line(char *line, const char *tag, size_t i)
{
	char text[REPRO_LINE + 1];
	int n = snprintf(text, sizeof(text), "gup-lab repro %s line %02zu", tag, i);

	memset(line, ' ', REPRO_LINE);
	memcpy(line, text, n < REPRO_LINE ? n : REPRO_LINE - 1);
	line[REPRO_LINE - 1] = '\n';
}

void repro_fill_pattern(char *buf, size_t len, const char *tag)
{
	size_t off;

	for (off = 0; off + REPRO_LINE <= len; off += REPRO_LINE)
		repro_pattern_line(buf + off, tag, off / REPRO_LINE);
}

const char *repro_classify(const char *buf, size_t len)
{
	size_t off, nr_old = 0, nr_new = 0, nr_lines = len / REPRO_LINE;
	char old_line[REPRO_LINE], new_line[REPRO_LINE];

	for (off = 0; off < len && !buf[off]; off++)
		;
	if (off == len)
		return "zeros";

	for (off = 0; off + REPRO_LINE <= len; off += REPRO_LINE) {
		repro_pattern_line(old_line, "OLD", off / REPRO_LINE);
		repro_pattern_line(new_line, "NEW", off / REPRO_LINE);
		if (!memcmp(buf + off, old_line, REPRO_LINE))
			nr_old++;
		else if (!memcmp(buf + off, new_line, REPRO_LINE))
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

int repro_check_opts(const char *cmd, const struct repro_cell *c,
		     const struct repro_flavour *fl, bool required)
{
	const char *why;
	bool policy = fl->policy, ext4 = fl->ext4 != REPRO_EXT4_COUNT;
	char msg[512];

	if (!repro_cell_valid(c, &why))
		return usage_error(cmd, "%s", why);

	if (policy != ext4)
		return usage_error(cmd, "--policy and --ext4 go together: give both");
	if (required && !policy)
		return usage_error(cmd, "no --policy and --ext4: give the flavour's columns");
	if (fl->policy && measured_policy_error(fl->policy, fl->source, msg, sizeof(msg)))
		return usage_error(cmd, "%s", msg);
	/* The model's xfs and btrfs answers follow the policy's source. */
	if (fl->source && !fl->policy)
		return usage_error(cmd, "--source goes with --policy and --ext4");
	if (fl->source && !policy_is_none(fl->policy) &&
	    strcmp(fl->source, policy_source(fl->policy)))
		return usage_error(cmd, "--source %s, but policy %s is the code of %s: "
				   "patches/flavours' gup and source columns disagree",
				   fl->source, fl->policy, policy_source(fl->policy));
	return 0;
}

int repro_parse(const char *cmd, int argc, char **argv, const struct gopt *opts,
		const char * const *usage)
{
	int argi, ret = gopt_parse(cmd, argc, argv, opts, usage, &argi);

	if (ret == GOPT_HELP)
		return GUPCTL_EXIT_OK;
	if (ret)
		return ret;
	if (argi < argc)
		return usage_error(cmd, "unexpected argument '%s'", argv[argi]);
	return -1;
}

const char *repro_json_str(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

const char *repro_json_outcome(json_t *cell, const char *which)
{
	const char *s = repro_json_str(json_object_get(cell, which), "outcome");

	return s ? s : "?";
}
