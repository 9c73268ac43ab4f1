/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl holders: one real-interface cell in the guest; the cells and their expectations. */
#ifndef HOLDERS_RUN_H
#define HOLDERS_RUN_H

#include <jansson.h>

#include "model/holders.h"

int cmd_holders(int argc, char **argv);
/* @e as the cells' and the results' "expect" object. */
json_t *holders_expectation_json(const struct holders_expectation *e);

#endif /* HOLDERS_RUN_H */
