// SPDX-License-Identifier: GPL-2.0
/*
 * options: parse a command line and print its help from one table
 * (options.h).  getopt_long() does the parsing, so gupctl accepts what
 * every GNU tool accepts ("--opt=val", "--opt val", "-xval", "--").
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "gupctl.h"
#include "options.h"

#define GOPT_LONG_BASE	256	/* getopt_long() val of entry i: base + i */
#define GOPT_HELP_COL	26	/* where the help text starts */

static bool gopt_is_option(const struct gopt *o)
{
	return o->type != GOPT_TYPE_GROUP;
}

static bool gopt_takes_arg(const struct gopt *o)
{
	switch (o->type) {
	case GOPT_TYPE_STRING:
	case GOPT_TYPE_UINT:
	case GOPT_TYPE_CHOICE:
		return true;
	case GOPT_TYPE_CALLBACK:
		return o->argh != NULL;
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

int gopt_parse(const char *cmd, int argc, char **argv, const struct gopt *opts,
	       const char * const *usage, int *argi)
{
	size_t i, n = gopt_count(opts), nl = 0;
	struct option *longopts = calloc(n + 2, sizeof(*longopts));
	char *shortopts = malloc(3 * n + 4), *p;
	const struct gopt *o;
	int c, ret = 0;

	if (!longopts || !shortopts) {
		free(longopts);
		free(shortopts);
		fprintf(stderr, "gupctl %s: out of memory\n", cmd);
		return GUPCTL_EXIT_USAGE;
	}
	/* ':' first: report a missing argument as ':' rather than '?' */
	p = shortopts;
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
	longopts[nl].val = 'h';

	opterr = 0;
	optind = 1;
	while (!ret && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'h') {
			gopt_usage(stdout, cmd, opts, usage);
			ret = GOPT_HELP;
		} else if (c == ':') {
			ret = usage_error(cmd, "option '%s' needs an argument",
					  argv[optind - 1]);
		} else if (c == '?') {
			if (optopt && optopt < GOPT_LONG_BASE)
				ret = usage_error(cmd, "unknown option '-%c'", optopt);
			else
				ret = usage_error(cmd, "unknown option '%s'",
						  argv[optind - 1]);
		} else if (c >= GOPT_LONG_BASE) {
			ret = gopt_take(cmd, &opts[c - GOPT_LONG_BASE], optarg);
		} else {
			for (i = 0; i < n; i++)
				if (gopt_is_option(&opts[i]) && opts[i].short_name == c)
					break;
			ret = gopt_take(cmd, &opts[i], optarg);
		}
	}
	free(longopts);
	free(shortopts);
	*argi = optind;
	return ret;
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

void gopt_usage(FILE *f, const char *cmd, const struct gopt *opts,
		const char * const *usage)
{
	const struct gopt *o;
	int i;

	for (i = 0; usage && usage[i]; i++)
		fprintf(f, "%s %s\n", i ? "   or:" : "usage:", usage[i]);
	if (opts->type != GOPT_TYPE_GROUP)
		fprintf(f, "\nOptions:\n");
	for (o = opts; o->type != GOPT_TYPE_END; o++) {
		if (o->type == GOPT_TYPE_GROUP)
			fprintf(f, "\n%s\n", o->help);
		else
			gopt_usage_line(f, o);
	}
	fprintf(f, "  -h, --help%*sthis help\n", GOPT_HELP_COL - 12, "");
	fprintf(f, "\nThe guide: docs/gupctl.md, section \"gupctl %s\".\n", cmd);
}
