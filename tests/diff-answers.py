#!/usr/bin/env python3
"""tests/diff-answers.py A B: compare two kernels' restrict-diff answers.

Each line of A and B is one case: its policy, the register and enable
results, the SQEs, how many were submitted, then the CQEs as
user_data:res, and " stalled" when some CQE never came. A drained SQE can
stall in 6.1 on patched and upstream alike, on some runs and not others
(issue 15); which run stalls is timing, not the restriction check. So a
case that stalled on either side is compared up to its stall: everything
before the CQEs must match, and every CQE both kernels posted must carry
the same result; the closing comment's counts may then differ. Every other
line must match whole.

Prints "agree" and the number of cases compared up to a stall, or the
first difference (both lines); exits 0 when the answers agree.
"""
import sys


def parse(line):
    head, sep, cqes = line.partition(" cqes")
    stalled = cqes.endswith(" stalled")
    if stalled:
        cqes = cqes[: -len(" stalled")]
    posted = dict(c.split(":", 1) for c in cqes.split()) if sep else {}
    return head, stalled, posted


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: diff-answers.py A B")
    with open(sys.argv[1]) as f:
        a = f.read().splitlines()
    with open(sys.argv[2]) as f:
        b = f.read().splitlines()
    if len(a) != len(b):
        print(f"differ: {len(a)} lines against {len(b)}")
        return 1
    stalls = 0
    counts = None
    for n, (la, lb) in enumerate(zip(a, b), 1):
        if la == lb:
            continue
        # the closing counts include the CQEs a stall withheld
        if la.startswith("#") and lb.startswith("#"):
            counts = counts or (n, la, lb)
            continue
        ha, sa, pa = parse(la)
        hb, sb, pb = parse(lb)
        same = ha == hb and (sa or sb) and all(pa[u] == pb[u] for u in pa.keys() & pb.keys())
        if not same:
            print(f"differ at line {n}:\n< {la}\n> {lb}")
            return 1
        stalls += 1
    if counts and not stalls:
        n, la, lb = counts
        print(f"differ at line {n}:\n< {la}\n> {lb}")
        return 1
    print(f"agree ({stalls} case(s) compared up to a CQE stall)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
