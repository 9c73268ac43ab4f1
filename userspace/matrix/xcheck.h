/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl xcheck: the matrix beside the kernel's own gup_test, in the guest. */
#ifndef MATRIX_XCHECK_H
#define MATRIX_XCHECK_H

int cmd_xcheck(int argc, char **argv);

#endif /* MATRIX_XCHECK_H */
