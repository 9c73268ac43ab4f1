// SPDX-License-Identifier: GPL-2.0
/* The explorer's table view: explorer/table.h. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explorer/table.h"

json_t *explorer_table(const char *job, const char *title, const char *dir,
		       const json_t *run, const char *const *keys, unsigned int nr_keys)
{
	json_t *t, *k = json_array();
	unsigned int i;

	for (i = 0; i < nr_keys; i++)
		json_array_append_new(k, json_string(keys[i]));
	t = json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:s?}", "view", "table", "job", job,
		      "title", title, "results", dir,
		      "commit", json_string_value(json_object_get(run, "commit")),
		      "date", json_string_value(json_object_get(run, "date")));
	json_object_set_new(t, "keys", k);
	json_object_set_new(t, "columns", json_array());
	json_object_set_new(t, "not_run", json_array());
	json_object_set_new(t, "rows", json_array());
	json_object_set_new(t, "consoles", json_array());
	return t;
}

void explorer_column(json_t *t, const char *name, const char *policy, const char *kernel,
		     const char *summary, json_t *console)
{
	json_array_append_new(json_object_get(t, "columns"),
			      json_pack("{s:s, s:s?, s:s?, s:s?, s:o}", "name", name,
					"policy", policy, "kernel", kernel, "summary", summary,
					"console", console ?: json_array()));
}

void explorer_words(json_t *t, const char *what, const char *text)
{
	json_object_set_new(t, what, json_string(text));
}

void explorer_not_run(json_t *t, const char *name, const char *why)
{
	json_array_append_new(json_object_get(t, "not_run"),
			      json_pack("{s:s, s:s?}", "name", name, "why", why));
}

/* The row of @t keyed by @key, added if new. */
static json_t *find_row(json_t *t, const char *const *key)
{
	json_t *rows = json_object_get(t, "rows"), *row, *k;
	size_t i, j, n = json_array_size(json_object_get(t, "keys"));

	json_array_foreach(rows, i, row) {
		json_array_foreach(json_object_get(row, "key"), j, k)
			if (strcmp(json_string_value(k), key[j] ?: "?"))
				break;
		if (j == n)
			return row;
	}
	k = json_array();
	for (j = 0; j < n; j++)
		json_array_append_new(k, json_string(key[j] ?: "?"));
	row = json_pack("{s:o, s:[]}", "key", k, "cells");
	json_array_append_new(rows, row);
	return row;
}

json_t *explorer_cell(json_t *t, const char *const *key, unsigned int column,
		      const char *text, int as_expected)
{
	json_t *cells = json_object_get(find_row(t, key), "cells"), *c;

	while (json_array_size(cells) < column)
		json_array_append_new(cells, json_null());
	c = json_pack("{s:s, s:o, s:[]}", "text", text, "ok",
		      as_expected < 0 ? json_null() : json_boolean(as_expected), "fields");
	/* a cell given twice: the last one stands */
	if (json_array_size(cells) == column)
		json_array_append_new(cells, c);
	else
		json_array_set_new(cells, column, c);
	return c;
}

void explorer_field(json_t *cell, const char *label, const char *value)
{
	if (cell && value)
		json_array_append_new(json_object_get(cell, "fields"),
				      json_pack("[s, s]", label, value));
}

void explorer_reports(json_t *cell, json_t *reports)
{
	json_t *out = json_array(), *r;
	size_t i;

	if (!cell)
		return;
	json_array_foreach(reports, i, r)
		json_array_append_new(out, json_pack("{s:s?, s:b, s:s?}",
			"title", json_string_value(json_object_get(r, "title")),
			"expected", json_is_true(json_object_get(r, "expected")),
			"note", json_string_value(json_object_get(r, "note"))));
	json_object_set_new(cell, "reports", out);
}

void explorer_lines(json_t *cell, unsigned int first, unsigned int last)
{
	if (cell && first)
		json_object_set_new(cell, "lines", json_pack("[i, i]", (int)first, (int)last));
}

void explorer_console(json_t *cell, json_t *lines)
{
	if (cell)
		json_object_set_new(cell, "console", lines);
	else
		json_decref(lines);
}

unsigned int explorer_add_console(json_t *t, json_t *lines)
{
	json_t *all = json_object_get(t, "consoles");

	json_array_append_new(all, lines);
	return json_array_size(all) - 1;
}

void explorer_console_lines(json_t *cell, unsigned int console, unsigned int first,
			    unsigned int last)
{
	if (cell && first)
		json_object_set_new(cell, "console_lines",
				    json_pack("[i, i, i]", (int)console, (int)first, (int)last));
}
