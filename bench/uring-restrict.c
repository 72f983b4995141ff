/* SPDX-License-Identifier: MIT */
/*
 * Description: LD_PRELOAD library that makes an unmodified program's
 *		io_uring rings restricted. Each ring the program sets up
 *		through libc's syscall() (fio does), the io_uring_setup()
 *		symbol, or liburing's io_uring_queue_init() and
 *		io_uring_queue_init_params() (QEMU's and ringbench's, from
 *		liburing.so) is set up with IORING_SETUP_R_DISABLED, given its
 *		section of the policy (BPF filters with
 *		IORING_REGISTER_BPF_FILTER, then IORING_REGISTER_RESTRICTIONS)
 *		and enabled with IORING_REGISTER_ENABLE_RINGS; the program
 *		gets the enabled, restricted ring back.
 *
 * Use it through bench/uring-restrict, which validates the policy first.
 * The policy is read from URING_RESTRICT (or the file URING_RESTRICT_FILE)
 * when the library loads; a bad one stops the program before its main()
 * runs, with the reason. The grammar is in uring-policy.c.
 * URING_RESTRICT_ALLOW_ONLY=1 applies the allow-lists and leaves out the
 * filters (kernels without IORING_REGISTER_BPF_FILTER).
 *
 * Rings are numbered per process, from 1, in the order they are set up; a
 * forked child starts again from 1, as does an exec.
 *
 * What it cannot reach: rings set up by inline system calls outside
 * liburing's exported calls (a statically linked liburing 2.2 or later
 * on x86 never calls libc's syscall()); tracing/policy-record.sh reports
 * rings it recorded that the wrapper did not restrict. A ring the
 * program asked to start disabled gets the policy but stays disabled:
 * enabling it remains the program's job.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/syscall.h>
/* the patched branch's uapi (build/uapi) before liburing's older copy */
#include <linux/io_uring.h>
#include <linux/io_uring/bpf_filter.h>
#include <liburing.h>
#include "uring-policy.h"

static struct policy policy;
static int verbose, allow_only;
static long (*real_syscall)(long, ...);
/* the rings this process has set up, uring-restrict's ring numbers;
 * a forked child starts again (pthread_atfork) */
static unsigned int rings_set_up;
/* inside our liburing interposers: their io_uring_setup() is theirs */
static __thread int in_init;

/* Lazily too: other libraries' constructors may call syscall() first. */
static void resolve(void)
{
	if (real_syscall)
		return;
	real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (!real_syscall) {
		fprintf(stderr, "uring-restrict: cannot find libc's syscall(): %s\n", dlerror());
		_exit(2);
	}
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f) {
		fprintf(stderr, "uring-restrict: cannot read the policy %s: %s\n",
			path, strerror(errno));
		_exit(2);
	}
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = strdup("");
	}
	fclose(f);
	return buf;
}

static void child_starts_again(void)
{
	rings_set_up = 0;
}

__attribute__((constructor)) static void uring_restrict_init(void)
{
	const char *text = getenv("URING_RESTRICT");
	const char *file = getenv("URING_RESTRICT_FILE");
	char err[512];
	char *buf = NULL;

	resolve();
	if (file && *file) {
		buf = read_file(file);
		text = buf;
	} else if (!text) {
		fprintf(stderr, "uring-restrict: URING_RESTRICT is not set: no policy to apply\n");
		_exit(2);
	}
	verbose = getenv("URING_RESTRICT_VERBOSE") != NULL;
	allow_only = getenv("URING_RESTRICT_ALLOW_ONLY") != NULL;
	if (policy_parse(&policy, text, file && *file ? file : "policy", err, sizeof(err))) {
		fprintf(stderr, "uring-restrict: bad policy: %s\n", err);
		_exit(2);
	}
	free(buf);
	pthread_atfork(NULL, NULL, child_starts_again);
}

static long reg(int fd, unsigned int op, const void *arg, unsigned int nr)
{
	long ret = real_syscall(__NR_io_uring_register, fd, op, arg, nr);

	return ret < 0 ? -errno : ret;
}

/* the section's filters: one program per opcode with sqe= entries, the
 * last added with DENY_REST, which denies every opcode without a filter */
static long add_filters(int fd, const struct policy_ring *r, unsigned int *nr)
{
	unsigned char ops[256];
	struct sock_filter *prog;
	unsigned int n;
	long ret = 0;

	/* threads may set rings up at once: a program each */
	prog = malloc(POLICY_MAX_PROG * sizeof(*prog));
	if (!prog)
		return -ENOMEM;

	n = policy_filter_ops(r, ops);
	for (*nr = 0; *nr < n; (*nr)++) {
		struct io_uring_bpf b = {
			.cmd_type = IO_URING_BPF_CMD_FILTER,
			.filter = {
				.opcode = ops[*nr],
				.flags = *nr == n - 1 ? IO_URING_BPF_FILTER_DENY_REST : 0,
				.filter_len = policy_prog(r, ops[*nr], prog),
				.pdu_size = policy_pdu_size(ops[*nr]),
				.filter_ptr = (uintptr_t)prog,
			},
		};

		ret = reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1);
		if (ret < 0)
			break;
	}
	free(prog);
	return ret < 0 ? ret : 0;
}

/*
 * Give the disabled ring @fd its section of the policy and, unless the
 * program asked for a disabled ring, enable it: 0 or -errno, said why.
 */
static int restrict_ring(int fd, int wanted_disabled)
{
	static const struct io_uring_restriction nothing = {
		.opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED,
	};
	const struct policy_ring *r;
	unsigned int nr, filters = 0;
	long ret = 0;

	nr = __atomic_add_fetch(&rings_set_up, 1, __ATOMIC_RELAXED);
	r = policy_ring(&policy, nr);
	if (!r)
		fprintf(stderr, "uring-restrict: ring %u of pid %d has no section in the policy: restricted to nothing\n",
			nr, getpid());
	if (r && r->nr_tuples && !allow_only) {
		ret = add_filters(fd, r, &filters);
		if (ret == -EINVAL && !filters)
			fprintf(stderr, "uring-restrict: the kernel refused ring %u's first filter (EINVAL): it has no IORING_REGISTER_BPF_FILTER (uring-restrict -a: allow-lists only), or it refuses the program\n",
				nr);
		else if (ret < 0)
			fprintf(stderr, "uring-restrict: the kernel refused ring %u's filters: %s\n",
				nr, strerror(-ret));
	}
	/* every section has an allow-list (policy_parse() makes one for a
	 * section of filters alone); an empty section allows nothing */
	if (!ret)
		ret = r && r->nr_res ? reg(fd, IORING_REGISTER_RESTRICTIONS, r->res, r->nr_res) :
			reg(fd, IORING_REGISTER_RESTRICTIONS, &nothing, 1);
	if (!ret && !wanted_disabled)
		ret = reg(fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
	if (ret < 0) {
		fprintf(stderr, "uring-restrict: the kernel refused ring %u's policy: %s\n",
			nr, strerror(-ret));
		return ret;
	}
	if (verbose)
		/* bench/fio-matrix.sh counts these lines: 'ring fd N restricted (' */
		fprintf(stderr, "uring-restrict: ring fd %d restricted (%u entries, %u filters; pid %d's ring %u)%s\n",
			fd, r ? r->nr_res : 1, filters, getpid(), nr,
			wanted_disabled ? ", left disabled" : "");
	return 0;
}

/*
 * Programs retry io_uring_setup() without flags the kernel refuses (fio
 * drops DEFER_TASKRUN and friends on EINVAL): only a plain ring refused
 * says that the kernel has no IORING_SETUP_R_DISABLED. Not a probe ring
 * of our own: a recorder counts every ring a program sets up.
 */
static void setup_failed(int err, unsigned int flags)
{
	if (err == EINVAL && flags == IORING_SETUP_R_DISABLED)
		fprintf(stderr, "uring-restrict: the kernel refused a plain ring with IORING_SETUP_R_DISABLED: it cannot restrict rings\n");
}

static long restricted_setup(unsigned int entries, struct io_uring_params *p)
{
	int wanted_disabled = p && (p->flags & IORING_SETUP_R_DISABLED);
	long fd;
	int err;

	resolve();
	if (!p) {
		errno = EFAULT;
		return -1;
	}
	if (in_init)
		return real_syscall(__NR_io_uring_setup, entries, p);
	p->flags |= IORING_SETUP_R_DISABLED;
	fd = real_syscall(__NR_io_uring_setup, entries, p);
	if (fd < 0) {
		err = errno;
		setup_failed(err, p->flags);
		if (!wanted_disabled)
			p->flags &= ~IORING_SETUP_R_DISABLED;
		errno = err;
		return -1;
	}
	err = restrict_ring(fd, wanted_disabled);
	if (!wanted_disabled)
		p->flags &= ~IORING_SETUP_R_DISABLED;
	if (err) {
		close(fd);
		errno = -err;
		return -1;
	}
	return fd;
}

long syscall(long nr, ...)
{
	long a[6];
	va_list ap;
	int i;

	/* x86-64 passes variadic longs in the argument registers: reading
	 * six, as libc's own syscall() does, is safe whatever was passed. */
	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	resolve();
	if (nr == __NR_io_uring_setup)
		return restricted_setup(a[0], (struct io_uring_params *)a[1]);
	return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int io_uring_setup(unsigned int entries, struct io_uring_params *p)
{
	long fd = restricted_setup(entries, p);

	return fd < 0 ? -errno : fd;
}

/* liburing's: the ring is mapped by liburing, then restricted through its fd */
int io_uring_queue_init_params(unsigned int entries, struct io_uring *ring,
			       struct io_uring_params *p)
{
	static int (*real_init)(unsigned int, struct io_uring *, struct io_uring_params *);
	static void (*real_exit)(struct io_uring *);
	int wanted_disabled = p->flags & IORING_SETUP_R_DISABLED, ret;

	resolve();
	if (!real_init) {
		real_init = dlsym(RTLD_NEXT, "io_uring_queue_init_params");
		real_exit = dlsym(RTLD_NEXT, "io_uring_queue_exit");
		if (!real_init || !real_exit) {
			fprintf(stderr, "uring-restrict: cannot find liburing's io_uring_queue_init_params(): %s\n",
				dlerror());
			_exit(2);
		}
	}
	if (in_init)
		return real_init(entries, ring, p);
	p->flags |= IORING_SETUP_R_DISABLED;
	in_init++;
	ret = real_init(entries, ring, p);
	in_init--;
	if (ret < 0) {
		setup_failed(-ret, p->flags);
	} else {
		ret = restrict_ring(ring->ring_fd, wanted_disabled);
		if (ret)
			real_exit(ring);
	}
	if (!wanted_disabled)
		p->flags &= ~IORING_SETUP_R_DISABLED;
	return ret;
}

int io_uring_queue_init(unsigned int entries, struct io_uring *ring,
			unsigned int flags)
{
	struct io_uring_params p = { .flags = flags };

	return io_uring_queue_init_params(entries, ring, &p);
}
