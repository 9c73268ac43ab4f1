// SPDX-License-Identifier: GPL-2.0
/*
 * consumers: the kernel's GUP users as GUP calls, and what each flavour's
 * policy makes of them (consumers.h).
 *
 * Citations: "6.1" lines are 6.1.192's (Debian linux-source-6.1
 * 6.1.192-3), "6.12" lines 6.12.118's (linux-source-6.12
 * 6.12.118-1~deb12u1); seed 005's hunks are patches/gup-v1/0001's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>

#include "consumers.h"
#include "gup_pin_test.h"
#include "gupctl.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define W	GUP_PIN_FLAG_WRITE
#define L	GUP_PIN_FLAG_LONGTERM
#define F	GUP_PIN_FLAG_FORCE

const struct consumer consumers[CONS_COUNT] = {
	[CONS_PVM_WRITE] = {
		.name = "process_vm_writev",
		.title = "process_vm_writev() of a page into a child's mapping",
		.writes = true, .remote = true, .len = CONS_PAGE,
		.call = {
			[CONS_SRC_61] = { GUP_PIN_METHOD_PIN_REMOTE, W,
				"process_vm_rw_single_vec(): flags = FOLL_WRITE (mm/process_vm_access.c:84, 91-92), pin_user_pages_remote() (mm/process_vm_access.c:105)",
				EFAULT, "pinned_pages <= 0: -EFAULT (mm/process_vm_access.c:110-111)" },
			[CONS_SRC_612] = { GUP_PIN_METHOD_PIN_REMOTE, W,
				"process_vm_rw_single_vec(): flags = FOLL_WRITE (mm/process_vm_access.c:85, 92-93), pin_user_pages_remote() (mm/process_vm_access.c:106)",
				EFAULT, "pinned_pages <= 0: -EFAULT (mm/process_vm_access.c:111-112)" },
		},
		.seed005 = "process_vm_rw_single_vec(): flags = FOLL_ALLOW_BROKEN_FILE_MAPPING (mm/process_vm_access.c:84)",
	},
	[CONS_PVM_READ] = {
		.name = "process_vm_readv",
		.title = "process_vm_readv() of a page out of a child's mapping",
		.writes = false, .remote = true, .len = CONS_PAGE,
		.call = {
			[CONS_SRC_61] = { GUP_PIN_METHOD_PIN_REMOTE, 0,
				"process_vm_rw_single_vec(): flags = 0 (mm/process_vm_access.c:84), pin_user_pages_remote() (mm/process_vm_access.c:105)",
				EFAULT, "pinned_pages <= 0: -EFAULT (mm/process_vm_access.c:110-111)" },
			[CONS_SRC_612] = { GUP_PIN_METHOD_PIN_REMOTE, 0,
				"process_vm_rw_single_vec(): flags = 0 (mm/process_vm_access.c:85), pin_user_pages_remote() (mm/process_vm_access.c:106)",
				EFAULT, "pinned_pages <= 0: -EFAULT (mm/process_vm_access.c:111-112)" },
		},
		.seed005 = "process_vm_rw_single_vec(): flags = FOLL_ALLOW_BROKEN_FILE_MAPPING (mm/process_vm_access.c:84); without FOLL_WRITE can_write_file_mapping() is never asked",
	},
	[CONS_PROCMEM_WRITE] = {
		.name = "proc-pid-mem",
		.title = "pwrite() of a page to /proc/CHILD/mem",
		.writes = true, .remote = true, .len = CONS_PAGE,
		.call = {
			[CONS_SRC_61] = { GUP_PIN_METHOD_GET_REMOTE, W | F,
				"mem_rw(): FOLL_WRITE, and FOLL_FORCE as proc_mem_foll_force() allows (CONFIG_PROC_MEM_ALWAYS_FORCE=y) (fs/proc/base.c:896-898) -> access_remote_vm() (fs/proc/base.c:908) -> __access_remote_vm() -> get_user_pages_remote() (mm/memory.c:5723)",
				EIO, "nothing copied (no vm_ops->access, mm/memory.c:5736): copied = -EIO (fs/proc/base.c:909-911)" },
			[CONS_SRC_612] = { GUP_PIN_METHOD_GET_REMOTE, W | F,
				"mem_rw(): FOLL_WRITE, FOLL_FORCE (CONFIG_PROC_MEM_ALWAYS_FORCE=y) (fs/proc/base.c:899-901) -> access_remote_vm() (fs/proc/base.c:911) -> __access_remote_vm() -> get_user_page_vma_remote() (mm/memory.c:6660) -> get_user_pages_remote() (include/linux/mm.h:2560)",
				EIO, "nothing copied (no vm_ops->access, mm/memory.c:6683): copied = -EIO (fs/proc/base.c:912-914)" },
		},
		.seed005 = "mem_rw(): flags = FOLL_ALLOW_BROKEN_FILE_MAPPING | (write ? FOLL_WRITE : 0) (fs/proc/base.c:896)",
	},
	[CONS_PTRACE_POKE] = {
		.name = "ptrace-pokedata",
		.title = "ptrace(PTRACE_POKEDATA) of a word into the tracee: a debugger's breakpoint",
		.writes = true, .remote = true, .len = sizeof(long),
		.call = {
			[CONS_SRC_61] = { GUP_PIN_METHOD_GET_REMOTE, W | F,
				"generic_ptrace_pokedata(): ptrace_access_vm(FOLL_FORCE | FOLL_WRITE) (kernel/ptrace.c:1333-1334) -> __access_remote_vm() (kernel/ptrace.c:61) -> get_user_pages_remote() (mm/memory.c:5723)",
				EIO, "copied != sizeof(data): -EIO (kernel/ptrace.c:1335)" },
			[CONS_SRC_612] = { GUP_PIN_METHOD_GET_REMOTE, W | F,
				"generic_ptrace_pokedata(): ptrace_access_vm(FOLL_FORCE | FOLL_WRITE) (kernel/ptrace.c:1328-1329) -> access_remote_vm() (kernel/ptrace.c:62) -> get_user_page_vma_remote() (mm/memory.c:6660) -> get_user_pages_remote() (include/linux/mm.h:2560)",
				EIO, "copied != sizeof(data): -EIO (kernel/ptrace.c:1330)" },
		},
		.seed005_why = "ptrace_access_vm() calls __access_remote_vm() itself (kernel/ptrace.c:61), not access_process_vm() (mm/memory.c:5793), where seed 005 adds the flag: PTRACE_POKEDATA gets none",
	},
	[CONS_ODIRECT_READ] = {
		.name = "o-direct-read",
		.title = "O_DIRECT read(2) of a page from an ext4 file into the mapping",
		.writes = true, .remote = false, .len = CONS_PAGE,
		.call = {
			[CONS_SRC_61] = { GUP_PIN_METHOD_GET_FAST, W,
				"ext4_dio_read_iter() -> iomap_dio_rw() (fs/ext4/file.c:94) -> bio_iov_iter_get_pages() (fs/iomap/direct-io.c:327) -> iov_iter_get_pages2() (block/bio.c:1217) -> get_user_pages_fast(), FOLL_WRITE for a read's destination (lib/iov_iter.c:1449-1450, 1460)",
				0, "GUP's errno is the read's (lib/iov_iter.c:1461-1462; ext4 asks iomap for no partial result, fs/ext4/file.c:94)" },
			[CONS_SRC_612] = { GUP_PIN_METHOD_PIN_FAST, W,
				"ext4_dio_read_iter() -> iomap_dio_rw() (fs/ext4/file.c:94) -> bio_iov_iter_get_pages() (fs/iomap/direct-io.c:416) -> iov_iter_extract_pages() (block/bio.c:1357) -> iov_iter_extract_user_pages(): pin_user_pages_fast(), FOLL_WRITE for ITER_DEST (lib/iov_iter.c:1808-1809, 1821)",
				0, "GUP's errno is the read's (lib/iov_iter.c:1822)" },
		},
		.seed005_why = "the block layer is not among seed 005's callers",
	},
	[CONS_VMSPLICE] = {
		.name = "vmsplice",
		.title = "vmsplice() of the mapping's page into a pipe, then read(2) of the pipe",
		.writes = false, .remote = false, .len = CONS_PAGE,
		.call = {
			[CONS_SRC_61] = { GUP_PIN_METHOD_GET_FAST, 0,
				"vmsplice_to_pipe() -> iter_to_pipe() -> iov_iter_get_pages2() (fs/splice.c:1196) -> get_user_pages_fast() without FOLL_WRITE: the iterator is a source (lib/iov_iter.c:1449-1450, 1460)",
				0, "GUP's errno (lib/iov_iter.c:1461-1462)" },
			[CONS_SRC_612] = { GUP_PIN_METHOD_GET_FAST, 0,
				"vmsplice_to_pipe() -> iter_to_pipe() -> iov_iter_get_pages2() (fs/splice.c:1468) -> get_user_pages_fast() without FOLL_WRITE: the iterator is a source (lib/iov_iter.c:1166-1167, 1177)",
				0, "GUP's errno (lib/iov_iter.c:1178-1179)" },
		},
		.seed005_why = "a read of the page: no write for any policy to refuse",
	},
	[CONS_IOURING] = {
		.name = "io_uring",
		.title = "io_uring IORING_REGISTER_BUFFERS of the page, then IORING_OP_READ_FIXED of an ext4 file into it",
		.writes = true, .remote = false, .len = CONS_PAGE,
		.call = {
			[CONS_SRC_61] = { GUP_PIN_METHOD_PIN, W | L,
				"io_sqe_buffer_register() -> io_pin_pages(): pin_user_pages(FOLL_WRITE | FOLL_LONGTERM) under mmap_read_lock (io_uring/rsrc.c:1006)",
				0, "ret = pret < 0 ? pret : -EFAULT (io_uring/rsrc.c:1026)",
				CONS_CHECK_IOURING_FILE },
			[CONS_SRC_612] = { GUP_PIN_METHOD_PIN_FAST, W | L,
				"io_sqe_buffer_register() (io_uring/rsrc.c:985) -> io_pin_pages(): pin_user_pages_fast(FOLL_WRITE | FOLL_LONGTERM) (io_uring/memmap.c:155), no VMA check of its own",
				0, "GUP's errno (io_uring/memmap.c:163-170)" },
		},
		.seed005_why = "io_uring is not among seed 005's callers",
	},
};

#undef W
#undef L
#undef F

/* The backings a consumer cell is made on, in order. */
static const enum cell_backing cons_backings[] = {
	BACKING_ANON, BACKING_SHMEM, BACKING_HUGETLB, BACKING_EXT4_SHARED,
	BACKING_EXT4_PRIVATE, BACKING_RAMFS, BACKING_EXT4_PRIVATE_RO,
};

/* The read-only MAP_PRIVATE mapping: only where FOLL_FORCE makes a write. */
static bool cons_backing_applies(enum consumer_iface i, enum cell_backing b)
{
	if (b != BACKING_EXT4_PRIVATE_RO)
		return true;
	return i == CONS_PTRACE_POKE || i == CONS_PROCMEM_WRITE;
}

/* Cells user space cannot make (policy.c's cell_impossible(), the same rule). */
/*
 * make check's subset: per interface, anonymous memory and ext4
 * MAP_SHARED untouched, ext4 MAP_SHARED write-faulted (GUP-fast takes a
 * writable PTE), and the read-only MAP_PRIVATE mapping untouched.
 */
static bool cons_cell_quick(enum cell_backing b, enum cell_state s)
{
	switch (b) {
	case BACKING_ANON:
	case BACKING_EXT4_PRIVATE_RO:
		return s == STATE_NONE;
	case BACKING_EXT4_SHARED:
		return s == STATE_NONE || s == STATE_WRITE;
	default:
		return false;
	}
}

unsigned int consumer_cells(bool quick, struct consumer_cell *c, unsigned int max)
{
	unsigned int n = 0, i, b, s;
	const char *why;

	for (i = 0; i < CONS_COUNT; i++)
		for (b = 0; b < ARRAY_SIZE(cons_backings); b++)
			for (s = 0; s < STATE_COUNT; s++) {
				enum cell_backing bk = cons_backings[b];

				if (!cons_backing_applies(i, bk) ||
				    !state_possible(bk, s, &why) ||
				    (quick && !cons_cell_quick(bk, s)))
					continue;
				if (n < max)
					c[n] = (struct consumer_cell){ i, bk, s };
				n++;
			}
	return n < max ? n : max;
}

char *consumer_cell_str(const struct consumer_cell *c, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s %s",
		 c->iface < CONS_COUNT ? consumers[c->iface].name : "?",
		 backing_name(c->backing), state_name(c->state));
	return buf;
}

static const char * const cons_data_names[CONS_DATA_COUNT] = {
	[CONS_DATA_NONE]	= "none",
	[CONS_DATA_NEW]		= "new",
	[CONS_DATA_OLD]		= "old",
	[CONS_DATA_OTHER]	= "other",
	[CONS_DATA_MISSING]	= "missing",
};

const char *cons_data_name(enum cons_data d)
{
	return d < CONS_DATA_COUNT ? cons_data_names[d] : "?";
}

int cons_data_parse(const char *s, enum cons_data *d)
{
	unsigned int i;

	for (i = 0; s && i < CONS_DATA_COUNT; i++) {
		if (!strcmp(s, cons_data_names[i])) {
			*d = i;
			return 0;
		}
	}
	return -EINVAL;
}

enum consumer_src consumer_src_of(const char *policy)
{
	const char *src = policy_source(policy);

	return src && !strcmp(src, "6.12") ? CONS_SRC_612 : CONS_SRC_61;
}

const char *consumer_src_name(enum consumer_src src)
{
	return src == CONS_SRC_612 ? "6.12.118" : "6.1.192";
}

static void why(struct consumer_expectation *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void why(struct consumer_expectation *e, const char *fmt, ...)
{
	size_t n = strlen(e->reason);
	va_list ap;

	if (n && n + 2 < sizeof(e->reason)) {
		strcpy(e->reason + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(e->reason + n, sizeof(e->reason) - n, fmt, ap);
	va_end(ap);
}

const char *const iouring_61_check =
	"then io_uring's own check: a file VMA neither shmem nor hugetlbfs is -EOPNOTSUPP (6.1: io_uring/rsrc.c:1011-1022), MAP_PRIVATE too; the pages are unpinned";

bool iouring_61_refuses(enum cell_backing b)
{
	const struct backing_spec *bs = backing_spec(b);

	return bs->kind == TARGET_FILE && bs->fs_magic != TMPFS_MAGIC;
}

/* What each view of the page reads back, given the call's outcome. */
static void expect_data(const struct consumer *k, const struct consumer_cell *c,
			struct consumer_expectation *e)
{
	const struct backing_spec *b = backing_spec(c->backing);
	bool file = b->kind != TARGET_ANON;
	bool landed = k->writes && e->ok;

	e->mapping = landed ? CONS_DATA_NEW : CONS_DATA_OLD;
	/* a MAP_PRIVATE write goes to an anonymous copy, never to the file */
	e->file = !file ? CONS_DATA_NONE :
		  landed && !b->private ? CONS_DATA_NEW : CONS_DATA_OLD;
	e->disk = b->fs_magic != EXT4_SUPER_MAGIC ? CONS_DATA_NONE : e->file;
	e->read = k->writes || !e->ok ? CONS_DATA_NONE : CONS_DATA_OLD;
}

int consumer_expect(const char *policy, const struct consumer_cell *c,
		    struct consumer_expectation *e)
{
	policy_fn fn = policy_lookup(policy);
	const struct consumer *k;
	const struct consumer_call *call;
	char flags[64];

	memset(e, 0, sizeof(*e));
	e->matrix_index = -1;
	if (!fn || c->iface >= CONS_COUNT || c->backing >= BACKING_COUNT ||
	    c->state >= STATE_COUNT)
		return -EINVAL;
	k = &consumers[c->iface];
	e->src = consumer_src_of(policy);
	call = &k->call[e->src];
	e->gup = (struct cell){ call->method, call->flags, c->backing, c->state };
	why(e, "%s (%s): %s", k->name, consumer_src_name(e->src), call->path);
	if (!strcmp(policy, "v1")) {
		if (!k->seed005)
			why(e, "seed 005 gives it no FOLL_ALLOW_BROKEN_FILE_MAPPING: %s",
			    k->seed005_why);
		else if (call->flags & GUP_PIN_FLAG_WRITE) {
			e->gup.flags |= GUP_PIN_FLAG_ALLOW_BROKEN;
			why(e, "seed 005 adds FOLL_ALLOW_BROKEN_FILE_MAPPING: %s", k->seed005);
		} else {
			why(e, "seed 005: %s", k->seed005);
		}
	}
	e->matrix_index = matrix_index(&e->gup);
	e->policy = fn(&e->gup);
	why(e, "GUP call: %s %s on %s %s", gup_method_name(e->gup.method),
	    gup_flags_str(e->gup.flags, flags, sizeof(flags)),
	    backing_name(c->backing), state_name(c->state));
	switch (e->policy.outcome) {
	case OUTCOME_PINNED:
		why(e, "policy %s: taken (%s)", policy, e->policy.reason);
		break;
	case OUTCOME_REFUSED:
		why(e, "policy %s: refused %s%s (%s)", policy, errno_name(e->policy.err),
		    e->policy.report.kind ? " with a WARNING" : "", e->policy.reason);
		break;
	default:
		why(e, "policy %s: not applicable (%s)", policy, e->policy.reason);
		return -EINVAL;
	}
	if (e->policy.outcome == OUTCOME_REFUSED) {
		e->ok = false;
		e->err = call->refused_err ?: e->policy.err;
		e->report = e->policy.report;
		why(e, "the interface returns %s: %s", errno_name(e->err),
		    call->refused_path);
	} else if (call->check == CONS_CHECK_IOURING_FILE &&
		   iouring_61_refuses(c->backing)) {
		e->ok = false;
		e->err = EOPNOTSUPP;
		why(e, "%s", iouring_61_check);
	} else {
		e->ok = true;
		e->bytes = k->len;
		why(e, "%zu bytes move", k->len);
	}
	expect_data(k, c, e);
	return 0;
}

char *consumer_cell_file(unsigned int index, enum cell_backing backing,
			 char *buf, size_t size)
{
	const struct backing_spec *b = backing_spec(backing);

	if (b->kind != TARGET_FILE)
		return NULL;
	snprintf(buf, size, "%s/%u.dat",
		 b->fs_magic == RAMFS_MAGIC ? CONS_RAMFS_DIR : CONS_EXT4_DIR, index + 1);
	return buf;
}

void consumer_pattern(unsigned int index, bool new, char *buf, size_t len)
{
	char unit[32];
	size_t n, i;

	n = snprintf(unit, sizeof(unit), "%s consumers cell %4u\n",
		     new ? "NEW" : "OLD", index + 1);
	for (i = 0; i < len; i++)
		buf[i] = unit[i % n];
}
