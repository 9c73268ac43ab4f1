// SPDX-License-Identifier: GPL-2.0
/*
 * consumers_run: gupctl consumers run, in the guest.  Each cell is one
 * real kernel interface on fresh memory of one backing and page state
 * (lib/target.c makes it, in a forked child: the "target"), with a
 * marker on /dev/kmsg before it; the call's result and what each view of
 * the page reads back afterwards (the mapping, the file) go to a JSON
 * document that the host judges (consumers/judge.c) once it has read the
 * cells' files back from the scratch images (ext4, xfs, btrfs).  A cell
 * whose file system is not mounted where consumer_fss[] says is not run,
 * with the reason.  Nothing here expects anything.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <liburing.h>
#include <linux/if_xdp.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "consumers/cells.h"
#include "consumers/run.h"
#include "lib/gupdev.h"
#include "lib/jsonfile.h"
#include "lib/kmsg.h"
#include "lib/mounts.h"
#include "lib/util.h"
#include "model/cell.h"

#define CHILD_TIMEOUT_S	30

#ifndef AF_XDP
#define AF_XDP		44
#endif
#ifndef SOL_XDP
#define SOL_XDP		283
#endif
#define TRACEFS		"/sys/kernel/tracing"

int cons_classify(const char *buf, size_t len, unsigned int index,
			 bool file_backed)
{
	char want[CONS_PAGE];

	consumer_pattern(index, true, want, len);
	if (!memcmp(buf, want, len))
		return CONS_DATA_NEW;
	if (file_backed)
		consumer_pattern(index, false, want, len);
	else
		memset(want, 0, len);
	return memcmp(buf, want, len) ? CONS_DATA_OTHER : CONS_DATA_OLD;
}

/* A file of one page of @index's OLD pattern, on disk before the cell. */
static int make_file(const char *path, unsigned int index, char *msg, size_t size)
{
	char buf[CONS_PAGE];
	int fd, ret = 0;

	consumer_pattern(index, false, buf, sizeof(buf));
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write_all(fd, buf, sizeof(buf)) || fsync(fd)) {
		ret = errno ?: EIO;
		snprintf(msg, size, "cannot make %s: %s", path, errno_name(ret));
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The O_DIRECT and READ_FIXED source: one page of NEW, on disk. */
static int make_source(unsigned int index, char *msg, size_t size)
{
	char buf[CONS_PAGE];
	int fd, ret = 0;

	consumer_pattern(index, true, buf, sizeof(buf));
	fd = open(CONS_SOURCE_FILE, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write_all(fd, buf, sizeof(buf)) || fsync(fd)) {
		ret = errno ?: EIO;
		snprintf(msg, size, "cannot make %s: %s", CONS_SOURCE_FILE, errno_name(ret));
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

static void call_result(struct cons_result *r, long ret)
{
	r->done = 1;
	r->bytes = ret;
	r->err = ret < 0 ? errno : 0;
}

/*
 * AF_XDP: register the page as a umem of two 2 KiB chunks.  No NIC, so no
 * packet moves: the registration (its pin) is the measurement; close()
 * unpins (xdp_umem_release()).
 */
static void xdp_umem_call(const struct target *t, struct cons_result *r)
{
	struct xdp_umem_reg mr = {
		.addr = (unsigned long)t->addr, .len = CONS_PAGE,
		.chunk_size = CONS_PAGE / 2, .headroom = 0,
	};
	int fd;

	fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		if (errno == EAFNOSUPPORT || errno == ENOSYS)
			snprintf(r->unsupported, sizeof(r->unsupported),
				 "socket(AF_XDP): %s: this kernel has no CONFIG_XDP_SOCKETS",
				 errno_name(errno));
		else
			snprintf(r->note, sizeof(r->note), "socket(AF_XDP): %s",
				 errno_name(errno));
		return;
	}
	call_result(r, setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &mr, sizeof(mr)));
	r->reg_err = r->bytes < 0 ? r->err : 0;
	if (!r->bytes)
		r->bytes = CONS_PAGE;
	snprintf(r->note, sizeof(r->note), "%s; no NIC: no data moves through the umem",
		 r->bytes < 0 ? "not registered" : "registered");
	close(fd);
}

/* The interfaces the target calls on its own memory. */
static void local_call(enum consumer_iface i, const struct target *t,
		       unsigned int index, struct cons_result *r)
{
	char buf[CONS_PAGE];
	struct iovec iov = { t->addr, CONS_PAGE };
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int fd, p[2], ret;
	long n;

	switch (i) {
	case CONS_ODIRECT_READ:
		fd = open(CONS_SOURCE_FILE, O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (fd < 0) {
			snprintf(r->note, sizeof(r->note), "open(O_DIRECT): %s", errno_name(errno));
			return;
		}
		call_result(r, read(fd, t->addr, CONS_PAGE));
		close(fd);
		return;
	case CONS_VMSPLICE:
		if (pipe2(p, O_CLOEXEC)) {
			snprintf(r->note, sizeof(r->note), "pipe2: %s", errno_name(errno));
			return;
		}
		call_result(r, vmsplice(p[1], &iov, 1, 0));
		if (r->bytes > 0) {
			n = read(p[0], buf, r->bytes);
			r->read = n == (long)CONS_PAGE ?
				  cons_classify(buf, n, index, t->spec.kind == TARGET_FILE) :
				  CONS_DATA_OTHER;
		}
		close(p[0]);
		close(p[1]);
		return;
	case CONS_IOURING:
		ret = io_uring_queue_init(4, &ring, 0);
		if (ret < 0) {
			snprintf(r->note, sizeof(r->note), "io_uring_queue_init: %s",
				 errno_name(ret));
			return;
		}
		ret = io_uring_register_buffers(&ring, &iov, 1);
		r->reg_err = ret < 0 ? -ret : 0;
		if (ret < 0) {
			r->done = 1;
			r->bytes = -1;
			r->err = -ret;
			io_uring_queue_exit(&ring);
			return;
		}
		fd = open(CONS_SOURCE_FILE, O_RDONLY | O_CLOEXEC);
		sqe = io_uring_get_sqe(&ring);
		if (fd < 0 || !sqe) {
			snprintf(r->note, sizeof(r->note), "source or sqe: %s", errno_name(errno));
		} else {
			io_uring_prep_read_fixed(sqe, fd, t->addr, CONS_PAGE, 0, 0);
			ret = io_uring_submit_and_wait(&ring, 1);
			if (ret >= 0)
				ret = io_uring_wait_cqe(&ring, &cqe);
			if (ret < 0) {
				snprintf(r->note, sizeof(r->note), "READ_FIXED not completed: %s",
					 errno_name(ret));
			} else {
				r->done = 1;
				r->bytes = cqe->res < 0 ? -1 : cqe->res;
				r->err = cqe->res < 0 ? -cqe->res : 0;
				io_uring_cqe_seen(&ring, cqe);
			}
		}
		if (fd >= 0)
			close(fd);
		io_uring_unregister_buffers(&ring);
		io_uring_queue_exit(&ring);
		return;
	case CONS_XDP_UMEM:
		xdp_umem_call(t, r);
		return;
	case CONS_RDMA_RXE:
	case CONS_RDMA_SIW:
		consumers_rdma_call(i, t, index, r);
		return;
	default:
		return;
	}
}

/* The interfaces another process (the parent) calls on the target's memory. */
static void remote_call(enum consumer_iface i, pid_t pid, void *addr,
			unsigned int index, bool file_backed, struct cons_result *r)
{
	char buf[CONS_PAGE], path[64];
	struct iovec local = { buf, CONS_PAGE }, remote = { addr, CONS_PAGE };
	long word;
	int fd, status;

	consumer_pattern(index, true, buf, sizeof(buf));
	switch (i) {
	case CONS_PVM_WRITE:
		call_result(r, process_vm_writev(pid, &local, 1, &remote, 1, 0));
		return;
	case CONS_PVM_READ:
		memset(buf, 0xff, sizeof(buf));
		call_result(r, process_vm_readv(pid, &local, 1, &remote, 1, 0));
		if (r->bytes == (long)CONS_PAGE)
			r->read = cons_classify(buf, CONS_PAGE, index, file_backed);
		return;
	case CONS_PROCMEM_WRITE:
		snprintf(path, sizeof(path), "/proc/%d/mem", pid);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			snprintf(r->note, sizeof(r->note), "open %s: %s", path, errno_name(errno));
			return;
		}
		call_result(r, pwrite(fd, buf, CONS_PAGE, (off_t)(unsigned long)addr));
		close(fd);
		return;
	case CONS_PTRACE_POKE:
		if (ptrace(PTRACE_SEIZE, pid, 0, 0) || ptrace(PTRACE_INTERRUPT, pid, 0, 0) ||
		    waitpid(pid, &status, __WALL) != pid) {
			snprintf(r->note, sizeof(r->note), "cannot stop the tracee: %s",
				 errno_name(errno));
			return;
		}
		memcpy(&word, buf, sizeof(word));
		call_result(r, ptrace(PTRACE_POKEDATA, pid, addr, (void *)word));
		if (r->bytes == 0)
			r->bytes = sizeof(word);
		if (ptrace(PTRACE_DETACH, pid, 0, 0))
			snprintf(r->note, sizeof(r->note), "PTRACE_DETACH: %s", errno_name(errno));
		return;
	default:
		return;
	}
}

/*
 * The target: make the memory, hand its address to the parent, call or
 * wait for the call, then read every view back and report.
 */
static void target_child(const struct consumer_cell *c, unsigned int index,
			 const char *path, int ctl, int res)
{
	const struct backing_spec *b = backing_spec(c->backing);
	const struct consumer *k = &consumers[c->iface];
	struct target_spec spec = {
		.kind = b->kind, .path = path, .private = b->private,
		.read_only = b->read_only, .length = CONS_PAGE,
		.prefault = state_prefault(c->state),
	};
	struct cons_result r = { .reg_err = -1 };
	char buf[CONS_PAGE], go = 0;
	struct target t;
	void *addr = NULL;
	int ret;

	alarm(CHILD_TIMEOUT_S);
	ret = target_setup(&t, &spec);
	if (ret) {
		r.setup_err = -ret;
		snprintf(r.setup_msg, sizeof(r.setup_msg), "%.200s", t.err);
		write_all(res, &addr, sizeof(addr));
		write_all(res, &r, sizeof(r));
		_exit(1);
	}
	addr = t.addr;
	if (write_all(res, &addr, sizeof(addr)))
		_exit(1);
	if (k->remote) {
		if (read_all(ctl, &go, 1))
			_exit(1);
	} else {
		local_call(c->iface, &t, index, &r);
	}
	r.mapping = cons_classify(t.addr, k->len, index, b->kind == TARGET_FILE);
	r.file = CONS_DATA_NONE;
	if (t.fd >= 0) {
		/* the file: written back first, so the host can read the disk */
		if (fsync(t.fd))
			snprintf(r.note, sizeof(r.note), "fsync: %s", errno_name(errno));
		r.file = pread(t.fd, buf, k->len, 0) == (ssize_t)k->len ?
			 cons_classify(buf, k->len, index, b->kind == TARGET_FILE) :
			 CONS_DATA_MISSING;
	}
	target_teardown(&t);
	write_all(res, &r, sizeof(r));
	_exit(0);
}

/*
 * The RDMA cells' child becomes CONS_RDMA_HELPER (gupctl linked with
 * libibverbs, which dlopens its providers: no static build), which runs
 * target_child() on fds 3 and 4.  Never returns.
 */
static void exec_rdma_helper(const struct consumer_cell *c, unsigned int index,
			     const char *path, int ctl, int res)
{
	struct cons_result r = { .reg_err = -1 };
	char a[4][16];
	void *addr = NULL;
	int hc, hr;

	snprintf(a[0], sizeof(a[0]), "%d", c->iface);
	snprintf(a[1], sizeof(a[1]), "%d", c->backing);
	snprintf(a[2], sizeof(a[2]), "%d", c->state);
	snprintf(a[3], sizeof(a[3]), "%u", index);
	/* above 2 first, so that dup2() always clears FD_CLOEXEC */
	hc = fcntl(ctl, F_DUPFD, 10);
	hr = fcntl(res, F_DUPFD, 10);
	if (hc >= 0 && hr >= 0 && dup2(hc, 3) == 3 && dup2(hr, 4) == 4)
		execl(CONS_RDMA_HELPER, "gupctl-rdma", "consumers", "cell", a[0], a[1],
		      a[2], a[3], path ?: "-", (char *)NULL);
	snprintf(r.unsupported, sizeof(r.unsupported),
		 "cannot run %s: %s (the root image's libibverbs1 and ibverbs-providers, and the host's libibverbs-dev, build and run it)",
		 CONS_RDMA_HELPER, errno_name(errno));
	write_all(res, &addr, sizeof(addr));
	write_all(res, &r, sizeof(r));
	_exit(1);
}

int consumers_cell(int argc, char **argv)
{
	struct consumer_cell c;
	unsigned int index;

	if (argc != 6) {
		fprintf(stderr, "usage: gupctl consumers cell IFACE BACKING STATE INDEX FILE|-\n");
		return GUPCTL_EXIT_USAGE;
	}
	c.iface = atoi(argv[1]);
	c.backing = atoi(argv[2]);
	c.state = atoi(argv[3]);
	index = strtoul(argv[4], NULL, 10);
	if (c.iface >= CONS_COUNT || c.backing >= BACKING_COUNT || c.state >= STATE_COUNT) {
		fprintf(stderr, "gupctl consumers cell: no such cell\n");
		return GUPCTL_EXIT_USAGE;
	}
	target_child(&c, index, strcmp(argv[5], "-") ? argv[5] : NULL, 3, 4);
	return GUPCTL_EXIT_USAGE;	/* not reached: target_child() exits */
}

/* ---- uprobes: a copy of this program on ext4, probed while it runs ---- */

/*
 * The probe site and the SDT semaphore, each alone in its page, so that
 * the cell's page state is the one the target child gives it.  The
 * semaphore is initialised data (.data, file backed), never .bss.
 */
__attribute__((noinline, used, aligned(4096), section(".text.gup_lab_probe")))
int cons_probe_site(int x)
{
	return x * 3 + 1;
}

struct cons_probe_sem {
	volatile unsigned short sem;
	char pad[4096 - sizeof(unsigned short)];
};

__attribute__((used, aligned(4096), section(".data.gup_lab_sem")))
struct cons_probe_sem cons_probe_sem = { 0, { 1 } };

/* What the probed child sees after the probe is enabled. */
struct probe_report {
	unsigned short sem;	/* its semaphore */
	unsigned char text0;	/* the probe site's first byte */
	int site;		/* cons_probe_site(1) */
};

static bool is_uprobe(enum consumer_iface i)
{
	return i == CONS_UPROBE_REFCTR || i == CONS_UPROBE;
}

int consumers_probe_target(int argc, char **argv)
{
	volatile unsigned char *site = (volatile unsigned char *)cons_probe_site;
	struct probe_report rep = { 0 };
	unsigned int s;
	char go;

	if (argc != 3)
		return GUPCTL_EXIT_USAGE;
	for (s = 0; s < STATE_COUNT && strcmp(argv[2], state_name(s)); s++)
		;
	/* argv[1]: the interface, whose page the state is about */
	if (!strcmp(argv[1], consumers[CONS_UPROBE_REFCTR].name)) {
		if (s == STATE_READ)
			rep.sem = cons_probe_sem.sem;
		else if (s == STATE_WRITE)
			cons_probe_sem.sem = 0;
	} else if (s == STATE_READ) {
		rep.text0 = *site;
	}
	if (write_all(1, "r", 1) || read_all(0, &go, 1))
		return GUPCTL_EXIT_USAGE;
	rep.sem = cons_probe_sem.sem;
	rep.text0 = *site;
	rep.site = cons_probe_site(1);
	return write_all(1, &rep, sizeof(rep)) ? GUPCTL_EXIT_USAGE : GUPCTL_EXIT_OK;
}

/* The file offset of @addr in this program's mapping: 0, or -1. */
static int self_file_offset(const void *addr, unsigned long *off)
{
	unsigned long a = (unsigned long)addr, start, end, pgoff;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &pgoff) == 3 &&
		    a >= start && a < end) {
			*off = a - start + pgoff;
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

static int copy_self(const char *path)
{
	char buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (in < 0 || out < 0)
		ret = -errno;
	while (!ret && (n = read(in, buf, sizeof(buf))) != 0)
		if (n < 0 || write_all(out, buf, n))
			ret = -(errno ?: EIO);
	if (!ret && fsync(out))
		ret = -errno;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ret;
}

/* Write @text to a tracefs file: 0 or -errno. */
static int tracefs_write(const char *file, const char *text)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", TRACEFS, file);
	/* O_APPEND, never O_TRUNC: truncating uprobe_events drops every probe */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		ret = -(errno ?: EIO);
	close(fd);
	return ret;
}

/* tracefs mounted with uprobe_events: NULL, or why not. */
static const char *uprobe_events_missing(void)
{
	if (!access(TRACEFS "/uprobe_events", W_OK))
		return NULL;
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL) && errno != EBUSY)
		return errno == ENODEV || errno == ENOENT ?
		       "no tracefs: this kernel has no CONFIG_UPROBE_EVENTS (nor any tracer)" :
		       "tracefs cannot be mounted";
	return access(TRACEFS "/uprobe_events", W_OK) ?
	       "no " TRACEFS "/uprobe_events: this kernel has no CONFIG_UPROBE_EVENTS" : NULL;
}

static long uprobe_hits(const char *event)
{
	char line[512], name[128];
	unsigned long hits;
	long ret = -1;
	FILE *f = fopen(TRACEFS "/uprobe_profile", "re");

	while (f && ret < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %127s %lu", name, &hits) == 2 &&
		    !strcmp(name, event))
			ret = hits;
	if (f)
		fclose(f);
	return ret;
}

/*
 * A uprobe cell: a copy of this program at @prog runs `consumers
 * probe-target`; the probe is defined on it and enabled (the interface's
 * call: for the reference counter, __update_ref_ctr() writes the child's
 * semaphore through GUP), then the child reports its semaphore and its
 * probe site, and the file is read back.
 */
static void uprobe_cell(const struct consumer_cell *c, unsigned int index,
			const char *prog, struct cons_result *r)
{
	const unsigned char orig = *(volatile unsigned char *)cons_probe_site;
	bool refctr = c->iface == CONS_UPROBE_REFCTR;
	unsigned long site_off, sem_off;
	char def[512], event[32], enable[96], go = 'g', ready;
	struct probe_report rep;
	int to[2], from[2], fd, ret, status;
	const char *why;
	unsigned short fsem = 0xffff;
	unsigned char ftext = 0;
	long hits;
	pid_t pid;

	why = uprobe_events_missing();
	if (why) {
		snprintf(r->unsupported, sizeof(r->unsupported), "%s", why);
		return;
	}
	if (self_file_offset(cons_probe_site, &site_off) ||
	    self_file_offset((const void *)&cons_probe_sem, &sem_off)) {
		r->setup_err = ENOENT;
		snprintf(r->setup_msg, sizeof(r->setup_msg), "no file offset for the probe site or the semaphore in /proc/self/maps");
		return;
	}
	ret = copy_self(prog);
	if (ret) {
		r->setup_err = -ret;
		snprintf(r->setup_msg, sizeof(r->setup_msg), "cannot copy /proc/self/exe to %s: %s",
			 prog, errno_name(-ret));
		return;
	}
	if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC)) {
		r->setup_err = errno;
		snprintf(r->setup_msg, sizeof(r->setup_msg), "pipe2: %s", errno_name(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (!pid) {
		alarm(CHILD_TIMEOUT_S);
		if (dup2(to[0], 0) == 0 && dup2(from[1], 1) == 1)
			execl(prog, "gupctl", "consumers", "probe-target",
			      consumers[c->iface].name, state_name(c->state), (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	if (pid < 0 || read_all(from[0], &ready, 1)) {
		r->setup_err = ECHILD;
		snprintf(r->setup_msg, sizeof(r->setup_msg), "%s did not start", prog);
		goto out;
	}
	snprintf(event, sizeof(event), "gl_c%u", index + 1);
	if (refctr)
		snprintf(def, sizeof(def), "p:%s/%s %s:0x%lx(0x%lx)\n", CONS_UPROBE_GROUP,
			 event, prog, site_off, sem_off);
	else
		snprintf(def, sizeof(def), "p:%s/%s %s:0x%lx\n", CONS_UPROBE_GROUP,
			 event, prog, site_off);
	ret = tracefs_write("uprobe_events", def);
	if (ret) {
		r->setup_err = -ret;
		snprintf(r->setup_msg, sizeof(r->setup_msg), "uprobe_events '%.150s': %s",
			 def, errno_name(-ret));
		goto out;
	}
	/* the call: registering the uprobe installs it in the running child */
	snprintf(enable, sizeof(enable), "events/%s/%s/enable", CONS_UPROBE_GROUP, event);
	ret = tracefs_write(enable, "1");
	r->done = 1;
	r->bytes = ret ? -1 : (long)consumers[c->iface].len;
	r->err = -ret;
	if (write_all(to[1], &go, 1) || read_all(from[0], &rep, sizeof(rep))) {
		snprintf(r->note, sizeof(r->note), "the probed child did not report");
		r->mapping = CONS_DATA_MISSING;
	} else if (refctr) {
		r->mapping = rep.sem == 1 ? CONS_DATA_NEW : rep.sem == 0 ?
			     CONS_DATA_OLD : CONS_DATA_OTHER;
	} else {
		r->mapping = rep.text0 == 0xcc ? CONS_DATA_NEW : rep.text0 == orig ?
			     CONS_DATA_OLD : CONS_DATA_OTHER;
	}
	hits = uprobe_hits(event);
	if (!r->note[0])
		snprintf(r->note, sizeof(r->note), "semaphore %u, probe site byte 0x%02x (0x%02x unprobed), %ld hit(s), the site returned %d (%s)",
			 rep.sem, rep.text0, orig, hits, rep.site,
			 rep.site == 4 ? "right" : "WRONG");
	if (!ret)
		tracefs_write(enable, "0");
	snprintf(def, sizeof(def), "-:%s/%s\n", CONS_UPROBE_GROUP, event);
	tracefs_write("uprobe_events", def);
	/* the program file: a MAP_PRIVATE write must never reach it */
	fd = open(prog, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !fsync(fd) &&
	    (refctr ? pread(fd, &fsem, sizeof(fsem), sem_off) == sizeof(fsem) :
		      pread(fd, &ftext, 1, site_off) == 1))
		r->file = refctr ? (fsem == 0 ? CONS_DATA_OLD : fsem == 1 ?
				    CONS_DATA_NEW : CONS_DATA_OTHER) :
			  (ftext == orig ? CONS_DATA_OLD : ftext == 0xcc ?
			   CONS_DATA_NEW : CONS_DATA_OTHER);
	else
		r->file = CONS_DATA_MISSING;
	if (fd >= 0)
		close(fd);
out:
	close(to[1]);
	close(from[0]);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
}

/* The soft RDMA devices, once per run, on dummy netdevs (iproute2). */
static void rdma_setup(void)
{
	static const char * const cmds[] = {
		"ip link add gl_dummy0 type dummy && ip link set gl_dummy0 up && ip addr add 10.99.0.1/24 dev gl_dummy0",
		"ip link add gl_dummy1 type dummy && ip link set gl_dummy1 up && ip addr add 10.99.1.1/24 dev gl_dummy1",
		"rdma link add " CONS_RXE_DEV " type rxe netdev gl_dummy0",
		"rdma link add " CONS_SIW_DEV " type siw netdev gl_dummy1",
	};
	unsigned int i;
	char cmd[512];
	int ret;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(cmd, sizeof(cmd), "(%s) 2>&1 | sed 's/^/#   /'", cmds[i]);
		printf("# rdma setup: %s\n", cmds[i]);
		fflush(stdout);
		ret = system(cmd);
		if (ret)
			printf("#   status %d\n", ret);
	}
}

/* One cell: 0, with @r filled (a setup failure is a result too). */
static int run_cell(const struct consumer_cell *c, unsigned int index,
		    const char *path, struct cons_result *r)
{
	const struct consumer *k = &consumers[c->iface];
	int ctl[2], res[2], status;
	struct cons_result call = { 0 };
	void *addr = NULL;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->reg_err = -1;
	if (is_uprobe(c->iface)) {
		uprobe_cell(c, index, path, r);
		return 0;
	}
	if (pipe2(ctl, O_CLOEXEC) || pipe2(res, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		close(ctl[1]);
		close(res[0]);
		if (!consumers_have_verbs &&
		    (c->iface == CONS_RDMA_RXE || c->iface == CONS_RDMA_SIW))
			exec_rdma_helper(c, index, path, ctl[0], res[1]);
		target_child(c, index, path, ctl[0], res[1]);
	}
	close(ctl[0]);
	close(res[1]);
	if (read_all(res[0], &addr, sizeof(addr))) {
		snprintf(r->setup_msg, sizeof(r->setup_msg), "the target process died before its memory was ready");
		r->setup_err = EIO;
		goto out;
	}
	if (addr && k->remote) {
		remote_call(c->iface, pid, addr, index,
			    backing_spec(c->backing)->kind == TARGET_FILE, &call);
		write_all(ctl[1], "g", 1);
	}
	if (read_all(res[0], r, sizeof(*r))) {
		r->setup_err = EIO;
		snprintf(r->setup_msg, sizeof(r->setup_msg), "the target process died before it reported");
		goto out;
	}
	if (k->remote && !r->setup_err) {
		r->done = call.done;
		r->bytes = call.bytes;
		r->err = call.err;
		if (c->iface == CONS_PVM_READ)
			r->read = call.read;
		if (call.note[0])
			snprintf(r->note, sizeof(r->note), "%s", call.note);
	}
out:
	close(ctl[1]);
	close(res[0]);
	waitpid(pid, &status, 0);
	return 0;
}

static json_t *data_json(int d)
{
	return d == CONS_DATA_NONE ? json_null() : json_string(cons_data_name(d));
}

static json_t *cell_json(const struct consumer_cell *c, unsigned int index,
			 const char *path, const struct cons_result *r)
{
	const char *outcome = r->setup_err || r->unsupported[0] || !r->done ? "not-run" :
			      r->bytes >= 0 ? "ok" : errno_name(r->err);

	return json_pack("{s:i, s:s, s:s, s:s, s:s?, s:s?, s:s?, s:{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:s?}}",
			 "index", index + 1,
			 "interface", consumers[c->iface].name,
			 "backing", backing_name(c->backing),
			 "state", state_name(c->state),
			 "file", path,
			 "setup_error", r->setup_err ? r->setup_msg : NULL,
			 "unsupported", r->unsupported[0] ? r->unsupported : NULL,
			 "measured",
			 "outcome", outcome,
			 "bytes", r->done && r->bytes >= 0 ? json_integer(r->bytes) : json_null(),
			 "errno", r->done && r->bytes < 0 ? json_string(errno_name(r->err)) : json_null(),
			 "register_errno", r->reg_err < 0 ? json_null() :
			 r->reg_err ? json_string(errno_name(r->reg_err)) : json_string("none"),
			 "mapping", r->setup_err ? json_null() : data_json(r->mapping),
			 "file", r->setup_err ? json_null() : data_json(r->file),
			 "read", data_json(r->read),
			 "note", r->note[0] ? r->note : NULL);
}

static void clear_warn_once(void)
{
	int fd = open(MATRIX_CLEAR_WARN_ONCE, O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			perror(MATRIX_CLEAR_WARN_ONCE);
		close(fd);
	}
}

/*
 * Is @fs mounted at its place, with its cells' directory made?  0, or -1
 * with why not in @why: its cells are not run, never run elsewhere (the
 * directory of an unmounted file system is the root image's).
 */
static int fs_ready(const struct consumer_fs *fs, char *why, size_t size)
{
	size_t n;

	if (lab_fs_ready(fs->mount, fs->name, fs->magic, why, size)) {
		n = strlen(why);
		snprintf(why + n, size - n, "; %s", fs->mounted_by);
		return -1;
	}
	if (!mkdir(fs->dir, 0755) || errno == EEXIST)
		return 0;
	snprintf(why, size, "cannot make %s: %s", fs->dir, errno_name(errno));
	return -1;
}

int consumers_run(const struct consumers_run_opts *o)
{
	struct consumer_cell cells[CONS_MAX_CELLS];
	unsigned int n, i, failed = 0;
	char path[128], name[160], msg[256];
	struct cons_result r;
	json_t *doc, *arr;
	struct utsname u;
	const char *file;
	bool rdma_ready = false;
	unsigned int unsupported = 0, k;
	char fs_why[CONS_FS_COUNT][sizeof(r.unsupported)];
	FILE *f;
	int ret;

	n = consumer_cells(o->quick, cells, CONS_MAX_CELLS);
	if (mkdir(CONS_RAMFS_DIR, 0755) && errno != EEXIST) {
		fprintf(stderr, "gupctl consumers run: cannot make %s: %s\n",
			CONS_RAMFS_DIR, errno_name(errno));
		return GUPCTL_EXIT_USAGE;
	}
	for (k = 0; k < CONS_FS_COUNT; k++) {
		fs_why[k][0] = '\0';
		if (fs_ready(&consumer_fss[k], fs_why[k], sizeof(fs_why[k])))
			printf("# %s: its cells are not run: %s\n", consumer_fss[k].name, fs_why[k]);
	}
	arr = json_array();
	printf("# consumers: %u cells%s\n", n, o->quick ? " (quick)" : "");
	for (i = 0; i < n; i++) {
		const struct consumer_cell *c = &cells[i];
		const struct consumer_fs *fs = consumer_fs_of(c->backing);
		const char *fs_missing = fs && fs_why[fs - consumer_fss][0] ?
					 fs_why[fs - consumer_fss] : NULL;

		/* a uprobe cell's file is its program, N.uprobe, made by the cell */
		file = consumer_cell_file(i, c, path, sizeof(path));
		if ((c->iface == CONS_RDMA_RXE || c->iface == CONS_RDMA_SIW) && !rdma_ready) {
			rdma_setup();
			rdma_ready = true;
		}
		memset(&r, 0, sizeof(r));
		ret = 0;
		if (fs_missing)
			snprintf(r.unsupported, sizeof(r.unsupported), "%s", fs_missing);
		else if (file && !is_uprobe(c->iface))
			ret = make_file(file, i, msg, sizeof(msg));
		if (!ret && !fs_missing &&
		    (c->iface == CONS_ODIRECT_READ || c->iface == CONS_IOURING))
			ret = make_source(i, msg, sizeof(msg));
		clear_warn_once();
		kmsg_mark(CONS_MARK_STEP, i);
		if (fs_missing) {
			/* not run: recorded as the kernel lacking an interface is */
		} else if (ret) {
			r.setup_err = ret;
			snprintf(r.setup_msg, sizeof(r.setup_msg), "%.200s", msg);
		} else {
			ret = run_cell(c, i, file, &r);
			if (ret) {
				r.setup_err = -ret;
				snprintf(r.setup_msg, sizeof(r.setup_msg), "fork/pipe: %s",
					 errno_name(ret));
			}
		}
		failed += !!r.setup_err;
		unsupported += !r.setup_err && r.unsupported[0];
		printf("# cell %u %s: %s%s%s, mapping %s, file %s%s%s\n", i + 1,
		       consumer_cell_str(c, name, sizeof(name)),
		       r.setup_err || r.unsupported[0] ? "not run: " : !r.done ? "no call: " :
		       r.bytes >= 0 ? "ok " : "",
		       r.setup_err ? r.setup_msg : r.unsupported[0] ? r.unsupported :
		       !r.done ? r.note :
		       r.bytes >= 0 ? "" : errno_name(r.err),
		       "", cons_data_name(r.mapping), cons_data_name(r.file),
		       r.note[0] && r.done ? "; " : "", r.done ? r.note : "");
		json_array_append_new(arr, cell_json(c, i, file, &r));
	}
	kmsg_mark(CONS_MARK_STEP, KMSG_MARK_END);
	uname(&u);
	doc = json_pack("{s:s, s:s?, s:s?, s:s, s:b, s:o}", "job", "consumers",
			"flavour", o->flavour, "policy", o->policy,
			"kernel_release", u.release, "quick", o->quick, "cells", arr);
	if (o->json) {
		f = jsonfile_open(o->json, "consumers run");
		if (!f || jsonfile_dump(doc, f, o->json, "consumers run"))
			return GUPCTL_EXIT_USAGE;
	}
	json_decref(doc);
	printf("# consumers: %u cells, %u not run (set-up failed), %u not run (the kernel lacks the interface)\n",
	       n, failed, unsupported);
	return failed ? GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK;
}
