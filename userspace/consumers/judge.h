/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl consumers judge: a flavour's measurements judged (host only). */
#ifndef CONSUMERS_JUDGE_H
#define CONSUMERS_JUDGE_H

int consumers_judge(int argc, char **argv);

#endif /* CONSUMERS_JUDGE_H */
