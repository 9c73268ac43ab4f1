// SPDX-License-Identifier: GPL-2.0
/*
 * report_policies: docs/policies.md, the policies side by side.  Rows are
 * behaviours: one matrix cell each, the call a real kernel user makes
 * (its 6.1.192 file:line); columns are the flavours of a matrix run.
 * Every value is what the guest measured; every difference from stock
 * quotes the reason the flavour's policy gave for the cell (model/policy.c,
 * which names the code that decides).  Prose lives in docs/policies-guide.md.
 */
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "matrix/json.h"
#include "matrix/report_policies.h"
#include "model/cell.h"
#include "model/policy.h"

#define W	GUP_PIN_FLAG_WRITE
#define L	GUP_PIN_FLAG_LONGTERM
#define F	GUP_PIN_FLAG_FORCE
#define AB	GUP_PIN_FLAG_ALLOW_BROKEN

struct behaviour {
	const char *name;
	const char *caller;	/* the real user, 6.1.192 file:line */
	struct cell cell;
};

static const struct behaviour behaviours[] = {
	{ "O_DIRECT read into a MAP_SHARED ext4 mapping",
	  "iov_iter_get_pages() -> get_user_pages_fast(FOLL_WRITE) (lib/iov_iter.c:1460)",
	  { GUP_PIN_METHOD_GET_FAST, W, BACKING_EXT4_SHARED, STATE_NONE } },
	{ "... the same page, dirtied and written back (the 2018 state)",
	  "get_user_pages_fast(FOLL_WRITE) (lib/iov_iter.c:1460); fsync() write-protected the PTE",
	  { GUP_PIN_METHOD_GET_FAST, W, BACKING_EXT4_SHARED, STATE_WRITEBACK } },
	{ "RDMA memory registration on MAP_SHARED ext4",
	  "ib_umem_get() -> pin_user_pages_fast(FOLL_WRITE|FOLL_LONGTERM) (drivers/infiniband/core/umem.c:235-239)",
	  { GUP_PIN_METHOD_PIN_FAST, W | L, BACKING_EXT4_SHARED, STATE_NONE } },
	{ "... on a page user space already wrote",
	  "pin_user_pages_fast() (drivers/infiniband/core/umem.c:235); the PTE is present and writable",
	  { GUP_PIN_METHOD_PIN_FAST, W | L, BACKING_EXT4_SHARED, STATE_WRITE } },
	{ "RDMA registration of a MAP_PRIVATE ext4 mapping",
	  "pin_user_pages_fast(FOLL_WRITE|FOLL_LONGTERM) (drivers/infiniband/core/umem.c:235-239): writes go to anonymous copies",
	  { GUP_PIN_METHOD_PIN_FAST, W | L, BACKING_EXT4_PRIVATE, STATE_NONE } },
	{ "io_uring fixed buffer / AF_XDP umem on MAP_SHARED ext4 (long-term, slow path)",
	  "xdp_umem_pin_pages() -> pin_user_pages(FOLL_WRITE|FOLL_LONGTERM) (net/xdp/xdp_umem.c:105); io_uring/rsrc.c:1006 refuses file VMAs itself in 6.1",
	  { GUP_PIN_METHOD_PIN, W | L, BACKING_EXT4_SHARED, STATE_NONE } },
	{ "a short-term write pin of MAP_SHARED ext4 (direct I/O with FOLL_PIN, as 6.12 does)",
	  "pin_user_pages_fast(FOLL_WRITE) without FOLL_LONGTERM",
	  { GUP_PIN_METHOD_PIN_FAST, W, BACKING_EXT4_SHARED, STATE_NONE } },
	{ "... the same on a page dirtied and written back",
	  "pin_user_pages_fast(FOLL_WRITE); fsync() write-protected the PTE",
	  { GUP_PIN_METHOD_PIN_FAST, W, BACKING_EXT4_SHARED, STATE_WRITEBACK } },
	{ "process_vm_writev() into MAP_SHARED ext4",
	  "process_vm_rw_single_vec() -> pin_user_pages_remote(FOLL_WRITE) (mm/process_vm_access.c:92-105)",
	  { GUP_PIN_METHOD_PIN_REMOTE, W, BACKING_EXT4_SHARED, STATE_NONE } },
	{ "... with seed 005's opt-out flag, as gup-v1 passes it there",
	  "mm/process_vm_access.c:84 (gup-v1: FOLL_ALLOW_BROKEN_FILE_MAPPING)",
	  { GUP_PIN_METHOD_PIN_REMOTE, W | AB, BACKING_EXT4_SHARED, STATE_NONE } },
	{ "a write to /proc/PID/mem of MAP_SHARED ext4",
	  "mem_rw() -> access_remote_vm(FOLL_FORCE|FOLL_WRITE) -> get_user_pages_remote() (fs/proc/base.c:896-898)",
	  { GUP_PIN_METHOD_GET_REMOTE, W | F, BACKING_EXT4_SHARED, STATE_NONE } },
	{ "... with the opt-out flag, as gup-v1's mem_rw() passes it",
	  "fs/proc/base.c:896 (gup-v1: FOLL_ALLOW_BROKEN_FILE_MAPPING)",
	  { GUP_PIN_METHOD_GET_REMOTE, W | F | AB, BACKING_EXT4_SHARED, STATE_NONE } },
	{ "PTRACE_POKEDATA breakpoint in program text (read-only MAP_PRIVATE)",
	  "generic_ptrace_pokedata() -> ptrace_access_vm(FOLL_FORCE|FOLL_WRITE) -> __access_remote_vm() (kernel/ptrace.c:1334): not access_process_vm(), so seed 005's flag does not reach it",
	  { GUP_PIN_METHOD_GET_REMOTE, W | F, BACKING_EXT4_PRIVATE_RO, STATE_NONE } },
	{ "... through access_process_vm(), which gup-v1 flags",
	  "mm/memory.c access_process_vm() (gup-v1: FOLL_ALLOW_BROKEN_FILE_MAPPING)",
	  { GUP_PIN_METHOD_GET_REMOTE, W | F | AB, BACKING_EXT4_PRIVATE_RO, STATE_NONE } },
	{ "uprobes' SDT semaphore update in a MAP_PRIVATE file data page",
	  "__update_ref_ctr() -> get_user_pages_remote(FOLL_WRITE) (kernel/events/uprobes.c:376-377)",
	  { GUP_PIN_METHOD_GET_REMOTE, W, BACKING_EXT4_PRIVATE, STATE_NONE } },
	{ "a write get_user_pages() of MAP_SHARED ext4 (drivers, FOLL_GET)",
	  "get_user_pages(FOLL_WRITE), mmap_lock held",
	  { GUP_PIN_METHOD_GET, W, BACKING_EXT4_SHARED, STATE_NONE } },
	{ "a long-term write pin of ramfs (no writeback, but page_mkwrite)",
	  "pin_user_pages_fast(FOLL_WRITE|FOLL_LONGTERM)",
	  { GUP_PIN_METHOD_PIN_FAST, W | L, BACKING_RAMFS, STATE_NONE } },
	{ "a long-term write pin of a shmem memfd",
	  "pin_user_pages_fast(FOLL_WRITE|FOLL_LONGTERM)",
	  { GUP_PIN_METHOD_PIN_FAST, W | L, BACKING_SHMEM, STATE_NONE } },
	{ "... of a shmem transparent huge page (GUP-fast's huge-pmd path)",
	  "pin_user_pages_fast(FOLL_WRITE|FOLL_LONGTERM), MADV_HUGEPAGE",
	  { GUP_PIN_METHOD_PIN_FAST, W | L, BACKING_SHMEM_THP, STATE_WRITE } },
	{ "... of hugetlb",
	  "pin_user_pages(FOLL_WRITE|FOLL_LONGTERM)",
	  { GUP_PIN_METHOD_PIN, W | L, BACKING_HUGETLB, STATE_NONE } },
	{ "the 2018 route's read pin of MAP_SHARED ext4",
	  "pin_user_pages() without FOLL_WRITE (the reproduction: docs/repro-ext4-2018.md)",
	  { GUP_PIN_METHOD_PIN, 0, BACKING_EXT4_SHARED, STATE_NONE } },
	{ "FOLL_LONGTERM without FOLL_PIN (a caller bug)",
	  "get_user_pages_fast(FOLL_LONGTERM)",
	  { GUP_PIN_METHOD_GET_FAST, L, BACKING_ANON, STATE_NONE } },
	{ "a long-term pin through the unlocked variant",
	  "pin_user_pages_unlocked(FOLL_LONGTERM) (6.1 refuses; 6.12 allows)",
	  { GUP_PIN_METHOD_PIN_UNLOCKED, L, BACKING_ANON, STATE_NONE } },
	{ "the opt-out flag on GUP-fast",
	  "pin_user_pages_fast(FOLL_WRITE|FOLL_ALLOW_BROKEN_FILE_MAPPING)",
	  { GUP_PIN_METHOD_PIN_FAST, W | AB, BACKING_ANON, STATE_NONE } },
};

/* "EFAULT + WARN", "pinned", "EOPNOTSUPP (driver)", "not run: ..." */
static void value(const struct mcell *c, char *buf, size_t size)
{
	const char *warn = c->report.kind ? " + WARN" : "";

	if (!c->present) {
		snprintf(buf, size, "(no cell)");
		return;
	}
	switch (c->measured) {
	case MATRIX_PINNED:
		snprintf(buf, size, "pinned%s", warn);
		break;
	case MATRIX_REFUSED:
		snprintf(buf, size, "%s%s%s", c->meas_err,
			 c->by_driver ? " (driver)" : "", warn);
		break;
	case MATRIX_NONE_PINNED:
		snprintf(buf, size, "none pinned");
		break;
	default:
		snprintf(buf, size, "not run");
	}
	if (!c->match)
		snprintf(buf + strlen(buf), size - strlen(buf), " **(not as expected)**");
}

static const struct mflavour *stock_of(const struct mflavour *const *fl,
				       unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(fl[i]->policy, "stock"))
			return fl[i];
	return NULL;
}

static const struct mcell *cell_of(const struct mflavour *fl,
				   const struct behaviour *b)
{
	int idx = matrix_index(&b->cell);

	return idx < 0 ? NULL : &fl->cells[idx];
}

/*
 * The row's value in @fl: its cell's, or, where the matrix ran the same
 * method and flags once for all backings (decided before any VMA), that
 * cell's, said so.
 */
static void row_value(const struct mflavour *fl, const struct behaviour *b,
		      char *buf, size_t size)
{
	const struct mcell *c = cell_of(fl, b);
	struct cell first = b->cell;
	char v[64];
	int idx;

	if (!c) {
		snprintf(buf, size, "?");
		return;
	}
	value(c, buf, size);
	if (c->measured != MATRIX_NOT_RUN || c->meas_err[0])
		return;
	first.backing = 0;
	first.state = 0;
	idx = matrix_index(&first);
	if (idx < 0 || fl->cells[idx].measured == MATRIX_NOT_RUN)
		return;
	value(&fl->cells[idx], v, sizeof(v));
	snprintf(buf, size, "%.64s (cell %d: the flags decide)", v, idx + 1);
}

/* " @s |": a table cell, its '|' escaped (WRITE|LONGTERM would end it). */
static void md_cell(FILE *f, const char *s)
{
	fputc(' ', f);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputs(" |", f);
}

void write_policies_md(const struct mflavour *const *fl, unsigned int n,
		       const char *source, FILE *f)
{
	const struct mflavour *stock = stock_of(fl, n);
	char v[160], sv[160], desc[160];
	unsigned int i, b;
	bool any;

	fprintf(f, "<!-- Generated by `make docs` (gupctl report --policies) from %s: do not edit. -->\n\n",
		source);
	fprintf(f, "# The GUP policies side by side\n\n");
	fprintf(f, "Each row is one matrix cell: the GUP call a real kernel user makes (6.1.192's code), "
		   "on memory user space set up as the row says.  Each column is a flavour of the run "
		   "named above; each value is what its guest measured (`+ WARN`: the kernel WARNed, as "
		   "the policy expects; `(driver)`: the lab's driver refused before GUP).  "
		   "The guide to reading it: [policies-guide.md](policies-guide.md).  "
		   "What the real interfaces themselves (ptrace, /proc/PID/mem, process_vm_rw, "
		   "O_DIRECT, vmsplice, io_uring, AF_XDP, RDMA on rxe and siw, uprobes) do under each policy, driven from user space: "
		   "[consumers.md](consumers.md).\n\n");
	fprintf(f, "| behaviour | the call (6.1.192) | cell |");
	for (i = 0; i < n; i++)
		fprintf(f, " %s (%s) |", fl[i]->name, fl[i]->policy);
	fprintf(f, "\n|---|---|---|");
	for (i = 0; i < n; i++)
		fprintf(f, "---|");
	fprintf(f, "\n");
	for (b = 0; b < ARRAY_SIZE(behaviours); b++) {
		int idx = matrix_index(&behaviours[b].cell);

		fputc('|', f);
		md_cell(f, behaviours[b].name);
		md_cell(f, behaviours[b].caller);
		fprintf(f, " %d:", idx + 1);
		md_cell(f, idx < 0 ? "?" : matrix_cell_str(idx, desc, sizeof(desc)));
		for (i = 0; i < n; i++) {
			row_value(fl[i], &behaviours[b], v, sizeof(v));
			md_cell(f, v);
		}
		fprintf(f, "\n");
	}

	fprintf(f, "\n## Each difference from stock, and the code that decides it\n\n");
	fprintf(f, "The reason is the one the flavour's policy gave for the cell before it ran "
		   "(`userspace/model/policy.c`); the measured value agreed with it unless marked.\n\n");
	any = false;
	for (b = 0; stock && b < ARRAY_SIZE(behaviours); b++) {
		const struct mcell *s = cell_of(stock, &behaviours[b]);

		if (!s)
			continue;
		row_value(stock, &behaviours[b], sv, sizeof(sv));
		for (i = 0; i < n; i++) {
			const struct mcell *c = cell_of(fl[i], &behaviours[b]);

			if (!c || fl[i] == stock)
				continue;
			row_value(fl[i], &behaviours[b], v, sizeof(v));
			if (!strcmp(v, sv))
				continue;
			any = true;
			fprintf(f, "- **%s**, %s: %s (stock: %s). %s\n", behaviours[b].name,
				fl[i]->name, v, sv, c->reason ? c->reason : "");
		}
	}
	if (!stock)
		fprintf(f, "No stock flavour in this run: nothing to compare with.\n");
	else if (!any)
		fprintf(f, "No flavour differs from stock on these rows.\n");
}
