// SPDX-License-Identifier: GPL-2.0
/*
 * gupctl export (host): a cell as a reproducer that needs nothing of the
 * lab, as syzbot's C reproducers need nothing of syzkaller: one C file
 * that makes its own scratch file system, runs the cell's system calls,
 * reads the file back from disk, says what it saw and exits 0 (as the
 * kernel's design says), 1 (data lost, or another file changed) or 2
 * (could not run); and a script that builds and runs it.
 *
 * The file is lib/holders_steps.h and lib/holders_steps.c as the lab's guest
 * runs them (compiled in here with .incbin: one source for both), the
 * kernel's ioctl arguments the uapi lacks (lib/fsioctl.h), the DM ioctls
 * (lib/dm.h, lib/dm.c), and export/holders-reproducer.c.in, after the
 * cell's REPRO_* definitions.  Every holders cell exports: an io_uring
 * cell's reproducer links liburing, the others need libc alone.
 * With --expect, the reproducer's exit status on a kernel, from the
 * model's answer for the cell (holders_expect_finding()), for the job
 * that runs every export on every flavour.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "export/export.h"
#include "lib/options.h"
#include "lib/util.h"
#include "model/holders.h"

__asm__(".section .rodata\n"
	".global export_fsioctl_h\nexport_fsioctl_h:\n.incbin \"lib/fsioctl.h\"\n.byte 0\n"
	".global export_dm_h\nexport_dm_h:\n.incbin \"lib/dm.h\"\n.byte 0\n"
	".global export_dm_c\nexport_dm_c:\n.incbin \"lib/dm.c\"\n.byte 0\n"
	".global export_steps_h\nexport_steps_h:\n.incbin \"lib/holders_steps.h\"\n.byte 0\n"
	".global export_steps_c\nexport_steps_c:\n.incbin \"lib/holders_steps.c\"\n.byte 0\n"
	".global export_main_c\nexport_main_c:\n.incbin \"export/holders-reproducer.c.in\"\n.byte 0\n"
	".previous\n");
extern const char export_fsioctl_h[], export_dm_h[], export_dm_c[], export_steps_h[],
	export_steps_c[], export_main_c[];

/* What the reproducer calls its holder. */
static const char * const holder_names[HOLDERS_HOLDER_COUNT] = {
	[HOLDERS_ODIRECT]	= "an O_DIRECT read(2)",
	[HOLDERS_PVW]		= "process_vm_writev()",
	[HOLDERS_URING]		= "an io_uring IORING_OP_READ",
};

/* How each file system is made and mounted: the lab's scratch disks' (qemu/run.sh). */
static const struct {
	const char *mkfs, *type, *opts;
	unsigned int mb;
} fs_setup[HOLDERS_FS_COUNT] = {
	[HOLDERS_FS_EXT4]	= { "\"mkfs.ext4\", \"-q\", \"-F\", \"-L\", \"scratch\"", "ext4", "", 256 },
	[HOLDERS_FS_XFS]	= { "\"mkfs.xfs\", \"-q\", \"-f\", \"-L\", \"scratch\"", "xfs", "", 300 },
	[HOLDERS_FS_BTRFS]	= { "\"mkfs.btrfs\", \"-q\", \"-f\", \"-L\", \"scratch\"", "btrfs", "", 256 },
	[HOLDERS_FS_EXT4J]	= { "\"mkfs.ext4\", \"-q\", \"-F\", \"-L\", \"scratch\"", "ext4",
				    "data=journal", 256 },
};

int export_parse_cell(const char *name, struct holders_cell *c)
{
	char buf[64];
	unsigned int fs, h, ev;

	for (fs = 0; fs < HOLDERS_FS_COUNT; fs++)
		for (h = 0; h < HOLDERS_HOLDER_COUNT; h++)
			for (ev = 0; ev < HOLDERS_EV_COUNT; ev++) {
				*c = (struct holders_cell){ fs, h, ev };
				if (!holders_cell_valid(c))
					continue;
				holders_cell_name(c, buf, sizeof(buf));
				if (!strcmp(buf, name))
					return 0;
			}
	return -ENOENT;
}

bool export_supported(const struct holders_cell *c)
{
	return c->holder < HOLDERS_HOLDER_COUNT;
}

/* The compiler's command for @name's reproducer (io_uring's links liburing). */
static void build_line(FILE *f, const char *name, const struct holders_cell *c)
{
	fprintf(f, "gcc -O2 -pthread -o %s %s.c%s", name, name,
		c->holder == HOLDERS_URING ? " -luring" : "");
}

/* What marks a line of the embedded files that includes a lab header. */
#define LAB_INCLUDE	"/* export: lab include */"

/* @text, without the lines that include the lab's own headers. */
static void put_source(FILE *f, const char *text)
{
	const char *nl;

	for (; *text; text = nl + 1) {
		nl = strchr(text, '\n');
		if (!nl)
			nl = text + strlen(text);
		if (!memmem(text, nl - text, LAB_INCLUDE, sizeof(LAB_INCLUDE) - 1))
			fwrite(text, 1, nl - text + (*nl ? 1 : 0), f);
		if (!*nl)
			break;
	}
}

static int write_c(const char *path, const char *name, const struct holders_cell *c)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fprintf(f, "// SPDX-License-Identifier: GPL-2.0\n"
		"/*\n * gup-lab reproducer %s, written by `gupctl export %s`.\n"
		" * Self-contained: build it with `", name, name);
	build_line(f, name, c);
	fprintf(f, "` (or -static)\n"
		" * and run it as root: ./%s [WORKDIR]  (a %u MB sparse file is made there).\n"
		" * Exit status: 0 as the kernel's design says, 1 data lost or another file\n"
		" * changed, 2 could not run (the reason is printed).\n */\n",
		name, fs_setup[c->fs].mb);
	fprintf(f, "#define _GNU_SOURCE\n%s#define REPRO_CELL \"%s\"\n"
		"#define REPRO_HOLDER %d\t/* %s */\n#define REPRO_HOLDER_NAME \"%s\"\n"
		"#define REPRO_EVENT %d\t/* %s */\n"
		"#define REPRO_PAGE_STAYS %d\t/* does the file keep the page through the event? */\n"
		"#define REPRO_MKFS %s\n#define REPRO_FSTYPE \"%s\"\n#define REPRO_MOUNT_OPTS \"%s\"\n"
		"#define REPRO_IMAGE_MB %u\n\n",
		c->holder == HOLDERS_URING ? "" : "#define HOLDERS_NO_URING\n", name,
		c->holder, holders_holder_choices[c->holder], holder_names[c->holder],
		c->event, holders_event_choices[c->event], holders_page_stays(c),
		fs_setup[c->fs].mkfs, fs_setup[c->fs].type, fs_setup[c->fs].opts,
		fs_setup[c->fs].mb);
	put_source(f, export_fsioctl_h);
	put_source(f, export_dm_h);
	put_source(f, export_dm_c);
	put_source(f, export_steps_h);
	put_source(f, export_steps_c);
	put_source(f, export_main_c);
	return fclose(f) ? -errno : 0;
}

static int write_sh(const char *path, const char *name, const struct holders_cell *c)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fprintf(f, "#!/bin/sh\n# gup-lab reproducer %s: build and run (as root).\n"
		"# Exit status: the reproducer's (0 as designed, 1 data lost or another\n"
		"# file changed, 2 could not run).\nset -e\ncd \"$(dirname \"$0\")\"\n", name);
	build_line(f, name, c);
	fprintf(f, "\nexec ./%s \"$@\"\n", name);
	if (fclose(f))
		return -errno;
	return chmod(path, 0755) ? -errno : 0;
}

/* Every cell that exports and is a finding on @k, one name a line. */
static int list_findings(const struct holders_kernel *k)
{
	struct holders_expectation e;
	struct holders_cell c;
	unsigned int fs, h, ev;
	char name[64];

	for (fs = 0; fs < HOLDERS_FS_COUNT; fs++)
		for (h = 0; h < HOLDERS_HOLDER_COUNT; h++)
			for (ev = 0; ev < HOLDERS_EV_COUNT; ev++) {
				c = (struct holders_cell){ fs, h, ev };
				if (!holders_cell_valid(&c) || !export_supported(&c))
					continue;
				if (holders_expect(k, &c, &e)) {
					fprintf(stderr, "gupctl export: unknown policy '%s'\n", k->policy);
					return GUPCTL_EXIT_USAGE;
				}
				if (!e.run || !holders_expect_finding(&c, &e))
					continue;
				holders_cell_name(&c, name, sizeof(name));
				printf("%s\n", name);
			}
	return GUPCTL_EXIT_OK;
}

static const char * const export_usage[] = {
	"gupctl export [--dir DIR] CELL",
	"gupctl export --expect --policy P --source V [--ext4 B] CELL",
	"gupctl export --findings --policy P --source V [--ext4 B]",
	"gupctl export report -o FILE RESULTS_DIR",
	"",
	"A holders cell (gupctl holders cells: FS-HOLDER-EVENT) as a reproducer that",
	"needs nothing of the lab: DIR/CELL.c and DIR/CELL.sh (docs/gupctl.md).",
	NULL
};

int cmd_export(int argc, char **argv)
{
	static const char * const source_choices[] = { "6.1", "6.12", "7.3", NULL };
	static const char * const ext4_choices[] = { "warn", "bug", NULL };
	const char *dir = ".", *policy = NULL;
	unsigned int source = POLICY_KERNEL_COUNT, ext4 = 0;
	bool expect = false, findings = false;
	const struct gopt opts[] = {
		GOPT_STRING(0, "dir", &dir, "DIR", "where CELL.c and CELL.sh go (default: .)"),
		GOPT_BOOL(0, "expect", &expect, "print the reproducer's exit status on a kernel instead"),
		GOPT_BOOL(0, "findings", &findings, "list the cells that are findings on a kernel"),
		GOPT_STRING(0, "policy", &policy, "P", "with --expect, --findings: the flavour's gup column"),
		GOPT_CHOICE(0, "source", &source, "V", source_choices,
			    "with --expect, --findings: its source column"),
		GOPT_CHOICE(0, "ext4", &ext4, "B", ext4_choices, "with --expect, --findings: its ext4 column"),
		GOPT_END()
	};
	struct holders_expectation e;
	struct holders_kernel k;
	struct holders_cell c;
	char path[4096];
	int ret, argi;

	if (argc > 1 && !strcmp(argv[1], "report"))
		return export_report(argc - 1, argv + 1);
	ret = gopt_parse("export", argc, argv, opts, export_usage, &argi);
	if (ret)
		return ret == GOPT_HELP ? GUPCTL_EXIT_OK : ret;
	if ((expect || findings) && (!policy || source == POLICY_KERNEL_COUNT))
		return usage_error("export", "--expect and --findings need --policy and --source");
	k = (struct holders_kernel){ policy, ext4 == 1, source };
	if (findings) {
		if (argi != argc)
			return usage_error("export", "--findings takes no CELL");
		return list_findings(&k);
	}
	if (argi + 1 != argc)
		return usage_error("export", "give one CELL (gupctl holders cells lists them)");
	if (export_parse_cell(argv[argi], &c))
		return usage_error("export", "'%s' is not a holders cell (FS-HOLDER-EVENT: gupctl holders cells)",
				   argv[argi]);
	if (expect) {
		if (holders_expect(&k, &c, &e))
			return usage_error("export", "unknown policy '%s'", policy);
		if (!e.run)
			printf("not-run\t%s\n", e.reason);
		else
			printf("%d\t%s%s%s\n", holders_expect_finding(&c, &e),
			       holders_expect_finding(&c, &e) ?
			       (e.clone == HOLDERS_DATA_NEW ? "another file changed" : "data lost") :
			       "as designed", "; ", e.reason);
		return GUPCTL_EXIT_OK;
	}
	snprintf(path, sizeof(path), "%s/%s.c", dir, argv[argi]);
	ret = write_c(path, argv[argi], &c);
	if (!ret) {
		printf("%s\n", path);
		snprintf(path, sizeof(path), "%s/%s.sh", dir, argv[argi]);
		ret = write_sh(path, argv[argi], &c);
	}
	if (ret) {
		fprintf(stderr, "gupctl export: %s: %s\n", path, strerror(-ret));
		return GUPCTL_EXIT_USAGE;
	}
	printf("%s\n", path);
	return GUPCTL_EXIT_OK;
}
