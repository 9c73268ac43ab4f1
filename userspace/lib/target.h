/* SPDX-License-Identifier: GPL-2.0 */
/*
 * target: the user memory a pin is taken on.  A file, anonymous memory, a
 * shmem memfd or a hugetlb memfd, mapped shared or private, read-only or
 * read/write, optionally prefaulted.  Nothing here talks to /dev/gup_test.
 */
#ifndef TARGET_H
#define TARGET_H

#include <stdbool.h>
#include <stddef.h>

#define TARGET_HUGE_PAGE_SIZE	(2UL << 20)	/* MFD_HUGE_2MB */

enum target_kind {
	TARGET_FILE,		/* spec.path; never created nor grown */
	TARGET_ANON,		/* MAP_ANONYMOUS | MAP_PRIVATE, always */
	TARGET_SHMEM,		/* memfd_create(), sized to cover the range */
	TARGET_HUGETLB,		/* memfd_create(MFD_HUGETLB), 2 MiB pages */
};

enum target_prefault {
	TARGET_PREFAULT_NONE,
	TARGET_PREFAULT_READ,	/* read one byte of each page */
	TARGET_PREFAULT_WRITE,	/* rewrite one byte of each page with itself */
	TARGET_PREFAULT_WRITEBACK, /* WRITE, then fsync() the file: written back */
};

struct target_spec {
	enum target_kind kind;
	const char *path;		/* TARGET_FILE only */
	bool private;			/* MAP_PRIVATE instead of MAP_SHARED */
	bool read_only;			/* PROT_READ; a file is opened O_RDONLY */
	bool thp;			/* anon/shmem: 2 MiB aligned, MADV_HUGEPAGE */
	size_t offset;			/* range start in the mapping, page aligned */
	size_t length;			/* range bytes, page aligned, > 0 */
	enum target_prefault prefault;	/* applied to the range by setup */
};

struct target {
	struct target_spec spec;
	int fd;				/* -1 for TARGET_ANON */
	void *map;			/* the whole mapping, MAP_FAILED if none */
	size_t map_len;
	void *addr;			/* map + spec.offset: what to pin */
	size_t len;			/* spec.length */
	unsigned long fs_magic;		/* statfs() f_type of fd, 0 for anon */
	char err[512];			/* why target_setup() failed */
};

/*
 * Open/create and map @spec, then prefault the range as asked.  0 or
 * -errno with a human explanation (naming the path, errno name and what to
 * do) in t->err; on failure nothing is left mapped or open.
 * -ERANGE: a file too small for the range; -EINVAL: a bad spec.
 */
int target_setup(struct target *t, const struct target_spec *spec);
void target_teardown(struct target *t);
/*
 * Touch each page of the range (setup does this with spec.prefault).
 * 0, or -errno of the fsync() that WRITEBACK asks for.
 */
int target_prefault(const struct target *t, enum target_prefault how);

/*
 * kB of the mapping that transparent huge pages map with a PMD
 * (/proc/self/smaps: AnonHugePages + ShmemPmdMapped), or -errno.
 */
long target_thp_kb(const struct target *t);

/* "file on ext2/3/4, MAP_SHARED, PROT_READ|PROT_WRITE, prefault none" */
char *target_describe(const struct target *t, char *buf, size_t size);

const char *target_kind_name(enum target_kind kind);	/* "file", "anon".. */
/* "none", "read", "write", "writeback" (by enum target_prefault), NULL terminated. */
extern const char * const target_prefault_names[];
/*
 * Decimal (or 0x hex) bytes with an optional K or M suffix (x1024,
 * x1048576).  -EINVAL: not such a number; -ERANGE: too big.
 */
int target_parse_size(const char *s, size_t *bytes);

#endif /* TARGET_H */
