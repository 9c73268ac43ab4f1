/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gup_compat.h - what differs between the kernels gup_pin_test builds
 * against (6.1 and 6.12), in one place, so that the driver itself reads as
 * code for one kernel.
 *
 * - 6.5 removed the vmas argument of pin_user_pages(), get_user_pages()
 *   and their _remote variants ("mm/gup: remove vmas parameter from ...",
 *   Lorenzo Stoakes).  The driver always passed NULL.
 * - 6.7 made hugetlb page cache folios count ->index in PAGE_SIZE units,
 *   like every other folio ("mm/filemap: remove hugetlb special casing in
 *   filemap.c"): 6.12's linear_page_index() (include/linux/pagemap.h:1067)
 *   no longer converts.
 * - FOLL_* became an enum in mm_types.h (6.4), FOLL_PIN and FOLL_REMOTE
 *   moved to mm/internal.h: the driver only ever names FOLL_WRITE,
 *   FOLL_LONGTERM and FOLL_FORCE, which both kernels export, and tests for
 *   the one series flag that is a #define (FOLL_ALLOW_BROKEN_FILE_MAPPING,
 *   patches/gup-v1/) with #ifdef.
 */
#ifndef GUP_COMPAT_H
#define GUP_COMPAT_H

#include <linux/mm.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
static inline long gpt_pin_user_pages(unsigned long start, unsigned long nr,
				      unsigned int foll, struct page **pages)
{
	return pin_user_pages(start, nr, foll, pages, NULL);
}

static inline long gpt_get_user_pages(unsigned long start, unsigned long nr,
				      unsigned int foll, struct page **pages)
{
	return get_user_pages(start, nr, foll, pages, NULL);
}

static inline long gpt_pin_user_pages_remote(struct mm_struct *mm,
					     unsigned long start,
					     unsigned long nr,
					     unsigned int foll,
					     struct page **pages)
{
	return pin_user_pages_remote(mm, start, nr, foll, pages, NULL, NULL);
}

static inline long gpt_get_user_pages_remote(struct mm_struct *mm,
					     unsigned long start,
					     unsigned long nr,
					     unsigned int foll,
					     struct page **pages)
{
	return get_user_pages_remote(mm, start, nr, foll, pages, NULL, NULL);
}
#else
static inline long gpt_pin_user_pages(unsigned long start, unsigned long nr,
				      unsigned int foll, struct page **pages)
{
	return pin_user_pages(start, nr, foll, pages);
}

static inline long gpt_get_user_pages(unsigned long start, unsigned long nr,
				      unsigned int foll, struct page **pages)
{
	return get_user_pages(start, nr, foll, pages);
}

static inline long gpt_pin_user_pages_remote(struct mm_struct *mm,
					     unsigned long start,
					     unsigned long nr,
					     unsigned int foll,
					     struct page **pages)
{
	return pin_user_pages_remote(mm, start, nr, foll, pages, NULL);
}

static inline long gpt_get_user_pages_remote(struct mm_struct *mm,
					     unsigned long start,
					     unsigned long nr,
					     unsigned int foll,
					     struct page **pages)
{
	return get_user_pages_remote(mm, start, nr, foll, pages, NULL);
}
#endif

/*
 * Does a hugetlb folio's ->index count huge pages (before 6.7: 6.1's
 * linear_page_index() -> linear_hugepage_index(), include/linux/
 * pagemap.h:910) rather than base pages?
 */
static inline bool gpt_hugetlb_index_in_huge_pages(void)
{
	return LINUX_VERSION_CODE < KERNEL_VERSION(6, 7, 0);
}

#endif /* GUP_COMPAT_H */
