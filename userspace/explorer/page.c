// SPDX-License-Identifier: GPL-2.0
/*
 * The explorer's page shell (explorer/page.h).  The script and the style
 * are compiled in with .incbin, so that gupctl alone writes a whole page
 * wherever it runs (the Makefile makes this object depend on both).
 */
#include <errno.h>
#include <string.h>

#include "explorer/page.h"
#include "lib/gupdev.h"
#include "lib/util.h"

/* explorer.js and explorer.css, each followed by a NUL */
__asm__(".section .rodata\n"
	".global explorer_js\n"
	"explorer_js:\n"
	".incbin \"explorer/explorer.js\"\n"
	".byte 0\n"
	".global explorer_css\n"
	"explorer_css:\n"
	".incbin \"explorer/explorer.css\"\n"
	".byte 0\n"
	".previous\n");
extern const char explorer_js[], explorer_css[];

/* @s for HTML text: the title is a results path, never markup */
static void html_puts(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

void explorer_page(FILE *f, const char *title, const json_t *data)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"color-scheme\" content=\"light dark\">\n<title>", f);
	html_puts(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n"
		"<noscript>The explorer needs JavaScript; the same results are in the job's\n"
		"markdown pages (make docs).</noscript>\n", explorer_css);
	/* "</script>" cannot occur: JSON_ESCAPE_SLASH writes "<\/" */
	fputs("<script type=\"application/json\" id=\"data\">", f);
	json_dumpf(data, f, JSON_COMPACT | JSON_ESCAPE_SLASH);
	fprintf(f, "</script>\n<script>\n%s</script>\n</body>\n</html>\n", explorer_js);
}

int explorer_write(const char *cmd, const char *path, const char *title, const json_t *data)
{
	char full[4200];
	FILE *f = fopen(path, "we");

	if (f) {
		snprintf(full, sizeof(full), "gup-lab %s", title);
		explorer_page(f, full, data);
	}
	if (!f || fclose(f)) {
		fprintf(stderr, "gupctl %s: cannot write %s: %s\n", cmd, path, errno_name(errno));
		return GUPCTL_EXIT_USAGE;
	}
	return 0;
}
