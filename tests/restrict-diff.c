/* SPDX-License-Identifier: MIT */
/*
 * Description: randomized differential test of ring restrictions. Many
 *		random policies, each on a fresh R_DISABLED ring, against a
 *		random stream of SQE opcodes and flags; prints one line per
 *		case with what the kernel answered. Run on two kernels, the
 *		outputs must be identical, but for a case whose drained SQE
 *		stalled on one of them (tests/diff-answers.py compares).
 *
 * Usage: restrict-diff [-s SEED] [-n POLICIES] [-k SQES_PER_POLICY]
 *
 * Seeded and reproducible: the same seed gives the same policies and SQE
 * streams on every kernel. Opcodes are drawn from ops that finish at once
 * and touch nothing (fd -1, zero lengths) plus out-of-range ones; flags
 * from all eight bits, so required, allowed, uncommon and invalid flags
 * all occur. A case's line holds the setup, registration and enable
 * results, then user_data:res for every CQE in user_data order, and
 * " stalled" when a CQE was still missing after the last try.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <liburing.h>

#include "uring-test.h"

static uint64_t rng_state;

/* xorshift64*: the same stream from the same seed, everywhere */
static uint32_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dULL) >> 32);
}

/*
 * Opcodes that complete at once without side effects on fd -1, then
 * out-of-range ones (the last NR_BAD): SQEs draw from all, policies
 * mostly from the valid ones.
 */
static const uint8_t ops[] = {
	IORING_OP_NOP, IORING_OP_READV, IORING_OP_WRITEV, IORING_OP_FSYNC,
	IORING_OP_READ, IORING_OP_WRITE, IORING_OP_FADVISE, IORING_OP_CLOSE,
	IORING_OP_READ_FIXED, IORING_OP_SEND, IORING_OP_RECV,
	IORING_OP_LAST, 200, 255,
};
#define NR_OPS (sizeof(ops) / sizeof(ops[0]))
#define NR_BAD 3

static struct counts {
	unsigned long sqes, denied, einval, refused;
} cnt;

/* a case whose CQEs stalled runs again, from the same random state */
#define TRIES 3

/* mostly valid flags; links, invalid bits and CQE_SKIP now and then */
static uint8_t random_flags(void)
{
	uint8_t f = rnd() & (IOSQE_FIXED_FILE | IOSQE_IO_DRAIN | IOSQE_ASYNC |
			     IOSQE_BUFFER_SELECT);

	if ((rnd() & 7) == 0)
		f |= IOSQE_IO_LINK;
	if ((rnd() & 15) == 0)
		f |= IOSQE_IO_HARDLINK;
	if ((rnd() & 15) == 0)
		f |= 0x80;
	return f;
}

static int cmp_cqe(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * One policy and its SQE stream, printed to @out. Returns false when a CQE
 * never came: a drained SQE behind an io-wq one can stall in both kernels
 * alike, depending on timing, which is not what this test compares.
 */
static bool one_case(FILE *out, unsigned int id, unsigned int nsqe)
{
	struct io_uring_restriction res[NR_OPS + 3];
	struct io_uring_params p = { .flags = IORING_SETUP_R_DISABLED |
					      IORING_SETUP_SUBMIT_ALL };
	uint64_t got[64][2];
	struct io_uring ring;
	unsigned int i, n = 0, ncqe = 0;
	int ret, r_reg, r_en, submitted;
	bool complete;

	memset(res, 0, sizeof(res));
	for (i = 0; i < NR_OPS; i++) {
		/* an out-of-range opcode in one policy in sixteen */
		if (i >= NR_OPS - NR_BAD ? (rnd() & 15) == 0 && (rnd() & 1) : rnd() & 1) {
			res[n].opcode = IORING_RESTRICTION_SQE_OP;
			res[n++].sqe_op = ops[i];
		}
	}
	/* flags: no rule, an allowed set, a required set, or both */
	if (rnd() & 1) {
		res[n].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
		res[n++].sqe_flags = random_flags();
	}
	if ((rnd() & 3) == 0) {
		res[n].opcode = IORING_RESTRICTION_SQE_FLAGS_REQUIRED;
		res[n++].sqe_flags = random_flags() & (rnd() & 0xff);
	}
	fprintf(out, "case %u policy", id);
	for (i = 0; i < n; i++)
		fprintf(out, " %u:%u", res[i].opcode,
		       res[i].opcode == IORING_RESTRICTION_SQE_OP ? res[i].sqe_op : res[i].sqe_flags);

	ret = io_uring_queue_init_params(64, &ring, &p);
	if (ret) {
		fprintf(out, " setup %d\n", ret);
		return true;
	}
	r_reg = reg(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, res, n);
	cnt.refused += r_reg != 0;
	cnt.sqes += nsqe;
	r_en = reg(ring.ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
	fprintf(out, " register %d enable %d sqes", r_reg, r_en);

	for (i = 0; i < nsqe; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		uint8_t op = ops[rnd() % NR_OPS];
		/* CQE_SKIP would make the CQE count depend on success */
		uint8_t flags = random_flags() & ~IOSQE_CQE_SKIP_SUCCESS;

		if (!sqe) {
			fprintf(out, " no-sqe\n");
			io_uring_queue_exit(&ring);
			return true;
		}
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = op;
		sqe->flags = flags;
		sqe->fd = -1;
		sqe->user_data = i + 1;
		fprintf(out, " %u/%x", op, flags);
	}
	submitted = io_uring_submit(&ring);
	fprintf(out, " submitted %d cqes", submitted);
	for (;;) {
		/*
		 * io-wq SQEs complete in milliseconds even under TCG; a CQE
		 * missing after a second is a stalled drain (some streams
		 * stall on every run, some only now and then), and main()
		 * runs the case again.
		 */
		struct __kernel_timespec ts = { .tv_sec = 1 };
		struct io_uring_cqe *cqe;

		/* every SQE taken posts one CQE: CQE_SKIP is never drawn */
		if ((int)ncqe >= submitted || io_uring_wait_cqe_timeout(&ring, &cqe, &ts))
			break;
		got[ncqe][0] = cqe->user_data;
		got[ncqe][1] = (uint64_t)(int64_t)cqe->res;
		cnt.denied += cqe->res == -EACCES;
		cnt.einval += cqe->res == -EINVAL;
		ncqe++;
		io_uring_cqe_seen(&ring, cqe);
	}
	qsort(got, ncqe, sizeof(got[0]), cmp_cqe);
	for (i = 0; i < ncqe; i++)
		fprintf(out, " %llu:%lld", (unsigned long long)got[i][0], (long long)got[i][1]);
	/* tests/diff-answers.py compares a stalled case up to its stall */
	complete = submitted < 0 || (int)ncqe >= submitted;
	fprintf(out, "%s\n", complete ? "" : " stalled");
	io_uring_queue_exit(&ring);
	return complete;
}

int main(int argc, char *argv[])
{
	unsigned long seed = 1, policies = 1000, per = 8;
	unsigned int i;
	int c;

	while ((c = getopt(argc, argv, "s:n:k:h")) != -1) {
		switch (c) {
		case 's':
			seed = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			policies = strtoul(optarg, NULL, 0);
			break;
		case 'k':
			per = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-s SEED] [-n POLICIES] [-k SQES_PER_POLICY (1..64)]\n",
				argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (!per || per > 64 || !seed) {
		fprintf(stderr, "restrict-diff: -k must be 1..64 and -s non-zero\n");
		return 2;
	}
	rng_state = seed;
	printf("# restrict-diff seed %lu policies %lu sqes %lu\n", seed, policies, per);
	for (i = 0; i < policies; i++) {
		uint64_t state = rng_state;
		struct counts saved = cnt;
		bool complete = false;
		unsigned int try;

		for (try = 1;; try++) {
			char *buf = NULL;
			size_t len = 0;
			FILE *out = open_memstream(&buf, &len);

			if (!out) {
				perror("restrict-diff: open_memstream");
				return 1;
			}
			complete = one_case(out, i, per);
			fclose(out);
			if (complete || try == TRIES) {
				fputs(buf, stdout);
				free(buf);
				break;
			}
			free(buf);
			rng_state = state;
			cnt = saved;
		}
		/* stderr: reruns depend on timing, the answers must not */
		if (try > 1)
			fprintf(stderr, "# case %u: CQEs stalled, %s after %u runs\n",
				i, complete ? "complete" : "still missing", try);
	}
	/* coverage, so a run that denies nothing cannot pass unnoticed */
	printf("# %lu policies (%lu refused at registration), %lu SQEs: %lu -EACCES, %lu -EINVAL\n",
	       policies, cnt.refused, cnt.sqes, cnt.denied, cnt.einval);
	return 0;
}
