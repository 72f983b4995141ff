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
 *   window N user U kernel K
 *   ffffffff813138a0 1234
 *   ...
 *   end N
 *
 * tracing/attribute.py maps the addresses to functions with the kernel's
 * System.map (the lab boots with nokaslr). A window only counts when its
 * "end" line is there.
 *
 * Use: qemu-system-x86_64 -accel tcg -icount shift=0,sleep=off
 *        -plugin build/tracing/insn-count.so,out=FILE ...
 * One guest CPU: the counters are not atomic, and -icount runs one vCPU
 * at a time anyway.
 */
#include <inttypes.h>
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

struct slot {
	uint64_t addr;		/* 0: free */
	uint64_t count;		/* bumped by TCG code */
	uint64_t base;		/* count when the window opened */
};

static struct slot *slots;
static unsigned int used;
static uint64_t user_count, user_base;
static FILE *out;
static unsigned int window;
static int in_window;
static int full_reported;

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

static void window_open(void)
{
	unsigned int i;

	for (i = 0; i < SLOTS; i++)
		slots[i].base = slots[i].count;
	user_base = user_count;
	in_window = 1;
}

static void window_close(void)
{
	uint64_t kernel = 0;
	unsigned int i;

	if (!in_window) {
		fprintf(out, "# stop marker without a start: ignored\n");
		return;
	}
	for (i = 0; i < SLOTS; i++)
		kernel += slots[i].count - slots[i].base;
	fprintf(out, "window %u user %" PRIu64 " kernel %" PRIu64 "\n",
		window, user_count - user_base, kernel);
	for (i = 0; i < SLOTS; i++) {
		uint64_t d = slots[i].count - slots[i].base;

		if (d)
			fprintf(out, "%" PRIx64 " %" PRIu64 "\n", slots[i].addr, d);
	}
	fprintf(out, "end %u\n", window++);
	fflush(out);
	in_window = 0;
}

static void on_marker(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	if ((uintptr_t)udata == LAB_MARK_START)
		window_open();
	else
		window_close();
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
	return imm == LAB_MARK_START || imm == LAB_MARK_STOP ? imm : 0;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t addr = qemu_plugin_insn_vaddr(insn);
		uint64_t *counter = &user_count;
		unsigned int cmd;

		if (addr >= KERNEL_BASE) {
			struct slot *s = slot_of(addr);

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
	const char *path = NULL;
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	if (!path) {
		qemu_plugin_outs("insn-count: usage: -plugin insn-count.so,out=FILE\n");
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
	fprintf(out, "# insn-count: qemu plugin API %d..%d, target %s\n",
		info->version.min, info->version.cur, info->target_name);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
