// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_none: the RDMA cells in a gupctl without libibverbs (gupctl and
 * gupctl-guest): consumers/run.c hands them to CONS_RDMA_HELPER
 * (gupctl-rdma, which links consumers/rdma.c instead of this file).
 */
#include <stdio.h>

#include "consumers/cells.h"
#include "consumers/run.h"

const bool consumers_have_verbs;

void consumers_rdma_call(int iface, const struct target *t, unsigned int index,
			 struct cons_result *r)
{
	(void)iface;
	(void)t;
	(void)index;
	snprintf(r->unsupported, sizeof(r->unsupported),
		 "this gupctl has no verbs: %s runs the RDMA cells", CONS_RDMA_HELPER);
}
