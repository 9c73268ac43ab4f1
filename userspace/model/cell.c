// SPDX-License-Identifier: GPL-2.0
/*
 * cell: the GUP matrix's coordinates and outcomes (cell.h): pure
 * functions, no device, no I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/gupdev.h"
#include "model/cell.h"

#define W	GUP_PIN_FLAG_WRITE
#define L	GUP_PIN_FLAG_LONGTERM
#define F	GUP_PIN_FLAG_FORCE
#define AB	GUP_PIN_FLAG_ALLOW_BROKEN
const unsigned int matrix_flag_sets[MATRIX_NR_FLAGS] = {
	0, W, L, W | L, F, W | F, L | F, W | L | F,
	W | AB, W | L | AB, W | F | AB, W | L | F | AB,
};
#undef W
#undef L
#undef F
#undef AB

void matrix_cell(unsigned int index, struct cell *c)
{
	c->flags = matrix_flag_sets[index % MATRIX_NR_FLAGS];
	index /= MATRIX_NR_FLAGS;
	c->method = index % GUP_PIN_METHOD_COUNT;
	index /= GUP_PIN_METHOD_COUNT;
	c->state = index % STATE_COUNT;
	index /= STATE_COUNT;
	c->backing = index;
}

int matrix_index(const struct cell *c)
{
	unsigned int f;

	if (c->backing >= BACKING_COUNT || c->state >= STATE_COUNT ||
	    c->method >= GUP_PIN_METHOD_COUNT)
		return -1;
	for (f = 0; f < MATRIX_NR_FLAGS; f++)
		if (matrix_flag_sets[f] == c->flags)
			break;
	if (f == MATRIX_NR_FLAGS)
		return -1;
	return ((c->backing * STATE_COUNT + c->state) * GUP_PIN_METHOD_COUNT +
		c->method) * MATRIX_NR_FLAGS + f;
}

char *matrix_cell_str(unsigned int index, char *buf, size_t size)
{
	struct cell c;
	char flags[64];

	matrix_cell(index, &c);
	snprintf(buf, size, "%s %s %s %s", gup_method_name(c.method),
		 gup_flags_str(c.flags, flags, sizeof(flags)),
		 backing_name(c.backing), state_name(c.state));
	return buf;
}

static const char * const outcome_names[MATRIX_OUTCOME_COUNT] = {
	[MATRIX_PINNED]		= "pinned",
	[MATRIX_REFUSED]	= "refused",
	[MATRIX_NOT_RUN]	= "not-run",
	[MATRIX_NONE_PINNED]	= "none-pinned",
};

const char *matrix_outcome_name(enum matrix_outcome o)
{
	return o < MATRIX_OUTCOME_COUNT ? outcome_names[o] : "?";
}

int matrix_parse_outcome(const char *s, enum matrix_outcome *o)
{
	unsigned int i;

	for (i = 0; i < MATRIX_OUTCOME_COUNT; i++) {
		if (!strcmp(s, outcome_names[i])) {
			*o = i;
			return 0;
		}
	}
	return -EINVAL;
}

bool matrix_valid_flavour(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-");

	return n && n < 64 && !s[n];
}

/*
 * make check's subset (--quick): the backings that tell the policies
 * apart, each in every state, method and flags.  An anonymous page (the
 * policies' common ground), shmem (file-backed but not dirty-tracked: v7
 * allows it, v1 does not) and ext4 shared, private and shared read-only
 * (what every series is about).  Left to make matrix: the THP and hugetlb
 * variants of the same answers, tmpfs and ramfs (shmem's and ext4's answers
 * by another name) and ext4-private-ro.
 */
bool matrix_quick_backing(enum cell_backing backing)
{
	switch (backing) {
	case BACKING_ANON:
	case BACKING_SHMEM:
	case BACKING_EXT4_SHARED:
	case BACKING_EXT4_PRIVATE:
	case BACKING_EXT4_SHARED_RO:
		return true;
	default:
		return false;
	}
}
