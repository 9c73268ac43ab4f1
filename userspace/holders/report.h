/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl holders report: docs/filesystems.md from results. */
#ifndef HOLDERS_REPORT_H
#define HOLDERS_REPORT_H

int holders_report(int argc, char **argv);

#endif /* HOLDERS_REPORT_H */
