// SPDX-License-Identifier: GPL-2.0
/*
 * target: map the memory to pin.  See target.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/memfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "lib/gupdev.h"
#include "lib/target.h"
#include "lib/util.h"

#define ALIGN_UP(x, a)	(((x) + (a) - 1) / (a) * (a))

static int fail(struct target *t, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	target_teardown(t);
	return -err;
}

static const char *open_hint(int err, bool read_only)
{
	switch (err) {
	case ENOENT:
		return "check the path (gupctl never creates a FILE)";
	case EACCES:
	case EROFS:
		return read_only ? "check its permissions" :
			"check its permissions, or pass --read-only";
	case EISDIR:
		return "give a regular file";
	default:
		return "check the path";
	}
}

static int setup_file(struct target *t)
{
	const struct target_spec *s = &t->spec;
	size_t need = s->offset + s->length;
	struct stat st;

	t->fd = open(s->path, (s->read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (t->fd < 0)
		return fail(t, errno, "cannot open %s: %s (%s): %s", s->path,
			    errno_name(errno), strerror(errno),
			    open_hint(errno, s->read_only));
	if (fstat(t->fd, &st) < 0)
		return fail(t, errno, "cannot stat %s: %s (%s)", s->path,
			    errno_name(errno), strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(t, EINVAL, "%s is not a regular file: give a regular file",
			    s->path);
	if ((size_t)st.st_size < need)
		return fail(t, ERANGE,
			    "%s is %lld bytes, too small for the range [%#zx, %#zx) (%zu bytes needed): grow it (truncate -s %zu %s) or pass a smaller --offset/--length",
			    s->path, (long long)st.st_size, s->offset, need,
			    need, need, s->path);
	t->map_len = need;
	return 0;
}

/*
 * A huge page can back the range only where the mapping is 2 MiB aligned:
 * map 2 MiB more, keep the aligned part.  MAP_FAILED with errno on failure.
 */
static void *map_huge_aligned(struct target *t, int prot, int flags)
{
	size_t extra = TARGET_HUGE_PAGE_SIZE;
	char *p = mmap(NULL, t->map_len + extra, prot, flags, t->fd, 0);
	char *aligned;

	if (p == MAP_FAILED)
		return p;
	munmap(p, t->map_len + extra);
	/* Map again at the aligned address: a file mapping's offset stays 0. */
	aligned = (char *)ALIGN_UP((uintptr_t)p, TARGET_HUGE_PAGE_SIZE);
	return mmap(aligned, t->map_len, prot, flags | MAP_FIXED_NOREPLACE, t->fd, 0);
}

static int setup_memfd(struct target *t, bool huge)
{
	unsigned int flags = MFD_CLOEXEC | (huge ? MFD_HUGETLB | MFD_HUGE_2MB : 0);
	size_t page = huge || t->spec.thp ? TARGET_HUGE_PAGE_SIZE :
		      (size_t)getpagesize();

	t->map_len = ALIGN_UP(t->spec.offset + t->spec.length, page);
	t->fd = memfd_create(huge ? "gupctl-hugetlb" : "gupctl-shmem", flags);
	if (t->fd < 0)
		return fail(t, errno, "memfd_create(%s) failed: %s (%s): %s",
			    huge ? "MFD_HUGETLB|MFD_HUGE_2MB" : "0",
			    errno_name(errno), strerror(errno),
			    huge ? "the kernel needs CONFIG_HUGETLBFS with 2 MiB pages" :
			    "the kernel needs memfd support");
	if (ftruncate(t->fd, t->map_len) < 0)
		return fail(t, errno, "cannot size the memfd to %zu bytes: %s (%s)",
			    t->map_len, errno_name(errno), strerror(errno));
	return 0;
}

int target_setup(struct target *t, const struct target_spec *spec)
{
	size_t page = getpagesize();
	int prot, flags, ret;

	memset(t, 0, sizeof(*t));
	t->spec = *spec;
	t->fd = -1;
	t->map = MAP_FAILED;
	if (!spec->length || spec->offset % page || spec->length % page ||
	    spec->offset + spec->length < spec->offset ||
	    (spec->kind == TARGET_FILE && !spec->path))
		return fail(t, EINVAL, "bad target range or path");

	switch (spec->kind) {
	case TARGET_FILE:
		ret = setup_file(t);
		break;
	case TARGET_ANON:
		t->map_len = spec->thp ?
			     ALIGN_UP(spec->offset + spec->length, TARGET_HUGE_PAGE_SIZE) :
			     spec->offset + spec->length;
		ret = 0;
		break;
	case TARGET_SHMEM:
	case TARGET_HUGETLB:
		ret = setup_memfd(t, spec->kind == TARGET_HUGETLB);
		break;
	default:
		return fail(t, EINVAL, "unknown target kind %d", spec->kind);
	}
	if (ret)
		return ret;
	if (spec->thp && spec->kind != TARGET_ANON && spec->kind != TARGET_SHMEM)
		return fail(t, EINVAL, "transparent huge pages: anonymous or shmem memory only");

	if (t->fd >= 0) {
		struct statfs sfs;

		if (fstatfs(t->fd, &sfs) == 0)
			t->fs_magic = sfs.f_type;
	}
	prot = PROT_READ | (spec->read_only ? 0 : PROT_WRITE);
	if (spec->kind == TARGET_ANON)
		flags = MAP_PRIVATE | MAP_ANONYMOUS;
	else
		flags = spec->private ? MAP_PRIVATE : MAP_SHARED;
	t->map = spec->thp ? map_huge_aligned(t, prot, flags) :
		 mmap(NULL, t->map_len, prot, flags, t->fd, 0);
	if (t->map == MAP_FAILED) {
		int err = errno;

		if (spec->kind == TARGET_HUGETLB && err == ENOMEM)
			return fail(t, err,
				    "cannot map a 2 MiB hugetlb page: ENOMEM (%s): no free huge page; reserve some: echo %zu > /proc/sys/vm/nr_hugepages",
				    strerror(err), t->map_len / TARGET_HUGE_PAGE_SIZE);
		return fail(t, err, "cannot map %zu bytes of %s: %s (%s)",
			    t->map_len,
			    spec->kind == TARGET_FILE ? spec->path :
			    target_kind_name(spec->kind),
			    errno_name(err), strerror(err));
	}
	if (spec->thp && madvise(t->map, t->map_len, MADV_HUGEPAGE) < 0)
		return fail(t, errno, "madvise(MADV_HUGEPAGE) failed: %s (%s): the kernel needs CONFIG_ADVISE_SYSCALLS and CONFIG_TRANSPARENT_HUGEPAGE",
			    errno_name(errno), strerror(errno));
	t->addr = (char *)t->map + spec->offset;
	t->len = spec->length;
	ret = target_prefault(t, spec->prefault);
	if (ret)
		return fail(t, -ret, "fsync() after the write fault failed: %s (%s)",
			    errno_name(ret), strerror(-ret));
	return 0;
}

void target_teardown(struct target *t)
{
	if (t->map != MAP_FAILED && t->map)
		munmap(t->map, t->map_len);
	if (t->fd >= 0)
		close(t->fd);
	t->map = MAP_FAILED;
	t->addr = NULL;
	t->fd = -1;
}

int target_prefault(const struct target *t, enum target_prefault how)
{
	size_t page = getpagesize(), off;
	volatile char *p;

	if (how == TARGET_PREFAULT_NONE)
		return 0;
	for (off = 0; off < t->len; off += page) {
		p = (volatile char *)t->addr + off;
		if (how == TARGET_PREFAULT_READ)
			(void)*p;
		else if (t->spec.kind == TARGET_FILE)
			*p = *p;
		else
			/*
			 * Fresh anonymous and memfd memory is zeros: a store
			 * alone keeps it so, and takes a write fault without
			 * a read fault first (which would map the huge zero
			 * page, and its COW splits the PMD in 6.1).
			 */
			*p = 0;
	}
	/*
	 * fsync() writes the dirty page back: for a MAP_SHARED file on a
	 * file system that writes back, write_cache_pages() ->
	 * folio_clear_dirty_for_io() -> folio_mkclean() write-protects its
	 * PTE again.  Anonymous memory has no file.
	 */
	if (how == TARGET_PREFAULT_WRITEBACK && t->fd >= 0 && fsync(t->fd) < 0)
		return -errno;
	return 0;
}

long target_thp_kb(const struct target *t)
{
	unsigned long start, end, want = (uintptr_t)t->map;
	char line[256];
	long kb, total = -1;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, " ");

		/* A VMA's header starts "start-end perms"; fields "Name:". */
		if (n && line[n - 1] != ':' &&
		    sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			in = start == want;
			if (in)
				total = 0;
			continue;
		}
		if (in && (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1 ||
			   sscanf(line, "ShmemPmdMapped: %ld kB", &kb) == 1))
			total += kb;
	}
	fclose(f);
	return total < 0 ? -ENOENT : total;
}

const char * const target_prefault_names[] = {
	[TARGET_PREFAULT_NONE]	= "none",
	[TARGET_PREFAULT_READ]	= "read",
	[TARGET_PREFAULT_WRITE]	= "write",
	[TARGET_PREFAULT_WRITEBACK] = "writeback",
	NULL
};

static const char *target_prefault_name(enum target_prefault how)
{
	return (unsigned int)how <= TARGET_PREFAULT_WRITEBACK ?
	       target_prefault_names[how] : "?";
}

static const char *fs_name(unsigned long magic)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} fs[] = {
		{ EXT4_SUPER_MAGIC, "ext2/3/4" },
		{ TMPFS_MAGIC, "tmpfs" },
		{ HUGETLBFS_MAGIC, "hugetlbfs" },
		{ RAMFS_MAGIC, "ramfs" },
		{ XFS_SUPER_MAGIC, "xfs" },
		{ BTRFS_SUPER_MAGIC, "btrfs" },
		{ F2FS_SUPER_MAGIC, "f2fs" },
		{ OVERLAYFS_SUPER_MAGIC, "overlay" },
		{ NFS_SUPER_MAGIC, "nfs" },
		{ V9FS_MAGIC, "9p" },
		{ FUSE_SUPER_MAGIC, "fuse" },
		{ MSDOS_SUPER_MAGIC, "vfat" },
		{ SQUASHFS_MAGIC, "squashfs" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fs); i++)
		if (fs[i].magic == magic)
			return fs[i].name;
	return NULL;
}

char *target_describe(const struct target *t, char *buf, size_t size)
{
	const struct target_spec *s = &t->spec;
	const char *fs = fs_name(t->fs_magic);
	char backing[64];

	if (s->kind == TARGET_ANON)
		snprintf(backing, sizeof(backing), "anonymous memory");
	else if (fs)
		snprintf(backing, sizeof(backing), "%s on %s",
			 s->kind == TARGET_FILE ? "file" : "memfd", fs);
	else
		snprintf(backing, sizeof(backing), "%s on fs magic %#lx",
			 s->kind == TARGET_FILE ? "file" : "memfd", t->fs_magic);
	snprintf(buf, size, "%s%s, %s, %s%s, prefault %s", backing,
		 s->thp ? " (MADV_HUGEPAGE)" : "",
		 s->kind == TARGET_ANON || s->private ? "MAP_PRIVATE" : "MAP_SHARED",
		 s->read_only ? "PROT_READ" : "PROT_READ|PROT_WRITE",
		 s->kind != TARGET_FILE ? "" :
		 s->read_only ? ", O_RDONLY" : ", O_RDWR",
		 target_prefault_name(s->prefault));
	return buf;
}

const char *target_kind_name(enum target_kind kind)
{
	switch (kind) {
	case TARGET_FILE:	return "file";
	case TARGET_ANON:	return "anon";
	case TARGET_SHMEM:	return "shmem";
	case TARGET_HUGETLB:	return "hugetlb";
	}
	return "?";
}

int target_parse_size(const char *s, size_t *bytes)
{
	int base = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
	unsigned long long v, mult = 1;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno)
		return -ERANGE;
	if (*end == 'K' || *end == 'k')
		mult = 1ULL << 10;
	else if (*end == 'M' || *end == 'm')
		mult = 1ULL << 20;
	else if (*end)
		return -EINVAL;
	if (mult > 1 && end[1])
		return -EINVAL;
	if (v > SIZE_MAX / mult)
		return -ERANGE;
	*bytes = v * mult;
	return 0;
}
