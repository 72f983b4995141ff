/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * insn-count: a QEMU TCG plugin that counts the guest instructions each
 * kernel instruction address executes inside marked windows.
 *
 * Why: under -icount shift=0 the lab's benchmarks read cost as guest
 * instructions per op, but neither perf (sampling on a software clock)
 * nor bpftrace (probes that cost more than what they measure) can say
 * which function those instructions run in. QEMU itself executes every
 * guest instruction, so a counter per instruction is exact.
 *
 * How: every kernel instruction (vaddr in the upper half) gets a 64-bit
 * counter, bumped by inline TCG code before it executes; all user-space
 * instructions share one counter. A user program opens and closes a
 * window with the 8-byte NOPs of tracing/lab-marker.h; at the close the
 * plugin appends the window's per-address deltas to the output file:
 *
 *   window N user U kernel K [probe]
 *   ffffffff813138a0 1234
 *   ...
 *   end N
 *
 * uringlab/attribution.py maps the addresses to functions with the kernel's
 * System.map (the lab boots with nokaslr). A window only counts when its
 * "end" line is there.
 *
 * With cache=1 the plugin also sees every data access (QEMU's memory
 * callbacks), because -icount cannot: an SQE that costs no instruction
 * more may still cost a cache line more, and a line missed costs a
 * server core tens of cycles. Each access goes through a model of a
 * set-associative, write-allocate, LRU L1D and a non-inclusive L2,
 * indexed by guest physical address (what real caches past L1 use; L1's
 * index bits lie inside the page offset at these sizes). The defaults,
 * l1d=48:12 (KiB:ways) and l2=2048:16 with 64-byte lines, are one
 * Golden Cove core (Intel Xeon 4th gen, "Sapphire Rapids"); MMIO does
 * not go through the model. A window then also writes
 *
 *   mem user A M1 M2 kernel A M1 M2 lines D
 *   ffffffff813138a0 1234 A M1 M2        (accesses, L1D and L2 misses)
 *   line ffff888003c1a040 ffffffff813138a0 N M1
 *
 * the last once per distinct 64-byte virtual line and kernel instruction
 * that touched it in the window (N accesses, M1 of them L1D misses), so
 * that uringlab/attribution.py can say which lines of which object each
 * function touched; lines=0 leaves them out (make check needs the totals
 * only).
 *
 * Use: qemu-system-x86_64 -accel tcg -icount shift=0,sleep=off
 *        -plugin build/tracing/insn-count.so,out=FILE ...
 * One guest CPU: the counters are not atomic, and -icount runs one vCPU
 * at a time anyway.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-7.2.h"
#include "lab-marker.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define KERNEL_BASE	0xffff800000000000ull
/*
 * A boot and the lab's workloads execute well under 200k distinct kernel
 * instructions; counters never move once handed out (TCG code holds
 * their addresses), so the table is sized once.
 */
#define SLOTS		(1u << 21)

struct mem_stat {
	uint64_t acc, l1_miss, l2_miss;
};

struct slot {
	uint64_t addr;		/* 0: free */
	uint64_t count;		/* bumped by TCG code */
	uint64_t base;		/* count when the window opened */
	struct mem_stat mem, mem_base;
};

static struct slot *slots;
static unsigned int used;
static uint64_t user_count, user_base;
static FILE *out;
static unsigned int window;
static int in_window;
static bool probe_window;
static int full_reported;

/* the cache model (cache=1) */
#define LINE_SHIFT	6

struct cache {
	unsigned int sets, ways;
	uint64_t *tag;		/* sets * ways; line number + 1, 0: empty */
	uint64_t *stamp;	/* last use, for LRU */
	uint64_t clock;
};

static bool model;
static bool list_lines = true;	/* lines=0: totals only (make check) */
static struct cache l1d, l2;
static struct mem_stat user_mem, user_mem_base;

/*
 * Distinct (virtual line, kernel instruction) pairs of the open window.
 * A window of the lab's cells touches some thousands; when the table
 * fills, later pairs are dropped and the window says so.
 */
#define PAIRS		(1u << 20)

struct pair {
	uint64_t line;		/* virtual line number + 1, 0: free */
	struct slot *slot;
	uint64_t n, l1_miss;
};

static struct pair *pairs;
static unsigned int *pairs_used;
static unsigned int n_pairs, pairs_lost;

static int cache_init(struct cache *c, const char *name, unsigned int kib,
		      unsigned int ways)
{
	unsigned int lines = (kib << 10) >> LINE_SHIFT;

	if (!ways || !lines || lines % ways) {
		char msg[128];

		snprintf(msg, sizeof(msg), "insn-count: %s: %u KiB in %u ways "
			 "does not make whole sets of 64-byte lines\n",
			 name, kib, ways);
		qemu_plugin_outs(msg);
		return -1;
	}
	c->sets = lines / ways;
	c->ways = ways;
	c->tag = calloc(lines, sizeof(*c->tag));
	c->stamp = calloc(lines, sizeof(*c->stamp));
	return c->tag && c->stamp ? 0 : -1;
}

/* true on a hit; a miss fills the line, evicting the set's LRU way */
static bool cache_access(struct cache *c, uint64_t line)
{
	unsigned int set = line % c->sets, w, victim = 0;
	uint64_t *tag = c->tag + (size_t)set * c->ways;
	uint64_t *stamp = c->stamp + (size_t)set * c->ways;

	c->clock++;
	for (w = 0; w < c->ways; w++) {
		if (tag[w] == line + 1) {
			stamp[w] = c->clock;
			return true;
		}
		if (stamp[w] < stamp[victim])
			victim = w;
	}
	tag[victim] = line + 1;
	stamp[victim] = c->clock;
	return false;
}

static void pair_add(uint64_t vline, struct slot *s, bool l1_miss)
{
	uint64_t h = (vline ^ ((uintptr_t)s >> 4) * 0x9e3779b97f4a7c15ull) *
		     0xff51afd7ed558ccdull;
	unsigned int i = (unsigned int)(h >> 40) & (PAIRS - 1);

	for (;;) {
		struct pair *p = &pairs[i];

		if (p->line == vline + 1 && p->slot == s) {
			p->n++;
			p->l1_miss += l1_miss;
			return;
		}
		if (!p->line) {
			if (n_pairs >= PAIRS - PAIRS / 8) {
				pairs_lost++;
				return;
			}
			p->line = vline + 1;
			p->slot = s;
			p->n = 1;
			p->l1_miss = l1_miss;
			pairs_used[n_pairs++] = i;
			return;
		}
		i = (i + 1) & (PAIRS - 1);
	}
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	unsigned int size = 1u << qemu_plugin_mem_size_shift(info);
	struct slot *s = udata;
	struct mem_stat *st = s ? &s->mem : &user_mem;
	uint64_t pa, line, last;
	bool miss = false;

	(void)vcpu;
	if (hw && qemu_plugin_hwaddr_is_io(hw))
		return;
	pa = hw ? qemu_plugin_hwaddr_phys_addr(hw) : vaddr;
	/* an access that straddles two lines touches both */
	last = (pa + size - 1) >> LINE_SHIFT;
	for (line = pa >> LINE_SHIFT; line <= last; line++) {
		st->acc++;
		if (!cache_access(&l1d, line)) {
			miss = true;
			st->l1_miss++;
			if (!cache_access(&l2, line))
				st->l2_miss++;
		}
	}
	/* listed by the virtual line of its first byte */
	if (s && in_window && list_lines)
		pair_add(vaddr >> LINE_SHIFT, s, miss);
}

static struct slot *slot_of(uint64_t addr)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ull;
	unsigned int i = (unsigned int)(h >> 43) & (SLOTS - 1);

	for (;;) {
		struct slot *s = &slots[i];

		if (s->addr == addr)
			return s;
		if (!s->addr) {
			if (used >= SLOTS - SLOTS / 8)
				return NULL;
			s->addr = addr;
			used++;
			return s;
		}
		i = (i + 1) & (SLOTS - 1);
	}
}

static void window_open(bool probe)
{
	unsigned int i;

	for (i = 0; i < SLOTS; i++) {
		slots[i].base = slots[i].count;
		slots[i].mem_base = slots[i].mem;
	}
	user_base = user_count;
	user_mem_base = user_mem;
	probe_window = probe;
	for (i = 0; i < n_pairs; i++)
		pairs[pairs_used[i]].line = 0;
	n_pairs = pairs_lost = 0;
	in_window = 1;
}

static void window_close(void)
{
	struct mem_stat km = { 0 };
	uint64_t kernel = 0;
	unsigned int i;

	if (!in_window) {
		fprintf(out, "# stop marker without a start: ignored\n");
		return;
	}
	for (i = 0; i < SLOTS; i++) {
		kernel += slots[i].count - slots[i].base;
		km.acc += slots[i].mem.acc - slots[i].mem_base.acc;
		km.l1_miss += slots[i].mem.l1_miss - slots[i].mem_base.l1_miss;
		km.l2_miss += slots[i].mem.l2_miss - slots[i].mem_base.l2_miss;
	}
	fprintf(out, "window %u user %" PRIu64 " kernel %" PRIu64 "%s\n",
		window, user_count - user_base, kernel,
		probe_window ? " probe" : "");
	if (model) {
		fprintf(out, "mem user %" PRIu64 " %" PRIu64 " %" PRIu64
			" kernel %" PRIu64 " %" PRIu64 " %" PRIu64 " lines %u\n",
			user_mem.acc - user_mem_base.acc,
			user_mem.l1_miss - user_mem_base.l1_miss,
			user_mem.l2_miss - user_mem_base.l2_miss,
			km.acc, km.l1_miss, km.l2_miss, n_pairs);
		if (pairs_lost)
			fprintf(out, "# %u (line, instruction) pairs beyond the "
				"table: not listed\n", pairs_lost);
	}
	for (i = 0; i < SLOTS; i++) {
		struct slot *s = &slots[i];
		uint64_t d = s->count - s->base;

		if (!d && s->mem.acc == s->mem_base.acc)
			continue;
		fprintf(out, "%" PRIx64 " %" PRIu64, s->addr, d);
		if (model)
			fprintf(out, " %" PRIu64 " %" PRIu64 " %" PRIu64,
				s->mem.acc - s->mem_base.acc,
				s->mem.l1_miss - s->mem_base.l1_miss,
				s->mem.l2_miss - s->mem_base.l2_miss);
		fputc('\n', out);
	}
	for (i = 0; i < n_pairs; i++) {
		const struct pair *p = &pairs[pairs_used[i]];

		fprintf(out, "line %" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
			(p->line - 1) << LINE_SHIFT, p->slot->addr, p->n,
			p->l1_miss);
	}
	fprintf(out, "end %u\n", window++);
	fflush(out);
	in_window = 0;
}

static void on_marker(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	if ((uintptr_t)udata == LAB_MARK_STOP)
		window_close();
	else
		window_open((uintptr_t)udata == LAB_MARK_PROBE);
}

/* the 8-byte NOP of lab-marker.h, or 0 */
static unsigned int marker_cmd(const struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	uint32_t imm;

	if (qemu_plugin_insn_size(insn) != 8 ||
	    b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x84 || b[3] != 0x00)
		return 0;
	memcpy(&imm, b + 4, 4);
	if ((imm & 0xffff0000u) != LAB_MARK_MAGIC)
		return 0;
	imm &= 0xffff;
	return imm >= LAB_MARK_START && imm <= LAB_MARK_PROBE ? imm : 0;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t addr = qemu_plugin_insn_vaddr(insn);
		uint64_t *counter = &user_count;
		struct slot *s = NULL;
		unsigned int cmd;

		if (addr >= KERNEL_BASE) {
			s = slot_of(addr);
			if (!s) {
				if (!full_reported++)
					qemu_plugin_outs("insn-count: address table full, "
							 "later kernel addresses count as user\n");
			} else {
				counter = &s->count;
			}
		} else if ((cmd = marker_cmd(insn))) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)cmd);
		}
		qemu_plugin_register_vcpu_insn_exec_inline(insn,
							   QEMU_PLUGIN_INLINE_ADD_U64,
							   counter, 1);
		if (model)
			qemu_plugin_register_vcpu_mem_cb(insn, on_mem,
							 QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW, s);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	if (in_window)
		fprintf(out, "# guest stopped inside window %u: not written\n", window);
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	unsigned int l1_kib = 48, l1_ways = 12, l2_kib = 2048, l2_ways = 16;
	const char *path = NULL;
	int i, bad = 0;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
		else if (!strcmp(argv[i], "cache=1"))
			model = true;
		else if (!strcmp(argv[i], "cache=0"))
			model = false;
		else if (!strcmp(argv[i], "lines=0"))
			list_lines = false;
		else if (!strncmp(argv[i], "l1d=", 4))
			bad |= sscanf(argv[i] + 4, "%u:%u", &l1_kib, &l1_ways) != 2;
		else if (!strncmp(argv[i], "l2=", 3))
			bad |= sscanf(argv[i] + 3, "%u:%u", &l2_kib, &l2_ways) != 2;
		else
			bad = 1;
	}
	if (!path || bad) {
		qemu_plugin_outs("insn-count: usage: -plugin insn-count.so,out=FILE"
				 "[,cache=1[,l1d=KIB:WAYS][,l2=KIB:WAYS][,lines=0]]\n");
		return -1;
	}
	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		qemu_plugin_outs("insn-count: needs qemu-system-x86_64\n");
		return -1;
	}
	if (info->system.smp_vcpus != 1) {
		qemu_plugin_outs("insn-count: needs exactly one guest CPU (-smp 1)\n");
		return -1;
	}
	slots = calloc(SLOTS, sizeof(*slots));
	out = fopen(path, "w");
	if (!slots || !out) {
		qemu_plugin_outs("insn-count: cannot allocate the table or open out=\n");
		return -1;
	}
	if (model) {
		pairs = calloc(PAIRS, sizeof(*pairs));
		pairs_used = calloc(PAIRS, sizeof(*pairs_used));
		if (!pairs || !pairs_used || cache_init(&l1d, "l1d", l1_kib, l1_ways) ||
		    cache_init(&l2, "l2", l2_kib, l2_ways))
			return -1;
	}
	fprintf(out, "# insn-count: qemu plugin API %d..%d, target %s\n",
		info->version.min, info->version.cur, info->target_name);
	if (model)
		fprintf(out, "# cache model: l1d %u KiB %u-way, l2 %u KiB %u-way, "
			"64-byte lines, LRU, physically indexed\n",
			l1_kib, l1_ways, l2_kib, l2_ways);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
