/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl repro: the ext4-2018 reproduction's cell, in the guest; its host sub-commands. */
#ifndef REPRO_RUN_H
#define REPRO_RUN_H

int cmd_repro(int argc, char **argv);

#endif /* REPRO_RUN_H */
