/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl pin: pin pages, show the kernel's answer, unpin. */
#ifndef PIN_PIN_H
#define PIN_PIN_H

int cmd_pin(int argc, char **argv);

#endif /* PIN_PIN_H */
