/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl repro report: the results page (host only). */
#ifndef REPRO_REPORT_H
#define REPRO_REPORT_H

int repro_report(int argc, char **argv);

#endif /* REPRO_REPORT_H */
