/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cell: the GUP matrix's coordinates, shared by matrix (which runs it),
 * xcheck and report (which read its JSON, matrix/json.h).  Pure: no
 * device, no I/O.  Cells are numbered 0..MATRIX_NR_CELLS-1 in run order
 * (1.. in KTAP, markers and documents): backing, then state, then method,
 * then flags, the last varying fastest; flags take the MATRIX_NR_FLAGS
 * sets of matrix_flag_sets[]: every mix of WRITE, LONGTERM and FORCE,
 * then ALLOW_BROKEN with each mix that writes (it only matters to a write).
 */
#ifndef MODEL_CELL_H
#define MODEL_CELL_H

#include <stdbool.h>
#include <stddef.h>

#include "gup_pin_test.h"
#include "policy.h"

#define MATRIX_NR_FLAGS		12
/* Written before a cell that expects a WARN_ON_ONCE (kernel/panic.c). */
#define MATRIX_CLEAR_WARN_ONCE	"/sys/kernel/debug/clear_warn_once"
extern const unsigned int matrix_flag_sets[MATRIX_NR_FLAGS];
#define MATRIX_NR_CELLS		(BACKING_COUNT * STATE_COUNT * \
				 GUP_PIN_METHOD_COUNT * MATRIX_NR_FLAGS)

/* Outcomes (expected and measured). */
enum matrix_outcome {
	MATRIX_PINNED,		/* "pinned": the page was taken */
	MATRIX_REFUSED,		/* "refused": an errno */
	MATRIX_NOT_RUN,		/* "not-run": not applicable, or setup failed */
	MATRIX_NONE_PINNED,	/* "none-pinned": no error but no page */
	MATRIX_OUTCOME_COUNT
};

/* make check's subset of backings (gupctl matrix --quick) */
bool matrix_quick_backing(enum cell_backing backing);
#define MATRIX_QUICK_REASON	"not in the quick subset (gupctl matrix --quick, make check): make matrix runs it"

void matrix_cell(unsigned int index, struct cell *c);
/* The index of @c, or -1 if its flags are not one of the matrix's sets. */
int matrix_index(const struct cell *c);
/* "pin_user_pages_fast WRITE|LONGTERM ext4-shared write-faulted" */
char *matrix_cell_str(unsigned int index, char *buf, size_t size);
const char *matrix_outcome_name(enum matrix_outcome o);
/* Name -> outcome: 0, or -EINVAL. */
int matrix_parse_outcome(const char *s, enum matrix_outcome *o);
/* A flavour name is 1-63 of [A-Za-z0-9._+-] (ids, files; + joins overlays). */
bool matrix_valid_flavour(const char *s);

#endif /* MODEL_CELL_H */
