/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl consumers: its sub-commands (run, expect in the guest; judge, report on the host). */
#ifndef CONSUMERS_CONSUMERS_H
#define CONSUMERS_CONSUMERS_H

int cmd_consumers(int argc, char **argv);

#endif /* CONSUMERS_CONSUMERS_H */
