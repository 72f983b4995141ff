// SPDX-License-Identifier: MIT
/*
 * Description: replay batches of SQEs on fresh plain rings and report
 *		which CQEs never arrive: the tool that reduced the drain
 *		stall of restrict-diff's seed 1 (issue 15) to four SQEs.
 *
 * Usage: drain-repro BATCH...
 *   BATCH is one ring's SQEs, "op/flags" in hex (tests/drain-replay.h).
 *   E.g. on upstream 6.1:
 *
 *     drain-repro 0/0,0/0,0/2,ff/0
 *     0/0,0/0,0/2,ff/0    submitted 4 cqes 4:-22 1:0 2:0 STALLED, missing 3
 *
 *   two NOPs completed inline (posted together at the end of the
 *   submission), a drained NOP, an invalid opcode posted at once: the CQ
 *   tail goes 1, 3 and never equals the drained NOP's sequence, 2.
 *   tracing/drain-stall.bt shows the events in order; patch 0010 of
 *   kernel-patches/restrictions is the fix.
 *
 * Prints one line per batch and "# N of M batches stalled"; exits 0.
 */
#include "drain-replay.h"

int main(int argc, char *argv[])
{
	int i, stalls = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s OP/FLAGS[p],... ...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct io_uring ring;
		struct batch b;

		if (io_uring_queue_init(BATCH_MAX, &ring, 0)) {
			fprintf(stderr, "drain-repro: io_uring_queue_init failed\n");
			return 1;
		}
		if (replay_on(&ring, argv[i], &b)) {
			fprintf(stderr, "drain-repro: bad batch '%s'\n", argv[i]);
			return 2;
		}
		print_batch(stdout, argv[i], &b);
		stalls += stalled(&b);
		io_uring_queue_exit(&ring);
	}
	printf("# %d of %d batches stalled\n", stalls, argc - 1);
	return 0;
}
