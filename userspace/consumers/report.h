/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl consumers report: docs/consumers.md from a results directory (host only). */
#ifndef CONSUMERS_REPORT_H
#define CONSUMERS_REPORT_H

int consumers_report(int argc, char **argv);

#endif /* CONSUMERS_REPORT_H */
