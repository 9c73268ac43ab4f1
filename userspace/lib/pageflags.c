// SPDX-License-Identifier: GPL-2.0
/* pageflags: pagemap and kpageflags (lib/pageflags.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/pageflags.h"
#include "lib/util.h"

static int pread_u64(const char *path, uint64_t index, uint64_t *v)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = pread(fd, v, sizeof(*v), index * sizeof(*v));
	ret = ret == sizeof(*v) ? 0 : ret < 0 ? -errno : -EIO;
	close(fd);
	return ret;
}

int page_state_of(const void *addr, struct page_state *s)
{
	uint64_t e;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = pread_u64("/proc/self/pagemap", (uintptr_t)addr / getpagesize(), &e);
	if (ret)
		return ret;
	s->present = e >> 63 & 1;
	s->pfn = e & ((1ULL << 55) - 1);
	if (!s->present)
		return 0;
	return kpageflags_of(s->pfn, &s->flags);
}

int kpageflags_of(uint64_t pfn, uint64_t *flags)
{
	return pread_u64("/proc/kpageflags", pfn, flags);
}

const char *page_state_str(const struct page_state *s, char *buf, unsigned long size)
{
	static const struct { int bit; const char *name; } bits[] = {
		{ PAGEFLAG_DIRTY, "dirty" }, { PAGEFLAG_LRU, "lru" },
		{ PAGEFLAG_WRITEBACK, "writeback" }, { PAGEFLAG_MMAP, "mmap" },
		{ PAGEFLAG_PRIVATE, "private" },
	};
	size_t i, n = 0;

	if (!s->present) {
		snprintf(buf, size, "not mapped");
		return buf;
	}
	buf[0] = 0;
	for (i = 0; i < ARRAY_SIZE(bits); i++)
		if (s->flags >> bits[i].bit & 1 && n < size)
			n += snprintf(buf + n, size - n, "%s%s", n ? " " : "", bits[i].name);
	if (!n)
		snprintf(buf, size, "clean");
	return buf;
}
