#!/usr/bin/env python3
"""tests/diff-answers.py [--prefix] PATCHED UPSTREAM: compare two kernels'
restrict-diff answers.

--prefix: PATCHED may hold the first cases of UPSTREAM's stream (same seed
and SQEs per case, fewer cases: a sanitizer kernel's shorter run against a
production upstream's); those cases are compared, the closing counts not.

Each line is one case: "case N <case> => <answers>", the answers ending in
the CQEs as user_data:res[:flags] in order and " stalled" when a CQE that
must come did not. The kernels must give the same answers, line for line,
with one exception: upstream 6.1's drain bugs (tests/drain-order.c,
patches 0010 and 0011). Patched must never stall. An upstream line whose
first drain did not hold (" drain-early": the drained SQE's CQE came
before an earlier SQE's) or that stalled is accepted when

- its answers match patched's up to the CQEs, and so do the CQEs of the
  SQEs before the first drained one (from the head of its link);
- past the drain, the SQEs may have taken other paths (io-wq or inline,
  io_req_prep_async() or issue) and met other errors first: both kernels
  must post for the same SQEs, and agree wherever either answer is one
  io_init_req() gives (-EACCES, -EINVAL, -EOPNOTSUPP); a stalled
  upstream line may miss CQEs, but not one patched refused (-EACCES,
  -EINVAL), as a refused SQE that never completes would be a bug of the
  check.

The same comparison applies where upstream released a drain early without
its own CQEs showing it: lines that differ only past a drain, only in
errors io_init_req() does not give (e.g. -EFAULT from a RECVMSG that
went through io_req_prep_async() on patched, -EBADF at issue upstream).

The closing comment's counts may then differ (they count what came).
Prints "agree ..." or the first difference; exits 0 when the answers agree.
"""
import re
import sys
from collections import Counter

IOSQE_IO_DRAIN = 0x02
IOSQE_LINKS = 0x04 | 0x08  # IOSQE_IO_LINK, IOSQE_IO_HARDLINK
REFUSALS = {"-13", "-22"}
# what io_init_req() answers, whichever path the SQE then takes:
# -EACCES (a restriction), -EINVAL, -EOPNOTSUPP
INIT_ERRORS = {"-13", "-22", "-95"}
COUNTS = re.compile(r"\d+ stalled: \d+ -EACCES, \d+ -EINVAL, \d+ -EOPNOTSUPP|"
                    r"\d+ CQEs skipped, \d+ notifications, \d+ drains early")


class Bad(Exception):
    pass


def parse(line):
    """(case, answers before the CQEs, CQE multiset, stalled, SQE flags)"""
    case, sep, answers = line.partition(" => ")
    if not sep:
        raise Bad("no ' => ' in the line")
    head, sep, tail = answers.partition(" cqes")
    stalled = tail.endswith(" stalled")
    if stalled:
        tail = tail[: -len(" stalled")]
    early = tail.endswith(" drain-early")
    if early:
        tail = tail[: -len(" drain-early")]
    cqes = Counter()
    for tok in tail.split():
        parts = tok.split(":")
        if len(parts) not in (2, 3) or not re.fullmatch(r"-?\d+", parts[0]) \
                or not re.fullmatch(r"-?\d+", parts[1]):
            raise Bad(f"unreadable CQE '{tok}'")
        cqes[tok] += 1
    m = re.search(r" sqes((?: \d+/[0-9a-f]+)*)$", case)
    flags = [int(t.split("/")[1], 16) for t in m.group(1).split()] if m else []
    return case, head, cqes, stalled or early, flags, stalled


def upstream_stall(lp, lu):
    """None when upstream's line lu is patched's lp but for a drain stall"""
    cp, hp, qp, _, flags, sp = parse(lp)
    cu, hu, qu, su, _, stalled = parse(lu)
    if cp != cu:
        return "the cases differ: not the same generator or seed"
    if sp:
        return "patched stalled: a CQE that must come never did"
    if hp != hu:
        return "they differ before the CQEs"
    first_drain = next((i for i, f in enumerate(flags) if f & IOSQE_IO_DRAIN), None)
    # a drain inside a link drains the link from its head
    while first_drain and flags[first_drain - 1] & IOSQE_LINKS:
        first_drain -= 1
    if first_drain is None:
        return "the answers differ" if not su else \
            "upstream's drain failed, but no SQE is drained"

    def before(q):
        return Counter({t: n for t, n in q.items() if int(t.split(":")[0]) <= first_drain})
    if before(qp) != before(qu):
        return "they differ before the first drained SQE"
    if not su:
        # upstream released the drain early without its own CQEs showing
        # it: past the drain only the errors that depend on the path an
        # SQE took (io-wq or inline, io_req_prep_async() or issue) may
        # differ; what io_init_req() decides must not
        return after_drain_verdicts(qp, qu, first_drain)
    # the drain did not hold upstream: the SQEs after it may have taken
    # other paths (io-wq or inline) and met other errors first
    if not stalled:
        return after_drain_verdicts(qp, qu, first_drain)
    for tok in qp - qu:
        res = tok.split(":")[1]
        if res in REFUSALS:
            return f"CQE {tok} missing upstream, where patched refused it"
    return None


def after_drain_verdicts(qp, qu, first_drain):
    """None when, past the drain, both posted a CQE for the same SQEs and
    agree wherever either answer is one io_init_req() gives"""
    def past(q):
        out = {}
        for tok in q.elements():
            ud, res = tok.split(":")[:2]
            if int(ud) > first_drain:
                out.setdefault(ud, []).append(res)
        return out
    pp, pu = past(qp), past(qu)
    if pp.keys() != pu.keys():
        return "they differ in which SQEs past the drain posted"
    for ud in pp:
        for a, b in zip(sorted(pp[ud]), sorted(pu[ud])):
            if a != b and (a in INIT_ERRORS or b in INIT_ERRORS):
                return f"SQE {ud} past the drain: {a} against {b}"
    return None


def compare(la, lb):
    """(why they differ or None, None or how upstream's drain failed)"""
    # where the drain did not hold is upstream's to say, not a difference
    if la.replace(" drain-early", "") == lb.replace(" drain-early", ""):
        la = lb = la.replace(" drain-early", "")
    if la == lb:
        if not la.startswith("#") and la.endswith(" stalled"):
            return "both stalled, patched must not", None
        return None, None
    if la.startswith("#"):
        return "a comment line", None
    try:
        why = upstream_stall(la, lb)
    except Bad as e:
        why = str(e)
    kind = "stalled" if lb.endswith(" stalled") else \
        "early" if lb.endswith(" drain-early") else "path"
    return why, None if why else kind


HEADER = re.compile(r"# restrict-diff seed (\d+) cases (\d+) sqes (\d+)$")


def prefix_of(a, b):
    """a and b cut to a's cases when a's stream is a prefix of b's, else a
    reason why it is not"""
    ha, hb = HEADER.match(a[0] if a else ""), HEADER.match(b[0] if b else "")
    if not ha or not hb:
        return "no '# restrict-diff seed ...' header line"
    if (ha[1], ha[3]) != (hb[1], hb[3]) or int(ha[2]) > int(hb[2]):
        return f"'{a[0]}' is not a prefix of '{b[0]}'"
    n = int(ha[2])
    if n == int(hb[2]):
        return a, b
    return a[1:n + 1], b[1:n + 1]


def main():
    args = sys.argv[1:]
    prefix = args[:1] == ["--prefix"]
    if prefix:
        args = args[1:]
    if len(args) != 2:
        sys.exit("usage: diff-answers.py [--prefix] PATCHED UPSTREAM")
    with open(args[0]) as f:
        a = f.read().splitlines()
    with open(args[1]) as f:
        b = f.read().splitlines()
    if prefix:
        cut = prefix_of(a, b)
        if isinstance(cut, str):
            print(f"differ: {cut}")
            return 1
        a, b = cut
    if len(a) != len(b):
        print(f"differ: {len(a)} lines against {len(b)}")
        return 1
    stalls, early, paths, counts = [], [], [], None
    for n, (la, lb) in enumerate(zip(a, b), 1):
        if la.startswith("# ") and lb.startswith("# ") and la != lb and \
                COUNTS.sub("", la) == COUNTS.sub("", lb):
            counts = (n, la, lb)
            continue
        why, kind = compare(la, lb)
        if why:
            print(f"differ at line {n} ({why}):\n< {la}\n> {lb}")
            return 1
        if kind:
            {"stalled": stalls, "early": early, "path": paths}[kind].append(
                la.split(" ring ")[0])
    if counts and not (stalls or early or paths):
        n, la, lb = counts
        print(f"differ at line {n}:\n< {la}\n> {lb}")
        return 1
    tail = ""
    for what, cases in (("stalled", stalls), ("ran a drain early", early),
                        ("answered differently past a drain only in "
                         "path-dependent errors", paths)):
        if cases:
            shown = ", ".join(cases[:4]) + (", ..." if len(cases) > 4 else "")
            tail += (f"; upstream {what} in {len(cases)} case(s) (known 6.1 "
                     f"drain bugs, compared up to the drain): {shown}")
    print(f"agree, patched never stalled{tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
