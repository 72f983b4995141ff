/* SPDX-License-Identifier: MIT */
/*
 * Window markers for tracing/insn-count.c, the lab's QEMU plugin.
 *
 * A marker is an 8-byte NOP, `nopl 0x4c42000N(%rax,%rax,1)`: it does
 * nothing on any CPU, costs one instruction, and needs no register or
 * memory access for the plugin to read its command, which QEMU 7.2's
 * plugin API could not give it. The plugin recognises the bytes when it
 * translates the instruction and acts when the instruction executes.
 */
#ifndef LAB_MARKER_H
#define LAB_MARKER_H

#define LAB_MARK_MAGIC	0x4c420000u	/* "BL" in the high half */
#define LAB_MARK_START	1		/* open a counting window */
#define LAB_MARK_STOP	2		/* close it and write it out */
#define LAB_MARK_PROBE	3		/* open a window marked "probe": a
					 * check of the plugin, not a cell */

#define LAB_MARK_(n)							\
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x84, 0x00\n\t"	\
			     ".long 0x4c420000 + " #n ::: "memory")
/* one level more, so that LAB_MARK_START is expanded before # */
#define LAB_MARK(cmd)	LAB_MARK_(cmd)

#endif
