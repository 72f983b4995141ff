// SPDX-License-Identifier: MIT
/*
 * Description: IOSQE_IO_DRAIN with failures submitted after the drain
 *		(issue 15). 6.1 runs a drained request when the CQ tail
 *		equals the number of SQEs before it, and posts a failure
 *		submitted after it at once, so the tail counts a CQE the
 *		drain does not wait for: the drained request runs early, or
 *		never when CQEs post in batches and the tail steps over its
 *		number. Patch 0010 holds such failures behind the drain;
 *		0011 counts a zero-copy send's second CQE, 0012 every CQE
 *		that CQE_SKIP_SUCCESS suppresses.
 *
 *		On patched every CQE comes with the answer the case names,
 *		each drained SQE's after the CQE of every SQE before it, and
 *		a held failure after the drain it waited for. On upstream
 *		and baseline (6.1 as shipped) the known bug is what the test
 *		expects: the cases that stall must stall, so a change in 6.1
 *		shows here; where 6.1 keeps a drain right, every kernel is
 *		judged as patched is.
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

/*
 * SQE @ud's CQE came after the CQE of every SQE before SQE @drain: @ud is
 * the drained SQE, or a failure held behind it
 */
static bool posted_after(const struct batch *b, unsigned int ud,
			 unsigned int drain)
{
	int at = arrival(b, ud);
	unsigned int u;

	if (at < 0)
		return false;
	for (u = 1; u < drain; u++) {
		if (!(b->must & (1ULL << (u - 1))) && arrival(b, u) < 0)
			continue;
		if (arrival(b, u) < 0 || arrival(b, u) > at)
			return false;
	}
	return true;
}

/*
 * What 6.1 as shipped does with a case: STALL (deterministic here: no
 * io-wq, no timing), ANY (an order that depends on task_work or io-wq
 * timing, logged but not judged) or KEPT (6.1 gets it right: judged on
 * every kernel as on patched).
 */
enum bug { STALL, ANY, KEPT };

FIXTURE(drain) {
	struct io_uring ring;
	bool ready;
};

/*
 * One case: @spec (tests/drain-replay.h) on a plain ring, or with
 * @restricted on a ring allowed NOP and IOSQE_IO_DRAIN only. On patched:
 * the first CQE of each SQE is as @expect says ("user_data:res ..."), SQE
 * @drain and @drain2 are drained (their CQEs after the CQE of every SQE
 * before them; 0: none), SQE @held, a failure submitted while SQE
 * @held_behind's drain was pending, posts after the CQE of every SQE
 * before that drain (released with the drained SQE, it may post before
 * the drained SQE's own CQE), and SQE @refused is refused with -EACCES.
 * @submit_all: IORING_SETUP_SUBMIT_ALL, for a failure that is not last.
 */
FIXTURE_VARIANT(drain) {
	const char *spec;
	const char *expect;
	unsigned int drain, drain2;
	unsigned int held, held_behind;
	bool submit_all;
	enum bug bug;
	bool restricted;
	unsigned int refused;
};

/* two NOPs posted at the end of the submission, an invalid opcode at once */
FIXTURE_VARIANT_ADD(drain, inline_then_failure) {
	.spec = "0/0,0/0,0/2,ff/0", .expect = "1:0 2:0 3:0 4:-22",
	.drain = 3, .held = 4, .held_behind = 3, .bug = STALL,
};

/* SENDMSG with a NULL msghdr fails io_req_prep_async() with -EFAULT */
FIXTURE_VARIANT_ADD(drain, prep_async_failure) {
	.spec = "0/0,0/0,0/2,9/0", .expect = "1:0 2:0 3:0 4:-14",
	.drain = 3, .held = 4, .held_behind = 3, .bug = STALL,
};

/* a failed link of three: its two cancellations post in one run */
FIXTURE_VARIANT_ADD(drain, failed_link_then_failure) {
	.spec = "ff/4,0/4,0/0,0/2,ff/0", .expect = "1:-22 2:-125 3:-125 4:0 5:-22",
	.drain = 4, .held = 5, .held_behind = 4, .bug = STALL,
};

/*
 * SEND_ZC's notification is a second CQE for one SQE (patch 0011): it
 * and a failed link's cancellation post in one task_work run. The
 * notification carries the send's user_data and is not told apart here;
 * the drain waits for CQEs, not for it.
 */
FIXTURE_VARIANT_ADD(drain, zc_notification) {
	.spec = "2f/0,ff/4,0/0,0/2", .expect = "1:-9 2:-22 3:-125 4:0",
	.drain = 4, .bug = STALL,
};

/*
 * A skip-flagged link head that fails before drain_disabled is set (opcode
 * out of range): its member's CQE is suppressed, the drain after it is
 * accepted and waits for that CQE (patch 0012).
 */
FIXTURE_VARIANT_ADD(drain, skip_head_hides_link_cqe) {
	.spec = "ff/44,0/0s,0/2", .expect = "1:-22 2:- 3:0", .drain = 3, .bug = STALL,
};

/* the same with IOSQE_BUFFER_SELECT on a NOP, -EOPNOTSUPP that early */
FIXTURE_VARIANT_ADD(drain, skip_head_bufsel_hides_link_cqe) {
	.spec = "0/64,0/0s,0/2", .expect = "1:-95 2:- 3:0", .drain = 3, .bug = STALL,
};

/*
 * A drain inside a link drains the request after the link too, even when
 * a CQE_SKIP_SUCCESS request later in the link set drain_disabled: the
 * skipped CQE is counted (patch 0012), so the NOP after the link is
 * drained and runs.
 */
FIXTURE_VARIANT_ADD(drain, drain_next_after_skip) {
	.spec = "0/4,0/6,0/40,0/0,0/0", .expect = "1:0 2:0 3:- 4:0 5:0",
	.drain = 4, .bug = STALL,
};

/*
 * The request after a link with a drain inside is drained even when it
 * carries CQE_SKIP_SUCCESS itself (a READ on fd -1, -EBADF at issue):
 * 6.1 keeps that drain, and so must patched.
 */
FIXTURE_VARIANT_ADD(drain, implied_drain_on_skip_sqe) {
	.spec = "0/4,0/2,16/40", .expect = "1:0 2:0 3:-9", .drain = 3, .bug = KEPT,
};

/*
 * A skip-flagged link member that fails (a READ on fd -1) posts its CQE
 * after all: the request after the link waits for it.
 */
FIXTURE_VARIANT_ADD(drain, implied_drain_after_failed_skip_member) {
	.spec = "0/4,0/6,16/40,0/0", .expect = "1:0 2:0 3:-9 4:0",
	.drain = 4, .bug = KEPT,
};

/* a failed link of two: 6.1 posts the drained NOP before CQE 2 here */
FIXTURE_VARIANT_ADD(drain, failed_link_of_two) {
	.spec = "ff/4,0/0,0/2,ff/0", .expect = "1:-22 2:-125 3:0 4:-22",
	.drain = 3, .held = 4, .held_behind = 3, .bug = ANY,
};

/*
 * A drained SQE that fails itself posts its failure and drains nothing,
 * as in 6.1 and mainline: it never runs. Its order is not judged.
 */
FIXTURE_VARIANT_ADD(drain, failed_drained_sqe) {
	.spec = "0/0,0/0,0/2p", .expect = "1:0 2:0 3:-22", .bug = ANY,
};

/*
 * A drain behind an io-wq NOP, a CQE_SKIP_SUCCESS NOP (held, and it turns
 * drains off), a second drain refused with -EOPNOTSUPP: held as a failure,
 * it posts once the first drain has run.
 */
FIXTURE_VARIANT_ADD(drain, skip_then_refused_drain) {
	.spec = "0/10,0/2,0/40,0/2", .expect = "1:0 2:0 3:- 4:-95",
	.drain = 2, .held = 4, .held_behind = 2, .bug = ANY,
};

/*
 * Drain, failure, drain behind an io-wq NOP: the failure is held behind
 * the first drain and lands after its CQE; the second drain counts it
 * and runs after it.
 */
FIXTURE_VARIANT_ADD(drain, drain_failure_drain) {
	.spec = "0/10,0/2,ff/0,0/2,0/0", .expect = "1:0 2:0 3:-22 4:0 5:0",
	.drain = 2, .drain2 = 4, .held = 3, .held_behind = 2, .bug = ANY,
	.submit_all = true,
};

/* the WRITE after the drain is refused at submission; 6.1 posts it at once */
FIXTURE_VARIANT_ADD(drain, refused_after_drain) {
	.spec = "0/0,0/0,0/2,17/0", .expect = "1:0 2:0 3:0 4:-13",
	.drain = 3, .held = 4, .held_behind = 3, .bug = STALL,
	.restricted = true, .refused = 4,
};

/*
 * the first CQE of each SQE named in @expect has the answer it names;
 * "ud:-" names an SQE that must post none
 */
static bool answers_are(struct __test_metadata *_metadata,
			const struct batch *b, const char *expect)
{
	char *s = strdup(expect), *tok, *save;
	bool ok = true;

	for (tok = strtok_r(s, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		unsigned int ud;
		int res, at;

		if (sscanf(tok, "%u:%d", &ud, &res) != 2) {
			/* "ud:-": the CQE is suppressed */
			if (sscanf(tok, "%u:-", &ud) != 1)
				abort();
			if (arrival(b, ud) >= 0) {
				TH_LOG("SQE %u: expected no CQE, got %d", ud,
				       b->cqe[arrival(b, ud)].res);
				ok = false;
			}
			continue;
		}
		at = arrival(b, ud);
		if (at < 0 || b->cqe[at].res != res) {
			TH_LOG("SQE %u: expected %d, got %s%d", ud, res,
			       at < 0 ? "no CQE " : "", at < 0 ? 0 : b->cqe[at].res);
			ok = false;
		}
	}
	free(s);
	return ok;
}

/* everything patched must do with @variant's batch */
static void judge(struct __test_metadata *_metadata,
		  const FIXTURE_VARIANT(drain) *variant, const struct batch *b)
{
	EXPECT_FALSE(stalled(b));
	EXPECT_TRUE(answers_are(_metadata, b, variant->expect));
	if (variant->drain)
		EXPECT_TRUE(posted_after(b, variant->drain, variant->drain));
	if (variant->drain2)
		EXPECT_TRUE(posted_after(b, variant->drain2, variant->drain2));
	if (variant->held)
		EXPECT_TRUE(posted_after(b, variant->held, variant->held_behind));
	if (variant->refused) {
		ASSERT_LE(0, arrival(b, variant->refused));
		EXPECT_EQ(-EACCES, b->cqe[arrival(b, variant->refused)].res);
	}
}

FIXTURE_SETUP(drain)
{
	struct io_uring_params p = {
		.flags = (variant->restricted ? IORING_SETUP_R_DISABLED : 0) |
			 (variant->submit_all ? IORING_SETUP_SUBMIT_ALL : 0),
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
	if (fixed() || variant->bug == KEPT) {
		judge(_metadata, variant, &b);
	} else if (variant->bug == STALL) {
		/* the known 6.1 bug: the drained SQE never completes */
		EXPECT_TRUE(stalled(&b));
		if (variant->drain)
			EXPECT_EQ(-1, arrival(&b, variant->drain));
		TH_LOG("known upstream bug: a drained SQE's CQE never came");
	}
}

TEST_HARNESS_MAIN
