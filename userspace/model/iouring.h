/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MODEL_IOURING_H
#define MODEL_IOURING_H

#include <stdbool.h>

#include "model/policy.h"

/*
 * io_uring 6.1's own check after its pin (the consumers' model and gup_longterm's
 * prediction both ask it here): does it refuse memory of @b (a file VMA
 * neither shmem nor hugetlbfs), and the reason, with its citation.
 */
bool iouring_61_refuses(enum cell_backing b);
extern const char *const iouring_61_check;

#endif /* MODEL_IOURING_H */
