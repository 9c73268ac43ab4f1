/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gup_compat.h - what differs between the kernels gup_pin_test builds
 * against (6.1, 6.12 and 7.3), in one place, so that the driver itself reads as
 * code for one kernel.
 *
 * - 6.5 removed the vmas argument of pin_user_pages(), get_user_pages()
 *   and their _remote variants ("mm/gup: remove vmas parameter from ...",
 *   Lorenzo Stoakes).  The driver always passed NULL.
 * - 6.7 made hugetlb page cache folios count ->index in PAGE_SIZE units,
 *   like every other folio ("mm/filemap: remove hugetlb special casing in
 *   filemap.c"): 6.12's linear_page_index() (include/linux/pagemap.h:1067)
 *   no longer converts.
 * - 6.12 removed page_mapcount(), and no_llseek (leave .llseek NULL,
 *   Documentation/filesystems/porting.rst:917).
 * - 7.x named PAGE_MAPPING_FLAGS and PAGE_MAPPING_ANON FOLIO_MAPPING_FLAGS
 *   and FOLIO_MAPPING_ANON (7.3: include/linux/page-flags.h:711-714):
 *   GPT_MAPPING_FLAGS is whichever the tree has.
 * - 7.x allocates one object of a pointer's type with kzalloc_obj()
 *   (7.3: include/linux/slab.h:1155), which 7.3's checkpatch asks for;
 *   for 6.1 and 6.12 it is defined here as the kzalloc() it stands for.
 * - FOLL_* became an enum in mm_types.h, FOLL_PIN and FOLL_REMOTE
 *   moved to mm/internal.h (between 6.1 and 6.12): the driver only ever names FOLL_WRITE,
 *   FOLL_LONGTERM and FOLL_FORCE, which both kernels export, and tests for
 *   the one series flag that is a #define (FOLL_ALLOW_BROKEN_FILE_MAPPING,
 *   patches/gup-v1/) with #ifdef.  Seed 005 defines it in linux/mm.h; the
 *   lab's gup-v1 moves it to linux/foll_allow_broken.h (patches/gup-v1/0002,
 *   so that the flavour's kernel shares stock's objects): included when
 *   the tree has it (module/Kbuild: GPT_HAS_FOLL_ALLOW_BROKEN_H).
 */
#ifndef GUP_COMPAT_H
#define GUP_COMPAT_H

#include <linux/mm.h>
#ifdef GPT_HAS_FOLL_ALLOW_BROKEN_H
#include <linux/foll_allow_broken.h>
#endif

/* The GPT_* feature macros come from module/Kbuild, by kernel version. */

#ifndef kzalloc_obj
#define kzalloc_obj(P, GFP)	kzalloc(sizeof(P), GFP)
#endif

#ifdef FOLIO_MAPPING_FLAGS
#define GPT_MAPPING_FLAGS	FOLIO_MAPPING_FLAGS
#else
#define GPT_MAPPING_FLAGS	PAGE_MAPPING_FLAGS
#endif
#ifdef GPT_GUP_TAKES_VMAS
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
#ifdef GPT_HUGETLB_INDEX_IN_HUGE_PAGES
static inline bool gpt_hugetlb_index_in_huge_pages(void)
{
	return true;
}
#else
static inline bool gpt_hugetlb_index_in_huge_pages(void)
{
	return false;
}
#endif

/*
 * The number of mappings of the page, as 6.1's page_mapcount()
 * (include/linux/mm.h:883) gives it.  6.12 has it only as fs/proc's
 * folio_precise_page_mapcount() (fs/proc/internal.h:183), not in a header
 * a module can use: the page's own _mapcount (PTE mappings) plus, in a
 * large folio, the mappings of the whole folio; a typed page (a hugetlb
 * head keeps its page type there) counts none of its own.
 */
#ifdef GPT_HAS_PAGE_MAPCOUNT
static inline int gpt_page_mapcount(struct page *page)
{
	return page_mapcount(page);
}

#define gpt_no_llseek no_llseek
#else
static inline int gpt_page_mapcount(struct page *page)
{
	struct folio *folio = page_folio(page);
	int mapcount = atomic_read(&page->_mapcount) + 1;

	if (page_mapcount_is_type(mapcount))
		mapcount = 0;
	if (folio_test_large(folio))
		mapcount += folio_entire_mapcount(folio);
	return mapcount;
}

#define gpt_no_llseek NULL
#endif

#endif /* GUP_COMPAT_H */
