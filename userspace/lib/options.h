/* SPDX-License-Identifier: GPL-2.0 */
/*
 * options: one table per command drives both the parsing of its command
 * line and its --help, after tools/perf's parse-options.  A command builds
 * its table on the stack, pointing each entry at the variable it sets:
 *
 *	static const char * const usage[] = {
 *		"gupctl pin [OPTIONS] TARGET",
 *		NULL
 *	};
 *	const struct gopt opts[] = {
 *		GOPT_GROUP("GUP flags"),
 *		GOPT_BIT('w', "write", &o.flags, GUP_PIN_FLAG_WRITE, "FOLL_WRITE"),
 *		GOPT_STRING(0, "dir", &o.dir, "DIR", "an ext4 directory"),
 *		GOPT_END()
 *	};
 *	ret = gopt_parse("pin", argc, argv, opts, usage, &argi);
 *
 * Help lines are one line each; the long explanation of a command lives in
 * docs/gupctl.md, which the generated help points to.  An empty string in
 * @usage ends the usage lines: the lines after it are printed as they are
 * (a one-line description, say).  Besides -h/--help every command takes
 * --list-opts, which prints its long options one a line ("--name=" when it
 * takes an argument), for completion and tests.
 */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

enum gopt_type {
	GOPT_TYPE_END,
	GOPT_TYPE_GROUP,	/* a heading in --help, parses nothing */
	GOPT_TYPE_TEXT,		/* a line of --help (a command), parses nothing */
	GOPT_TYPE_BOOL,		/* bool *value = true */
	GOPT_TYPE_BIT,		/* unsigned int *value |= bit */
	GOPT_TYPE_SET,		/* unsigned int *value = bit (e.g. an enum) */
	GOPT_TYPE_STRING,	/* const char **value = arg */
	GOPT_TYPE_UINT,		/* unsigned int *value = strtoul(arg) */
	GOPT_TYPE_CHOICE,	/* unsigned int *value = index of arg in choices */
	GOPT_TYPE_CALLBACK,	/* cb(opt, arg) decides */
};

struct gopt;

/*
 * A GOPT_TYPE_CALLBACK handler: 0 when @arg (NULL for an option without
 * an argument) is taken, else an exit code from usage_error().
 */
typedef int (*gopt_cb)(const struct gopt *opt, const char *arg);

struct gopt {
	enum gopt_type type;
	int short_name;			/* 0: none */
	const char *long_name;		/* NULL: none (or a group) */
	void *value;
	const char *argh;		/* argument's name in --help; NULL: none */
	const char *help;		/* one line (the group's title) */
	unsigned int bit;		/* GOPT_TYPE_BIT / _SET, GOPT_CALLBACK_VAL */
	const char * const *choices;	/* GOPT_TYPE_CHOICE, NULL terminated */
	gopt_cb cb;			/* GOPT_TYPE_CALLBACK */
	void *data;			/* for the callback */
};

#define GOPT_END()	{ .type = GOPT_TYPE_END }
#define GOPT_GROUP(h)	{ .type = GOPT_TYPE_GROUP, .help = (h) }
/* "  name    help" in --help: a command, an operand. */
#define GOPT_TEXT(n, h)	{ .type = GOPT_TYPE_TEXT, .long_name = (n), .help = (h) }
#define GOPT_BOOL(s, l, v, h) \
	{ .type = GOPT_TYPE_BOOL, .short_name = (s), .long_name = (l), \
	  .value = (v), .help = (h) }
#define GOPT_BIT(s, l, v, b, h) \
	{ .type = GOPT_TYPE_BIT, .short_name = (s), .long_name = (l), \
	  .value = (v), .bit = (b), .help = (h) }
#define GOPT_SET(s, l, v, b, h) \
	{ .type = GOPT_TYPE_SET, .short_name = (s), .long_name = (l), \
	  .value = (v), .bit = (b), .help = (h) }
#define GOPT_STRING(s, l, v, a, h) \
	{ .type = GOPT_TYPE_STRING, .short_name = (s), .long_name = (l), \
	  .value = (v), .argh = (a), .help = (h) }
#define GOPT_UINT(s, l, v, a, h) \
	{ .type = GOPT_TYPE_UINT, .short_name = (s), .long_name = (l), \
	  .value = (v), .argh = (a), .help = (h) }
#define GOPT_CHOICE(s, l, v, a, c, h) \
	{ .type = GOPT_TYPE_CHOICE, .short_name = (s), .long_name = (l), \
	  .value = (v), .argh = (a), .choices = (c), .help = (h) }
/* @a NULL: the option takes no argument and cb gets NULL. */
#define GOPT_CALLBACK(s, l, d, a, f, h) \
	{ .type = GOPT_TYPE_CALLBACK, .short_name = (s), .long_name = (l), \
	  .data = (d), .argh = (a), .cb = (f), .help = (h) }
/* No argument; cb finds @v in opt->bit (one callback for a set of options). */
#define GOPT_CALLBACK_VAL(s, l, d, v, f, h) \
	{ .type = GOPT_TYPE_CALLBACK, .short_name = (s), .long_name = (l), \
	  .data = (d), .bit = (v), .cb = (f), .help = (h) }

/* gopt_parse() returns this when it printed the help (exit 0). */
#define GOPT_HELP	(-1)

/*
 * Parse argv[1..] (argv[0] is the command's name) against @opts; -h and
 * --help print the help, --list-opts the long options.  Options and
 * operands may mix; "--" ends the options.  Returns 0 with the operands
 * moved to argv[*@argi..argc-1], GOPT_HELP (help or list printed), or
 * GUPCTL_EXIT_USAGE with the message on stderr.  @cmd NULL: gupctl itself.
 */
int gopt_parse(const char *cmd, int argc, char **argv, const struct gopt *opts,
	       const char * const *usage, int *argi);

/* gopt_parse_flags() @flags */
#define GOPT_STOP_AT_OPERAND	0x1	/* options end at the first operand */

/* gopt_parse() with @flags (gupctl's own options end at the command). */
int gopt_parse_flags(const char *cmd, int argc, char **argv,
		     const struct gopt *opts, const char * const *usage,
		     unsigned int flags, int *argi);

/* The help generated from @usage and @opts. */
void gopt_usage(FILE *f, const char *cmd, const struct gopt *opts,
		const char * const *usage);

/* The choice names of @choices as "a, b, c" into @buf. */
char *gopt_choices_str(const char * const *choices, char *buf, size_t size);

/* Print "gupctl CMD: MSG" and a --help hint to stderr; GUPCTL_EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Commands and sub-commands, one pattern for both (perf's cmd_* table):
 * gupctl's own table (gupctl.c) and each command's sub-commands are an
 * array of struct gopt_cmd ending with GOPT_CMD_END(), run by
 * gopt_cmd_run().  A host-only entry (it reads results, needs no device)
 * is declared with GOPT_CMD_HOST(): the guest build (gupctl-guest, built
 * with -DGUPCTL_GUEST and without the host-only files: the Makefile says
 * which by their role) has its name and summary but a NULL .run, and
 * gopt_cmd_run() says it is host only.  This is the one place the guest
 * build is told apart in the source.
 */
struct gopt_cmd {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0] is the name */
	const char *summary;			/* one line, for the help */
	bool host_only;
};

#ifdef GUPCTL_GUEST
#define GOPT_CMD_HOST_RUN(f)	NULL
#else
#define GOPT_CMD_HOST_RUN(f)	(f)
#endif
#define GOPT_CMD(n, f, s)	{ .name = (n), .run = (f), .summary = (s) }
#define GOPT_CMD_HOST(n, f, s) \
	{ .name = (n), .run = GOPT_CMD_HOST_RUN(f), .summary = (s), .host_only = true }
#define GOPT_CMD_END()		{ .name = NULL }

/* gopt_cmd_run(): argv[0] names no entry of the table. */
#define GOPT_CMD_NONE	(-2)

/* The entry of @cmds named @name, or NULL. */
const struct gopt_cmd *gopt_cmd_find(const struct gopt_cmd *cmds, const char *name);
/*
 * Run the entry argv[0] names (@cmd: the command whose sub-commands these
 * are, NULL for gupctl's own).  GOPT_CMD_NONE if none has that name (the
 * caller goes on parsing its options); GUPCTL_EXIT_USAGE, after saying
 * so, if it is host only and this is the guest build; else its exit code.
 */
int gopt_cmd_run(const char *cmd, const struct gopt_cmd *cmds, int argc, char **argv);
/*
 * A command that is only its sub-commands (argv[0] the command): run the
 * one argv[1] names, or print @usage for --help, or say which there are
 * (those with a summary; the others are internal).  An exit code.
 */
int gopt_cmd_main(const char *cmd, const struct gopt_cmd *cmds,
		  const char * const *usage, int argc, char **argv);

#endif /* OPTIONS_H */
