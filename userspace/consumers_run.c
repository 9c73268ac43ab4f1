// SPDX-License-Identifier: GPL-2.0
/*
 * consumers_run: gupctl consumers run, in the guest.  Each cell is one
 * real kernel interface on fresh memory of one backing and page state
 * (userspace/target.c makes it, in a forked child: the "target"), with a
 * marker on /dev/kmsg before it; the call's result and what each view of
 * the page reads back afterwards (the mapping, the file) go to a JSON
 * document that the host judges (consumers_judge.c) once it has read the
 * ext4 files back from the scratch image.  Nothing here expects anything.
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
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "consumers.h"
#include "consumers_run.h"
#include "gupctl.h"
#include "matrix_json.h"

#define CHILD_TIMEOUT_S	30

/* What the target child sends back (a pipe, fixed size). */
struct cons_result {
	int setup_err;		/* positive errno: the memory could not be made */
	char setup_msg[240];
	int done;		/* the call was made */
	long bytes;		/* >= 0: its result; < 0: failed with errno err */
	int err;
	int reg_err;		/* io_uring: the registration's errno (0: registered), -1: n/a */
	int mapping, file, read;	/* enum cons_data */
	char note[160];
};

static int cons_classify(const char *buf, size_t len, unsigned int index,
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

/* All @len bytes through read(2) or write(2) (@out), across EINTR: 0 or -1. */
static int io_all(int fd, void *buf, size_t len, bool out)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = out ? write(fd, p, len) : read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	return io_all(fd, (void *)buf, len, true);
}

static int read_all(int fd, void *buf, size_t len)
{
	return io_all(fd, buf, len, false);
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
	char buf[CONS_PAGE], go;
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
	if (pipe2(ctl, O_CLOEXEC) || pipe2(res, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		close(ctl[1]);
		close(res[0]);
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
	const char *outcome = r->setup_err || !r->done ? "not-run" :
			      r->bytes >= 0 ? "ok" : errno_name(r->err);

	return json_pack("{s:i, s:s, s:s, s:s, s:s?, s:s?, s:{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:s?}}",
			 "index", index + 1,
			 "interface", consumers[c->iface].name,
			 "backing", backing_name(c->backing),
			 "state", state_name(c->state),
			 "file", path,
			 "setup_error", r->setup_err ? r->setup_msg : NULL,
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

int consumers_run(const struct consumers_run_opts *o)
{
	struct consumer_cell cells[CONS_MAX_CELLS];
	unsigned int n, i, failed = 0;
	char path[128], name[160], msg[256];
	struct cons_result r;
	json_t *doc, *arr;
	struct utsname u;
	const char *file;
	FILE *f;
	int ret;

	n = consumer_cells(o->quick, cells, CONS_MAX_CELLS);
	if ((mkdir(CONS_EXT4_DIR, 0755) && errno != EEXIST) ||
	    (mkdir(CONS_RAMFS_DIR, 0755) && errno != EEXIST)) {
		fprintf(stderr, "gupctl consumers run: cannot make %s or %s: %s\n",
			CONS_EXT4_DIR, CONS_RAMFS_DIR, errno_name(errno));
		return GUPCTL_EXIT_USAGE;
	}
	arr = json_array();
	printf("# consumers: %u cells%s\n", n, o->quick ? " (quick)" : "");
	for (i = 0; i < n; i++) {
		const struct consumer_cell *c = &cells[i];

		file = consumer_cell_file(i, c->backing, path, sizeof(path));
		memset(&r, 0, sizeof(r));
		ret = file ? make_file(file, i, msg, sizeof(msg)) : 0;
		if (!ret && !consumers[c->iface].remote && c->iface != CONS_VMSPLICE)
			ret = make_source(i, msg, sizeof(msg));
		clear_warn_once();
		matrix_mark(CONS_MARK_STEP, i);
		if (ret) {
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
		printf("# cell %u %s: %s%s%s, mapping %s, file %s%s%s\n", i + 1,
		       consumer_cell_str(c, name, sizeof(name)),
		       r.setup_err ? "not run: " : !r.done ? "no call: " :
		       r.bytes >= 0 ? "ok " : "",
		       r.setup_err ? r.setup_msg : !r.done ? r.note :
		       r.bytes >= 0 ? "" : errno_name(r.err),
		       "", cons_data_name(r.mapping), cons_data_name(r.file),
		       r.note[0] && r.done ? "; " : "", r.done ? r.note : "");
		json_array_append_new(arr, cell_json(c, i, file, &r));
	}
	matrix_mark(CONS_MARK_STEP, MATRIX_MARK_NONE);
	uname(&u);
	doc = json_pack("{s:s, s:s?, s:s?, s:s, s:b, s:o}", "job", "consumers",
			"flavour", o->flavour, "policy", o->policy,
			"kernel_release", u.release, "quick", o->quick, "cells", arr);
	if (o->json) {
		f = matrix_json_open(o->json, "consumers run");
		if (!f || matrix_json_dump(doc, f, o->json, "consumers run"))
			return GUPCTL_EXIT_USAGE;
	}
	json_decref(doc);
	printf("# consumers: %u cells, %u not run\n", n, failed);
	return failed ? GUPCTL_EXIT_REFUSED : GUPCTL_EXIT_OK;
}
