/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gupctl: commands and the helpers they share.  A command is a
 * "int cmd_X(int argc, char **argv)" (argv[0] is the command name) plus a
 * "void cmd_X_help(FILE *)", listed in the table in gupctl.c.
 */
#ifndef GUPCTL_H
#define GUPCTL_H

#include <stdio.h>

#include "gupdev.h"

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

/* Print the GUP_PIN_IOC_STATE table of pages [0, @nr) of pin @id. */
void print_pin_state(struct gupdev *dev, __u32 id, __u32 nr, const char *when);

int cmd_pin(int argc, char **argv);
void cmd_pin_help(FILE *f);
int cmd_status(int argc, char **argv);
void cmd_status_help(FILE *f);

#endif /* GUPCTL_H */
