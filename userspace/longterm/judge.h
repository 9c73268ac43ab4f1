/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl longterm: gup_longterm predicted from a policy and judged (host only). */
#ifndef LONGTERM_JUDGE_H
#define LONGTERM_JUDGE_H

int cmd_longterm(int argc, char **argv);

#endif /* LONGTERM_JUDGE_H */
