/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl repro slice and collect: a boot's console and cells gathered (host only). */
#ifndef REPRO_COLLECT_H
#define REPRO_COLLECT_H

int repro_collect(int argc, char **argv);

#endif /* REPRO_COLLECT_H */
