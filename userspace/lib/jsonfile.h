/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jsonfile: the documents every step exchanges (docs/results.md), written
 * and read with one message per failure naming the command and the file.
 */
#ifndef LIB_JSONFILE_H
#define LIB_JSONFILE_H

#include <stdio.h>

#include <jansson.h>

/* Open @path for jsonfile_dump(); NULL after a message on stderr. */
FILE *jsonfile_open(const char *path, const char *cmd);
/*
 * Write @doc (NULL: a failed json_pack(), ENOMEM) indented to @f, sync and
 * close it: 0, or GUPCTL_EXIT_USAGE after a message naming @path.
 */
int jsonfile_dump(json_t *doc, FILE *f, const char *path, const char *cmd);
/* Read a JSON file; NULL after a message on stderr. */
json_t *jsonfile_read(const char *path, const char *cmd);
/* The same for a file that must hold one JSON object. */
json_t *jsonfile_read_object(const char *path, const char *cmd);

/*
 * A job's run.json: its kernel source packages ("source_packages", one per
 * source version the flavours were built from) as "NAME VERSION, ..." in
 * @buf; "?" if it names none.
 */
void run_json_sources(json_t *run, char *buf, size_t size);

#endif /* LIB_JSONFILE_H */
