/* SPDX-License-Identifier: MIT */
/*
 * Description: io_uring ring restrictions (IORING_REGISTER_RESTRICTIONS,
 *		IORING_SETUP_R_DISABLED, IORING_REGISTER_ENABLE_RINGS), as
 *		a user of the ABI relies on them.
 *
 * Usage: restrictions --kernel baseline|patched|upstream
 *
 * Output is TAP. Each case states what it expects per kernel: on baseline
 * the feature is absent and every entry point says so with -EINVAL; on
 * patched and upstream the behaviour is upstream's, case by case.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <liburing.h>

#include "uring-test.h"

#define T_OK		0
#define T_FAIL		1

static int have_feature;	/* patched, upstream */
static void *page;		/* anonymous memory for REGISTER_BUFFERS */
static const char *kernel;

/*
 * A CQE that never comes (a broken kernel, or a check that let an
 * IOSQE_CQE_SKIP_SUCCESS SQE through) must fail the case, not hang it.
 */
static int wait_cqe(struct io_uring *ring, struct io_uring_cqe **cqe)
{
	struct __kernel_timespec ts = { .tv_sec = 5 };

	return io_uring_wait_cqe_timeout(ring, cqe, &ts);
}

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "  %s:%d: ", __func__, __LINE__);	\
		fprintf(stderr, __VA_ARGS__);				\
		fprintf(stderr, "\n");					\
		goto fail;						\
	}								\
} while (0)

#define CHECK_RET(got, want, what)					\
	CHECK((got) == (want), "%s: got %d (%s), want %d (%s)", what,	\
	      (got), strerror((got) < 0 ? -(got) : 0), (want),		\
	      strerror((want) < 0 ? -(want) : 0))

static int ring_init(struct io_uring *ring, unsigned int flags)
{
	struct io_uring_params p = { .flags = flags };

	return io_uring_queue_init_params(8, ring, &p);
}

/*
 * A disabled ring with @res installed. On baseline, checks that the
 * feature is absent instead and returns 1 so the caller ends the case.
 */
static int restricted_ring(struct io_uring *ring, unsigned int flags,
			   const struct io_uring_restriction *res,
			   unsigned int nr, int *err)
{
	int ret = ring_init(ring, flags | IORING_SETUP_R_DISABLED);

	*err = 0;
	if (!have_feature) {
		if (ret != -EINVAL) {
			fprintf(stderr, "  R_DISABLED setup: got %d, want -EINVAL\n",
				ret);
			*err = 1;
		}
		if (!ret)
			io_uring_queue_exit(ring);
		return 1;
	}
	if (ret) {
		fprintf(stderr, "  R_DISABLED setup failed: %d\n", ret);
		*err = 1;
		return 1;
	}
	ret = reg(ring->ring_fd, IORING_REGISTER_RESTRICTIONS, res, nr);
	if (ret) {
		fprintf(stderr, "  register restrictions: %d\n", ret);
		io_uring_queue_exit(ring);
		*err = 1;
		return 1;
	}
	return 0;
}

static int enable(struct io_uring *ring)
{
	return reg(ring->ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
}

/* submit what is queued and return the res of the CQE with @user_data */
static int submit_and_reap(struct io_uring *ring, int nr, int *res_by_data,
			   int nr_data)
{
	struct io_uring_cqe *cqe;
	int i, ret;

	/* a failed SQE ends a batch; submit the rest as an application would */
	for (i = 0; i < nr; i += ret) {
		ret = io_uring_submit(ring);
		if (ret <= 0)
			return ret < 0 ? ret : -EPROTO;
	}
	for (i = 0; i < nr; i++) {
		ret = wait_cqe(ring, &cqe);
		if (ret)
			return ret;
		if (cqe->user_data < (__u64)nr_data)
			res_by_data[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	return 0;
}

static void prep_nop(struct io_uring *ring, __u64 data, __u8 flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_nop(sqe);
	sqe->flags = flags;
	sqe->user_data = data;
}

static void prep_read(struct io_uring *ring, int fd, void *buf, __u64 data,
		      __u8 flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_read(sqe, fd, buf, 16, 0);
	sqe->flags = flags;
	sqe->user_data = data;
}

/*
 * IORING_SETUP_R_DISABLED at setup.
 * baseline: -EINVAL. patched, upstream: accepted.
 */
static int test_setup_disabled(void)
{
	struct io_uring ring;
	int ret = ring_init(&ring, IORING_SETUP_R_DISABLED);

	CHECK_RET(ret, have_feature ? 0 : -EINVAL, "setup");
	if (!ret)
		io_uring_queue_exit(&ring);
	return T_OK;
fail:
	return T_FAIL;
}

/*
 * Restrictions on a ring that is already enabled.
 * baseline: -EINVAL (unknown opcode). patched, upstream: -EBADFD.
 */
static int test_only_on_disabled_ring(void)
{
	struct io_uring_restriction res = r_sqe_op(IORING_OP_NOP);
	struct io_uring ring;
	int ret;

	ret = ring_init(&ring, 0);
	CHECK_RET(ret, 0, "setup");
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, &res, 1);
	io_uring_queue_exit(&ring);
	CHECK_RET(ret, have_feature ? -EBADFD : -EINVAL, "register");
	return T_OK;
fail:
	return T_FAIL;
}

/*
 * Enabling a ring that is not disabled, or with arguments.
 * baseline: -EINVAL. patched, upstream: -EBADFD; with arguments -EINVAL.
 */
static int test_enable_rules(void)
{
	struct io_uring ring;
	int ret;

	ret = ring_init(&ring, 0);
	CHECK_RET(ret, 0, "setup");
	ret = enable(&ring);
	CHECK_RET(ret, have_feature ? -EBADFD : -EINVAL, "enable enabled ring");
	io_uring_queue_exit(&ring);
	if (!have_feature)
		return T_OK;

	ret = ring_init(&ring, IORING_SETUP_R_DISABLED);
	CHECK_RET(ret, 0, "setup disabled");
	ret = reg(ring.ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 1);
	CHECK_RET(ret, -EINVAL, "enable with nr_args 1");
	ret = enable(&ring);
	CHECK_RET(ret, 0, "enable");
	ret = enable(&ring);
	CHECK_RET(ret, -EBADFD, "enable twice");
	io_uring_queue_exit(&ring);
	return T_OK;
fail:
	return T_FAIL;
}

/*
 * io_uring_enter() on a disabled ring.
 * baseline: setup -EINVAL. patched, upstream: -EBADFD, then works once
 * enabled.
 */
static int test_submit_disabled(void)
{
	struct io_uring ring;
	int res[1] = { 1 };
	int ret;

	ret = ring_init(&ring, IORING_SETUP_R_DISABLED);
	CHECK_RET(ret, have_feature ? 0 : -EINVAL, "setup");
	if (!have_feature)
		return T_OK;
	prep_nop(&ring, 0, 0);
	ret = io_uring_submit(&ring);
	CHECK_RET(ret, -EBADFD, "submit while disabled");
	ret = enter(ring.ring_fd, 0, 1, IORING_ENTER_GETEVENTS);
	CHECK_RET(ret, -EBADFD, "wait while disabled");
	ret = enable(&ring);
	CHECK_RET(ret, 0, "enable");
	/* the NOP is still queued: nothing was lost */
	ret = submit_and_reap(&ring, 1, res, 1);
	CHECK_RET(ret, 0, "submit after enable");
	CHECK_RET(res[0], 0, "NOP");
	io_uring_queue_exit(&ring);
	return T_OK;
fail:
	return T_FAIL;
}

/*
 * IORING_RESTRICTION_SQE_OP: NOP allowed, READ denied.
 * baseline: absent. patched, upstream: NOP 0, READ -EACCES.
 */
static int test_sqe_op_allowlist(void)
{
	struct io_uring_restriction res[] = { r_sqe_op(IORING_OP_NOP) };
	struct io_uring ring;
	int out[2] = { 1, 1 };
	char buf[16];
	int err, ret, fd;

	if (restricted_ring(&ring, 0, res, 1, &err))
		return err ? T_FAIL : T_OK;
	fd = open("/dev/zero", O_RDONLY);
	CHECK(fd >= 0, "open /dev/zero");
	ret = enable(&ring);
	CHECK_RET(ret, 0, "enable");
	prep_nop(&ring, 0, 0);
	prep_read(&ring, fd, buf, 1, 0);
	ret = submit_and_reap(&ring, 2, out, 2);
	CHECK_RET(ret, 0, "submit");
	CHECK_RET(out[0], 0, "allowed NOP");
	CHECK_RET(out[1], -EACCES, "denied READ");
	close(fd);
	io_uring_queue_exit(&ring);
	return T_OK;
fail:
	return T_FAIL;
}

/*
 * IORING_RESTRICTION_REGISTER_OP: buffers allowed, files and probe denied.
 * baseline: absent. patched, upstream: 0, -EACCES, -EACCES.
 */
static int test_register_op_allowlist(void)
{
	struct io_uring_restriction res[] = {
		r_register_op(IORING_REGISTER_BUFFERS),
		r_sqe_op(IORING_OP_NOP),
	};
	struct iovec iov = { .iov_base = page, .iov_len = 4096 };
	struct io_uring ring;
	int err, ret, fd = 0;

	if (restricted_ring(&ring, 0, res, 2, &err))
		return err ? T_FAIL : T_OK;
	/* before enable the lists are not enforced yet */
	ret = reg(ring.ring_fd, IORING_REGISTER_PROBE, NULL, 0);
	CHECK(ret != -EACCES, "probe before enable denied");
	ret = enable(&ring);
	CHECK_RET(ret, 0, "enable");
	ret = reg(ring.ring_fd, IORING_REGISTER_BUFFERS, &iov, 1);
	CHECK_RET(ret, 0, "allowed REGISTER_BUFFERS");
	ret = reg(ring.ring_fd, IORING_REGISTER_FILES, &fd, 1);
	CHECK_RET(ret, -EACCES, "denied REGISTER_FILES");
	ret = reg(ring.ring_fd, IORING_REGISTER_PROBE, NULL, 0);
	CHECK_RET(ret, -EACCES, "denied REGISTER_PROBE");
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, res, 1);
	CHECK_RET(ret, -EACCES, "denied second REGISTER_RESTRICTIONS");
	io_uring_queue_exit(&ring);
	return T_OK;
fail:
	return T_FAIL;
}

/*
 * SQE_FLAGS_ALLOWED and SQE_FLAGS_REQUIRED.
 * baseline: absent. patched, upstream: a flag outside allowed | required,
 * or a missing required flag, gives -EACCES.
 */
static int test_sqe_flags(void)
{
	struct io_uring_restriction res[] = {
		r_sqe_op(IORING_OP_NOP),
		r_flags(IORING_RESTRICTION_SQE_FLAGS_ALLOWED, IOSQE_IO_LINK),
		r_flags(IORING_RESTRICTION_SQE_FLAGS_REQUIRED, IOSQE_ASYNC),
	};
	struct io_uring ring;
	int out[4] = { 1, 1, 1, 1 };
	int err, ret;

	if (restricted_ring(&ring, 0, res, 3, &err))
		return err ? T_FAIL : T_OK;
	ret = enable(&ring);
	CHECK_RET(ret, 0, "enable");
	prep_nop(&ring, 0, 0);				/* required missing */
	prep_nop(&ring, 1, IOSQE_ASYNC);		/* ok */
	prep_nop(&ring, 2, IOSQE_ASYNC | IOSQE_IO_DRAIN);	/* not allowed */
	prep_nop(&ring, 3, IOSQE_ASYNC | IOSQE_CQE_SKIP_SUCCESS);
	ret = submit_and_reap(&ring, 4, out, 4);
	CHECK_RET(ret, 0, "submit");
	CHECK_RET(out[0], -EACCES, "NOP without required ASYNC");
	CHECK_RET(out[1], 0, "NOP with ASYNC");
	CHECK_RET(out[2], -EACCES, "NOP with DRAIN");
	CHECK_RET(out[3], -EACCES, "NOP with CQE_SKIP_SUCCESS");
	io_uring_queue_exit(&ring);

	/* allowed flags alone, nothing required */
	res[2] = r_flags(IORING_RESTRICTION_SQE_FLAGS_ALLOWED, IOSQE_ASYNC);
	if (restricted_ring(&ring, 0, res, 3, &err))
		return T_FAIL;
	ret = enable(&ring);
	CHECK_RET(ret, 0, "enable");
	/* the last SQE_FLAGS_ALLOWED entry wins */
	prep_nop(&ring, 0, 0);
	prep_nop(&ring, 1, IOSQE_ASYNC);
	prep_nop(&ring, 2, IOSQE_IO_LINK);
	ret = submit_and_reap(&ring, 3, out, 3);
	CHECK_RET(ret, 0, "submit");
	CHECK_RET(out[0], 0, "NOP without flags");
	CHECK_RET(out[1], 0, "NOP with ASYNC");
	CHECK_RET(out[2], -EACCES, "NOP with IO_LINK (overridden)");
	io_uring_queue_exit(&ring);
	return T_OK;
fail:
	return T_FAIL;
}

/*
 * Fixed files only: SQE_FLAGS_REQUIRED = IOSQE_FIXED_FILE.
 * baseline: absent. patched, upstream: a read through a registered file
 * works, one through a plain descriptor gives -EACCES.
 */
static int test_fixed_files_only(void)
{
	struct io_uring_restriction res[] = {
		r_sqe_op(IORING_OP_READ),
		r_flags(IORING_RESTRICTION_SQE_FLAGS_REQUIRED, IOSQE_FIXED_FILE),
	};
	struct io_uring ring;
	int out[2] = { 1, 1 };
	char buf[2][16];
	int err, ret, fd;

	if (restricted_ring(&ring, 0, res, 2, &err))
		return err ? T_FAIL : T_OK;
	fd = open("/dev/zero", O_RDONLY);
	CHECK(fd >= 0, "open /dev/zero");
	ret = reg(ring.ring_fd, IORING_REGISTER_FILES, &fd, 1);
	CHECK_RET(ret, 0, "register files while disabled");
	ret = enable(&ring);
	CHECK_RET(ret, 0, "enable");
	prep_read(&ring, 0, buf[0], 0, IOSQE_FIXED_FILE);
	prep_read(&ring, fd, buf[1], 1, 0);
	ret = submit_and_reap(&ring, 2, out, 2);
	CHECK_RET(ret, 0, "submit");
	CHECK_RET(out[0], 16, "read via fixed file");
	CHECK_RET(out[1], -EACCES, "read via plain fd");
	close(fd);
	io_uring_queue_exit(&ring);
	return T_OK;
fail:
	return T_FAIL;
}

/*
 * An empty restriction set (nr_args 0) denies every SQE and register op.
 * baseline: absent. patched, upstream: registration 0, then -EACCES.
 */
static int test_empty_set_denies_all(void)
{
	struct io_uring_restriction res[1] = { r_sqe_op(IORING_OP_NOP) };
	struct iovec iov = { .iov_base = page, .iov_len = 4096 };
	struct io_uring ring;
	int out[1] = { 1 };
	int err, ret;

	if (restricted_ring(&ring, 0, res, 0, &err))
		return err ? T_FAIL : T_OK;
	ret = enable(&ring);
	CHECK_RET(ret, 0, "enable");
	prep_nop(&ring, 0, 0);
	ret = submit_and_reap(&ring, 1, out, 1);
	CHECK_RET(ret, 0, "submit");
	CHECK_RET(out[0], -EACCES, "NOP");
	ret = reg(ring.ring_fd, IORING_REGISTER_BUFFERS, &iov, 1);
	CHECK_RET(ret, -EACCES, "REGISTER_BUFFERS");
	io_uring_queue_exit(&ring);
	return T_OK;
fail:
	return T_FAIL;
}

/*
 * Restrictions register once only.
 * baseline: absent. patched, upstream: second registration -EBUSY.
 */
static int test_only_once(void)
{
	struct io_uring_restriction res[] = { r_sqe_op(IORING_OP_NOP) };
	struct io_uring ring;
	int err, ret;

	if (restricted_ring(&ring, 0, res, 1, &err))
		return err ? T_FAIL : T_OK;
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, res, 1);
	CHECK_RET(ret, -EBUSY, "second registration");
	io_uring_queue_exit(&ring);
	return T_OK;
fail:
	return T_FAIL;
}

/*
 * SQPOLL: SQEs queued on a disabled ring are not run until it is enabled.
 * baseline: setup -EINVAL. patched, upstream: no CQE and an untouched SQ
 * head while disabled, every NOP completes after enable.
 */
static int test_sqpoll_waits_for_enable(void)
{
	struct io_uring_restriction res[] = { r_sqe_op(IORING_OP_NOP) };
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int err, ret, i;

	if (restricted_ring(&ring, IORING_SETUP_SQPOLL, res, 1, &err))
		return err ? T_FAIL : T_OK;
	for (i = 0; i < 4; i++)
		prep_nop(&ring, i, 0);
	/* publishes the tail; enter is refused if liburing needs it */
	ret = io_uring_submit(&ring);
	CHECK(ret == 4 || ret == -EBADFD, "submit while disabled: %d", ret);
	usleep(200 * 1000);
	CHECK_RET((int)io_uring_cq_ready(&ring), 0, "CQEs while disabled");
	CHECK_RET((int)*ring.sq.khead, 0, "SQ head while disabled");
	ret = enable(&ring);
	CHECK_RET(ret, 0, "enable");
	for (i = 0; i < 4; i++) {
		ret = wait_cqe(&ring, &cqe);
		CHECK_RET(ret, 0, "wait");
		CHECK_RET(cqe->res, 0, "NOP");
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	return T_OK;
fail:
	return T_FAIL;
}

/*
 * A link NOP -> READ (denied) -> NOP.
 * baseline: absent. patched, upstream: all three consumed; the denied SQE
 * completes with -EACCES and the rest of its link with -ECANCELED.
 */
static int test_link_with_denied(void)
{
	struct io_uring_restriction res[] = {
		r_sqe_op(IORING_OP_NOP),
		r_flags(IORING_RESTRICTION_SQE_FLAGS_ALLOWED, IOSQE_IO_LINK),
	};
	struct io_uring ring;
	int out[4] = { 1, 1, 1, 1 };
	char buf[16];
	int err, ret;

	if (restricted_ring(&ring, 0, res, 2, &err))
		return err ? T_FAIL : T_OK;
	ret = enable(&ring);
	CHECK_RET(ret, 0, "enable");
	prep_nop(&ring, 0, IOSQE_IO_LINK);
	prep_read(&ring, 0, buf, 1, IOSQE_IO_LINK);
	prep_nop(&ring, 2, 0);
	prep_nop(&ring, 3, 0);			/* after the link: runs */
	ret = submit_and_reap(&ring, 4, out, 4);
	CHECK_RET(ret, 0, "submit");
	CHECK_RET(out[0], -ECANCELED, "link head");
	CHECK_RET(out[1], -EACCES, "denied READ");
	CHECK_RET(out[2], -ECANCELED, "link tail");
	CHECK_RET(out[3], 0, "NOP after the link");
	io_uring_queue_exit(&ring);
	return T_OK;
fail:
	return T_FAIL;
}

/*
 * IOSQE_ASYNC requests are checked at submission, before the punt.
 * baseline: absent. patched, upstream: allowed op 0, denied op -EACCES.
 */
static int test_async_requests(void)
{
	struct io_uring_restriction res[] = {
		r_sqe_op(IORING_OP_NOP),
		r_flags(IORING_RESTRICTION_SQE_FLAGS_ALLOWED, IOSQE_ASYNC),
	};
	struct io_uring ring;
	int out[2] = { 1, 1 };
	char buf[16];
	int err, ret, fd;

	if (restricted_ring(&ring, 0, res, 2, &err))
		return err ? T_FAIL : T_OK;
	fd = open("/dev/zero", O_RDONLY);
	CHECK(fd >= 0, "open /dev/zero");
	ret = enable(&ring);
	CHECK_RET(ret, 0, "enable");
	prep_nop(&ring, 0, IOSQE_ASYNC);
	prep_read(&ring, fd, buf, 1, IOSQE_ASYNC);
	ret = submit_and_reap(&ring, 2, out, 2);
	CHECK_RET(ret, 0, "submit");
	CHECK_RET(out[0], 0, "async NOP");
	CHECK_RET(out[1], -EACCES, "async READ");
	close(fd);
	io_uring_queue_exit(&ring);
	return T_OK;
fail:
	return T_FAIL;
}

/*
 * IORING_OP_MSG_RING into a disabled ring.
 * baseline: absent. patched, upstream: -EBADFD while disabled, delivered
 * after enable.
 */
static int test_msg_ring_disabled(void)
{
	struct io_uring src, dst;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int out[1] = { 1 };
	int ret;

	ret = ring_init(&dst, IORING_SETUP_R_DISABLED);
	CHECK_RET(ret, have_feature ? 0 : -EINVAL, "setup disabled target");
	if (!have_feature)
		return T_OK;
	ret = ring_init(&src, 0);
	CHECK_RET(ret, 0, "setup source");
	sqe = io_uring_get_sqe(&src);
	io_uring_prep_msg_ring(sqe, dst.ring_fd, 7, 0x1234, 0);
	sqe->user_data = 0;
	ret = submit_and_reap(&src, 1, out, 1);
	CHECK_RET(ret, 0, "submit");
	CHECK_RET(out[0], -EBADFD, "MSG_RING into disabled ring");
	ret = enable(&dst);
	CHECK_RET(ret, 0, "enable target");
	CHECK_RET((int)io_uring_cq_ready(&dst), 0, "target CQEs");
	sqe = io_uring_get_sqe(&src);
	io_uring_prep_msg_ring(sqe, dst.ring_fd, 7, 0x1234, 0);
	sqe->user_data = 0;
	ret = submit_and_reap(&src, 1, out, 1);
	CHECK_RET(ret, 0, "submit");
	CHECK_RET(out[0], 0, "MSG_RING into enabled ring");
	ret = wait_cqe(&dst, &cqe);
	CHECK_RET(ret, 0, "target wait");
	CHECK(cqe->user_data == 0x1234 && cqe->res == 7, "target CQE %llx/%d",
	      (unsigned long long)cqe->user_data, cqe->res);
	io_uring_cqe_seen(&dst, cqe);
	io_uring_queue_exit(&src);
	io_uring_queue_exit(&dst);
	return T_OK;
fail:
	return T_FAIL;
}

#define MAX_RESTRICTIONS (IORING_RESTRICTION_LAST + IORING_REGISTER_LAST + \
			  IORING_OP_LAST)

/*
 * Bad input to IORING_REGISTER_RESTRICTIONS: each is refused with a clear
 * error and leaves the ring unrestricted, so a corrected retry works.
 * baseline: -EINVAL for all. patched, upstream: as below.
 */
static int test_bad_input(void)
{
	static struct io_uring_restriction many[MAX_RESTRICTIONS + 1];
	struct io_uring_restriction res[2];
	struct io_uring ring;
	int out[1] = { 1 };
	unsigned int i;
	int ret;

	for (i = 0; i < MAX_RESTRICTIONS + 1; i++)
		many[i] = r_sqe_op(IORING_OP_NOP);

	ret = ring_init(&ring, have_feature ? IORING_SETUP_R_DISABLED : 0);
	CHECK_RET(ret, 0, "setup");
	if (!have_feature) {
		ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, many, 1);
		CHECK_RET(ret, -EINVAL, "register on baseline");
		io_uring_queue_exit(&ring);
		return T_OK;
	}
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, NULL, 1);
	CHECK_RET(ret, -EINVAL, "NULL array");
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, (void *)8, 1);
	CHECK_RET(ret, -EFAULT, "unmapped array");
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, many,
		  MAX_RESTRICTIONS + 1);
	CHECK_RET(ret, -EINVAL, "nr_args over the limit");
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, many, ~0U);
	CHECK_RET(ret, -EINVAL, "nr_args UINT_MAX");

	res[0] = r_sqe_op(IORING_OP_NOP);
	res[1] = (struct io_uring_restriction){ .opcode = IORING_RESTRICTION_LAST };
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, res, 2);
	CHECK_RET(ret, -EINVAL, "unknown restriction opcode");
	res[1] = r_sqe_op(IORING_OP_LAST);
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, res, 2);
	CHECK_RET(ret, -EINVAL, "sqe_op IORING_OP_LAST");
	res[1] = r_sqe_op(0xff);
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, res, 2);
	CHECK_RET(ret, -EINVAL, "sqe_op 255");
	res[1] = r_register_op(IORING_REGISTER_LAST);
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, res, 2);
	CHECK_RET(ret, -EINVAL, "register_op IORING_REGISTER_LAST");

	/*
	 * None of the refused lists stuck: the NOP of res[0] is not allowed
	 * by the list installed now, which holds only READ.
	 */
	res[0] = r_sqe_op(IORING_OP_READ);
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, res, 1);
	CHECK_RET(ret, 0, "valid list after refusals");
	ret = enable(&ring);
	CHECK_RET(ret, 0, "enable");
	prep_nop(&ring, 0, 0);
	ret = submit_and_reap(&ring, 1, out, 1);
	CHECK_RET(ret, 0, "submit");
	CHECK_RET(out[0], -EACCES, "NOP from a refused list");
	io_uring_queue_exit(&ring);

	/* exactly at the limit is accepted */
	ret = ring_init(&ring, IORING_SETUP_R_DISABLED);
	CHECK_RET(ret, 0, "setup");
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, many,
		  MAX_RESTRICTIONS);
	CHECK_RET(ret, 0, "nr_args at the limit");
	io_uring_queue_exit(&ring);

	/* reserved fields are not checked: upstream's ABI ignores them */
	ret = ring_init(&ring, IORING_SETUP_R_DISABLED);
	CHECK_RET(ret, 0, "setup");
	res[0] = r_sqe_op(IORING_OP_NOP);
	res[0].resv = 1;
	res[0].resv2[2] = 0xdead;
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, res, 1);
	CHECK_RET(ret, 0, "non-zero reserved fields");
	io_uring_queue_exit(&ring);
	return T_OK;
fail:
	return T_FAIL;
}

/*
 * Run last: nothing above may have left a WARN, BUG or oops in the kernel
 * log. Every kernel is booted fresh for the suite, so the whole log counts.
 * All kernels: no such line.
 */
static int test_kernel_log_clean(void)
{
	static const char *const bad[] = {
		"WARNING:", "BUG:", "Oops", "Call Trace", "general protection",
	};
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	unsigned int i;
	char *log, *line;
	int found = 0;

	CHECK(len > 0, "klogctl size: %s", strerror(errno));
	log = calloc(1, len + 1);
	CHECK(log, "calloc");
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, len);
	if (len < 0) {
		free(log);
		CHECK(0, "klogctl read: %s", strerror(errno));
	}
	for (line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			if (strstr(line, bad[i])) {
				fprintf(stderr, "  kernel log: %s\n", line);
				found++;
				break;
			}
		}
	}
	free(log);
	CHECK(!found, "%d suspicious kernel log lines", found);
	return T_OK;
fail:
	return T_FAIL;
}

static const struct {
	const char *name;
	int (*fn)(void);
} tests[] = {
	{ "setup_disabled", test_setup_disabled },
	{ "only_on_disabled_ring", test_only_on_disabled_ring },
	{ "enable_rules", test_enable_rules },
	{ "submit_on_disabled_ring", test_submit_disabled },
	{ "sqe_op_allowlist", test_sqe_op_allowlist },
	{ "register_op_allowlist", test_register_op_allowlist },
	{ "sqe_flags_required_allowed", test_sqe_flags },
	{ "fixed_files_only", test_fixed_files_only },
	{ "empty_set_denies_all", test_empty_set_denies_all },
	{ "restrictions_only_once", test_only_once },
	{ "sqpoll_waits_for_enable", test_sqpoll_waits_for_enable },
	{ "link_with_denied_sqe", test_link_with_denied },
	{ "async_requests", test_async_requests },
	{ "msg_ring_into_disabled_ring", test_msg_ring_disabled },
	{ "bad_input", test_bad_input },
	{ "kernel_log_clean", test_kernel_log_clean },
};

static unsigned int current_case;

/* last line of defence against a hang: stop the suite, TAP-visibly */
static void on_alarm(int sig)
{
	(void)sig;
	printf("Bail out! case %u timed out\n", current_case + 1);
	fflush(stdout);
	_exit(1);
}

int main(int argc, char *argv[])
{
	unsigned int i, n = sizeof(tests) / sizeof(tests[0]);
	int failed = 0;

	if (argc != 3 || strcmp(argv[1], "--kernel")) {
		fprintf(stderr, "usage: %s --kernel baseline|patched|upstream\n",
			argv[0]);
		return 2;
	}
	kernel = argv[2];
	if (!strcmp(kernel, "baseline")) {
		have_feature = 0;
	} else if (!strcmp(kernel, "patched") || !strcmp(kernel, "upstream")) {
		have_feature = 1;
	} else {
		fprintf(stderr, "unknown kernel '%s'\n", kernel);
		return 2;
	}

	page = aligned_alloc(4096, 4096);
	if (!page)
		return 1;
	printf("TAP version 13\n1..%u\n", n);
	signal(SIGALRM, on_alarm);
	for (i = 0; i < n; i++) {
		int ret;

		current_case = i;
		alarm(60);
		ret = tests[i].fn();
		alarm(0);

		if (ret != T_OK)
			failed++;
		printf("%s %u - %s # %s: %s\n", ret == T_OK ? "ok" : "not ok",
		       i + 1, tests[i].name, kernel,
		       have_feature ? "upstream semantics" : "feature absent");
		fflush(stdout);
	}
	return failed ? 1 : 0;
}
