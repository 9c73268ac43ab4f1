/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl holders judge / collect: a cell measured and compared; a flavour's document. */
#ifndef HOLDERS_JUDGE_H
#define HOLDERS_JUDGE_H

int holders_judge(int argc, char **argv);
int holders_collect(int argc, char **argv);

#endif /* HOLDERS_JUDGE_H */
