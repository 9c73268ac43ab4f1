/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl bench report: the figures as a page (host only). */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

int bench_report(int argc, char **argv);

#endif /* BENCH_REPORT_H */
