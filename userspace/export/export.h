/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl export: a cell as a reproducer that needs nothing of the lab. */
#ifndef EXPORT_EXPORT_H
#define EXPORT_EXPORT_H

#include <stdbool.h>

#include "model/holders.h"

int cmd_export(int argc, char **argv);
/* gupctl export report: docs/findings/exports.md from a make export run. */
int export_report(int argc, char **argv);
/* "xfs-pvw-ficlone" to @c: 0, or -ENOENT. */
int export_parse_cell(const char *name, struct holders_cell *c);
/* Can @c be exported (its holder made by the reproducer itself)? */
bool export_supported(const struct holders_cell *c);

#endif /* EXPORT_EXPORT_H */
