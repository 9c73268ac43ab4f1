// SPDX-License-Identifier: GPL-2.0
/*
 * gup_pin_test: take user pages with GUP on behalf of user space, write and
 * read them through the kernel's own mapping, report their state, release
 * them with or without dirtying.  /dev/gup_test does things,
 * /sys/kernel/debug/gup_pin_test/ shows them.  The ABI is
 * module/uapi/gup_pin_test.h; the semantics are in docs/driver.md.
 *
 * Locking: one mutex, gpt_lock, protects the pin registry (gpt_pins), the pin
 * list of every open file, the page accounting and the counters.  It is
 * never held across a GUP call, folio_lock(), the release of pages or a user
 * copy: all of them may sleep for long, and a fault on a userfaultfd range
 * could wait for a thread that is itself calling into this driver.
 *
 * Writes follow the rule of the uapi header: a pin is writable (WRITE,
 * UNPIN with GUP_UNPIN_DIRTY) only if it was taken with FOLL_WRITE or all
 * its pages were page cache pages of the files of writable MAP_SHARED
 * mappings.  The verdict is taken under mmap_lock when the pin is made and
 * never changes; see gpt_judge_pin().
 *
 * A pin is refcounted.  The registry owns one reference; every ioctl that
 * works on a pin takes another under gpt_lock after finding it.  UNPIN and
 * close() take the pin out of the registry under gpt_lock and drop the
 * registry's reference, so a READ, WRITE or STATE racing with them keeps the
 * pages until it is done, and the last put releases them.  An id is found
 * only through the file that made the pin: pins belong to the open file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/buffer_head.h>
#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "gup_compat.h"
#include "uapi/gup_pin_test.h"

/*
 * Caps the module parameters: 2^18 FOLL_PIN pins of one page stay far from
 * overflowing its refcount (each adds GUP_PIN_COUNTING_BIAS).
 */
#define GPT_PAGES_LIMIT		BIT(18)

static unsigned int max_pages_per_pin = 512;
module_param(max_pages_per_pin, uint, 0444);
MODULE_PARM_DESC(max_pages_per_pin, "Most pages one PIN may ask for (else E2BIG)");

static unsigned int max_pages_total = 8192;
module_param(max_pages_total, uint, 0444);
MODULE_PARM_DESC(max_pages_total, "Most pages held by all pins together (else ENOSPC)");

#define GPT_NR_FLAG_MIXES	(GUP_PIN_FLAGS_ALL + 1)
#define GPT_ERRNO_SLOTS		8

/* What this kernel lets the module offer (gup_pin_version.features). */
#ifdef FOLL_ALLOW_BROKEN_FILE_MAPPING
#define GPT_FEATURES		GUP_PIN_FEATURE_ALLOW_BROKEN
#else
#define GPT_FEATURES		0U
#endif

struct gpt_file {
	struct list_head pins;		/* gpt_pin.node, under gpt_lock */
	/*
	 * The opener's mm (mmgrab()ed: the address stays its own).  Every
	 * ioctl but VERSION answers only a caller in it: pins address its
	 * pages, and a forked child or a process the fd was passed to must
	 * not reach them (gpt_ioctl()).
	 */
	struct mm_struct *mm;
};

struct gpt_pin {
	refcount_t ref;
	struct gpt_file *owner;
	struct list_head node;
	u32 id;
	pid_t pid;
	u64 addr;
	u64 len;
	u32 method;
	u32 flags;
	u32 nr_requested;
	u32 nr_pinned;
	bool writable;			/* the write rule's verdict, at pin time */
	bool dirty;			/* set by UNPIN, applied on release */
	struct page **pages;
};

struct gpt_errno_count {
	int err;			/* positive errno, 0: slot unused */
	u64 count;
};

/* Outcomes of PIN for one method and one flag mix. */
struct gpt_bucket {
	u64 attempts;
	u64 refused;			/* flag this kernel lacks, before GUP */
	u64 over_limit;			/* E2BIG / ENOSPC, before GUP */
	u64 nomem;			/* the driver's own allocation failed */
	u64 full;
	u64 partial;
	u64 empty;
	u64 failed;
	u64 failed_other;		/* errnos beyond GPT_ERRNO_SLOTS */
	struct gpt_errno_count errs[GPT_ERRNO_SLOTS];
};

static DEFINE_MUTEX(gpt_lock);
/*
 * The pins by id, module-wide (debugfs lists them all): ids 1..INT_MAX,
 * handed out cyclically so that a stale id is not soon another pin's.
 */
static DEFINE_XARRAY_ALLOC(gpt_pins);
static u32 gpt_next_id;
static u64 gpt_pages_reserved;		/* held + asked for by calls in flight */
static u64 gpt_pages_pinned;		/* held by pins, live or being released */
static u64 gpt_pins_live;
static u64 gpt_pins_created;
static u64 gpt_unpins;
static u64 gpt_unpins_dirty;
static u64 gpt_released_on_close;
static u64 gpt_bad_requests;
static u64 gpt_write_refused;
static u64 gpt_dirty_refused;
static struct gpt_bucket gpt_buckets[GUP_PIN_METHOD_COUNT][GPT_NR_FLAG_MIXES];
static struct dentry *gpt_debugfs;

static const char * const gpt_method_names[GUP_PIN_METHOD_COUNT] = {
	[GUP_PIN_METHOD_PIN]		= "pin_user_pages",
	[GUP_PIN_METHOD_PIN_FAST]	= "pin_user_pages_fast",
	[GUP_PIN_METHOD_GET]		= "get_user_pages",
	[GUP_PIN_METHOD_GET_FAST]	= "get_user_pages_fast",
	[GUP_PIN_METHOD_PIN_REMOTE]	= "pin_user_pages_remote",
	[GUP_PIN_METHOD_GET_REMOTE]	= "get_user_pages_remote",
	[GUP_PIN_METHOD_PIN_UNLOCKED]	= "pin_user_pages_unlocked",
	[GUP_PIN_METHOD_GET_UNLOCKED]	= "get_user_pages_unlocked",
};

/* Indexed by bit number: GUP_PIN_FLAG_WRITE is bit 0, and so on. */
static const char * const gpt_flag_bit_names[] = {
	"WRITE", "LONGTERM", "FORCE", "ALLOW_BROKEN",
};

/* Longest: all four names and three '|', and the NUL. */
#define GPT_FLAGS_NAME_MAX	36

/* "none", or the names of the set bits joined by '|' in bit order. */
static const char *gpt_flags_name(u32 flags, char *buf)
{
	size_t len = 0;
	unsigned int bit;

	if (!flags)
		return "none";
	for (bit = 0; bit < ARRAY_SIZE(gpt_flag_bit_names); bit++)
		if (flags & BIT(bit))
			len += scnprintf(buf + len, GPT_FLAGS_NAME_MAX - len,
					 "%s%s", len ? "|" : "",
					 gpt_flag_bit_names[bit]);
	return buf;
}

#define GPT_ERRNAME(e)	{ e, #e }
static const struct {
	int err;
	const char *name;
} gpt_errnames[] = {
	GPT_ERRNAME(EPERM), GPT_ERRNAME(ENOENT), GPT_ERRNAME(EINTR),
	GPT_ERRNAME(EIO), GPT_ERRNAME(E2BIG), GPT_ERRNAME(EAGAIN),
	GPT_ERRNAME(ENOMEM), GPT_ERRNAME(EFAULT), GPT_ERRNAME(EBUSY),
	GPT_ERRNAME(EINVAL), GPT_ERRNAME(ENOSPC), GPT_ERRNAME(ERANGE),
	GPT_ERRNAME(EOPNOTSUPP), GPT_ERRNAME(EHWPOISON),
	GPT_ERRNAME(ERESTARTSYS), GPT_ERRNAME(ENOTSUPP),
};

/* errname() is not exported in 6.1, hence this short table. */
static const char *gpt_errname(int err)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpt_errnames); i++)
		if (gpt_errnames[i].err == err)
			return gpt_errnames[i].name;
	return "UNKNOWN";
}

/* FOLL_PIN (pin_user_pages*()) rather than FOLL_GET (get_user_pages*()). */
static bool gpt_method_pins(u32 method)
{
	return method == GUP_PIN_METHOD_PIN ||
	       method == GUP_PIN_METHOD_PIN_FAST ||
	       method == GUP_PIN_METHOD_PIN_REMOTE ||
	       method == GUP_PIN_METHOD_PIN_UNLOCKED;
}

static unsigned int gpt_foll_flags(u32 flags)
{
	unsigned int foll = 0;

	if (flags & GUP_PIN_FLAG_WRITE)
		foll |= FOLL_WRITE;
	if (flags & GUP_PIN_FLAG_LONGTERM)
		foll |= FOLL_LONGTERM;
	if (flags & GUP_PIN_FLAG_FORCE)
		foll |= FOLL_FORCE;
#ifdef FOLL_ALLOW_BROKEN_FILE_MAPPING
	if (flags & GUP_PIN_FLAG_ALLOW_BROKEN)
		foll |= FOLL_ALLOW_BROKEN_FILE_MAPPING;
#endif
	return foll;
}

/*
 * Does this kernel know every FOLL_* flag @flags asks for?  The module does
 * not judge the mix otherwise: GUP answers (and WARNs) for itself.
 */
static bool gpt_kernel_has_flags(u32 flags)
{
	return !(flags & GUP_PIN_FLAG_ALLOW_BROKEN) ||
	       (GPT_FEATURES & GUP_PIN_FEATURE_ALLOW_BROKEN);
}

/* Argument checks of PIN that need no bucket; 0 or -EINVAL. */
static int gpt_check_pin_req(const struct gup_pin_req *req)
{
	u64 end;

	if (req->reserved || req->method >= GUP_PIN_METHOD_COUNT ||
	    (req->flags & ~GUP_PIN_FLAGS_ALL))
		return -EINVAL;
	if (!req->len || !PAGE_ALIGNED(req->addr) || !PAGE_ALIGNED(req->len))
		return -EINVAL;
	if (check_add_overflow(req->addr, req->len, &end) || end > TASK_SIZE)
		return -EINVAL;
	return 0;
}

/*
 * Refuse a flag this kernel lacks, apply the bounds, and reserve @nr pages
 * against max_pages_total so that concurrent calls cannot overshoot it.
 */
static int gpt_admit_pin(const struct gup_pin_req *req, u64 nr)
{
	struct gpt_bucket *b = &gpt_buckets[req->method][req->flags];
	int ret = 0;

	mutex_lock(&gpt_lock);
	b->attempts++;
	if (!gpt_kernel_has_flags(req->flags)) {
		b->refused++;
		ret = -EOPNOTSUPP;
	} else if (nr > max_pages_per_pin) {
		b->over_limit++;
		ret = -E2BIG;
	} else if (gpt_pages_reserved + nr > max_pages_total) {
		b->over_limit++;
		ret = -ENOSPC;
	} else {
		gpt_pages_reserved += nr;
	}
	mutex_unlock(&gpt_lock);
	return ret;
}

static void gpt_count_errno(struct gpt_bucket *b, int err)
{
	int i;

	b->failed++;
	for (i = 0; i < GPT_ERRNO_SLOTS; i++) {
		if (b->errs[i].err == err || !b->errs[i].err) {
			b->errs[i].err = err;
			b->errs[i].count++;
			return;
		}
	}
	b->failed_other++;
}

/* Record what the GUP call returned and give back what it did not take. */
static void gpt_account_gup(const struct gpt_pin *pin, long ret)
{
	struct gpt_bucket *b = &gpt_buckets[pin->method][pin->flags];
	u32 kept = ret > 0 ? ret : 0;

	mutex_lock(&gpt_lock);
	if (ret < 0)
		gpt_count_errno(b, -ret);
	else if (!ret)
		b->empty++;
	else if (ret < pin->nr_requested)
		b->partial++;
	else
		b->full++;
	gpt_pages_reserved -= pin->nr_requested - kept;
	gpt_pages_pinned += kept;
	mutex_unlock(&gpt_lock);
}

static struct gpt_pin *gpt_pin_alloc(const struct gup_pin_req *req, u32 nr)
{
	struct gpt_pin *pin;

	pin = kzalloc_obj(*pin, GFP_KERNEL);
	if (!pin)
		return NULL;
	pin->pages = kvcalloc(nr, sizeof(*pin->pages), GFP_KERNEL);
	if (!pin->pages) {
		kfree(pin);
		return NULL;
	}
	refcount_set(&pin->ref, 1);
	INIT_LIST_HEAD(&pin->node);
	pin->pid = task_tgid_nr(current);
	pin->addr = req->addr;
	pin->len = req->len;
	pin->method = req->method;
	pin->flags = req->flags;
	pin->nr_requested = nr;
	return pin;
}

static void gpt_pin_free(struct gpt_pin *pin)
{
	kvfree(pin->pages);
	kfree(pin);
}

/*
 * Is @page, at @addr, a page cache page of the file that a writable
 * MAP_SHARED mapping of the caller maps at @addr, and can that file's pages
 * be dirtied?  Rule (b) of the uapi header, for one page.  The caller holds
 * mmap_lock, which keeps the VMA and its file alive.  VM_SHARED|VM_WRITE on
 * a file mapping means the file was open for writing at mmap() (do_mmap()
 * refuses a writable shared mapping of an O_RDONLY file, of a write-sealed
 * memfd, of an append-only file), hence not on a read-only mount either.
 * An anonymous folio's ->mapping has PAGE_MAPPING_ANON set and never equals
 * an address_space.  ->dirty_folio: 6.1's folio_mark_dirty() calls it
 * unchecked (mm/page-writeback.c:2771).
 */
static bool gpt_page_of_shared_writable_file(struct mm_struct *mm,
					     unsigned long addr,
					     struct page *page)
{
	struct vm_area_struct *vma = vma_lookup(mm, addr);
	struct address_space *mapping;

	if (!vma || !vma->vm_file ||
	    (vma->vm_flags & (VM_SHARED | VM_WRITE)) != (VM_SHARED | VM_WRITE))
		return false;
	/*
	 * A regular file's page cache only: every anon_inode file shares one
	 * address space (fs/anon_inodes.c), which has ->dirty_folio, so a
	 * perf ring buffer (perf_mmap_fault() sets page->mapping to it) or
	 * any other anon_inode mapping would pass the test below, and a
	 * mapping of one swapped in for another would too.
	 */
	if (!S_ISREG(file_inode(vma->vm_file)->i_mode))
		return false;
	mapping = vma->vm_file->f_mapping;
	return READ_ONCE(page_folio(page)->mapping) == mapping &&
	       mapping->a_ops->dirty_folio;
}

/*
 * The write rule's verdict on the @nr pages just taken, under mmap_lock.
 * Rule (b) looks at each page, not only at the VMAs, so it does not matter
 * whether the VMAs are the ones GUP walked: for the _fast and _unlocked
 * methods the verdict is taken right after the call, in a critical
 * section of its own, and a mapping swapped in the meantime can only make
 * it refuse (a page of another file, an anonymous or a kernel page fails).
 */
static bool gpt_judge_pin(struct mm_struct *mm, const struct gpt_pin *pin,
			  long nr)
{
	long i;

	/*
	 * Not mmap_assert_locked(): under CONFIG_DEBUG_VM its VM_BUG_ON_MM()
	 * calls dump_mm(), which 6.1 does not export (mm/debug.c:154; 6.12
	 * does), so a module using it does not load on a +debug kernel.
	 */
	lockdep_assert_held(&mm->mmap_lock);
	if (pin->flags & GUP_PIN_FLAG_WRITE)
		return true;
	for (i = 0; i < nr; i++)
		if (!gpt_page_of_shared_writable_file(mm,
						      pin->addr + i * PAGE_SIZE,
						      pin->pages[i]))
			return false;
	return true;
}

/*
 * The methods that need mmap_lock held by the caller (gup_compat.h: no
 * vmas, and for the _remote ones locked NULL, so the lock is never dropped
 * inside), then the verdict in the same critical section.
 * The _remote methods get the caller's own mm: the device must never reach
 * into another process.
 */
/* The methods whose callers hold mmap_lock across the call (6.1 API). */
static bool gpt_method_locked(u32 method)
{
	return method == GUP_PIN_METHOD_PIN || method == GUP_PIN_METHOD_GET ||
	       method == GUP_PIN_METHOD_PIN_REMOTE ||
	       method == GUP_PIN_METHOD_GET_REMOTE;
}

/*
 * One GUP call of @method on the caller's own mm, its return value as is.
 * For gpt_method_locked() methods the caller holds mmap_lock for read; the
 * others take it themselves when they need it.
 */
static long gpt_gup_call(u32 method, unsigned long start, unsigned long nr,
			 unsigned int foll, struct page **pages)
{
	struct mm_struct *mm = current->mm;

	switch (method) {
	case GUP_PIN_METHOD_PIN_FAST:
		return pin_user_pages_fast(start, nr, foll, pages);
	case GUP_PIN_METHOD_GET_FAST:
		return get_user_pages_fast(start, nr, foll, pages);
	case GUP_PIN_METHOD_PIN_UNLOCKED:
		return pin_user_pages_unlocked(start, nr, pages, foll);
	case GUP_PIN_METHOD_GET_UNLOCKED:
		return get_user_pages_unlocked(start, nr, pages, foll);
	case GUP_PIN_METHOD_PIN:
		return gpt_pin_user_pages(start, nr, foll, pages);
	case GUP_PIN_METHOD_GET:
		return gpt_get_user_pages(start, nr, foll, pages);
	case GUP_PIN_METHOD_PIN_REMOTE:
		return gpt_pin_user_pages_remote(mm, start, nr, foll, pages);
	default:
		return gpt_get_user_pages_remote(mm, start, nr, foll, pages);
	}
}

/*
 * One GUP call of the requested method, its return value as is, and the
 * write rule's verdict in pin->writable, judged under the mmap_lock the
 * locked methods were called with (the others take it after the call).  A
 * fatal signal while waiting for mmap_lock to judge leaves the pin
 * read-only.
 */
static long gpt_gup(struct gpt_pin *pin)
{
	struct mm_struct *mm = current->mm;
	bool locked = gpt_method_locked(pin->method);
	long ret;

	if (locked && mmap_read_lock_killable(mm))
		return -EINTR;
	ret = gpt_gup_call(pin->method, pin->addr, pin->nr_requested,
			   gpt_foll_flags(pin->flags), pin->pages);
	if (ret > 0 && (locked || !mmap_read_lock_killable(mm))) {
		pin->writable = gpt_judge_pin(mm, pin, ret);
		locked = true;
	}
	if (locked)
		mmap_read_unlock(mm);
	return ret;
}

/* Give back @nr pages a call of @method took, marking them dirty first. */
static void gpt_put_pages(u32 method, struct page **pages, unsigned long nr,
			  bool dirty)
{
	unsigned long i;

	if (gpt_method_pins(method)) {
		unpin_user_pages_dirty_lock(pages, nr, dirty);
		return;
	}
	for (i = 0; i < nr; i++) {
		if (dirty)
			set_page_dirty_lock(pages[i]);
		put_page(pages[i]);
	}
}

static void gpt_release_pages(struct gpt_pin *pin)
{
	gpt_put_pages(pin->method, pin->pages, pin->nr_pinned, pin->dirty);
}

static void gpt_pin_put(struct gpt_pin *pin)
{
	if (!refcount_dec_and_test(&pin->ref))
		return;
	gpt_release_pages(pin);
	mutex_lock(&gpt_lock);
	gpt_pages_reserved -= pin->nr_pinned;
	gpt_pages_pinned -= pin->nr_pinned;
	mutex_unlock(&gpt_lock);
	gpt_pin_free(pin);
}

/* Find pin @id of @gf and take a reference on it, or NULL. */
static struct gpt_pin *gpt_pin_get(struct gpt_file *gf, u32 id)
{
	struct gpt_pin *pin;

	mutex_lock(&gpt_lock);
	pin = xa_load(&gpt_pins, id);
	if (pin && pin->owner == gf)
		refcount_inc(&pin->ref);
	else
		pin = NULL;
	mutex_unlock(&gpt_lock);
	return pin;
}

/*
 * Give @pin an id, tell user space, then make the id findable.  The id is
 * reserved with a NULL entry first (an allocating xarray keeps it as a
 * zero entry, which xa_load() reads as NULL) so that, if the copy to user
 * space fails, the pin can be undone without racing an UNPIN of a guessed
 * id.
 */
static int gpt_pin_publish(struct gpt_file *gf, struct gpt_pin *pin,
			   struct gup_pin_req *req, void __user *argp)
{
	u32 id;
	int ret;

	mutex_lock(&gpt_lock);
	ret = xa_alloc_cyclic(&gpt_pins, &id, NULL, XA_LIMIT(1, INT_MAX),
			      &gpt_next_id, GFP_KERNEL);
	mutex_unlock(&gpt_lock);
	if (ret < 0)
		return ret;

	pin->id = id;
	pin->owner = gf;
	req->id = id;
	if (copy_to_user(argp, req, sizeof(*req))) {
		mutex_lock(&gpt_lock);
		xa_erase(&gpt_pins, id);
		mutex_unlock(&gpt_lock);
		return -EFAULT;
	}

	mutex_lock(&gpt_lock);
	/* the slot exists (reserved above): storing allocates nothing */
	xa_store(&gpt_pins, id, pin, GFP_KERNEL);
	list_add_tail(&pin->node, &gf->pins);
	gpt_pins_live++;
	gpt_pins_created++;
	mutex_unlock(&gpt_lock);
	return 0;
}

static void gpt_count_bad_request(void)
{
	mutex_lock(&gpt_lock);
	gpt_bad_requests++;
	mutex_unlock(&gpt_lock);
}

/*
 * GUP_PIN_IOC_PIN.  -EINVAL before GUP for malformed requests, -EOPNOTSUPP
 * for a flag this kernel lacks, -E2BIG above max_pages_per_pin, -ENOSPC
 * above max_pages_total.  The GUP call's negative errno is returned
 * unchanged and nothing is kept.  A partial pin is kept as it is; a call
 * that took no page keeps nothing and reports id 0.
 */
static long gpt_ioctl_pin(struct gpt_file *gf, void __user *argp)
{
	struct gup_pin_req req;
	struct gpt_pin *pin;
	long ret;
	u32 nr;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	ret = gpt_check_pin_req(&req);
	if (ret) {
		gpt_count_bad_request();
		return ret;
	}
	/* Fits: end <= TASK_SIZE; over max_pages_per_pin fails admission. */
	nr = min_t(u64, req.len >> PAGE_SHIFT, U32_MAX);
	ret = gpt_admit_pin(&req, nr);
	if (ret)
		return ret;

	pin = gpt_pin_alloc(&req, nr);
	if (!pin) {
		mutex_lock(&gpt_lock);
		gpt_buckets[req.method][req.flags].nomem++;
		gpt_pages_reserved -= nr;
		mutex_unlock(&gpt_lock);
		return -ENOMEM;
	}

	ret = gpt_gup(pin);
	gpt_account_gup(pin, ret);
	if (ret < 0) {
		gpt_pin_free(pin);
		return ret;
	}

	pin->nr_pinned = ret;
	req.nr_requested = nr;
	req.nr_pinned = ret;
	if (!ret) {
		gpt_pin_free(pin);
		req.id = 0;
		return copy_to_user(argp, &req, sizeof(req)) ? -EFAULT : 0;
	}

	ret = gpt_pin_publish(gf, pin, &req, argp);
	if (ret)
		gpt_pin_put(pin);
	return ret;
}

/*
 * Is @page an anonymous page its mm no longer holds alone?  A FOLL_GET
 * reference does not keep fork() from sharing the page with the child
 * (copy_present_pte() copies only pages that may be pinned, FOLL_PIN: 6.1's
 * mm/memory.c:920-945), and after a COW fault the pinned page is the other
 * process's alone; PG_anon_exclusive is clear from the fork on.  A hugetlb
 * folio keeps the flag on its head page, and so does a THP mapped by a PMD
 * in 6.1 (include/linux/page-flags.h:1024-1029, mm/huge_memory.c:2206;
 * 6.12 sets it on every page).  KSM pages are never exclusive.  The caller
 * holds mmap_lock: fork() holds it for writing while it shares pages
 * (dup_mmap()), so the answer stays true until the caller unlocks.
 */
static bool gpt_anon_not_exclusive(struct page *page)
{
	struct folio *folio = page_folio(page);

	if (!folio_test_anon(folio))
		return false;
	if (folio_test_ksm(folio))
		return true;
	if (folio_test_hugetlb(folio) ||
	    (folio_test_large(folio) && folio_entire_mapcount(folio) > 0))
		page = &folio->page;
	return !PageAnonExclusive(page);
}

/* Any page of @pin in [@first, @last) gpt_anon_not_exclusive()? */
static bool gpt_pin_anon_shared(const struct gpt_pin *pin, u64 first,
				u64 last)
{
	u64 i;

	for (i = first; i < last; i++)
		if (gpt_anon_not_exclusive(pin->pages[i]))
			return true;
	return false;
}

/*
 * GUP_PIN_IOC_UNPIN: -EINVAL for unknown flags, -ENOENT for unknown ids,
 * -EPERM for GUP_UNPIN_DIRTY on a pin the write rule keeps clean or with
 * an anonymous page no longer the caller's alone (the pin stays), -EINTR
 * for a fatal signal while waiting for mmap_lock.
 */
static long gpt_ioctl_unpin(struct gpt_file *gf, void __user *argp)
{
	struct gup_pin_unpin req;
	struct gpt_pin *pin;
	bool shared = false;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	if (req.flags & ~GUP_UNPIN_DIRTY)
		return -EINVAL;
	/*
	 * Dirty only what is still the caller's: an anonymous page shared
	 * with a fork child since is not (gpt_anon_not_exclusive(), under
	 * mmap_lock; not under gpt_lock, which is never held around it).
	 */
	if (req.flags & GUP_UNPIN_DIRTY) {
		pin = gpt_pin_get(gf, req.id);
		if (!pin)
			return -ENOENT;
		if (mmap_read_lock_killable(gf->mm)) {
			gpt_pin_put(pin);
			return -EINTR;
		}
		shared = gpt_pin_anon_shared(pin, 0, pin->nr_pinned);
		mmap_read_unlock(gf->mm);
		gpt_pin_put(pin);
	}

	mutex_lock(&gpt_lock);
	pin = xa_load(&gpt_pins, req.id);
	if (!pin || pin->owner != gf) {
		mutex_unlock(&gpt_lock);
		return -ENOENT;
	}
	if ((req.flags & GUP_UNPIN_DIRTY) && (!pin->writable || shared)) {
		gpt_dirty_refused++;
		mutex_unlock(&gpt_lock);
		return -EPERM;
	}
	xa_erase(&gpt_pins, pin->id);
	list_del_init(&pin->node);
	pin->dirty = req.flags & GUP_UNPIN_DIRTY;
	gpt_pins_live--;
	gpt_unpins++;
	if (pin->dirty)
		gpt_unpins_dirty++;
	mutex_unlock(&gpt_lock);

	gpt_pin_put(pin);
	return 0;
}

/*
 * Writing to the shared zero page would change the zeros of every process.
 * huge_zero_page is not exported in 6.1: a large folio with neither an anon
 * nor a file mapping stands for it.  KSM pages are shared across processes
 * too.
 */
static bool gpt_page_unwritable(struct page *page)
{
	struct folio *folio = page_folio(page);

	if (is_zero_page(page) || folio_test_ksm(folio))
		return true;
	return folio_test_large(folio) && !folio_test_anon(folio) &&
	       !folio_test_hugetlb(folio) && !READ_ONCE(folio->mapping);
}

/*
 * The byte range of @io must lie within the pages actually pinned; a write
 * needs a writable pin (the write rule) and no zero or KSM page (anonymous
 * pages shared since are checked under mmap_lock: gpt_write_pages()).
 */
static int gpt_check_io(const struct gpt_pin *pin, const struct gup_pin_io *io,
			bool write)
{
	u64 end, i;

	if (check_add_overflow(io->offset, io->len, &end) ||
	    end > ((u64)pin->nr_pinned << PAGE_SHIFT))
		return -EINVAL;
	if (!write)
		return 0;
	if (!pin->writable)
		return -EPERM;
	for (i = io->offset >> PAGE_SHIFT; i < DIV_ROUND_UP(end, PAGE_SIZE); i++)
		if (gpt_page_unwritable(pin->pages[i]))
			return -EPERM;
	return 0;
}

/*
 * WRITE: the user's bytes into a buffer first (no user fault may be taken
 * under mmap_lock, nor while a page is kmapped), then, under the opener's
 * mmap_lock, every anonymous page checked still the caller's alone and
 * only then written: all or nothing.  The pages are not dirtied: UNPIN
 * decides about that.
 */
static int gpt_write_pages(struct gpt_file *gf, struct gpt_pin *pin,
			   const struct gup_pin_io *io)
{
	u64 pos = io->offset, end = io->offset + io->len;
	const char *src;
	void *buf;
	int ret;

	/* at most max_pages_per_pin pages; fail rather than call the OOM killer */
	buf = kvmalloc(io->len, GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	if (!buf)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(buf, u64_to_user_ptr(io->buf), io->len))
		goto out;
	ret = mmap_read_lock_killable(gf->mm);
	if (ret)
		goto out;
	if (gpt_pin_anon_shared(pin, pos >> PAGE_SHIFT,
				DIV_ROUND_UP(end, PAGE_SIZE))) {
		mmap_read_unlock(gf->mm);
		ret = -EPERM;
		goto out;
	}
	for (src = buf; pos < end; ) {
		struct page *page = pin->pages[pos >> PAGE_SHIFT];
		size_t off = offset_in_page(pos);
		size_t n = min_t(u64, PAGE_SIZE - off, end - pos);
		void *kaddr = kmap_local_page(page);

		memcpy(kaddr + off, src, n);
		kunmap_local(kaddr);
		flush_dcache_page(page);
		src += n;
		pos += n;
	}
	mmap_read_unlock(gf->mm);
out:
	kvfree(buf);
	return ret;
}

static int gpt_read_page(struct page *page, size_t off, size_t n,
			 char __user *ubuf, void *bounce)
{
	void *kaddr;

	kaddr = kmap_local_page(page);
	memcpy(bounce, kaddr + off, n);
	kunmap_local(kaddr);
	return copy_to_user(ubuf, bounce, n) ? -EFAULT : 0;
}

/* READ: page by page through a bounce buffer. */
static int gpt_read_pages(struct gpt_pin *pin, const struct gup_pin_io *io)
{
	char __user *ubuf = u64_to_user_ptr(io->buf);
	u64 pos = io->offset, end = io->offset + io->len;
	void *bounce;
	int ret = 0;

	bounce = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;
	while (pos < end && !ret) {
		struct page *page = pin->pages[pos >> PAGE_SHIFT];
		size_t off = offset_in_page(pos);
		size_t n = min_t(u64, PAGE_SIZE - off, end - pos);

		ret = gpt_read_page(page, off, n, ubuf, bounce);
		ubuf += n;
		pos += n;
		cond_resched();
	}
	kfree(bounce);
	return ret;
}

/*
 * GUP_PIN_IOC_WRITE / GUP_PIN_IOC_READ: -ENOENT unknown id, -EINVAL empty or
 * out of range, -EPERM writing through a pin the write rule keeps
 * read-only, to a zero or KSM page, or to an anonymous page no longer the
 * caller's alone (a fork since), -EFAULT bad buffer (a WRITE then changed
 * nothing), -ENOMEM.
 */
static long gpt_ioctl_io(struct gpt_file *gf, void __user *argp, bool write)
{
	struct gup_pin_io io;
	struct gpt_pin *pin;
	int ret;

	if (copy_from_user(&io, argp, sizeof(io)))
		return -EFAULT;
	if (io.reserved || !io.len)
		return -EINVAL;
	pin = gpt_pin_get(gf, io.id);
	if (!pin)
		return -ENOENT;
	ret = gpt_check_io(pin, &io, write);
	if (!ret)
		ret = write ? gpt_write_pages(gf, pin, &io) :
			      gpt_read_pages(pin, &io);
	if (ret == -EPERM) {
		mutex_lock(&gpt_lock);
		gpt_write_refused++;
		mutex_unlock(&gpt_lock);
	}
	gpt_pin_put(pin);
	return ret;
}

static u32 gpt_folio_bits(struct folio *folio)
{
	u32 bits = 0;

	if (folio_test_dirty(folio))
		bits |= GUP_PAGE_DIRTY;
	if (folio_test_writeback(folio))
		bits |= GUP_PAGE_WRITEBACK;
	if (folio_test_private(folio))
		bits |= GUP_PAGE_PRIVATE;
	if (folio_maybe_dma_pinned(folio))
		bits |= GUP_PAGE_MAYBE_DMA_PINNED;
	if (folio_test_uptodate(folio))
		bits |= GUP_PAGE_UPTODATE;
	if (folio_test_lru(folio))
		bits |= GUP_PAGE_LRU;
	return bits;
}

/*
 * Does @mapping keep buffer heads in folio->private?  PG_private alone does
 * not say (hugetlbfs keeps its subpool there, iomap an iomap_page, ...),
 * and 6.1 has no flag for it.  An address space whose operations include a
 * buffer layer function that reads folio_buffers() as buffer heads does:
 * ->is_partially_uptodate = block_is_partially_uptodate() (fs/buffer.c:2196,
 * called by filemap_read() on the mapping's folios: ext4's three aops,
 * ext2, fat, ...) or ->dirty_folio = block_dirty_folio() (fs/buffer.c:616:
 * the block devices' def_blk_aops, block/fops.c:430, ext2, fat, ...).
 * Both are exported by 6.1 and 6.12 (buffer_check_dirty_writeback(), which
 * the block devices also use, is not by 6.12).
 */
static bool gpt_mapping_has_buffer_heads(const struct address_space *mapping)
{
#ifdef CONFIG_BLOCK
	const struct address_space_operations *a_ops = mapping->a_ops;

	return a_ops->is_partially_uptodate == block_is_partially_uptodate ||
	       a_ops->dirty_folio == block_dirty_folio;
#else
	return false;
#endif
}

/*
 * A page cache folio: truncation clears folio->mapping and private under
 * the folio lock, so holding it keeps the mapping, and so its inode and
 * super block, alive while they are read.  folio_mapping() is not used: it
 * maps swap cache folios to a swap address space, which has no host.
 */
static int gpt_file_folio_state(struct folio *folio, struct gup_page_state *st)
{
	struct address_space *mapping;
	int ret;

	ret = folio_lock_killable(folio);
	if (ret)
		return ret;
	st->state = gpt_folio_bits(folio);
	mapping = folio->mapping;
	if (!mapping || ((unsigned long)mapping & GPT_MAPPING_FLAGS)) {
		st->kind = folio_test_hugetlb(folio) ? GUP_PAGE_HUGETLB :
						       GUP_PAGE_OTHER;
	} else {
		if (folio_test_hugetlb(folio))
			st->kind = GUP_PAGE_HUGETLB;
		else if (shmem_mapping(mapping))
			st->kind = GUP_PAGE_SHMEM;
		else
			st->kind = GUP_PAGE_FILE;
		strscpy(st->fs_name, mapping->host->i_sb->s_type->name,
			sizeof(st->fs_name));
		if ((st->state & GUP_PAGE_PRIVATE) &&
		    gpt_mapping_has_buffer_heads(mapping))
			st->state |= GUP_PAGE_HAS_BUFFERS;
	}
	folio_unlock(folio);
	return 0;
}

/*
 * The page's index in PAGE_SIZE units for every kind.  6.1 counts a hugetlb
 * folio's ->index in huge pages, page cache and anonymous alike
 * (linear_page_index() -> linear_hugepage_index(), include/linux/
 * pagemap.h:910; page_to_pgoff() converts with hugetlb_basepage_index(),
 * mm/hugetlb.c:2147, which is not exported); 6.7 and later count base
 * pages (gup_compat.h).  Other large folios (THP, large page cache folios)
 * count ->index in pages already (page_to_index(), include/linux/
 * pagemap.h:834: head index + offset).
 */
static u64 gpt_page_index(struct folio *folio, struct page *page)
{
	u64 index = folio->index;

	if (folio_test_hugetlb(folio) && gpt_hugetlb_index_in_huge_pages())
		index <<= folio_order(folio);
	return index + folio_page_idx(folio, page);
}

/*
 * Anon-ness cannot change while the page is held (it would take freeing
 * the folio), so anon and zero pages are looked at without the folio lock.
 */
static int gpt_page_state(struct page *page, struct gup_page_state *st)
{
	struct folio *folio = page_folio(page);

	memset(st, 0, sizeof(*st));
	st->index = gpt_page_index(folio, page);
	st->mapcount = gpt_page_mapcount(page);
	st->refcount = folio_ref_count(folio);
	if (is_zero_page(page)) {
		st->kind = GUP_PAGE_OTHER;
		st->state = gpt_folio_bits(folio);
		return 0;
	}
	if (folio_test_anon(folio)) {
		st->kind = folio_test_hugetlb(folio) ? GUP_PAGE_HUGETLB :
						       GUP_PAGE_ANON;
		st->state = gpt_folio_bits(folio);
		return 0;
	}
	return gpt_file_folio_state(folio, st);
}

/*
 * GUP_PIN_IOC_STATE: -ENOENT unknown id, -EINVAL @first not within the
 * pinned pages, -EFAULT bad @pages, -EINTR killed waiting for a folio lock.
 */
static long gpt_ioctl_state(struct gpt_file *gf, void __user *argp)
{
	struct gup_pin_state_req req;
	struct gup_page_state __user *out;
	struct gup_page_state st;
	struct gpt_pin *pin;
	u32 i, count;
	int ret = 0;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	if (req.reserved)
		return -EINVAL;
	pin = gpt_pin_get(gf, req.id);
	if (!pin)
		return -ENOENT;
	if (req.first >= pin->nr_pinned) {
		gpt_pin_put(pin);
		return -EINVAL;
	}

	count = min(req.count, pin->nr_pinned - req.first);
	out = u64_to_user_ptr(req.pages);
	for (i = 0; i < count && !ret; i++) {
		ret = gpt_page_state(pin->pages[req.first + i], &st);
		if (!ret && copy_to_user(&out[i], &st, sizeof(st)))
			ret = -EFAULT;
	}
	gpt_pin_put(pin);
	if (ret)
		return ret;

	req.count = count;
	return copy_to_user(argp, &req, sizeof(req)) ? -EFAULT : 0;
}

/*
 * GUP_PIN_IOC_VERSION, asked with any argument size from 4 bytes up: that
 * much of the structure (at most all of it), so that a caller built for
 * another ABI version still learns abi_version.
 */
static long gpt_ioctl_version(void __user *argp, size_t size)
{
	struct gup_pin_version v = {
		.abi_version = GUP_PIN_TEST_ABI_VERSION,
		.page_size = PAGE_SIZE,
		.max_pages_per_pin = max_pages_per_pin,
		.max_pages_total = max_pages_total,
		.features = GPT_FEATURES,
	};

	return copy_to_user(argp, &v, min(size, sizeof(v))) ? -EFAULT : 0;
}

static bool gpt_is_version_ioctl(unsigned int cmd)
{
	return _IOC_TYPE(cmd) == GUP_PIN_IOC_TYPE &&
	       _IOC_NR(cmd) == GUP_PIN_IOC_VERSION_NR &&
	       _IOC_DIR(cmd) == _IOC_READ &&
	       _IOC_SIZE(cmd) >= sizeof(__u32);
}

/* Argument checks of BENCH, as PIN's (gpt_check_pin_req()); 0 or -EINVAL. */
static int gpt_check_bench_req(const struct gup_pin_bench *b)
{
	const struct gup_pin_req req = {
		.addr = b->addr, .len = b->len, .method = b->method, .flags = b->flags,
	};

	if (b->nr_per_call == 0 || b->nr_taken || b->pin_ns || b->unpin_ns ||
	    b->err || memchr_inv(b->reserved, 0, sizeof(b->reserved)))
		return -EINVAL;
	return gpt_check_pin_req(&req);
}

/*
 * Hold @nr pages of max_pages_total for a BENCH call, as pins do, so that
 * pins and benches together never take more than the bound.
 */
static int gpt_reserve_bench(const struct gup_pin_bench *b, u64 nr)
{
	int ret = 0;

	mutex_lock(&gpt_lock);
	if (!gpt_kernel_has_flags(b->flags))
		ret = -EOPNOTSUPP;
	else if (gpt_pages_reserved + nr > max_pages_total)
		ret = -ENOSPC;
	else
		gpt_pages_reserved += nr;
	mutex_unlock(&gpt_lock);
	return ret;
}

static void gpt_unreserve(u64 nr)
{
	mutex_lock(&gpt_lock);
	gpt_pages_reserved -= nr;
	mutex_unlock(&gpt_lock);
}

/*
 * The timed part of BENCH, as mm/gup_test.c's __gup_test_ioctl() times its
 * *_BENCHMARK commands: back-to-back calls of @b->nr_per_call pages (the
 * last one shorter), stopping at the first that takes fewer than it asked
 * for, then every page given back; mmap_lock held across both for the
 * locked methods, outside the clock.  Returns the pages taken.
 */
static unsigned long gpt_bench_run(struct gup_pin_bench *b, struct page **pages,
				   unsigned long nr)
{
	unsigned int foll = gpt_foll_flags(b->flags);
	unsigned long done = 0, chunk;
	long ret;
	u64 t0;

	t0 = ktime_get_ns();
	while (done < nr) {
		chunk = min_t(unsigned long, b->nr_per_call, nr - done);
		ret = gpt_gup_call(b->method, b->addr + (done << PAGE_SHIFT), chunk,
				   foll, pages + done);
		if (ret < 0) {
			b->err = -ret;
			break;
		}
		done += ret;
		if (ret < chunk)
			break;
	}
	b->pin_ns = ktime_get_ns() - t0;

	t0 = ktime_get_ns();
	gpt_put_pages(b->method, pages, done, false);
	b->unpin_ns = ktime_get_ns() - t0;
	return done;
}

/*
 * GUP_PIN_IOC_BENCH: -EINVAL for a bad request, -EOPNOTSUPP for a flag this
 * kernel lacks, -ENOSPC over max_pages_total, -EINTR if killed waiting for
 * mmap_lock.  A GUP call's error is the answer's @err, not the ioctl's:
 * the time until it is still measured.  Nothing outlives the call.
 */
static long gpt_ioctl_bench(void __user *argp)
{
	struct mm_struct *mm = current->mm;
	bool locked;
	struct gup_pin_bench b;
	struct page **pages;
	long ret;
	u64 nr;

	if (copy_from_user(&b, argp, sizeof(b)))
		return -EFAULT;
	ret = gpt_check_bench_req(&b);
	if (ret) {
		gpt_count_bad_request();
		return ret;
	}
	nr = b.len >> PAGE_SHIFT;
	ret = gpt_reserve_bench(&b, nr);
	if (ret)
		return ret;
	/* nr <= max_pages_total: the array is bounded by a module parameter */
	pages = kvcalloc(nr, sizeof(*pages), GFP_KERNEL);
	if (!pages) {
		ret = -ENOMEM;
		goto out;
	}
	locked = gpt_method_locked(b.method);
	if (locked && mmap_read_lock_killable(mm)) {
		ret = -EINTR;
		goto out;
	}
	b.nr_taken = gpt_bench_run(&b, pages, nr);
	if (locked)
		mmap_read_unlock(mm);
	ret = copy_to_user(argp, &b, sizeof(b)) ? -EFAULT : 0;
out:
	kvfree(pages);
	gpt_unreserve(nr);
	return ret;
}

static long gpt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct gpt_file *gf = file->private_data;
	void __user *argp = (void __user *)arg;

	if (gpt_is_version_ioctl(cmd))
		return gpt_ioctl_version(argp, _IOC_SIZE(cmd));
	/*
	 * open() checked CAP_SYS_ADMIN, but a file outlives its opener's
	 * state: checked again per call (a thread that dropped the
	 * capability), and only the opener's mm is answered (a fork child,
	 * or a process the fd was passed to, would reach the opener's pins
	 * and take pins charged to it).
	 */
	if (current->mm != gf->mm || !capable(CAP_SYS_ADMIN))
		return -EPERM;
	switch (cmd) {
	case GUP_PIN_IOC_PIN:
		return gpt_ioctl_pin(gf, argp);
	case GUP_PIN_IOC_WRITE:
		return gpt_ioctl_io(gf, argp, true);
	case GUP_PIN_IOC_READ:
		return gpt_ioctl_io(gf, argp, false);
	case GUP_PIN_IOC_UNPIN:
		return gpt_ioctl_unpin(gf, argp);
	case GUP_PIN_IOC_STATE:
		return gpt_ioctl_state(gf, argp);
	case GUP_PIN_IOC_BENCH:
		return gpt_ioctl_bench(argp);
	}
	return -ENOTTY;
}

/* Only for CAP_SYS_ADMIN: the device writes into pages behind the kernel. */
static int gpt_open(struct inode *inode, struct file *file)
{
	struct gpt_file *gf;

	/* no mm: a kernel thread has no pages to pin */
	if (!capable(CAP_SYS_ADMIN) || !current->mm)
		return -EPERM;
	gf = kzalloc_obj(*gf, GFP_KERNEL);
	if (!gf)
		return -ENOMEM;
	INIT_LIST_HEAD(&gf->pins);
	gf->mm = current->mm;
	mmgrab(gf->mm);
	file->private_data = gf;
	return nonseekable_open(inode, file);
}

/* The last reference to the file is gone: unpin everything, no dirtying. */
static int gpt_release(struct inode *inode, struct file *file)
{
	struct gpt_file *gf = file->private_data;
	struct gpt_pin *pin, *next;
	LIST_HEAD(doomed);

	mutex_lock(&gpt_lock);
	list_for_each_entry_safe(pin, next, &gf->pins, node) {
		xa_erase(&gpt_pins, pin->id);
		list_move_tail(&pin->node, &doomed);
		gpt_pins_live--;
		gpt_released_on_close++;
	}
	mutex_unlock(&gpt_lock);

	list_for_each_entry_safe(pin, next, &doomed, node) {
		list_del_init(&pin->node);
		gpt_pin_put(pin);
	}
	mmdrop(gf->mm);
	kfree(gf);
	return 0;
}

static const struct file_operations gpt_fops = {
	.owner		= THIS_MODULE,
	.open		= gpt_open,
	.release	= gpt_release,
	.unlocked_ioctl	= gpt_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= gpt_no_llseek,
};

static struct miscdevice gpt_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "gup_test",
	.fops	= &gpt_fops,
	.mode	= 0600,
};

/*
 * Each read checks its reader, as the device checks each call
 * (gpt_ioctl()): a file outlives its opener's privilege.  A process that
 * dropped to another uid keeps the debugfs fd it inherited, and an
 * io_uring personality registered by root opens the file for a process
 * that is not (IORING_OP_OPENAT with sqe->personality): both read as
 * themselves here.  capable() is the reader's; file_ns_capable() the
 * opener's credentials (file->f_cred), which must have had it too.
 */
static ssize_t gpt_debugfs_read(struct file *file, char __user *buf,
				size_t size, loff_t *ppos)
{
	if (!capable(CAP_SYS_ADMIN) ||
	    !file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	return seq_read(file, buf, size, ppos);
}

/*
 * DEFINE_SHOW_ATTRIBUTE() with CAP_SYS_ADMIN checked at open and at
 * every read, like the device: the files' mode (0400, root's) lets in a
 * root that dropped the capability, and "pins" shows where other
 * processes' pins are.
 */
#define GPT_DEBUGFS_ATTRIBUTE(__name)					\
static int __name ## _open(struct inode *inode, struct file *file)	\
{									\
	if (!capable(CAP_SYS_ADMIN))					\
		return -EPERM;						\
	return single_open(file, __name ## _show, inode->i_private);	\
}									\
static const struct file_operations __name ## _fops = {		\
	.owner		= THIS_MODULE,					\
	.open		= __name ## _open,				\
	.read		= gpt_debugfs_read,				\
	.llseek		= seq_lseek,					\
	.release	= single_release,				\
}

/* debugfs "pins": one line per live pin, see docs/ABI/debugfs-gup_pin_test. */
static int pins_show(struct seq_file *m, void *unused)
{
	char fn[GPT_FLAGS_NAME_MAX];
	struct gpt_pin *pin;
	unsigned long id;

	mutex_lock(&gpt_lock);
	xa_for_each(&gpt_pins, id, pin)
		seq_printf(m, "id=%u pid=%d addr=0x%llx len=%llu method=%s flags=%s ref=%s pinned=%u requested=%u writable=%s\n",
			   pin->id, pin->pid, pin->addr, pin->len,
			   gpt_method_names[pin->method],
			   gpt_flags_name(pin->flags, fn),
			   gpt_method_pins(pin->method) ? "pin" : "get",
			   pin->nr_pinned, pin->nr_requested,
			   pin->writable ? "yes" : "no");
	mutex_unlock(&gpt_lock);
	return 0;
}
GPT_DEBUGFS_ATTRIBUTE(pins);

static void gpt_show_bucket(struct seq_file *m, u32 method, u32 flags)
{
	const struct gpt_bucket *b = &gpt_buckets[method][flags];
	const char *mn = gpt_method_names[method];
	char buf[GPT_FLAGS_NAME_MAX];
	const char *fn = gpt_flags_name(flags, buf);
	int i;

	seq_printf(m, "pin method=%s flags=%s attempts=%llu refused=%llu over_limit=%llu nomem=%llu full=%llu partial=%llu empty=%llu failed=%llu\n",
		   mn, fn, b->attempts, b->refused, b->over_limit, b->nomem,
		   b->full, b->partial, b->empty, b->failed);
	for (i = 0; i < GPT_ERRNO_SLOTS && b->errs[i].err; i++)
		seq_printf(m, "pin_error method=%s flags=%s errno=%d name=%s count=%llu\n",
			   mn, fn, b->errs[i].err, gpt_errname(b->errs[i].err),
			   b->errs[i].count);
	if (b->failed_other)
		seq_printf(m, "pin_error method=%s flags=%s errno=0 name=OTHER count=%llu\n",
			   mn, fn, b->failed_other);
}

/* debugfs "counters": see docs/ABI/debugfs-gup_pin_test. */
static int counters_show(struct seq_file *m, void *unused)
{
	u32 method, flags;

	mutex_lock(&gpt_lock);
	seq_printf(m, "total pins_live=%llu pages_pinned=%llu pins_created=%llu unpins=%llu unpins_dirty=%llu released_on_close=%llu bad_requests=%llu write_refused=%llu dirty_refused=%llu\n",
		   gpt_pins_live, gpt_pages_pinned, gpt_pins_created,
		   gpt_unpins, gpt_unpins_dirty, gpt_released_on_close,
		   gpt_bad_requests, gpt_write_refused, gpt_dirty_refused);
	for (method = 0; method < GUP_PIN_METHOD_COUNT; method++)
		for (flags = 0; flags < GPT_NR_FLAG_MIXES; flags++)
			gpt_show_bucket(m, method, flags);
	mutex_unlock(&gpt_lock);
	return 0;
}
GPT_DEBUGFS_ATTRIBUTE(counters);

static int version_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "abi_version=%u page_size=%lu max_pages_per_pin=%u max_pages_total=%u features=0x%x\n",
		   GUP_PIN_TEST_ABI_VERSION, PAGE_SIZE, max_pages_per_pin,
		   max_pages_total, GPT_FEATURES);
	return 0;
}
GPT_DEBUGFS_ATTRIBUTE(version);

/*
 * Every file root only (0400), like the device; debugfs itself is mounted
 * 0700 (DEBUGFS_DEFAULT_MODE, fs/debugfs/inode.c).
 */
static void gpt_debugfs_create(void)
{
	gpt_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("pins", 0400, gpt_debugfs, NULL, &pins_fops);
	debugfs_create_file("counters", 0400, gpt_debugfs, NULL,
			    &counters_fops);
	debugfs_create_file("version", 0400, gpt_debugfs, NULL,
			    &version_fops);
}

static int __init gpt_init(void)
{
	int ret;

	BUILD_BUG_ON(BIT(ARRAY_SIZE(gpt_flag_bit_names)) != GPT_NR_FLAG_MIXES);
	if (!max_pages_per_pin || max_pages_per_pin > max_pages_total ||
	    max_pages_total > GPT_PAGES_LIMIT) {
		pr_err("need 0 < max_pages_per_pin <= max_pages_total <= %lu\n",
		       GPT_PAGES_LIMIT);
		return -EINVAL;
	}
	gpt_debugfs_create();
	ret = misc_register(&gpt_misc);
	if (ret)
		debugfs_remove_recursive(gpt_debugfs);
	return ret;
}

/* No file can be open here: the misc device holds a module reference. */
static void __exit gpt_exit(void)
{
	misc_deregister(&gpt_misc);
	debugfs_remove_recursive(gpt_debugfs);
	xa_destroy(&gpt_pins);
}

module_init(gpt_init);
module_exit(gpt_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("gup-lab");
MODULE_DESCRIPTION("Take user pages with GUP and write them behind the file system's back");
