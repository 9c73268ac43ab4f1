// SPDX-License-Identifier: GPL-2.0
/*
 * groups: items put into groups of alike ones (groups.h).  Each item is
 * held against the first item of every group so far: a few groups of
 * many items, as the pages have, cost little.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/groups.h"

int groups_make(struct groups *g, const unsigned int *items, unsigned int n,
		groups_same_fn same, void *ctx)
{
	unsigned int *of = calloc(n ?: 1, sizeof(*of));	/* item i's group */
	unsigned int *lead = calloc(n ?: 1, sizeof(*lead));	/* group k's first */
	unsigned int i, k, *fill;

	memset(g, 0, sizeof(*g));
	g->order = calloc(n ?: 1, sizeof(*g->order));
	g->start = calloc(n + 1, sizeof(*g->start));
	if (!of || !lead || !g->order || !g->start) {
		free(of);
		free(lead);
		groups_free(g);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < g->nr; k++)
			if (same(items[lead[k]], items[i], ctx))
				break;
		if (k == g->nr)
			lead[g->nr++] = i;
		of[i] = k;
		g->start[k + 1]++;
	}
	for (k = 0; k < g->nr; k++)
		g->start[k + 1] += g->start[k];
	/* lead[] is done with: reuse it as each group's next free slot */
	fill = lead;
	memcpy(fill, g->start, g->nr * sizeof(*fill));
	for (i = 0; i < n; i++)
		g->order[fill[of[i]]++] = items[i];
	free(of);
	free(lead);
	return 0;
}

void groups_free(struct groups *g)
{
	free(g->order);
	free(g->start);
	memset(g, 0, sizeof(*g));
}
