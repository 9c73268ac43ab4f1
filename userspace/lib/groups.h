/* SPDX-License-Identifier: GPL-2.0 */
/*
 * groups: items put into groups of alike ones, for the pages that say
 * "these N cells changed the same way" (matrix/report.c's differences
 * from the reference flavour, gupctl diff's changes).
 */
#ifndef LIB_GROUPS_H
#define LIB_GROUPS_H

#include <stdbool.h>

struct groups {
	unsigned int *order;	/* the items, group by group */
	unsigned int *start;	/* group k: order[start[k]] .. order[start[k + 1] - 1] */
	unsigned int nr;	/* how many groups */
};

/* Are items @a and @b alike? */
typedef bool (*groups_same_fn)(unsigned int a, unsigned int b, void *ctx);

/*
 * Put @items[0..@n - 1] (any numbers: indices, positions) into groups of
 * the items @same says are alike to the group's first: the groups in the
 * order of their first items, the items of each in their order in
 * @items.  0, or -ENOMEM (@g then empty).  Free with groups_free().
 */
int groups_make(struct groups *g, const unsigned int *items, unsigned int n,
		groups_same_fn same, void *ctx);
void groups_free(struct groups *g);

/* The number of items in group @k, and its first. */
static inline unsigned int groups_size(const struct groups *g, unsigned int k)
{
	return g->start[k + 1] - g->start[k];
}

static inline unsigned int groups_first(const struct groups *g, unsigned int k)
{
	return g->order[g->start[k]];
}

#endif /* LIB_GROUPS_H */
