/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl matrix: every cell of the GUP matrix, in the guest. */
#ifndef MATRIX_RUN_H
#define MATRIX_RUN_H

int cmd_matrix(int argc, char **argv);

#endif /* MATRIX_RUN_H */
