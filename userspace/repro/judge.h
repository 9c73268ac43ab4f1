/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl repro judge: one cell's guest facts against its expectation (host only). */
#ifndef REPRO_JUDGE_H
#define REPRO_JUDGE_H

int repro_judge(int argc, char **argv);

#endif /* REPRO_JUDGE_H */
