// SPDX-License-Identifier: MIT
/*
 * Description: IOSQE_IO_DRAIN with failures submitted after the drain
 *		(issue 15). 6.1 runs a drained request when the CQ tail
 *		equals the number of SQEs before it, and posts a failure
 *		submitted after it at once, so the tail counts a CQE the
 *		drain does not wait for: the drained request runs early, or
 *		never when CQEs post in batches and the tail steps over its
 *		number. Patch 0010 holds such failures behind the drain;
 *		0011 counts a zero-copy send's second CQE, 0012 the link
 *		CQEs a failed skip-flagged head suppresses, and 0013 makes
 *		no implied drain once CQE_SKIP_SUCCESS was seen.
 *
 *		On patched every CQE comes, and the drained SQE's after the
 *		CQE of every SQE before it. On upstream and baseline (6.1 as
 *		shipped) the known bug is what the test expects: the cases
 *		that stall must stall, so a change in 6.1 shows here.
 *
 * Usage: LAB_KERNEL=baseline|patched|upstream drain-order
 *
 * Runs on the kernel tree's kselftest harness (TAP, a child per test).
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "drain-replay.h"
#include "uring-test.h"

/* the kernels that carry patch 0010 */
static bool fixed(void)
{
	const char *k = getenv("LAB_KERNEL");

	return k && !strcmp(k, "patched");
}

static void log_batch(struct __test_metadata *_metadata, const char *spec,
		      const struct batch *b)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	ASSERT_NE(NULL, f);
	print_batch(f, spec, b);
	fclose(f);
	TH_LOG("%.*s", (int)len - 1, line);
	free(line);
}

/* SQE @drain's CQE came after the CQE of every SQE before it */
static bool drain_kept(const struct batch *b, unsigned int drain)
{
	int at = arrival(b, drain);
	unsigned int ud;

	if (at < 0)
		return false;
	for (ud = 1; ud < drain; ud++) {
		if (!(b->must & (1ULL << (ud - 1))) && arrival(b, ud) < 0)
			continue;
		if (arrival(b, ud) < 0 || arrival(b, ud) > at)
			return false;
	}
	return true;
}

/*
 * What 6.1 as shipped does with a case: STALL (deterministic here: no
 * io-wq, no timing) or ANY (an order that depends on task_work order,
 * logged but not judged).
 */
enum bug { STALL, ANY };

FIXTURE(drain) {
	struct io_uring ring;
	bool ready;
};

/*
 * One case: @spec (tests/drain-replay.h) on a plain ring, or with
 * @restricted on a ring allowed NOP and IOSQE_IO_DRAIN only; SQE @drain is
 * the drained one (0: judge only that nothing stalls on patched), SQE
 * @refused the one the policy must refuse.
 */
FIXTURE_VARIANT(drain) {
	const char *spec;
	unsigned int drain;
	enum bug bug;
	bool restricted;
	unsigned int refused;
};

/* two NOPs posted at the end of the submission, an invalid opcode at once */
FIXTURE_VARIANT_ADD(drain, inline_then_failure) {
	.spec = "0/0,0/0,0/2,ff/0", .drain = 3, .bug = STALL,
};

/* SENDMSG with a NULL msghdr fails io_req_prep_async() with -EFAULT */
FIXTURE_VARIANT_ADD(drain, prep_async_failure) {
	.spec = "0/0,0/0,0/2,9/0", .drain = 3, .bug = STALL,
};

/* a failed link of three: its two cancellations post in one run */
FIXTURE_VARIANT_ADD(drain, failed_link_then_failure) {
	.spec = "ff/4,0/4,0/0,0/2,ff/0", .drain = 4, .bug = STALL,
};

/*
 * SEND_ZC's notification is a second CQE for one SQE (patch 0011): it
 * and a failed link's cancellation post in one task_work run.
 */
FIXTURE_VARIANT_ADD(drain, zc_notification) {
	.spec = "2f/0,ff/4,0/0,0/2", .drain = 4, .bug = STALL,
};

/*
 * A skip-flagged link head that fails before drain_disabled is set (opcode
 * out of range): its member's CQE is suppressed, the drain after it is
 * accepted and waits for that CQE (patch 0012).
 */
FIXTURE_VARIANT_ADD(drain, skip_head_hides_link_cqe) {
	.spec = "ff/44,0/0s,0/2", .drain = 3, .bug = STALL,
};

/* the same with IOSQE_BUFFER_SELECT on a NOP, -EOPNOTSUPP that early */
FIXTURE_VARIANT_ADD(drain, skip_head_bufsel_hides_link_cqe) {
	.spec = "0/64,0/0s,0/2", .drain = 3, .bug = STALL,
};

/*
 * A drain inside a link drains the request after the link too, even when
 * a CQE_SKIP_SUCCESS request later in the link set drain_disabled (patch
 * 0013: then it is not drained, and nothing waits).
 */
FIXTURE_VARIANT_ADD(drain, drain_next_after_skip) {
	.spec = "0/4,0/6,0/40,0/0,0/0", .drain = 0, .bug = STALL,
};

/* a failed link of two: 6.1 posts the drained NOP before CQE 2 here */
FIXTURE_VARIANT_ADD(drain, failed_link_of_two) {
	.spec = "ff/4,0/0,0/2,ff/0", .drain = 3, .bug = ANY,
};

/*
 * A drained SQE that fails itself posts its failure and drains nothing,
 * as in 6.1 and mainline: it never runs.
 */
FIXTURE_VARIANT_ADD(drain, failed_drained_sqe) {
	.spec = "0/0,0/0,0/2p", .drain = 0, .bug = ANY,
};

/*
 * A drain behind an io-wq NOP, a CQE_SKIP_SUCCESS NOP (held, and it turns
 * drains off), a second drain refused with -EOPNOTSUPP: held as a failure,
 * it must not wait for a sequence the skipped CQE never completes.
 */
FIXTURE_VARIANT_ADD(drain, skip_then_refused_drain) {
	.spec = "0/10,0/2,0/40,0/2", .drain = 2, .bug = ANY,
};

/* the WRITE after the drain is refused at submission; 6.1 posts it at once */
FIXTURE_VARIANT_ADD(drain, refused_after_drain) {
	.spec = "0/0,0/0,0/2,17/0", .drain = 3, .bug = STALL,
	.restricted = true, .refused = 4,
};

FIXTURE_SETUP(drain)
{
	struct io_uring_params p = {
		.flags = variant->restricted ? IORING_SETUP_R_DISABLED : 0,
	};
	struct io_uring_restriction res[] = {
		r_sqe_op(IORING_OP_NOP),
		r_flags(IORING_RESTRICTION_SQE_FLAGS_ALLOWED, IOSQE_IO_DRAIN),
	};
	int ret = io_uring_queue_init_params(BATCH_MAX, &self->ring, &p);

	if (variant->restricted && !feature()) {
		/* baseline: no restrictions, so no ring to refuse with */
		ASSERT_EQ(-EINVAL, ret);
		return;
	}
	ASSERT_EQ(0, ret);
	self->ready = true;
	if (variant->restricted) {
		ASSERT_EQ(0, reg(self->ring.ring_fd, IORING_REGISTER_RESTRICTIONS,
				 res, 2));
		ASSERT_EQ(0, reg(self->ring.ring_fd, IORING_REGISTER_ENABLE_RINGS,
				 NULL, 0));
	}
}

FIXTURE_TEARDOWN(drain)
{
	if (self->ready)
		io_uring_queue_exit(&self->ring);
}

TEST_F(drain, replay)
{
	struct batch b;

	if (!self->ready)
		return;
	ASSERT_EQ(0, replay_on(&self->ring, variant->spec, &b));
	log_batch(_metadata, variant->spec, &b);
	ASSERT_EQ((int)b.n, b.submitted);
	if (fixed()) {
		EXPECT_FALSE(stalled(&b));
		if (variant->drain)
			EXPECT_TRUE(drain_kept(&b, variant->drain));
		if (variant->refused) {
			ASSERT_LE(0, arrival(&b, variant->refused));
			EXPECT_EQ(-EACCES, b.cqe[arrival(&b, variant->refused)].res);
		}
	} else if (variant->bug == STALL) {
		/* the known 6.1 bug: the drained SQE never completes */
		EXPECT_TRUE(stalled(&b));
		if (variant->drain)
			EXPECT_EQ(-1, arrival(&b, variant->drain));
		TH_LOG("known upstream bug: a drained SQE's CQE never came");
	}
}

TEST_HARNESS_MAIN
