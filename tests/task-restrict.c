// SPDX-License-Identifier: MIT
/*
 * Description: IORING_REGISTER_RESTRICTIONS without a ring (fd -1, Linux
 *		7.0's ABI, patch 0015): a task's allow-lists for every ring
 *		it creates afterwards. The errors and their order, what a
 *		ring created before and after sees, each kind enforced only
 *		if listed, inheritance across fork, a grandchild, a thread
 *		and exec, SQPOLL, the ring's own registration refused, and
 *		the one entry for every fd -1 call. On upstream and
 *		baseline 6.1 fd -1 is -EBADF for every opcode.
 *
 * Usage: LAB_KERNEL=baseline|patched|upstream task-restrict
 *
 * Every case runs in a child of its own (the kselftest harness forks one
 * per test): a task's restrictions last as long as the task.
 */
#define _GNU_SOURCE
#include "uring-test.h"
#include <linux/io_uring/bpf_filter.h>
#include <linux/filter.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <liburing.h>

#include "kselftest_harness.h"

#define LEN(a)		(sizeof(a) / sizeof((a)[0]))

/* the exec probe's environment variable: see exec_probe() */
#define PROBE_ENV	"TASK_RESTRICT_EXEC_PROBE"

static const char *kernel(void)
{
	const char *k = getenv("LAB_KERNEL");

	return k ? k : "patched";
}

static int patched(void)
{
	return !strcmp(kernel(), "patched");
}

/* room for the header and up to 8 entries */
struct task_res {
	struct io_uring_task_restriction head;
	struct io_uring_restriction res[8];
};

static struct task_res policy(const struct io_uring_restriction *res,
			      unsigned int nr)
{
	struct task_res t;

	memset(&t, 0, sizeof(t));
	t.head.nr_res = nr;
	memcpy(t.res, res, nr * sizeof(*res));
	return t;
}

static int task_register(const struct io_uring_restriction *res,
			 unsigned int nr)
{
	struct task_res t = policy(res, nr);

	return reg(-1, IORING_REGISTER_RESTRICTIONS, &t, 1);
}

static int run(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	int res;

	/* SQPOLL: the thread may have taken it before submit looked: 0 */
	res = io_uring_submit(ring);
	if (res < 0 || (!res && !(ring->flags & IORING_SETUP_SQPOLL)))
		return -1000;
	if (io_uring_wait_cqe(ring, &cqe))
		return -1001;
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

static int nop(struct io_uring *ring, unsigned int flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_nop(sqe);
	sqe->flags = flags;
	return run(ring);
}

/* IORING_OP_READ of nothing from /dev/zero: 0 if it ran */
static int read0(struct io_uring *ring)
{
	static char c;
	int fd = open("/dev/zero", O_RDONLY), res;

	io_uring_prep_read(io_uring_get_sqe(ring), fd, &c, 0, 0);
	res = run(ring);
	close(fd);
	return res;
}

static int probe(struct io_uring *ring)
{
	struct io_uring_probe *p = calloc(1, sizeof(*p) + 256 *
					  sizeof(struct io_uring_probe_op));
	int res = reg(ring->ring_fd, IORING_REGISTER_PROBE, p, 256);

	free(p);
	return res < 0 ? res : 0;
}

#define PATCHED_OR_SKIP() do {						\
	if (!patched())							\
		SKIP(return, "no task restrictions on %s", kernel());	\
} while (0)

static const struct io_uring_restriction nop_only[] = {
	{ .opcode = IORING_RESTRICTION_SQE_OP, .sqe_op = IORING_OP_NOP },
};

/*
 * Run after exec by exec_probe(): a ring created now must refuse READ
 * and allow NOP, as the task's allow-list before exec said.
 */
__attribute__((constructor)) static void exec_probe_child(void)
{
	struct io_uring ring;

	if (!getenv(PROBE_ENV))
		return;
	if (io_uring_queue_init(4, &ring, 0))
		_exit(20);
	if (nop(&ring, 0) != 0)
		_exit(21);
	if (read0(&ring) != -EACCES)
		_exit(22);
	/* and a second registration is still refused */
	if (task_register(nop_only, 1) != -EPERM)
		_exit(23);
	_exit(0);
}

/* what each kernel answers for fd -1 */
TEST(blind_entry)
{
	unsigned int ops[] = {
		IORING_REGISTER_BUFFERS, IORING_REGISTER_FILES,
		IORING_REGISTER_PROBE, IORING_REGISTER_ENABLE_RINGS,
		IORING_REGISTER_PERSONALITY, IORING_REGISTER_RING_FDS,
		IORING_REGISTER_FILE_ALLOC_RANGE,
	};
	int want_other, want_res;
	unsigned int i;

	if (patched()) {
		/* 7.0: one entry for fd -1, -EINVAL for opcodes needing a ring */
		want_other = -EINVAL;
		want_res = 0;
	} else {
		/* 6.1, baseline too: the fd is looked up, and there is none */
		want_other = -EBADF;
		want_res = -EBADF;
	}
	for (i = 0; i < LEN(ops); i++)
		EXPECT_EQ(want_other, reg(-1, ops[i], NULL, 0));
	EXPECT_EQ(want_res, task_register(nop_only, 1));
}

/* 7.0's order: -EPERM, -EACCES, nr_args, -EFAULT, flags and reserved */
TEST(errors_in_order)
{
	struct io_uring_restriction bad_op[] = {
		{ .opcode = IORING_RESTRICTION_SQE_OP, .sqe_op = IORING_OP_LAST },
	};
	struct io_uring_restriction bad_kind[] = { { .opcode = 99 } };
	struct io_uring_restriction bad_reg[] = {
		{ .opcode = IORING_RESTRICTION_REGISTER_OP, .register_op = 30 },
	};
	struct task_res t;
	void *ro;
	int i;

	PATCHED_OR_SKIP();
	/* neither no_new_privs nor CAP_SYS_ADMIN: -EACCES, before nr_args */
	EXPECT_EQ(0, IN_CHILD({
		MUST(!drop_sys_admin(), 1);
		MUST(task_register(nop_only, 1) == -EACCES, 2);
		MUST(reg(-1, IORING_REGISTER_RESTRICTIONS, NULL, 2) == -EACCES,
		      3);
		MUST(!prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 4);
		MUST(task_register(nop_only, 1) == 0, 5);
	}));

	t = policy(nop_only, 1);
	EXPECT_EQ(-EINVAL, reg(-1, IORING_REGISTER_RESTRICTIONS, &t, 0));
	EXPECT_EQ(-EINVAL, reg(-1, IORING_REGISTER_RESTRICTIONS, &t, 2));
	EXPECT_EQ(-EFAULT, reg(-1, IORING_REGISTER_RESTRICTIONS, NULL, 1));
	t.head.flags = 1;
	EXPECT_EQ(-EINVAL, reg(-1, IORING_REGISTER_RESTRICTIONS, &t, 1));
	for (i = 0; i < 3; i++) {
		t = policy(nop_only, 1);
		t.head.resv[i] = 1;
		EXPECT_EQ(-EINVAL, reg(-1, IORING_REGISTER_RESTRICTIONS, &t, 1));
	}
	EXPECT_EQ(-EINVAL, task_register(bad_op, 1));
	EXPECT_EQ(-EINVAL, task_register(bad_kind, 1));
	EXPECT_EQ(-EINVAL, task_register(bad_reg, 1));
	t = policy(nop_only, 1);
	t.head.nr_res = 1000;
	EXPECT_EQ(-EINVAL, reg(-1, IORING_REGISTER_RESTRICTIONS, &t, 1));
	/* entries past a readable header: -EFAULT */
	ro = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_EQ(0, munmap((char *)ro + 4096, 4096));
	t = policy(nop_only, 1);
	memcpy((char *)ro + 4096 - sizeof(t.head), &t.head, sizeof(t.head));
	EXPECT_EQ(-EFAULT, reg(-1, IORING_REGISTER_RESTRICTIONS,
			       (char *)ro + 4096 - sizeof(t.head), 1));
	munmap(ro, 4096);

	/* none of those installed anything: READ still runs, then once only */
	EXPECT_EQ(0, IN_CHILD({
		struct io_uring r;

		MUST(!io_uring_queue_init(4, &r, 0), 1);
		MUST(read0(&r) == 0, 2);
	}));
	EXPECT_EQ(0, task_register(nop_only, 1));
	EXPECT_EQ(-EPERM, task_register(nop_only, 1));
	/* -EPERM comes first: even a malformed second call gets it */
	EXPECT_EQ(-EPERM, reg(-1, IORING_REGISTER_RESTRICTIONS, NULL, 2));
}

/* rings created afterwards only; SQEs refused with -EACCES */
TEST(rings_after_only)
{
	struct io_uring before, after, sq;

	PATCHED_OR_SKIP();
	ASSERT_EQ(0, io_uring_queue_init(4, &before, 0));
	ASSERT_EQ(0, task_register(nop_only, 1));
	ASSERT_EQ(0, io_uring_queue_init(4, &after, 0));
	EXPECT_EQ(0, read0(&before));
	EXPECT_EQ(0, nop(&after, 0));
	EXPECT_EQ(-EACCES, read0(&after));
	/* no register opcode listed: register calls are not restricted */
	EXPECT_EQ(0, probe(&after));
	/* an SQPOLL ring's thread applies them too */
	ASSERT_EQ(0, io_uring_queue_init(4, &sq, IORING_SETUP_SQPOLL));
	EXPECT_EQ(0, nop(&sq, 0));
	EXPECT_EQ(-EACCES, read0(&sq));
	io_uring_queue_exit(&sq);
	io_uring_queue_exit(&after);
	io_uring_queue_exit(&before);
}

/* each kind enforced only if listed; an empty list refuses everything */
TEST(kinds)
{
	PATCHED_OR_SKIP();
	/* register opcodes only: SQEs unrestricted */
	EXPECT_EQ(0, IN_CHILD({
		struct io_uring_restriction res[] = {
			r_register_op(IORING_REGISTER_PROBE),
		};
		struct io_uring r;

		MUST(task_register(res, 1) == 0, 1);
		MUST(!io_uring_queue_init(4, &r, 0), 2);
		MUST(read0(&r) == 0, 3);
		MUST(probe(&r) == 0, 4);
		MUST(reg(r.ring_fd, IORING_REGISTER_PERSONALITY, NULL, 0) ==
		      -EACCES, 5);
	}));
	/* flags: IOSQE_ASYNC allowed, nothing else */
	EXPECT_EQ(0, IN_CHILD({
		struct io_uring_restriction res[] = {
			r_sqe_op(IORING_OP_NOP),
			r_flags(IORING_RESTRICTION_SQE_FLAGS_ALLOWED,
				IOSQE_ASYNC),
		};
		struct io_uring r;

		MUST(task_register(res, 2) == 0, 1);
		MUST(!io_uring_queue_init(4, &r, 0), 2);
		MUST(nop(&r, IOSQE_ASYNC) == 0, 3);
		MUST(nop(&r, IOSQE_IO_DRAIN) == -EACCES, 4);
		MUST(nop(&r, 0) == 0, 5);
	}));
	/* required flags */
	EXPECT_EQ(0, IN_CHILD({
		struct io_uring_restriction res[] = {
			r_sqe_op(IORING_OP_NOP),
			r_flags(IORING_RESTRICTION_SQE_FLAGS_REQUIRED,
				IOSQE_ASYNC),
		};
		struct io_uring r;

		MUST(task_register(res, 2) == 0, 1);
		MUST(!io_uring_queue_init(4, &r, 0), 2);
		MUST(nop(&r, 0) == -EACCES, 3);
		MUST(nop(&r, IOSQE_ASYNC) == 0, 4);
	}));
	/* empty: every SQE and register call refused */
	EXPECT_EQ(0, IN_CHILD({
		struct io_uring r;

		MUST(task_register(NULL, 0) == 0, 1);
		MUST(!io_uring_queue_init(4, &r, 0), 2);
		MUST(nop(&r, 0) == -EACCES, 3);
		MUST(probe(&r) == -EACCES, 4);
	}));
}

/*
 * A disabled ring: no allow-lists of its own, and (unlike 7.0) held to
 * the task's register list while disabled, but for ENABLE_RINGS
 */
TEST(disabled_ring)
{
	struct io_uring_restriction res[] = {
		r_sqe_op(IORING_OP_NOP), r_register_op(IORING_REGISTER_PROBE),
	};
	struct io_uring r;

	PATCHED_OR_SKIP();
	/* SQE kinds only: the disabled ring's own registration is -EBUSY */
	EXPECT_EQ(0, IN_CHILD({
		struct io_uring d;

		MUST(task_register(nop_only, 1) == 0, 1);
		MUST(!io_uring_queue_init(4, &d, IORING_SETUP_R_DISABLED), 2);
		MUST(reg(d.ring_fd, IORING_REGISTER_RESTRICTIONS, nop_only, 1) ==
		      -EBUSY, 3);
		MUST(reg(d.ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0) == 0,
		      4);
		MUST(read0(&d) == -EACCES, 5);
	}));
	ASSERT_EQ(0, task_register(res, 2));
	ASSERT_EQ(0, io_uring_queue_init(4, &r, IORING_SETUP_R_DISABLED));
	EXPECT_EQ(-EACCES, reg(r.ring_fd, IORING_REGISTER_RESTRICTIONS,
			       nop_only, 1));
	EXPECT_EQ(-EACCES, reg(r.ring_fd, IORING_REGISTER_PERSONALITY, NULL, 0));
	EXPECT_EQ(0, probe(&r));
	EXPECT_EQ(0, reg(r.ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0));
	EXPECT_EQ(0, nop(&r, 0));
	EXPECT_EQ(-EACCES, read0(&r));
	/* enabled: ENABLE_RINGS is refused as any unlisted opcode */
	EXPECT_EQ(-EACCES, reg(r.ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0));
	io_uring_queue_exit(&r);
}

/* a task with BPF filters has restrictions: -EPERM, as in 7.0 */
TEST(after_task_filter)
{
	struct io_uring_bpf b;
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, 1);

	PATCHED_OR_SKIP();
	memset(&b, 0, sizeof(b));
	b.cmd_type = IO_URING_BPF_CMD_FILTER;
	b.filter.opcode = IORING_OP_NOP;
	b.filter.filter_len = 1;
	b.filter.filter_ptr = (uintptr_t)&allow;
	ASSERT_EQ(0, reg(-1, IORING_REGISTER_BPF_FILTER, &b, 1));
	EXPECT_EQ(-EPERM, task_register(nop_only, 1));
	/* a child inherits the filter, so -EPERM too */
	EXPECT_EQ(0, IN_CHILD({
		MUST(task_register(nop_only, 1) == -EPERM, 1);
	}));
}

/* adding a task filter keeps the allow-lists: nothing to shed them with */
TEST(filter_after_lists)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, 1);
	struct io_uring_bpf b;
	struct io_uring r;

	PATCHED_OR_SKIP();
	ASSERT_EQ(0, task_register(nop_only, 1));
	memset(&b, 0, sizeof(b));
	b.cmd_type = IO_URING_BPF_CMD_FILTER;
	b.filter.opcode = IORING_OP_READ;
	b.filter.filter_len = 1;
	b.filter.filter_ptr = (uintptr_t)&allow;
	ASSERT_EQ(0, reg(-1, IORING_REGISTER_BPF_FILTER, &b, 1));
	ASSERT_EQ(0, io_uring_queue_init(4, &r, 0));
	EXPECT_EQ(-EACCES, read0(&r));
	EXPECT_EQ(0, nop(&r, 0));
	io_uring_queue_exit(&r);
}

static void *thread_ring(void *arg)
{
	struct io_uring r;
	long bad = 0;

	if (io_uring_queue_init(4, &r, 0))
		return (void *)1L;
	if (nop(&r, 0) != 0)
		bad = 2;
	else if (read0(&r) != *(int *)arg)
		bad = 3;
	io_uring_queue_exit(&r);
	return (void *)bad;
}

/* children, grandchildren, threads and exec inherit; the parent keeps none */
TEST(inheritance)
{
	int want;

	PATCHED_OR_SKIP();
	EXPECT_EQ(0, IN_CHILD({
		pthread_t th;
		void *ret;

		/* a thread started before registering is its own task */
		want = 0;
		MUST(!pthread_create(&th, NULL, thread_ring, &want), 1);
		MUST(!pthread_join(th, &ret) && !ret, 2);
		MUST(task_register(nop_only, 1) == 0, 3);
		/* one started after inherits (CLONE_THREAD) */
		want = -EACCES;
		MUST(!pthread_create(&th, NULL, thread_ring, &want), 4);
		MUST(!pthread_join(th, &ret) && !ret, 5);
		/* a child and a grandchild, which cannot register again */
		MUST(IN_CHILD({
			MUST(IN_CHILD({
				struct io_uring r;

				MUST(!io_uring_queue_init(4, &r, 0), 1);
				MUST(read0(&r) == -EACCES, 2);
				MUST(task_register(NULL, 0) == -EPERM, 3);
			}) == 0, 1);
		}) == 0, 6);
		/* exec keeps them */
		MUST(IN_CHILD({
			char *argv[] = { "task-restrict", NULL };

			setenv(PROBE_ENV, "1", 1);
			execv("/proc/self/exe", argv);
			_exit(30);
		}) == 0, 7);
	}));
	/* the parent has none */
	EXPECT_EQ(0, IN_CHILD({
		struct io_uring r;

		MUST(!io_uring_queue_init(4, &r, 0), 1);
		MUST(read0(&r) == 0, 2);
	}));
}

/*
 * A fixture only for its timeout: fork_churn's 200 children and 100
 * failed forks took 35 to 43 s on a sanitizer kernel under TCG, past the
 * harness's default 30 s.
 */
FIXTURE(churn) {
};

FIXTURE_SETUP(churn)
{
}

FIXTURE_TEARDOWN(churn)
{
}

/*
 * Children come and go, and forks fail past dup_task_struct() (the
 * reference is taken there, dropped by free_task() on fork's error
 * path): the shared set must outlive them all. A reference dropped once
 * too often is a refcount_t underflow warning in the kernel log (which
 * every run checks), or a KASAN report on the sanitizer kernel; one
 * never dropped, a kmemleak report there.
 */
TEST_F_TIMEOUT(churn, fork_churn, 300)
{
	int i;

	PATCHED_OR_SKIP();
	ASSERT_EQ(0, task_register(nop_only, 1));
	/* each child still sees the set, whichever of them exited first */
	for (i = 0; i < 200; i++) {
		pid_t p = fork();
		int st;

		if (!p) {
			struct io_uring r;

			_exit(io_uring_queue_init(4, &r, 0) ? 2 :
			      read0(&r) != -EACCES ? 3 : nop(&r, 0) ? 4 : 0);
		}
		ASSERT_EQ(p, waitpid(p, &st, 0));
		ASSERT_EQ(0, WIFEXITED(st) ? WEXITSTATUS(st) : 100);
	}
	/* RLIMIT_NPROC fails fork after dup_task_struct(), for non-root */
	EXPECT_EQ(0, IN_CHILD({
		struct rlimit none = { 0, 0 };

		MUST(!setrlimit(RLIMIT_NPROC, &none), 1);
		MUST(!setresgid(65534, 65534, 65534), 2);
		MUST(!setresuid(65534, 65534, 65534), 3);
		for (i = 0; i < 100; i++) {
			pid_t p = fork();

			if (!p)
				_exit(0);
			if (p > 0) {
				waitpid(p, NULL, 0);
				_exit(4);
			}
			MUST(errno == EAGAIN, 5);
		}
	}));
	EXPECT_EQ(0, IN_CHILD({
		struct io_uring r;

		MUST(!io_uring_queue_init(4, &r, 0), 1);
		MUST(read0(&r) == -EACCES, 2);
	}));
}

TEST_HARNESS_MAIN
