/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lines (host only): a console as JSON lines for the results explorer
 * (explorer/), and each cell's slice of it by one step's markers
 * (console/markers.h).
 */
#ifndef CONSOLE_LINES_H
#define CONSOLE_LINES_H

#include <jansson.h>

/*
 * The console at @path as an array of strings, one per line, without
 * the line ends; bytes that are not UTF-8 read '?'.  An empty array when
 * it cannot be read.
 */
json_t *console_lines(const char *path);

/*
 * Each cell's slice of the console at @path whose @nr_lines lines
 * console_lines() read: the lines from the marker of @step's cell N
 * (0..@nr_cells - 1) to the line before the next marker of any step, in
 * @first[N] and @last[N] (1-based; left as they were for a cell with no
 * marker).  0, or non-zero when the markers could not be read.
 */
int console_cell_lines(const char *path, const char *step, size_t nr_lines,
		       unsigned int nr_cells, unsigned int *first, unsigned int *last);

#endif /* CONSOLE_LINES_H */
