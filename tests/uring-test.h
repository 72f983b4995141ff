/* SPDX-License-Identifier: MIT */
/*
 * What the lab's io_uring tests (restrictions.c, restrict-diff.c,
 * restrict-stress.c, restrict-bypass.c, drain-order.c, bpf-filter.c,
 * task-restrict.c) share: raw io_uring syscalls with errors as -errno,
 * policy entries, the kernel under test, the eventfd every refused SQE
 * would write to, and running a check in a child of its own.
 */
#ifndef LAB_URING_TEST_H
#define LAB_URING_TEST_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/io_uring.h>

static inline int reg(int fd, unsigned int op, const void *arg,
		      unsigned int nr)
{
	int ret = syscall(__NR_io_uring_register, fd, op, arg, nr);

	return ret < 0 ? -errno : ret;
}

static inline int enter(int fd, unsigned int to_submit,
			unsigned int min_complete, unsigned int flags)
{
	int ret = syscall(__NR_io_uring_enter, fd, to_submit, min_complete,
			  flags, NULL, 0);

	return ret < 0 ? -errno : ret;
}

/*
 * The differential tests' random stream: xorshift64*, the same stream
 * from the same seed everywhere, and splitmix64 to give case N a stream
 * independent of every other case's
 */
static uint64_t rng_state;

static inline uint32_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dULL) >> 32);
}

/* splitmix64's output for case @id of stream @seed */
static inline uint64_t splitmix64(uint64_t seed, uint64_t id)
{
	uint64_t z = seed + (id + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void seed_case(uint64_t seed, uint64_t id)
{
	rng_state = splitmix64(seed, id) | 1;
}

/* true one time in @n */
static inline bool one_in(unsigned int n)
{
	return rnd() % n == 0;
}

/* one entry of an IORING_REGISTER_RESTRICTIONS policy */
static inline struct io_uring_restriction r_sqe_op(__u8 op)
{
	return (struct io_uring_restriction){
		.opcode = IORING_RESTRICTION_SQE_OP, .sqe_op = op };
}

static inline struct io_uring_restriction r_register_op(__u8 op)
{
	return (struct io_uring_restriction){
		.opcode = IORING_RESTRICTION_REGISTER_OP, .register_op = op };
}

/* @kind: IORING_RESTRICTION_SQE_FLAGS_ALLOWED or _REQUIRED */
static inline struct io_uring_restriction r_flags(__u16 kind, __u8 flags)
{
	return (struct io_uring_restriction){
		.opcode = kind, .sqe_flags = flags };
}

/* LAB_KERNEL=baseline: ring restrictions are absent */
static inline int feature(void)
{
	const char *k = getenv("LAB_KERNEL");

	return !k || strcmp(k, "baseline");
}

/* what a refused SQE would write: IORING_OP_WRITE of this to an eventfd */
static const uint64_t one __attribute__((unused)) = 1;

/* how many such writes reached @efd (0 if none) */
static inline int writes(int efd)
{
	uint64_t v = 0;

	if (read(efd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/* CAP_SYS_ADMIN gone from the effective and permitted sets: 0, or -1 */
static inline int drop_sys_admin(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[0].effective &= ~(1U << CAP_SYS_ADMIN);
	d[0].permitted &= ~(1U << CAP_SYS_ADMIN);
	return syscall(SYS_capset, &h, d);
}

/* run the block in a child: its exit status, or 100 for a signal */
#define IN_CHILD(...) ({					\
	pid_t __p = fork();					\
	int __st = 0;						\
	if (!__p) {						\
		__VA_ARGS__;					\
		_exit(0);					\
	}							\
	/* no child, or not ours: a failure, never a pass */	\
	__p < 0 || waitpid(__p, &__st, 0) != __p ? 101 :	\
	WIFEXITED(__st) ? WEXITSTATUS(__st) : 100;		\
})

/* in an IN_CHILD block: exit with @code unless @cond holds */
#define MUST(cond, code) do { if (!(cond)) _exit(code); } while (0)

#endif
