/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pageflags: what the kernel says of the page behind a user address,
 * without the lab's driver: /proc/self/pagemap (its PFN) then
 * /proc/kpageflags (Documentation/admin-guide/mm/pagemap.rst; root only).
 */
#ifndef LIB_PAGEFLAGS_H
#define LIB_PAGEFLAGS_H

#include <stdbool.h>
#include <stdint.h>

/* include/uapi/linux/kernel-page-flags.h and kernel-page-flags.h bits */
#define PAGEFLAG_DIRTY		4
#define PAGEFLAG_LRU		5
#define PAGEFLAG_WRITEBACK	8
#define PAGEFLAG_MMAP		11
#define PAGEFLAG_PRIVATE	35

struct page_state {
	bool present;		/* mapped at the address (pagemap bit 63) */
	uint64_t pfn;
	uint64_t flags;		/* kpageflags; 0 when not present */
};

/* The page at @addr in this process.  0 or -errno. */
int page_state_of(const void *addr, struct page_state *s);
/* The flags of @pfn (a page that may no longer be mapped).  0 or -errno. */
int kpageflags_of(uint64_t pfn, uint64_t *flags);
/* "dirty lru private" (the set bits of interest), or "not mapped". */
const char *page_state_str(const struct page_state *s, char *buf, unsigned long size);

#endif /* LIB_PAGEFLAGS_H */
