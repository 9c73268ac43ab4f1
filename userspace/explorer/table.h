/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The explorer's table view (docs/results.md, "The explorer"): the
 * reproduction's, the consumers' and the file systems' results, and a diff
 * of two runs, as rows of cells keyed by named fields (interface, backing,
 * state; a cell's name...) with a column per flavour or per side.  Each
 * report step fills one from the same strings its markdown page writes;
 * explorer/explorer.js lays it out, filters it by each key and by
 * verdict, and shows a cell's fields, kernel reports and console slice.
 */
#ifndef EXPLORER_TABLE_H
#define EXPLORER_TABLE_H

#include <jansson.h>

/*
 * A new table for @job's results directory @dir (NULL: files), whose
 * run.json is @run (commit, date; may be NULL), titled @title, its rows
 * keyed by @nr_keys fields named @keys.
 */
json_t *explorer_table(const char *job, const char *title, const char *dir,
		       const json_t *run, const char *const *keys, unsigned int nr_keys);

/*
 * A column: @name, with its @policy and @kernel release (NULL: not
 * known) and @summary (a line of figures, as the markdown page's), and
 * @console (stolen; NULL: none), the lines a cell's "lines" index.
 */
void explorer_column(json_t *t, const char *name, const char *policy, const char *kernel,
		     const char *summary, json_t *console);

/*
 * The page's words where the defaults do not fit: @what is "legend" (the
 * line under the table: what a cell shows) or "column_title" (what a
 * column is: "flavour" by default).
 */
void explorer_words(json_t *t, const char *what, const char *text);

/* A flavour that did not run: the summary says so, and @why. */
void explorer_not_run(json_t *t, const char *name, const char *why);

/*
 * Column @column's cell in the row keyed by @key (one value per key; the
 * row added, last, if new): @text as the markdown page writes it, and
 * whether it is as expected: 1, 0, or EXPLORER_NOT_JUDGED (nothing to
 * hold it against).  A column with no cell in a row shows "not in the
 * results".  Returns the cell, for what follows.
 */
enum { EXPLORER_NOT_JUDGED = -1 };
json_t *explorer_cell(json_t *t, const char *const *key, unsigned int column,
		      const char *text, int as_expected);

/* A labelled field of @cell (expected, reason, measured, note...); NULL values are left out. */
void explorer_field(json_t *cell, const char *label, const char *value);

/* The kernel reports attributed to @cell (an array of {title, expected, note}; borrowed). */
void explorer_reports(json_t *cell, json_t *reports);

/* @cell's slice of its column's console: lines @first to @last (1-based; 0: none). */
void explorer_lines(json_t *cell, unsigned int first, unsigned int last);

/* @cell's console slice of its own, @lines (stolen: console_lines() of the slice a job wrote). */
void explorer_console(json_t *cell, json_t *lines);

/*
 * A console the page carries once for many cells (a diff's: each run's
 * console), @lines stolen: its number, for explorer_console_lines().
 */
unsigned int explorer_add_console(json_t *t, json_t *lines);

/* @cell's slice of the page's console @console: lines @first to @last (1-based). */
void explorer_console_lines(json_t *cell, unsigned int console, unsigned int first,
			    unsigned int last);

#endif /* EXPLORER_TABLE_H */
