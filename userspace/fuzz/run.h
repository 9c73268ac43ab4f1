/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl fuzz: seeded requests judged against the ABI oracle, in the guest. */
#ifndef FUZZ_RUN_H
#define FUZZ_RUN_H

int cmd_fuzz(int argc, char **argv);

#endif /* FUZZ_RUN_H */
