/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results explorer's page: one self-contained HTML file (no network,
 * no external script, style or font) that shows the data a report step
 * hands it.  The script and the style are explorer/explorer.js and .css,
 * built into gupctl; the data goes into the page as JSON.  Host only.
 */
#ifndef EXPLORER_PAGE_H
#define EXPLORER_PAGE_H
#include <jansson.h>
#include <stdio.h>

/*
 * Write the page: @title, then @data ({"job": ..., the job's own fields}:
 * docs/results.md, "The explorer") for the script to show.  The caller
 * checks @f for errors.
 */
void explorer_page(FILE *f, const char *title, const json_t *data);

/*
 * explorer_page() into the file @path, titled "gup-lab @title"; 0, or
 * GUPCTL_EXIT_USAGE after saying on stderr ("gupctl @cmd: ...") that it
 * could not be written.
 */
int explorer_write(const char *cmd, const char *path, const char *title, const json_t *data);

#endif /* EXPLORER_PAGE_H */
