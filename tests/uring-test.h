/* SPDX-License-Identifier: MIT */
/*
 * What the lab's io_uring tests (restrictions.c, restrict-diff.c,
 * restrict-stress.c, restrict-bypass.c) share: raw io_uring syscalls with errors as -errno, the kernel under
 * test, and the eventfd every refused SQE would write to.
 */
#ifndef LAB_URING_TEST_H
#define LAB_URING_TEST_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

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

#endif
