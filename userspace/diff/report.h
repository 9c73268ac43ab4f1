/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl diff: what two kernels measured differently, from their results. */
#ifndef DIFF_REPORT_H
#define DIFF_REPORT_H

int cmd_diff(int argc, char **argv);

#endif /* DIFF_REPORT_H */
