/* SPDX-License-Identifier: GPL-2.0 */
/*
 * detect: the GUP policy of a kernel, from what the kernel says of itself
 * (lib/kernel.h), never from the lab's flavour table: the jobs compare
 * the two, so that a mislabelled flavour fails.  Pure.
 */
#ifndef MODEL_DETECT_H
#define MODEL_DETECT_H

#include <stddef.h>

#include "lib/kernel.h"

/*
 * The policy name (model/policy.h's) the facts @k show, and in @why the
 * evidence; NULL, with @why saying what is missing, if they show none.
 */
const char *policy_detect(const struct kernel_facts *k, char *why, size_t size);

#endif /* MODEL_DETECT_H */
