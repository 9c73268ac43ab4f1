// SPDX-License-Identifier: GPL-2.0
/*
 * repro: the cells of the ext4-2018 reproduction, their names, and the
 * OLD/NEW patterns, shared by the guest and the host sides (cells.h).
 */
#include <string.h>

#include "gup_pin_test.h"
#include "lib/util.h"
#include "model/cell.h"
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
	snprintf(buf, size, "%s%s%s%s%s",
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
	p = strchr(buf, ':');
	if (p)
		*p = '-';
	return buf;
}

const char *repro_route_title(const struct repro_cell *c)
{
	if (c->route == REPRO_ROUTE_MOVE_EXT)
		return "MOVE_EXT frees buffers";
	return c->flags & GUP_PIN_FLAG_WRITE ? "write fault (mkwrite)" :
	       "read fault (no buffers)";
}

/*
 * The quick set: each route's point once per flavour (a read pin, a
 * long-term fast read pin, a pinned write, a FOLL_GET write, FOLL_GET
 * writes on the move-ext route).
 */
static const struct repro_cell repro_quick[] = {
	{ REPRO_ROUTE_READ, GUP_PIN_METHOD_PIN, 0 },
	{ REPRO_ROUTE_READ, GUP_PIN_METHOD_PIN_FAST, GUP_PIN_FLAG_LONGTERM },
	{ REPRO_ROUTE_READ, GUP_PIN_METHOD_PIN, GUP_PIN_FLAG_LONGTERM | GUP_PIN_FLAG_WRITE },
	{ REPRO_ROUTE_READ, GUP_PIN_METHOD_GET, GUP_PIN_FLAG_WRITE },
	{ REPRO_ROUTE_MOVE_EXT, GUP_PIN_METHOD_GET, GUP_PIN_FLAG_WRITE },
};

/*
 * Every valid cell: route, method, FOLL_LONGTERM, FOLL_WRITE, the last
 * varying fastest.  The move-ext route is about FOLL_WRITE pins (whose
 * write fault attaches the buffers it then frees); without FOLL_WRITE the
 * read route has already shown the page without buffers.
 */
unsigned int repro_cells(bool quick, struct repro_cell *cells, unsigned int max)
{
	static const unsigned int flag_sets[] = {
		0, GUP_PIN_FLAG_WRITE, GUP_PIN_FLAG_LONGTERM,
		GUP_PIN_FLAG_LONGTERM | GUP_PIN_FLAG_WRITE,
	};
	struct repro_cell c;
	unsigned int n = 0, r, m, f;
	const char *why;

	if (quick) {
		for (n = 0; n < ARRAY_SIZE(repro_quick) && n < max; n++)
			cells[n] = repro_quick[n];
		return n;
	}
	for (r = 0; r < REPRO_ROUTE_COUNT; r++) {
		for (m = 0; m < GUP_PIN_METHOD_COUNT; m++) {
			for (f = 0; f < ARRAY_SIZE(flag_sets); f++) {
				c = (struct repro_cell){ r, m, flag_sets[f] };
				if (!repro_cell_valid(&c, &why))
					continue;
				if (r == REPRO_ROUTE_MOVE_EXT && !(c.flags & GUP_PIN_FLAG_WRITE))
					continue;
				if (n < max)
					cells[n++] = c;
			}
		}
	}
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

	if (!repro_cell_valid(c, &why))
		return usage_error(cmd, "%s", why);

	if (policy != ext4)
		return usage_error(cmd, "--policy and --ext4 go together: give both");
	if (required && !policy)
		return usage_error(cmd, "no --policy and --ext4: give the flavour's columns");
	if (fl->policy && !policy_lookup(fl->policy))
		return usage_error(cmd, "unknown --policy '%s': give one of: %s",
				   fl->policy, policy_names());
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
