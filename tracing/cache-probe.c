// SPDX-License-Identifier: MIT
/*
 * cache-probe: access patterns whose cache misses are known, each in a
 * plugin window of its own (LAB_MARK_PROBE), so that a test can hold the
 * insn-count plugin's cache model (cache=1) to them.
 *
 * Each case reads one 8-byte word per 64-byte line of a buffer, front to
 * back, PASSES times, after one untimed pass that faults the pages in and
 * warms the caches. In an LRU cache a cyclic walk over more lines than
 * the cache holds misses on every access; over fewer, on none. With the
 * model's defaults (L1D 48 KiB, L2 2 MiB):
 *
 *   16 KiB   fits L1D                 L1D misses ~0, L2 misses ~0
 *   256 KiB  beyond L1D, inside L2    L1D misses ~all, L2 misses ~0
 *   8 MiB    beyond L2                L1D and L2 misses ~all
 *
 * One JSON line per case: {"case", "bytes", "passes", "reads"}; the
 * loop keeps its sum in a register, so the window's user accesses are
 * the reads and little else.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab-marker.h"

#define PASSES	4

static uint64_t walk(const volatile uint64_t *buf, size_t bytes, int passes)
{
	uint64_t sum = 0;
	int p;

	for (p = 0; p < passes; p++)
		for (size_t i = 0; i < bytes / 8; i += 64 / 8)
			sum += buf[i];
	return sum;
}

int main(void)
{
	static const struct { const char *name; size_t bytes; } cases[] = {
		{ "l1d-fit", 16 << 10 },
		{ "l2-fit", 256 << 10 },
		{ "l2-beyond", 8 << 20 },
	};
	uint64_t sink = 0;
	size_t c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t bytes = cases[c].bytes;
		uint64_t *buf = aligned_alloc(4096, bytes);

		if (!buf) {
			perror("cache-probe: aligned_alloc");
			return 1;
		}
		memset(buf, 1, bytes);
		sink += walk(buf, bytes, 1);
		LAB_MARK(LAB_MARK_PROBE);
		sink += walk(buf, bytes, PASSES);
		LAB_MARK(LAB_MARK_STOP);
		printf("{\"case\": \"%s\", \"bytes\": %zu, \"passes\": %d, "
		       "\"reads\": %zu}\n", cases[c].name, bytes, PASSES,
		       bytes / 64 * PASSES);
		free(buf);
	}
	return sink == 42;	/* keep the sums */
}
