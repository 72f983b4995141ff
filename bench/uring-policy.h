/* SPDX-License-Identifier: MIT */
/*
 * uring-policy: the policy language of bench/uring-restrict, parsed once,
 * applied to rings (uring-restrict.c) and written out as C or JSON
 * (uring-policy-emit.c). The grammar is in uring-policy.c.
 */
#ifndef URING_POLICY_H
#define URING_POLICY_H

#include <stdio.h>
#include <linux/io_uring.h>
#include <linux/filter.h>

#define POLICY_MAX_RES		256
#define POLICY_MAX_RINGS	64
#define POLICY_MAX_TUPLES	256
#define POLICY_MAX_PROG		4096

/* one sqe= entry: an opcode, its flags as a filter sees them (or any),
 * and up to four 32-bit words of its payload, each compared in full */
struct policy_tuple {
	unsigned char op;
	unsigned char flags;
	unsigned char flags_any;
	unsigned char nr_words;
	struct { unsigned char off; unsigned int mask, val; } word[8];
};

struct policy_ring {
	unsigned int lo, hi;		/* ring numbers, 1-based, inclusive */
	struct io_uring_restriction res[POLICY_MAX_RES];
	unsigned int nr_res;
	struct policy_tuple tuple[POLICY_MAX_TUPLES];
	unsigned int nr_tuples;
};

struct policy {
	struct policy_ring ring[POLICY_MAX_RINGS];
	unsigned int nr_rings;
	int sections;			/* ring= used: other rings get nothing */
};

/* 0, or -1 with a message naming @name:LINE and the entry in @err */
int policy_parse(struct policy *p, const char *text, const char *name,
		 char *err, size_t errlen);
/* the section of ring @nr (1-based), or NULL: restricted to nothing */
const struct policy_ring *policy_ring(const struct policy *p, unsigned int nr);
/* the filter of @op in @r: its program in @prog (POLICY_MAX_PROG), its
 * length returned; 0 when @r has no sqe= entry for @op */
unsigned int policy_prog(const struct policy_ring *r, unsigned int op,
			 struct sock_filter *prog);
/* the opcodes with sqe= entries in @r, in the order their filters are
 * added, into @ops (256); the last added takes IO_URING_BPF_FILTER_DENY_REST */
unsigned int policy_filter_ops(const struct policy_ring *r, unsigned char *ops);
/* the payload size a filter of @op expects (IORING_OP_SOCKET: 12, ...) */
unsigned int policy_pdu_size(unsigned int op);
/* name of an SQE opcode, register opcode, SQE flag bit; NULL if none */
const char *policy_sqe_op_name(unsigned int op);
const char *policy_register_op_name(unsigned int op);

#endif
