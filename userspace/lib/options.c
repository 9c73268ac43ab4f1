// SPDX-License-Identifier: GPL-2.0
/*
 * options: parse a command line and print its help from one table
 * (options.h).  getopt_long() does the parsing, so gupctl accepts what
 * every GNU tool accepts ("--opt=val", "--opt val", "-xval", "--").
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/options.h"
#include "lib/util.h"

#define GOPT_LONG_BASE	256	/* getopt_long() val of entry i: base + i */
#define GOPT_LIST_OPTS	(GOPT_LONG_BASE - 1)	/* --list-opts */
#define GOPT_HELP_COL	26	/* where the help text starts */
#define GOPT_TEXT_COL	12	/* where a GOPT_TEXT's help starts */

static bool gopt_is_option(const struct gopt *o)
{
	return o->type != GOPT_TYPE_GROUP && o->type != GOPT_TYPE_TEXT;
}

static bool gopt_takes_arg(const struct gopt *o)
{
	switch (o->type) {
	case GOPT_TYPE_STRING:
	case GOPT_TYPE_UINT:
	case GOPT_TYPE_CHOICE:
		return true;
	case GOPT_TYPE_CALLBACK:
		return o->argh;
	default:
		return false;
	}
}

static size_t gopt_count(const struct gopt *opts)
{
	size_t n = 0;

	while (opts[n].type != GOPT_TYPE_END)
		n++;
	return n;
}

char *gopt_choices_str(const char * const *choices, char *buf, size_t size)
{
	size_t used = 0;
	int i, n;

	buf[0] = '\0';
	for (i = 0; choices && choices[i]; i++) {
		n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
			     choices[i]);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += n;
	}
	return buf;
}

/* "--name" or "-c", for messages. */
static const char *gopt_name(const struct gopt *o, char *buf, size_t size)
{
	if (o->long_name)
		snprintf(buf, size, "--%s", o->long_name);
	else
		snprintf(buf, size, "-%c", o->short_name);
	return buf;
}

static int gopt_take(const char *cmd, const struct gopt *o, const char *arg)
{
	char name[64], list[256], *end;
	unsigned long v;
	int i;

	switch (o->type) {
	case GOPT_TYPE_BOOL:
		*(bool *)o->value = true;
		return 0;
	case GOPT_TYPE_BIT:
		*(unsigned int *)o->value |= o->bit;
		return 0;
	case GOPT_TYPE_SET:
		*(unsigned int *)o->value = o->bit;
		return 0;
	case GOPT_TYPE_STRING:
		*(const char **)o->value = arg;
		return 0;
	case GOPT_TYPE_UINT:
		errno = 0;
		v = strtoul(arg, &end, 0);
		if (errno || end == arg || *end || arg[0] == '-' || v > ~0U)
			return usage_error(cmd, "bad %s '%s': give a number",
					   gopt_name(o, name, sizeof(name)), arg);
		*(unsigned int *)o->value = v;
		return 0;
	case GOPT_TYPE_CHOICE:
		for (i = 0; o->choices[i]; i++) {
			if (!strcmp(arg, o->choices[i])) {
				*(unsigned int *)o->value = i;
				return 0;
			}
		}
		return usage_error(cmd, "bad %s '%s': give %s",
				   gopt_name(o, name, sizeof(name)), arg,
				   gopt_choices_str(o->choices, list, sizeof(list)));
	case GOPT_TYPE_CALLBACK:
		return o->cb(o, arg);
	default:
		return 0;
	}
}

/* The entry getopt_long() answered @c (an option's val) for, or NULL. */
static const struct gopt *gopt_find(const struct gopt *opts, size_t n, int c)
{
	size_t i;

	if (c >= GOPT_LONG_BASE)
		return (size_t)(c - GOPT_LONG_BASE) < n ? &opts[c - GOPT_LONG_BASE] : NULL;
	for (i = 0; i < n; i++)
		if (gopt_is_option(&opts[i]) && opts[i].short_name == c)
			return &opts[i];
	return NULL;
}

/* getopt_long() took an unknown "--x": say whether it is a prefix of two. */
static int gopt_unknown(const char *cmd, const struct option *longopts,
			const char *arg)
{
	size_t len = strcspn(arg, "=") - 2, used = 0;
	char list[256];
	int i, n = 0;

	if (strncmp(arg, "--", 2))
		return usage_error(cmd, "unknown option '%s'", arg);
	list[0] = '\0';
	for (i = 0; longopts[i].name; i++) {
		if (strncmp(longopts[i].name, arg + 2, len) || used >= sizeof(list))
			continue;
		used += snprintf(list + used, sizeof(list) - used, "%s--%s",
				 n++ ? ", " : "", longopts[i].name);
	}
	if (n > 1)
		return usage_error(cmd, "ambiguous option '%.*s': %s", (int)len + 2,
				   arg, list);
	return usage_error(cmd, "unknown option '%s'", arg);
}

static void gopt_list(const struct option *longopts)
{
	int i;

	for (i = 0; longopts[i].name; i++)
		if (longopts[i].val != GOPT_LIST_OPTS)
			printf("--%s%s\n", longopts[i].name,
			       longopts[i].has_arg ? "=" : "");
}

/* One answer of getopt_long(): 0 to go on, else what gopt_parse returns. */
static int gopt_one(const char *cmd, int c, const struct gopt *opts, size_t n,
		    const struct option *longopts, char **argv,
		    const char * const *usage)
{
	const struct gopt *o;
	char name[64];

	switch (c) {
	case 'h':
		gopt_usage(stdout, cmd, opts, usage);
		return GOPT_HELP;
	case GOPT_LIST_OPTS:
		gopt_list(longopts);
		return GOPT_HELP;
	case ':':
		o = gopt_find(opts, n, optopt);
		return usage_error(cmd, "option '%s' needs an argument",
				   o ? gopt_name(o, name, sizeof(name)) : argv[optind - 1]);
	case '?':
		if (optopt >= GOPT_LONG_BASE) {
			o = gopt_find(opts, n, optopt);
			return usage_error(cmd, "option '%s' takes no argument",
					   o ? gopt_name(o, name, sizeof(name)) : argv[optind - 1]);
		}
		if (optopt)
			return usage_error(cmd, "unknown option '-%c'", optopt);
		return gopt_unknown(cmd, longopts, argv[optind - 1]);
	default:
		o = gopt_find(opts, n, c);
		return o ? gopt_take(cmd, o, optarg) :
			   usage_error(cmd, "unknown option '-%c'", c);
	}
}

/*
 * glibc keeps getopt's ordering ('+': stop at the first operand) until a
 * call with optind 0.  Leave getopt as a fresh process has it, for a
 * command that still calls getopt_long() itself after setting optind = 1.
 */
static void gopt_reset_getopt(void)
{
	static char name[] = "gupctl";
	char *argv[2] = { name, NULL };
	int saved = optind;

	optind = 0;
	getopt(1, argv, ":");
	optind = saved;
}

int gopt_parse_flags(const char *cmd, int argc, char **argv,
		     const struct gopt *opts, const char * const *usage,
		     unsigned int flags, int *argi)
{
	size_t i, n = gopt_count(opts), nl = 0;
	struct option *longopts = calloc(n + 3, sizeof(*longopts));
	char *shortopts = malloc(3 * n + 5), *p;
	const struct gopt *o;
	int c, ret = 0;

	if (!longopts || !shortopts) {
		free(longopts);
		free(shortopts);
		return usage_error(cmd, "out of memory");
	}
	p = shortopts;
	if (flags & GOPT_STOP_AT_OPERAND)
		*p++ = '+';
	/* ':' (after '+'): report a missing argument as ':' rather than '?' */
	*p++ = ':';
	*p++ = 'h';
	for (i = 0; i < n; i++) {
		o = &opts[i];
		if (!gopt_is_option(o))
			continue;
		if (o->short_name) {
			*p++ = o->short_name;
			if (gopt_takes_arg(o))
				*p++ = ':';
		}
		if (o->long_name) {
			longopts[nl].name = o->long_name;
			longopts[nl].has_arg = gopt_takes_arg(o) ?
					       required_argument : no_argument;
			longopts[nl].val = GOPT_LONG_BASE + i;
			nl++;
		}
	}
	*p = '\0';
	longopts[nl].name = "help";
	longopts[nl++].val = 'h';
	longopts[nl].name = "list-opts";
	longopts[nl].val = GOPT_LIST_OPTS;

	opterr = 0;
	/* 0, not 1: glibc then forgets the previous call's ordering ('+') */
	optind = 0;
	while (!ret && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1)
		ret = gopt_one(cmd, c, opts, n, longopts, argv, usage);
	free(longopts);
	free(shortopts);
	*argi = optind;
	if (flags & GOPT_STOP_AT_OPERAND)
		gopt_reset_getopt();
	return ret;
}

int gopt_parse(const char *cmd, int argc, char **argv, const struct gopt *opts,
	       const char * const *usage, int *argi)
{
	return gopt_parse_flags(cmd, argc, argv, opts, usage, 0, argi);
}

static void gopt_usage_line(FILE *f, const struct gopt *o)
{
	char list[256];
	int col;

	if (o->short_name && o->long_name)
		col = fprintf(f, "  -%c, --%s", o->short_name, o->long_name);
	else if (o->short_name)
		col = fprintf(f, "  -%c", o->short_name);
	else
		col = fprintf(f, "      --%s", o->long_name);
	if (o->argh)
		col += fprintf(f, " %s", o->argh);
	if (col >= GOPT_HELP_COL - 1) {
		fputc('\n', f);
		col = 0;
	}
	fprintf(f, "%*s%s\n", GOPT_HELP_COL - col, "", o->help);
	if (o->type == GOPT_TYPE_CHOICE)
		fprintf(f, "%*s%s: %s\n", GOPT_HELP_COL, "", o->argh,
			gopt_choices_str(o->choices, list, sizeof(list)));
}

static void gopt_text_line(FILE *f, const struct gopt *o)
{
	int col = fprintf(f, "  %s", o->long_name);

	fprintf(f, "%*s%s\n", col < GOPT_TEXT_COL - 1 ? GOPT_TEXT_COL - col : 1,
		"", o->help);
}

void gopt_usage(FILE *f, const char *cmd, const struct gopt *opts,
		const char * const *usage)
{
	bool grouped = false;
	const struct gopt *o;
	int i;

	for (i = 0; usage && usage[i] && usage[i][0]; i++)
		fprintf(f, "%s %s\n", i ? "   or:" : "usage:", usage[i]);
	/* after an empty string: a description, as it is */
	if (usage && usage[i]) {
		fputc('\n', f);
		while (usage[++i])
			fprintf(f, "%s\n", usage[i]);
	}
	if (opts->type != GOPT_TYPE_GROUP)
		fprintf(f, "\nOptions:\n");
	for (o = opts; o->type != GOPT_TYPE_END; o++) {
		grouped |= o->type == GOPT_TYPE_GROUP;
		if (o->type == GOPT_TYPE_GROUP)
			fprintf(f, "\n%s\n", o->help);
		else if (o->type == GOPT_TYPE_TEXT)
			gopt_text_line(f, o);
		else
			gopt_usage_line(f, o);
	}
	/* after groups, a block of its own */
	fprintf(f, "%s  -h, --help%*sthis help\n", grouped ? "\n" : "",
		GOPT_HELP_COL - 12, "");
	if (cmd)
		fprintf(f, "\nThe guide: docs/gupctl.md, section \"gupctl %s\".\n", cmd);
	else
		fprintf(f, "\nThe guide: docs/gupctl.md.\n");
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gupctl%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'gupctl %s%s--help'.\n", cmd ? cmd : "",
		cmd ? " " : "");
	return GUPCTL_EXIT_USAGE;
}

const struct gopt_cmd *gopt_cmd_find(const struct gopt_cmd *cmds, const char *name)
{
	for (; cmds->name; cmds++)
		if (!strcmp(cmds->name, name))
			return cmds;
	return NULL;
}

int gopt_cmd_run(const char *cmd, const struct gopt_cmd *cmds, int argc, char **argv)
{
	const struct gopt_cmd *c;

	if (argc < 1)
		return GOPT_CMD_NONE;
	c = gopt_cmd_find(cmds, argv[0]);
	if (!c)
		return GOPT_CMD_NONE;
	if (!c->run) {
		fprintf(stderr,
			"gupctl%s%s: '%s' is a host-only command, not in this build (gupctl-guest): run it on the host\n",
			cmd ? " " : "", cmd ? cmd : "", c->name);
		return GUPCTL_EXIT_USAGE;
	}
	return c->run(argc, argv);
}

/* The names of @cmds' entries that have a summary (the others are internal), "a, b or c". */
static char *gopt_cmd_names(const struct gopt_cmd *cmds, char *buf, size_t size)
{
	const struct gopt_cmd *c, *last = NULL;
	size_t n = 0;

	buf[0] = '\0';
	for (c = cmds; c->name; c++)
		if (c->summary)
			last = c;
	for (c = cmds; c->name; c++) {
		if (!c->summary)
			continue;
		n += snprintf(buf + n, n < size ? size - n : 0, "%s%s",
			      c == cmds ? "" : c == last ? " or " : ", ", c->name);
	}
	return buf;
}

int gopt_cmd_main(const char *cmd, const struct gopt_cmd *cmds,
		  const char * const *usage, int argc, char **argv)
{
	const struct gopt opts[] = { GOPT_END() };
	char names[256];
	int ret, argi;

	ret = gopt_cmd_run(cmd, cmds, argc - 1, argv + 1);
	if (ret != GOPT_CMD_NONE)
		return ret;
	ret = gopt_parse(cmd, argc, argv, opts, usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	gopt_cmd_names(cmds, names, sizeof(names));
	if (argi >= argc)
		return usage_error(cmd, "give a subcommand: %s", names);
	return usage_error(cmd, "unknown subcommand '%s': %s", argv[argi], names);
}
