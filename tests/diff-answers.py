#!/usr/bin/env python3
"""tests/diff-answers.py A B: compare two kernels' restrict-diff answers.

Each line of A and B is one case: its policy, the register and enable
results, the SQEs as opcode/flags (hex), how many were submitted, then the
CQEs as user_data:res (user_data is the SQE's position, from 1), and
" stalled" when some CQE never came. A drained SQE can stall in 6.1 on
patched and upstream alike, on some runs and not others (issue 15): which
run stalls is timing, not the restriction check. So a case that stalled
on one side and not the other is accepted when everything but the missing
CQEs is the same:

- everything before the CQEs matches, and no CQE is posted twice;
- every CQE both kernels posted carries the same result, and a stalled
  side posted nothing the other did not;
- every missing CQE belongs to an IOSQE_IO_DRAIN SQE or one after it, and
  the other kernel's answer for it is not a refusal (-EACCES, -EINVAL):
  a refused SQE that never completes is a bug of the check, not a stall;
- at most MAX_STALLS cases per stream differ this way.

Then the closing comment's -EACCES and -EINVAL counts may differ (they
count the CQEs that came); every other line must match whole.

Prints "agree ..." or the first difference; exits 0 when the answers agree.
"""
import re
import sys

MAX_STALLS = 3
IOSQE_IO_DRAIN = 0x02
REFUSALS = {"-13", "-22"}


class Bad(Exception):
    pass


def parse(line):
    head, sep, tail = line.partition(" cqes")
    stalled = tail.endswith(" stalled")
    if stalled:
        tail = tail[: -len(" stalled")]
    posted = {}
    for tok in tail.split():
        uid, _, res = tok.partition(":")
        if not uid.isdigit() or not re.fullmatch(r"-?\d+", res):
            raise Bad(f"unreadable CQE '{tok}'")
        if uid in posted:
            raise Bad(f"CQE {uid} posted twice")
        posted[uid] = res
    m = re.search(r" sqes((?: \d+/[0-9a-f]+)*) submitted", head)
    flags = [int(t.split("/")[1], 16) for t in m.group(1).split()] if m else []
    return head, stalled and bool(sep), posted, flags


def stall_only(la, lb):
    """None when la and lb differ only by a drain stall, else why not."""
    ha, sa, pa, flags = parse(la)
    hb, sb, pb, _ = parse(lb)
    if ha != hb:
        return "they differ before the CQEs"
    if not (sa or sb):
        return "neither stalled"
    for u in pa.keys() & pb.keys():
        if pa[u] != pb[u]:
            return f"CQE {u}: {pa[u]} against {pb[u]}"
    first_drain = next((i for i, f in enumerate(flags) if f & IOSQE_IO_DRAIN), None)
    for mine, other, stalled in ((pa, pb, sa), (pb, pa, sb)):
        extra = other.keys() - mine.keys()
        if extra and not stalled:
            return f"CQE(s) {', '.join(sorted(extra, key=int))} missing without a stall"
        for u in extra:
            if first_drain is None or int(u) - 1 < first_drain:
                return f"CQE {u} missing, but no drained SQE comes before it"
            if other[u] in REFUSALS:
                return f"CQE {u} missing, where the other kernel refused it ({other[u]})"
    return None


def counts_only(la, lb):
    """The closing comments differ only in their -EACCES/-EINVAL counts."""
    pat = r"\d+ -EACCES, \d+ -EINVAL"
    return (la.startswith("# ") and re.search(pat, la) and
            re.sub(pat, "", la) == re.sub(pat, "", lb))


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
    stalls, counts = [], None
    for n, (la, lb) in enumerate(zip(a, b), 1):
        if la == lb:
            continue
        if n == len(a) and counts_only(la, lb):
            counts = (n, la, lb)
            continue
        try:
            why = "a comment line" if la.startswith("#") else stall_only(la, lb)
        except Bad as e:
            why = str(e)
        if why:
            print(f"differ at line {n} ({why}):\n< {la}\n> {lb}")
            return 1
        stalls.append(la.split(" policy")[0])
    if len(stalls) > MAX_STALLS:
        print(f"differ: {len(stalls)} cases stalled on one kernel only "
              f"({', '.join(stalls)}), more than {MAX_STALLS}: not timing")
        return 1
    if counts and not stalls:
        n, la, lb = counts
        print(f"differ at line {n}:\n< {la}\n> {lb}")
        return 1
    tail = f": {', '.join(stalls)}" if stalls else ""
    print(f"agree ({len(stalls)} case(s) compared up to a CQE stall{tail})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
