/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl status: the driver's debugfs pins and counters. */
#ifndef PIN_STATUS_H
#define PIN_STATUS_H

int cmd_status(int argc, char **argv);

#endif /* PIN_STATUS_H */
