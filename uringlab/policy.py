"""The least io_uring policy a recorded run needs (tracing/policy-record.bt).

python3 -m uringlab.policy RECORD.json OUTDIR [--generalise sockets]
    [--drop-top]

writes into OUTDIR:
  policy.txt   bench/uring-restrict's policy, one entry a line (-f FILE):
               per ring, numbered as each process sets its rings up, the
               allow-lists, and the filters (sqe= entries, patched kernels)
               that allow exactly the opcode, flags and argument values seen
  SUMMARY.md   per ring: opcode, count, flags and arguments seen, and what
               the policy therefore allows
  dropped.txt  with --drop-top: policy.txt without the most used SQE opcode
               of the busiest ring, and that opcode's name on its first line
  filter-miss.txt  with --drop-top: policy.txt whose filters allow that
               opcode only with flags it never used (its sqe_op stays)

Least by construction: an opcode, flag, register call or argument value is
allowed only if the run used it. A ring's SQE flags allowed are those any of
its SQEs carried; required, those every one carried (IOSQE_FIXED_FILE on a
ring whose SQEs all used fixed files). --generalise sockets widens SOCKET's
filters to any protocol of each family and type seen, and says so.

Rings are numbered per process because that is all uring-restrict can see
when a ring is set up: rings of the same number in different processes (a
fio job's, each in its own process) get one policy, the union of theirs.
"""
import argparse
import ipaddress
import os
import re
import socket
import struct
import sys

from uringlab.runfolder import write_atomic
from uringlab.trace_summary import read_bpftrace

OP_SOCKET, OP_OPENAT, OP_OPENAT2, OP_CONNECT = 45, 18, 28, 16
EACCES = 13
UAPI = "/usr/include/linux/io_uring.h"


def uapi_names(path=UAPI):
    """SQE opcode, register opcode and SQE flag names by number, as the
    uapi header has them and bench/uring-restrict spells them."""
    text = open(path).read()
    body = re.search(r"enum io_uring_op \{(.*?)\};", text, re.S).group(1)
    ops = [m.lower() for m in re.findall(r"IORING_OP_(\w+)", body)
           if m != "LAST"]
    regs = {int(v): n.lower() for n, v in
            re.findall(r"\bIORING_((?:UN)?REGISTER_\w+)\s*=\s*(\d+)\b", text)
            if n != "REGISTER_USE_REGISTERED_RING"}
    bits = re.search(r"enum \{\s*(IOSQE_FIXED_FILE_BIT.*?)\};", text, re.S).group(1)
    flags = [n.lower() for n in re.findall(r"IOSQE_(\w+)_BIT", bits)]
    return ops, regs, flags


OPS, REGS, FLAGS = uapi_names() if os.path.exists(UAPI) else ([], {}, [])


def op_name(op):
    return OPS[op] if op < len(OPS) else str(op)


def flag_names(v):
    """'fixed_file+io_link', or '0'."""
    if v == 0:
        return "0"
    names = [FLAGS[b] if b < len(FLAGS) else str(1 << b)
             for b in range(8) if v & (1 << b)]
    return "+".join(names)


def load(path):
    """bpftrace's JSON maps: name -> {key tuple: value}."""
    maps = {}
    for name, data in read_bpftrace(path).items():
        maps[name.lstrip("@")] = ({tuple(k.split(",")): v for k, v in data.items()}
                                  if isinstance(data, dict) else {(): data})
    return maps


def num(s):
    return int(s, 0)


# --- the kernel's view of the arguments, as 6.1's prep leaves them -------

O_CREAT, O_PATH, __O_TMPFILE = 0o100, 0o10000000, 0o20000000
O_LARGEFILE, O_PATH_FLAGS = 0o100000, 0o200000 | 0o400000 | 0o10000000 | 0o2000000
VALID_OPEN_FLAGS = 0o3 | 0o100 | 0o200 | 0o400 | 0o1000 | 0o2000 | 0o4000 | \
    0o10000 | 0o20000 | 0o40000 | 0o100000 | 0o200000 | 0o400000 | \
    0o1000000 | 0o2000000 | 0o4000000 | 0o10000000 | 0o20000000
S_IALLUGO = 0o7777


def open_view(op, a):
    """(flags, mode, resolve) as the filter sees them: build_open_how()'s
    masks for OPENAT, then O_LARGEFILE for both unless O_PATH."""
    if op == OP_OPENAT:
        flags, mode, resolve = a[0] & VALID_OPEN_FLAGS, a[1] & S_IALLUGO, 0
        if flags & O_PATH:
            flags &= O_PATH_FLAGS
        if not flags & (O_CREAT | __O_TMPFILE):   # WILL_CREATE()
            mode = 0
    else:
        flags, mode, resolve = a[0], a[1], a[2]
    if not flags & O_PATH:
        flags |= O_LARGEFILE
    return flags, mode, resolve


def connect_view(a):
    """family, port, address as the filter sees them: family from the
    first two bytes addr_len covers, port and address only from a whole
    sockaddr_in or sockaddr_in6."""
    addr_len, family, port_raw, v4_raw, v6a, v6b = a[:6]
    if addr_len < 2:
        return 0, 0, "0"
    port = socket.ntohs(port_raw)
    if family == socket.AF_INET and addr_len >= 16:
        return family, port, str(ipaddress.IPv4Address(struct.pack("<I", v4_raw)))
    if family == socket.AF_INET6 and addr_len >= 28:
        raw = struct.pack("<QQ", v6a, v6b)
        return family, port, str(ipaddress.IPv6Address(raw))
    return family, 0, "0"


def arg_fields(op, a):
    """[(field, value text)] of the filter's view of one SQE's arguments."""
    if op == OP_SOCKET:
        return [("family", str(a[0])), ("type", str(a[1])), ("protocol", str(a[2]))]
    if op in (OP_OPENAT, OP_OPENAT2):
        f, m, r = open_view(op, a)
        return [("flags", hex(f)), ("mode", "0%o" % m), ("resolve", hex(r))]
    if op == OP_CONNECT:
        fam, port, addr = connect_view(a)
        return [("family", str(fam)), ("port", str(port)), ("addr", addr)]
    return []


# --- from a recording to rings ------------------------------------------

class Ring:
    """One ring number's policy: every process's ring of that number."""

    def __init__(self, index):
        self.index = index
        self.setups = []        # (serial, pid, tid, comm, flags, entries)
        self.sqes = {}          # (op, sqe flags) -> count
        self.seen = {}          # (op, filter flags) -> count
        self.args = {}          # (op, filter flags, fields) -> count
        self.failed = {}        # (op, sqe flags, errno) -> count
        self.regs = {}          # (register op, errno) -> count
        self.tids = {}          # (tid, comm) -> count
        self.uses = {}          # pid -> {(op, sqe flags)}: what each process did

    def add(self, d, k, n):
        d[k] = d.get(k, 0) + n

    def ops(self):
        return sorted({op for op, _ in self.sqes} |
                      {op for op, _, e in self.failed if e != -EACCES})

    def flag_values(self):
        return [f for _, f in self.sqes] + \
            [f for _, f, e in self.failed if e != -EACCES]

    def allowed_flags(self):
        v = 0
        for f in self.flag_values():
            v |= f
        return v

    def required_flags(self):
        vals = self.flag_values()
        if not vals:
            return 0
        v = 0xff
        for f in vals:
            v &= f
        return v

    def reg_ops(self):
        return sorted({op for op, e in self.regs if e != -EACCES})

    def total(self):
        return sum(self.sqes.values()) + sum(self.failed.values())


def rings_of(maps):
    """(rings by number, notes the user must read)."""
    notes = []
    m = lambda name: maps.get(name, {})
    by_serial = {}
    procs = {}
    execs = {}
    for (pid, at), _ in m("exec_at").items():
        execs.setdefault(int(pid), []).append(int(at))
    for (s,), pid in m("ring_pid").items():
        s = int(s)
        setup = (s, pid, m("ring_tid").get((str(s),)),
                 m("ring_comm").get((str(s),), "?"), m("ring_flags").get((str(s),), 0),
                 m("ring_entries").get((str(s),), 0))
        procs.setdefault(pid, []).append(setup)
    # uring-restrict's numbers: per process, in setup order (the serial is
    # the time of setup), from 1 again after each exec
    for pid, setups in procs.items():
        setups.sort()
        n, last_exec = 0, None
        for st in setups:
            e = max((t for t in execs.get(pid, []) if t < st[0]), default=None)
            if e != last_exec:
                n, last_exec = 0, e
            n += 1
            by_serial[st[0]] = n
    rings = {}
    for pid, setups in procs.items():
        if len({t for _, _, t, *_ in setups}) > 1:
            notes.append(f"process {pid} ({setups[0][3]}) set up its rings from "
                         f"{len({t for _, _, t, *_ in setups})} threads: their "
                         f"order may change from run to run, so its rings' "
                         f"numbers may not match the policy's next time")
        for st in setups:
            idx = by_serial[st[0]]
            rings.setdefault(idx, Ring(idx)).setups.append(st)

    def ring(s):
        s = int(s)
        if s == 0:
            return rings.setdefault(0, Ring(0))
        return rings[by_serial[s]]

    pid_of = {int(s): pid for (s,), pid in m("ring_pid").items()}
    for (s, op, f, seen), n in m("sqe").items():
        r = ring(s)
        r.add(r.sqes, (int(op), int(f)), n)
        r.add(r.seen, (int(op), int(seen)), n)
        r.uses.setdefault(pid_of.get(int(s)), set()).add((int(op), int(f)))
    for (s, op, f, err), n in m("sqe_failed").items():
        r = ring(s)
        r.add(r.failed, (int(op), int(f), int(err)), n)
    for key, n in m("args").items():
        s, op, seen, *a = key
        r = ring(s)
        op = int(op)
        r.add(r.args, (op, int(seen), tuple(arg_fields(op, [num(x) for x in a]))), n)
    for (s, op, err), n in m("reg").items():
        r = ring(s)
        r.add(r.regs, (int(op), int(err)), n)
    for key, n in m("sqe_tid").items():
        s, tid, comm = key[0], key[1], ",".join(key[2:])
        r = ring(s)
        r.add(r.tids, (int(tid), comm), n)
    for idx, r in sorted(rings.items()):
        procs = sorted({p: c for _, p, _, c, *_ in r.setups}.items())
        uses = {frozenset(r.uses.get(p, ())) for p, _ in procs}
        if idx and len(procs) > 1 and len(uses) > 1:
            notes.append(f"ring {idx} is the ring number {idx} of {len(procs)} processes "
                         f"({', '.join(f'{c} pid {p}' for p, c in procs[:4])}"
                         f"{' ...' if len(procs) > 4 else ''}): uring-restrict numbers "
                         "rings per process and cannot tell the processes apart, so "
                         "ring {idx}'s policy is the union of what they did, which differs".replace("{idx}", str(idx)))
    unprepped = sum(m("sqe_unprepped").values())
    if unprepped:
        ops = sorted({op_name(int(op)) for (_, op) in m("sqe_unprepped")})
        raise SystemExit(f"policy: {unprepped} SQE(s) ({', '.join(ops)}) passed init with no "
                         "prep function probed: tracing/policy-record.bt lacks their "
                         "prep; no policy made (it would refuse them)")
    if 0 in rings:
        notes.append("SQEs or register calls on rings no recorded process set up "
                     "(ring 0 below): a ring passed in, or set up before the "
                     "recording began; the policy cannot restrict those rings")
    if any(e == -EACCES for r in rings.values() for _, _, e in r.failed):
        notes.append("the recorded run was itself refused SQEs with -EACCES: it "
                     "ran restricted; those SQEs are not in the policy")
    if not rings:
        notes.append("the command set up no io_uring ring: there is nothing to restrict")
    return rings, notes


# --- the policy ----------------------------------------------------------

IOSQE_IO_DRAIN, IOSQE_ASYNC = 0x02, 0x10


def used_drain(r):
    return any(f & IOSQE_IO_DRAIN for f in r.flag_values())


def filter_entries(r, generalise, miss=None):
    """sqe= entries: each (op, filter flags[, fields]) the ring used. On a
    ring that drains, each also with what a pending drain adds to the SQE
    after it (IOSQE_ASYNC, IOSQE_IO_DRAIN): whether a drain is pending when
    an SQE is submitted depends on when earlier ones complete. @miss, an
    opcode: its entries' flags made a value it never used (the round
    trip's proof that a filter refuses)."""
    out = []
    seen_keys = set()
    drain = used_drain(r)
    never = {}
    for op, f in r.seen:
        never.setdefault(op, set()).add(f)
    for op, fs in never.items():
        never[op] = next(1 << b for b in range(7) if not any(x & (1 << b) for x in fs))

    def flag_set(op, seen):
        if op == miss:
            return [never[op]]
        if not drain:
            return [seen]
        return [seen, seen | IOSQE_ASYNC, seen | IOSQE_ASYNC | IOSQE_IO_DRAIN]

    with_args = {op for op, _, _ in r.args}
    for op, seen in sorted(r.seen):
        if op in with_args:
            continue
        for f in flag_set(op, seen):
            e = f"sqe={op_name(op)}/{flag_names(f)}"
            if e not in seen_keys:
                seen_keys.add(e)
                out.append(e)
    for op, seen, fields in sorted(r.args):
        if generalise and op == OP_SOCKET:
            fields = tuple((k, "*") if k == "protocol" else (k, v) for k, v in fields)
        for f in flag_set(op, seen):
            e = f"sqe={op_name(op)}/{flag_names(f)}/" + ",".join(f"{k}={v}" for k, v in fields)
            if e not in seen_keys:
                seen_keys.add(e)
                out.append(e)
    return out


def ring_body(r, generalise, drop=None, miss=None):
    """One ring's entries, without its ring= line."""
    lines = []
    for op in r.ops():
        if (r.index, op) == drop:
            lines.append(f"# dropped for the round trip: sqe_op={op_name(op)}")
            continue
        lines.append(f"sqe_op={op_name(op)}")
    allowed, required = r.allowed_flags(), r.required_flags()
    lines.append("sqe_flags_allowed=" + flag_names(allowed).replace("+", ",")
                 if allowed else "sqe_flags_allowed=")
    if required:
        lines.append("sqe_flags_required=" + flag_names(required).replace("+", ","))
    for op in r.reg_ops():
        lines.append(f"register_op={REGS.get(op, str(op))}")
    m = miss[1] if miss and miss[0] == r.index else None
    lines.extend(e for e in filter_entries(r, generalise, m)
                 if drop is None or r.index != drop[0] or
                 not e.startswith(f"sqe={op_name(drop[1])}/"))
    return lines


def groups(rings, body):
    """[(first, last, rings, body)]: runs of consecutive ring numbers whose
    entries are the same (a program that sets up 1024 rings alike)."""
    out = []
    for idx in sorted(i for i in rings if i > 0):
        b = body(rings[idx])
        if out and out[-1][1] == idx - 1 and out[-1][3] == b:
            out[-1] = (out[-1][0], idx, out[-1][2] + [rings[idx]], b)
        else:
            out.append((idx, idx, [rings[idx]], b))
    return out


def policy_lines(rings, generalise=False, drop=None, miss=None):
    """bench/uring-restrict's policy, one entry a line, with comments."""
    lines = ["# least io_uring policy, recorded by tracing/policy-record.sh;",
             "# bench/uring-restrict -f THIS -- COMMAND applies it.",
             "# sqe= lines are filters: kernels with IORING_REGISTER_BPF_FILTER",
             "# only (uring-restrict -a drops them on the others)."]
    if generalise:
        lines.append("# generalised (--generalise sockets): SOCKET allows any "
                     "protocol of each family and type seen")
    if any(used_drain(r) for r in rings.values()):
        lines.append("# a ring that drains: its sqe= entries also allow what a pending")
        lines.append("# drain adds to the next SQE (async, io_drain+async)")
    for first, last, rs, body in groups(rings, lambda r: ring_body(r, generalise, drop, miss)):
        procs = len({p for r in rs for _, p, *_ in r.setups})
        sqes = sum(r.total() for r in rs)
        span = f"{first}" if first == last else f"{first}-{last}"
        lines.append("")
        lines.append(f"ring={span}\t# {sqes} SQEs, by {procs} process(es)")
        lines.extend(body)
    return lines


def merged(rs):
    """One Ring holding the union of @rs (a run of alike rings)."""
    if len(rs) == 1:
        return rs[0]
    m = Ring(rs[0].index)
    for r in rs:
        m.setups += r.setups
        for name in ("sqes", "seen", "args", "failed", "regs", "tids"):
            for k, n in getattr(r, name).items():
                m.add(getattr(m, name), k, n)
    return m


def busiest(rings):
    """(ring number, opcode) of the busiest ring's most used opcode."""
    best = None
    for idx, r in rings.items():
        if idx == 0:
            continue
        counts = {}
        for (op, _), n in r.sqes.items():
            counts[op] = counts.get(op, 0) + n
        for op, n in counts.items():
            if best is None or n > best[0]:
                best = (n, idx, op)
    return best and best[1:]


def summary(rings, notes, generalise):
    out = ["# io_uring policy summary", ""]
    for n in notes:
        out.append(f"- **note:** {n}")
    if notes:
        out.append("")
    sections = [(0, 0, [rings[0]])] if 0 in rings else []
    sections += [(a, b, rs) for a, b, rs, _ in groups(rings, lambda r: ring_body(r, generalise))]
    for idx, last, rs in sections:
        r = merged(rs)
        if idx == 0:
            out.append("## Rings no recorded process set up")
        else:
            procs = sorted({(p, c) for _, p, _, c, *_ in r.setups})
            who = ", ".join(f"{c} (pid {p})" for p, c in procs[:4])
            more = f" and {len(procs) - 4} more" if len(procs) > 4 else ""
            flags = sorted({f for *_, f, _ in r.setups})
            entries = sorted({e for *_, e in r.setups})
            span = f"Ring {idx}" if idx == last else f"Rings {idx}-{last}"
            out.append(f"## {span}: of {who}{more}")
            out.append("")
            out.append(f"Set up {len(r.setups)} time(s), setup flags "
                       f"{', '.join(hex(f) for f in flags)}, "
                       f"{', '.join(map(str, entries))} SQ entries"
                       + (" (each ring alike)." if idx != last else "."))
            subm = sorted({c for _, c in r.tids})
            if subm:
                out.append(f"Submitted by: {', '.join(subm)}.")
        out.append("")
        if not r.ops():
            out.append("No SQEs.")
        else:
            out.append("| opcode | SQEs | SQE flags seen (count) | arguments seen |")
            out.append("|---|---:|---|---|")
        for op in r.ops():
            n = sum(c for (o, _), c in r.sqes.items() if o == op)
            fails = {(f, e): c for (o, f, e), c in r.failed.items() if o == op}
            fl = ", ".join(f"{flag_names(f)} ({c})" for (o, f), c in sorted(r.sqes.items())
                           if o == op)
            fl += "".join(f"; refused at init with errno {-e}: {flag_names(f)} ({c})"
                          for (f, e), c in sorted(fails.items()))
            args = "; ".join(",".join(f"{k}={v}" for k, v in fields) + f" ({c})"
                             for (o, _, fields), c in sorted(r.args.items()) if o == op)
            out.append(f"| {op_name(op).upper()} | {n + sum(fails.values())} | {fl} | {args or '—'} |")
        regs = ", ".join(f"{REGS.get(o, o).upper()} ({c})" + (f", failing errno {-e}" if e else "")
                         for (o, e), c in sorted(r.regs.items()))
        out.append("")
        out.append(f"Register calls: {regs or 'none'}.")
        if idx == 0:
            out.append("")
            continue
        req = r.required_flags()
        out.append("")
        out.append("**The policy allows:** SQE opcodes "
                   f"{', '.join(op_name(o).upper() for o in r.ops()) or 'none'}; "
                   f"SQE flags {flag_names(r.allowed_flags())}"
                   + (f", every SQE carrying {flag_names(req)}"
                      " (all the run's SQEs did)" if req else "")
                   + f"; register calls {', '.join(REGS.get(o, str(o)).upper() for o in r.reg_ops()) or 'none'}.")
        ents = filter_entries(r, generalise)
        if ents:
            out.append("With filters (patched kernels), exactly: " +
                       "; ".join(f"`{e[4:]}`" for e in ents) + ".")
        if used_drain(r):
            out.append("Its SQEs drain: each filter entry also allows what a pending drain "
                       "adds to the SQE after it (async, io_drain+async), which depends on timing.")
        if generalise and any(op == OP_SOCKET for op, _, _ in r.args):
            out.append("Generalised: SOCKET allows any protocol of the families and types seen.")
        out.append("")
    out.append("Any ring a process sets up beyond these numbers gets no policy "
               "entry: uring-restrict restricts it to nothing and says so.")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("record")
    ap.add_argument("outdir")
    ap.add_argument("--generalise", choices=["sockets"])
    ap.add_argument("--drop-top", action="store_true")
    a = ap.parse_args(argv)
    try:
        maps = load(a.record)
    except OSError as e:
        sys.exit(f"policy: cannot read the recording: {e}")
    if "ring_pid" not in maps and "sqe" not in maps and "reg" not in maps:
        if not maps:
            sys.exit(f"policy: {a.record} holds no bpftrace maps: not a "
                     "recording of tracing/policy-record.bt")
    rings, notes = rings_of(maps)
    gen = a.generalise == "sockets"
    os.makedirs(a.outdir, exist_ok=True)
    write_atomic(os.path.join(a.outdir, "policy.txt"),
                 "\n".join(policy_lines(rings, gen)) + "\n")
    write_atomic(os.path.join(a.outdir, "SUMMARY.md"),
                 "\n".join(summary(rings, notes, gen)) + "\n")
    if a.drop_top:
        top = busiest(rings)
        if top:
            write_atomic(os.path.join(a.outdir, "dropped.txt"),
                         f"# {op_name(top[1]).upper()}\n" +
                         "\n".join(policy_lines(rings, gen, drop=top)) + "\n")
            write_atomic(os.path.join(a.outdir, "filter-miss.txt"),
                         f"# {op_name(top[1]).upper()}\n" +
                         "\n".join(policy_lines(rings, gen, miss=top)) + "\n")
    for n in notes:
        print(f"policy: {n}", file=sys.stderr)
    real = [i for i in rings if i > 0]
    if not real:
        sys.exit("policy: the command set up no io_uring ring: there is no policy to make")
    return 0


if __name__ == "__main__":
    sys.exit(main())
