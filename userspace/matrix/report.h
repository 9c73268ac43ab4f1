/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl report: a flavour's results document and the matrix pages (host only). */
#ifndef MATRIX_REPORT_H
#define MATRIX_REPORT_H

int cmd_report(int argc, char **argv);

#endif /* MATRIX_REPORT_H */
