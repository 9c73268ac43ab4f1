/* SPDX-License-Identifier: GPL-2.0 */
/*
 * consumers: the kernel's own GUP users, driven from user space with no
 * help from gup_pin_test (gupctl consumers).  Each interface is modelled
 * as the GUP call it makes in 6.1.192 and in 6.12.118 (entry point, FOLL_*
 * flags, file:line), plus what the caller does around it (io_uring's own
 * VMA check in 6.1, the errno it turns a refusal into); the flavour's
 * policy function (model/policy.h) answers for the GUP call on the matrix cell
 * of the same method, flags, backing and page state.  Never from a run.
 */
#ifndef CONSUMERS_H
#define CONSUMERS_H

#include <stdbool.h>
#include <stddef.h>

#include "model/policy.h"

enum consumer_iface {
	CONS_PVM_WRITE,		/* process_vm_writev() into a child's mapping */
	CONS_PVM_READ,		/* process_vm_readv() out of it */
	CONS_PROCMEM_WRITE,	/* pwrite() to /proc/CHILD/mem */
	CONS_PTRACE_POKE,	/* ptrace(PTRACE_POKEDATA) into the tracee */
	CONS_ODIRECT_READ,	/* O_DIRECT read(2) from an ext4 file into the mapping (on any backing) */
	CONS_VMSPLICE,		/* vmsplice() of the mapping into a pipe, then read the pipe */
	CONS_IOURING,		/* IORING_REGISTER_BUFFERS, then IORING_OP_READ_FIXED into it */
	CONS_XDP_UMEM,		/* setsockopt(XDP_UMEM_REG) of the mapping: registration only */
	CONS_RDMA_RXE,		/* ibv_reg_mr() on soft-RoCE, then an RDMA WRITE into it */
	CONS_RDMA_SIW,		/* ibv_reg_mr() on soft-iWARP: registration only */
	CONS_UPROBE_REFCTR,	/* an SDT uprobe with a reference counter in the child's data */
	CONS_UPROBE,		/* a plain uprobe in the child's text: the control */
	CONS_COUNT
};

/* The kernel source a flavour is built on (patches/flavours' source column). */
enum consumer_src {
	CONS_SRC_61,		/* linux-source-6.1 6.1.192: every 6.1 flavour */
	CONS_SRC_612,		/* linux-source-6.12 6.12.118: mainline */
	CONS_SRC_73,		/* linux-source-7.3 7.3.4: latest */
	CONS_SRC_COUNT
};

/* What the caller does after GUP answers, beyond returning. */
enum consumer_check {
	CONS_CHECK_NONE,
	/*
	 * io_uring 6.1, io_sqe_buffer_register() -> io_pin_pages()
	 * (io_uring/rsrc.c:1011-1022): after a successful pin, a file VMA
	 * that is neither shmem nor hugetlbfs is -EOPNOTSUPP.
	 */
	CONS_CHECK_IOURING_FILE,
};

/* The GUP call an interface makes in one source version. */
struct consumer_call {
	unsigned int method;	/* enum gup_pin_method */
	unsigned int flags;	/* GUP_PIN_FLAG_WRITE / _LONGTERM / _FORCE */
	const char *path;	/* how the syscall gets there, file:line */
	int refused_err;	/* errno the interface returns when GUP refuses; 0: GUP's own */
	const char *refused_path; /* where that errno is made, file:line */
	enum consumer_check check;
};

struct consumer {
	const char *name;	/* "process_vm_writev": ids, files, options */
	const char *title;	/* one line */
	bool writes;		/* it moves data into the mapping (else out of it) */
	bool remote;		/* the mapping is another process's (a forked child) */
	size_t len;		/* bytes it moves: a page, or a word (PTRACE_POKEDATA) */
	struct consumer_call call[CONS_SRC_COUNT];
	/*
	 * gup-v1 (patches/gup-v1/, seed 005): the hunk that gives this
	 * caller FOLL_ALLOW_BROKEN_FILE_MAPPING, or NULL; @seed005_why says
	 * why it has none when NULL.
	 */
	const char *seed005;
	const char *seed005_why;
	/*
	 * The kernel option the interface needs, or NULL; the lab's kernels
	 * have every one (patches/config.fragment), a registered tree's own
	 * config may not: a kernel without it runs none of its cells ("not
	 * run: this kernel has no CONFIG_X").
	 */
	const char *config;
	/* Why no data moves through it in our guest, or NULL: it moves data. */
	const char *no_data;
};

/* Is kernel option @option (CONFIG_X) in the .config at @path?  -1:
 * unreadable; 1 for a NULL @option (nothing needed). */
int consumer_config_has(const char *path, const char *option);


extern const struct consumer consumers[CONS_COUNT];

/* One measurement: an interface on one backing in one page state. */
struct consumer_cell {
	enum consumer_iface iface;
	enum cell_backing backing;
	enum cell_state state;
};

/*
 * The disk file systems a cell's file is on: the guest's scratch ext4
 * (the root image's fstab mounts it at /mnt/ext4) and the scratch xfs and
 * btrfs that jobs/guest/consumers.sh mounts at /mnt/xfs and /mnt/btrfs
 * (qemu/run.sh --fs TYPE, jobs/guest/disks.sh).  After the VM exits the
 * host reads each cell's file back from that file system's image
 * (qemu/read-image.sh NAME).  A cell on xfs or btrfs is the twin of the
 * ext4 cell with the same mapping (shared, private, private read-only),
 * interface and state: with nothing happening to the file system during
 * the call, it is expected to be that cell's (docs/consumers-guide.md).
 */
enum consumer_fs_id { CONS_FS_EXT4, CONS_FS_XFS, CONS_FS_BTRFS, CONS_FS_COUNT };

struct consumer_fs {
	const char *name;	/* "xfs": qemu/run.sh --fs, qemu/read-image.sh */
	unsigned long magic;	/* statfs()'s f_type, backing_spec()'s fs_magic */
	const char *mount;	/* "/mnt/xfs" */
	const char *dir;	/* "/mnt/xfs/consumers": the cells' files */
	const char *mounted_by;	/* who mounts it there, for a cell not run */
	/* the kernel option it needs, or NULL: every lab kernel has it */
	const char *config;
	/*
	 * What a GUP write fault meets in a mapping of its file, per source
	 * version: the vm_ops its .mmap sets whatever the mapping type and
	 * their page_mkwrite, file:line.
	 */
	const char *vm_ops[CONS_SRC_COUNT];
};

extern const struct consumer_fs consumer_fss[CONS_FS_COUNT];
/* The disk file system @backing's file is on, or NULL (memory, ramfs). */
const struct consumer_fs *consumer_fs_of(enum cell_backing backing);
/* The ext4 cell @c is the twin of (itself when on ext4): 0, or -ENOENT
 * (not on a disk file system, or no such ext4 backing). */
int consumer_ext4_twin(const struct consumer_cell *c, struct consumer_cell *twin);

/*
 * Every cell, in run order (interface, then backing, then state); their
 * index + 1 is the KTAP test number and the console marker's.  @quick:
 * the subset of make check (a few per interface).  Returns the number
 * written to @c; more than @max is a bug (abort).
 */
#define CONS_MAX_CELLS	512
unsigned int consumer_cells(bool quick, struct consumer_cell *c, unsigned int max);
/* "process_vm_writev ext4-shared untouched" */
char *consumer_cell_str(const struct consumer_cell *c, char *buf, size_t size);

/* What reads back, after the call, through one view of the page. */
enum cons_data {
	CONS_DATA_NONE,		/* no such view (anonymous memory has no file) */
	CONS_DATA_NEW,		/* the bytes the interface moved in */
	CONS_DATA_OLD,		/* what the backing held before (zeros for memory) */
	CONS_DATA_OTHER,	/* neither (measured only) */
	CONS_DATA_MISSING,	/* measured: no answer */
	CONS_DATA_COUNT
};
const char *cons_data_name(enum cons_data d);	/* null, "new", "old", ... */
int cons_data_parse(const char *s, enum cons_data *d);

struct consumer_expectation {
	enum consumer_src src;
	struct cell gup;		/* the GUP call as a matrix cell */
	int matrix_index;		/* its matrix index, -1: none (flags not a matrix set) */
	struct expectation policy;	/* the flavour's policy on it */
	bool ok;			/* the interface succeeds */
	long bytes;			/* then: how many bytes it moves */
	int err;			/* else: the errno it returns */
	struct report_exp report;	/* .kind NULL: no kernel report */
	/* what reads back: the mapping, the file (pread), the disk (host) */
	enum cons_data mapping, file, disk;
	enum cons_data read;		/* interfaces that read: the bytes they got */
	char reason[2048];		/* one line, file:line citations */
};

enum consumer_src consumer_src_of(const char *policy);
const char *consumer_src_name(enum consumer_src src);	/* "6.1.192", "6.12.118" */

/* The expectation for @c under @policy: 0, or -EINVAL (unknown policy). */
int consumer_expect(const char *policy, const struct consumer_cell *c,
		    struct consumer_expectation *e);

/*
 * The file a file backing's cell uses (guest path: DIR/N.dat, DIR the
 * file system's consumer_fs.dir or CONS_RAMFS_DIR), or NULL for memory.
 * The uprobe cells' file is their program, DIR/N.uprobe.
 */
char *consumer_cell_file(unsigned int index, const struct consumer_cell *c,
			 char *buf, size_t size);
#define CONS_RAMFS_DIR		"/mnt/ramfs/consumers"
/* the O_DIRECT and READ_FIXED source, on ext4 whatever the cell's backing */
#define CONS_SOURCE_FILE	"/mnt/ext4/consumers-source.dat"
#define CONS_PAGE		4096UL
/* the uprobe cells' program: a copy of gupctl on the cell's file system */
#define CONS_UPROBE_GROUP	"gup_lab"
/* soft RDMA devices gupctl consumers run makes on dummy netdevs */
#define CONS_RXE_DEV		"gl_rxe0"
#define CONS_SIW_DEV		"gl_siw0"
/* the dynamically linked gupctl with the verbs (libibverbs dlopens its providers) */
#define CONS_RDMA_HELPER	"/lab/bin/gupctl-rdma"


/*
 * The bytes of cell @index: NEW (what the interface moves in) and OLD
 * (what a cell's file holds first; memory starts as zeros).  Text, so that
 * a dump is readable: "NEW consumers cell   12\n" repeated: NEW and OLD differ in the first word.
 */
void consumer_pattern(unsigned int index, bool new, char *buf, size_t len);

/* The marker step on /dev/kmsg (lib/kmsg.h, kmsg_mark()). */
#define CONS_MARK_STEP		"consumers"

/* The outcome @e expects in words: "ok" or its errno's name. */
const char *consumer_expected_outcome(const struct consumer_expectation *e);

#endif /* CONSUMERS_H */
