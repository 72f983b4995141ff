/* SPDX-License-Identifier: MIT */
/*
 * Description: differential test of IORING_REGISTER_BPF_FILTER's
 *		verdicts, SQE by SQE, against libpcap's bpf_filter() running
 *		each opcode's chain as it was registered. The kernel may run
 *		a chain program by program, fold it into per-flag verdicts or
 *		fuse it into one program: only what an SQE observes (-EACCES
 *		or not) is compared, never the form.
 *
 * Usage: LAB_KERNEL=patched|upstream|baseline bpf-fold-diff [-s SEED]
 *        [-n CASES] [-b BLOCK] [-c CASE] [-p EVERY] [-v]
 *
 * -c CASE runs case CASE alone (what a mismatch report says to replay),
 * -v prints every case, -p EVERY prints progress to stderr. TAP: one
 * verdict per BLOCK cases (default 50) with its counts; a mismatch
 * prints the seed, the case's registrations as BPF_STMT/BPF_JUMP lines,
 * the SQE, its context, the kernel's answer and the reference's. Exit
 * status 1 on any mismatch.
 *
 * A case is a fresh ring, 1..8 registrations (now and then 30 or more on
 * one opcode, a program near BPF_MAXINSNS, a chain past 4096
 * instructions, DENY_REST at any point, a registration made invalid on
 * purpose and its expected error) and up to 8 SQEs (NOP mostly, SOCKET,
 * OPENAT of /dev/null) with random flags, user_data and arguments. Case
 * N draws from its own stream (splitmix64 of the seed and N, then
 * xorshift64*), as in restrict-diff.c.
 *
 * What keeps the model exact (the kernel is the spec: io_uring/
 * bpf_filter.c, io_init_req_slow(), the preps):
 * - SQEs go one at a time, each completed before the next, so no drain
 *   is ever pending but for an IOSQE_IO_DRAIN SQE itself, which is the
 *   last of its ring and is seen with IOSQE_ASYNC added;
 * - IOSQE_CQE_SKIP_SUCCESS only on the last SQE, followed by a NOP
 *   sentinel: a refusal is posted at submission, so the skip-flagged
 *   SQE's CQE is before the sentinel's or it was allowed;
 * - errors before the filter are expected exactly: flag 0x80 -EINVAL,
 *   IOSQE_BUFFER_SELECT -EOPNOTSUPP, a drain after CQE_SKIP -EOPNOTSUPP,
 *   SOCKET type flags -EINVAL, OPENAT with IOSQE_FIXED_FILE -EBADF;
 * - the SQEs' own work never answers -EACCES: only families, types and
 *   protocols built in (no module request, no ping socket) and /dev/null
 *   on devtmpfs as root.
 *
 * libpcap loads BPF_W|BPF_ABS big-endian: it gets the context with each
 * word byte-swapped, so that it reads the host-order word the kernel's
 * filter reads. Linked statically (-l:libpcap.a): the guest needs
 * nothing.
 *
 * On a kernel without IORING_REGISTER_BPF_FILTER (baseline, upstream):
 * a TAP skip, after checking that registration answers -EINVAL.
 */
#define _GNU_SOURCE
#include "uring-test.h"
#include <linux/io_uring/bpf_filter.h>
#include <linux/filter.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <liburing.h>

/*
 * libpcap's reference interpreter. <pcap/bpf.h> defines the BPF_*
 * macros <linux/filter.h> has; its struct bpf_insn is struct
 * sock_filter's layout, so its prototype is written here.
 */
unsigned int bpf_filter(const struct sock_filter *pc, const unsigned char *p,
			unsigned int wirelen, unsigned int buflen);

#define CTX_SIZE	sizeof(struct io_uring_bpf_ctx)
#define NWORDS		(CTX_SIZE / 4)
#define MAX_REGS	48
#define MAX_SQES	9	/* 8 and a sentinel */
#define MAX_INSNS	(BPF_MAXINSNS + 1)	/* one past, refused on purpose */
#define CHAIN_LIMIT	32768	/* bpf_filter.c's IO_BPF_MAX_INSNS */
#define SENTINEL_OP	IORING_OP_NOP

/*
 * The kernel's open flags (include/uapi/asm-generic/fcntl.h, x86-64):
 * glibc's O_LARGEFILE is 0 on 64-bit, the kernel's is not.
 */
#define K_O_CREAT	00000100
#define K_O_EXCL	00000200
#define K_O_NOCTTY	00000400
#define K_O_TRUNC	00001000
#define K_O_APPEND	00002000
#define K_O_NONBLOCK	00004000
#define K_O_DSYNC	00010000
#define K_FASYNC	00020000
#define K_O_DIRECT	00040000
#define K_O_LARGEFILE	00100000
#define K_O_DIRECTORY	00200000
#define K_O_NOFOLLOW	00400000
#define K_O_NOATIME	01000000
#define K_O_CLOEXEC	02000000
#define K___O_SYNC	04000000
#define K_O_PATH	010000000
#define K___O_TMPFILE	020000000
#define K_VALID_OPEN_FLAGS						\
	(3 | K_O_CREAT | K_O_EXCL | K_O_NOCTTY | K_O_TRUNC | K_O_APPEND |	\
	 K_O_NONBLOCK | K___O_SYNC | K_O_DSYNC | K_FASYNC | K_O_DIRECT |	\
	 K_O_LARGEFILE | K_O_DIRECTORY | K_O_NOFOLLOW | K_O_NOATIME |	\
	 K_O_CLOEXEC | K_O_PATH | K___O_TMPFILE)
#define K_O_PATH_FLAGS	(K_O_DIRECTORY | K_O_NOFOLLOW | K_O_PATH | K_O_CLOEXEC)

#define SOCK_TYPE_MASK	0xf

struct reg {
	uint32_t opcode, flags, len;
	uint8_t pdu;
	uint16_t cmd_flags;	/* non-zero: refused on purpose */
	int expect;		/* 0 or the error the kernel must answer */
	const char *why;	/* what made it invalid, or its kind */
	/* made under io_uring.bpf_fold=0: run as registered, not decided */
	bool unfolded;
	struct sock_filter insn[MAX_INSNS];
};

struct tsqe {
	uint8_t op, flags;
	uint64_t ud;
	uint32_t a, b, c;	/* SOCKET family/type/protocol; OPENAT flags/mode */
	bool sentinel;
};

struct dcase {
	uint64_t id;
	unsigned int nreg, nsqe;
	struct reg *reg[MAX_REGS];
	struct tsqe sqe[MAX_SQES];
	/* the words the case's SQEs put in the context: compare constants */
	uint32_t vals[NWORDS][MAX_SQES];
	unsigned int nvals[NWORDS];
	bool deep;
};

/*
 * A filtered verdict's chain, by what it reads on some path: the flags
 * alone (constants too), which a kernel can decide at registration;
 * user_data and the flags, compared with constants, which it could decide
 * on ranges; more, in one program or several (fused, or run one by one
 * past the fused length). What the kernel made of it can differ: a
 * program made under bpf_fold=0 has no decided verdicts, so a chain over
 * it runs (fused) whatever it reads. Apart: a chain whose newest program
 * was made under bpf_fold=0 (it runs as registered), and an opcode
 * DENY_REST denied (decided, whatever was added after).
 */
enum { F_FLAGS, F_UD, F_ONE, F_SEVERAL, F_ASIS, F_DENIED, F_NR };
static const char *const form_name[F_NR] = {
	[F_FLAGS] = "flags only", [F_UD] = "user_data and flags",
	[F_ONE] = "more, one program", [F_SEVERAL] = "more, several",
	[F_ASIS] = "newest made with bpf_fold=0",
	[F_DENIED] = "DENY_REST's denial",
};

static struct counts {
	unsigned long cases, verdicts, refused, allowed, skipped, prefail;
	unsigned long regs, deny_rest, reg_refused, chain_full, long_chains, progs_4k;
	unsigned long unfiltered;
	/* filtered verdicts by what the chain reads (form_name[]) */
	unsigned long form[F_NR];
	unsigned long mismatches;
	unsigned int longest_chain;
} cnt;

static uint64_t seed;
static bool verbose;
static int fd_base;


static uint32_t below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

/* ------------------------------------------------------------------ */
/* The model: what the kernel puts in the context, and what it refuses */

/* bytes of the union the kernel fills in for @op (io_bpf_pdu_size()) */
static uint8_t pdu_of(unsigned int op)
{
	struct io_uring_bpf_ctx c;

	switch (op) {
	case IORING_OP_SOCKET:
		return sizeof(c.socket);
	case IORING_OP_OPENAT:
	case IORING_OP_OPENAT2:
		return sizeof(c.open);
	case IORING_OP_CONNECT:
		return sizeof(c.connect);
	default:
		return 0;
	}
}

/* build_open_how() and __io_openat_prep(): open.flags as the filter sees it */
static uint64_t open_flags_seen(uint32_t f)
{
	uint64_t fl = f & K_VALID_OPEN_FLAGS;

	if (fl & K_O_PATH)
		fl &= K_O_PATH_FLAGS;
	/* force_o_largefile() holds on x86-64 */
	if (!(fl & K_O_PATH))
		fl |= K_O_LARGEFILE;
	return fl;
}

/* OPENAT's mode: umode_t from sqe->len, kept only if the open may create */
static uint64_t open_mode_seen(uint32_t f, uint32_t len)
{
	uint64_t fl = f & K_VALID_OPEN_FLAGS;

	if (fl & K_O_PATH)
		fl &= K_O_PATH_FLAGS;
	if (!(fl & (K_O_CREAT | K___O_TMPFILE)))
		return 0;
	return (uint16_t)len & 07777;
}

/* the flags byte after prep: a drain SQE goes async (io_init_req_prep()) */
static uint8_t flags_seen(const struct tsqe *s)
{
	uint8_t f = s->flags & 0x7f;

	if (f & IOSQE_IO_DRAIN)
		f |= IOSQE_ASYNC;
	return f;
}

/* the context the kernel builds for @s, in host byte order */
static void build_ctx(const struct tsqe *s, struct io_uring_bpf_ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->user_data = s->ud;
	c->opcode = s->op;
	c->sqe_flags = flags_seen(s);
	c->pdu_size = pdu_of(s->op);
	switch (s->op) {
	case IORING_OP_SOCKET:
		c->socket.family = s->a;
		c->socket.type = s->b;
		c->socket.protocol = s->c;
		break;
	case IORING_OP_OPENAT:
		c->open.flags = open_flags_seen(s->a);
		c->open.mode = open_mode_seen(s->a, s->b);
		c->open.resolve = 0;
		break;
	}
}

static uint32_t ctx_word(const struct io_uring_bpf_ctx *c, unsigned int w)
{
	uint32_t v;

	memcpy(&v, (const char *)c + 4 * w, 4);
	return v;
}

/* the ring's state the checks before the filter depend on */
struct ring_model {
	bool drain_disabled;
	/* per opcode: registrations in order, and DENY_REST's denial */
	unsigned int nchain[IORING_OP_LAST];
	uint8_t chain[IORING_OP_LAST][MAX_REGS];
	bool denied[IORING_OP_LAST];
	unsigned int insns[IORING_OP_LAST];	/* as the kernel counts */
};

/*
 * The error an SQE gets before any filter runs, in io_init_req_slow()'s
 * order, then its prep's; 0 if it reaches the filters. Updates the ring's
 * drain_disabled as the kernel does.
 */
static int expect_before_filter(struct ring_model *m, const struct tsqe *s)
{
	if (s->flags & 0x80)
		return -EINVAL;
	if (s->flags & IOSQE_BUFFER_SELECT)
		return -EOPNOTSUPP;
	if (s->flags & IOSQE_CQE_SKIP_SUCCESS)
		m->drain_disabled = true;
	if ((s->flags & IOSQE_IO_DRAIN) && m->drain_disabled)
		return -EOPNOTSUPP;
	if (s->op == IORING_OP_SOCKET &&
	    (s->b & ~SOCK_TYPE_MASK & ~(SOCK_CLOEXEC | SOCK_NONBLOCK)))
		return -EINVAL;
	if (s->op == IORING_OP_OPENAT && (s->flags & IOSQE_FIXED_FILE))
		return -EBADF;
	return 0;
}

/* @c with every word byte-swapped: libpcap loads words big-endian */
static void swap_words(const struct io_uring_bpf_ctx *c, unsigned char *out)
{
	unsigned int w;

	for (w = 0; w < NWORDS; w++) {
		uint32_t v = __builtin_bswap32(ctx_word(c, w));

		memcpy(out + 4 * w, &v, 4);
	}
}

/* libpcap's answer for one program */
static unsigned int reference(const struct reg *r,
			      const struct io_uring_bpf_ctx *c)
{
	unsigned char pkt[CTX_SIZE];

	swap_words(c, pkt);
	return bpf_filter(r->insn, pkt, CTX_SIZE, CTX_SIZE);
}

/* the chain's verdict as registered, newest first: false if refused */
static bool chain_allows(const struct dcase *dc, const struct ring_model *m,
			 const struct io_uring_bpf_ctx *c)
{
	unsigned int op = c->opcode, i;
	bool ok = !m->denied[op];

	for (i = m->nchain[op]; i-- > 0;)
		if (!reference(dc->reg[m->chain[op][i]], c))
			ok = false;
	return ok;
}

/* a registration the model takes: what io_bpf_filters_add() does */
static void model_add(struct ring_model *m, const struct reg *r,
		      unsigned int idx)
{
	unsigned int op = r->opcode, i;

	m->chain[op][m->nchain[op]++] = idx;
	m->insns[op] += r->len + 4;
	if (r->flags & IO_URING_BPF_FILTER_DENY_REST) {
		for (i = 0; i < IORING_OP_LAST; i++) {
			if (!m->nchain[i] && !m->denied[i]) {
				m->denied[i] = true;
				m->insns[i] = 4;
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* Generation                                                         */

/* user_data: 0, 0xdead, high word set, any */
static uint64_t any_ud(void)
{
	switch (rnd() % 6) {
	case 0:
		return 0;
	case 1:
		return 0xdead;
	case 2:
		return (uint64_t)rnd() << 32;
	case 3:
		return ((uint64_t)rnd() << 32) | rnd();
	case 4:
		return one_in(2) ? ~0ULL : 0x100000000ULL;
	default:
		return rnd() & 0xffff;
	}
}

/*
 * A SOCKET whose creation answers anything but -EACCES, and asks for no
 * module: AF_UNIX, AF_INET (no ping socket), AF_NETLINK route or past
 * MAX_LINKS, or a family past NPROTO; now and then a type flag prep
 * refuses.
 */
static void any_socket(struct tsqe *s)
{
	static const uint32_t inet[][2] = {
		{ SOCK_STREAM, 0 }, { SOCK_STREAM, 6 }, { SOCK_DGRAM, 0 },
		{ SOCK_DGRAM, 17 }, { SOCK_RAW, 255 }, { SOCK_RAW, 17 },
		{ 11, 0 }, { 15, 6 },
	};
	unsigned int i;

	switch (rnd() % 4) {
	case 0:
		s->a = AF_UNIX;
		s->b = 1 + rnd() % 5;
		s->c = one_in(3) ? rnd() % 3 : 0;
		break;
	case 1:
		i = rnd() % (sizeof(inet) / sizeof(inet[0]));
		s->a = AF_INET;
		s->b = inet[i][0];
		s->c = inet[i][1];
		break;
	case 2:
		s->a = AF_NETLINK;
		s->b = one_in(2) ? SOCK_RAW : SOCK_DGRAM;
		s->c = one_in(2) ? NETLINK_ROUTE : 32 + rnd() % 100;
		break;
	default:
		s->a = one_in(2) ? 46 + rnd() % 200 : rnd() | 0x100;
		s->b = rnd() & 0xf;
		s->c = rnd() % 3 ? rnd() & 0xff : rnd();
		break;
	}
	if (one_in(3))
		s->b |= SOCK_CLOEXEC;
	if (one_in(3))
		s->b |= SOCK_NONBLOCK;
	if (one_in(12))
		s->b |= 1u << (4 + rnd() % 28);
}

/* OPENAT of /dev/null: any flags, valid or not; sqe->len a mode */
static void any_openat(struct tsqe *s)
{
	static const uint32_t bits[] = {
		1, 2, 3, K_O_CREAT, K_O_EXCL, K_O_NOCTTY, K_O_TRUNC,
		K_O_APPEND, K_O_NONBLOCK, K_O_DSYNC, K_FASYNC, K_O_DIRECT,
		K_O_LARGEFILE, K_O_DIRECTORY, K_O_NOFOLLOW, K_O_NOATIME,
		K_O_CLOEXEC, K___O_SYNC, K_O_PATH, K___O_TMPFILE,
	};
	unsigned int i, n = rnd() % 4;

	s->a = 0;
	for (i = 0; i < n; i++)
		s->a |= bits[rnd() % (sizeof(bits) / sizeof(bits[0]))];
	/* bits build_open_how() drops */
	if (one_in(8))
		s->a |= 1u << (rnd() % 32);
	s->b = one_in(2) ? 0644 : rnd();
}

/* random SQE flags from the valid bits; DRAIN and CQE_SKIP left to the caller */
static uint8_t any_flags(void)
{
	uint8_t f = 0;

	if (one_in(6))
		f |= IOSQE_FIXED_FILE;
	if (one_in(6))
		f |= IOSQE_IO_LINK;
	if (one_in(8))
		f |= IOSQE_IO_HARDLINK;
	if (one_in(4))
		f |= IOSQE_ASYNC;
	if (one_in(40))
		f |= IOSQE_BUFFER_SELECT;
	if (one_in(60))
		f |= 0x80;
	return f;
}

static uint8_t any_sqe_op(void)
{
	unsigned int r = rnd() % 10;

	return r < 6 ? IORING_OP_NOP : r < 8 ? IORING_OP_SOCKET : IORING_OP_OPENAT;
}

/*
 * The SQEs: one at a time, each answered before the next; the last may
 * carry IOSQE_IO_DRAIN, or IOSQE_CQE_SKIP_SUCCESS with a sentinel NOP
 * after it.
 */
static void gen_sqes(struct dcase *dc)
{
	unsigned int i, n = 1 + rnd() % 8, end = rnd() % 8;
	uint64_t uds[4];

	/* a small pool, so that programs comparing user_data hit it */
	for (i = 0; i < 4; i++)
		uds[i] = any_ud();
	for (i = 0; i < n; i++) {
		struct tsqe *s = &dc->sqe[i];

		memset(s, 0, sizeof(*s));
		s->op = any_sqe_op();
		s->flags = any_flags();
		s->ud = one_in(4) ? any_ud() : uds[rnd() % 4];
		if (s->op == IORING_OP_SOCKET)
			any_socket(s);
		else if (s->op == IORING_OP_OPENAT)
			any_openat(s);
	}
	dc->nsqe = n;
	if (end == 0 || end == 3) {
		/* mostly without IOSQE_ASYNC: then only the drain adds it */
		dc->sqe[n - 1].flags |= IOSQE_IO_DRAIN;
		if (!one_in(4))
			dc->sqe[n - 1].flags &= ~IOSQE_ASYNC;
	} else if (end == 1 || end == 2) {
		struct tsqe *s = &dc->sqe[n];

		dc->sqe[n - 1].flags |= IOSQE_CQE_SKIP_SUCCESS;
		if (one_in(8))
			dc->sqe[n - 1].flags |= IOSQE_IO_DRAIN;
		memset(s, 0, sizeof(*s));
		s->op = SENTINEL_OP;
		s->ud = dc->sqe[n - 1].ud ^ 1;
		s->sentinel = true;
		dc->nsqe = n + 1;
	}
}

/* the context words the SQEs will show, for the programs' constants */
static void collect_vals(struct dcase *dc)
{
	unsigned int i, w;

	memset(dc->nvals, 0, sizeof(dc->nvals));
	for (i = 0; i < dc->nsqe; i++) {
		struct io_uring_bpf_ctx c;

		build_ctx(&dc->sqe[i], &c);
		for (w = 0; w < NWORDS; w++)
			dc->vals[w][dc->nvals[w]++] = ctx_word(&c, w);
	}
}

/* which words a program may load: a bit per word */
#define W_ALL		0x3ffu
#define W_FLAGS		((1u << 2) | (1u << 3))	/* opcode/flags word, pad */
#define W_UD		((1u << 0) | (1u << 1))	/* user_data's two words */

/* the words past @op's payload, which read as zero */
static unsigned int zero_words(unsigned int op)
{
	unsigned int pdu = pdu_of(op), w, m = 1u << 3;

	for (w = (16 + pdu) / 4; w < NWORDS; w++)
		m |= 1u << w;
	return m;
}

static unsigned int any_word(unsigned int mask)
{
	unsigned int w;

	do {
		w = rnd() % NWORDS;
	} while (!(mask & (1u << w)));
	return w;
}

/* a value word @w takes, or something near it, or anything */
static uint32_t any_const(const struct dcase *dc, int w)
{
	uint32_t v;

	if (w >= 0 && dc->nvals[w] && rnd() % 3) {
		v = dc->vals[w][rnd() % dc->nvals[w]];
		switch (rnd() % 6) {
		case 0:
			return v + 1;
		case 1:
			return v - 1;
		default:
			return v;
		}
	}
	switch (rnd() % 5) {
	case 0:
		return 0;
	case 1:
		return rnd() & 0xff;
	case 2:
		return 1u << (rnd() % 32);
	case 3:
		return ~0u;
	default:
		return rnd();
	}
}

/*
 * A flag bit, mostly one some SQE of the case shows (IOSQE_ASYNC on a
 * drain included), so that a wrong flags byte changes a verdict.
 */
static uint32_t flag_bit(const struct dcase *dc)
{
	uint32_t f = (dc->vals[2][rnd() % dc->nvals[2]] >> 8) & 0x7f;
	unsigned int b;

	if (!f || one_in(3))
		return 1u << (rnd() % 7);
	do {
		b = rnd() % 7;
	} while (!(f & (1u << b)));
	return 1u << b;
}

/* a JSET mask: a flag bit of word 2, a bit of a value, or any */
static uint32_t any_mask(const struct dcase *dc, int w)
{
	if (w == 2 && rnd() % 2)
		return flag_bit(dc) << 8 | (one_in(4) ? 1u << (8 + rnd() % 7) : 0);
	if (w >= 0 && dc->nvals[w] && rnd() % 2) {
		uint32_t v = dc->vals[w][rnd() % dc->nvals[w]];

		if (v && one_in(2)) {
			unsigned int b;

			do {
				b = rnd() % 32;
			} while (!(v & (1u << b)));
			return 1u << b;
		}
		return v;
	}
	return any_const(dc, -1);
}

static const uint16_t alu_ops[] = {
	BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_AND, BPF_OR, BPF_XOR,
	BPF_LSH, BPF_RSH, BPF_NEG,
};
static const uint16_t jmp_ops[] = { BPF_JEQ, BPF_JGE, BPF_JGT, BPF_JSET };

/* an ALU instruction the classic checker takes */
static struct sock_filter any_alu(const struct dcase *dc)
{
	uint16_t op = alu_ops[rnd() % 10];
	uint32_t k;

	switch (op) {
	case BPF_NEG:
		return (struct sock_filter)BPF_STMT(BPF_ALU | BPF_NEG, 0);
	case BPF_DIV:
		k = one_in(2) ? 1 + rnd() % 16 : rnd() | 1;
		break;
	case BPF_LSH:
	case BPF_RSH:
		k = rnd() % 32;
		break;
	case BPF_AND:
		k = one_in(2) ? 0xffu << (8 * (rnd() % 3)) : any_const(dc, -1);
		break;
	default:
		k = any_const(dc, -1);
	}
	return (struct sock_filter)BPF_STMT(BPF_ALU | op | BPF_K, k);
}

/* a return: 0, a non-zero K (1, any, the top bit), or A */
static struct sock_filter any_ret(bool permissive)
{
	if (one_in(5))
		return (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
	if (rnd() % (permissive ? 8 : 2) == 0)
		return (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
	switch (rnd() % 3) {
	case 0:
		return (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 1);
	case 1:
		return (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0x80000000u);
	default:
		return (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, rnd() | 1);
	}
}

/* a forward offset from @pc to at most @last: 0, to @last, or short */
static uint32_t any_skip(unsigned int pc, unsigned int last, uint32_t cap)
{
	uint32_t max = last - pc - 1;

	if (max > cap)
		max = cap;
	switch (rnd() % 5) {
	case 0:
		return 0;
	case 1:
		return max;
	case 2:
		return below(max + 1);
	default:
		return below((max < 6 ? max : 6) + 1);
	}
}

/*
 * Straight random code: loads from @words, every ALU op, conditional
 * jumps (0, to the last instruction, short), JA, returns in the middle
 * (what follows them may be unreachable), and a return last.
 */
static void gen_random(struct reg *r, const struct dcase *dc,
		       unsigned int len, unsigned int words, bool permissive)
{
	unsigned int pc, last = len - 1;
	int w = -1;

	for (pc = 0; pc < last; pc++) {
		struct sock_filter *i = &r->insn[pc];
		unsigned int k = rnd() % 100;

		if (k < 22) {
			w = any_word(words);
			*i = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4 * w);
		} else if (k < 45) {
			*i = any_alu(dc);
			w = -1;
		} else if (k < 82) {
			uint16_t op = jmp_ops[rnd() % 4];
			uint32_t c = op == BPF_JSET ? any_mask(dc, w) : any_const(dc, w);

			*i = (struct sock_filter)BPF_JUMP(BPF_JMP | op | BPF_K, c,
				any_skip(pc, last, 255), any_skip(pc, last, 255));
		} else if (k < 88) {
			*i = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA,
							  any_skip(pc, last, ~0u));
		} else {
			*i = any_ret(permissive);
		}
	}
	r->insn[last] = any_ret(permissive);
	r->len = len;
}

/* ret blocks of the decision lists: kinds of target */
enum { T_DENY, T_ALLOW, T_RETA, T_NEXT };

/*
 * A decision list: tests of one word each (a load, maybe an ALU step on
 * it, a conditional jump with a constant the case's SQEs produce), each
 * going on to the next test or to a return at the end; the last
 * instruction is the default return. The verdict is a real function of
 * the words read: flags bits, user_data, payload. @plain: no arithmetic
 * before a test, and no JSET but on the flags word (the comparisons a
 * kernel can follow as ranges of the word loaded), but for one test of
 * user_data in six: a mask, a shift or a JSET first, with a constant the
 * SQEs' words meet through it (what such a kernel must not follow).
 */
static void gen_decision(struct reg *r, const struct dcase *dc,
			 unsigned int ntests, unsigned int words,
			 bool permissive, bool plain)
{
	struct { unsigned int pc; int jt, jf; } fix[64];
	unsigned int pc = 0, t, nfix = 0, rets;

	for (t = 0; t < ntests && t < 64; t++) {
		/* plain: user_data half the time, so its tests are many */
		unsigned int w = plain && one_in(2) ? rnd() % 2 : any_word(words);
		/* plain: a word other than the flags only meets JEQ, JGE, JGT */
		uint16_t op = jmp_ops[rnd() % (plain && w != 2 ? 3 : 4)];
		bool bent = plain && w < 2 && dc->nvals[w] && one_in(6);
		uint32_t c;

		r->insn[pc++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4 * w);
		if (w == 2 && one_in(2)) {
			/* the flags byte alone, maybe a part of it */
			uint32_t m = one_in(2) ? 0xff : rnd() & 0x7f;

			r->insn[pc++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 8);
			r->insn[pc++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, m);
			if (op == BPF_JSET)
				c = flag_bit(dc);
			else if (one_in(2))
				c = (dc->vals[2][rnd() % dc->nvals[2]] >> 8) & m;
			else
				c = rnd() % 0x80;
		} else if (bent) {
			uint32_t v = dc->vals[w][rnd() % dc->nvals[w]];
			uint32_t m = one_in(2) ? 0xff : rnd();
			unsigned int sh = 1 + rnd() % 31;

			if (one_in(3)) {
				op = BPF_JSET;
				c = any_mask(dc, w);
			} else if (one_in(2)) {
				r->insn[pc++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, m);
				c = v & m;
			} else {
				r->insn[pc++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, sh);
				c = v >> sh;
			}
		} else if (!plain && one_in(4)) {
			/* arithmetic first: the constant no longer matches */
			r->insn[pc++] = any_alu(dc);
			c = op == BPF_JSET ? any_mask(dc, -1) : any_const(dc, -1);
		} else {
			c = op == BPF_JSET ? any_mask(dc, w) : any_const(dc, w);
		}
		r->insn[pc] = (struct sock_filter)BPF_JUMP(BPF_JMP | op | BPF_K, c, 0, 0);
		fix[nfix].pc = pc++;
		fix[nfix].jt = rnd() % 3;		/* deny, allow, RET A */
		fix[nfix].jf = one_in(3) ? (int)(rnd() % 3) : T_NEXT;
		if (permissive && fix[nfix].jt == T_DENY && rnd() % 3)
			fix[nfix].jt = T_NEXT;
		nfix++;
	}
	/* the returns: deny, allow, RET A, then the default (last) */
	rets = pc;
	r->insn[pc++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
	r->insn[pc++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, rnd() | 1);
	r->insn[pc++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
	r->insn[pc++] = permissive || one_in(2) ?
		(struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 1) : any_ret(false);
	r->len = pc;
	for (t = 0; t < nfix; t++) {
		unsigned int at = fix[t].pc;
		/* the next test starts right after this jump */
		unsigned int tt = fix[t].jt == T_NEXT ? at + 1 : rets + fix[t].jt;
		unsigned int tf = fix[t].jf == T_NEXT ? at + 1 : rets + fix[t].jf;

		r->insn[at].jt = tt - at - 1;
		r->insn[at].jf = tf - at - 1;
	}
}

/* RET A after arithmetic: zero or not as the flags, or the constants, say */
static void gen_ret_a(struct reg *r, const struct dcase *dc, unsigned int words)
{
	unsigned int pc = 0, n = rnd() % 5;

	if (!one_in(4))
		r->insn[pc++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							     4 * any_word(words));
	if (one_in(2)) {
		r->insn[pc++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 8);
		r->insn[pc++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K,
							     rnd() & 0x7f);
	}
	while (n--)
		r->insn[pc++] = any_alu(dc);
	r->insn[pc++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
	r->len = pc;
}

/*
 * Unreachable code: a JA over a block of random instructions (any valid
 * ones, returns included) to a decision list.
 */
static void gen_unreachable(struct reg *r, const struct dcase *dc,
			    unsigned int words, bool permissive)
{
	struct reg tmp;
	unsigned int junk = 1 + rnd() % 12, i;

	gen_decision(&tmp, dc, 1 + rnd() % 3, words, permissive, false);
	r->insn[0] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, junk);
	gen_random(r, dc, junk + 1, W_ALL, false);
	memmove(&r->insn[1], &r->insn[0], junk * sizeof(r->insn[0]));
	r->insn[0] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, junk);
	for (i = 0; i < tmp.len; i++)
		r->insn[1 + junk + i] = tmp.insn[i];
	r->len = 1 + junk + tmp.len;
}

/*
 * any valid program of one of the kinds; its kind in r->why. @ud_chain:
 * only kinds that read nothing but user_data, the flags and zero words,
 * the chains a kernel could decide on user_data's ranges at registration
 * (JEQ, JGE and JGT on the words as loaded, constants the SQEs' words
 * and their neighbours: where JGT and JGE part)
 */
static void gen_program(struct reg *r, const struct dcase *dc, bool permissive,
			bool ud_chain)
{
	/* a flags-only program reads word 2, the pad, and zero words */
	unsigned int flags_only = W_FLAGS | zero_words(r->opcode);
	unsigned int k = rnd() % 100;

	if (ud_chain && k >= 40) {
		r->why = "user_data";
		gen_decision(r, dc, 1 + rnd() % 5, flags_only | W_UD, permissive,
			     true);
	} else if (k < 30) {
		r->why = "flags";
		if (one_in(3))
			gen_random(r, dc, 2 + rnd() % 24, flags_only, permissive);
		else if (one_in(4))
			gen_ret_a(r, dc, 1u << 2);
		else
			gen_decision(r, dc, 1 + rnd() % 4, flags_only, permissive, false);
	} else if (k < 40) {
		r->why = "constant";
		if (one_in(2)) {
			r->insn[0] = one_in(2) ? any_ret(permissive) :
				(struct sock_filter)BPF_STMT(BPF_RET | BPF_K, one_in(3) ? 0 : 1);
			r->len = 1;
		} else if (one_in(3)) {
			/*
			 * Allows only if A starts at 0: a program run after
			 * another (a fused chain) must not see its A
			 */
			r->insn[0] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
			r->insn[1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 1);
			r->insn[2] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
			r->len = 3;
		} else {
			/* A from arithmetic on nothing loaded: A starts at 0 */
			unsigned int pc = 0, n = rnd() % 4;

			while (n--)
				r->insn[pc++] = any_alu(dc);
			r->insn[pc++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
			r->len = pc;
		}
	} else if (k < 65) {
		r->why = "data";
		if (one_in(4))
			gen_ret_a(r, dc, W_ALL);
		else
			gen_decision(r, dc, 1 + rnd() % 6, W_ALL, permissive, false);
	} else if (k < 75) {
		r->why = "unreachable";
		gen_unreachable(r, dc, one_in(2) ? flags_only : W_ALL, permissive);
	} else {
		r->why = "random";
		gen_random(r, dc, 1 + rnd() % 40, W_ALL, permissive);
	}
}

/* a program of @len instructions, @len up to BPF_MAXINSNS */
static void gen_long(struct reg *r, const struct dcase *dc, unsigned int len)
{
	struct reg head;
	unsigned int i;

	if (one_in(2)) {
		r->why = "long random";
		gen_random(r, dc, len, W_ALL, true);
		return;
	}
	/* a decision list behind a JA over random code to the end */
	r->why = "long, mostly unreachable";
	gen_decision(&head, dc, 1 + rnd() % 6, W_ALL, true, false);
	gen_random(r, dc, len - head.len, W_ALL, false);
	r->insn[0] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, len - head.len - 1);
	for (i = 0; i < head.len; i++)
		r->insn[len - head.len + i] = head.insn[i];
	r->len = len;
}

static const uint16_t refused_codes[] = {
	BPF_LD | BPF_H | BPF_ABS, BPF_LD | BPF_B | BPF_ABS,
	BPF_LD | BPF_W | BPF_IND, BPF_LD | BPF_IMM, BPF_LD | BPF_W | BPF_LEN,
	BPF_LDX | BPF_IMM, BPF_LDX | BPF_W | BPF_MEM, BPF_LDX | BPF_B | BPF_MSH,
	BPF_ST, BPF_STX, BPF_ALU | BPF_ADD | BPF_X, BPF_ALU | BPF_MOD | BPF_K,
	BPF_ALU | BPF_XOR | BPF_X, BPF_JMP | BPF_JEQ | BPF_X,
	BPF_JMP | BPF_JSET | BPF_X, BPF_MISC | BPF_TAX, BPF_MISC | BPF_TXA,
	BPF_RET | BPF_X, 0xffff,
};

/*
 * Make a valid registration invalid in one way the kernel must refuse:
 * the error it must answer in r->expect, the way in r->why.
 */
static void make_invalid(struct reg *r)
{
	unsigned int pc = rnd() % r->len;
	struct sock_filter *i = &r->insn[pc];

	r->expect = -EINVAL;
	switch (rnd() % 14) {
	case 0:
		r->why = "invalid: misaligned load";
		*i = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						  4 * (rnd() % 10) + 1 + rnd() % 3);
		break;
	case 1: {
		static const uint32_t past[] = {
			40, 44, 64, 0x1000, 0x7ffffffc, SKF_AD_OFF, 0xfffffffc,
		};

		r->why = "invalid: load past the context";
		*i = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						  past[rnd() % 7]);
		break;
	}
	case 2:
		r->why = "invalid: division by 0";
		*i = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0);
		break;
	case 3:
		r->why = "invalid: shift by 32 or more";
		*i = (struct sock_filter)BPF_STMT(BPF_ALU | (one_in(2) ? BPF_LSH : BPF_RSH) | BPF_K,
						  one_in(2) ? 32 : 32 + rnd() % 1000);
		break;
	case 4:
		r->why = "invalid: conditional jump past the end";
		if (r->len - pc > 256)
			pc = r->len - 1 - rnd() % 200;
		i = &r->insn[pc];
		*i = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0,
						  one_in(2) ? r->len - pc - 1 : 0,
						  r->len - pc - 1);
		break;
	case 5:
		r->why = "invalid: JA past the end";
		*i = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA,
						  r->len - pc - 1 + rnd() % 3);
		break;
	case 6:
		r->why = "invalid: last instruction not a return";
		r->insn[r->len - 1] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 1);
		break;
	case 7:
		r->why = "invalid: an instruction the filters refuse";
		i->code = refused_codes[rnd() % (sizeof(refused_codes) / 2)];
		/* MOD refused as MOD, not as a division by 0 */
		i->k = i->code == (BPF_ALU | BPF_MOD | BPF_K) ? 3 : i->k % 16;
		break;
	case 8:
		r->why = "invalid: filter_len 0";
		r->len = 0;
		break;
	case 9:
		r->why = "invalid: filter_len past BPF_MAXINSNS";
		for (pc = r->len; pc < MAX_INSNS; pc++)
			r->insn[pc] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 1);
		r->len = MAX_INSNS;
		break;
	case 10:
		r->why = "invalid: unknown flag";
		r->flags |= one_in(2) ? 4 : 0x80000000u;
		break;
	case 11:
		r->why = "invalid: opcode past IORING_OP_LAST";
		r->opcode = IORING_OP_LAST + rnd() % (one_in(2) ? 200 : 0x10000);
		break;
	case 12:
		r->why = "invalid: cmd_flags";
		r->cmd_flags = 1 + rnd() % 0xffff;
		break;
	default:
		/* a payload larger than the kernel's, or SZ_STRICT off by one */
		r->expect = -EMSGSIZE;
		if (one_in(2)) {
			r->why = "invalid: pdu_size past the kernel's";
			r->pdu = pdu_of(r->opcode) + 1 + rnd() % 40;
		} else {
			r->why = "invalid: SZ_STRICT with another pdu_size";
			r->flags |= IO_URING_BPF_FILTER_SZ_STRICT;
			r->pdu = pdu_of(r->opcode) ? pdu_of(r->opcode) - 4 : 4;
		}
		break;
	}
}

/* IORING_OP_NOP mostly, SOCKET, OPENAT, now and then another opcode */
static uint32_t any_reg_op(void)
{
	unsigned int k = rnd() % 20;

	if (k < 10)
		return IORING_OP_NOP;
	if (k < 14)
		return IORING_OP_SOCKET;
	if (k < 18)
		return IORING_OP_OPENAT;
	return rnd() % IORING_OP_LAST;
}

static struct reg *new_reg(struct dcase *dc, uint32_t op)
{
	struct reg *r = calloc(1, sizeof(*r));

	if (!r) {
		perror("calloc");
		exit(2);
	}
	r->opcode = op;
	/* pdu_size 0 or a prefix of the kernel's is accepted; SZ_STRICT exact */
	if (pdu_of(op) && one_in(3)) {
		r->pdu = pdu_of(op);
		if (one_in(3))
			r->flags |= IO_URING_BPF_FILTER_SZ_STRICT;
	} else if (pdu_of(op) && one_in(4)) {
		r->pdu = 4 * (rnd() % (pdu_of(op) / 4));
	}
	/* chains of decided and undecided filters, each form after the other */
	r->unfolded = one_in(8);
	dc->reg[dc->nreg++] = r;
	return r;
}

static void free_case(struct dcase *dc)
{
	unsigned int i;

	for (i = 0; i < dc->nreg; i++)
		free(dc->reg[i]);
	dc->nreg = 0;
}

/* a case whose chains read only user_data, the flags and zero words */
static bool ud_chain_case(uint64_t id)
{
	return (splitmix64(seed ^ 0x5bd1e995u, id) & 3) == 0;
}

/*
 * The registrations, their expected answers, and the chains the model
 * keeps: mostly 1..8 programs over the opcodes, or a deep stack of 30 or
 * more on one opcode, or programs near BPF_MAXINSNS up to the chain's
 * limit (IO_BPF_MAX_INSNS: -ENOMEM past it).
 */
static void gen_regs(struct dcase *dc)
{
	unsigned int kind = rnd() % 40, n, i;
	struct ring_model m;

	memset(&m, 0, sizeof(m));
	dc->nreg = 0;
	dc->deep = false;
	if (kind == 0) {
		/* BPF_MAXINSNS-long programs on one opcode, past the chain limit */
		uint32_t op = any_sqe_op();

		n = 6 + rnd() % 3;
		for (i = 0; i < n; i++) {
			struct reg *r = new_reg(dc, op);

			gen_long(r, dc, BPF_MAXINSNS - rnd() % 8);
		}
	} else if (kind < 4) {
		/* a deep stack on one opcode, others between */
		uint32_t op = any_sqe_op();

		dc->deep = true;
		n = 30 + rnd() % 12;
		for (i = 0; i < n; i++) {
			struct reg *r = new_reg(dc, one_in(10) ? any_reg_op() : op);

			gen_program(r, dc, true, false);
		}
	} else if (kind < 7) {
		/* a chain past 4096 instructions, one program near the limit */
		uint32_t op = any_sqe_op();

		n = 2 + rnd() % 3;
		for (i = 0; i < n; i++) {
			struct reg *r = new_reg(dc, op);

			gen_long(r, dc, i == 0 && one_in(2) ? BPF_MAXINSNS - rnd() % 4 :
					 1000 + rnd() % 2500);
		}
	} else {
		/*
		 * permissive in most cases: an SQE runs only if every program
		 * allows, and a program's verdict shows only then
		 */
		bool permissive = !one_in(4);
		/*
		 * one in four from the case's number, not its stream: the
		 * other cases' programs stay the ones earlier runs drew
		 */
		bool ud_chain = ud_chain_case(dc->id);

		n = 1 + rnd() % 8;
		for (i = 0; i < n; i++) {
			struct reg *r = new_reg(dc, any_reg_op());

			gen_program(r, dc, permissive || n > 4, ud_chain);
		}
	}
	for (i = 0; i < dc->nreg; i++) {
		struct reg *r = dc->reg[i];

		if (one_in(24))
			r->flags |= IO_URING_BPF_FILTER_DENY_REST;
		if (one_in(12))
			make_invalid(r);
		/* a valid one the chain has no room for */
		if (!r->expect && r->opcode < IORING_OP_LAST &&
		    m.insns[r->opcode] && m.insns[r->opcode] + r->len + 4 > CHAIN_LIMIT) {
			r->expect = -ENOMEM;
			r->why = "refused: the chain is full";
		}
		if (!r->expect)
			model_add(&m, r, i);
	}
}

static void gen_case(struct dcase *dc, uint64_t id)
{
	seed_case(seed, id);
	dc->id = id;
	gen_sqes(dc);
	collect_vals(dc);
	gen_regs(dc);
}

/* ------------------------------------------------------------------ */
/* Reports                                                            */

static const char *code_name(uint16_t code)
{
	static char buf[32];

	switch (code) {
	case BPF_LD | BPF_W | BPF_ABS:	return "BPF_LD | BPF_W | BPF_ABS";
	case BPF_RET | BPF_K:		return "BPF_RET | BPF_K";
	case BPF_RET | BPF_A:		return "BPF_RET | BPF_A";
	case BPF_ALU | BPF_ADD | BPF_K:	return "BPF_ALU | BPF_ADD | BPF_K";
	case BPF_ALU | BPF_SUB | BPF_K:	return "BPF_ALU | BPF_SUB | BPF_K";
	case BPF_ALU | BPF_MUL | BPF_K:	return "BPF_ALU | BPF_MUL | BPF_K";
	case BPF_ALU | BPF_DIV | BPF_K:	return "BPF_ALU | BPF_DIV | BPF_K";
	case BPF_ALU | BPF_AND | BPF_K:	return "BPF_ALU | BPF_AND | BPF_K";
	case BPF_ALU | BPF_OR | BPF_K:	return "BPF_ALU | BPF_OR | BPF_K";
	case BPF_ALU | BPF_XOR | BPF_K:	return "BPF_ALU | BPF_XOR | BPF_K";
	case BPF_ALU | BPF_LSH | BPF_K:	return "BPF_ALU | BPF_LSH | BPF_K";
	case BPF_ALU | BPF_RSH | BPF_K:	return "BPF_ALU | BPF_RSH | BPF_K";
	case BPF_ALU | BPF_NEG:		return "BPF_ALU | BPF_NEG";
	case BPF_JMP | BPF_JA:		return "BPF_JMP | BPF_JA";
	case BPF_JMP | BPF_JEQ | BPF_K:	return "BPF_JMP | BPF_JEQ | BPF_K";
	case BPF_JMP | BPF_JGE | BPF_K:	return "BPF_JMP | BPF_JGE | BPF_K";
	case BPF_JMP | BPF_JGT | BPF_K:	return "BPF_JMP | BPF_JGT | BPF_K";
	case BPF_JMP | BPF_JSET | BPF_K: return "BPF_JMP | BPF_JSET | BPF_K";
	}
	snprintf(buf, sizeof(buf), "0x%04x", code);
	return buf;
}

static void print_insn(FILE *f, unsigned int pc, const struct sock_filter *i)
{
	bool cond = BPF_CLASS(i->code) == BPF_JMP && BPF_OP(i->code) != BPF_JA;

	if (cond)
		fprintf(f, "#     /* %4u */ BPF_JUMP(%s, 0x%x, %u, %u),\n", pc,
			code_name(i->code), i->k, i->jt, i->jf);
	else
		fprintf(f, "#     /* %4u */ BPF_STMT(%s, 0x%x),\n", pc,
			code_name(i->code), i->k);
}

/* a program in full up to 200 instructions, else its ends */
static void print_reg(FILE *f, const struct reg *r, unsigned int idx)
{
	unsigned int pc;

	fprintf(f, "#   registration %u: opcode %u, flags 0x%x%s, pdu_size %u, %u insns (%s)%s: expect %d\n",
		idx, r->opcode, r->flags,
		r->flags & IO_URING_BPF_FILTER_DENY_REST ? " (DENY_REST)" : "",
		r->pdu, r->len, r->why,
		r->unfolded ? ", made with io_uring.bpf_fold=0" : "", r->expect);
	for (pc = 0; pc < r->len && pc < MAX_INSNS; pc++) {
		if (r->len > 200 && pc == 100) {
			fprintf(f, "#     ... %u instructions (bpf-fold-diff -v -s %llu -c N prints them)\n",
				r->len - 120, (unsigned long long)seed);
			pc = r->len - 20;
			if (!verbose)
				continue;
		}
		print_insn(f, pc, &r->insn[pc]);
	}
}

static void print_sqe(FILE *f, const struct tsqe *s, unsigned int idx)
{
	fprintf(f, "#   sqe %u%s: opcode %u, flags 0x%02x, user_data 0x%llx", idx,
		s->sentinel ? " (sentinel)" : "", s->op, s->flags,
		(unsigned long long)s->ud);
	if (s->op == IORING_OP_SOCKET)
		fprintf(f, ", family %u (fd), type 0x%x (off), protocol %u (len)",
			s->a, s->b, s->c);
	else if (s->op == IORING_OP_OPENAT)
		fprintf(f, ", \"/dev/null\", open_flags 0%o, len (mode) 0%o",
			s->a, s->b);
	fprintf(f, "\n");
}

static void print_case(FILE *f, const struct dcase *dc)
{
	unsigned int i;

	fprintf(f, "#   case %llu (seed %llu): %u registrations, %u SQEs\n",
		(unsigned long long)dc->id, (unsigned long long)seed, dc->nreg,
		dc->nsqe);
	for (i = 0; i < dc->nreg; i++)
		print_reg(f, dc->reg[i], i);
	for (i = 0; i < dc->nsqe; i++)
		print_sqe(f, &dc->sqe[i], i);
}

/* the context as words (host order) and each program's answer */
static void print_verdicts(FILE *f, const struct dcase *dc,
			   const struct ring_model *m,
			   const struct io_uring_bpf_ctx *c)
{
	unsigned int w, i, op = c->opcode;

	fprintf(f, "#   context (host-order words at 0, 4, ... 36):");
	for (w = 0; w < NWORDS; w++)
		fprintf(f, " %08x", ctx_word(c, w));
	fprintf(f, "\n#   chain of opcode %u, newest first:", op);
	for (i = m->nchain[op]; i-- > 0;)
		fprintf(f, " reg %u -> %u;", m->chain[op][i],
			reference(dc->reg[m->chain[op][i]], c));
	fprintf(f, "%s\n", m->denied[op] ? " DENY_REST's denial" :
		m->nchain[op] ? "" : " none (not filtered)");
}

/* ------------------------------------------------------------------ */
/* The kernel's side                                                  */

/*
 * io_uring.bpf_fold, read when a filter is registered: 0 leaves it to run
 * as registered. Absent (a kernel without the registration-time forms):
 * nothing to switch
 */
static void set_fold(int on)
{
	int fd = open("/sys/module/io_uring/parameters/bpf_fold", O_WRONLY);

	if (fd < 0)
		return;
	if (write(fd, on ? "1" : "0", 1) != 1)
		perror("bpf_fold");
	close(fd);
}

static int add_filter(int fd, const struct reg *r)
{
	struct io_uring_bpf b;
	int ret;

	memset(&b, 0, sizeof(b));
	b.cmd_type = IO_URING_BPF_CMD_FILTER;
	b.cmd_flags = r->cmd_flags;
	b.filter.opcode = r->opcode;
	b.filter.flags = r->flags;
	b.filter.filter_len = r->len;
	b.filter.pdu_size = r->pdu;
	b.filter.filter_ptr = (uintptr_t)r->insn;
	if (r->unfolded)
		set_fold(0);
	ret = reg(fd, IORING_REGISTER_BPF_FILTER, &b, 1);
	if (r->unfolded)
		set_fold(1);
	return ret;
}

static void prep_sqe(struct io_uring *ring, const struct tsqe *s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = s->op;
	sqe->flags = s->flags;
	sqe->user_data = s->ud;
	if (s->op == IORING_OP_SOCKET) {
		sqe->fd = s->a;
		sqe->off = s->b;
		sqe->len = s->c;
	} else if (s->op == IORING_OP_OPENAT) {
		sqe->fd = AT_FDCWD;
		sqe->addr = (uintptr_t)"/dev/null";
		sqe->open_flags = s->a;
		sqe->len = s->b;
	}
}

#define NO_CQE		1	/* a skip-flagged SQE posted nothing */
#define LOST		2	/* a CQE that had to come did not */

/* wait up to 10 s for a CQE; its user_data and res */
static int wait_one(struct io_uring *ring, uint64_t *ud, int *res)
{
	struct __kernel_timespec ts = { .tv_sec = 10 };
	struct io_uring_cqe *cqe;

	if (io_uring_wait_cqe_timeout(ring, &cqe, &ts))
		return -1;
	*ud = cqe->user_data;
	*res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return 0;
}

/* an SOCKET's or OPENAT's new fd is not kept */
static void drop_fd(const struct tsqe *s, int res)
{
	if (res >= 0 && s->op != IORING_OP_NOP)
		close(res);
}

/*
 * Submit SQE @i (and the sentinel after a skip-flagged one): its res, or
 * NO_CQE, or LOST. Every SQE before it has completed.
 */
static int run_sqe(struct io_uring *ring, const struct dcase *dc,
		   unsigned int i, int *sentinel_res)
{
	const struct tsqe *s = &dc->sqe[i];
	bool skip = s->flags & IOSQE_CQE_SKIP_SUCCESS;
	int res = NO_CQE, r;
	uint64_t ud;

	prep_sqe(ring, s);
	if (io_uring_submit(ring) != 1)
		return LOST;
	if (!skip) {
		if (wait_one(ring, &ud, &r) || ud != s->ud)
			return LOST;
		drop_fd(s, r);
		return r;
	}
	/*
	 * A refusal is posted at submission; the sentinel's CQE comes after
	 * it. Allowed with IOSQE_ASYNC, the SQE may still post an error from
	 * io-wq: before the sentinel's or never seen (the ring goes).
	 */
	prep_sqe(ring, &dc->sqe[i + 1]);
	if (io_uring_submit(ring) != 1)
		return LOST;
	for (;;) {
		if (wait_one(ring, &ud, &r))
			return LOST;
		if (ud == dc->sqe[i + 1].ud) {
			*sentinel_res = r;
			return res;
		}
		if (ud == s->ud) {
			drop_fd(s, r);
			res = r;
		}
	}
}

/* the context words @r loads on some path: jumps go forward only */
static unsigned int words_read(const struct reg *r)
{
	bool reach[MAX_INSNS + 1] = { true };
	unsigned int pc, words = 0;

	for (pc = 0; pc < r->len; pc++) {
		const struct sock_filter *i = &r->insn[pc];

		if (!reach[pc])
			continue;
		switch (BPF_CLASS(i->code)) {
		case BPF_RET:
			continue;
		case BPF_LD:
			if (i->code == (BPF_LD | BPF_W | BPF_ABS) && i->k < CTX_SIZE)
				words |= 1u << (i->k / 4);
			break;
		case BPF_JMP:
			/* a chain's programs passed the checker: in range */
			if (BPF_OP(i->code) == BPF_JA) {
				if (i->k < r->len - pc)
					reach[pc + 1 + i->k] = true;
				continue;
			}
			if (i->jt < r->len - pc - 1)
				reach[pc + 1 + i->jt] = true;
			if (i->jf < r->len - pc - 1)
				reach[pc + 1 + i->jf] = true;
			continue;
		}
		reach[pc + 1] = true;
	}
	return words;
}

/* the form of @op's chain (form_name[]) */
static unsigned int chain_form(const struct dcase *dc,
			       const struct ring_model *m, unsigned int op)
{
	unsigned int i, words = 0, plain = W_FLAGS | zero_words(op);

	if (m->denied[op])
		return F_DENIED;
	if (dc->reg[m->chain[op][m->nchain[op] - 1]]->unfolded)
		return F_ASIS;
	for (i = 0; i < m->nchain[op]; i++)
		words |= words_read(dc->reg[m->chain[op][i]]);
	if (!(words & ~plain))
		return F_FLAGS;
	if (!(words & ~(plain | W_UD)))
		return F_UD;
	return m->nchain[op] == 1 ? F_ONE : F_SEVERAL;
}

/* what the model expects of an SQE: an error before the filter, or a verdict */
struct expect {
	int pre;		/* non-zero: this error, no filter ran */
	bool filtered;		/* the opcode has a chain */
	bool allowed;
};

/* @res agrees with @e: -EACCES exactly when refused */
static bool agrees(const struct tsqe *s, const struct expect *e, int res)
{
	if (res == LOST)
		return false;
	if (e->pre)
		return res == e->pre;
	if (!e->allowed)
		return res == -EACCES;
	if (res == NO_CQE)
		return s->flags & IOSQE_CQE_SKIP_SUCCESS;
	/* an allowed NOP succeeds; the others answer anything but -EACCES */
	return s->op == IORING_OP_NOP ? res == 0 : res != -EACCES;
}

static const char *res_str(int res)
{
	static char buf[48];

	if (res == LOST)
		return "no CQE within 10 s";
	if (res == NO_CQE)
		return "no CQE (CQE_SKIP_SUCCESS: allowed)";
	snprintf(buf, sizeof(buf), "res %d%s", res,
		 res == -EACCES ? " (-EACCES: refused)" : "");
	return buf;
}

static void expect_str(char *buf, size_t n, const struct expect *e)
{
	if (e->pre)
		snprintf(buf, n, "error %d before any filter", e->pre);
	else if (!e->filtered)
		snprintf(buf, n, "allowed (no filter on the opcode)");
	else
		snprintf(buf, n, "%s", e->allowed ? "allowed (every program non-zero)" :
			 "refused (-EACCES)");
}

static void mismatch_header(const struct dcase *dc, bool *reported)
{
	cnt.mismatches++;
	if (*reported)
		return;
	*reported = true;
	printf("# MISMATCH: seed %llu case %llu; replay: bpf-fold-diff -s %llu -c %llu\n",
	       (unsigned long long)seed, (unsigned long long)dc->id,
	       (unsigned long long)seed, (unsigned long long)dc->id);
	print_case(stdout, dc);
}

/* one SQE's answer against the model's: false on a mismatch (reported) */
static bool judge(const struct dcase *dc, const struct ring_model *m,
		  unsigned int i, int res, bool *reported)
{
	const struct tsqe *s = &dc->sqe[i];
	struct ring_model tmp = *m;
	struct io_uring_bpf_ctx c;
	struct expect e = { 0 };
	char want[64];

	/* drain_disabled was updated when the SQE was modelled: recompute */
	e.pre = expect_before_filter(&tmp, s);
	build_ctx(s, &c);
	e.filtered = m->nchain[s->op] || m->denied[s->op];
	e.allowed = !e.filtered || chain_allows(dc, m, &c);
	cnt.verdicts++;
	if (e.pre)
		cnt.prefail++;
	else if (!e.filtered)
		cnt.unfiltered++;
	else if (!e.allowed)
		cnt.refused++;
	else
		cnt.allowed++;
	if (!e.pre && e.filtered)
		cnt.form[chain_form(dc, m, s->op)]++;
	if (res == NO_CQE)
		cnt.skipped++;
	if (agrees(s, &e, res))
		return true;
	mismatch_header(dc, reported);
	expect_str(want, sizeof(want), &e);
	printf("#   sqe %u: kernel %s, reference %s\n", i, res_str(res), want);
	print_verdicts(stdout, dc, m, &c);
	return false;
}

/* run one case on a fresh ring: false on any mismatch */
static bool run_case(const struct dcase *dc)
{
	struct ring_model m;
	struct io_uring ring;
	bool reported = false, ok = true;
	unsigned int i, op;
	int ret;

	memset(&m, 0, sizeof(m));
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret) {
		printf("# case %llu: io_uring_queue_init: %d\n",
		       (unsigned long long)dc->id, ret);
		cnt.mismatches++;
		return false;
	}
	cnt.cases++;
	for (i = 0; i < dc->nreg; i++) {
		const struct reg *r = dc->reg[i];

		ret = add_filter(ring.ring_fd, r);
		cnt.regs++;
		if (ret != r->expect) {
			mismatch_header(dc, &reported);
			printf("#   registration %u: kernel %d, expected %d (%s)\n",
			       i, ret, r->expect, r->why);
			ok = false;
			goto out;
		}
		if (ret) {
			cnt.reg_refused++;
			cnt.chain_full += ret == -ENOMEM;
			continue;
		}
		if (r->flags & IO_URING_BPF_FILTER_DENY_REST)
			cnt.deny_rest++;
		if (r->len > 4000)
			cnt.progs_4k++;
		model_add(&m, r, i);
	}
	for (op = 0; op < IORING_OP_LAST; op++) {
		if (m.insns[op] > cnt.longest_chain)
			cnt.longest_chain = m.insns[op];
		if (m.nchain[op] && m.insns[op] - 4 * m.nchain[op] > BPF_MAXINSNS)
			cnt.long_chains++;
	}
	for (i = 0; i < dc->nsqe && !dc->sqe[i].sentinel; i++) {
		const struct tsqe *s = &dc->sqe[i];
		int sres = LOST;

		ret = run_sqe(&ring, dc, i, &sres);
		if (!judge(dc, &m, i, ret, &reported))
			ok = false;
		expect_before_filter(&m, s);
		if (s->flags & IOSQE_CQE_SKIP_SUCCESS) {
			if (!judge(dc, &m, i + 1, sres, &reported))
				ok = false;
			break;
		}
		if (ret == LOST)
			break;
	}
out:
	io_uring_queue_exit(&ring);
	/* what a skip-flagged SOCKET or OPENAT made without telling */
	syscall(__NR_close_range, fd_base, ~0U, 0);
	if (verbose && ok) {
		printf("# case %llu agrees\n", (unsigned long long)dc->id);
		print_case(stdout, dc);
	}
	return ok;
}

/* ------------------------------------------------------------------ */

/*
 * The feature, probed: 1 if filters register, 0 if the kernel answers
 * -EINVAL as 6.1 does, -1 for anything else.
 */
static int probe(void)
{
	static struct reg r = {
		.opcode = IORING_OP_NOP, .len = 1,
		.insn = { BPF_STMT(BPF_RET | BPF_K, 1) },
	};
	struct io_uring ring;
	int ret;

	if (io_uring_queue_init(2, &ring, 0))
		return -1;
	ret = add_filter(ring.ring_fd, &r);
	io_uring_queue_exit(&ring);
	return !ret ? 1 : ret == -EINVAL ? 0 : -1;
}

int bpf_validate(const struct sock_filter *f, int len);

/*
 * -x: no kernel. Every program the generator means to be valid must be
 * one libpcap's own validator takes and load only aligned words of the
 * context: a generator bug shows here, on the host, not as a mismatch.
 */
static bool dry_case(const struct dcase *dc)
{
	unsigned int i, pc;
	bool ok = true;

	for (i = 0; i < dc->nreg; i++) {
		const struct reg *r = dc->reg[i];

		if (r->expect)
			continue;
		cnt.regs++;
		if (!bpf_validate(r->insn, r->len))
			ok = false;
		for (pc = 0; pc < r->len; pc++)
			if (r->insn[pc].code == (BPF_LD | BPF_W | BPF_ABS) &&
			    (r->insn[pc].k & 3 || r->insn[pc].k >= CTX_SIZE))
				ok = false;
		if (!ok) {
			printf("# generator: case %llu registration %u is not valid\n",
			       (unsigned long long)dc->id, i);
			print_reg(stdout, r, i);
			return false;
		}
	}
	return true;
}

/* the form counts since @since, as "name N, ..." */
static const char *forms_str(const struct counts *since)
{
	static char buf[256];
	size_t n = 0;
	unsigned int f;

	for (f = 0; f < F_NR && n < sizeof(buf); f++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s %lu", f ? ", " : "",
			      form_name[f], cnt.form[f] - since->form[f]);
	return buf;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-s SEED] [-n CASES] [-b BLOCK] [-c CASE] [-p EVERY] [-v]\n"
		"  -s SEED   the random stream (default 1)\n"
		"  -n CASES  cases, a fresh ring each (default 500)\n"
		"  -b BLOCK  cases per TAP verdict (default 50)\n"
		"  -c CASE   run case CASE alone\n"
		"  -p EVERY  progress to stderr every EVERY cases\n"
		"  -v        print every case\n"
		"  -x        no kernel: check the generator's programs with libpcap's validator\n", prog);
}

int main(int argc, char *argv[])
{
	const char *kernel = getenv("LAB_KERNEL");
	unsigned long n = 500, block = 50, every = 0, b, nblocks, i;
	long long one = -1;
	struct counts before;
	struct dcase dc;
	time_t t0 = time(NULL);
	int opt, has, failed = 0;
	bool dry = false;

	seed = 1;
	while ((opt = getopt(argc, argv, "s:n:b:c:p:vxh")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			n = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			block = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			one = strtoll(optarg, NULL, 0);
			break;
		case 'p':
			every = strtoul(optarg, NULL, 0);
			break;
		case 'v':
			verbose = true;
			break;
		case 'x':
			dry = true;
			break;
		default:
			usage(argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!block)
		block = 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd_base = open("/dev/null", O_RDONLY);
	if (fd_base < 0) {
		perror("/dev/null");
		return 2;
	}
	close(fd_base);

	if (dry) {
		for (i = 0; i < n; i++) {
			gen_case(&dc, i);
			if (!dry_case(&dc))
				failed++;
			free_case(&dc);
		}
		printf("# dry run: %lu cases, %lu valid programs, %d cases with an invalid one\n",
		       n, cnt.regs, failed);
		return failed ? 1 : 0;
	}
	printf("TAP version 13\n");
	has = probe();
	if (kernel && strcmp(kernel, "patched")) {
		/* baseline and upstream 6.1: IORING_REGISTER_BPF_FILTER is unknown */
		printf("1..1\n");
		if (has) {
			printf("not ok 1 - bpf-fold-diff: IORING_REGISTER_BPF_FILTER %s on %s, expected -EINVAL\n",
			       has > 0 ? "registered" : "failed oddly", kernel);
			return 1;
		}
		printf("ok 1 # SKIP no IORING_REGISTER_BPF_FILTER on %s (checked: -EINVAL)\n",
		       kernel);
		return 0;
	}
	if (has <= 0) {
		printf("1..1\nnot ok 1 - bpf-fold-diff: IORING_REGISTER_BPF_FILTER refused a one-instruction program on %s\n",
		       kernel ? kernel : "this kernel");
		return 1;
	}
	if (one >= 0)
		n = 1;
	nblocks = (n + block - 1) / block;
	printf("1..%lu\n", nblocks);
	printf("# bpf-fold-diff: seed %llu, %lu cases%s, %lu a verdict; replay a case: bpf-fold-diff -s %llu -c N\n",
	       (unsigned long long)seed, n, one >= 0 ? " (one)" : "", block,
	       (unsigned long long)seed);
	for (b = 0; b < nblocks; b++) {
		unsigned long first = b * block, last = first + block;
		unsigned long bad = 0;

		if (last > n)
			last = n;
		before = cnt;
		for (i = first; i < last; i++) {
			gen_case(&dc, one >= 0 ? (uint64_t)one : i);
			if (!run_case(&dc))
				bad++;
			free_case(&dc);
			if (every && (i + 1) % every == 0)
				fprintf(stderr, "# bpf-fold-diff: %lu/%lu cases, %lu mismatches, %lds\n",
					i + 1, n, cnt.mismatches, (long)(time(NULL) - t0));
		}
		printf("%s %lu - cases %lu-%lu: %s%lu verdicts (%lu refused, %lu allowed, %lu unfiltered, %lu errors before the filter, %lu CQEs skipped), %lu registrations (%lu DENY_REST, %lu refused as expected); filtered by form: %s\n",
		       bad ? "not ok" : "ok", b + 1,
		       one >= 0 ? (unsigned long)one : first,
		       one >= 0 ? (unsigned long)one : last - 1,
		       bad ? "cases differ; " : "",
		       cnt.verdicts - before.verdicts, cnt.refused - before.refused,
		       cnt.allowed - before.allowed,
		       cnt.unfiltered - before.unfiltered, cnt.prefail - before.prefail,
		       cnt.skipped - before.skipped, cnt.regs - before.regs,
		       cnt.deny_rest - before.deny_rest,
		       cnt.reg_refused - before.reg_refused,
		       forms_str(&before));
		if (bad)
			failed++;
	}
	printf("# bpf-fold-diff: %lu cases, %lu verdicts (%lu refused, %lu allowed by filters, %lu on opcodes without one, %lu errors before the filter), %lu registrations (%lu DENY_REST, %lu refused as expected, %lu of them -ENOMEM: the chain full), %lu programs over 4000 instructions, %lu chains over %u, longest chain %u (kernel count), %lu mismatches, %lds\n",
	       cnt.cases, cnt.verdicts, cnt.refused, cnt.allowed, cnt.unfiltered,
	       cnt.prefail, cnt.regs, cnt.deny_rest, cnt.reg_refused,
	       cnt.chain_full, cnt.progs_4k,
	       cnt.long_chains, BPF_MAXINSNS, cnt.longest_chain,
	       cnt.mismatches, (long)(time(NULL) - t0));
	memset(&before, 0, sizeof(before));
	printf("# bpf-fold-diff: filtered verdicts by what the chain reads: %s\n",
	       forms_str(&before));
	return failed ? 1 : 0;
}
