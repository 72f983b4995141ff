// SPDX-License-Identifier: MIT
/*
 * Description: ring restrictions under concurrency. Threads race
 *		registration, enable and submission on one ring, thousands
 *		of rounds with random timing, and each round asserts an
 *		invariant, never a timing:
 *		- an SQE submitted to a disabled ring is not consumed
 *		  (-EBADFD), and once consumed it is judged by the policy:
 *		  a refused SQE never runs (its side effect, an eventfd
 *		  write, never happens);
 *		- of two racing policies exactly one is installed and
 *		  enforced whole; a policy registered after enable is
 *		  refused and the ring stays unrestricted;
 *		- an SQPOLL ring's SQ thread judges SQEs queued before
 *		  enable by the policy;
 *		- a SINGLE_ISSUER ring belongs to the task that enabled it;
 *		- MSG_RING into a ring being enabled: -EBADFD until enable,
 *		  then delivered, never the other way round;
 *		- a ring closed, or its task exiting, during registration and
 *		  enable: no hang (the harness's timeout), no leak
 *		  (kmemleak, tests/guest-run.sh).
 *
 * Usage: LAB_KERNEL=baseline|patched|upstream restrict-stress [harness
 * options]; STRESS_SECONDS bounds each test (default 20), STRESS_ROUNDS
 * its rounds (default 2000; a quarter in the SQPOLL and fork tests), but
 * every test runs at least its floor of rounds however long they take
 * (100; 25 in the SQPOLL and fork tests). On baseline the feature is
 * absent: every test checks that the entry points say so, and passes.
 *
 * The kernel tree's kselftest harness (tools/testing/selftests) runs each
 * test in a child of its own with a timeout, and prints TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <liburing.h>

#include "kselftest_harness.h"
#include "uring-test.h"

#define UD_NOP		1
#define UD_WRITE	2

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A test runs until its time or its round cap, but never fewer than
 * min rounds: a slow guest (a sanitizer kernel beside a busy host) must
 * still race as often as the test's invariant needs, not fail on the
 * clock. The harness's timeout bounds a round that never ends.
 */
struct budget {
	double start, end;
	long rounds;
	long min;
};

static long at_least(long n, long min)
{
	return n < min ? min : n;
}

/* @min rounds at least; the cap STRESS_ROUNDS / @div (a dearer round) */
static struct budget budget(long min, long div)
{
	const char *s = getenv("STRESS_SECONDS");
	const char *r = getenv("STRESS_ROUNDS");
	double t = now();

	return (struct budget){
		.start = t,
		.end = t + (s ? atof(s) : 20),
		.rounds = at_least((r ? atol(r) : 2000) / div, min),
		.min = min,
	};
}

/* a test's end: its pace in the log, and its floor reached */
#define BUDGET_DONE(b, rounds) do {					\
	double secs = now() - (b)->start;				\
									\
	TH_LOG("%.1f s, %.0f rounds a second", secs,			\
	       (rounds) / (secs + 1e-9));				\
	ASSERT_LE((b)->min, rounds);					\
} while (0)

static int more(const struct budget *b, long done)
{
	return done < b->rounds && (done < b->min || now() < b->end);
}

/* a few microseconds of spinning, different every round */
static void jitter(unsigned int *seed)
{
	unsigned int n = rand_r(seed) % 4000;

	for (volatile unsigned int i = 0; i < n; i++)
		;
	if (!(rand_r(seed) % 8))
		sched_yield();
}

/* allow exactly @op (IORING_OP_NOP or IORING_OP_WRITE) */
static int restrict_to(int fd, __u8 op)
{
	struct io_uring_restriction r = r_sqe_op(op);

	return reg(fd, IORING_REGISTER_RESTRICTIONS, &r, 1);
}

static int enable(int fd)
{
	return reg(fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
}

/* a NOP and a write of 1 to @efd, the write being the side effect */
static void queue_pair(struct io_uring *ring, int efd)
{
	struct io_uring_sqe *sqe;

	sqe = io_uring_get_sqe(ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = UD_NOP;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_write(sqe, efd, &one, sizeof(one), 0);
	sqe->user_data = UD_WRITE;
}

/* reap the pair's two CQEs into res[UD_NOP] and res[UD_WRITE] */
static int reap_pair(struct io_uring *ring, int res[3])
{
	struct __kernel_timespec ts = { .tv_sec = 10 };
	struct io_uring_cqe *cqe;
	int i, ret;

	res[UD_NOP] = res[UD_WRITE] = 1;	/* no CQE */
	for (i = 0; i < 2; i++) {
		ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
		if (ret)
			return ret;
		if (cqe->user_data == UD_NOP || cqe->user_data == UD_WRITE)
			res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	return 0;
}

FIXTURE(stress) {
	unsigned int seed;
};

FIXTURE_SETUP(stress)
{
	self->seed = getpid() ^ (unsigned int)time(NULL);
	TH_LOG("seed %u", self->seed);
}

FIXTURE_TEARDOWN(stress)
{
}

/* baseline: R_DISABLED is refused, so no round can run */
static int absent(struct __test_metadata *_metadata)
{
	struct io_uring ring;
	struct io_uring_params p = { .flags = IORING_SETUP_R_DISABLED };
	int ret;

	if (feature())
		return 0;
	ret = io_uring_queue_init_params(4, &ring, &p);
	EXPECT_EQ(-EINVAL, ret);
	if (!ret)
		io_uring_queue_exit(&ring);
	return 1;
}

struct submitter {
	int fd;
	int ebadfd;		/* enters refused while disabled */
	int consumed;		/* what the first accepted enter consumed */
	int other;		/* an error that is neither */
	pthread_barrier_t *go;
};

static void *submit_until_enabled(void *arg)
{
	struct submitter *s = arg;
	int ret;

	pthread_barrier_wait(s->go);
	for (;;) {
		ret = enter(s->fd, 2, 0, 0);
		if (ret != -EBADFD)
			break;
		s->ebadfd++;
	}
	if (ret < 0)
		s->other = ret;
	else
		s->consumed = ret;
	return NULL;
}

/*
 * One thread enters the ring in a loop while another registers a NOP-only
 * policy and enables it: enters fail with -EBADFD until enable, the first
 * one after consumes both SQEs, and the write (refused) never happens.
 */
TEST_F_TIMEOUT(stress, enable_races_submit, 300)
{
	struct budget b = budget(100, 1);
	long rounds = 0, before = 0;

	if (absent(_metadata))
		return;
	while (more(&b, rounds)) {
		struct io_uring_params p = { .flags = IORING_SETUP_R_DISABLED };
		struct submitter s = { 0 };
		pthread_barrier_t go;
		struct io_uring ring;
		pthread_t t;
		int res[3], efd;

		efd = eventfd(0, EFD_NONBLOCK);
		ASSERT_LE(0, efd);
		ASSERT_EQ(0, io_uring_queue_init_params(4, &ring, &p));
		queue_pair(&ring, efd);
		/* publishes the SQ tail; the ring is disabled */
		ASSERT_EQ(-EBADFD, io_uring_submit(&ring));
		pthread_barrier_init(&go, NULL, 2);
		s.fd = ring.ring_fd;
		s.go = &go;
		ASSERT_EQ(0, pthread_create(&t, NULL, submit_until_enabled, &s));
		pthread_barrier_wait(&go);
		jitter(&self->seed);
		ASSERT_EQ(0, restrict_to(ring.ring_fd, IORING_OP_NOP));
		jitter(&self->seed);
		ASSERT_EQ(0, enable(ring.ring_fd));
		pthread_join(t, NULL);
		pthread_barrier_destroy(&go);
		ASSERT_EQ(0, s.other);
		ASSERT_EQ(2, s.consumed);
		ASSERT_EQ(0, reap_pair(&ring, res));
		EXPECT_EQ(0, res[UD_NOP]);
		EXPECT_EQ(-EACCES, res[UD_WRITE]);
		ASSERT_EQ(0, writes(efd)) TH_LOG("a refused write ran");
		before += s.ebadfd;
		io_uring_queue_exit(&ring);
		close(efd);
		rounds++;
	}
	TH_LOG("%ld rounds, %ld enters refused before enable", rounds, before);
	BUDGET_DONE(&b, rounds);
}

/*
 * An SQPOLL ring: SQEs queued while disabled wait for enable, and the SQ
 * thread judges them by the policy registered before it.
 */
TEST_F_TIMEOUT(stress, sqpoll_queued_before_enable, 300)
{
	struct budget b = budget(25, 4);	/* a kernel thread per ring */
	long rounds = 0;

	if (absent(_metadata))
		return;
	while (more(&b, rounds)) {
		struct io_uring_params p = {
			.flags = IORING_SETUP_R_DISABLED | IORING_SETUP_SQPOLL,
			.sq_thread_idle = 10,
		};
		struct io_uring ring;
		int res[3], efd;

		efd = eventfd(0, EFD_NONBLOCK);
		ASSERT_LE(0, efd);
		ASSERT_EQ(0, io_uring_queue_init_params(4, &ring, &p));
		queue_pair(&ring, efd);
		/* SQPOLL: publishes the tail, and no enter is needed */
		io_uring_submit(&ring);
		jitter(&self->seed);
		ASSERT_EQ(0, writes(efd));
		ASSERT_EQ(0, restrict_to(ring.ring_fd, IORING_OP_NOP));
		jitter(&self->seed);
		ASSERT_EQ(0, enable(ring.ring_fd));
		/* the SQ thread may sleep: wake it as a user would */
		io_uring_submit(&ring);
		ASSERT_EQ(0, reap_pair(&ring, res));
		EXPECT_EQ(0, res[UD_NOP]);
		EXPECT_EQ(-EACCES, res[UD_WRITE]);
		ASSERT_EQ(0, writes(efd)) TH_LOG("a refused write ran");
		io_uring_queue_exit(&ring);
		close(efd);
		rounds++;
	}
	TH_LOG("%ld rounds", rounds);
	BUDGET_DONE(&b, rounds);
}

struct registrar {
	int fd;
	__u8 op;	/* the policy's one opcode; 0xff: enable instead */
	int ret;
	pthread_barrier_t *go;
	unsigned int seed;
};

static void *register_one(void *arg)
{
	struct registrar *r = arg;

	pthread_barrier_wait(r->go);
	jitter(&r->seed);
	if (r->op == 0xff)
		r->ret = enable(r->fd);
	else
		r->ret = restrict_to(r->fd, r->op);
	return NULL;
}

/* run @a and @b at once on @fd */
static void race(struct registrar *a, struct registrar *b, int fd,
		 unsigned int *seed)
{
	pthread_barrier_t go;
	pthread_t ta, tb;

	pthread_barrier_init(&go, NULL, 2);
	a->fd = b->fd = fd;
	a->go = b->go = &go;
	a->seed = rand_r(seed);
	b->seed = rand_r(seed);
	pthread_create(&ta, NULL, register_one, a);
	pthread_create(&tb, NULL, register_one, b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	pthread_barrier_destroy(&go);
}

/*
 * Two threads register different policies at once: one wins, the other
 * gets -EBUSY, and the ring enforces the winner's policy whole.
 */
TEST_F_TIMEOUT(stress, register_races_register, 300)
{
	struct budget b = budget(100, 1);
	long rounds = 0, nop_won = 0;

	if (absent(_metadata))
		return;
	while (more(&b, rounds)) {
		/* SUBMIT_ALL: a refused NOP does not stop the write */
		struct io_uring_params p = {
			.flags = IORING_SETUP_R_DISABLED |
				 IORING_SETUP_SUBMIT_ALL,
		};
		struct registrar ra = { .op = IORING_OP_NOP };
		struct registrar rb = { .op = IORING_OP_WRITE };
		struct io_uring ring;
		int res[3], efd;

		efd = eventfd(0, EFD_NONBLOCK);
		ASSERT_LE(0, efd);
		ASSERT_EQ(0, io_uring_queue_init_params(4, &ring, &p));
		race(&ra, &rb, ring.ring_fd, &self->seed);
		ASSERT_TRUE((!ra.ret && rb.ret == -EBUSY) ||
			    (!rb.ret && ra.ret == -EBUSY))
			TH_LOG("NOP policy %d, WRITE policy %d", ra.ret, rb.ret);
		ASSERT_EQ(0, enable(ring.ring_fd));
		queue_pair(&ring, efd);
		ASSERT_EQ(2, io_uring_submit(&ring));
		ASSERT_EQ(0, reap_pair(&ring, res));
		if (!ra.ret) {
			nop_won++;
			EXPECT_EQ(0, res[UD_NOP]);
			EXPECT_EQ(-EACCES, res[UD_WRITE]);
			EXPECT_EQ(0, writes(efd));
		} else {
			EXPECT_EQ(-EACCES, res[UD_NOP]);
			EXPECT_EQ((int)sizeof(one), res[UD_WRITE]);
			EXPECT_EQ(1, writes(efd));
		}
		io_uring_queue_exit(&ring);
		close(efd);
		rounds++;
	}
	TH_LOG("%ld rounds, the NOP policy won %ld", rounds, nop_won);
	BUDGET_DONE(&b, rounds);
}

/*
 * Registration races enable: a policy registered before enable is
 * enforced; one that comes after is refused with -EBADFD and the ring
 * stays unrestricted. Never a ring enabled with half a policy.
 */
TEST_F_TIMEOUT(stress, register_races_enable, 300)
{
	struct budget b = budget(100, 1);
	long rounds = 0, restricted = 0;

	if (absent(_metadata))
		return;
	while (more(&b, rounds)) {
		struct io_uring_params p = { .flags = IORING_SETUP_R_DISABLED };
		struct registrar ra = { .op = IORING_OP_NOP };
		struct registrar rb = { .op = 0xff };
		struct io_uring ring;
		int res[3], efd;

		efd = eventfd(0, EFD_NONBLOCK);
		ASSERT_LE(0, efd);
		ASSERT_EQ(0, io_uring_queue_init_params(4, &ring, &p));
		race(&ra, &rb, ring.ring_fd, &self->seed);
		ASSERT_EQ(0, rb.ret);
		ASSERT_TRUE(!ra.ret || ra.ret == -EBADFD)
			TH_LOG("policy: %d", ra.ret);
		queue_pair(&ring, efd);
		ASSERT_EQ(2, io_uring_submit(&ring));
		ASSERT_EQ(0, reap_pair(&ring, res));
		EXPECT_EQ(0, res[UD_NOP]);
		if (!ra.ret) {
			restricted++;
			EXPECT_EQ(-EACCES, res[UD_WRITE]);
			EXPECT_EQ(0, writes(efd));
		} else {
			EXPECT_EQ((int)sizeof(one), res[UD_WRITE]);
			EXPECT_EQ(1, writes(efd));
		}
		io_uring_queue_exit(&ring);
		close(efd);
		rounds++;
	}
	TH_LOG("%ld rounds, registered before enable in %ld", rounds,
	       restricted);
	BUDGET_DONE(&b, rounds);
}

struct enabler {
	struct io_uring *ring;
	int enable, nop;
};

static void *enable_and_submit(void *arg)
{
	struct enabler *e = arg;
	struct io_uring_sqe *sqe;

	e->enable = enable(e->ring->ring_fd);
	sqe = io_uring_get_sqe(e->ring);
	io_uring_prep_nop(sqe);
	e->nop = io_uring_submit(e->ring);
	return NULL;
}

/*
 * IORING_SETUP_SINGLE_ISSUER with R_DISABLED: the task that enables the
 * ring becomes its submitter (upstream's io_register_enable_rings()), so
 * another thread enabling it may submit and the creator then gets
 * -EEXIST.
 */
TEST_F_TIMEOUT(stress, single_issuer_enabled_elsewhere, 300)
{
	struct budget b = budget(100, 1);
	long rounds = 0;

	if (absent(_metadata))
		return;
	while (more(&b, rounds)) {
		struct io_uring_params p = {
			.flags = IORING_SETUP_R_DISABLED |
				 IORING_SETUP_SINGLE_ISSUER,
		};
		struct io_uring ring;
		struct enabler e = { .ring = &ring };
		struct io_uring_sqe *sqe;
		struct io_uring_cqe *cqe;
		pthread_t t;

		ASSERT_EQ(0, io_uring_queue_init_params(4, &ring, &p));
		ASSERT_EQ(0, restrict_to(ring.ring_fd, IORING_OP_NOP));
		ASSERT_EQ(0, pthread_create(&t, NULL, enable_and_submit, &e));
		pthread_join(t, NULL);
		ASSERT_EQ(0, e.enable);
		ASSERT_EQ(1, e.nop);
		ASSERT_EQ(0, io_uring_wait_cqe(&ring, &cqe));
		EXPECT_EQ(0, cqe->res);
		io_uring_cqe_seen(&ring, cqe);
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_nop(sqe);
		EXPECT_EQ(-EEXIST, io_uring_submit(&ring));
		io_uring_queue_exit(&ring);
		rounds++;
	}
	TH_LOG("%ld rounds", rounds);
	BUDGET_DONE(&b, rounds);
}

struct msg_sender {
	struct io_uring src;
	int target;
	long ebadfd, sent, late_ebadfd, other;
	volatile int stop;
	pthread_barrier_t *go;
};

static void *send_msgs(void *arg)
{
	struct msg_sender *m = arg;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;

	pthread_barrier_wait(m->go);
	while (!m->stop || !m->sent) {
		sqe = io_uring_get_sqe(&m->src);
		io_uring_prep_msg_ring(sqe, m->target, 0, 0x1234, 0);
		if (io_uring_submit_and_wait(&m->src, 1) != 1 ||
		    io_uring_wait_cqe(&m->src, &cqe)) {
			m->other++;
			break;
		}
		if (cqe->res == -EBADFD) {
			if (m->sent)
				m->late_ebadfd++;
			else
				m->ebadfd++;
		} else if (cqe->res == 0) {
			m->sent++;
		} else {
			m->other++;
		}
		io_uring_cqe_seen(&m->src, cqe);
		if (m->other)
			break;
	}
	return NULL;
}

/*
 * MSG_RING from an unrestricted ring into a ring being enabled: -EBADFD
 * while the target is disabled, delivered after, and every message the
 * sender saw delivered arrives exactly once.
 */
TEST_F_TIMEOUT(stress, msg_ring_races_enable, 300)
{
	struct budget b = budget(100, 1);
	long rounds = 0, refused = 0;

	if (absent(_metadata))
		return;
	while (more(&b, rounds)) {
		struct io_uring_params p = { .flags = IORING_SETUP_R_DISABLED };
		struct msg_sender m = { 0 };
		struct io_uring_cqe *cqe;
		struct io_uring target;
		pthread_barrier_t go;
		long got = 0;
		pthread_t t;

		ASSERT_EQ(0, io_uring_queue_init_params(64, &target, &p));
		ASSERT_EQ(0, restrict_to(target.ring_fd, IORING_OP_NOP));
		ASSERT_EQ(0, io_uring_queue_init(4, &m.src, 0));
		m.target = target.ring_fd;
		pthread_barrier_init(&go, NULL, 2);
		m.go = &go;
		ASSERT_EQ(0, pthread_create(&t, NULL, send_msgs, &m));
		pthread_barrier_wait(&go);
		jitter(&self->seed);
		ASSERT_EQ(0, enable(target.ring_fd));
		m.stop = 1;
		pthread_join(t, NULL);
		pthread_barrier_destroy(&go);
		ASSERT_EQ(0, m.other);
		ASSERT_EQ(0, m.late_ebadfd) TH_LOG("-EBADFD after a delivery");
		ASSERT_LE(1, m.sent);
		while (!io_uring_peek_cqe(&target, &cqe)) {
			EXPECT_EQ((__u64)0x1234, cqe->user_data);
			got++;
			io_uring_cqe_seen(&target, cqe);
		}
		EXPECT_EQ(m.sent, got);
		refused += m.ebadfd;
		io_uring_queue_exit(&m.src);
		io_uring_queue_exit(&target);
		rounds++;
	}
	TH_LOG("%ld rounds, %ld messages refused before enable", rounds,
	       refused);
	BUDGET_DONE(&b, rounds);
}

static void *register_and_enable(void *arg)
{
	int fd = (intptr_t)arg;

	restrict_to(fd, IORING_OP_NOP);
	enable(fd);
	return NULL;
}

/*
 * A child creates a disabled ring and registers and enables it from a
 * thread while its main thread closes the ring or exits: the child must
 * exit (no hang) and leave nothing behind (kmemleak, tests/guest-run.sh).
 */
TEST_F_TIMEOUT(stress, exit_during_enable, 300)
{
	struct budget b = budget(25, 4);	/* a process per round */
	long rounds = 0;

	if (absent(_metadata))
		return;
	while (more(&b, rounds)) {
		unsigned int how = rand_r(&self->seed) % 3;
		int status;
		pid_t pid;

		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			struct io_uring_params p = {
				.flags = IORING_SETUP_R_DISABLED };
			struct io_uring ring;
			pthread_t t;
			unsigned int seed = getpid();

			if (io_uring_queue_init_params(4, &ring, &p))
				_exit(2);
			pthread_create(&t, NULL, register_and_enable,
				       (void *)(intptr_t)ring.ring_fd);
			jitter(&seed);
			if (how == 0)
				close(ring.ring_fd);
			else if (how == 1)
				io_uring_queue_exit(&ring);
			/* how == 2: exit with the ring open */
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("child status %#x", status);
		rounds++;
	}
	TH_LOG("%ld rounds", rounds);
	BUDGET_DONE(&b, rounds);
}

TEST_HARNESS_MAIN
