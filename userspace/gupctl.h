/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gupctl: commands and the helpers they share.  A command is an
 * "int cmd_X(int argc, char **argv)" (argv[0] is the command name) listed
 * in the table in gupctl.c; it parses with options.h, so "gupctl help X"
 * runs cmd_X(2, {"X", "--help"}).
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

/* All @len bytes through write(2) / read(2), across EINTR and short counts: 0 or -1. */
int write_all(int fd, const void *buf, size_t len);
int read_all(int fd, void *buf, size_t len);

/* Print "gupctl CMD: MSG" and a --help hint to stderr; GUPCTL_EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Open the device via gupdev_open(); explain a failure.  An exit code. */
int gupctl_open_device(struct gupdev *dev, const char *cmd);

int cmd_pin(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_xcheck(int argc, char **argv);
int cmd_fuzz(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* gupctl bench report (bench_report.c, host only) */
int bench_report(int argc, char **argv);
int cmd_longterm(int argc, char **argv);
int cmd_consumers(int argc, char **argv);

/*
 * The GUP matrix, shared by matrix (which runs it), xcheck and report
 * (which read its JSON, matrix_json.h).  Cells are numbered
 * 0..MATRIX_NR_CELLS-1 in run order (1.. in KTAP, markers and documents):
 * backing, then state, then method, then flags, the last varying fastest;
 * flags take the MATRIX_NR_FLAGS sets of matrix_flag_sets[]: every mix
 * of WRITE, LONGTERM and FORCE, then ALLOW_BROKEN with each mix that
 * writes (it only matters to a write).
 */
#define MATRIX_NR_FLAGS		12
/* Written before a cell that expects a WARN_ON_ONCE (kernel/panic.c). */
#define MATRIX_CLEAR_WARN_ONCE	"/sys/kernel/debug/clear_warn_once"
extern const unsigned int matrix_flag_sets[MATRIX_NR_FLAGS];
#define MATRIX_NR_CELLS		(BACKING_COUNT * STATE_COUNT * \
				 GUP_PIN_METHOD_COUNT * MATRIX_NR_FLAGS)

/* Outcomes (expected and measured). */
enum matrix_outcome {
	MATRIX_PINNED,		/* "pinned": the page was taken */
	MATRIX_REFUSED,		/* "refused": an errno */
	MATRIX_NOT_RUN,		/* "not-run": not applicable, or setup failed */
	MATRIX_NONE_PINNED,	/* "none-pinned": no error but no page */
	MATRIX_OUTCOME_COUNT
};

/* make check's subset of backings (gupctl matrix --quick) */
bool matrix_quick_backing(enum cell_backing backing);
#define MATRIX_QUICK_REASON	"not in the quick subset (gupctl matrix --quick, make check): make matrix runs it"

void matrix_cell(unsigned int index, struct cell *c);
/* The index of @c, or -1 if its flags are not one of the matrix's sets. */
int matrix_index(const struct cell *c);
/* "pin_user_pages_fast WRITE|LONGTERM ext4-shared write-faulted" */
char *matrix_cell_str(unsigned int index, char *buf, size_t size);
const char *matrix_outcome_name(enum matrix_outcome o);
/* Name -> outcome: 0, or -EINVAL. */
int matrix_parse_outcome(const char *s, enum matrix_outcome *o);
/* A flavour name is 1-63 of [A-Za-z0-9._+-] (ids, files; + joins overlays). */
bool matrix_valid_flavour(const char *s);

/* Where file-backed cells create their files (matrix, xcheck). */
#define MATRIX_EXT4_DIR		"/mnt/ext4"
#define MATRIX_TMPFS_DIR	"/tmp"
#define MATRIX_RAMFS_DIR	"/mnt/ramfs"
/* Those directories: the options that give them, indexed by enum matrix_dir. */
enum matrix_dir {
	MATRIX_DIR_EXT4,
	MATRIX_DIR_TMPFS,
	MATRIX_DIR_RAMFS,
	MATRIX_NR_DIRS
};

struct matrix_dir_opt {
	const char *option;	/* "--ext4-dir" */
	const char *fs;		/* "ext4" */
	unsigned long magic;	/* its statfs() f_type, as in backing_spec() */
	const char *def;	/* MATRIX_EXT4_DIR */
};

extern const struct matrix_dir_opt matrix_dirs[MATRIX_NR_DIRS];
/* The directory a file backing's file is made in, or -1 (not a file). */
int matrix_backing_dir(enum cell_backing backing);
/* Set @dir[MATRIX_NR_DIRS] to the default directories. */
void matrix_dir_defaults(const char **dir);
/* Their options' help, in both commands' tables. */
#define MATRIX_EXT4_HELP	"a directory on ext4 (" MATRIX_EXT4_DIR ")"
#define MATRIX_TMPFS_HELP	"a directory on tmpfs (" MATRIX_TMPFS_DIR ")"
#define MATRIX_RAMFS_HELP	"a directory on ramfs (" MATRIX_RAMFS_DIR ")"
/* The help of matrix's and xcheck's --policy (it names the policies). */
const char *matrix_policy_help(void);

/*
 * Markers: before each cell a step (matrix, xcheck) writes
 * "gup-lab: STEP cell N" (N = index + 1) to /dev/kmsg, and "gup-lab: STEP
 * end" after the last, so that the console shows which cell was running
 * when the kernel reported something (gupctl report --collect).
 */
#define MATRIX_MARK_PREFIX	"gup-lab: "
#define MATRIX_MARK_NONE	(-1)	/* the cell of an "end" marker */
#define MATRIX_STEP_LEN		16
/* Write a marker for cell @index, or an end marker (MATRIX_MARK_NONE). */
int matrix_mark(const char *step, int index);

#endif /* GUPCTL_H */
