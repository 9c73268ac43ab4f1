/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl slice: a boot's console cut into its cells' slices, by every job's markers. */
#ifndef CONSOLE_SLICE_H
#define CONSOLE_SLICE_H

int cmd_slice(int argc, char **argv);

#endif /* CONSOLE_SLICE_H */
