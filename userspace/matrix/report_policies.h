/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_policies (host only): docs/policies.md from the flavours of one
 * matrix run, for gupctl report --policies.
 */
#ifndef REPORT_POLICIES_H
#define REPORT_POLICIES_H

#include <stdio.h>

struct mflavour;

/* The page for @n flavours in run order; @source names the results. */
void write_policies_md(const struct mflavour *const *fl, unsigned int n,
		       const char *source, FILE *f);

#endif /* REPORT_POLICIES_H */
