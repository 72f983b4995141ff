/* SPDX-License-Identifier: MIT */
/*
 * Description: uring-policy -c|-j|-n FILE: a bench/uring-restrict policy
 *		file as a C header (-c) or JSON (-j) that a program or a
 *		runtime registers itself, with liburing's calls, on rings it
 *		sets up with IORING_SETUP_R_DISABLED; -n checks it only.
 *		The programs are the ones uring-restrict registers: one
 *		policy, one compiler (uring-policy.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/io_uring.h>
#include <linux/io_uring/bpf_filter.h>
#include "uring-policy.h"

static struct policy policy;
static struct sock_filter prog[POLICY_MAX_PROG];

static unsigned int res_value(const struct io_uring_restriction *e)
{
	return e->opcode == IORING_RESTRICTION_REGISTER_OP ? e->register_op :
		e->opcode == IORING_RESTRICTION_SQE_OP ? e->sqe_op : e->sqe_flags;
}

static const char *const res_field[] = {
	"register_op", "sqe_op", "sqe_flags", "sqe_flags",
};

static void emit_c(const char *file)
{
	unsigned char ops[256];
	unsigned int s, i, j, n, len;

	printf("/* SPDX-License-Identifier: MIT */\n"
	       "/*\n * The io_uring policy of %s, as C: bench/uring-policy -c wrote it.\n"
	       " * Set a ring up with IORING_SETUP_R_DISABLED, then\n"
	       " *   uring_policy_apply(&ring, N)   N: the ring's number, from 1, in the\n"
	       " *                                  order the process sets its rings up\n"
	       " * registers ring N's filters (IORING_REGISTER_BPF_FILTER, kernels that\n"
	       " * have it; allow_only 1 leaves them out) and allow-lists, and enables it.\n"
	       " * Returns 0 or -errno. Needs liburing and <linux/io_uring/bpf_filter.h>.\n */\n"
	       "#ifndef URING_POLICY_GENERATED_H\n#define URING_POLICY_GENERATED_H\n\n"
	       "#include <errno.h>\n#include <stdint.h>\n#include <linux/filter.h>\n"
	       "#include <linux/io_uring.h>\n#include <linux/io_uring/bpf_filter.h>\n"
	       "#include <liburing.h>\n\n", file);
	printf("struct uring_policy_filter {\n\t__u8 opcode, pdu_size, deny_rest;\n"
	       "\t__u16 len;\n\tconst struct sock_filter *prog;\n};\n\n"
	       "struct uring_policy_ring {\n\tunsigned int lo, hi;\n"
	       "\tconst struct io_uring_restriction *res;\n\tunsigned int nr_res;\n"
	       "\tconst struct uring_policy_filter *filters;\n\tunsigned int nr_filters;\n};\n\n");
	for (s = 0; s < policy.nr_rings; s++) {
		const struct policy_ring *r = &policy.ring[s];

		printf("static const struct io_uring_restriction uring_policy_res%u[] = {\n", s);
		for (i = 0; i < r->nr_res; i++)
			printf("\t{ .opcode = %u, .%s = %u },\n", r->res[i].opcode,
			       res_field[r->res[i].opcode], res_value(&r->res[i]));
		if (!r->nr_res)
			printf("\t{ .opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED },\n");
		printf("};\n\n");
		n = policy_filter_ops(r, ops);
		for (j = 0; j < n; j++) {
			len = policy_prog(r, ops[j], prog);
			printf("/* %s */\nstatic const struct sock_filter uring_policy_prog%u_%u[] = {\n",
			       policy_sqe_op_name(ops[j]) ?: "?", s, ops[j]);
			for (i = 0; i < len; i++)
				printf("\t{ 0x%02x, %u, %u, 0x%08x },\n", prog[i].code,
				       prog[i].jt, prog[i].jf, prog[i].k);
			printf("};\n\n");
		}
		printf("static const struct uring_policy_filter uring_policy_filters%u[] = {\n", s);
		for (j = 0; j < n; j++)
			printf("\t{ %u, %u, %u, %u, uring_policy_prog%u_%u },\n", ops[j],
			       policy_pdu_size(ops[j]), j == n - 1,
			       policy_prog(r, ops[j], prog), s, ops[j]);
		if (!n)
			printf("\t{ 0 },\n");
		printf("};\n\n");
	}
	printf("static const struct uring_policy_ring uring_policy_rings[] = {\n");
	for (s = 0; s < policy.nr_rings; s++) {
		const struct policy_ring *r = &policy.ring[s];

		printf("\t{ %u, %uU, uring_policy_res%u, %u, uring_policy_filters%u, %u },\n",
		       r->lo, r->hi, s, r->nr_res ?: 1, s, policy_filter_ops(r, ops));
	}
	printf("};\n\n");
	printf("static inline int uring_policy_apply_filters(struct io_uring *ring, unsigned int nr,\n"
	       "\t\t\t\t\t     int allow_only)\n{\n"
	       "\tstatic const struct io_uring_restriction nothing = {\n"
	       "\t\t.opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED,\n\t};\n"
	       "\tconst struct uring_policy_ring *r = NULL;\n\tunsigned int i;\n\tint ret;\n\n"
	       "\tfor (i = 0; i < sizeof(uring_policy_rings) / sizeof(*uring_policy_rings); i++)\n"
	       "\t\tif (nr >= uring_policy_rings[i].lo && nr <= uring_policy_rings[i].hi)\n"
	       "\t\t\tr = &uring_policy_rings[i];\n"
	       "\tif (!r)\n\t\treturn io_uring_register_restrictions(ring,\n"
	       "\t\t\t(struct io_uring_restriction *)&nothing, 1) ?: io_uring_enable_rings(ring);\n"
	       "\tfor (i = 0; !allow_only && i < r->nr_filters; i++) {\n"
	       "\t\tstruct io_uring_bpf b = {\n\t\t\t.cmd_type = IO_URING_BPF_CMD_FILTER,\n"
	       "\t\t\t.filter = {\n\t\t\t\t.opcode = r->filters[i].opcode,\n"
	       "\t\t\t\t.flags = r->filters[i].deny_rest ? IO_URING_BPF_FILTER_DENY_REST : 0,\n"
	       "\t\t\t\t.filter_len = r->filters[i].len,\n"
	       "\t\t\t\t.pdu_size = r->filters[i].pdu_size,\n"
	       "\t\t\t\t.filter_ptr = (uintptr_t)r->filters[i].prog,\n\t\t\t},\n\t\t};\n\n"
	       "\t\tret = io_uring_register(ring->ring_fd, IORING_REGISTER_BPF_FILTER, &b, 1);\n"
	       "\t\tif (ret < 0)\n\t\t\treturn ret;\n\t}\n"
	       "\tret = io_uring_register_restrictions(ring,\n"
	       "\t\t(struct io_uring_restriction *)r->res, r->nr_res);\n"
	       "\treturn ret ?: io_uring_enable_rings(ring);\n}\n\n"
	       "static inline int uring_policy_apply(struct io_uring *ring, unsigned int nr)\n{\n"
	       "\treturn uring_policy_apply_filters(ring, nr, 0);\n}\n\n#endif\n");
}

static void emit_json(const char *file)
{
	unsigned char ops[256];
	unsigned int s, i, j, n, len;

	printf("{\n  \"source\": \"%s\",\n  \"rings\": [", file);
	for (s = 0; s < policy.nr_rings; s++) {
		const struct policy_ring *r = &policy.ring[s];

		printf("%s\n    {\n      \"first\": %u, \"last\": %u,\n      \"restrictions\": [",
		       s ? "," : "", r->lo, r->hi);
		for (i = 0; i < r->nr_res; i++)
			printf("%s{\"opcode\": %u, \"%s\": %u}", i ? ", " : "",
			       r->res[i].opcode, res_field[r->res[i].opcode], res_value(&r->res[i]));
		printf("],\n      \"filters\": [");
		n = policy_filter_ops(r, ops);
		for (j = 0; j < n; j++) {
			len = policy_prog(r, ops[j], prog);
			printf("%s\n        {\"opcode\": %u, \"name\": \"%s\", \"flags\": %u, \"pdu_size\": %u, \"program\": [",
			       j ? "," : "", ops[j], policy_sqe_op_name(ops[j]) ?: "?",
			       j == n - 1 ? IO_URING_BPF_FILTER_DENY_REST : 0,
			       policy_pdu_size(ops[j]));
			for (i = 0; i < len; i++)
				printf("%s[%u, %u, %u, %u]", i ? ", " : "", prog[i].code,
				       prog[i].jt, prog[i].jf, prog[i].k);
			printf("]}");
		}
		printf("%s]\n    }", n ? "\n      " : "");
	}
	printf("\n  ],\n  \"unlisted_rings\": \"%s\"\n}\n",
	       policy.sections ? "restricted to nothing" : "none: the one section applies to every ring");
}

int main(int argc, char **argv)
{
	char err[512], *text = NULL;
	size_t len = 0;
	FILE *f;

	if (argc != 3 || argv[1][0] != '-' || !strchr("cjn", argv[1][1])) {
		fprintf(stderr, "usage: uring-policy -c|-j|-n POLICY-FILE\n");
		return 2;
	}
	f = fopen(argv[2], "r");
	if (!f) {
		fprintf(stderr, "uring-policy: cannot read %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	if (getdelim(&text, &len, '\0', f) < 0)
		text = strdup("");
	fclose(f);
	if (policy_parse(&policy, text, argv[2], err, sizeof(err))) {
		fprintf(stderr, "uring-policy: bad policy: %s\n", err);
		return 2;
	}
	if (argv[1][1] == 'c')
		emit_c(argv[2]);
	else if (argv[1][1] == 'j')
		emit_json(argv[2]);
	free(text);
	return 0;
}
