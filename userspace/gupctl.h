/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gupctl: commands and the helpers they share.  A command is an
 * "int cmd_X(int argc, char **argv)" (argv[0] is the command name) listed
 * in the table in gupctl.c; it parses with options.h, so "gupctl help X"
 * runs cmd_X(2, {"X", "--help"}).  A command not converted yet also has a
 * "void cmd_X_help(FILE *)", its table entry's .help.
 */
#ifndef GUPCTL_H
#define GUPCTL_H

#include <stdbool.h>
#include <stdio.h>

#include "gupdev.h"
#include "policy.h"

enum gupctl_exit {
	GUPCTL_EXIT_OK		= 0,	/* done (a pin: at least one page) */
	GUPCTL_EXIT_REFUSED	= 1,	/* the kernel said no */
	GUPCTL_EXIT_USAGE	= 2,	/* bad options or unusable target */
	GUPCTL_EXIT_NODEV	= 3,	/* module/device missing or other ABI */
};

/* Print "gupctl CMD: MSG" and a --help hint to stderr; GUPCTL_EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Open the device via gupdev_open(); explain a failure.  An exit code. */
int gupctl_open_device(struct gupdev *dev, const char *cmd);

int cmd_pin(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_repro(int argc, char **argv);
void cmd_repro_help(FILE *f);
int cmd_matrix(int argc, char **argv);
void cmd_matrix_help(FILE *f);
int cmd_report(int argc, char **argv);
void cmd_report_help(FILE *f);
int cmd_xcheck(int argc, char **argv);
void cmd_xcheck_help(FILE *f);

/*
 * The GUP matrix, shared by matrix (which runs it and writes the TSV) and
 * report (which reads the TSV).  Cells are numbered 0..MATRIX_NR_CELLS-1 in
 * run order: backing, then state, then method, then flags, the last varying
 * fastest; flags take the MATRIX_NR_FLAGS sets none, WRITE, LONGTERM,
 * WRITE|LONGTERM in that order.
 */
#define MATRIX_NR_FLAGS		4
#define MATRIX_NR_CELLS		(BACKING_COUNT * STATE_COUNT * \
				 GUP_PIN_METHOD_COUNT * MATRIX_NR_FLAGS)

/* Outcome columns of the TSV (expected and measured). */
enum matrix_outcome {
	MATRIX_PINNED,		/* "pinned": the page was taken */
	MATRIX_REFUSED,		/* "refused": an errno */
	MATRIX_NOT_RUN,		/* "not-run": not applicable, or setup failed */
	MATRIX_NONE_PINNED,	/* "none-pinned": no error but no page */
	MATRIX_OUTCOME_COUNT
};

/* TSV columns, in file order; the header line holds their names. */
enum matrix_column {
	MCOL_FLAVOUR, MCOL_POLICY, MCOL_METHOD, MCOL_FLAGS, MCOL_BACKING,
	MCOL_STATE, MCOL_EXPECTED, MCOL_EXPECTED_ERRNO, MCOL_MEASURED,
	MCOL_MEASURED_ERRNO, MCOL_NR_PINNED, MCOL_PAGE_KIND, MCOL_PAGE_FS,
	MCOL_PAGE_STATE, MCOL_REASON,
	MCOL_COUNT
};

void matrix_cell(unsigned int index, struct cell *c);
/* The index of @c, or -1 if its flags are not one of the matrix's sets. */
int matrix_index(const struct cell *c);
unsigned int matrix_flags(unsigned int i);		/* i < MATRIX_NR_FLAGS */
const char *matrix_outcome_name(enum matrix_outcome o);
/* Name -> outcome: 0, or -EINVAL. */
int matrix_parse_outcome(const char *s, enum matrix_outcome *o);
const char *matrix_column_name(enum matrix_column col);
/* A flavour name is 1-63 of [A-Za-z0-9._-] (it ends up in ids and files). */
bool matrix_valid_flavour(const char *s);

#endif /* GUPCTL_H */
