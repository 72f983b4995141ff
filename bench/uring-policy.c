/* SPDX-License-Identifier: MIT */
/*
 * Description: the policy language of bench/uring-restrict.
 *
 * A policy is a list of entries separated by ';' or newlines; '#' starts a
 * comment that runs to the end of the line:
 *   sqe_op=OP[,OP]...               allowed SQE opcodes (read_fixed, nop, 22)
 *   register_op=OP[,OP]...          allowed io_uring_register opcodes
 *                                   (register_files, register_probe, 2)
 *   sqe_flags_allowed=[FLAG[,FLAG]] flags an SQE may carry (fixed_file, ...)
 *   sqe_flags_required=FLAG[,FLAG]  flags every SQE must carry
 *   ring=N | ring=N-M               the entries that follow are the policy of
 *                                   the process's Nth ring (to Mth), counted
 *                                   from 1 in the order it sets them up;
 *                                   once any ring= is given, a ring no
 *                                   section names is restricted to nothing
 *   sqe=OP/FLAGS[/FIELD=V[,FIELD=V]...]
 *                                   a BPF filter (IORING_REGISTER_BPF_FILTER)
 *                                   entry: OP's SQEs are allowed only with
 *                                   exactly these flags (as a filter sees
 *                                   them: 0, fixed_file+io_link, or * for
 *                                   any) and argument values; every sqe=
 *                                   entry of the ring allows, the rest of
 *                                   its opcodes are denied. A section of
 *                                   sqe= entries alone also gets the
 *                                   allow-list they imply: their opcodes
 *                                   and flags, no register call. FIELDs:
 *                                     socket          family, type, protocol
 *                                     openat, openat2 flags, mode, resolve
 *                                     connect         family, port, addr
 *                                   V: a number, * (any), for addr an IPv4
 *                                   or IPv6 address, for family unix, inet
 *                                   or inet6, for type stream, dgram, raw
 *                                   or seqpacket
 * Names are the uapi's without the IORING_OP_, IORING_ or IOSQE_ prefix,
 * in any case; numbers are taken as they are.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <linux/io_uring/bpf_filter.h>
#include "uring-policy.h"

static const char *const sqe_ops[] = {
	"nop", "readv", "writev", "fsync", "read_fixed", "write_fixed",
	"poll_add", "poll_remove", "sync_file_range", "sendmsg", "recvmsg",
	"timeout", "timeout_remove", "accept", "async_cancel", "link_timeout",
	"connect", "fallocate", "openat", "close", "files_update", "statx",
	"read", "write", "fadvise", "madvise", "send", "recv", "openat2",
	"epoll_ctl", "splice", "provide_buffers", "remove_buffers", "tee",
	"shutdown", "renameat", "unlinkat", "mkdirat", "symlinkat", "linkat",
	"msg_ring", "fsetxattr", "setxattr", "fgetxattr", "getxattr", "socket",
	"uring_cmd", "send_zc", "sendmsg_zc", NULL
};

static const char *const register_ops[] = {
	"register_buffers", "unregister_buffers", "register_files",
	"unregister_files", "register_eventfd", "unregister_eventfd",
	"register_files_update", "register_eventfd_async", "register_probe",
	"register_personality", "unregister_personality",
	"register_restrictions", "register_enable_rings", "register_files2",
	"register_files_update2", "register_buffers2",
	"register_buffers_update", "register_iowq_aff", "unregister_iowq_aff",
	"register_iowq_max_workers", "register_ring_fds",
	"unregister_ring_fds", "register_pbuf_ring", "unregister_pbuf_ring",
	"register_sync_cancel", "register_file_alloc_range", NULL
};

static const char *const sqe_flags[] = {
	"fixed_file", "io_drain", "io_link", "io_hardlink", "async",
	"buffer_select", "cqe_skip_success", NULL
};

const char *policy_sqe_op_name(unsigned int op)
{
	return op < sizeof(sqe_ops) / sizeof(*sqe_ops) - 1 ? sqe_ops[op] : NULL;
}

const char *policy_register_op_name(unsigned int op)
{
	return op < sizeof(register_ops) / sizeof(*register_ops) - 1 ?
		register_ops[op] : NULL;
}

/* the parser's state, for its messages */
struct ctx {
	const char *name;
	unsigned int line;
	const char *entry;
	char *err;
	size_t errlen;
};

static int fail(struct ctx *c, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = snprintf(c->err, c->errlen, "%s:%u: '%s': ", c->name, c->line,
		     c->entry);
	if (n < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static unsigned int distance(const char *a, const char *b)
{
	unsigned int d[64], i, j, prev, tmp, la = strlen(a), lb = strlen(b);

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		d[j] = j;
	for (i = 1; i <= la; i++) {
		prev = d[0];
		d[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = d[j];
			d[j] = prev + (strncasecmp(a + i - 1, b + j - 1, 1) != 0);
			if (d[j - 1] + 1 < d[j])
				d[j] = d[j - 1] + 1;
			if (tmp + 1 < d[j])
				d[j] = tmp + 1;
			prev = tmp;
		}
	}
	return d[lb];
}

/* ", did you mean 'x'?" for the nearest name two edits away, or "" */
static const char *near(const char *word, const char *const *names)
{
	static char buf[96];
	unsigned int best = 3, d;
	int i, at = -1;

	for (i = 0; names[i]; i++) {
		d = distance(word, names[i]);
		if (d < best) {
			best = d;
			at = i;
		}
	}
	if (at < 0)
		return "";
	snprintf(buf, sizeof(buf), ": did you mean '%s'?", names[at]);
	return buf;
}

/* A name from @names, or a number below @limit: its value, else -1. */
static long lookup(const char *word, const char *const *names, long limit)
{
	char *end;
	long v;
	int i;

	for (i = 0; names[i]; i++)
		if (!strcasecmp(word, names[i]))
			return i;
	v = strtol(word, &end, 0);
	if (*word && !*end && v >= 0 && v < limit)
		return v;
	return -1;
}

static int add_res(struct ctx *c, struct policy_ring *r, __u16 opcode,
		   unsigned int value)
{
	struct io_uring_restriction *e;

	if (r->nr_res == POLICY_MAX_RES)
		return fail(c, "more than %d allow-list entries in one ring", POLICY_MAX_RES);
	e = &r->res[r->nr_res++];
	memset(e, 0, sizeof(*e));
	e->opcode = opcode;
	if (opcode == IORING_RESTRICTION_REGISTER_OP)
		e->register_op = value;
	else if (opcode == IORING_RESTRICTION_SQE_OP)
		e->sqe_op = value;
	else
		e->sqe_flags = value;
	return 0;
}

/* FLAG[+FLAG]... or 0: the byte, or -1 */
static int parse_flags(struct ctx *c, char *s, const char *sep)
{
	char *w, *save;
	int v = 0;
	long b;

	if (!strcmp(s, "0") || !*s)
		return 0;
	for (w = strtok_r(s, sep, &save); w; w = strtok_r(NULL, sep, &save)) {
		b = lookup(w, sqe_flags, 8);
		if (b < 0)
			return fail(c, "'%s' is not a known SQE flag (fixed_file, io_link, ...)%s",
				    w, near(w, sqe_flags));
		v |= 1 << b;
	}
	return v;
}

static int add_word(struct ctx *c, struct policy_tuple *t, size_t off,
		    unsigned int mask, unsigned int val)
{
	if (t->nr_words == sizeof(t->word) / sizeof(*t->word))
		return fail(c, "too many argument values");
	t->word[t->nr_words].off = off;
	t->word[t->nr_words].mask = mask;
	t->word[t->nr_words].val = val & mask;
	t->nr_words++;
	return 0;
}

static const struct { const char *name; unsigned int v; } symbols[] = {
	{ "unix", AF_UNIX }, { "inet", AF_INET }, { "inet6", AF_INET6 },
	{ "stream", SOCK_STREAM }, { "dgram", SOCK_DGRAM }, { "raw", SOCK_RAW },
	{ "seqpacket", SOCK_SEQPACKET },
};

static int number(struct ctx *c, const char *field, const char *v,
		  unsigned long long *out)
{
	char *end;
	size_t i;

	for (i = 0; i < sizeof(symbols) / sizeof(*symbols); i++)
		if (!strcasecmp(v, symbols[i].name)) {
			*out = symbols[i].v;
			return 0;
		}
	errno = 0;
	*out = strtoull(v, &end, 0);
	if (!*v || *end || errno)
		return fail(c, "%s=%s is not a number", field, v);
	return 0;
}

#define PAYLOAD(f)	offsetof(struct io_uring_bpf_ctx, f)

/* FIELD=V of @op into @t */
static int parse_field(struct ctx *c, struct policy_tuple *t, char *fv)
{
	char *eq = strchr(fv, '='), *v;
	unsigned long long n;
	unsigned char a[16];
	unsigned int i;
	size_t off;

	if (!eq)
		return fail(c, "'%s' is not FIELD=VALUE", fv);
	*eq = '\0';
	v = eq + 1;
	if (!strcmp(v, "*"))
		return 0;
	switch (t->op) {
	case IORING_OP_SOCKET:
		if (!strcmp(fv, "family"))
			off = PAYLOAD(socket.family);
		else if (!strcmp(fv, "type"))
			off = PAYLOAD(socket.type);
		else if (!strcmp(fv, "protocol"))
			off = PAYLOAD(socket.protocol);
		else
			return fail(c, "socket has no field '%s' (family, type, protocol)", fv);
		if (number(c, fv, v, &n))
			return -1;
		return add_word(c, t, off, ~0U, n);
	case IORING_OP_OPENAT:
	case IORING_OP_OPENAT2:
		if (!strcmp(fv, "flags"))
			off = PAYLOAD(open.flags);
		else if (!strcmp(fv, "mode"))
			off = PAYLOAD(open.mode);
		else if (!strcmp(fv, "resolve"))
			off = PAYLOAD(open.resolve);
		else
			return fail(c, "%s has no field '%s' (flags, mode, resolve)",
				    sqe_ops[t->op], fv);
		if (number(c, fv, v, &n))
			return -1;
		/* host byte order, x86's: the low word first */
		return add_word(c, t, off, ~0U, n) ?: add_word(c, t, off + 4, ~0U, n >> 32);
	case IORING_OP_CONNECT:
		if (!strcmp(fv, "family")) {
			if (number(c, fv, v, &n))
				return -1;
			return add_word(c, t, PAYLOAD(connect.family), ~0U, n);
		}
		if (!strcmp(fv, "port")) {
			unsigned short be;
			unsigned int w = 0;

			if (number(c, fv, v, &n) || n > 65535)
				return n > 65535 ? fail(c, "port %llu is not a port", n) : -1;
			be = htons(n);
			memcpy(&w, &be, 2);
			return add_word(c, t, PAYLOAD(connect.port), 0xffff, w);
		}
		if (!strcmp(fv, "addr")) {
			unsigned int w;

			if (!strcmp(v, "0"))
				v = "0.0.0.0";
			if (inet_pton(AF_INET, v, a) == 1) {
				memcpy(&w, a, 4);
				return add_word(c, t, PAYLOAD(connect.v4_addr), ~0U, w);
			}
			if (inet_pton(AF_INET6, v, a) != 1)
				return fail(c, "addr=%s is not an IPv4 or IPv6 address", v);
			for (i = 0; i < 4; i++) {
				memcpy(&w, a + 4 * i, 4);
				if (add_word(c, t, PAYLOAD(connect.v6_addr) + 4 * i, ~0U, w))
					return -1;
			}
			return 0;
		}
		return fail(c, "connect has no field '%s' (family, port, addr)", fv);
	}
	return fail(c, "%s has no argument fields a filter sees (socket, openat, openat2 and connect have)",
		    sqe_ops[t->op]);
}

/* instructions of @t's block in its opcode's program (policy_prog) */
static unsigned int block_len(const struct policy_tuple *t)
{
	unsigned int n = 1, w;

	if (!t->flags_any)
		n += 4;
	for (w = 0; w < t->nr_words; w++)
		n += t->word[w].mask != ~0U ? 3 : 2;
	return n;
}

/* OP/FLAGS[/FIELD=V,...] */
static int parse_tuple(struct ctx *c, struct policy_ring *r, char *s)
{
	char *slash = strchr(s, '/'), *fields = NULL, *fv, *save;
	struct policy_tuple *t;
	unsigned int len, i;
	long op;
	int f;

	if (!slash)
		return fail(c, "sqe= wants OP/FLAGS[/FIELD=VALUE,...]");
	*slash = '\0';
	fields = strchr(slash + 1, '/');
	if (fields)
		*fields++ = '\0';
	op = lookup(s, sqe_ops, 256);
	if (op < 0)
		return fail(c, "'%s' is not a known SQE opcode%s", s, near(s, sqe_ops));
	if (r->nr_tuples == POLICY_MAX_TUPLES)
		return fail(c, "more than %d sqe= entries in one ring", POLICY_MAX_TUPLES);
	t = &r->tuple[r->nr_tuples];
	memset(t, 0, sizeof(*t));
	t->op = op;
	if (!strcmp(slash + 1, "*")) {
		t->flags_any = 1;
	} else {
		f = parse_flags(c, slash + 1, "+");
		if (f < 0)
			return -1;
		t->flags = f;
	}
	if (fields)
		for (fv = strtok_r(fields, ",", &save); fv; fv = strtok_r(NULL, ",", &save))
			if (parse_field(c, t, fv))
				return -1;
	r->nr_tuples++;
	for (len = 1, i = 0; i < r->nr_tuples; i++)
		if (r->tuple[i].op == t->op)
			len += block_len(&r->tuple[i]);
	if (len > POLICY_MAX_PROG)
		return fail(c, "%s's filter would be %u instructions, more than %d",
			    sqe_ops[t->op] ? sqe_ops[t->op] : "the opcode", len, POLICY_MAX_PROG);
	return 0;
}

static int parse_entry(struct ctx *c, struct policy *p, struct policy_ring **cur,
		       char *item)
{
	char *eq = strchr(item, '='), *word, *save, *val;
	const char *const *names;
	struct policy_ring *r = *cur;
	__u16 opcode;
	long limit, v;

	if (!eq)
		return fail(c, "not KEY=VALUE");
	*eq = '\0';
	val = eq + 1;
	if (!strcmp(item, "ring")) {
		char *end;
		unsigned long lo, hi, i;

		lo = strtoul(val, &end, 10);
		hi = lo;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (*end || !lo || hi < lo || hi > UINT_MAX)
			return fail(c, "ring= wants N or N-M, from 1");
		if (!p->sections && p->nr_rings)
			return fail(c, "entries before the first ring= would apply to no ring");
		for (i = 0; i < p->nr_rings; i++)
			if (lo <= p->ring[i].hi && hi >= p->ring[i].lo)
				return fail(c, "rings %lu-%lu are in two sections", lo, hi);
		if (p->nr_rings == POLICY_MAX_RINGS)
			return fail(c, "more than %d ring sections", POLICY_MAX_RINGS);
		p->sections = 1;
		r = &p->ring[p->nr_rings++];
		r->lo = lo;
		r->hi = hi;
		*cur = r;
		return 0;
	}
	if (!r) {
		r = &p->ring[p->nr_rings++];
		r->lo = 1;
		r->hi = UINT_MAX;
		*cur = r;
	}
	if (!strcmp(item, "sqe"))
		return parse_tuple(c, r, val);
	if (!strcmp(item, "sqe_op")) {
		opcode = IORING_RESTRICTION_SQE_OP;
		names = sqe_ops;
		limit = 256;
	} else if (!strcmp(item, "register_op")) {
		opcode = IORING_RESTRICTION_REGISTER_OP;
		names = register_ops;
		limit = 256;
	} else if (!strcmp(item, "sqe_flags_allowed") ||
		   !strcmp(item, "sqe_flags_required")) {
		unsigned int i;

		opcode = item[10] == 'a' ? IORING_RESTRICTION_SQE_FLAGS_ALLOWED :
			IORING_RESTRICTION_SQE_FLAGS_REQUIRED;
		for (i = 0; i < r->nr_res; i++)
			if (r->res[i].opcode == opcode)
				return fail(c, "%s given twice for one ring", item);
		v = parse_flags(c, val, ",");
		return v < 0 ? -1 : add_res(c, r, opcode, v);
	} else {
		static const char *const keys[] = {
			"sqe_op", "register_op", "sqe_flags_allowed",
			"sqe_flags_required", "ring", "sqe", NULL
		};

		return fail(c, "unknown key '%s' (sqe_op, register_op, sqe_flags_allowed, sqe_flags_required, ring, sqe)%s",
			    item, near(item, keys));
	}
	for (word = strtok_r(val, ",", &save); word; word = strtok_r(NULL, ",", &save)) {
		v = lookup(word, names, limit);
		if (v < 0)
			return fail(c, "'%s' is not a known %s%s", word,
				    names == sqe_ops ? "SQE opcode (nop, read_fixed, ...)" :
				    "register opcode (register_files, ...)", near(word, names));
		if (add_res(c, r, opcode, v))
			return -1;
	}
	return 0;
}

/*
 * A section of sqe= entries alone still gets an allow-list: its filtered
 * opcodes, the flags its entries allow, no register call. Without one, a
 * ring's register calls and SQE flags would be left to nothing at all,
 * and an allow-only run (uring-restrict -a) would restrict nothing.
 */
static int allow_filtered(struct policy *p, char *err, size_t errlen)
{
	struct ctx c = { .name = "policy", .entry = "sqe=", .err = err, .errlen = errlen };
	unsigned int i, j, flags;
	unsigned char seen[256];

	for (i = 0; i < p->nr_rings; i++) {
		struct policy_ring *r = &p->ring[i];

		if (r->nr_res || !r->nr_tuples)
			continue;
		memset(seen, 0, sizeof(seen));
		for (flags = 0, j = 0; j < r->nr_tuples; j++) {
			flags |= r->tuple[j].flags_any ? 0xff : r->tuple[j].flags;
			if (!seen[r->tuple[j].op]++ &&
			    add_res(&c, r, IORING_RESTRICTION_SQE_OP, r->tuple[j].op))
				return -1;
		}
		if (add_res(&c, r, IORING_RESTRICTION_SQE_FLAGS_ALLOWED, flags))
			return -1;
	}
	return 0;
}

int policy_parse(struct policy *p, const char *text, const char *name,
		 char *err, size_t errlen)
{
	struct ctx c = { .name = name, .line = 1, .err = err, .errlen = errlen };
	struct policy_ring *cur = NULL;
	char *copy = strdup(text), *s, *end, *hash, *item;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	if (!copy) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	for (s = copy; s && !ret; s = end) {
		size_t n = strcspn(s, ";\n");
		int newline = s[n] == '\n';

		end = s[n] ? s + n + 1 : NULL;
		s[n] = '\0';
		hash = strchr(s, '#');
		if (hash)
			*hash = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		for (item = s + strlen(s); item > s && (item[-1] == ' ' || item[-1] == '\t'); )
			*--item = '\0';
		if (*s) {
			char entry[256];

			snprintf(entry, sizeof(entry), "%s", s);
			c.entry = entry;
			ret = parse_entry(&c, p, &cur, s);
		}
		/* a comment runs to the end of the line, past any ';' */
		if (hash && !newline && end) {
			end = strchr(end, '\n');
			newline = 1;
			if (end)
				end++;
		}
		c.line += newline;
	}
	free(copy);
	if (!ret)
		ret = allow_filtered(p, err, errlen);
	return ret;
}

const struct policy_ring *policy_ring(const struct policy *p, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < p->nr_rings; i++)
		if (nr >= p->ring[i].lo && nr <= p->ring[i].hi)
			return &p->ring[i];
	return NULL;
}

unsigned int policy_filter_ops(const struct policy_ring *r, unsigned char *ops)
{
	unsigned char seen[256] = { 0 };
	unsigned int i, n = 0;

	for (i = 0; i < r->nr_tuples; i++)
		if (!seen[r->tuple[i].op]++)
			ops[n++] = r->tuple[i].op;
	return n;
}

unsigned int policy_pdu_size(unsigned int op)
{
	struct io_uring_bpf_ctx *b = NULL;

	switch (op) {
	case IORING_OP_SOCKET:
		return sizeof(b->socket);
	case IORING_OP_OPENAT:
	case IORING_OP_OPENAT2:
		return sizeof(b->open);
	case IORING_OP_CONNECT:
		return sizeof(b->connect);
	}
	return 0;
}

/*
 * Each tuple is a block that returns 1 when every test passes; a test
 * that fails jumps past the block's end to the next tuple, and the last
 * falls through to return 0. A block is at most 4 + 3 * 8 + 1 long, so a
 * forward jump always fits in jf's 8 bits; policy_parse() refused any
 * opcode whose blocks and final return pass POLICY_MAX_PROG.
 */
unsigned int policy_prog(const struct policy_ring *r, unsigned int op,
			 struct sock_filter *prog)
{
	unsigned int n = 0, i, w;

	for (i = 0; i < r->nr_tuples; i++) {
		const struct policy_tuple *t = &r->tuple[i];
		unsigned int fix[9], nf = 0, k;

		if (t->op != op)
			continue;
		if (!t->flags_any) {
			prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				offsetof(struct io_uring_bpf_ctx, opcode));
			prog[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 8);
			prog[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff);
			fix[nf++] = n;
			prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
								 t->flags, 0, 0);
		}
		for (w = 0; w < t->nr_words; w++) {
			prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
								 t->word[w].off);
			if (t->word[w].mask != ~0U)
				prog[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K,
									 t->word[w].mask);
			fix[nf++] = n;
			prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
								 t->word[w].val, 0, 0);
		}
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 1);
		for (k = 0; k < nf; k++)
			prog[fix[k]].jf = n - fix[k] - 1;
	}
	if (!n)
		return 0;
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
	return n;
}
