#!/usr/bin/env python3
"""tests/diff-answers.py [--prefix] PATCHED UPSTREAM: compare two kernels'
restrict-diff answers.

--prefix: PATCHED may hold the first cases of UPSTREAM's stream (same seed
and SQEs per case, fewer cases: a sanitizer kernel's shorter run against a
production upstream's); those cases are compared, the closing counts not.

Each line is one case: "case N <case> => <answers>", the answers ending in
the CQEs as user_data:res[:flags], " drain-early" when a drain did not
hold and " stalled" when a CQE that must come did not. Patched must never
stall and never run a drain early. The kernels must give the same
answers, line for line, with one exception: upstream 6.1's drain bugs
(tests/drain-order.c, patches 0010-0012). A line where upstream stalled,
ran a drain early, or released one early without its CQEs showing it
(its CQEs differ from patched's past a drain) is accepted when

- its answers match patched's up to the CQEs, and so do the CQEs of every
  SQE before the first drained link;
- past it, SQE by SQE, both kernels' answers are the same, but for a pair
  a 6.1 path explains (PATH_PAIRS, for the opcodes named there);
- an SQE only patched answered was left stuck behind upstream's stalled
  drain (flagged, or skip-flagged, whose stall restrict-diff cannot always
  see), and was not refused by io_init_req() (-EACCES, -EINVAL,
  -EOPNOTSUPP), which 6.1 posts at once;
- no SQE was answered by upstream only.

The closing comment's counts may then differ (they count what came); the
zero-copy notifications counted there are timing, never compared.
Prints "agree ..." or the first difference; exits 0 when the answers agree.
"""
import re
import sys
from collections import Counter

IOSQE_IO_DRAIN = 0x02
IOSQE_LINKS = 0x04 | 0x08  # IOSQE_IO_LINK, IOSQE_IO_HARDLINK
IOSQE_CQE_SKIP = 0x40
# what io_init_req() answers (a policy, a bad opcode or flag, a flag the
# opcode or the ring does not take); 6.1 posts them at once, patched
# holds them behind a pending drain, and neither may lose one
INIT_ERRORS = {"-13", "-22", "-95"}
# Past a drain that did not hold upstream, an SQE may have taken another
# path there (issued inline at once where patched held it and issued it
# from the drain's path, through io_req_prep_async()) and met another
# error first: (patched, upstream) pairs of one SQE's answer that such a
# path explains, each seen in a run and named here with its path.
# RECVMSG, SENDMSG, SENDMSG_ZC on fd -1 with a NULL msghdr: on the path
# of a drained or held SQE (and of one io_init_req() marks for io-wq while
# drain_active is set) io_queue_sqe_fallback() runs io_req_prep_async(),
# which copies the msghdr first (-EFAULT); issued inline the file is
# looked up first (-EBADF). Either kernel may be the one that held it.
PATH_PAIRS = {("-14", "-9"), ("-9", "-14")}
PATH_OPS = {9, 10, 48}  # IORING_OP_SENDMSG, _RECVMSG, _SENDMSG_ZC
COUNTS = re.compile(r"\d+ stalled: \d+ -EACCES, \d+ -EINVAL, \d+ -EOPNOTSUPP|"
                    r"\d+ CQEs skipped, \d+ notifications, \d+ drains early")
NOTIFICATIONS = re.compile(r"\d+ notifications")


class Bad(Exception):
    pass


def parse(line):
    """(case, answers before the CQEs, CQE multiset, stalled, drain early,
    SQEs as (opcode, flags))"""
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
    sqes = [tuple(int(x, b) for x, b in zip(t.split("/"), (10, 16)))
            for t in m.group(1).split()] if m else []
    return case, head, cqes, stalled, early, sqes


def results(q):
    """{user_data: sorted answers, each "res[:flags]"} of a CQE multiset"""
    out = {}
    for tok in q.elements():
        ud, _, answer = tok.partition(":")
        out.setdefault(int(ud), []).append(answer)
    return {ud: sorted(r) for ud, r in out.items()}


def path_pair(op, a, b):
    """one answer each, the same CQE flags, and a pair PATH_PAIRS names
    for an opcode it names"""
    if op not in PATH_OPS or len(a) != 1 or len(b) != 1:
        return False
    (ra, _, fa), (rb, _, fb) = a[0].partition(":"), b[0].partition(":")
    return fa == fb and (ra, rb) in PATH_PAIRS


def drain_point(sqes):
    """the first drained SQE's link head, from 1 (its user_data), or None"""
    flags = [f for _, f in sqes]
    first = next((i for i, f in enumerate(flags) if f & IOSQE_IO_DRAIN), None)
    if first is None:
        return None
    # a drain inside a link drains the link from its head
    while first and flags[first - 1] & IOSQE_LINKS:
        first -= 1
    return first + 1


def judge(lp, lu):
    """(why patched's line lp and upstream's lu disagree or None, and when
    they agree only up to upstream's drain, how it failed there)"""
    cp, hp, qp, sp, ep, sqes = parse(lp)
    cu, hu, qu, su, eu, _ = parse(lu)
    if cp != cu:
        return "the cases differ: not the same generator or seed", None
    if sp:
        return "patched stalled: a CQE that must come never did", None
    if ep:
        return "patched ran a drain early: a drained SQE's CQE came " \
               "before the CQE of an SQE ahead of it", None
    if hp != hu:
        return "they differ before the CQEs", None
    kind = "stalled" if su else "early" if eu else "path"
    if qp == qu:
        return None, kind if (su or eu) else None
    drain = drain_point(sqes)
    if drain is None:
        return "the answers differ, and no SQE is drained", None
    rp, ru = results(qp), results(qu)
    for ud in sorted(set(rp) | set(ru)):
        a, b = rp.get(ud), ru.get(ud)
        if a == b:
            continue
        if ud < drain:
            return f"SQE {ud}, before the first drained SQE ({drain}): " \
                   f"{a or 'no CQE'} against {b or 'no CQE'}", None
        if a and b:
            if ud <= len(sqes) and path_pair(sqes[ud - 1][0], a, b):
                continue
            return f"SQE {ud} past the drain: {a} against {b}, no path " \
                   f"difference of 6.1's explains it", None
        if a:
            # upstream posts what io_init_req() refuses at once, and
            # patched must not answer what upstream never did
            if any(r.partition(":")[0] in INIT_ERRORS for r in a):
                return f"SQE {ud} past the drain: patched answered {a}, " \
                       f"upstream never refused it", None
            # a skip-flagged SQE stuck behind upstream's drain posts
            # nothing, as one that succeeded would: restrict-diff cannot
            # flag that stall when submission stopped early (no sentinel)
            if not su and not (ud <= len(sqes) and sqes[ud - 1][1] & IOSQE_CQE_SKIP):
                return f"SQE {ud} past the drain: {a} against no CQE, " \
                       f"and upstream did not stall", None
            kind = "stalled"
            continue
        return f"SQE {ud} past the drain: upstream answered {b}, patched " \
               f"posted nothing", None
    return None, kind


def compare(la, lb):
    """(why they differ or None, None or how upstream's drain failed)"""
    if la.startswith("#") or lb.startswith("#"):
        return (None, None) if la == lb else ("a comment line", None)
    try:
        return judge(la, lb)
    except Bad as e:
        return str(e), None


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
        if la.startswith("# ") and lb.startswith("# "):
            if NOTIFICATIONS.sub("", la) == NOTIFICATIONS.sub("", lb):
                continue
            if COUNTS.sub("", la) == COUNTS.sub("", lb):
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
