/* SPDX-License-Identifier: MIT */
/*
 * Description: randomized differential test of ring restrictions. Each
 *		case is a fresh R_DISABLED ring of a random kind, a random
 *		policy, random register calls after enable and a random
 *		batch of SQEs; one line per case says what the kernel
 *		answered. Run on two kernels, the outputs must be identical,
 *		but where upstream 6.1's own drain failed (patches 0010-0012;
 *		tests/diff-answers.py compares).
 *
 * Usage: restrict-diff [-s SEED] [-n CASES] [-k SQES] [-c CASE] [-p EVERY]
 *        restrict-diff -r FILE
 *
 * -p EVERY prints progress to stderr every EVERY cases.
 *
 * Seeded and reproducible: case N draws from its own random stream,
 * derived from the seed and N, so "-s SEED -c N" runs case N alone and
 * "-r FILE" replays cases written as the part of an answer line before
 * " =>" (tests/minimise-diff.py reduces a case that way).
 *
 * What a case draws:
 * - the ring: plain, SINGLE_ISSUER, SINGLE_ISSUER|DEFER_TASKRUN or SQPOLL,
 *   with or without SUBMIT_ALL;
 * - the policy: SQE opcodes from a small per-case palette (any of 0-255),
 *   register opcodes (any of 0-255), allowed and required flags (any of
 *   the eight bits), now and then an unknown restriction kind or none;
 * - up to three register calls after enable, any opcode, NULL argument,
 *   nr_args 0 or 1: each completes at once (-EFAULT, -EINVAL, -ENXIO, an
 *   id from IORING_REGISTER_PERSONALITY, ...) and the answer is compared;
 * - the SQEs: opcodes from the palette or any of 0-255, on fd -1 with
 *   every other field zero, so that every opcode of 6.1 completes at once
 *   and touches nothing (-EBADF, -EFAULT on a NULL pointer, -EINVAL);
 *   flags from all eight bits, several errors at once included.
 *
 * IOSQE_CQE_SKIP_SUCCESS makes the number of CQEs depend on the answers
 * (a failed CQE_SKIP link member skips its cancelled members' CQEs too),
 * so a batch that draws it (a third of the non-SQPOLL ones, from a random
 * SQE on) draws no IOSQE_ASYNC, no SQPOLL ring and no link left open at
 * its end (which 6.1 sends to io-wq): then every CQE is posted before
 * io_uring_enter() returns (task_work runs on the way out, DEFER_TASKRUN's
 * when asked for), and what is in the CQ ring then is the whole answer.
 * Drains are drawn in it as anywhere, before and after the first skip
 * SQE; a missing CQE that had to come (skip_batch_complete()) or a
 * sentinel NOP that never comes marks the case stalled. One such batch
 * in four ends a link with a drain inside at its first skip SQE. The
 * closing comment counts which drain paths these batches reached
 * (count_paths()); seed 1, 10 000 cases: 2 985 batches with CQE_SKIP,
 * 1 334 with a drain before the first skip SQE, 1 032 with one after it,
 * 279 with a skip SQE after a drain inside its link, 391 with 6.1's
 * drain of the request after such a link falling on a skip SQE, 23 with
 * a skip-flagged head failing early and a drain after its link.
 *
 * An answer line: "case N <case> => setup S register R enable E calls
 * C... submitted X cqes USER_DATA:RES[:FLAGS]..." in user_data order (a
 * zero-copy notification is counted, not shown), " drain-early" when a
 * drained link's CQE came before an earlier SQE's (drain_ran_early()),
 * and " stalled" when a CQE that must come did not.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <liburing.h>

#include "uring-test.h"

#define MAX_SQES	64
#define MAX_RES		32
#define MAX_CALLS	3
#define MAX_CQES	(2 * MAX_SQES)	/* SEND_ZC may post a notification */
#define SENTINEL	1000		/* user_data of run_case()'s last NOP */

enum ring_kind { RING_PLAIN, RING_SINGLE, RING_DEFER, RING_SQPOLL, NR_KINDS };
static const char *const kind_name[NR_KINDS] = {
	"plain", "single", "defer", "sqpoll",
};

struct dcase {
	enum ring_kind kind;
	bool submit_all;
	unsigned int nres, ncall, nsqe;
	struct io_uring_restriction res[MAX_RES];
	struct { uint8_t op, nr; } call[MAX_CALLS];
	struct { uint8_t op, flags; } sqe[MAX_SQES];
};

static struct counts {
	unsigned long cases, sqes, calls, refused, stalled;
	unsigned long kind[NR_KINDS];
	unsigned long eacces, einval, eopnotsupp, skipped, notif, early;
	/* which drain paths the batches with CQE_SKIP reach (generated) */
	unsigned long skip_batches, drain_before_skip, drain_after_skip,
		      skip_in_drained_link, implied_drain_skip, failed_skip_head;
} cnt;


/* a valid opcode of the running uapi mostly, now and then any byte */
static uint8_t any_op(unsigned int last)
{
	return one_in(4) ? rnd() & 0xff : rnd() % last;
}

/*
 * A register opcode, drawn as any_op() draws, but never 37: patched has
 * IORING_REGISTER_BPF_FILTER (Linux 7.0's number), so a policy naming it,
 * or a call of it, is valid there and not on upstream 6.1 (26 to 36 stay
 * unknown on both). tests/bpf-filter.c tests opcode 37 on every kernel.
 * The draw is moved rather than redrawn, so every case keeps its stream.
 */
static uint8_t any_register_op(void)
{
	uint8_t op = any_op(IORING_REGISTER_LAST);

	return op == 37 ? 38 : op;
}

/* each of the eight bits on its own odds; 0x80 is no flag at all */
static uint8_t random_flags(void)
{
	uint8_t f = 0;

	f |= one_in(4) ? IOSQE_FIXED_FILE : 0;
	f |= one_in(8) ? IOSQE_IO_DRAIN : 0;
	f |= one_in(8) ? IOSQE_IO_LINK : 0;
	f |= one_in(16) ? IOSQE_IO_HARDLINK : 0;
	f |= one_in(8) ? IOSQE_ASYNC : 0;
	f |= one_in(8) ? IOSQE_BUFFER_SELECT : 0;
	f |= one_in(8) ? IOSQE_CQE_SKIP_SUCCESS : 0;
	f |= one_in(16) ? 0x80 : 0;
	return f;
}

static void generate(struct dcase *c, unsigned int nsqe)
{
	uint8_t palette[6];
	unsigned int i, npal = 2 + rnd() % 5;
	unsigned int skips;

	memset(c, 0, sizeof(*c));
	i = rnd() % 16;
	c->kind = i < 10 ? RING_PLAIN : i < 12 ? RING_SINGLE :
		  i < 14 ? RING_DEFER : RING_SQPOLL;
	c->submit_all = !one_in(4);
	for (i = 0; i < npal; i++)
		palette[i] = any_op(IORING_OP_LAST);

	/* policy: palette ops, register ops, flag rules; rarely odd ones */
	if (!one_in(32)) {
		for (i = 0; i < npal; i++)
			if (rnd() & 1)
				c->res[c->nres++] = r_sqe_op(palette[i]);
		for (i = rnd() % 4; i; i--)
			c->res[c->nres++] = r_register_op(any_register_op());
		if (rnd() & 1)
			c->res[c->nres++] = r_flags(IORING_RESTRICTION_SQE_FLAGS_ALLOWED,
						    random_flags() | random_flags());
		if (one_in(4))
			c->res[c->nres++] = r_flags(IORING_RESTRICTION_SQE_FLAGS_REQUIRED,
						    random_flags() & random_flags());
		if (one_in(32))
			c->res[c->nres++] = (struct io_uring_restriction){
				.opcode = IORING_RESTRICTION_LAST + rnd() % 4 };
	}

	for (i = rnd() % (MAX_CALLS + 1); i; i--) {
		c->call[c->ncall].op = any_register_op();
		c->call[c->ncall++].nr = rnd() & 1;
	}

	/*
	 * A batch with CQE_SKIP has no io-wq SQE and no SQPOLL thread, so
	 * that its CQEs are all in by the time io_uring_enter() returns
	 * (drained requests run from task_work too), and NOP, the opcode
	 * that succeeds on fd -1 and so skips its CQE, in its palette most
	 * of the time. Its first skip SQE is drawn at random, so drains
	 * meet it before and after, explicit ones (6.1 refuses them after
	 * it with -EOPNOTSUPP unless that SQE failed early) and implied
	 * ones (the request after a link with a drain inside), as do skip
	 * SQEs inside links and failed skip heads; run_case() tells a
	 * stalled drain from a skipped CQE.
	 */
	skips = c->kind != RING_SQPOLL && one_in(3) ? 1 + rnd() % nsqe : 0;
	if (skips && !one_in(4))
		palette[0] = IORING_OP_NOP;
	c->nsqe = nsqe;
	for (i = 0; i < nsqe; i++) {
		uint8_t f = random_flags();

		c->sqe[i].op = one_in(8) ? any_op(IORING_OP_LAST) :
			       palette[rnd() % npal];
		if (!skips)
			f &= ~IOSQE_CQE_SKIP_SUCCESS;
		else if (i + 1 < skips)
			f &= ~(IOSQE_CQE_SKIP_SUCCESS | IOSQE_ASYNC);
		else if (i + 1 == skips)
			f = (f & ~IOSQE_ASYNC) | IOSQE_CQE_SKIP_SUCCESS;
		else
			f &= ~IOSQE_ASYNC;
		/* a link left open at the end goes to io-wq */
		if (skips && i + 1 == nsqe)
			f &= ~(IOSQE_IO_LINK | IOSQE_IO_HARDLINK);
		c->sqe[i].flags = f;
	}
	/*
	 * One skip batch in four ends a link with a drain inside just before
	 * its first skip SQE, or puts that SQE inside such a link: 6.1 then
	 * drains the request after the link though CQE_SKIP was seen (its
	 * drain_next), a path random flags reach a few times in 10 000 cases.
	 */
	if (skips >= 3 && one_in(4)) {
		uint8_t keep = (uint8_t)~(IOSQE_CQE_SKIP_SUCCESS | IOSQE_IO_DRAIN | IOSQE_ASYNC |
					  IOSQE_IO_LINK | IOSQE_IO_HARDLINK);

		c->sqe[skips - 3].flags = (c->sqe[skips - 3].flags & keep) | IOSQE_IO_LINK;
		c->sqe[skips - 2].flags = (c->sqe[skips - 2].flags & keep) | IOSQE_IO_DRAIN |
					  (rnd() & 1 ? IOSQE_IO_LINK : 0);
	}
}

/* the head of the link SQE @i belongs to */
static unsigned int link_head(const struct dcase *c, unsigned int i)
{
	while (i && c->sqe[i - 1].flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK))
		i--;
	return i;
}

/* the last SQE of the link SQE @i belongs to */
static unsigned int link_end(const struct dcase *c, unsigned int i)
{
	while (i + 1 < c->nsqe && c->sqe[i].flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK))
		i++;
	return i;
}

/*
 * Count which drain paths a batch with CQE_SKIP reaches, from the SQEs
 * drawn (the same on every kernel): printed at the end of a run, so that
 * the header's claims are numbers.
 */
static void count_paths(const struct dcase *c)
{
	unsigned int i, k, first = c->nsqe;
	bool before = false, after = false, in_link = false, implied = false,
	     head = false;

	for (i = 0; i < c->nsqe; i++)
		if (c->sqe[i].flags & IOSQE_CQE_SKIP_SUCCESS && first == c->nsqe)
			first = i;
	if (first == c->nsqe)
		return;
	for (i = 0; i < c->nsqe; i++) {
		uint8_t f = c->sqe[i].flags;
		unsigned int h = link_head(c, i), e = link_end(c, i);

		before |= (f & IOSQE_IO_DRAIN) && i < first;
		after |= (f & IOSQE_IO_DRAIN) && i > first;
		if ((f & IOSQE_IO_DRAIN) && i > h) {
			/* a drain inside a link: drain_next on the SQE after it */
			for (k = i + 1; k <= e; k++)
				in_link |= !!(c->sqe[k].flags & IOSQE_CQE_SKIP_SUCCESS);
			if (e + 1 < c->nsqe)
				implied |= !!(c->sqe[e + 1].flags & IOSQE_CQE_SKIP_SUCCESS);
		}
		/* fails before io_init_req() reads its flags, then a drain */
		if ((f & IOSQE_CQE_SKIP_SUCCESS) && i == h && e > h &&
		    (c->sqe[i].op >= IORING_OP_LAST || (f & 0x80)))
			for (k = e + 1; k < c->nsqe; k++)
				head |= !!(c->sqe[k].flags & IOSQE_IO_DRAIN);
	}
	cnt.skip_batches++;
	cnt.drain_before_skip += before;
	cnt.drain_after_skip += after;
	cnt.skip_in_drained_link += in_link;
	cnt.implied_drain_skip += implied;
	cnt.failed_skip_head += head;
}

static void print_case(FILE *out, const struct dcase *c)
{
	unsigned int i;

	fprintf(out, "ring %s %s policy", kind_name[c->kind],
		c->submit_all ? "all" : "stop");
	for (i = 0; i < c->nres; i++) {
		const struct io_uring_restriction *r = &c->res[i];

		fprintf(out, " %u:%u", r->opcode,
			r->opcode == IORING_RESTRICTION_REGISTER_OP ? r->register_op :
			r->opcode == IORING_RESTRICTION_SQE_OP ? r->sqe_op :
			r->sqe_flags);
	}
	fprintf(out, " calls");
	for (i = 0; i < c->ncall; i++)
		fprintf(out, " %u/%u", c->call[i].op, c->call[i].nr);
	fprintf(out, " sqes");
	for (i = 0; i < c->nsqe; i++)
		fprintf(out, " %u/%x", c->sqe[i].op, c->sqe[i].flags);
}

/* the inverse of print_case(), for -r; 0 or -1 */
static int parse_case(char *line, struct dcase *c)
{
	char *tok, *save, *part = "";
	unsigned int a, b, k;

	memset(c, 0, sizeof(*c));
	c->kind = NR_KINDS;
	for (tok = strtok_r(line, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		if (!strcmp(tok, "=>"))
			break;
		if (!strcmp(tok, "ring") || !strcmp(tok, "policy") ||
		    !strcmp(tok, "calls") || !strcmp(tok, "sqes")) {
			part = tok;
		} else if (!strcmp(part, "ring")) {
			for (k = 0; k < NR_KINDS; k++)
				if (!strcmp(tok, kind_name[k]))
					c->kind = k;
			if (!strcmp(tok, "all") || !strcmp(tok, "stop"))
				c->submit_all = !strcmp(tok, "all");
		} else if (!strcmp(part, "policy") && c->nres < MAX_RES &&
			   sscanf(tok, "%u:%u", &a, &b) == 2 && b < 256) {
			struct io_uring_restriction *r = &c->res[c->nres++];

			r->opcode = a;
			if (a == IORING_RESTRICTION_REGISTER_OP)
				r->register_op = b;
			else if (a == IORING_RESTRICTION_SQE_OP)
				r->sqe_op = b;
			else
				r->sqe_flags = b;
		} else if (!strcmp(part, "calls") && c->ncall < MAX_CALLS &&
			   sscanf(tok, "%u/%u", &a, &b) == 2 && a < 256 && b < 256) {
			c->call[c->ncall].op = a;
			c->call[c->ncall++].nr = b;
		} else if (!strcmp(part, "sqes") && c->nsqe < MAX_SQES &&
			   sscanf(tok, "%u/%x", &a, &b) == 2 && a < 256 && b < 256) {
			c->sqe[c->nsqe].op = a;
			c->sqe[c->nsqe++].flags = b;
		} else if (strcmp(part, "") && strcmp(part, "case")) {
			return -1;
		}
	}
	return c->kind == NR_KINDS || !c->nsqe ? -1 : 0;
}

static int cmp_cqe(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	int i;

	for (i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static bool any_flag(const struct dcase *c, uint8_t flag)
{
	unsigned int i;

	for (i = 0; i < c->nsqe; i++)
		if (c->sqe[i].flags & flag)
			return true;
	return false;
}

/* every CQE is in the ring by the time io_uring_enter() returns */
static bool inline_only(const struct dcase *c)
{
	return c->kind != RING_SQPOLL && !any_flag(c, IOSQE_ASYNC);
}

/* where SQE @ud (1-based) arrived in @got, or -1 */
static int arrival(int64_t got[][3], unsigned int ncqe, unsigned int ud)
{
	unsigned int i;

	for (i = 0; i < ncqe; i++)
		if (!(got[i][2] & IORING_CQE_F_NOTIF) && got[i][0] == ud)
			return i;
	return -1;
}

/*
 * SQE op/flags passes io_init_req() (and the io_req_prep_async() a link
 * member goes through) on a plain ring of this kernel: probed once as a
 * link member after a READ on fd -1, which fails at issue with -EBADF
 * when the member was taken and is cancelled when it was not. A prep
 * can fail with any errno (PROVIDE_BUFFERS' -E2BIG, STATX's -EBADF on a
 * fixed file), so the answer cannot tell. Remembered per kernel run.
 */
static bool passes_init(uint8_t op, uint8_t flags)
{
	static int8_t known[256][256];
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int head = 0;

	flags &= ~(IOSQE_IO_LINK | IOSQE_IO_HARDLINK | IOSQE_IO_DRAIN);
	if (known[op][flags])
		return known[op][flags] > 0;
	if (io_uring_queue_init(4, &ring, 0))
		return false;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, -1, NULL, 0, 0);
	sqe->flags = IOSQE_IO_LINK;
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	if (!sqe) {
		io_uring_queue_exit(&ring);
		return false;
	}
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = op;
	sqe->flags = flags;
	sqe->fd = -1;
	sqe->user_data = 2;
	io_uring_submit_and_wait(&ring, 2);
	while (!io_uring_peek_cqe(&ring, &cqe)) {
		if (cqe->user_data == 1)
			head = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	known[op][flags] = head == -EBADF ? 1 : -1;
	return head == -EBADF;
}

/*
 * Every kernel takes SQEs @from..@to (0-based) as far as holding them:
 * each passes io_init_req() when probed alone (passes_init()), none was
 * answered -EACCES or -EOPNOTSUPP (which a policy or drain_disabled give
 * there), and no link head among them was cancelled with -ECANCELED (as
 * one is when a member fails there, perhaps with the member's CQE
 * suppressed by a skip-flagged head).
 */
static bool all_taken(const struct dcase *c, int64_t got[][3],
		      unsigned int ncqe, unsigned int from, unsigned int to)
{
	unsigned int k, ud;

	for (k = from; k <= to; k++)
		if (!passes_init(c->sqe[k].op, c->sqe[k].flags))
			return false;
	for (k = 0; k < ncqe; k++) {
		ud = got[k][0];
		if (got[k][2] & IORING_CQE_F_NOTIF || ud < from + 1 || ud > to + 1)
			continue;
		if (got[k][1] == -EACCES || got[k][1] == -EOPNOTSUPP ||
		    (got[k][1] == -ECANCELED && ud == link_head(c, ud - 1) + 1))
			return false;
	}
	return true;
}

/* a CQE of SQEs @head..@end came before the CQE of an SQE before @head */
static bool posted_early(int64_t got[][3], unsigned int ncqe,
			 unsigned int head, unsigned int end)
{
	int last_before = -1, first_in = -1;
	unsigned int k, ud;

	for (k = 0; k < ncqe; k++) {
		if (got[k][2] & IORING_CQE_F_NOTIF)
			continue;
		ud = got[k][0];
		if (ud >= head + 1 && ud <= end + 1 && first_in < 0)
			first_in = k;
		else if (ud >= 1 && ud <= head)
			last_before = k;
	}
	return first_in >= 0 && first_in < last_before;
}

/*
 * A drain did not hold: the CQE of an SQE of a drained link came before
 * the CQE of an SQE ahead of the link. A link is drained when one of its
 * SQEs has IOSQE_IO_DRAIN (a drain inside a link drains the link from its
 * head), and so is the link after a link with IOSQE_IO_DRAIN on a member
 * other than its head (6.1's drain_next). Judged only where every kernel
 * holds the drained link, and for drain_next takes the link that set it
 * (all_taken()): a failed request drains nothing, and 6.1 posts it at
 * once. 6.1 lets a drain run early when a failure posts ahead of it;
 * patched never may (tests/diff-answers.py). @got is in arrival order.
 */
static bool drain_ran_early(const struct dcase *c, int64_t got[][3],
			    unsigned int ncqe, int submitted)
{
	unsigned int n = submitted > 0 ? submitted : 0, head, end, k;
	bool inside;

	if (n > c->nsqe)
		n = c->nsqe;
	for (head = 0; head < n; head = end + 1) {
		end = link_end(c, head);
		if (end >= n)
			break;
		inside = false;
		for (k = head; k <= end; k++) {
			if (!(c->sqe[k].flags & IOSQE_IO_DRAIN))
				continue;
			if (all_taken(c, got, ncqe, head, end) &&
			    posted_early(got, ncqe, head, end))
				return true;
			inside |= k > head;
		}
		/* drain_next: the link after this one */
		if (inside && end + 1 < n && link_end(c, end + 1) < n &&
		    all_taken(c, got, ncqe, head, link_end(c, end + 1)) &&
		    posted_early(got, ncqe, end + 1, link_end(c, end + 1)))
			return true;
	}
	return false;
}

/*
 * In a batch with CQE_SKIP, the CQEs of the submitted SQEs that must come:
 * every one but those with IOSQE_CQE_SKIP_SUCCESS (which post only when
 * they fail) and those after a skip-flagged member of their link that
 * failed (io_fail_links() suppresses the CQEs of the members it
 * cancels). False when one of them is missing: a drain stalled. @got is
 * in arrival order.
 */
static bool skip_batch_complete(const struct dcase *c, int64_t got[][3],
				unsigned int ncqe, int submitted)
{
	unsigned int n = submitted > 0 ? submitted : 0, i, j;

	for (i = 0; i < n && i < c->nsqe; i++) {
		bool may_skip = c->sqe[i].flags & IOSQE_CQE_SKIP_SUCCESS;
		int at;

		for (j = link_head(c, i); j < i && !may_skip; j++) {
			at = arrival(got, ncqe, j + 1);
			may_skip = (c->sqe[j].flags & IOSQE_CQE_SKIP_SUCCESS) &&
				   at >= 0 && got[at][1] < 0;
		}
		if (!may_skip && arrival(got, ncqe, i + 1) < 0)
			return false;
	}
	return true;
}

/*
 * A NOP the policy lets through without a flag that could fail or skip
 * it: submitted after a batch with CQE_SKIP, it posts only once no drain
 * is pending, as every kernel holds an accepted request submitted after
 * a pending drain. False when the policy refuses every such NOP (patched
 * also holds a refusal, upstream 6.1 posts it at once).
 */
static bool sentinel_flags(const struct dcase *c, int registered, uint8_t *flags)
{
	bool nop = false;
	uint8_t required = 0;
	unsigned int i;

	if (registered)
		return *flags = 0, true;
	for (i = 0; i < c->nres; i++) {
		const struct io_uring_restriction *r = &c->res[i];

		if (r->opcode == IORING_RESTRICTION_SQE_OP) {
			nop |= r->sqe_op == IORING_OP_NOP;
		} else if (r->opcode == IORING_RESTRICTION_SQE_FLAGS_REQUIRED) {
			required = r->sqe_flags;	/* the last one counts */
		}
	}
	/* the required flags, which 6.1 permits whatever is allowed */
	*flags = required;
	return nop && !(required & ~IOSQE_FIXED_FILE);
}

/* run @c and print its answers to @out; false when a CQE stalled */
static bool run_case(FILE *out, const struct dcase *c)
{
	static const unsigned int setup_flags[NR_KINDS] = {
		[RING_SINGLE] = IORING_SETUP_SINGLE_ISSUER,
		[RING_DEFER] = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		[RING_SQPOLL] = IORING_SETUP_SQPOLL,
	};
	struct io_uring_params p = {
		.flags = IORING_SETUP_R_DISABLED | setup_flags[c->kind] |
			 (c->submit_all ? IORING_SETUP_SUBMIT_ALL : 0),
		.sq_thread_idle = 10,
	};
	bool seen[MAX_SQES] = { false }, complete = true;
	int64_t got[MAX_CQES][3];
	unsigned int i, ncqe = 0;
	struct io_uring_cqe *cqe;
	int more = 0, registered;
	uint8_t sflags;
	bool early;
	struct io_uring ring;
	int ret, submitted;

	cnt.cases++;
	cnt.kind[c->kind]++;
	ret = io_uring_queue_init_params(MAX_SQES, &ring, &p);
	fprintf(out, " => setup %d", ret);
	if (ret) {
		fprintf(out, "\n");
		return true;
	}
	ret = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, c->res, c->nres);
	cnt.refused += ret != 0;
	registered = ret;
	fprintf(out, " register %d", ret);
	fprintf(out, " enable %d calls",
		reg(ring.ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0));
	for (i = 0; i < c->ncall; i++) {
		fprintf(out, " %d", reg(ring.ring_fd, c->call[i].op, NULL,
					 c->call[i].nr));
		cnt.calls++;
	}

	for (i = 0; i < c->nsqe; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = c->sqe[i].op;
		sqe->flags = c->sqe[i].flags;
		sqe->fd = -1;
		sqe->user_data = i + 1;
	}
	cnt.sqes += c->nsqe;
	submitted = io_uring_submit(&ring);
	fprintf(out, " submitted %d cqes", submitted);

	/*
	 * Without CQE_SKIP every SQE taken posts one CQE: wait for them.
	 * Inline-only batches have them all by now, so a short wait is
	 * enough to call one missing stalled; io-wq and SQPOLL ones
	 * complete in milliseconds even under TCG, and a second is plenty.
	 * With CQE_SKIP, which posts depends on the answers, and the
	 * batch is inline-only: what the CQ ring holds is the answer.
	 */
	if (any_flag(c, IOSQE_CQE_SKIP_SUCCESS))
		memset(seen, true, sizeof(seen));
	for (;;) {
		struct __kernel_timespec ts = {
			.tv_sec = inline_only(c) ? 0 : 1,
			.tv_nsec = inline_only(c) ? 50000000 : 0,
		};
		unsigned int want = 0;

		for (i = 0; i < (unsigned int)(submitted > 0 ? submitted : 0) &&
			    i < c->nsqe; i++)
			want += !seen[i];
		if (!want && more <= 0)
			break;
		if (io_uring_wait_cqe_timeout(&ring, &cqe, &ts)) {
			complete = false;
			break;
		}
		do {
			if (ncqe == MAX_CQES)
				break;
			got[ncqe][0] = (int64_t)cqe->user_data;
			got[ncqe][1] = cqe->res;
			got[ncqe++][2] = cqe->flags;
			/* F_MORE: another CQE follows (a zero-copy notification) */
			more += !!(cqe->flags & IORING_CQE_F_MORE) -
				!!(cqe->flags & IORING_CQE_F_NOTIF);
			if (cqe->user_data >= 1 && cqe->user_data <= MAX_SQES)
				seen[cqe->user_data - 1] = true;
			io_uring_cqe_seen(&ring, cqe);
		} while (!io_uring_peek_cqe(&ring, &cqe));
	}
	/* what else is posted (CQE_SKIP batches, notifications) is here */
	/*
	 * DEFER_TASKRUN runs its task_work only when asked, and what one
	 * run completes can queue more (a drain released by the flush at
	 * its end): ask once per SQE and once more, as each drain a run
	 * releases is one step and there are no more drains than SQEs.
	 */
	for (i = 0; complete && i <= c->nsqe; i++) {
		if (c->kind == RING_DEFER)
			io_uring_get_events(&ring);
		while (ncqe < MAX_CQES && !io_uring_peek_cqe(&ring, &cqe)) {
			got[ncqe][0] = (int64_t)cqe->user_data;
			got[ncqe][1] = cqe->res;
			got[ncqe++][2] = cqe->flags;
			io_uring_cqe_seen(&ring, cqe);
		}
		if (c->kind != RING_DEFER)
			break;
	}
	/*
	 * With CQE_SKIP, a missing CQE is a stalled drain when it had to
	 * come; and a sentinel NOP submitted now comes only if no drain is
	 * still pending, which also catches a stall behind which every SQE
	 * was skip-flagged (not when the policy refuses it: then only on
	 * patched, which holds refusals too).
	 */
	if (complete && any_flag(c, IOSQE_CQE_SKIP_SUCCESS)) {
		complete = skip_batch_complete(c, got, ncqe, submitted);
		if (complete && submitted == (int)c->nsqe &&
		    sentinel_flags(c, registered, &sflags)) {
			struct __kernel_timespec ts = { .tv_nsec = 50000000 };
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			bool sentinel = false;

			io_uring_prep_nop(sqe);
			sqe->flags = sflags;
			sqe->user_data = SENTINEL;
			if (io_uring_submit(&ring) == 1 &&
			    !io_uring_wait_cqe_timeout(&ring, &cqe, &ts)) {
				do {
					if (cqe->user_data == SENTINEL) {
						sentinel = true;
					} else if (ncqe < MAX_CQES) {
						got[ncqe][0] = (int64_t)cqe->user_data;
						got[ncqe][1] = cqe->res;
						got[ncqe++][2] = cqe->flags;
					}
					io_uring_cqe_seen(&ring, cqe);
				} while (!io_uring_peek_cqe(&ring, &cqe));
			}
			complete = sentinel;
		}
	}
	io_uring_queue_exit(&ring);

	early = drain_ran_early(c, got, ncqe, submitted);
	qsort(got, ncqe, sizeof(got[0]), cmp_cqe);
	for (i = 0; i < ncqe; i++) {
		/*
		 * A zero-copy send's notification: 6.1 posts one for every
		 * send it prepared, even one that failed without F_MORE, and
		 * when it comes is timing. Counted, not compared.
		 */
		if (got[i][2] & IORING_CQE_F_NOTIF) {
			cnt.notif++;
			continue;
		}
		fprintf(out, " %lld:%lld", (long long)got[i][0], (long long)got[i][1]);
		if (got[i][2])
			fprintf(out, ":%llx", (long long)got[i][2]);
		cnt.eacces += got[i][1] == -EACCES;
		cnt.einval += got[i][1] == -EINVAL;
		cnt.eopnotsupp += got[i][1] == -EOPNOTSUPP;
	}
	for (i = 0; i < c->nsqe && i < (unsigned int)(submitted > 0 ? submitted : 0); i++) {
		unsigned int k;
		bool posted = false;

		for (k = 0; k < ncqe; k++)
			posted |= got[k][0] == i + 1;
		cnt.skipped += (c->sqe[i].flags & IOSQE_CQE_SKIP_SUCCESS) && !posted;
	}
	cnt.stalled += !complete;
	cnt.early += early;
	fprintf(out, "%s%s\n", early ? " drain-early" : "",
		complete ? "" : " stalled");
	return complete;
}

static void run_one(const struct dcase *c, const char *label)
{
	printf("%s ", label);
	print_case(stdout, c);
	run_case(stdout, c);
	fflush(stdout);
}

static int replay(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL, label[32];
	size_t len = 0;
	unsigned int n = 0;
	struct dcase c;

	if (!f) {
		perror(path);
		return 1;
	}
	while (getline(&line, &len, f) > 0) {
		char *spec = strstr(line, "ring ");

		if (line[0] == '#' || !spec)
			continue;
		if (parse_case(spec, &c)) {
			fprintf(stderr, "restrict-diff: unreadable case: %s", line);
			return 2;
		}
		snprintf(label, sizeof(label), "case %u", n++);
		run_one(&c, label);
	}
	free(line);
	return 0;
}

int main(int argc, char *argv[])
{
	unsigned long seed = 1, cases = 1000, per = 8, only = ~0UL, progress = 0, i;
	const char *file = NULL;
	struct dcase c;
	int opt;

	while ((opt = getopt(argc, argv, "s:n:k:c:r:p:h")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			cases = strtoul(optarg, NULL, 0);
			break;
		case 'k':
			per = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			only = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			file = optarg;
			break;
		case 'p':
			progress = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-s SEED] [-n CASES] [-k SQES (1..%d)] [-c CASE] [-p EVERY] | -r FILE\n",
				argv[0], MAX_SQES);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!per || per > MAX_SQES) {
		fprintf(stderr, "restrict-diff: -k must be 1..%d\n", MAX_SQES);
		return 2;
	}
	if (file) {
		printf("# restrict-diff replay %s\n", file);
		if (replay(file))
			return 1;
	} else {
		printf("# restrict-diff seed %lu cases %lu sqes %lu\n", seed, cases, per);
		struct timespec t0, t;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < cases; i++) {
			char label[32];

			/* long runs (make fuzz) say how far they are */
			if (progress && i && i % progress == 0) {
				double el;

				clock_gettime(CLOCK_MONOTONIC, &t);
				el = t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9;
				fprintf(stderr, "# restrict-diff: %lu of %lu cases, %.0f s, about %.0f s left\n",
					i, cases, el, el * (cases - i) / i);
			}

			if (only != ~0UL && i != only)
				continue;
			seed_case(seed, i);
			generate(&c, per);
			count_paths(&c);
			snprintf(label, sizeof(label), "case %lu", i);
			run_one(&c, label);
		}
	}
	/* which drain paths the CQE_SKIP batches reached; the totals last */
	printf("# %lu batches with CQE_SKIP: %lu drain before the first skip SQE, %lu drain after it, "
	       "%lu skip SQE after a drain inside its link, %lu implied drain on a skip SQE, "
	       "%lu failed skip head then a drain\n",
	       cnt.skip_batches, cnt.drain_before_skip, cnt.drain_after_skip,
	       cnt.skip_in_drained_link, cnt.implied_drain_skip, cnt.failed_skip_head);
	/* coverage, so a run that denies nothing cannot pass unnoticed */
	printf("# %lu cases (%lu plain, %lu single, %lu defer, %lu sqpoll; %lu policies refused), "
	       "%lu register calls, %lu SQEs, %lu CQEs skipped, %lu notifications, %lu drains early, %lu stalled: "
	       "%lu -EACCES, %lu -EINVAL, %lu -EOPNOTSUPP\n",
	       cnt.cases, cnt.kind[RING_PLAIN], cnt.kind[RING_SINGLE],
	       cnt.kind[RING_DEFER], cnt.kind[RING_SQPOLL], cnt.refused,
	       cnt.calls, cnt.sqes, cnt.skipped, cnt.notif, cnt.early, cnt.stalled, cnt.eacces,
	       cnt.einval, cnt.eopnotsupp);
	return 0;
}
