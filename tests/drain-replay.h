/* SPDX-License-Identifier: MIT */
/*
 * Replay one batch of SQEs on a fresh ring and record its CQEs in the
 * order they arrive: drain-repro prints them, drain-order judges them.
 *
 * A batch is "op/flags" in hex per SQE, comma-separated; a "p" gives the
 * SQE an unregistered personality (refused after io_init_req() has handled
 * IOSQE_IO_DRAIN), an "s" says its CQE may be suppressed. Every SQE is on fd -1 with all else zero (a SENDMSG's
 * msghdr is NULL) and user_data = its position from 1. The batch is
 * submitted at once and each CQE waited for at most a second: under TCG
 * these complete in microseconds, so a missing one has stalled. A
 * successful IOSQE_CQE_SKIP_SUCCESS SQE posts none, and none is awaited.
 */
#ifndef LAB_DRAIN_REPLAY_H
#define LAB_DRAIN_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <liburing.h>

#define BATCH_MAX	64

struct batch {
	unsigned int n;			/* SQEs in the spec */
	int submitted;			/* io_uring_submit()'s answer */
	unsigned int ncqe;		/* CQEs that came, in arrival order */
	uint64_t must;			/* user_data bits that must post */
	struct { uint64_t user_data; int res; } cqe[BATCH_MAX];
};

/* where SQE @ud's CQE arrived, from 0; -1 if it never did */
static inline int arrival(const struct batch *b, uint64_t ud)
{
	unsigned int i;

	for (i = 0; i < b->ncqe; i++)
		if (b->cqe[i].user_data == ud)
			return i;
	return -1;
}

/* a CQE that must come has not */
static inline bool stalled(const struct batch *b)
{
	unsigned int ud;

	for (ud = 1; ud <= b->n; ud++)
		if ((b->must & (1ULL << (ud - 1))) && arrival(b, ud) < 0)
			return true;
	return false;
}

/*
 * Fill @ring's SQ from @spec and replay it into @b; the caller made the
 * ring (plain, or restricted and enabled). Returns 0, or -1 on a bad spec.
 */
static inline int replay_on(struct io_uring *ring, const char *spec,
			    struct batch *b)
{
	struct __kernel_timespec ts = { .tv_sec = 1 };
	char *s = strdup(spec), *tok, *save;
	struct io_uring_cqe *cqe;

	memset(b, 0, sizeof(*b));
	if (!s)
		return -1;
	for (tok = strtok_r(s, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		unsigned int op, fl;

		if (!sqe || b->n == BATCH_MAX ||
		    sscanf(tok, "%x/%x", &op, &fl) != 2 || op > 255 || fl > 255) {
			free(s);
			return -1;
		}
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = op;
		sqe->flags = fl;
		sqe->fd = -1;
		sqe->user_data = ++b->n;
		/*
		 * A CQE_SKIP_SUCCESS NOP posts nothing when it succeeds, nor
		 * does an SQE marked "s" (a link member whose failed
		 * skip-flagged head suppresses its CQE).
		 */
		if (!(fl & IOSQE_CQE_SKIP_SUCCESS) && !strchr(tok, 's'))
			b->must |= 1ULL << (b->n - 1);
		if (strchr(tok, 'p'))
			sqe->personality = 0xffff;
	}
	free(s);
	b->submitted = io_uring_submit(ring);
	if (b->submitted < (int)b->n)
		b->must &= (1ULL << (b->submitted > 0 ? b->submitted : 0)) - 1;
	while (b->ncqe < BATCH_MAX && stalled(b) &&
	       !io_uring_wait_cqe_timeout(ring, &cqe, &ts)) {
		b->cqe[b->ncqe].user_data = cqe->user_data;
		b->cqe[b->ncqe++].res = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	/* what posts besides (a failed CQE_SKIP_SUCCESS SQE) is here by now */
	while (b->ncqe < BATCH_MAX && !io_uring_peek_cqe(ring, &cqe)) {
		b->cqe[b->ncqe].user_data = cqe->user_data;
		b->cqe[b->ncqe++].res = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	return 0;
}

static inline void print_batch(FILE *f, const char *spec,
			       const struct batch *b)
{
	unsigned int i, ud;

	fprintf(f, "%-40s submitted %d cqes", spec, b->submitted);
	for (i = 0; i < b->ncqe; i++)
		fprintf(f, " %llu:%d", (unsigned long long)b->cqe[i].user_data,
			b->cqe[i].res);
	if (stalled(b)) {
		fprintf(f, " STALLED, missing");
		for (ud = 1; ud <= b->n; ud++)
			if ((b->must & (1ULL << (ud - 1))) && arrival(b, ud) < 0)
				fprintf(f, " %u", ud);
	}
	fprintf(f, "\n");
}

#endif
