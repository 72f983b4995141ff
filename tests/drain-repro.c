// SPDX-License-Identifier: MIT
/*
 * Description: replay batches of SQEs on fresh plain rings and report
 *		which CQEs never arrive: the tool that reduced the drain
 *		stall of restrict-diff's seed 1 (issue 15) to five SQEs.
 *
 * Usage: drain-repro BATCH...
 *   BATCH is one ring's SQEs, "op/flags" in hex, comma-separated, an
 *   optional "p" giving the SQE an unregistered personality (refused after
 *   io_init_req() has handled IOSQE_IO_DRAIN). Every SQE is on fd -1 with
 *   user_data = its position from 1; the batch is submitted at once and
 *   each CQE waited for at most a second. E.g. on 6.1:
 *
 *     drain-repro ff/4,0/4,0/0,0/2,ff/0
 *     ff/4,0/4,0/0,0/2,ff/0  submitted 5 cqes 1:-22 5:-22 2:-125 3:-125 STALLED, missing 4
 *
 *   an invalid opcode heading a link of three (failed at submission, its
 *   two NOPs cancelled in one task-work batch), a drained NOP, an invalid
 *   opcode after it. tracing/drain-stall.bt shows the events in order.
 *
 * Prints one line per batch and "# N of M batches stalled"; exits 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <liburing.h>

#define MAX_SQES	64

static int run(const char *spec)
{
	struct __kernel_timespec ts = { .tv_sec = 1 };
	int seen[MAX_SQES] = { 0 }, n = 0, got = 0, submitted, i;
	char *s = strdup(spec), *tok, *save;
	struct io_uring_cqe *cqe;
	struct io_uring ring;

	if (!s || io_uring_queue_init(MAX_SQES, &ring, 0)) {
		free(s);
		return -1;
	}
	for (tok = strtok_r(s, ",", &save); tok && n < MAX_SQES;
	     tok = strtok_r(NULL, ",", &save)) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		unsigned int op = 0, fl = 0;

		if (!sqe)
			break;
		sscanf(tok, "%x/%x", &op, &fl);
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = op;
		sqe->flags = fl;
		sqe->fd = -1;
		sqe->user_data = ++n;
		if (strchr(tok, 'p'))
			sqe->personality = 0xffff;
	}
	submitted = io_uring_submit(&ring);
	printf("%-40s submitted %d cqes", spec, submitted);
	while (got < submitted && !io_uring_wait_cqe_timeout(&ring, &cqe, &ts)) {
		printf(" %llu:%d", (unsigned long long)cqe->user_data, cqe->res);
		if (cqe->user_data >= 1 && cqe->user_data <= MAX_SQES)
			seen[cqe->user_data - 1] = 1;
		got++;
		io_uring_cqe_seen(&ring, cqe);
	}
	if (got < submitted) {
		printf(" STALLED, missing");
		for (i = 0; i < n; i++)
			if (!seen[i])
				printf(" %d", i + 1);
	}
	printf("\n");
	io_uring_queue_exit(&ring);
	free(s);
	return got < submitted;
}

int main(int argc, char *argv[])
{
	int i, stalls = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s OP/FLAGS[p],... ...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++)
		stalls += run(argv[i]) > 0;
	printf("# %d of %d batches stalled\n", stalls, argc - 1);
	return 0;
}
