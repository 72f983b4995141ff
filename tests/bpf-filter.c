// SPDX-License-Identifier: MIT
/*
 * Description: IORING_REGISTER_BPF_FILTER (Linux 7.0's ABI, patches 0013
 *		and 0014), per ring and per task: what a filter sees, what
 *		it refuses and with which error, DENY_REST, SZ_STRICT,
 *		stacking, inheritance across fork, privileges, the JIT on
 *		and off, and every bad registration. On baseline and
 *		upstream 6.1 the opcode does not exist: the ring form and
 *		the ring-less one (fd -1) both answer -EINVAL, which 6.1
 *		checks before the fd.
 *
 * Usage: LAB_KERNEL=baseline|patched|upstream bpf-filter
 *
 * Built against the patched tree's uapi headers (Makefile: UAPI), not a
 * copy. Runs on the kernel tree's kselftest harness (TAP, a child per
 * test).
 */
#define _GNU_SOURCE
#include "uring-test.h"
#include <linux/io_uring/bpf_filter.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/capability.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/un.h>
#include <sys/ioctl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <liburing.h>

#include "kselftest_harness.h"

#define OFF_USER_DATA	offsetof(struct io_uring_bpf_ctx, user_data)
#define OFF_OPCODE_WORD	offsetof(struct io_uring_bpf_ctx, opcode)
#define OFF_FAMILY	offsetof(struct io_uring_bpf_ctx, socket.family)
#define OFF_TYPE	offsetof(struct io_uring_bpf_ctx, socket.type)
#define OFF_OPEN_FLAGS	offsetof(struct io_uring_bpf_ctx, open.flags)
#define OFF_RESOLVE	offsetof(struct io_uring_bpf_ctx, open.resolve)

/* the word at offset 8 holds opcode, sqe_flags and pdu_size (host order) */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SHIFT_FLAGS	8
#define SHIFT_PDU	16
#define PAD_MASK	0xff000000u
#else
#define SHIFT_FLAGS	16
#define SHIFT_PDU	8
#define PAD_MASK	0xffu
#endif

#define LEN(a)		(sizeof(a) / sizeof((a)[0]))

static struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, 1) };
static struct sock_filter deny[] = { BPF_STMT(BPF_RET | BPF_K, 0) };

/* AF_INET only */
static struct sock_filter inet_only[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_FAMILY),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
};

/* SOCK_STREAM only, whatever SOCK_CLOEXEC and SOCK_NONBLOCK say */
static struct sock_filter stream_only[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_TYPE),
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_STREAM, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
};

/* open, but never create */
static struct sock_filter no_creat[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_OPEN_FLAGS),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_CREAT, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
	BPF_STMT(BPF_RET | BPF_K, 1),
};

static struct sock_filter no_resolve_in_root[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_RESOLVE),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, RESOLVE_IN_ROOT, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
	BPF_STMT(BPF_RET | BPF_K, 1),
};

/* user_data below 1000 (both words), and no IOSQE_ASYNC */
static struct sock_filter ud_and_flags[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_USER_DATA + 4),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 5),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_USER_DATA),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 1000, 3, 0),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_OPCODE_WORD),
	BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, SHIFT_FLAGS),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, IOSQE_ASYNC, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
	BPF_STMT(BPF_RET | BPF_K, 1),
};

/* 1 when the kernel under test has the filters */
static int has_filters(void)
{
	const char *k = getenv("LAB_KERNEL");

	return !k || !strcmp(k, "patched");
}

static void bpf_arg(struct io_uring_bpf *b, unsigned int opcode,
		    struct sock_filter *prog, unsigned int len,
		    unsigned int flags, unsigned int pdu)
{
	memset(b, 0, sizeof(*b));
	b->cmd_type = IO_URING_BPF_CMD_FILTER;
	b->filter.opcode = opcode;
	b->filter.flags = flags;
	b->filter.filter_len = len;
	b->filter.pdu_size = pdu;
	b->filter.filter_ptr = (uintptr_t)prog;
}

/* register on @fd (-1: the task); the kernel's answer as -errno */
static int add(int fd, unsigned int opcode, struct sock_filter *prog,
	       unsigned int len, unsigned int flags, unsigned int pdu)
{
	struct io_uring_bpf b;

	bpf_arg(&b, opcode, prog, len, flags, pdu);
	return reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1);
}

/* submit one prepared SQE, wait for its CQE: its res */
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

static int nop(struct io_uring *ring, __u64 ud, unsigned int flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_nop(sqe);
	sqe->user_data = ud;
	sqe->flags = flags;
	return run(ring);
}

/* an opening op's result: 0 for a file made (and closed), else its error */
static int closed(int res)
{
	if (res >= 0) {
		close(res);
		res = 0;
	}
	return res;
}

static int sock(struct io_uring *ring, int family, int type)
{
	io_uring_prep_socket(io_uring_get_sqe(ring), family, type, 0, 0);
	return closed(run(ring));
}

static int openat_(struct io_uring *ring, const char *path, int flags)
{
	io_uring_prep_openat(io_uring_get_sqe(ring), AT_FDCWD, path, flags,
			     0600);
	return closed(run(ring));
}

static int openat2_(struct io_uring *ring, const char *path, __u64 resolve)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY, .resolve = resolve };

	io_uring_prep_openat2(io_uring_get_sqe(ring), AT_FDCWD, path, &how);
	return closed(run(ring));
}

/*
 * user_data's low word through a mask, or a bit test, before it decides:
 * the value is no longer the word as loaded, so a kernel that decides
 * filters on ranges of user_data must leave these to run
 */
static struct sock_filter ud_low_byte[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_USER_DATA),
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x12, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
};

static struct sock_filter ud_even[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_USER_DATA),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 1, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
	BPF_STMT(BPF_RET | BPF_K, 1),
};

/*
 * IOSQE_ASYNC only with user_data 5: every user_data allowed without it,
 * one with it, so the flags values decide user_data differently
 */
static struct sock_filter ud_async_tag[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_USER_DATA),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 5, 2, 0),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_OPCODE_WORD),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, IOSQE_ASYNC << SHIFT_FLAGS, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
};

/* tags 7 and 9 in the low word, whatever the high word holds */
static struct sock_filter ud_tags[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_USER_DATA),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 7, 1, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 9, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
};

FIXTURE(ring) {
	struct io_uring ring;
};

FIXTURE_SETUP(ring)
{
	ASSERT_EQ(0, io_uring_queue_init(8, &self->ring, 0));
	if (!has_filters()) {
		struct io_uring_bpf b;

		bpf_arg(&b, IORING_OP_NOP, deny, 1, 0, 0);
		ASSERT_EQ(-EINVAL, reg(self->ring.ring_fd,
				       IORING_REGISTER_BPF_FILTER, &b, 1));
		ASSERT_EQ(-EINVAL, reg(-1, IORING_REGISTER_BPF_FILTER, &b, 1));
		ASSERT_EQ(0, nop(&self->ring, 1, 0));
		SKIP(return, "no IORING_REGISTER_BPF_FILTER on %s (checked)",
		     getenv("LAB_KERNEL"));
	}
}

/* the harness runs a test whose setup skipped: every TEST_F starts so */
#define FILTERS_OR_RETURN() do { if (!has_filters()) return; } while (0)

FIXTURE_TEARDOWN(ring)
{
	io_uring_queue_exit(&self->ring);
}

TEST_F(ring, deny_nop_only)
{
	int fd = self->ring.ring_fd;

	FILTERS_OR_RETURN();

	ASSERT_EQ(0, nop(&self->ring, 1, 0));
	ASSERT_EQ(0, add(fd, IORING_OP_NOP, deny, 1, 0, 0));
	EXPECT_EQ(-EACCES, nop(&self->ring, 2, 0));
	/* another opcode has no filter */
	EXPECT_EQ(0, openat_(&self->ring, "/dev/null", O_RDONLY));
}

TEST_F(ring, user_data_and_flags)
{
	FILTERS_OR_RETURN();
	ASSERT_EQ(0, add(self->ring.ring_fd, IORING_OP_NOP, ud_and_flags,
			 LEN(ud_and_flags), 0, 0));
	EXPECT_EQ(0, nop(&self->ring, 999, 0));
	EXPECT_EQ(-EACCES, nop(&self->ring, 1000, 0));
	EXPECT_EQ(-EACCES, nop(&self->ring, 1ULL << 32, 0));
	EXPECT_EQ(0, nop(&self->ring, 5, 0));
	EXPECT_EQ(-EACCES, nop(&self->ring, 5, IOSQE_ASYNC));
	/* as 7.0, the flags after prep: a drain's IOSQE_ASYNC included */
	EXPECT_EQ(-EACCES, nop(&self->ring, 6, IOSQE_IO_DRAIN));
}

TEST_F(ring, user_data_masked)
{
	FILTERS_OR_RETURN();
	ASSERT_EQ(0, add(self->ring.ring_fd, IORING_OP_NOP, ud_low_byte,
			 LEN(ud_low_byte), 0, 0));
	EXPECT_EQ(0, nop(&self->ring, 0x12, 0));
	EXPECT_EQ(0, nop(&self->ring, 0x1012, 0));
	EXPECT_EQ(-EACCES, nop(&self->ring, 0x13, 0));
	EXPECT_EQ(-EACCES, nop(&self->ring, 0x1013, 0));
}

TEST_F(ring, user_data_bit_test)
{
	FILTERS_OR_RETURN();
	ASSERT_EQ(0, add(self->ring.ring_fd, IORING_OP_NOP, ud_even,
			 LEN(ud_even), 0, 0));
	EXPECT_EQ(0, nop(&self->ring, 2, 0));
	EXPECT_EQ(-EACCES, nop(&self->ring, 3, 0));
	EXPECT_EQ(0, nop(&self->ring, 4, 0));
	EXPECT_EQ(-EACCES, nop(&self->ring, 5, 0));
}

TEST_F(ring, user_data_low_word)
{
	FILTERS_OR_RETURN();
	ASSERT_EQ(0, add(self->ring.ring_fd, IORING_OP_NOP, ud_tags,
			 LEN(ud_tags), 0, 0));
	EXPECT_EQ(0, nop(&self->ring, 7, 0));
	EXPECT_EQ(0, nop(&self->ring, 9, 0));
	EXPECT_EQ(0, nop(&self->ring, (5ULL << 32) | 7, 0));
	EXPECT_EQ(-EACCES, nop(&self->ring, 8, 0));
	EXPECT_EQ(-EACCES, nop(&self->ring, (1ULL << 32) | 8, 0));
	EXPECT_EQ(-EACCES, nop(&self->ring, 1ULL << 32, 0));
	/* a drain's flags are a flags value of their own: decided the same */
	EXPECT_EQ(0, nop(&self->ring, 9, IOSQE_IO_DRAIN));
}

/* each flags value's verdict on user_data its own */
TEST_F(ring, user_data_per_flags)
{
	FILTERS_OR_RETURN();
	ASSERT_EQ(0, add(self->ring.ring_fd, IORING_OP_NOP, ud_async_tag,
			 LEN(ud_async_tag), 0, 0));
	EXPECT_EQ(0, nop(&self->ring, 6, 0));
	EXPECT_EQ(0, nop(&self->ring, 5, IOSQE_ASYNC));
	EXPECT_EQ(-EACCES, nop(&self->ring, 6, IOSQE_ASYNC));
	EXPECT_EQ(-EACCES, nop(&self->ring, 6, IOSQE_ASYNC | IOSQE_IO_LINK));
	EXPECT_EQ(0, nop(&self->ring, 6, IOSQE_IO_LINK));
}

/* the context: opcode, pdu_size, and zero past the opcode's payload */
TEST_F(ring, context_fields)
{
	struct sock_filter nop_ctx[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_OPCODE_WORD),
		/* opcode 0, flags 0, pdu_size 0, pad 0 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 36),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter socket_ctx[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_OPCODE_WORD),
		BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, SHIFT_PDU),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 12, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_OPCODE_WORD),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IORING_OP_SOCKET, 0, 2),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 28),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, 1),
	};
	/* the pad byte of word 8, word 12, and words 28 to 36 are zero */
	struct sock_filter zero_tail[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_OPCODE_WORD),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PAD_MASK, 9, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 12),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 7),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 28),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 32),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 36),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter family_zero[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_FAMILY),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	int fd = self->ring.ring_fd;

	FILTERS_OR_RETURN();

	ASSERT_EQ(0, add(fd, IORING_OP_NOP, nop_ctx, LEN(nop_ctx), 0, 0));
	EXPECT_EQ(0, nop(&self->ring, 7, 0));
	EXPECT_EQ(-EACCES, nop(&self->ring, 7, IOSQE_ASYNC));
	ASSERT_EQ(0, add(fd, IORING_OP_SOCKET, socket_ctx, LEN(socket_ctx),
			 0, 12));
	EXPECT_EQ(0, sock(&self->ring, AF_UNIX, SOCK_DGRAM));
	/* the padding bytes and the words past SOCKET's payload are zero */
	ASSERT_EQ(0, add(fd, IORING_OP_SOCKET, zero_tail, LEN(zero_tail),
			 0, 12));
	EXPECT_EQ(0, sock(&self->ring, AF_UNIX, SOCK_DGRAM));
	/* and the filter can fail: a non-zero word (the family) refuses */
	ASSERT_EQ(0, add(fd, IORING_OP_SOCKET, family_zero, LEN(family_zero),
			 0, 12));
	EXPECT_EQ(-EACCES, sock(&self->ring, AF_UNIX, SOCK_DGRAM));
}

TEST_F(ring, socket_family_and_type)
{
	int fd = self->ring.ring_fd;

	FILTERS_OR_RETURN();

	ASSERT_EQ(0, add(fd, IORING_OP_SOCKET, inet_only, LEN(inet_only),
			 0, 12));
	EXPECT_EQ(0, sock(&self->ring, AF_INET, SOCK_STREAM));
	EXPECT_EQ(0, sock(&self->ring, AF_INET, SOCK_DGRAM));
	EXPECT_EQ(-EACCES, sock(&self->ring, AF_INET6, SOCK_STREAM));
	EXPECT_EQ(-EACCES, sock(&self->ring, AF_UNIX, SOCK_STREAM));
	/* stacked: both must allow */
	ASSERT_EQ(0, add(fd, IORING_OP_SOCKET, stream_only,
			 LEN(stream_only), 0, 12));
	EXPECT_EQ(0, sock(&self->ring, AF_INET, SOCK_STREAM | SOCK_CLOEXEC));
	EXPECT_EQ(-EACCES, sock(&self->ring, AF_INET, SOCK_DGRAM));
	EXPECT_EQ(-EACCES, sock(&self->ring, AF_UNIX, SOCK_STREAM));
}

TEST_F(ring, open_flags_and_resolve)
{
	char path[] = "/tmp/bpf-filter-XXXXXX";
	int fd = self->ring.ring_fd, tmp;

	FILTERS_OR_RETURN();

	tmp = mkstemp(path);
	ASSERT_LE(0, tmp);
	close(tmp);
	unlink(path);
	ASSERT_EQ(0, add(fd, IORING_OP_OPENAT, no_creat, LEN(no_creat),
			 0, 24));
	EXPECT_EQ(-EACCES, openat_(&self->ring, path, O_CREAT | O_RDWR));
	EXPECT_EQ(-ENOENT, access(path, F_OK) ? -errno : 0);
	EXPECT_EQ(0, openat_(&self->ring, "/dev/null", O_RDONLY));
	/* OPENAT2 has no filter yet */
	EXPECT_EQ(0, openat2_(&self->ring, ".", RESOLVE_IN_ROOT));
	ASSERT_EQ(0, add(fd, IORING_OP_OPENAT2, no_resolve_in_root,
			 LEN(no_resolve_in_root), 0, 24));
	EXPECT_EQ(-EACCES, openat2_(&self->ring, ".", RESOLVE_IN_ROOT));
	EXPECT_EQ(0, openat2_(&self->ring, ".", 0));
}

TEST_F(ring, deny_rest)
{
	int fd = self->ring.ring_fd;

	FILTERS_OR_RETURN();

	ASSERT_EQ(0, add(fd, IORING_OP_SOCKET, inet_only, LEN(inet_only),
			 0, 12));
	ASSERT_EQ(0, add(fd, IORING_OP_NOP, allow, 1,
			 IO_URING_BPF_FILTER_DENY_REST, 0));
	EXPECT_EQ(0, nop(&self->ring, 1, 0));
	/* an opcode that had a filter keeps it, and only it */
	EXPECT_EQ(0, sock(&self->ring, AF_INET, SOCK_STREAM));
	EXPECT_EQ(-EACCES, sock(&self->ring, AF_UNIX, SOCK_STREAM));
	/* the rest is denied, and an allow stacked on a denial denies */
	EXPECT_EQ(-EACCES, openat_(&self->ring, "/dev/null", O_RDONLY));
	ASSERT_EQ(0, add(fd, IORING_OP_OPENAT, allow, 1, 0, 24));
	EXPECT_EQ(-EACCES, openat_(&self->ring, "/dev/null", O_RDONLY));
}

TEST_F(ring, four_stacked)
{
	int fd = self->ring.ring_fd, i;

	FILTERS_OR_RETURN();

	/* filter i denies user_data i */
	for (i = 0; i < 4; i++) {
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_USER_DATA),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, i, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, 0),
			BPF_STMT(BPF_RET | BPF_K, 1),
		};

		ASSERT_EQ(0, add(fd, IORING_OP_NOP, f, LEN(f), 0, 0));
	}
	for (i = 0; i < 4; i++)
		EXPECT_EQ(-EACCES, nop(&self->ring, i, 0));
	EXPECT_EQ(0, nop(&self->ring, 4, 0));
}

/* register a deny filter from a read-only page: the kernel's answer */
static int read_only_register(int fd, unsigned int opcode, unsigned int pdu)
{
	struct io_uring_bpf *b = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int ret;

	if (b == MAP_FAILED)
		return -1000;
	bpf_arg(b, opcode, deny, 1, 0, pdu);
	mprotect(b, 4096, PROT_READ);
	ret = reg(fd, IORING_REGISTER_BPF_FILTER, b, 1);
	munmap(b, 4096);
	return ret;
}

TEST_F(ring, pdu_size)
{
	struct io_uring_bpf b;
	int fd = self->ring.ring_fd;

	FILTERS_OR_RETURN();

	/* deny programs: a refused registration that got in would show */
	bpf_arg(&b, IORING_OP_SOCKET, deny, 1, 0, 24);
	EXPECT_EQ(-EMSGSIZE, reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1));
	EXPECT_EQ(12, b.filter.pdu_size);
	bpf_arg(&b, IORING_OP_SOCKET, deny, 1, IO_URING_BPF_FILTER_SZ_STRICT,
		8);
	EXPECT_EQ(-EMSGSIZE, reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1));
	EXPECT_EQ(12, b.filter.pdu_size);
	EXPECT_EQ(0, sock(&self->ring, AF_INET, SOCK_STREAM));
	bpf_arg(&b, IORING_OP_OPENAT2, deny, 1,
		IO_URING_BPF_FILTER_SZ_STRICT, 0);
	EXPECT_EQ(-EMSGSIZE, reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1));
	EXPECT_EQ(24, b.filter.pdu_size);
	bpf_arg(&b, IORING_OP_NOP, deny, 1, 0, 1);
	EXPECT_EQ(-EMSGSIZE, reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1));
	EXPECT_EQ(0, b.filter.pdu_size);
	/* CONNECT's payload is 7.2's, 24 bytes */
	bpf_arg(&b, IORING_OP_CONNECT, deny, 1,
		IO_URING_BPF_FILTER_SZ_STRICT, 0);
	EXPECT_EQ(-EMSGSIZE, reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1));
	EXPECT_EQ(24, b.filter.pdu_size);
	/* written back even when it matches: a read-only argument faults */
	EXPECT_EQ(-EFAULT, read_only_register(fd, IORING_OP_NOP, 0));
	EXPECT_EQ(0, nop(&self->ring, 1, 0));
	/* smaller without SZ_STRICT: accepted, the kernel's size written back */
	bpf_arg(&b, IORING_OP_SOCKET, deny, 1, 0, 8);
	EXPECT_EQ(0, reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1));
	EXPECT_EQ(12, b.filter.pdu_size);
	EXPECT_EQ(-EACCES, sock(&self->ring, AF_INET, SOCK_STREAM));
	/* the refused registrations added nothing */
	EXPECT_EQ(0, openat2_(&self->ring, ".", 0));
	EXPECT_EQ(0, nop(&self->ring, 1, 0));
}

/* every malformed registration fails cleanly and adds nothing */
TEST_F(ring, bad_input)
{
	struct sock_filter past_ctx[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 sizeof(struct io_uring_bpf_ctx)),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter misaligned[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 2),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter byte_load[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 8),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter scratch[] = {
		BPF_STMT(BPF_ST, 0),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter backward[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_STMT(BPF_JMP | BPF_JA, 0xffffffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter no_return[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
	};
	/* X is never loaded, so it is 0: the forms that read it are refused */
	struct sock_filter alu_x[] = {
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_filter jmp_x[] = {
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, 1),
	};
	struct sock_filter big[BPF_MAXINSNS + 1];
	struct io_uring_bpf b;
	int fd = self->ring.ring_fd, i;

	FILTERS_OR_RETURN();

	for (i = 0; i < BPF_MAXINSNS + 1; i++)
		big[i] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);

	EXPECT_EQ(-EINVAL, add(fd, IORING_OP_NOP, deny, 0, 0, 0));
	EXPECT_EQ(-EINVAL, add(fd, IORING_OP_NOP, big, BPF_MAXINSNS + 1,
			       0, 0));
	EXPECT_EQ(-EINVAL, add(fd, IORING_OP_LAST, deny, 1, 0, 0));
	EXPECT_EQ(-EINVAL, add(fd, 255, deny, 1, 0, 0));
	EXPECT_EQ(-EINVAL, add(fd, 1U << 16, deny, 1, 0, 0));
	EXPECT_EQ(-EINVAL, add(fd, IORING_OP_NOP, deny, 1, 4, 0));
	EXPECT_EQ(-EINVAL, add(fd, IORING_OP_NOP, deny, 1, 1U << 31, 0));
	EXPECT_EQ(-EINVAL, add(fd, IORING_OP_NOP, past_ctx, 2, 0, 0));
	EXPECT_EQ(-EINVAL, add(fd, IORING_OP_NOP, misaligned, 2, 0, 0));
	EXPECT_EQ(-EINVAL, add(fd, IORING_OP_NOP, byte_load, 2, 0, 0));
	EXPECT_EQ(-EINVAL, add(fd, IORING_OP_NOP, scratch, 2, 0, 0));
	EXPECT_EQ(-EINVAL, add(fd, IORING_OP_NOP, backward, 3, 0, 0));
	EXPECT_EQ(-EINVAL, add(fd, IORING_OP_NOP, no_return, 1, 0, 0));
	EXPECT_EQ(-EINVAL, add(fd, IORING_OP_NOP, alu_x, 2, 0, 0));
	EXPECT_EQ(-EINVAL, add(fd, IORING_OP_NOP, jmp_x, 3, 0, 0));
	EXPECT_EQ(-EFAULT, add(fd, IORING_OP_NOP, (void *)8, 1, 0, 0));

	bpf_arg(&b, IORING_OP_NOP, deny, 1, 0, 0);
	b.cmd_type = 0;
	EXPECT_EQ(-EINVAL, reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1));
	b.cmd_type = 2;
	EXPECT_EQ(-EINVAL, reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1));
	bpf_arg(&b, IORING_OP_NOP, deny, 1, 0, 0);
	b.cmd_flags = 1;
	EXPECT_EQ(-EINVAL, reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1));
	bpf_arg(&b, IORING_OP_NOP, deny, 1, 0, 0);
	b.resv = 1;
	EXPECT_EQ(-EINVAL, reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1));
	for (i = 0; i < 3; i++) {
		bpf_arg(&b, IORING_OP_NOP, deny, 1, 0, 0);
		b.filter.resv[i] = 1;
		EXPECT_EQ(-EINVAL, reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1));
	}
	for (i = 0; i < 5; i++) {
		bpf_arg(&b, IORING_OP_NOP, deny, 1, 0, 0);
		b.filter.resv2[i] = 1;
		EXPECT_EQ(-EINVAL, reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1));
	}
	bpf_arg(&b, IORING_OP_NOP, deny, 1, 0, 0);
	EXPECT_EQ(-EINVAL, reg(fd, IORING_REGISTER_BPF_FILTER, &b, 0));
	EXPECT_EQ(-EINVAL, reg(fd, IORING_REGISTER_BPF_FILTER, &b, 2));
	EXPECT_EQ(-EFAULT, reg(fd, IORING_REGISTER_BPF_FILTER, NULL, 1));
	EXPECT_EQ(-EFAULT, reg(-1, IORING_REGISTER_BPF_FILTER, NULL, 1));

	/* nothing was added */
	EXPECT_EQ(0, nop(&self->ring, 1, 0));
	EXPECT_EQ(0, nop(&self->ring, 1, IOSQE_ASYNC));
}

/* an opcode's chain holds 32768 instructions, each program 4 more */
TEST_F(ring, instruction_cap)
{
	static struct sock_filter big[BPF_MAXINSNS];
	int fd = self->ring.ring_fd, i;

	FILTERS_OR_RETURN();
	for (i = 0; i < BPF_MAXINSNS; i++)
		big[i] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 1);
	/* 7 * 4100 = 28700; an eighth would make 32800 */
	for (i = 0; i < 7; i++)
		ASSERT_EQ(0, add(fd, IORING_OP_NOP, big, BPF_MAXINSNS, 0, 0));
	EXPECT_EQ(-ENOMEM, add(fd, IORING_OP_NOP, big, BPF_MAXINSNS, 0, 0));
	/* 28700 + 4064 = 32764 still fits; other opcodes have their own */
	EXPECT_EQ(0, add(fd, IORING_OP_NOP, big, 4060, 0, 0));
	EXPECT_EQ(-ENOMEM, add(fd, IORING_OP_NOP, allow, 1, 0, 0));
	EXPECT_EQ(0, add(fd, IORING_OP_OPENAT, big, BPF_MAXINSNS, 0, 24));
	EXPECT_EQ(0, nop(&self->ring, 1, 0));
}

/*
 * 6.1's register opcodes end at 25, and 37 is 7.0's number: those between
 * are as unknown as before on every kernel, in a ring or in a policy
 */
TEST(register_opcodes_26_to_36)
{
	struct io_uring_restriction res[] = { r_register_op(30) };
	struct io_uring ring;
	unsigned int op;

	/* baseline has no R_DISABLED */
	ASSERT_EQ(0, io_uring_queue_init(4, &ring, feature() ?
					 IORING_SETUP_R_DISABLED : 0));
	for (op = 26; op < 37; op++) {
		EXPECT_EQ(-EINVAL, reg(ring.ring_fd, op, NULL, 0));
		EXPECT_EQ(-EINVAL, reg(-1, op, NULL, 0));
	}
	if (feature())
		EXPECT_EQ(-EINVAL, reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS,
				       res, 1));
	io_uring_queue_exit(&ring);
}

/* order: the SQE's own tests, the allow-lists, prep, then the filters */
TEST(order_against_restrictions)
{
	struct io_uring_restriction res[] = {
		r_sqe_op(IORING_OP_NOP), r_sqe_op(IORING_OP_SOCKET),
		r_register_op(IORING_REGISTER_BPF_FILTER),
	};
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int fd;

	if (!has_filters())
		SKIP(return, "no filters on %s", getenv("LAB_KERNEL"));
	ASSERT_EQ(0, io_uring_queue_init(8, &ring, IORING_SETUP_R_DISABLED));
	fd = ring.ring_fd;
	ASSERT_EQ(0, reg(fd, IORING_REGISTER_RESTRICTIONS, res, LEN(res)));
	ASSERT_EQ(0, add(fd, IORING_OP_SOCKET, deny, 1, 0, 12));
	ASSERT_EQ(0, reg(fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0));
	ASSERT_EQ(0, add(fd, IORING_OP_OPENAT, allow, 1, 0, 24));
	/* the allow-list refuses OPENAT whatever its filter says */
	EXPECT_EQ(-EACCES, openat_(&ring, "/dev/null", O_RDONLY));
	EXPECT_EQ(0, nop(&ring, 1, 0));
	/* prep's -EINVAL (addr set) comes before the filter's -EACCES */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_socket(sqe, AF_INET, SOCK_STREAM, 0, 0);
	sqe->addr = 1;
	EXPECT_EQ(-EINVAL, run(&ring));
	EXPECT_EQ(-EACCES, sock(&ring, AF_INET, SOCK_STREAM));
	/* an invalid flag is -EINVAL before anything else */
	EXPECT_EQ(-EINVAL, nop(&ring, 1, 0x80));
	io_uring_queue_exit(&ring);

	/* a register allow-list without the opcode refuses registration */
	ASSERT_EQ(0, io_uring_queue_init(8, &ring, IORING_SETUP_R_DISABLED));
	ASSERT_EQ(0, reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, res, 2));
	ASSERT_EQ(0, reg(ring.ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0));
	EXPECT_EQ(-EACCES, add(ring.ring_fd, IORING_OP_NOP, deny, 1, 0, 0));
	EXPECT_EQ(0, nop(&ring, 1, 0));
	io_uring_queue_exit(&ring);
}

/* a refused head fails its link; SQPOLL and DEFER_TASKRUN rings filter */
TEST(links_and_ring_kinds)
{
	unsigned int kinds[] = {
		0, IORING_SETUP_SQPOLL,
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	};
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned int k;

	if (!has_filters())
		SKIP(return, "no filters on %s", getenv("LAB_KERNEL"));
	for (k = 0; k < LEN(kinds); k++) {
		struct io_uring_sqe *sqe;

		ASSERT_EQ(0, io_uring_queue_init(8, &ring, kinds[k]));
		ASSERT_EQ(0, add(ring.ring_fd, IORING_OP_NOP, ud_and_flags,
				 LEN(ud_and_flags), 0, 0));
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_nop(sqe);
		sqe->user_data = 5000;
		sqe->flags = IOSQE_IO_LINK;
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_nop(sqe);
		sqe->user_data = 2;
		ASSERT_EQ(2, io_uring_submit_and_wait(&ring, 2));
		ASSERT_EQ(0, io_uring_wait_cqe(&ring, &cqe));
		EXPECT_EQ(5000ULL, cqe->user_data);
		EXPECT_EQ(-EACCES, cqe->res);
		io_uring_cqe_seen(&ring, cqe);
		ASSERT_EQ(0, io_uring_wait_cqe(&ring, &cqe));
		EXPECT_EQ(2ULL, cqe->user_data);
		EXPECT_EQ(-ECANCELED, cqe->res);
		io_uring_cqe_seen(&ring, cqe);
		EXPECT_EQ(0, nop(&ring, 3, 0));
		io_uring_queue_exit(&ring);
	}
}

TEST(privileges)
{
	if (!has_filters())
		SKIP(return, "no filters on %s", getenv("LAB_KERNEL"));
	/* root without no_new_privs: CAP_SYS_ADMIN suffices */
	EXPECT_EQ(0, IN_CHILD({
		struct io_uring r;

		MUST(!io_uring_queue_init(4, &r, 0), 1);
		MUST(add(r.ring_fd, IORING_OP_NOP, deny, 1, 0, 0) == 0, 2);
		MUST(add(-1, IORING_OP_NOP, deny, 1, 0, 0) == 0, 3);
	}));
	/* neither: -EACCES, ring and task alike, and nothing installed */
	EXPECT_EQ(0, IN_CHILD({
		struct io_uring r;

		MUST(!drop_sys_admin(), 1);
		MUST(!io_uring_queue_init(4, &r, 0), 2);
		MUST(add(r.ring_fd, IORING_OP_NOP, deny, 1, 0, 0) == -EACCES,
		      3);
		MUST(add(-1, IORING_OP_NOP, deny, 1, 0, 0) == -EACCES, 4);
		/* privilege first, as 7.0 checks it: before nr_args */
		MUST(reg(-1, IORING_REGISTER_BPF_FILTER, NULL, 2) == -EACCES, 9);
		MUST(nop(&r, 1, 0) == 0, 5);
		/* no_new_privs alone suffices */
		MUST(!prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 6);
		MUST(add(r.ring_fd, IORING_OP_NOP, deny, 1, 0, 0) == 0, 7);
		MUST(nop(&r, 1, 0) == -EACCES, 8);
	}));
}

/*
 * Task filters: rings created afterwards only, inherited by children,
 * tightened but never loosened, the parent untouched.
 */
TEST(task_filters)
{
	struct io_uring mine;

	if (!has_filters())
		SKIP(return, "no filters on %s", getenv("LAB_KERNEL"));
	ASSERT_EQ(0, io_uring_queue_init(4, &mine, 0));
	EXPECT_EQ(0, IN_CHILD({
		struct io_uring before, after;

		MUST(!io_uring_queue_init(4, &before, 0), 1);
		MUST(add(-1, IORING_OP_SOCKET, inet_only, LEN(inet_only), 0,
			  12) == 0, 2);
		MUST(!io_uring_queue_init(4, &after, 0), 3);
		MUST(sock(&before, AF_UNIX, SOCK_STREAM) == 0, 4);
		MUST(sock(&after, AF_UNIX, SOCK_STREAM) == -EACCES, 5);
		MUST(sock(&after, AF_INET, SOCK_DGRAM) == 0, 6);
		/* a ring filter on top of the task's */
		MUST(add(after.ring_fd, IORING_OP_SOCKET, stream_only,
			  LEN(stream_only), 0, 12) == 0, 7);
		MUST(sock(&after, AF_INET, SOCK_DGRAM) == -EACCES, 8);
		/* the grandchild inherits, tightens, cannot loosen */
		MUST(IN_CHILD({
			struct io_uring g;

			MUST(add(-1, IORING_OP_SOCKET, allow, 1, 0, 12) == 0,
			      1);
			MUST(add(-1, IORING_OP_NOP, allow, 1,
				  IO_URING_BPF_FILTER_DENY_REST, 0) == 0, 2);
			MUST(!io_uring_queue_init(4, &g, 0), 3);
			MUST(sock(&g, AF_UNIX, SOCK_STREAM) == -EACCES, 4);
			MUST(sock(&g, AF_INET, SOCK_STREAM) == 0, 5);
			MUST(nop(&g, 1, 0) == 0, 6);
			MUST(openat_(&g, "/dev/null", O_RDONLY) == -EACCES,
			      7);
		}) == 0, 9);
		/* the grandchild's additions are its own */
		MUST(nop(&after, 1, 0) == 0, 10);
		MUST(IN_CHILD({
			struct io_uring g;

			MUST(!io_uring_queue_init(4, &g, 0), 1);
			MUST(openat_(&g, "/dev/null", O_RDONLY) == 0, 2);
			MUST(sock(&g, AF_UNIX, SOCK_STREAM) == -EACCES, 3);
		}) == 0, 11);
	}));
	/* the parent is untouched, before and after its child */
	EXPECT_EQ(0, sock(&mine, AF_UNIX, SOCK_STREAM));
	io_uring_queue_exit(&mine);
	ASSERT_EQ(0, io_uring_queue_init(4, &mine, 0));
	EXPECT_EQ(0, sock(&mine, AF_UNIX, SOCK_STREAM));
	io_uring_queue_exit(&mine);
}

/* the interpreter and the JIT give the same answers */
TEST(filters_with_jit_off)
{
	const char *knob = "/proc/sys/net/core/bpf_jit_enable";
	char was[8] = "";
	FILE *f;

	if (!has_filters())
		SKIP(return, "no filters on %s", getenv("LAB_KERNEL"));
	f = fopen(knob, "r+");
	if (!f)
		SKIP(return, "no %s", knob);
	ASSERT_NE(NULL, fgets(was, sizeof(was), f));
	fclose(f);
	for (int jit = 0; jit < 2; jit++) {
		struct io_uring ring;

		f = fopen(knob, "w");
		ASSERT_NE(NULL, f);
		fprintf(f, "%d\n", jit);
		ASSERT_EQ(0, fclose(f));
		ASSERT_EQ(0, io_uring_queue_init(4, &ring, 0));
		ASSERT_EQ(0, add(ring.ring_fd, IORING_OP_NOP, ud_and_flags,
				 LEN(ud_and_flags), 0, 0));
		EXPECT_EQ(0, nop(&ring, 999, 0));
		EXPECT_EQ(-EACCES, nop(&ring, 1000, 0));
		EXPECT_EQ(-EACCES, nop(&ring, 1, IOSQE_ASYNC));
		io_uring_queue_exit(&ring);
	}
	f = fopen(knob, "w");
	ASSERT_NE(NULL, f);
	fputs(was, f);
	fclose(f);
}

/*
 * submit the prepared SQEs, reap @n CQEs: each one's res by user_data
 * (1 to 4) into @res, which has 4 slots
 */
static int run_n(struct io_uring *ring, int n, int *res)
{
	struct io_uring_cqe *cqe;
	int i;

	if (io_uring_submit_and_wait(ring, n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (io_uring_wait_cqe(ring, &cqe))
			return -1;
		if (cqe->user_data >= 1 && cqe->user_data <= 4)
			res[cqe->user_data - 1] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	return 0;
}

static void prep_nop(struct io_uring *ring, __u64 ud, unsigned int flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_nop(sqe);
	sqe->user_data = ud;
	sqe->flags = flags;
}

/* NOP user_data 2 denied: the filter's verdict must reach every path */
static struct sock_filter deny_ud2[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_USER_DATA),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
	BPF_STMT(BPF_RET | BPF_K, 1),
};

/* a filtered SQE refused whatever uncommon flag it carries */
TEST_F(ring, uncommon_flags_refused)
{
	unsigned int flags[] = {
		IOSQE_IO_DRAIN, IOSQE_CQE_SKIP_SUCCESS, IOSQE_ASYNC,
	};
	struct io_uring_sqe *sqe;
	static char buf[8];
	unsigned int i;
	int fd = self->ring.ring_fd;

	FILTERS_OR_RETURN();
	ASSERT_EQ(0, add(fd, IORING_OP_NOP, deny_ud2, LEN(deny_ud2), 0, 0));
	/*
	 * DRAIN before CQE_SKIP_SUCCESS: a skip-flagged SQE turns drains
	 * off for the ring (6.1's drain_disabled), so a drain after it is
	 * -EOPNOTSUPP before any filter runs
	 */
	for (i = 0; i < LEN(flags); i++) {
		EXPECT_EQ(-EACCES, nop(&self->ring, 2, flags[i]));
		/* and allowed with the same flag (a skipped success: no CQE) */
		if (flags[i] != IOSQE_CQE_SKIP_SUCCESS)
			EXPECT_EQ(0, nop(&self->ring, 1, flags[i]));
	}
	/* BUFFER_SELECT on READ (NOP refuses the flag itself) */
	ASSERT_EQ(0, add(fd, IORING_OP_READ, deny, 1, 0, 0));
	sqe = io_uring_get_sqe(&self->ring);
	io_uring_prep_read(sqe, 0, buf, sizeof(buf), 0);
	sqe->flags = IOSQE_BUFFER_SELECT;
	sqe->buf_group = 1;
	EXPECT_EQ(-EACCES, run(&self->ring));
}

/*
 * No IOSQE_ASYNC on NOP but with IOSQE_IO_DRAIN (which a drain adds to
 * the SQE it falls on): a verdict on the flags alone, decided when it is
 * registered
 */
static struct sock_filter async_only_with_drain[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_OPCODE_WORD),
	BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, SHIFT_FLAGS),
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, IOSQE_ASYNC | IOSQE_IO_DRAIN),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IOSQE_ASYNC, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
	BPF_STMT(BPF_RET | BPF_K, 1),
};

/*
 * The flags a filter sees are the request's after the drain's: a NOP
 * submitted with no flags while a drain waits carries IOSQE_ASYNC, though
 * the opcode and flags tables tested the SQE's own flags
 */
TEST_F(ring, drain_adds_async_after_tables)
{
	int res[4] = { 1, 1, 1, 1 }, pfd[2];
	struct io_uring_sqe *sqe;
	static char buf[1];

	FILTERS_OR_RETURN();
	ASSERT_EQ(0, add(self->ring.ring_fd, IORING_OP_NOP,
			 async_only_with_drain, LEN(async_only_with_drain),
			 0, 0));
	EXPECT_EQ(0, nop(&self->ring, 1, 0));
	EXPECT_EQ(-EACCES, nop(&self->ring, 1, IOSQE_ASYNC));
	/* a read that waits keeps the drain behind it waiting */
	ASSERT_EQ(0, pipe(pfd));
	sqe = io_uring_get_sqe(&self->ring);
	io_uring_prep_read(sqe, pfd[0], buf, sizeof(buf), 0);
	sqe->user_data = 3;
	prep_nop(&self->ring, 1, IOSQE_IO_DRAIN);
	prep_nop(&self->ring, 2, 0);
	ASSERT_EQ(3, io_uring_submit(&self->ring));
	ASSERT_EQ(1, write(pfd[1], "x", 1));
	ASSERT_EQ(0, run_n(&self->ring, 3, res));
	EXPECT_EQ(1, res[2]);
	EXPECT_EQ(0, res[0]);
	EXPECT_EQ(-EACCES, res[1]);
	close(pfd[0]);
	close(pfd[1]);
}

/*
 * Filters registered on a restricted ring before ENABLE_RINGS: the table
 * bytes the registration works out start from the allow-lists', so
 * neither an allow-all filter on an opcode the lists refuse nor the flag
 * combinations a filter allows get past the lists
 */
TEST(decided_filters_under_lists)
{
	struct io_uring_restriction res[] = {
		r_sqe_op(IORING_OP_NOP),
		r_flags(IORING_RESTRICTION_SQE_FLAGS_ALLOWED, 0),
	};
	struct io_uring ring;
	int fd;

	if (!has_filters())
		SKIP(return, "no filters on %s", getenv("LAB_KERNEL"));
	ASSERT_EQ(0, io_uring_queue_init(8, &ring, IORING_SETUP_R_DISABLED));
	fd = ring.ring_fd;
	ASSERT_EQ(0, reg(fd, IORING_REGISTER_RESTRICTIONS, res, LEN(res)));
	ASSERT_EQ(0, add(fd, IORING_OP_OPENAT, allow, 1, 0, 24));
	ASSERT_EQ(0, add(fd, IORING_OP_NOP, async_only_with_drain,
			 LEN(async_only_with_drain), 0, 0));
	ASSERT_EQ(0, reg(fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0));
	EXPECT_EQ(-EACCES, openat_(&ring, "/dev/null", O_RDONLY));
	EXPECT_EQ(-EACCES, nop(&ring, 1, IOSQE_IO_LINK));
	EXPECT_EQ(-EACCES, nop(&ring, 1, IOSQE_FIXED_FILE));
	EXPECT_EQ(0, nop(&ring, 1, 0));
	io_uring_queue_exit(&ring);
}

/* deny when the flags (masked to @mask) are @v: a verdict on the flags alone */
#define FLAGS_EQ(mask, v) {						\
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, OFF_OPCODE_WORD),		\
	BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, SHIFT_FLAGS),		\
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, (mask)),			\
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (v), 0, 1),			\
	BPF_STMT(BPF_RET | BPF_K, 0),					\
	BPF_STMT(BPF_RET | BPF_K, 1),					\
}

/* the common flags: those the tables test inline */
#define COMMON_FLAGS	(IOSQE_FIXED_FILE | IOSQE_IO_LINK | IOSQE_IO_HARDLINK | \
			 IOSQE_ASYNC)

/*
 * A drain in the middle of a link drains the SQE after the link
 * (drain_next), which the filters see with IOSQE_IO_DRAIN though the SQE
 * has no flags. Its filter refuses IOSQE_IO_DRAIN alone, so every common
 * combination passes the tables with no class of its own.
 */
TEST_F(ring, drain_next_after_tables)
{
	struct sock_filter no_drain[] = FLAGS_EQ(IOSQE_IO_DRAIN,
						 IOSQE_IO_DRAIN);
	int res[4] = { 1, 1, 1, 1 }, pfd[2];
	struct io_uring_sqe *sqe;
	static char buf[1];

	FILTERS_OR_RETURN();
	ASSERT_EQ(0, add(self->ring.ring_fd, IORING_OP_NOP, no_drain,
			 LEN(no_drain), 0, 0));
	EXPECT_EQ(0, nop(&self->ring, 1, IOSQE_ASYNC));
	EXPECT_EQ(-EACCES, nop(&self->ring, 1, IOSQE_IO_DRAIN));
	ASSERT_EQ(0, pipe(pfd));
	ASSERT_EQ(1, write(pfd[1], "x", 1));
	prep_nop(&self->ring, 1, IOSQE_IO_LINK);
	sqe = io_uring_get_sqe(&self->ring);
	io_uring_prep_read(sqe, pfd[0], buf, sizeof(buf), 0);
	sqe->user_data = 3;
	sqe->flags = IOSQE_IO_DRAIN;
	prep_nop(&self->ring, 2, 0);
	ASSERT_EQ(0, run_n(&self->ring, 3, res));
	EXPECT_EQ(0, res[0]);
	EXPECT_EQ(1, res[2]);
	EXPECT_EQ(-EACCES, res[1]);
	/* and the ring drains no more: a plain NOP passes */
	EXPECT_EQ(0, nop(&self->ring, 4, 0));
	close(pfd[0]);
	close(pfd[1]);
}

/*
 * Seven opcodes whose filters each allow a different set of common
 * flag combinations: the tables have six class bits, handed out by
 * opcode, so OPENAT's set (every combination but none) gets none and
 * its SQEs must reach the filters; NOP's (all but IOSQE_ASYNC) holds
 * the first.
 */
TEST(seventh_flags_set)
{
	struct sock_filter f[7][6] = {
		FLAGS_EQ(COMMON_FLAGS, IOSQE_ASYNC),
		FLAGS_EQ(COMMON_FLAGS, IOSQE_FIXED_FILE),
		FLAGS_EQ(COMMON_FLAGS, IOSQE_FIXED_FILE | IOSQE_ASYNC),
		FLAGS_EQ(COMMON_FLAGS, IOSQE_IO_LINK),
		FLAGS_EQ(COMMON_FLAGS, IOSQE_IO_LINK | IOSQE_ASYNC),
		FLAGS_EQ(COMMON_FLAGS, IOSQE_IO_HARDLINK),
		FLAGS_EQ(COMMON_FLAGS, 0),
	};
	unsigned int op[7] = {
		IORING_OP_NOP, IORING_OP_READV, IORING_OP_WRITEV,
		IORING_OP_FSYNC, IORING_OP_READ_FIXED, IORING_OP_WRITE_FIXED,
		IORING_OP_OPENAT,
	};
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	unsigned int i;

	if (!has_filters())
		SKIP(return, "no filters on %s", getenv("LAB_KERNEL"));
	ASSERT_EQ(0, io_uring_queue_init(8, &ring, 0));
	for (i = 0; i < LEN(op); i++)
		ASSERT_EQ(0, add(ring.ring_fd, op[i], f[i], LEN(f[i]), 0, 0));
	EXPECT_EQ(-EACCES, openat_(&ring, "/dev/null", O_RDONLY));
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_openat(sqe, AT_FDCWD, "/dev/null", O_RDONLY, 0);
	sqe->flags = IOSQE_ASYNC;
	EXPECT_EQ(0, closed(run(&ring)));
	EXPECT_EQ(0, nop(&ring, 1, 0));
	EXPECT_EQ(-EACCES, nop(&ring, 1, IOSQE_ASYNC));
	io_uring_queue_exit(&ring);
}

/* a filtered SQE refused in the middle and at the tail of a link */
TEST_F(ring, link_middle_and_tail)
{
	int fd = self->ring.ring_fd, res[4], i;

	FILTERS_OR_RETURN();
	ASSERT_EQ(0, add(fd, IORING_OP_NOP, deny_ud2, LEN(deny_ud2), 0, 0));
	/* middle: 1 -> 2 (refused) -> 3 */
	prep_nop(&self->ring, 1, IOSQE_IO_LINK);
	prep_nop(&self->ring, 2, IOSQE_IO_LINK);
	prep_nop(&self->ring, 3, 0);
	for (i = 0; i < 3; i++)
		res[i] = 1;
	ASSERT_EQ(0, run_n(&self->ring, 3, res));
	EXPECT_EQ(-ECANCELED, res[0]);
	EXPECT_EQ(-EACCES, res[1]);
	EXPECT_EQ(-ECANCELED, res[2]);
	/* tail: 3 -> 1 -> 2 (refused), user_data kept 1..3 */
	prep_nop(&self->ring, 3, IOSQE_IO_LINK);
	prep_nop(&self->ring, 1, IOSQE_IO_LINK);
	prep_nop(&self->ring, 2, 0);
	for (i = 0; i < 3; i++)
		res[i] = 1;
	ASSERT_EQ(0, run_n(&self->ring, 3, res));
	EXPECT_EQ(-ECANCELED, res[0]);
	EXPECT_EQ(-EACCES, res[1]);
	EXPECT_EQ(-ECANCELED, res[2]);
	/* and a link the filter allows runs whole */
	prep_nop(&self->ring, 1, IOSQE_IO_LINK);
	prep_nop(&self->ring, 3, 0);
	res[0] = res[2] = 1;
	ASSERT_EQ(0, run_n(&self->ring, 2, res));
	EXPECT_EQ(0, res[0]);
	EXPECT_EQ(0, res[2]);
}

/* the words of a struct io_uring_bpf_ctx as a filter loads them */
static __u32 ctx_word(const struct io_uring_bpf_ctx *c, unsigned int off)
{
	__u32 w;

	memcpy(&w, (const char *)c + off, sizeof(w));
	return w;
}

#define OFF_CONN	offsetof(struct io_uring_bpf_ctx, connect)

/* allow only a CONNECT whose payload words 16..39 are @want's */
static void connect_exact(struct sock_filter *f,
			  const struct io_uring_bpf_ctx *want)
{
	unsigned int i, n = 0;

	/* 6 words: load, compare, jump to the denial at the end */
	for (i = 0; i < 6; i++) {
		f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						      OFF_CONN + 4 * i);
		f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			ctx_word(want, OFF_CONN + 4 * i), 0, 11 - 2 * i);
		n++;
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 1);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
}

/* loopback up (the guest boots with it down): 0, or -1 */
static int lo_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0), ret;

	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	ret = ioctl(s, SIOCGIFFLAGS, &ifr);
	if (!ret && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		ret = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return ret ? -1 : 0;
}

/* CONNECT's result, or -EACCES; lengths as given */
static int connect_(struct io_uring *ring, const void *addr, socklen_t len,
		    int family, unsigned int flags)
{
	struct io_uring_sqe *sqe;
	int s = socket(family, SOCK_STREAM, 0), res;

	if (s < 0)
		return -1000;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_connect(sqe, s, addr, len);
	sqe->flags = flags;
	res = run(ring);
	close(s);
	return res;
}

/* 7.2's payload for CONNECT: family, port, address, each if covered */
TEST_F(ring, connect_payload)
{
	struct sock_filter f[14];
	struct io_uring_bpf_ctx want;
	struct sockaddr_in in4 = { .sin_family = AF_INET,
				   .sin_port = htons(4242) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6,
				    .sin6_port = htons(4243) };
	struct sockaddr_in other4;
	struct sockaddr_in6 other6;
	struct io_uring r6;
	int fd = self->ring.ring_fd;

	FILTERS_OR_RETURN();
	ASSERT_EQ(0, lo_up());
	in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	in6.sin6_addr = in6addr_loopback;

	memset(&want, 0, sizeof(want));
	want.connect.family = AF_INET;
	want.connect.port = in4.sin_port;
	want.connect.v4_addr = in4.sin_addr.s_addr;
	connect_exact(f, &want);
	ASSERT_EQ(0, add(fd, IORING_OP_CONNECT, f, LEN(f), 0, 24));
	/* passes the filter: nothing listens there */
	EXPECT_EQ(-ECONNREFUSED, connect_(&self->ring, &in4, sizeof(in4),
					  AF_INET, 0));
	other4 = in4;
	other4.sin_port = htons(4244);
	EXPECT_EQ(-EACCES, connect_(&self->ring, &other4, sizeof(other4),
				    AF_INET, 0));
	other4 = in4;
	other4.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1);
	EXPECT_EQ(-EACCES, connect_(&self->ring, &other4, sizeof(other4),
				    AF_INET, 0));
	/* async, drained and linked: the same verdicts */
	EXPECT_EQ(-ECONNREFUSED, connect_(&self->ring, &in4, sizeof(in4),
					  AF_INET, IOSQE_ASYNC));
	EXPECT_EQ(-EACCES, connect_(&self->ring, &other4, sizeof(other4),
				    AF_INET, IOSQE_IO_DRAIN));
	EXPECT_EQ(-ECONNREFUSED, connect_(&self->ring, &in4, sizeof(in4),
					  AF_INET, IOSQE_IO_DRAIN));

	/* a second ring: IPv6 */
	ASSERT_EQ(0, io_uring_queue_init(8, &r6, 0));
	memset(&want, 0, sizeof(want));
	want.connect.family = AF_INET6;
	want.connect.port = in6.sin6_port;
	memcpy(want.connect.v6_addr, &in6.sin6_addr, 16);
	connect_exact(f, &want);
	ASSERT_EQ(0, add(r6.ring_fd, IORING_OP_CONNECT, f, LEN(f), 0, 24));
	EXPECT_EQ(-ECONNREFUSED, connect_(&r6, &in6, sizeof(in6), AF_INET6,
					  0));
	other6 = in6;
	other6.sin6_addr.s6_addr[15] = 2;
	EXPECT_EQ(-EACCES, connect_(&r6, &other6, sizeof(other6), AF_INET6,
				    0));
	/* an IPv4 address is not an IPv6 one */
	EXPECT_EQ(-EACCES, connect_(&r6, &in4, sizeof(in4), AF_INET, 0));
	io_uring_queue_exit(&r6);
}

/* a field the SQE's addr_len does not cover reads as zero */
TEST_F(ring, connect_short_lengths)
{
	/* allow iff every payload word is zero */
	struct io_uring_bpf_ctx zero, fam;
	struct io_uring r;
	struct sock_filter f[14];
	struct sockaddr_in in4 = { .sin_family = AF_INET,
				   .sin_port = htons(4242) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6,
				    .sin6_port = htons(4243) };
	int fd = self->ring.ring_fd;

	FILTERS_OR_RETURN();
	in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	in6.sin6_addr = in6addr_loopback;
	memset(&zero, 0, sizeof(zero));
	connect_exact(f, &zero);
	ASSERT_EQ(0, add(fd, IORING_OP_CONNECT, f, LEN(f), 0, 24));
	/* whole: filled, refused */
	EXPECT_EQ(-EACCES, connect_(&self->ring, &in4, sizeof(in4), AF_INET, 0));
	/*
	 * the previous request's address may sit in reused memory: still 0,
	 * so the filter passes it and the connect refuses the length
	 */
	EXPECT_EQ(-EINVAL, connect_(&self->ring, &in4, 0, AF_INET, 0));
	EXPECT_EQ(-EINVAL, connect_(&self->ring, &in4, 1, AF_INET, 0));
	EXPECT_EQ(-EACCES, connect_(&self->ring, &in6, sizeof(in6), AF_INET6,
				    0));
	EXPECT_EQ(-EINVAL, connect_(&self->ring, &in6, 0, AF_INET6, 0));

	/* family alone from 2 bytes: port and address only when whole */
	ASSERT_EQ(0, io_uring_queue_init(8, &r, 0));
	memset(&fam, 0, sizeof(fam));
	fam.connect.family = AF_INET;
	connect_exact(f, &fam);
	ASSERT_EQ(0, add(r.ring_fd, IORING_OP_CONNECT, f, LEN(f), 0, 24));
	EXPECT_EQ(-EINVAL, connect_(&r, &in4, 2, AF_INET, 0));
	EXPECT_EQ(-EINVAL, connect_(&r, &in4, 8, AF_INET, 0));
	EXPECT_EQ(-EINVAL, connect_(&r, &in4, sizeof(in4) - 1, AF_INET, 0));
	EXPECT_EQ(-EACCES, connect_(&r, &in4, sizeof(in4), AF_INET, 0));
	io_uring_queue_exit(&r);
}

/* a listening TCP socket on 127.0.0.1, non-blocking; its port in @port */
static int listener(struct sockaddr_in *at)
{
	socklen_t len = sizeof(*at);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	memset(at, 0, sizeof(*at));
	at->sin_family = AF_INET;
	at->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)at, sizeof(*at)) ||
	    listen(l, 8) || getsockname(l, (struct sockaddr *)at, &len))
		return -1;
	return l;
}

/*
 * A CONNECT to @a held back by a link behind a pipe read, its sockaddr
 * rewritten to @b once submitted, then let go: the two results by
 * user_data (read 1, connect 2) in @res, the socket's peer in @peer (all
 * zero for none). 0, or -1 when it could not be run.
 */
static int connect_redirected(struct io_uring *ring,
			      const struct sockaddr_in *a,
			      const struct sockaddr_in *b, int *res,
			      struct sockaddr_in *peer)
{
	struct sockaddr_in addr = *a;
	struct io_uring_sqe *sqe;
	socklen_t len = sizeof(*peer);
	int s, p[2], ret = -1;
	char byte = 0, got;

	if (pipe(p))
		return -1;
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		goto out_pipe;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_read(sqe, p[0], &got, 1, 0);
	sqe->user_data = 1;
	sqe->flags = IOSQE_IO_LINK;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_connect(sqe, s, (struct sockaddr *)&addr, sizeof(addr));
	sqe->user_data = 2;
	if (io_uring_submit(ring) != 2)
		goto out;
	/* judged and copied at submission; now point it at b */
	addr = *b;
	if (write(p[1], &byte, 1) != 1)
		goto out;
	res[0] = res[1] = 1;
	if (run_n(ring, 2, res))
		goto out;
	ret = 0;
	if (getpeername(s, (struct sockaddr *)peer, &len))
		memset(peer, 0, sizeof(*peer));
out:
	close(s);
out_pipe:
	close(p[0]);
	close(p[1]);
	return ret;
}

/*
 * The filter and the connect see one address: a CONNECT held back by a
 * link, its sockaddr rewritten after submission to one the filter would
 * refuse, still connects where the filter saw. A kernel that copied the
 * address again at issue would connect to the rewritten one.
 */
TEST_F(ring, connect_address_copied_once)
{
	struct sockaddr_in a, b, peer;
	struct io_uring_bpf_ctx want;
	struct sock_filter f[14];
	struct pollfd pfd;
	int fd = self->ring.ring_fd, la, lb, res[4], c;

	FILTERS_OR_RETURN();
	ASSERT_EQ(0, lo_up());
	la = listener(&a);
	lb = listener(&b);
	ASSERT_LE(0, la);
	ASSERT_LE(0, lb);
	memset(&want, 0, sizeof(want));
	want.connect.family = AF_INET;
	want.connect.port = a.sin_port;
	want.connect.v4_addr = a.sin_addr.s_addr;
	connect_exact(f, &want);
	ASSERT_EQ(0, add(fd, IORING_OP_CONNECT, f, LEN(f), 0, 24));
	/* the filter refuses b */
	EXPECT_EQ(-EACCES, connect_(&self->ring, &b, sizeof(b), AF_INET, 0));

	ASSERT_EQ(0, connect_redirected(&self->ring, &a, &b, res, &peer));
	EXPECT_EQ(1, res[0]);
	EXPECT_EQ(0, res[1]);
	/* the socket's own peer, not the listeners' queues, which a slow
	 * kernel (a sanitizer's) may not have filled yet
	 */
	EXPECT_EQ(a.sin_port, peer.sin_port);
	EXPECT_EQ(a.sin_addr.s_addr, peer.sin_addr.s_addr);
	pfd.fd = la;
	pfd.events = POLLIN;
	EXPECT_EQ(1, poll(&pfd, 1, 10000));
	c = accept(la, NULL, NULL);
	EXPECT_LE(0, c);
	if (c >= 0)
		close(c);
	EXPECT_EQ(-1, accept(lb, NULL, NULL));
	close(la);
	close(lb);
}

/*
 * A filter on CONNECT's flags alone has one verdict per flags value, yet
 * the address is still copied for it when the SQE is submitted, as for
 * any filter on CONNECT (7.2 copies it at prep): a bad one fails the
 * submission, which cancels a hard link after it. Copied at issue, as
 * 6.1 copies an unfiltered CONNECT's, the failure would be the connect's
 * own, which a hard link goes past.
 */
TEST_F(ring, connect_flags_only)
{
	struct sock_filter no_async[] = FLAGS_EQ(IOSQE_ASYNC, IOSQE_ASYNC);
	struct io_uring_sqe *sqe;
	struct sockaddr_in a;
	int la, s, res[4];

	FILTERS_OR_RETURN();
	ASSERT_EQ(0, lo_up());
	la = listener(&a);
	ASSERT_LE(0, la);
	ASSERT_EQ(0, add(self->ring.ring_fd, IORING_OP_CONNECT, no_async,
			 LEN(no_async), 0, 24));
	EXPECT_EQ(-EACCES, connect_(&self->ring, &a, sizeof(a), AF_INET,
				    IOSQE_ASYNC));
	EXPECT_EQ(0, connect_(&self->ring, &a, sizeof(a), AF_INET, 0));
	s = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, s);
	sqe = io_uring_get_sqe(&self->ring);
	/* longer than any sockaddr: move_addr_to_kernel()'s -EINVAL */
	io_uring_prep_connect(sqe, s, (struct sockaddr *)&a,
			      sizeof(struct sockaddr_storage) + 1);
	sqe->user_data = 1;
	sqe->flags = IOSQE_IO_HARDLINK;
	prep_nop(&self->ring, 2, 0);
	res[0] = res[1] = 1;
	ASSERT_EQ(0, run_n(&self->ring, 2, res));
	EXPECT_EQ(-EINVAL, res[0]);
	EXPECT_EQ(-ECANCELED, res[1]);
	close(s);
	close(la);
}

/* AF_UNIX: family only; a linked and a drained CONNECT really connect */
TEST_F(ring, connect_unix_linked)
{
	struct sock_filter f[14];
	struct io_uring_bpf_ctx want;
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct io_uring_sqe *sqe;
	int fd = self->ring.ring_fd, l, s, res[4];

	FILTERS_OR_RETURN();
	snprintf(un.sun_path, sizeof(un.sun_path), "/tmp/bpf-filter-%d",
		 getpid());
	unlink(un.sun_path);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_LE(0, l);
	ASSERT_EQ(0, bind(l, (struct sockaddr *)&un, sizeof(un)));
	ASSERT_EQ(0, listen(l, 8));
	memset(&want, 0, sizeof(want));
	want.connect.family = AF_UNIX;
	connect_exact(f, &want);
	ASSERT_EQ(0, add(fd, IORING_OP_CONNECT, f, LEN(f), 0, 24));
	EXPECT_EQ(0, connect_(&self->ring, &un, sizeof(un), AF_UNIX, 0));
	EXPECT_EQ(0, connect_(&self->ring, &un, sizeof(un), AF_UNIX,
			      IOSQE_IO_DRAIN));
	/* linked behind a NOP: prepared for async with its address copied */
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_LE(0, s);
	prep_nop(&self->ring, 1, IOSQE_IO_LINK);
	sqe = io_uring_get_sqe(&self->ring);
	io_uring_prep_connect(sqe, s, (struct sockaddr *)&un, sizeof(un));
	sqe->user_data = 2;
	res[0] = res[1] = 1;
	ASSERT_EQ(0, run_n(&self->ring, 2, res));
	EXPECT_EQ(0, res[0]);
	EXPECT_EQ(0, res[1]);
	close(s);
	close(l);
	unlink(un.sun_path);
}

/*
 * Task filters on the flags alone are decided for each ring made under
 * them, a ring's own filter on top: the tables of a new ring, plain or
 * SQPOLL, start from the task's chains.
 */
TEST(task_filters_on_the_flags)
{
	if (!has_filters())
		SKIP(return, "no filters on %s", getenv("LAB_KERNEL"));
	EXPECT_EQ(0, IN_CHILD({
		struct sock_filter no_async[] = FLAGS_EQ(IOSQE_ASYNC,
							 IOSQE_ASYNC);
		struct sock_filter no_fixed[] = FLAGS_EQ(IOSQE_FIXED_FILE,
							 IOSQE_FIXED_FILE);
		struct io_uring r, sq;

		MUST(add(-1, IORING_OP_NOP, no_async, LEN(no_async), 0, 0) ==
		      0, 1);
		MUST(!io_uring_queue_init(4, &r, 0), 2);
		MUST(nop(&r, 1, 0) == 0, 3);
		MUST(nop(&r, 1, IOSQE_ASYNC) == -EACCES, 4);
		MUST(nop(&r, 1, IOSQE_FIXED_FILE) == 0, 5);
		MUST(add(r.ring_fd, IORING_OP_NOP, no_fixed, LEN(no_fixed), 0,
			  0) == 0, 6);
		MUST(nop(&r, 1, IOSQE_FIXED_FILE) == -EACCES, 7);
		MUST(nop(&r, 1, IOSQE_ASYNC) == -EACCES, 8);
		MUST(nop(&r, 1, 0) == 0, 9);
		MUST(!io_uring_queue_init(4, &sq, IORING_SETUP_SQPOLL), 10);
		MUST(nop(&sq, 1, IOSQE_ASYNC) == -EACCES, 11);
		MUST(nop(&sq, 1, IOSQE_FIXED_FILE) == 0, 12);
	}));
}

/* task filters reach an SQPOLL ring's submissions too */
TEST(task_filters_sqpoll)
{
	if (!has_filters())
		SKIP(return, "no filters on %s", getenv("LAB_KERNEL"));
	EXPECT_EQ(0, IN_CHILD({
		struct io_uring r;

		MUST(add(-1, IORING_OP_NOP, deny_ud2, LEN(deny_ud2), 0, 0) == 0,
		      1);
		MUST(!io_uring_queue_init(4, &r, IORING_SETUP_SQPOLL), 2);
		MUST(nop(&r, 2, 0) == -EACCES, 3);
		MUST(nop(&r, 1, 0) == 0, 4);
	}));
}

TEST_HARNESS_MAIN
