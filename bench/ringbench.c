/* SPDX-License-Identifier: MIT */
/*
 * Description: ringbench - what an io_uring SQE costs on the submission
 *		path, on an unrestricted ring and on a ring restricted with
 *		IORING_REGISTER_RESTRICTIONS to exactly what the workload
 *		needs (so the per-SQE check runs and passes).
 *
 * Workloads (-w):
 *   nop     NOP SQEs, -b per io_uring_enter: the bare submission path
 *   read    4 KiB O_DIRECT reads of -f at random offsets, registered file
 *           and buffers, -d in flight; restricted rings require
 *           IOSQE_FIXED_FILE
 *   sqpoll  the same reads submitted by an SQPOLL thread
 *   setup   control path, per ring: setup (R_DISABLED), register the
 *           policy, enable, tear down; unrestricted: setup, tear down;
 *           timed by the thread's CPU time (see now_ns())
 *   deny    NOP SQEs, -b per enter, on a ring whose policy allows only
 *           reads: each completes with -EACCES (IORING_SETUP_SUBMIT_ALL
 *           keeps the batch going); unrestricted: the NOPs execute
 * One cell per SQE flag class, NOPs, -b per enter, each restricted ring
 * allowing NOP and exactly that flag:
 *   skip    every SQE IOSQE_CQE_SKIP_SUCCESS (no CQE to reap)
 *   drain   the batch's last SQE IOSQE_IO_DRAIN
 *   link    IOSQE_IO_LINK pairs
 *   async   every SQE IOSQE_ASYNC: punted to io-wq
 *   topop   an opcode from the top of 6.1's range, IORING_OP_URING_CMD
 *           on fd -1: fails at once with -EBADF (restricted: that opcode
 *           allowed)
 *   bufsel  reads as in read, but IORING_OP_READ with IOSQE_BUFFER_SELECT
 *           from a provided-buffer ring (IORING_REGISTER_PBUF_RING), each
 *           buffer given back as its CQE is reaped (restricted: READ,
 *           IOSQE_FIXED_FILE required, IOSQE_BUFFER_SELECT allowed)
 *   rings   -R rings, each submitting -b NOPs in turn, so that a ring's
 *           context has gone cold (from the caches of a real CPU) by the
 *           time its turn comes round again
 *   socket  IORING_OP_SOCKET, -b per enter: AF_UNIX, SOCK_DGRAM, protocol
 *           99, which af_unix refuses at once (-EPROTONOSUPPORT), so no
 *           file is made and none need closing
 *   openat  IORING_OP_OPENAT, -b per enter, of a name that does not exist
 *           in /tmp (tmpfs: -ENOENT from the dentry cache, never the 9p
 *           root's server)
 *   connect IORING_OP_CONNECT to 127.0.0.1:4242, -b per enter, on fd -1:
 *           -EBADF at issue, after the checks and any filter (whose
 *           address copy it pays)
 *   fork    fork, the child exiting at once, waitpid: what a task's
 *           restrictions add to fork and exit (no ring)
 *
 * Rings (-r): 0 unrestricted; 1 restricted by the allow-lists; 2 filtered:
 * classic BPF filters (IORING_REGISTER_BPF_FILTER, -F, -S, -J) instead of
 * the allow-lists; 3 both; 4 task-restricted: the allow-lists registered
 * for the task (fd -1) before the ring is made; 5 task-filtered: the
 * filters so; 6 other-filtered: another task holds task filters, this
 * one none; 7 other-plain: the same other task without filters, 6's
 * control. Filters (-F), -S of them stacked on the workload's opcode:
 *   allow   one instruction: return 1
 *   real    13 instructions on user_data and sqe_flags (what a sandbox
 *           would check of a NOP), all passed
 *   other   allow, on IORING_OP_SOCKET: the workload's opcode has none
 *   socket  family AF_INET or AF_UNIX, type SOCK_STREAM or SOCK_DGRAM
 *   open    no O_CREAT, O_TRUNC or O_TMPFILE
 *   connect AF_INET, 127.0.0.1, port 4242 (connect's own address)
 *   flags   5 instructions on sqe_flags alone: no IOSQE_ASYNC
 * A patched kernel works out at registration what a chain's verdict is
 * on the opcode and flags alone, and fuses a stack into one program;
 * -L 0 makes the filters under io_uring.bpf_fold=0, run as registered.
 *
 * A line on stderr once a second while a run lasts; one JSON line per run
 * on stdout. Exit status 77: the kernel has no ring restrictions or no
 * BPF filters (the restricted or filtered cell does not exist there).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <signal.h>
#include <netinet/in.h>
#include <linux/io_uring.h>
#include <linux/io_uring/bpf_filter.h>
#include <linux/filter.h>
#include <liburing.h>

#include "../tracing/lab-marker.h"

#define BS		4096
#define EXIT_UNSUPPORTED 77
#define MAX_TAGS	8

enum workload { W_NOP, W_READ, W_SQPOLL, W_SETUP, W_DENY,
		W_SKIP, W_DRAIN, W_LINK, W_ASYNC, W_TOPOP, W_BUFSEL, W_RINGS,
		W_SOCKET, W_OPENAT, W_CONNECT, W_FORK, W_LAST = W_FORK };

static const char *const wl_names[] = {
	[W_NOP] = "nop", [W_READ] = "read", [W_SQPOLL] = "sqpoll",
	[W_SETUP] = "setup", [W_DENY] = "deny", [W_SKIP] = "skip",
	[W_DRAIN] = "drain", [W_LINK] = "link", [W_ASYNC] = "async",
	[W_TOPOP] = "topop", [W_BUFSEL] = "bufsel", [W_RINGS] = "rings",
	[W_SOCKET] = "socket", [W_OPENAT] = "openat",
	[W_CONNECT] = "connect", [W_FORK] = "fork",
};

/* ring modes (-r) */
enum { R_PLAIN, R_LISTS, R_FILTERS, R_BOTH, R_TASK, R_TASK_FILTERS,
	R_OTHER_FILTERS, R_OTHER_PLAIN, R_LAST = R_OTHER_PLAIN };

static const char *const ring_names[] = {
	[R_PLAIN] = "unrestricted", [R_LISTS] = "restricted",
	[R_FILTERS] = "filtered", [R_BOTH] = "restricted+filtered",
	[R_TASK] = "task-restricted", [R_TASK_FILTERS] = "task-filtered",
	[R_OTHER_FILTERS] = "other-filtered", [R_OTHER_PLAIN] = "other-plain",
};

enum { F_ALLOW, F_REAL, F_OTHER, F_SOCKET, F_OPEN, F_CONNECT, F_FLAGS,
	F_LAST = F_FLAGS };

static const char *const filter_names[] = {
	[F_ALLOW] = "allow", [F_REAL] = "real", [F_OTHER] = "other",
	[F_SOCKET] = "socket", [F_OPEN] = "open", [F_CONNECT] = "connect",
	[F_FLAGS] = "flags",
};

/* the flag class each NOP cell sends (and its restricted ring allows) */
static const unsigned char wl_flag[] = {
	[W_SKIP] = IOSQE_CQE_SKIP_SUCCESS, [W_DRAIN] = IOSQE_IO_DRAIN,
	[W_LINK] = IOSQE_IO_LINK, [W_ASYNC] = IOSQE_ASYNC,
};

static int nop_like(int wl)
{
	return wl == W_NOP || wl == W_DENY || (wl >= W_SKIP && wl <= W_TOPOP) ||
	       wl == W_RINGS || wl == W_SOCKET || wl == W_OPENAT ||
	       wl == W_CONNECT;
}

/* the ring's own allow-lists, or its own filters */
static int ring_lists(int r)
{
	return r == R_LISTS || r == R_BOTH;
}

static int ring_filters(int r)
{
	return r == R_FILTERS || r == R_BOTH;
}

/*
 * Measured ops per workload by default: about 15 million guest
 * instructions each on a TCG guest, so that the timer ticks falling into
 * a run (one per 4 million instructions under -icount) vary its length
 * by well under 0.1 %. setup needs more rings than that: a ring's
 * allocations take slow paths now and then, and 400 rings vary by 2 %
 * from run to run where 1600 average them out (warm-up: n/4).
 */
static const unsigned long default_ops[] = {
	[W_NOP] = 50000, [W_READ] = 4000, [W_SQPOLL] = 4000,
	[W_SETUP] = 1600, [W_DENY] = 50000, [W_SKIP] = 50000,
	[W_DRAIN] = 50000, [W_LINK] = 50000, [W_ASYNC] = 5000,
	[W_TOPOP] = 50000, [W_BUFSEL] = 4000, [W_RINGS] = 50000,
	[W_SOCKET] = 8000, [W_OPENAT] = 2000, [W_CONNECT] = 8000,
	[W_FORK] = 40,
};

static struct {
	enum workload wl;
	int restricted;
	unsigned int batch;
	unsigned int depth;
	unsigned int nrings;
	const char *file;
	unsigned long ops;
	unsigned long warmup;
	const char *tags[MAX_TAGS];
	int ntags;
	int mark;
	int filter;		/* -F, or -1 */
	unsigned int stack;	/* -S */
	int jit;		/* -J, or -1: leave the sysctl alone */
	int fold;		/* -L, or -1: leave the parameter alone */
} opt = {
	.wl = W_NOP, .batch = 32, .depth = 32, .nrings = 64,
	.file = "/dev/nullb0", .filter = -1, .stack = 1, .jit = -1,
	.fold = -1,
};

struct bench {
	struct io_uring ring;
	int fd;
	void *bufs;
	uint64_t blocks;
	uint64_t lcg;
	struct io_uring_buf_ring *br;	/* bufsel */
};

/* bufsel's buffer group */
#define BGID		7

static void usage(const char *prog, int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [options]\n"
		"  -w WORKLOAD  nop, read, sqpoll, setup, deny, skip, drain, link,\n"
		"               async, topop, bufsel, rings, socket, openat,\n"
		"               connect, fork (nop)\n"
		"  -r 0..7      ring: unrestricted, restricted, filtered, both;\n"
		"               task-restricted, task-filtered (the task's, fd -1),\n"
		"               other-filtered (another task's filters), other-plain\n"
		"               (that task without them) (0)\n"
		"  -F FILTER    allow, real, other, socket, open, connect, flags: the\n"
		"               filter of rings 2, 3, 5, 6 (default: the workload's)\n"
		"  -S N         that filter N times, stacked           (default 1)\n"
		"  -J 0|1       net.core.bpf_jit_enable while the filters are made\n"
		"  -L 0|1       io_uring.bpf_fold while the filters are made: 0 runs\n"
		"               them as registered, program by program\n"
		"  -b N         SQEs per submit: the NOP workloads     (default 32)\n"
		"  -d N         reads in flight: read, sqpoll, bufsel  (default 32)\n"
		"  -R N         rings: rings                           (default 64)\n"
		"  -f PATH      read target, O_DIRECT          (default /dev/nullb0)\n"
		"  -n N         measured ops  (default: nop, deny 50000; read, sqpoll 4000;\n"
		"               setup 1600)\n"
		"  -W N         warm-up ops, not measured  (default n/10; setup n/4)\n"
		"  -t KEY=VAL   extra field for the JSON line (repeatable)\n"
		"  -m           mark the timed window for the lab's QEMU plugin\n"
		"               (tracing/insn-count.c); a NOP elsewhere\n"
		"  -h           this help\n", prog);
	exit(status);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ringbench: %s: ", wl_names[opt.wl]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/*
 * setup times the calling thread's CPU time, not the clock: a ring's
 * teardown finishes in a kworker and RCU, and round_setup() leaves them a
 * pause that must not count (under -icount sleep=off idle time is a jump
 * of virtual time). The thread's own time is the control path a user's
 * setup pays: setup, register, enable, close.
 */
static clockid_t clock_id = CLOCK_MONOTONIC;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int sys_register(int fd, unsigned int op, const void *arg,
			unsigned int nr)
{
	int ret = syscall(__NR_io_uring_register, fd, op, arg, nr);

	return ret < 0 ? -errno : ret;
}

/*
 * The policy each workload runs under: its opcodes, and for reads the
 * fixed-file requirement. deny allows reads only, so its NOPs are refused.
 */
static int policy(struct io_uring_restriction *r)
{
	int n = 0;

	memset(r, 0, 4 * sizeof(*r));
	r[n].opcode = IORING_RESTRICTION_SQE_OP;
	switch (opt.wl) {
	case W_NOP:
	case W_SETUP:
	case W_RINGS:
		r[n++].sqe_op = IORING_OP_NOP;
		break;
	case W_BUFSEL:
		r[n++].sqe_op = IORING_OP_READ;
		r[n].opcode = IORING_RESTRICTION_SQE_FLAGS_REQUIRED;
		r[n++].sqe_flags = IOSQE_FIXED_FILE;
		r[n].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
		r[n++].sqe_flags = IOSQE_BUFFER_SELECT;
		break;
	case W_SKIP:
	case W_DRAIN:
	case W_LINK:
	case W_ASYNC:
		r[n++].sqe_op = IORING_OP_NOP;
		r[n].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
		r[n++].sqe_flags = wl_flag[opt.wl];
		break;
	case W_TOPOP:
		r[n++].sqe_op = IORING_OP_URING_CMD;
		break;
	case W_READ:
	case W_SQPOLL:
		r[n++].sqe_op = IORING_OP_READ_FIXED;
		r[n].opcode = IORING_RESTRICTION_SQE_FLAGS_REQUIRED;
		r[n++].sqe_flags = IOSQE_FIXED_FILE;
		break;
	case W_DENY:
		r[n++].sqe_op = IORING_OP_READ_FIXED;
		break;
	case W_SOCKET:
		r[n++].sqe_op = IORING_OP_SOCKET;
		break;
	case W_CONNECT:
		r[n++].sqe_op = IORING_OP_CONNECT;
		break;
	case W_FORK:
		/* what a forked task's rings would be held to; none are made */
		r[n++].sqe_op = IORING_OP_NOP;
		break;
	case W_OPENAT:
		r[n++].sqe_op = IORING_OP_OPENAT;
		break;
	}
	return n;
}

#define CTX_WORD(field)	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, \
				 offsetof(struct io_uring_bpf_ctx, field))
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SQE_FLAGS_SHIFT	8
#else
#define SQE_FLAGS_SHIFT	16
#endif

static struct sock_filter prog_allow[] = { BPF_STMT(BPF_RET | BPF_K, 1) };

/*
 * A sandbox's check of a NOP: user_data's high word zero, its low word
 * below 1 << 30 and not 0xdead, opcode NOP, no IOSQE_ASYNC,
 * IOSQE_BUFFER_SELECT or bit 7. Every NOP the bench sends passes: 12 of
 * its 13 instructions run.
 */
static struct sock_filter prog_real[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		 offsetof(struct io_uring_bpf_ctx, user_data) + 4),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 9),
	CTX_WORD(user_data),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 1U << 30, 7, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xdead, 6, 0),
	CTX_WORD(opcode),
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IORING_OP_NOP, 0, 3),
	CTX_WORD(opcode),
	BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, SQE_FLAGS_SHIFT),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
		 IOSQE_ASYNC | IOSQE_BUFFER_SELECT | 0x80, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
	BPF_STMT(BPF_RET | BPF_K, 1),
};

/*
 * The policy a container runtime writes first: no IOSQE_ASYNC (here on
 * NOP). It reads the opcode and flags bytes only, so its verdict for
 * every SQE is known when it is registered.
 */
static struct sock_filter prog_flags[] = {
	CTX_WORD(opcode),
	BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, SQE_FLAGS_SHIFT),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, IOSQE_ASYNC, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
	BPF_STMT(BPF_RET | BPF_K, 1),
};

/* family AF_INET or AF_UNIX, type (less its flags) stream or datagram */
static struct sock_filter prog_socket[] = {
	CTX_WORD(socket.family),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 1, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 5),
	CTX_WORD(socket.type),
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_STREAM, 1, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_DGRAM, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
};

/* 127.0.0.1 port 4242 only, as a proxy's policy would say */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "CONNECT_PORT and CONNECT_ADDR are the little-endian loads"
#endif
#define CONNECT_PORT	0x9210		/* htons(4242), then two zero bytes */
#define CONNECT_ADDR	0x0100007f	/* htonl(INADDR_LOOPBACK) */

static struct sock_filter prog_connect[] = {
	CTX_WORD(connect.family),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 0, 5),
	CTX_WORD(connect.v4_addr),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CONNECT_ADDR, 0, 3),
	CTX_WORD(connect.port),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CONNECT_PORT, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
};

/* an open that creates or truncates nothing */
static struct sock_filter prog_open[] = {
	CTX_WORD(open.flags),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_CREAT | O_TRUNC | __O_TMPFILE,
		 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0),
	BPF_STMT(BPF_RET | BPF_K, 1),
};

/* -F, or the workload's own filter */
static int filter_kind(void)
{
	if (opt.filter >= 0)
		return opt.filter;
	return opt.wl == W_SOCKET ? F_SOCKET : opt.wl == W_OPENAT ? F_OPEN :
	       opt.wl == W_CONNECT ? F_CONNECT : opt.wl == W_FORK ? F_OTHER :
	       F_REAL;
}

/* the filter's program and the opcode it goes on */
static int filter_of(struct sock_filter **prog, unsigned int *len,
		     unsigned int *pdu)
{
	int f = filter_kind();
	int op = opt.wl == W_SOCKET ? IORING_OP_SOCKET :
		 opt.wl == W_OPENAT ? IORING_OP_OPENAT :
		 opt.wl == W_CONNECT ? IORING_OP_CONNECT : IORING_OP_NOP;

	*pdu = 0;
	switch (f) {
	case F_ALLOW:
		*prog = prog_allow;
		*len = 1;
		break;
	case F_OTHER:
		*prog = prog_allow;
		*len = 1;
		op = IORING_OP_SOCKET;
		break;
	case F_REAL:
		*prog = prog_real;
		*len = sizeof(prog_real) / sizeof(prog_real[0]);
		break;
	case F_FLAGS:
		*prog = prog_flags;
		*len = sizeof(prog_flags) / sizeof(prog_flags[0]);
		break;
	case F_SOCKET:
		*prog = prog_socket;
		*len = sizeof(prog_socket) / sizeof(prog_socket[0]);
		break;
	case F_OPEN:
		*prog = prog_open;
		*len = sizeof(prog_open) / sizeof(prog_open[0]);
		break;
	case F_CONNECT:
		*prog = prog_connect;
		*len = sizeof(prog_connect) / sizeof(prog_connect[0]);
		break;
	}
	if (op == IORING_OP_SOCKET)
		*pdu = sizeof(((struct io_uring_bpf_ctx *)0)->socket);
	else if (op == IORING_OP_OPENAT)
		*pdu = sizeof(((struct io_uring_bpf_ctx *)0)->open);
	else if (op == IORING_OP_CONNECT)
		*pdu = sizeof(((struct io_uring_bpf_ctx *)0)->connect);
	return op;
}

/*
 * Kernel knobs the filters are made under (-J, -L), each set for the run
 * and put back as it was at exit
 */
static struct knob {
	const char *path;
	char was[8];
	int set;
} jit_knob = { .path = "/proc/sys/net/core/bpf_jit_enable" },
  fold_knob = { .path = "/sys/module/io_uring/parameters/bpf_fold" };

static void knob_put(struct knob *k)
{
	FILE *f;

	if (!k->set || !(f = fopen(k->path, "w")))
		return;
	fputs(k->was, f);
	fclose(f);
}

static void knobs_restore(void)
{
	knob_put(&jit_knob);
	knob_put(&fold_knob);
}

/* 77 when the kernel has no such knob and @missing_ok says why */
static void knob_set(struct knob *k, int on, const char *missing_ok)
{
	FILE *f = fopen(k->path, "r");

	if (!f && errno == ENOENT && missing_ok) {
		fprintf(stderr, "ringbench: %s: %s\n", k->path, missing_ok);
		exit(EXIT_UNSUPPORTED);
	}
	if (!f || !fgets(k->was, sizeof(k->was), f))
		die("%s: %s", k->path, strerror(errno));
	fclose(f);
	f = fopen(k->path, "w");
	if (!f || fprintf(f, "%d\n", on) < 0 || fclose(f))
		die("%s: cannot set it to %d", k->path, on);
	if (!k->set++)
		atexit(knobs_restore);
}

/* -S copies of the filter on @fd; 77 on a kernel without the opcode */
static void add_filters(int fd)
{
	struct sock_filter *prog;
	unsigned int len, pdu, i;
	int op = filter_of(&prog, &len, &pdu), ret;

	for (i = 0; i < opt.stack; i++) {
		struct io_uring_bpf b = {
			.cmd_type = IO_URING_BPF_CMD_FILTER,
			.filter = {
				.opcode = op, .filter_len = len,
				.pdu_size = pdu,
				.filter_ptr = (uintptr_t)prog,
			},
		};

		ret = sys_register(fd, IORING_REGISTER_BPF_FILTER, &b, 1);
		if (ret == -EINVAL && !i) {
			fprintf(stderr, "ringbench: kernel has no IORING_REGISTER_BPF_FILTER: no filtered ring here\n");
			exit(EXIT_UNSUPPORTED);
		}
		if (ret < 0)
			die("IORING_REGISTER_BPF_FILTER: %s", strerror(-ret));
	}
}

/*
 * A filter that refuses nothing costs what the tables cost too: before a
 * filtered cell is measured, the NOP filters that can refuse (flags, real)
 * must refuse a NOP with IOSQE_ASYNC, and real one with user_data 0xdead
 * (a verdict on the payload); the bench's own SQEs all pass them. Before
 * the workload's rings exist, on a ring of its own with the same filters
 * (the task's, and the ring's -S copies) and no allow-lists, which would
 * refuse such a NOP themselves.
 */
static void filters_refuse(void)
{
	static const struct { __u64 ud; unsigned int flags; } probe[] = {
		{ 1, IOSQE_ASYNC }, { 0xdead, 0 },
	};
	struct sock_filter *prog;
	unsigned int len, pdu, i, n;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int f = filter_kind(), ret;

	if (filter_of(&prog, &len, &pdu) != IORING_OP_NOP ||
	    (f != F_FLAGS && f != F_REAL))
		return;
	ret = io_uring_queue_init(4, &ring, 0);
	if (ret)
		die("filter probe: io_uring_queue_init: %s", strerror(-ret));
	if (ring_filters(opt.restricted))
		add_filters(ring.ring_fd);
	n = f == F_REAL ? 2 : 1;
	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_nop(sqe);
		sqe->user_data = probe[i].ud;
		sqe->flags = probe[i].flags;
		ret = io_uring_submit_and_wait(&ring, 1);
		if (ret < 0)
			die("filter probe: submit: %s", strerror(-ret));
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret < 0)
			die("filter probe: wait: %s", strerror(-ret));
		if (cqe->res != -EACCES)
			die("filter %s allowed a NOP (user_data %#llx, flags %#x): res %d, want -EACCES",
			    filter_names[f], (unsigned long long)probe[i].ud,
			    probe[i].flags, cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	/*
	 * Its teardown and its filters' freeing run in kworkers and RCU:
	 * done before the warm-up (guest time, free under -icount
	 * sleep=off), not in this run's timed loop or the next run's
	 */
	usleep(200000);
}

/*
 * A ring for the workload. A restricted ring starts disabled, takes the
 * policy and is enabled; what must be registered (files, buffers) is
 * registered by the caller first, through @prepare, while it is disabled.
 */
static void ring_init(struct bench *b, unsigned int entries,
		      unsigned int flags, void (*prepare)(struct bench *))
{
	struct io_uring_params p = { .flags = flags };
	struct io_uring_restriction r[4];
	int ret;

	if (opt.wl == W_SQPOLL) {
		p.flags |= IORING_SETUP_SQPOLL;
		p.sq_thread_idle = 1000;	/* ms: never idles in a run */
	}
	if (ring_lists(opt.restricted))
		p.flags |= IORING_SETUP_R_DISABLED;
	ret = io_uring_queue_init_params(entries, &b->ring, &p);
	if (ret == -EINVAL && ring_lists(opt.restricted)) {
		p.flags &= ~IORING_SETUP_R_DISABLED;
		if (io_uring_queue_init_params(entries, &b->ring, &p) == 0) {
			fprintf(stderr, "ringbench: kernel has no IORING_SETUP_R_DISABLED: no restricted ring here\n");
			exit(EXIT_UNSUPPORTED);
		}
	}
	if (ret)
		die("io_uring_queue_init_params: %s", strerror(-ret));
	if (prepare)
		prepare(b);
	if (ring_filters(opt.restricted))
		add_filters(b->ring.ring_fd);
	if (ring_lists(opt.restricted)) {
		ret = sys_register(b->ring.ring_fd,
				   IORING_REGISTER_RESTRICTIONS, r, policy(r));
		if (ret < 0)
			die("IORING_REGISTER_RESTRICTIONS: %s", strerror(-ret));
		ret = sys_register(b->ring.ring_fd,
				   IORING_REGISTER_ENABLE_RINGS, NULL, 0);
		if (ret < 0)
			die("IORING_REGISTER_ENABLE_RINGS: %s", strerror(-ret));
	}
}

/* Reap exactly @n CQEs; each must carry @want. */
static void reap(struct bench *b, unsigned int n, int want)
{
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;
	int ret;

	while (seen < n) {
		io_uring_for_each_cqe(&b->ring, head, cqe) {
			if (cqe->res != want)
				die("CQE %u: res %d (%s), want %d", seen,
				    cqe->res, strerror(cqe->res < 0 ? -cqe->res : 0),
				    want);
			if (++seen == n)
				break;
		}
		io_uring_cq_advance(&b->ring, seen);
		if (seen < n) {
			ret = io_uring_wait_cqe_nr(&b->ring, &cqe, n - seen);
			if (ret)
				die("io_uring_wait_cqe_nr: %s", strerror(-ret));
			n -= seen;
			seen = 0;
		}
	}
}

/* openat's directory */
static int tmp_dir = -1;

/* connect's address: one prog_connect allows */
static struct sockaddr_in connect_to = {
	.sin_family = AF_INET,
	.sin_port = CONNECT_PORT,
	.sin_addr = { .s_addr = CONNECT_ADDR },
};

static void prep_one(struct io_uring_sqe *sqe, unsigned int i)
{
	if (opt.wl == W_SOCKET) {
		io_uring_prep_socket(sqe, AF_UNIX, SOCK_DGRAM, 99, 0);
		return;
	}
	if (opt.wl == W_OPENAT) {
		io_uring_prep_openat(sqe, tmp_dir, "ringbench-no-such-file",
				     O_RDONLY, 0);
		return;
	}
	if (opt.wl == W_CONNECT) {
		/* fd -1: -EBADF at issue, after the checks and any filter */
		io_uring_prep_connect(sqe, -1, (struct sockaddr *)&connect_to,
				      sizeof(connect_to));
		return;
	}
	if (opt.wl == W_TOPOP) {
		/* an opcode past the common ones; -EBADF at issue */
		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, -1, NULL, 0, 0);
		return;
	}
	io_uring_prep_nop(sqe);
	switch (opt.wl) {
	case W_DRAIN:
		if (i == opt.batch - 1)
			sqe->flags = IOSQE_IO_DRAIN;
		break;
	case W_LINK:
		if (!(i & 1) && i + 1 < opt.batch)
			sqe->flags = IOSQE_IO_LINK;
		break;
	default:
		sqe->flags = wl_flag[opt.wl];
	}
}

/* the NOP workloads: one round is @batch SQEs submitted by one enter */
static unsigned int round_nop(struct bench *b)
{
	/* CQE_SKIP_SUCCESS: the NOPs succeed, so no CQE comes */
	unsigned int i, want = opt.wl == W_SKIP ? 0 : opt.batch;
	int ret;

	/*
	 * Plain NOPs keep their own loop: the flag cells' per-SQE choice is
	 * user-space work inside the timed window, and the NOP cells' figures
	 * stay comparable with runs made before those cells existed.
	 */
	if (opt.wl == W_NOP || opt.wl == W_DENY) {
		for (i = 0; i < opt.batch; i++)
			io_uring_prep_nop(io_uring_get_sqe(&b->ring));
	} else {
		for (i = 0; i < opt.batch; i++)
			prep_one(io_uring_get_sqe(&b->ring), i);
	}
	ret = io_uring_submit_and_wait(&b->ring, want);
	if (ret != (int)opt.batch)
		die("submit: %d (%s), want %u", ret,
		    strerror(ret < 0 ? -ret : 0), opt.batch);
	reap(b, want, opt.wl == W_DENY &&
		      (ring_lists(opt.restricted) || opt.restricted == R_TASK) ?
		      -EACCES :
		      opt.wl == W_TOPOP || opt.wl == W_CONNECT ? -EBADF :
		      opt.wl == W_SOCKET ? -EPROTONOSUPPORT :
		      opt.wl == W_OPENAT ? -ENOENT : 0);
	return opt.batch;
}

/* A 4 KiB block at a pseudo-random, reproducible offset. */
static uint64_t next_offset(struct bench *b)
{
	b->lcg = b->lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((b->lcg >> 17) % b->blocks) * BS;
}

static unsigned int round_read(struct bench *b)
{
	struct io_uring_sqe *sqe;
	unsigned int i;
	int ret;

	for (i = 0; i < opt.depth; i++) {
		sqe = io_uring_get_sqe(&b->ring);
		/* one registered buffer (index 0) holds all @depth blocks */
		io_uring_prep_read_fixed(sqe, 0, (char *)b->bufs + i * BS, BS,
					 next_offset(b), 0);
		sqe->flags |= IOSQE_FIXED_FILE;
	}
	if (opt.wl == W_SQPOLL) {
		ret = io_uring_submit(&b->ring);
		if (ret != (int)opt.depth)
			die("submit: %d, want %u", ret, opt.depth);
	} else {
		ret = io_uring_submit_and_wait(&b->ring, opt.depth);
		if (ret != (int)opt.depth)
			die("submit: %d (%s), want %u", ret,
			    strerror(ret < 0 ? -ret : 0), opt.depth);
	}
	reap(b, opt.depth, BS);
	return opt.depth;
}

static void prepare_read(struct bench *b)
{
	struct iovec iov = { .iov_len = (size_t)opt.depth * BS };
	int ret;

	iov.iov_base = b->bufs;
	ret = io_uring_register_buffers(&b->ring, &iov, 1);
	if (ret)
		die("io_uring_register_buffers: %s", strerror(-ret));
	ret = io_uring_register_files(&b->ring, &b->fd, 1);
	if (ret)
		die("io_uring_register_files: %s", strerror(-ret));
}

static void open_target(struct bench *b)
{
	struct stat st;
	uint64_t bytes;

	b->fd = open(opt.file, O_RDONLY | O_DIRECT);
	if (b->fd < 0)
		die("open %s: %s", opt.file, strerror(errno));
	if (fstat(b->fd, &st))
		die("stat %s: %s", opt.file, strerror(errno));
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(b->fd, BLKGETSIZE64, &bytes))
			die("BLKGETSIZE64 %s: %s", opt.file, strerror(errno));
	} else {
		bytes = st.st_size;
	}
	b->blocks = bytes / BS;
	if (!b->blocks)
		die("%s is smaller than one %d-byte block", opt.file, BS);
	if (posix_memalign(&b->bufs, BS, (size_t)opt.depth * BS))
		die("out of memory");
	b->lcg = 42;
}

/*
 * bufsel: the kernel picks each read's buffer from the group and names it
 * in the CQE, which gives it back to the ring as it is reaped.
 */
static unsigned int round_bufsel(struct bench *b)
{
	unsigned int mask = io_uring_buf_ring_mask(opt.depth);
	struct io_uring_cqe *cqe;
	unsigned int i, head, seen = 0;
	int ret;

	for (i = 0; i < opt.depth; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&b->ring);

		io_uring_prep_read(sqe, 0, NULL, BS, next_offset(b));
		sqe->flags |= IOSQE_FIXED_FILE | IOSQE_BUFFER_SELECT;
		sqe->buf_group = BGID;
	}
	ret = io_uring_submit_and_wait(&b->ring, opt.depth);
	if (ret != (int)opt.depth)
		die("submit: %d (%s), want %u", ret,
		    strerror(ret < 0 ? -ret : 0), opt.depth);
	while (seen < opt.depth) {
		unsigned int got = 0;

		io_uring_for_each_cqe(&b->ring, head, cqe) {
			unsigned int bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;

			if (cqe->res != BS || !(cqe->flags & IORING_CQE_F_BUFFER))
				die("CQE %u: res %d, flags %#x, want %d and a buffer",
				    seen + got, cqe->res, cqe->flags, BS);
			io_uring_buf_ring_add(b->br, (char *)b->bufs + bid * BS,
					      BS, bid, mask, got);
			if (seen + ++got == opt.depth)
				break;
		}
		/* the buffers go back and the CQEs are consumed in one step */
		io_uring_buf_ring_cq_advance(&b->ring, b->br, got);
		seen += got;
		if (seen < opt.depth) {
			ret = io_uring_wait_cqe_nr(&b->ring, &cqe, opt.depth - seen);
			if (ret)
				die("io_uring_wait_cqe_nr: %s", strerror(-ret));
		}
	}
	return opt.depth;
}

static void prepare_bufsel(struct bench *b)
{
	struct io_uring_buf_reg reg = { .ring_entries = opt.depth, .bgid = BGID };
	unsigned int mask = io_uring_buf_ring_mask(opt.depth), i;
	int ret;

	if (opt.depth & (opt.depth - 1))
		die("-d must be a power of two (a provided-buffer ring's size)");
	if (posix_memalign((void **)&b->br, 4096,
			   opt.depth * sizeof(struct io_uring_buf)))
		die("out of memory");
	reg.ring_addr = (uintptr_t)b->br;
	io_uring_buf_ring_init(b->br);
	ret = io_uring_register_buf_ring(&b->ring, &reg, 0);
	if (ret)
		die("IORING_REGISTER_PBUF_RING: %s", strerror(-ret));
	for (i = 0; i < opt.depth; i++)
		io_uring_buf_ring_add(b->br, (char *)b->bufs + i * BS, BS, i,
				      mask, i);
	io_uring_buf_ring_advance(b->br, opt.depth);
	ret = io_uring_register_files(&b->ring, &b->fd, 1);
	if (ret)
		die("io_uring_register_files: %s", strerror(-ret));
}

/*
 * rings: one round is every ring in turn submitting -b NOPs and reaping
 * them. Between two turns of a ring the others have run: on hardware,
 * with 64 or 1024 rings, its context has left L1 (and L2).
 */
static struct bench *many;

static unsigned int round_rings(struct bench *b)
{
	unsigned int r, i;
	int ret;

	(void)b;
	for (r = 0; r < opt.nrings; r++) {
		struct io_uring *ring = &many[r].ring;

		for (i = 0; i < opt.batch; i++)
			io_uring_prep_nop(io_uring_get_sqe(ring));
		ret = io_uring_submit_and_wait(ring, opt.batch);
		if (ret != (int)opt.batch)
			die("ring %u: submit: %d (%s), want %u", r, ret,
			    strerror(ret < 0 ? -ret : 0), opt.batch);
		reap(&many[r], opt.batch, 0);
	}
	return opt.nrings * opt.batch;
}

static void rings_init(void)
{
	struct rlimit rl;
	unsigned int r;

	/* a ring is a file: room for them and the usual few */
	if (getrlimit(RLIMIT_NOFILE, &rl))
		die("getrlimit: %s", strerror(errno));
	if (rl.rlim_cur < opt.nrings + 64) {
		rl.rlim_cur = opt.nrings + 64;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			die("%u rings need %lu open files: %s", opt.nrings,
			    (unsigned long)rl.rlim_cur, strerror(errno));
	}
	many = calloc(opt.nrings, sizeof(*many));
	if (!many)
		die("out of memory");
	for (r = 0; r < opt.nrings; r++)
		ring_init(&many[r], opt.batch, 0, NULL);
}

/*
 * setup: one round is the whole life of SETUP_BATCH rings, then a pause
 * (not on the thread's CPU time) in which the kworker and RCU finish
 * their teardown, so that every round starts from the same state.
 */
#define SETUP_BATCH	16

static unsigned int round_setup(struct bench *b)
{
	static struct bench rings[SETUP_BATCH];
	int i;

	(void)b;
	for (i = 0; i < SETUP_BATCH; i++)
		ring_init(&rings[i], 8, 0, NULL);
	for (i = 0; i < SETUP_BATCH; i++)
		io_uring_queue_exit(&rings[i].ring);
	usleep(5000);
	return SETUP_BATCH;
}

/*
 * fork: one round is a child forked, exiting at once, and reaped; what
 * the parent's task restrictions (or another task's) add to that. One
 * vCPU under TCG: the clock covers the parent and the child.
 */
static unsigned int round_fork(struct bench *b)
{
	pid_t p = fork();

	(void)b;
	if (p < 0)
		die("fork: %s", strerror(errno));
	if (!p)
		_exit(0);
	if (waitpid(p, NULL, 0) != p)
		die("waitpid: %s", strerror(errno));
	return 1;
}

/* -r 6: a task that registered filters and waits to be killed */
static pid_t other_pid;

static void other_exit(void)
{
	if (other_pid > 0) {
		kill(other_pid, SIGKILL);
		waitpid(other_pid, NULL, 0);
	}
}

/*
 * -r 4, 5, 6: restrictions of the task (fd -1), registered before any
 * ring is made: its allow-lists (the workload's policy), its filters,
 * or another task's filters and none of this one's. 77 on a kernel
 * without them.
 */
static void task_setup(void)
{
	struct {
		struct io_uring_task_restriction head;
		struct io_uring_restriction r[4];
	} t;
	int ret, pfd[2], status;
	char c;

	switch (opt.restricted) {
	case R_TASK:
		memset(&t, 0, sizeof(t));
		t.head.nr_res = policy(t.r);
		ret = sys_register(-1, IORING_REGISTER_RESTRICTIONS, &t, 1);
		/* 6.1: the fd is looked up; on patched -EINVAL is a real error */
		if (ret == -EBADF) {
			fprintf(stderr, "ringbench: kernel has no task restrictions: no task-restricted ring here\n");
			exit(EXIT_UNSUPPORTED);
		}
		if (ret < 0)
			die("task IORING_REGISTER_RESTRICTIONS: %s",
			    strerror(-ret));
		break;
	case R_TASK_FILTERS:
		add_filters(-1);
		break;
	case R_OTHER_FILTERS:
	case R_OTHER_PLAIN:
		if (pipe(pfd))
			die("pipe: %s", strerror(errno));
		other_pid = fork();
		if (other_pid < 0)
			die("fork: %s", strerror(errno));
		if (!other_pid) {
			/* gone with its parent, a killed run included */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(pfd[0]);
			if (opt.restricted == R_OTHER_FILTERS)
				add_filters(-1);
			if (write(pfd[1], "x", 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1) {
			waitpid(other_pid, &status, 0);
			other_pid = 0;
			if (WIFEXITED(status) &&
			    WEXITSTATUS(status) == EXIT_UNSUPPORTED)
				exit(EXIT_UNSUPPORTED);
			die("the filtered task failed");
		}
		close(pfd[0]);
		atexit(other_exit);
		break;
	}
}

static void print_result(uint64_t ops, uint64_t ns)
{
	struct utsname u;
	int i;

	uname(&u);
	printf("{\"workload\":\"%s\",\"ring\":\"%s\",\"batch\":%u,"
		"\"depth\":%u,\"ops\":%" PRIu64 ",\"ns\":%" PRIu64 ","
		"\"ns_per_op\":%.3f,\"ops_per_s\":%.1f,\"clock\":\"%s\","
		"\"release\":\"%s\",\"pid\":%d",
		wl_names[opt.wl], ring_names[opt.restricted],
		nop_like(opt.wl) ? opt.batch : 0,
		opt.wl == W_READ || opt.wl == W_SQPOLL || opt.wl == W_BUFSEL ?
		opt.depth : 0,
		ops, ns, (double)ns / ops, ops * 1e9 / ns,
		clock_id == CLOCK_MONOTONIC ? "monotonic" : "thread_cputime",
		u.release, (int)getpid());
	if (opt.wl == W_RINGS)
		printf(",\"rings\":%u", opt.nrings);
	/* a filter cell names its filter on every ring, 0 and 1 included */
	if (opt.filter >= 0 || opt.stack > 1 || opt.jit >= 0 || opt.fold >= 0) {
		struct sock_filter *prog;
		unsigned int len, pdu;

		filter_of(&prog, &len, &pdu);
		printf(",\"filter\":\"%s%s%.0u%s\",\"filter_insns\":%u",
		       filter_names[filter_kind()],
		       opt.stack > 1 ? "x" : "", opt.stack > 1 ? opt.stack : 0,
		       opt.jit == 0 ? "-nojit" : opt.fold == 0 ? "-chain" : "",
		       len);
	}
	for (i = 0; i < opt.ntags; i++) {
		const char *eq = strchr(opt.tags[i], '=');

		printf(",\"%.*s\":\"%s\"", (int)(eq - opt.tags[i]),
			opt.tags[i], eq + 1);
	}
	printf("}\n");
}

int main(int argc, char *argv[])
{
	unsigned int (*round)(struct bench *);
	uint64_t t0, t1, last, done = 0, since = 0;
	struct bench b = { .fd = -1 };
	unsigned long warm = 0;
	int c, i;

	while ((c = getopt(argc, argv, "w:r:b:d:R:f:n:W:t:F:S:J:L:mh")) != -1) {
		switch (c) {
		case 'w':
			for (i = 0; i <= W_LAST; i++)
				if (!strcmp(optarg, wl_names[i]))
					break;
			if (i > W_LAST) {
				fprintf(stderr, "ringbench: unknown workload '%s'\n", optarg);
				usage(argv[0], 2);
			}
			opt.wl = i;
			break;
		case 'r':
			opt.restricted = atoi(optarg);
			if (opt.restricted < R_PLAIN || opt.restricted > R_LAST)
				usage(argv[0], 2);
			break;
		case 'F':
			for (i = 0; i <= F_LAST; i++)
				if (!strcmp(optarg, filter_names[i]))
					break;
			if (i > F_LAST) {
				fprintf(stderr, "ringbench: unknown filter '%s'\n", optarg);
				usage(argv[0], 2);
			}
			opt.filter = i;
			break;
		case 'S':
			opt.stack = strtoul(optarg, NULL, 0);
			if (!opt.stack || opt.stack > 64)
				usage(argv[0], 2);
			break;
		case 'L':
			opt.fold = atoi(optarg);
			break;
		case 'J':
			opt.jit = atoi(optarg);
			break;
		case 'b':
			opt.batch = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			opt.depth = strtoul(optarg, NULL, 0);
			break;
		case 'R':
			opt.nrings = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			opt.file = optarg;
			break;
		case 'n':
			opt.ops = strtoul(optarg, NULL, 0);
			break;
		case 'W':
			opt.warmup = strtoul(optarg, NULL, 0);
			warm = 1;
			break;
		case 't':
			if (opt.ntags == MAX_TAGS || !strchr(optarg, '=')) {
				fprintf(stderr, "ringbench: -t wants KEY=VALUE, at most %d\n", MAX_TAGS);
				usage(argv[0], 2);
			}
			opt.tags[opt.ntags++] = optarg;
			break;
		case 'm':
			opt.mark = 1;
			break;
		case 'h':
			usage(argv[0], 0);
			break;
		default:
			usage(argv[0], 2);
		}
	}
	/* fork makes no ring: a ring's own restrictions would not be there */
	if (opt.wl == W_FORK && opt.restricted >= R_LISTS &&
	    opt.restricted <= R_BOTH) {
		fprintf(stderr, "ringbench: fork runs with -r 0, 4, 5 or 6\n");
		usage(argv[0], 2);
	}
	if (!opt.batch || opt.batch > 4096 || !opt.depth || opt.depth > 4096) {
		fprintf(stderr, "ringbench: -b and -d must be 1..4096\n");
		usage(argv[0], 2);
	}
	if (!opt.nrings || opt.nrings > 65536) {
		fprintf(stderr, "ringbench: -R must be 1..65536\n");
		usage(argv[0], 2);
	}
	if (!opt.ops)
		opt.ops = default_ops[opt.wl];
	if (!warm)
		opt.warmup = opt.wl == W_SETUP ? opt.ops / 4 : opt.ops / 10;

	if (opt.restricted != R_PLAIN && opt.restricted != R_LISTS &&
	    opt.restricted != R_TASK) {
		if (opt.jit >= 0)
			knob_set(&jit_knob, opt.jit, NULL);
		if (opt.fold >= 0)
			knob_set(&fold_knob, opt.fold,
				 "no io_uring.bpf_fold: no chain-form filter cell here");
	}
	task_setup();
	if (ring_filters(opt.restricted) || opt.restricted == R_TASK_FILTERS)
		filters_refuse();

	if (opt.wl == W_OPENAT) {
		tmp_dir = open("/tmp", O_RDONLY | O_DIRECTORY);
		if (tmp_dir < 0)
			die("/tmp: %s", strerror(errno));
	}

	switch (opt.wl) {
	case W_NOP:
	case W_SOCKET:
	case W_OPENAT:
	case W_CONNECT:
	case W_SKIP:
	case W_DRAIN:
	case W_LINK:
	case W_ASYNC:
	case W_TOPOP:
		ring_init(&b, opt.batch, 0, NULL);
		round = round_nop;
		break;
	case W_DENY:
		ring_init(&b, opt.batch, IORING_SETUP_SUBMIT_ALL, NULL);
		round = round_nop;
		break;
	case W_READ:
	case W_SQPOLL:
		open_target(&b);
		ring_init(&b, opt.depth, 0, prepare_read);
		round = round_read;
		break;
	case W_BUFSEL:
		open_target(&b);
		ring_init(&b, opt.depth, 0, prepare_bufsel);
		round = round_bufsel;
		break;
	case W_RINGS:
		rings_init();
		round = round_rings;
		break;
	case W_FORK:
		round = round_fork;
		break;
	case W_SETUP:
		/* fails here, not mid-run, on a kernel without R_DISABLED */
		ring_init(&b, 8, 0, NULL);
		io_uring_queue_exit(&b.ring);
		round = round_setup;
		clock_id = CLOCK_THREAD_CPUTIME_ID;
		break;
	default:
		return 2;
	}

	while (done < opt.warmup)
		done += round(&b);
	/* fork: the warm-up's children are freed by RCU, not in the window */
	if (opt.wl == W_FORK)
		usleep(200000);

	done = 0;
	t0 = last = now_ns();
	/* between the two clock reads, so the window is what the clock saw */
	if (opt.mark)
		LAB_MARK(LAB_MARK_START);
	while (done < opt.ops) {
		done += round(&b);
		/* the clock is read once per 256 rounds, not per round */
		if (!(++since & 255)) {
			t1 = now_ns();
			if (t1 - last >= 1000000000ULL) {
				fprintf(stderr, "ringbench: %s %s: %.0f ops/s, %.1f ns/op, %" PRIu64 "/%lu ops\n",
					wl_names[opt.wl], ring_names[opt.restricted],
					done * 1e9 / (t1 - t0),
					(double)(t1 - t0) / done, done, opt.ops);
				last = t1;
			}
		}
	}
	if (opt.mark)
		LAB_MARK(LAB_MARK_STOP);
	t1 = now_ns();

	print_result(done, t1 - t0);
	if (opt.wl == W_RINGS) {
		for (i = 0; i < (int)opt.nrings; i++)
			io_uring_queue_exit(&many[i].ring);
		/*
		 * Teardown runs in kworkers and RCU after close: let it finish
		 * here (guest time, free under -icount sleep=off) rather than
		 * inside the next run's timed loop, which it would add
		 * instructions to (measured: +50 per op on the next cell).
		 */
		usleep(1000000);
	} else if (opt.wl == W_FORK) {
		/* as for rings: the children's teardown, before the next run */
		usleep(1000000);
	} else if (opt.wl != W_SETUP) {
		io_uring_queue_exit(&b.ring);
	}
	return 0;
}
