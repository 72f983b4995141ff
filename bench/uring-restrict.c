/* SPDX-License-Identifier: MIT */
/*
 * Description: LD_PRELOAD library that makes an unmodified program's
 *		io_uring rings restricted. Each io_uring_setup() the program
 *		makes through libc's syscall() (fio does) or through the
 *		io_uring_setup() symbol is turned into: setup with
 *		IORING_SETUP_R_DISABLED, IORING_REGISTER_RESTRICTIONS with
 *		the policy, IORING_REGISTER_ENABLE_RINGS; the program gets
 *		the enabled, restricted ring back.
 *
 * Use it through bench/uring-restrict, which validates the policy first.
 * The policy is read from URING_RESTRICT when the library loads; a bad
 * one stops the program before its main() runs, with the reason.
 *
 * Policy: ITEM[;ITEM]..., each ITEM one of
 *   sqe_op=OP[,OP]...               allowed SQE opcodes (read_fixed, nop, 22)
 *   register_op=OP[,OP]...          allowed io_uring_register opcodes
 *                                   (register_files, register_probe, 2)
 *   sqe_flags_allowed=FLAG[,FLAG]   flags an SQE may carry (fixed_file, ...)
 *   sqe_flags_required=FLAG[,FLAG]  flags every SQE must carry
 * Names are the uapi's without the IORING_OP_, IORING_ or IOSQE_ prefix,
 * in any case; numbers are taken as they are.
 *
 * What it cannot reach: rings set up by inline system calls (liburing
 * 2.2 and later on x86 never calls libc's syscall()). A ring the program
 * asked to start disabled gets the policy but stays disabled: enabling
 * it remains the program's job.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/io_uring.h>

#define MAX_RES 256

static const char *const sqe_ops[] = {
	"nop", "readv", "writev", "fsync", "read_fixed", "write_fixed",
	"poll_add", "poll_remove", "sync_file_range", "sendmsg", "recvmsg",
	"timeout", "timeout_remove", "accept", "async_cancel", "link_timeout",
	"connect", "fallocate", "openat", "close", "files_update", "statx",
	"read", "write", "fadvise", "madvise", "send", "recv", "openat2",
	"epoll_ctl", "splice", "provide_buffers", "remove_buffers", "tee",
	"shutdown", "renameat", "unlinkat", "mkdirat", "symlinkat", "linkat",
	"msg_ring", "fsetxattr", "setxattr", "fgetxattr", "getxattr", "socket",
	"uring_cmd", "send_zc", "sendmsg_zc", NULL
};

static const char *const register_ops[] = {
	"register_buffers", "unregister_buffers", "register_files",
	"unregister_files", "register_eventfd", "unregister_eventfd",
	"register_files_update", "register_eventfd_async", "register_probe",
	"register_personality", "unregister_personality",
	"register_restrictions", "register_enable_rings", "register_files2",
	"register_files_update2", "register_buffers2",
	"register_buffers_update", "register_iowq_aff", "unregister_iowq_aff",
	"register_iowq_max_workers", "register_ring_fds",
	"unregister_ring_fds", "register_pbuf_ring", "unregister_pbuf_ring",
	"register_sync_cancel", "register_file_alloc_range", NULL
};

static const char *const sqe_flags[] = {
	"fixed_file", "io_drain", "io_link", "io_hardlink", "async",
	"buffer_select", "cqe_skip_success", NULL
};

static struct io_uring_restriction res[MAX_RES];
static unsigned int nr_res;
static int verbose;
static long (*real_syscall)(long, ...);

static void __attribute__((noreturn)) bad_policy(const char *policy,
						  const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "uring-restrict: bad policy '%s': ", policy);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	_exit(2);
}

/* A name from @names, or a number below @limit: its value, else -1. */
static long lookup(const char *word, const char *const *names, long limit)
{
	char *end;
	long v;
	int i;

	for (i = 0; names[i]; i++)
		if (!strcasecmp(word, names[i]))
			return i;
	v = strtol(word, &end, 0);
	if (*word && !*end && v >= 0 && v < limit)
		return v;
	return -1;
}

static void add(const char *policy, __u16 opcode, __u8 value)
{
	if (nr_res == MAX_RES)
		bad_policy(policy, "more than %d entries", MAX_RES);
	res[nr_res].opcode = opcode;
	if (opcode == IORING_RESTRICTION_REGISTER_OP)
		res[nr_res].register_op = value;
	else if (opcode == IORING_RESTRICTION_SQE_OP)
		res[nr_res].sqe_op = value;
	else
		res[nr_res].sqe_flags = value;
	nr_res++;
}

static void parse_policy(const char *policy)
{
	char *copy = strdup(policy), *item, *save_item, *word, *save_word;
	int seen_allowed = 0, seen_required = 0;

	if (!copy)
		bad_policy(policy, "out of memory");
	for (item = strtok_r(copy, ";", &save_item); item;
	     item = strtok_r(NULL, ";", &save_item)) {
		char *eq = strchr(item, '=');
		const char *const *names;
		__u16 opcode;
		unsigned int flags = 0;
		long limit, v;

		while (*item == ' ')
			item++;
		if (!eq)
			bad_policy(policy, "'%s' is not KEY=VALUE", item);
		*eq = '\0';
		if (!strcmp(item, "sqe_op")) {
			opcode = IORING_RESTRICTION_SQE_OP;
			names = sqe_ops;
			limit = 256;
		} else if (!strcmp(item, "register_op")) {
			opcode = IORING_RESTRICTION_REGISTER_OP;
			names = register_ops;
			limit = 256;
		} else if (!strcmp(item, "sqe_flags_allowed")) {
			opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
			names = sqe_flags;
			limit = 8;
			if (seen_allowed++)
				bad_policy(policy, "sqe_flags_allowed given twice");
		} else if (!strcmp(item, "sqe_flags_required")) {
			opcode = IORING_RESTRICTION_SQE_FLAGS_REQUIRED;
			names = sqe_flags;
			limit = 8;
			if (seen_required++)
				bad_policy(policy, "sqe_flags_required given twice");
		} else {
			bad_policy(policy, "unknown key '%s' (sqe_op, register_op, sqe_flags_allowed, sqe_flags_required)",
				   item);
		}
		for (word = strtok_r(eq + 1, ",", &save_word); word;
		     word = strtok_r(NULL, ",", &save_word)) {
			v = lookup(word, names, limit);
			if (v < 0)
				bad_policy(policy, "'%s' is not a known %s", word,
					   names == sqe_ops ? "SQE opcode (nop, read_fixed, ...)" :
					   names == register_ops ? "register opcode (register_files, ...)" :
					   "SQE flag (fixed_file, io_link, ...)");
			if (opcode == IORING_RESTRICTION_SQE_OP ||
			    opcode == IORING_RESTRICTION_REGISTER_OP)
				add(policy, opcode, v);
			else
				flags |= 1U << v;
		}
		if (opcode == IORING_RESTRICTION_SQE_FLAGS_ALLOWED ||
		    opcode == IORING_RESTRICTION_SQE_FLAGS_REQUIRED)
			add(policy, opcode, flags);
	}
	free(copy);
}

/* Lazily too: other libraries' constructors may call syscall() first. */
static void resolve(void)
{
	if (real_syscall)
		return;
	real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (!real_syscall) {
		fprintf(stderr, "uring-restrict: cannot find libc's syscall(): %s\n", dlerror());
		_exit(2);
	}
}

__attribute__((constructor)) static void uring_restrict_init(void)
{
	const char *policy = getenv("URING_RESTRICT");

	resolve();
	if (!policy) {
		fprintf(stderr, "uring-restrict: URING_RESTRICT is not set: no policy to apply\n");
		_exit(2);
	}
	verbose = getenv("URING_RESTRICT_VERBOSE") != NULL;
	parse_policy(policy);
}

/*
 * Programs retry io_uring_setup() without flags the kernel refuses (fio
 * drops DEFER_TASKRUN and friends on EINVAL): only say that restrictions
 * are missing when a bare R_DISABLED ring is refused too.
 */
static int kernel_has_r_disabled(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_R_DISABLED };
	long fd = real_syscall(__NR_io_uring_setup, 1, &p);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static long restricted_setup(unsigned int entries, struct io_uring_params *p)
{
	int wanted_disabled = p && (p->flags & IORING_SETUP_R_DISABLED);
	long fd, ret;
	int err;

	resolve();
	if (!p) {
		errno = EFAULT;
		return -1;
	}
	p->flags |= IORING_SETUP_R_DISABLED;
	fd = real_syscall(__NR_io_uring_setup, entries, p);
	if (fd < 0) {
		err = errno;
		if (err == EINVAL && !wanted_disabled && !kernel_has_r_disabled())
			fprintf(stderr, "uring-restrict: this kernel has no IORING_SETUP_R_DISABLED: it cannot restrict rings\n");
		if (!wanted_disabled)
			p->flags &= ~IORING_SETUP_R_DISABLED;
		errno = err;
		return -1;
	}
	ret = real_syscall(__NR_io_uring_register, fd,
			   IORING_REGISTER_RESTRICTIONS, res, nr_res);
	if (ret >= 0 && !wanted_disabled)
		ret = real_syscall(__NR_io_uring_register, fd,
				   IORING_REGISTER_ENABLE_RINGS, NULL, 0);
	if (ret < 0) {
		err = errno;
		fprintf(stderr, "uring-restrict: the kernel refused the policy: %s\n",
			strerror(err));
		close(fd);
		errno = err;
		return -1;
	}
	if (!wanted_disabled)
		p->flags &= ~IORING_SETUP_R_DISABLED;
	if (verbose)
		fprintf(stderr, "uring-restrict: ring fd %ld restricted (%u entries)%s\n",
			fd, nr_res, wanted_disabled ? ", left disabled" : "");
	return fd;
}

long syscall(long nr, ...)
{
	long a[6];
	va_list ap;
	int i;

	/* x86-64 passes variadic longs in the argument registers: reading
	 * six, as libc's own syscall() does, is safe whatever was passed. */
	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	resolve();
	if (nr == __NR_io_uring_setup)
		return restricted_setup(a[0], (struct io_uring_params *)a[1]);
	return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int io_uring_setup(unsigned int entries, struct io_uring_params *p)
{
	long fd = restricted_setup(entries, p);

	return fd < 0 ? -errno : fd;
}
