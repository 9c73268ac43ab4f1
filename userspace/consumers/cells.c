// SPDX-License-Identifier: GPL-2.0
/*
 * consumers: the kernel's GUP users as GUP calls, and what each flavour's
 * policy makes of them (cells.h).
 *
 * Citations: "6.1" lines are 6.1.192's (Debian linux-source-6.1
 * 6.1.192-3), "6.12" lines 6.12.118's (linux-source-6.12
 * 6.12.118-1~deb12u1), "7.3" lines 7.3.4's (linux-source-7.3
 * 7.3.4-1~bpo13+1, trixie-backports); seed 005's hunks are
 * patches/gup-v1/0001's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>

#include "consumers/cells.h"
#include "gup_pin_test.h"
#include "lib/gupdev.h"
#include "lib/mounts.h"
#include "lib/util.h"
#include "model/cell.h"
#include "model/iouring.h"

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
			[CONS_SRC_73] = { GUP_PIN_METHOD_PIN_REMOTE, W,
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
			[CONS_SRC_73] = { GUP_PIN_METHOD_PIN_REMOTE, 0,
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
			[CONS_SRC_73] = { GUP_PIN_METHOD_GET_REMOTE, W,
				"mem_rw(): FOLL_WRITE, and FOLL_FORCE only where proc_mem_foll_force() says so (fs/proc/base.c:900-902): under CONFIG_PROC_MEM_FORCE_PTRACE=y, 7.3's default (security/Kconfig:24, 6.12's was PROC_MEM_ALWAYS_FORCE), only for the process that ptraces the target (PROC_MEM_FORCE_PTRACE, fs/proc/base.c:866-874), which the consumer's writer does not -> access_remote_vm() (fs/proc/base.c:912) -> __access_remote_vm() -> get_user_page_vma_remote() (mm/memory.c:7253) -> get_user_pages_remote() (include/linux/mm.h:3357)",
				EIO, "nothing copied (no vm_ops->access, mm/memory.c:7276): copied = -EIO (fs/proc/base.c:913-915)" },
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
			[CONS_SRC_73] = { GUP_PIN_METHOD_GET_REMOTE, W | F,
				"generic_ptrace_pokedata(): ptrace_access_vm(FOLL_FORCE | FOLL_WRITE) (kernel/ptrace.c:1473-1474) -> access_remote_vm() (kernel/ptrace.c:80) -> get_user_page_vma_remote() (mm/memory.c:7253) -> get_user_pages_remote() (include/linux/mm.h:3357)",
				EIO, "copied != sizeof(data): -EIO (kernel/ptrace.c:1475)" },
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
				0, "GUP's errno is the read's: res <= 0 returns it (lib/iov_iter.c:1461-1462), and ext4 asks iomap_dio_rw() for no partial result (fs/ext4/file.c:94)" },
			[CONS_SRC_612] = { GUP_PIN_METHOD_PIN_FAST, W,
				"ext4_dio_read_iter() -> iomap_dio_rw() (fs/ext4/file.c:94) -> bio_iov_iter_get_pages() (fs/iomap/direct-io.c:416) -> iov_iter_extract_pages() (block/bio.c:1357) -> iov_iter_extract_user_pages(): pin_user_pages_fast(), FOLL_WRITE for ITER_DEST (lib/iov_iter.c:1808-1809, 1821)",
				0, "GUP's errno is the read's (lib/iov_iter.c:1822)" },
			[CONS_SRC_73] = { GUP_PIN_METHOD_PIN_FAST, W,
				"ext4_dio_read_iter() -> iomap_dio_read_simple() (fs/ext4/file.c:94), a read of one block within the file -> __iomap_dio_read_simple() -> bio_iov_iter_get_pages() (fs/iomap/direct-io.c:1031) -> iov_iter_extract_bvecs() (block/bio.c:1309) -> iov_iter_extract_pages() (lib/iov_iter.c:1961) -> iov_iter_extract_user_pages(): pin_user_pages_fast(), FOLL_WRITE for ITER_DEST (lib/iov_iter.c:1767-1768, 1780)",
				0, "GUP's errno is the read's (lib/iov_iter.c:1781-1786)" },
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
			[CONS_SRC_73] = { GUP_PIN_METHOD_GET_FAST, 0,
				"vmsplice_to_pipe() -> iter_to_pipe() -> iov_iter_get_pages2() (fs/splice.c:1460) -> get_user_pages_fast() without FOLL_WRITE: the iterator is a source (lib/iov_iter.c:1084-1085, 1095)",
				0, "GUP's errno (lib/iov_iter.c:1096-1097)" },
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
			[CONS_SRC_73] = { GUP_PIN_METHOD_PIN_FAST, W | L,
				"io_sqe_buffer_register() -> io_pin_pages() (io_uring/rsrc.c:885): pin_user_pages_fast(FOLL_WRITE | FOLL_LONGTERM) (io_uring/memmap.c:78), no VMA check of its own",
				0, "GUP's errno (io_uring/memmap.c:86-94)" },
		},
		.seed005_why = "io_uring is not among seed 005's callers",
	},
	[CONS_XDP_UMEM] = {
		.name = "af-xdp-umem",
		.title = "setsockopt(XDP_UMEM_REG) of the page as an AF_XDP umem (registration only)",
		.writes = false, .remote = false, .len = CONS_PAGE,
		.call = {
			[CONS_SRC_61] = { GUP_PIN_METHOD_PIN, W | L,
				"xsk_setsockopt(XDP_UMEM_REG) (net/xdp/xsk.c:1093, 1113) -> xdp_umem_create() -> xdp_umem_reg() -> xdp_umem_pin_pages() (net/xdp/xdp_umem.c:219): gup_flags = FOLL_WRITE (net/xdp/xdp_umem.c:96), pin_user_pages(gup_flags | FOLL_LONGTERM) under mmap_read_lock (net/xdp/xdp_umem.c:104-106)",
				0, "npgs < 0: err = npgs, GUP's errno (net/xdp/xdp_umem.c:109-116)" },
			[CONS_SRC_612] = { GUP_PIN_METHOD_PIN, W | L,
				"xsk_setsockopt(XDP_UMEM_REG) (net/xdp/xsk.c:1604, 1635) -> xdp_umem_create() -> xdp_umem_reg() -> xdp_umem_pin_pages() (net/xdp/xdp_umem.c:233): gup_flags = FOLL_WRITE (net/xdp/xdp_umem.c:96), pin_user_pages(gup_flags | FOLL_LONGTERM) under mmap_read_lock (net/xdp/xdp_umem.c:104-106)",
				0, "npgs < 0: err = npgs, GUP's errno (net/xdp/xdp_umem.c:109-116)" },
			[CONS_SRC_73] = { GUP_PIN_METHOD_PIN, W | L,
				"xsk_setsockopt(XDP_UMEM_REG) (net/xdp/xsk.c:1847, 1878) -> xdp_umem_create() -> xdp_umem_reg() -> xdp_umem_pin_pages() (net/xdp/xdp_umem.c:234): gup_flags = FOLL_WRITE (net/xdp/xdp_umem.c:96), pin_user_pages(gup_flags | FOLL_LONGTERM) under mmap_read_lock (net/xdp/xdp_umem.c:105-107)",
				0, "npgs < 0: err = npgs, GUP's errno (net/xdp/xdp_umem.c:110-117)" },
		},
		.seed005 = "xdp_umem_pin_pages(): gup_flags = FOLL_WRITE | FOLL_ALLOW_BROKEN_FILE_MAPPING (net/xdp/xdp_umem.c:96)",
		.config = "CONFIG_XDP_SOCKETS",
		.no_data = "no NIC in the guest: no packet ever moves through the umem; the registration's result is the measurement",
	},
	[CONS_RDMA_RXE] = {
		.name = "rdma-rxe",
		.title = "ibv_reg_mr(LOCAL_WRITE | REMOTE_WRITE) of the page on soft-RoCE (rdma_rxe), then an RDMA WRITE of a page into it from a second QP",
		.writes = true, .remote = false, .len = CONS_PAGE,
		.call = {
			[CONS_SRC_61] = { GUP_PIN_METHOD_PIN_FAST, W | L,
				"rxe_reg_user_mr() -> rxe_mr_init_user() (drivers/infiniband/sw/rxe/rxe_verbs.c:903) -> ib_umem_get() (drivers/infiniband/sw/rxe/rxe_mr.c:127): gup_flags = FOLL_WRITE, whatever the access (drivers/infiniband/core/umem.c:176), pin_user_pages_fast(gup_flags | FOLL_LONGTERM) (drivers/infiniband/core/umem.c:235-239)",
				0, "pinned < 0: ret = pinned, GUP's errno (drivers/infiniband/core/umem.c:240-242)" },
			[CONS_SRC_612] = { GUP_PIN_METHOD_PIN_FAST, W | L,
				"rxe_reg_user_mr() -> rxe_mr_init_user() (drivers/infiniband/sw/rxe/rxe_verbs.c:1288) -> ib_umem_get() (drivers/infiniband/sw/rxe/rxe_mr.c:202): gup_flags = FOLL_LONGTERM (drivers/infiniband/core/umem.c:176), FOLL_WRITE for a writable MR (drivers/infiniband/core/umem.c:231), pin_user_pages_fast() (drivers/infiniband/core/umem.c:235-239)",
				0, "pinned < 0: ret = pinned, GUP's errno (drivers/infiniband/core/umem.c:240-242)" },
			[CONS_SRC_73] = { GUP_PIN_METHOD_PIN_FAST, W | L,
				"rxe_reg_user_mr() -> rxe_mr_init_user() (drivers/infiniband/sw/rxe/rxe_verbs.c:1293) -> ib_umem_get_va() (drivers/infiniband/sw/rxe/rxe_mr.c:201) -> __ib_umem_get_va(): gup_flags = FOLL_LONGTERM (drivers/infiniband/core/umem.c:174), FOLL_WRITE for a writable MR (drivers/infiniband/core/umem.c:236-237), pin_user_pages_fast() (drivers/infiniband/core/umem.c:241-244)",
				0, "pinned < 0: ret = pinned, GUP's errno (drivers/infiniband/core/umem.c:246-248)" },
		},
		.seed005_why = "seed 005 exempts siw's own siw_umem_get(), not the core ib_umem_get() rxe uses (drivers/infiniband/core/umem.c has no hunk)",
		.config = "CONFIG_RDMA_RXE",
	},
	[CONS_RDMA_SIW] = {
		.name = "rdma-siw",
		.title = "ibv_reg_mr(LOCAL_WRITE | REMOTE_WRITE) of the page on soft-iWARP (siw): registration only",
		.writes = false, .remote = false, .len = CONS_PAGE,
		.call = {
			[CONS_SRC_61] = { GUP_PIN_METHOD_PIN, W | L,
				"siw_reg_user_mr() -> siw_umem_get() (drivers/infiniband/sw/siw/siw_verbs.c:1353): foll_flags = FOLL_WRITE (drivers/infiniband/sw/siw/siw_mem.c:371), pin_user_pages(foll_flags | FOLL_LONGTERM) under mmap_read_lock (drivers/infiniband/sw/siw/siw_mem.c:424-426)",
				0, "rv < 0: ERR_PTR(rv), GUP's errno (drivers/infiniband/sw/siw/siw_mem.c:427-428, 449; siw_verbs.c:1354-1355)" },
			[CONS_SRC_612] = { GUP_PIN_METHOD_PIN_FAST, W | L,
				"siw_reg_user_mr() -> siw_umem_get() (drivers/infiniband/sw/siw/siw_verbs.c:1359) -> ib_umem_get() (drivers/infiniband/sw/siw/siw_mem.c:384): FOLL_LONGTERM, FOLL_WRITE for a writable MR, pin_user_pages_fast() (drivers/infiniband/core/umem.c:176, 231, 235-239)",
				0, "pinned < 0: ret = pinned, GUP's errno (drivers/infiniband/core/umem.c:240-242)" },
			[CONS_SRC_73] = { GUP_PIN_METHOD_PIN_FAST, W | L,
				"siw_reg_user_mr() -> siw_umem_get() (drivers/infiniband/sw/siw/siw_verbs.c:1360) -> ib_umem_get_va() (drivers/infiniband/sw/siw/siw_mem.c:353): FOLL_LONGTERM, FOLL_WRITE for a writable MR, pin_user_pages_fast() (drivers/infiniband/core/umem.c:174, 237, 241-244)",
				0, "pinned < 0: ret = pinned, GUP's errno (drivers/infiniband/core/umem.c:246-248)" },
		},
		.seed005 = "siw_umem_get(): foll_flags = FOLL_WRITE | FOLL_ALLOW_BROKEN_FILE_MAPPING (drivers/infiniband/sw/siw/siw_mem.c:371, patches/gup-v1/0001; seed 005's own base had FOLL_LONGTERM there)",
		.config = "CONFIG_RDMA_SIW",
		.no_data = "an iWARP QP reaches RTS only through the connection manager (rdma_cm over TCP), not ibv_modify_qp(): the registration's result is the measurement",
	},
	[CONS_UPROBE_REFCTR] = {
		.name = "uprobe-refctr",
		.title = "an SDT uprobe with a reference counter (tracefs uprobe_events, ref_ctr_offset) on a program whose semaphore sits in its MAP_PRIVATE ext4 data page, enabled while it runs",
		.writes = true, .remote = true, .len = sizeof(short),
		.call = {
			[CONS_SRC_61] = { GUP_PIN_METHOD_GET_REMOTE, W,
				"probe_event_enable() -> uprobe_register_refctr() (kernel/trace/trace_uprobe.c:1087) -> install_breakpoint() -> uprobe_write_opcode() -> update_ref_ctr() (kernel/events/uprobes.c:500) -> __update_ref_ctr(): get_user_pages_remote(FOLL_WRITE) (kernel/events/uprobes.c:376-377), *ptr += d through the kernel mapping",
				0, "ret <= 0: GUP's errno, -EBUSY for 0 (kernel/events/uprobes.c:378-384), update_ref_ctr_warn()'s pr_warn 'ref_ctr increment failed' (kernel/events/uprobes.c:407, called at 426-427), uprobe_write_opcode() gives up (kernel/events/uprobes.c:501-502): the enable write fails with it" },
			[CONS_SRC_612] = { GUP_PIN_METHOD_GET_REMOTE, W,
				"probe_event_enable() -> uprobe_register(ref_ctr_offset) (kernel/trace/trace_uprobe.c:1111) -> install_breakpoint() -> uprobe_write_opcode() -> update_ref_ctr() (kernel/events/uprobes.c:516) -> __update_ref_ctr(): get_user_pages_remote(FOLL_WRITE) (kernel/events/uprobes.c:393-394)",
				0, "ret <= 0: GUP's errno, -EBUSY for 0 (kernel/events/uprobes.c:395-401), update_ref_ctr_warn()'s pr_warn (called at kernel/events/uprobes.c:443-444): the enable write fails with it" },
			[CONS_SRC_73] = { GUP_PIN_METHOD_GET_REMOTE, W,
				"probe_event_enable() -> uprobe_register(ref_ctr_offset) (kernel/trace/trace_uprobe.c:1112) -> install_breakpoint() -> set_swbp() -> uprobe_write_opcode() -> uprobe_write() -> update_ref_ctr() (kernel/events/uprobes.c:544) -> __update_ref_ctr(): get_user_pages_remote(FOLL_WRITE) (kernel/events/uprobes.c:318-319)",
				0, "ret <= 0: GUP's errno, -EBUSY for 0 (kernel/events/uprobes.c:320-326), update_ref_ctr_warn()'s pr_warn (called at kernel/events/uprobes.c:368-369): the enable write fails with it" },
		},
		.seed005 = "__update_ref_ctr(): get_user_pages_remote(FOLL_WRITE | FOLL_ALLOW_BROKEN_FILE_MAPPING) (kernel/events/uprobes.c:376-378, patches/gup-v1/0001)",
		.config = "CONFIG_UPROBE_EVENTS",
	},
	[CONS_UPROBE] = {
		.name = "uprobe",
		.title = "a plain uprobe (tracefs uprobe_events) on a running program's MAP_PRIVATE ext4 text: the control, no GUP write",
		.writes = true, .remote = true, .len = 1,
		.call = {
			[CONS_SRC_61] = { GUP_PIN_METHOD_GET_REMOTE, F,
				"install_breakpoint() -> set_swbp() -> uprobe_write_opcode(): gup_flags = FOLL_FORCE (| FOLL_SPLIT_PMD, not modelled) (kernel/events/uprobes.c:469, 476), get_user_pages_remote() reads the old page (kernel/events/uprobes.c:478); the breakpoint goes into a new anonymous page that __replace_page() maps (kernel/events/uprobes.c:548): no write through GUP",
				0, "GUP's errno (kernel/events/uprobes.c:478-481)" },
			[CONS_SRC_612] = { GUP_PIN_METHOD_GET_REMOTE, F,
				"install_breakpoint() -> set_swbp() -> uprobe_write_opcode(): gup_flags = FOLL_FORCE (| FOLL_SPLIT_PMD) (kernel/events/uprobes.c:486, 493), get_user_page_vma_remote() (kernel/events/uprobes.c:495); __replace_page() maps a new anonymous page: no write through GUP",
				0, "GUP's errno (kernel/events/uprobes.c:495-497)" },
			[CONS_SRC_73] = { GUP_PIN_METHOD_GET_REMOTE, W | F,
				"install_breakpoint() -> set_swbp() (arch/x86/kernel/uprobes.c:1148) -> uprobe_write_opcode() -> uprobe_write(): gup_flags = FOLL_FORCE, and FOLL_WRITE | FOLL_SPLIT_PMD (not modelled) to register (kernel/events/uprobes.c:508, 527-528), get_user_pages_remote() (kernel/events/uprobes.c:531): the write fault breaks COW and the breakpoint goes into the exclusive anonymous copy, which uprobe_write() checks with folio_test_anon() (kernel/events/uprobes.c:554); in 7.3 a GUP write (FOLL_WRITE | FOLL_FORCE), where 6.12 read the page with FOLL_FORCE and mapped a new anonymous one",
				0, "GUP's errno (kernel/events/uprobes.c:531-533)" },
		},
		.seed005_why = "uprobe_write_opcode() reads with FOLL_FORCE and replaces the page: no FOLL_WRITE for any policy to refuse",
		.config = "CONFIG_UPROBE_EVENTS",
	},
};

#undef W
#undef L
#undef F

const struct consumer_fs consumer_fss[CONS_FS_COUNT] = {
	[CONS_FS_EXT4] = {
		.name = "ext4", .magic = EXT4_SUPER_MAGIC,
		.mount = LAB_EXT4_DIR, .dir = LAB_EXT4_DIR "/consumers",
		.mounted_by = "the root image's fstab mounts the scratch ext4 there",
		.vm_ops = {
			[CONS_SRC_61] = "the file is on ext4: ext4_file_mmap() sets vma->vm_ops = &ext4_file_vm_ops whatever the mapping type (fs/ext4/file.c:789), whose .page_mkwrite = ext4_page_mkwrite (fs/ext4/file.c:765)",
			[CONS_SRC_612] = "the file is on ext4: ext4_file_mmap() sets vma->vm_ops = &ext4_file_vm_ops whatever the mapping type (fs/ext4/file.c:809), whose .page_mkwrite = ext4_page_mkwrite (fs/ext4/file.c:786)",
			[CONS_SRC_73] = "the file is on ext4: ext4_file_mmap_prepare() sets desc->vm_ops = &ext4_file_vm_ops whatever the mapping type (fs/ext4/file.c:906), whose .page_mkwrite = ext4_page_mkwrite (fs/ext4/file.c:877)",
		},
	},
	[CONS_FS_XFS] = {
		.name = "xfs", .magic = XFS_SUPER_MAGIC,
		.mount = LAB_XFS_DIR, .dir = LAB_XFS_DIR "/consumers",
		.mounted_by = "jobs/guest/consumers.sh mounts the disk of qemu/run.sh --fs xfs there",
		.config = "CONFIG_XFS_FS",
		.vm_ops = {
			[CONS_SRC_61] = "the file is on xfs: xfs_file_mmap() sets vma->vm_ops = &xfs_file_vm_ops whatever the mapping type (fs/xfs/xfs_file.c:1468), whose .page_mkwrite = xfs_filemap_page_mkwrite (fs/xfs/xfs_file.c:1448), as ext4_file_vm_ops has ext4_page_mkwrite: the policies answer as for the ext4 twin",
			[CONS_SRC_612] = "the file is on xfs: xfs_file_mmap() sets vma->vm_ops = &xfs_file_vm_ops whatever the mapping type (fs/xfs/xfs_file.c:1580), whose .page_mkwrite = xfs_filemap_page_mkwrite (fs/xfs/xfs_file.c:1560), as ext4_file_vm_ops has ext4_page_mkwrite: the policies answer as for the ext4 twin",
			[CONS_SRC_73] = "the file is on xfs: xfs_file_mmap_prepare() sets desc->vm_ops = &xfs_file_vm_ops whatever the mapping type (fs/xfs/xfs_file.c:2151), whose .page_mkwrite = xfs_filemap_page_mkwrite (fs/xfs/xfs_file.c:2130), as ext4_file_vm_ops has ext4_page_mkwrite: the policies answer as for the ext4 twin",
		},
	},
	[CONS_FS_BTRFS] = {
		.name = "btrfs", .magic = BTRFS_SUPER_MAGIC,
		.mount = LAB_BTRFS_DIR, .dir = LAB_BTRFS_DIR "/consumers",
		.mounted_by = "jobs/guest/consumers.sh mounts the disk of qemu/run.sh --fs btrfs there",
		.config = "CONFIG_BTRFS_FS",
		.vm_ops = {
			[CONS_SRC_61] = "the file is on btrfs: btrfs_file_mmap() sets vma->vm_ops = &btrfs_file_vm_ops whatever the mapping type (fs/btrfs/file.c:2027), whose .page_mkwrite = btrfs_page_mkwrite (fs/btrfs/file.c:2016), as ext4_file_vm_ops has ext4_page_mkwrite: the policies answer as for the ext4 twin",
			[CONS_SRC_612] = "the file is on btrfs: btrfs_file_mmap() sets vma->vm_ops = &btrfs_file_vm_ops whatever the mapping type (fs/btrfs/file.c:2030), whose .page_mkwrite = btrfs_page_mkwrite (fs/btrfs/file.c:2019), as ext4_file_vm_ops has ext4_page_mkwrite: the policies answer as for the ext4 twin",
			[CONS_SRC_73] = "the file is on btrfs: btrfs_file_mmap_prepare() sets desc->vm_ops = &btrfs_file_vm_ops whatever the mapping type (fs/btrfs/file.c:2004), whose .page_mkwrite = btrfs_page_mkwrite (fs/btrfs/file.c:1990), as ext4_file_vm_ops has ext4_page_mkwrite: the policies answer as for the ext4 twin",
		},
	},
};

const struct consumer_fs *consumer_fs_of(enum cell_backing backing)
{
	const struct backing_spec *b = backing_spec(backing);
	unsigned int i;

	for (i = 0; b && b->kind == TARGET_FILE && i < CONS_FS_COUNT; i++)
		if (b->fs_magic == consumer_fss[i].magic)
			return &consumer_fss[i];
	return NULL;
}

/*
 * The model's backing of a file on @fs mapped so (model/cell.c), or
 * BACKING_COUNT when it has none.
 */
static enum cell_backing fs_backing(const struct consumer_fs *fs, bool private,
				    bool read_only)
{
	unsigned int b;

	for (b = 0; b < BACKING_COUNT; b++) {
		const struct backing_spec *s = backing_spec(b);

		if (s->kind == TARGET_FILE && s->fs_magic == fs->magic && !s->thp &&
		    s->private == private && s->read_only == read_only)
			return b;
	}
	return BACKING_COUNT;
}

int consumer_ext4_twin(const struct consumer_cell *c, struct consumer_cell *twin)
{
	const struct backing_spec *b = backing_spec(c->backing);
	enum cell_backing t;

	if (!consumer_fs_of(c->backing))
		return -ENOENT;
	t = fs_backing(&consumer_fss[CONS_FS_EXT4], b->private, b->read_only);
	if (t == BACKING_COUNT)
		return -ENOENT;
	*twin = (struct consumer_cell){ c->iface, t, c->state };
	return 0;
}

/*
 * The backings a consumer cell is made on, in order: memory, each disk
 * file system's MAP_SHARED file (ext4, xfs, btrfs), their MAP_PRIVATE
 * one, ramfs, their read-only MAP_PRIVATE one.  The file backings are the
 * model's, found by what they are (model/cell.c's backing_spec()); a
 * twin the model lacks is left out, and tests/host/consumers_judge.sh
 * fails on it.  Returns how many were written to @out (BACKING_COUNT).
 */
static unsigned int cons_backings(enum cell_backing *out)
{
	static const struct { bool private, read_only; } maps[] = {
		{ false, false }, { true, false }, { true, true },
	};
	static const enum cell_backing memory[] = {
		BACKING_ANON, BACKING_SHMEM, BACKING_HUGETLB,
	};
	unsigned int n = 0, m, i;
	enum cell_backing b;

	for (i = 0; i < ARRAY_SIZE(memory); i++)
		out[n++] = memory[i];
	for (m = 0; m < ARRAY_SIZE(maps); m++) {
		if (maps[m].read_only)
			out[n++] = BACKING_RAMFS;
		for (i = 0; i < CONS_FS_COUNT; i++) {
			b = fs_backing(&consumer_fss[i], maps[m].private, maps[m].read_only);
			if (b != BACKING_COUNT)
				out[n++] = b;
		}
	}
	return n;
}

/*
 * The read-only MAP_PRIVATE mapping: only where FOLL_FORCE makes a write.
 * The uprobes: a program on a disk file system, its data (the semaphore,
 * MAP_PRIVATE writable) for the reference counter, its text (read-only)
 * for the plain uprobe.
 */
static bool cons_backing_applies(enum consumer_iface i, enum cell_backing b)
{
	const struct backing_spec *s = backing_spec(b);
	bool disk = consumer_fs_of(b) != NULL;

	if (i == CONS_UPROBE_REFCTR)
		return disk && s->private && !s->read_only;
	if (i == CONS_UPROBE)
		return disk && s->private && s->read_only;
	if (!(s->kind == TARGET_FILE && s->private && s->read_only))
		return true;
	return i == CONS_PTRACE_POKE || i == CONS_PROCMEM_WRITE;
}

/*
 * make check's subset: per interface, anonymous memory and ext4
 * MAP_SHARED untouched, ext4 MAP_SHARED write-faulted (GUP-fast takes a
 * writable PTE), and the read-only MAP_PRIVATE ext4 mapping untouched;
 * the uprobes untouched on ext4; of the xfs and btrfs twins, the
 * MAP_SHARED file untouched (a write fault through their page_mkwrite).
 */
static bool cons_cell_quick(enum consumer_iface i, enum cell_backing b,
			    enum cell_state s)
{
	const struct consumer_fs *fs = consumer_fs_of(b);

	if (fs && fs != &consumer_fss[CONS_FS_EXT4])
		return !backing_spec(b)->private && s == STATE_NONE;
	/* a program's pages: its semaphore or text untouched before the probe */
	if (i == CONS_UPROBE_REFCTR || i == CONS_UPROBE)
		return s == STATE_NONE;
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
	enum cell_backing backings[BACKING_COUNT];
	unsigned int n = 0, nb, i, b, s;
	const char *why;

	nb = cons_backings(backings);
	for (i = 0; i < CONS_COUNT; i++)
		for (b = 0; b < nb; b++)
			for (s = 0; s < STATE_COUNT; s++) {
				enum cell_backing bk = backings[b];

				if (!cons_backing_applies(i, bk) ||
				    !state_possible(bk, s, &why) ||
				    ((i == CONS_UPROBE_REFCTR || i == CONS_UPROBE) &&
				     s == STATE_WRITEBACK) ||
				    (quick && !cons_cell_quick(i, bk, s)))
					continue;
				if (n < max)
					c[n] = (struct consumer_cell){ i, bk, s };
				n++;
			}
	/* A table too small for the cells is a bug of ours: never run a part. */
	if (n > max) {
		fprintf(stderr, "gupctl: %u consumer cells, room for %u (CONS_MAX_CELLS)\n",
			n, max);
		abort();
	}
	return n;
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

	switch (policy_kernel_of_source(src)) {
	case POLICY_KERNEL_612:
		return CONS_SRC_612;
	case POLICY_KERNEL_73:
		return CONS_SRC_73;
	default:
		return CONS_SRC_61;
	}
}

const char *consumer_src_name(enum consumer_src src)
{
	static const char *const names[CONS_SRC_COUNT] = {
		[CONS_SRC_61] = "6.1.192", [CONS_SRC_612] = "6.12.118",
		[CONS_SRC_73] = "7.3.4",
	};

	return names[src];
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

/* What each view of the page reads back, given the call's outcome. */
static void expect_data(const struct consumer *k, const struct consumer_cell *c,
			struct consumer_expectation *e)
{
	const struct backing_spec *b = backing_spec(c->backing);
	bool file = b->kind != TARGET_ANON;
	bool landed = k->writes && e->ok;
	/* the host reads a disk file system's image; nothing reads ramfs' */
	bool disk = consumer_fs_of(c->backing) != NULL;

	e->mapping = landed ? CONS_DATA_NEW : CONS_DATA_OLD;
	/* a MAP_PRIVATE write goes to an anonymous copy, never to the file */
	e->file = !file ? CONS_DATA_NONE :
		  landed && !b->private ? CONS_DATA_NEW : CONS_DATA_OLD;
	e->disk = disk ? e->file : CONS_DATA_NONE;
	e->read = k->writes || k->no_data || !e->ok ? CONS_DATA_NONE : CONS_DATA_OLD;
	/*
	 * The uprobes' file is the program (DIR/N.uprobe): the
	 * guest reads it back after fsync(); the host reads .dat files only.
	 */
	if (c->iface == CONS_UPROBE_REFCTR || c->iface == CONS_UPROBE)
		e->disk = CONS_DATA_NONE;
}

int consumer_config_has(const char *path, const char *opt)
{
	char line[256];
	size_t n;
	FILE *f;
	int has = 0;

	if (!opt)
		return 1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = strlen(opt);
	while (!has && fgets(line, sizeof(line), f))
		has = !strncmp(line, opt, n) && line[n] == '=' &&
		      (line[n + 1] == 'y' || line[n + 1] == 'm');
	fclose(f);
	return has;
}

/*
 * The 6.1 call paths as gup-v1's own tree has them, where seed 005's hunks
 * move the lines they cite: its __update_ref_ctr() hunk takes a line more,
 * so kernel/events/uprobes.c's lines after 377 are one further down.  The
 * other paths cite the same lines in both trees.
 */
static const char *const seed005_paths[CONS_COUNT] = {
	[CONS_UPROBE_REFCTR] = "probe_event_enable() -> uprobe_register_refctr() (kernel/trace/trace_uprobe.c:1087) -> install_breakpoint() -> uprobe_write_opcode() -> update_ref_ctr() (kernel/events/uprobes.c:501) -> __update_ref_ctr(): get_user_pages_remote(FOLL_WRITE | FOLL_ALLOW_BROKEN_FILE_MAPPING) (kernel/events/uprobes.c:376-378), *ptr += d through the kernel mapping",
	[CONS_UPROBE] = "install_breakpoint() -> set_swbp() -> uprobe_write_opcode(): gup_flags = FOLL_FORCE (| FOLL_SPLIT_PMD, not modelled) (kernel/events/uprobes.c:470, 477), get_user_pages_remote() reads the old page (kernel/events/uprobes.c:479); the breakpoint goes into a new anonymous page that __replace_page() maps (kernel/events/uprobes.c:549): no write through GUP",
};

int consumer_expect(const char *policy, const struct consumer_cell *c,
		    struct consumer_expectation *e)
{
	policy_fn fn = policy_lookup(policy);
	const struct consumer_fs *fs = consumer_fs_of(c->backing);
	const struct consumer *k;
	const struct consumer_call *call;
	char flags[64], vm_ops[32];

	memset(e, 0, sizeof(*e));
	e->matrix_index = -1;
	if (!fn || c->iface >= CONS_COUNT || c->backing >= BACKING_COUNT ||
	    c->state >= STATE_COUNT)
		return -EINVAL;
	k = &consumers[c->iface];
	e->src = consumer_src_of(policy);
	call = &k->call[e->src];
	e->gup = (struct cell){ call->method, call->flags, c->backing, c->state };
	if (!strcmp(policy, "v1") && seed005_paths[c->iface])
		why(e, "%s (6.1.192 + seed 005, gup-v1's tree): %s", k->name,
		    seed005_paths[c->iface]);
	else
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
	/* the file system's page_mkwrite, unless the policy's reason cites it */
	snprintf(vm_ops, sizeof(vm_ops), "%s_file_vm_ops", fs ? fs->name : "");
	if (fs && !strstr(e->policy.reason, vm_ops))
		why(e, "%s", fs->vm_ops[e->src]);
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
		if (k->no_data)
			why(e, "%zu bytes registered; no data moves: %s", k->len, k->no_data);
		else
			why(e, "%zu bytes move", k->len);
	}
	expect_data(k, c, e);
	return 0;
}

char *consumer_cell_file(unsigned int index, const struct consumer_cell *c,
			 char *buf, size_t size)
{
	const struct backing_spec *b = backing_spec(c->backing);
	const struct consumer_fs *fs = consumer_fs_of(c->backing);
	bool uprobe = c->iface == CONS_UPROBE_REFCTR || c->iface == CONS_UPROBE;

	if (b->kind != TARGET_FILE || (!fs && b->fs_magic != RAMFS_MAGIC))
		return NULL;
	snprintf(buf, size, "%s/%u.%s", fs ? fs->dir : CONS_RAMFS_DIR, index + 1,
		 uprobe ? "uprobe" : "dat");
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

const char *consumer_expected_outcome(const struct consumer_expectation *e)
{
	return e->ok ? "ok" : errno_name(e->err);
}
