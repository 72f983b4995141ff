"""report/filters.py: the BPF filters section (bench_summary's
filters.csv)."""
from uringlab.numfmt import num


FILTER_TEXT = {
    "allow": "1 instruction (return 1)",
    "real": "13 instructions on user_data and sqe_flags, 12 run",
    "other": "1 instruction, on IORING_OP_SOCKET: NOP has none",
    "socket": "family and type, 7 or 9 instructions",
    "open": "open flags, 4 instructions",
    "connect": "address and port, 8 instructions",
    "flags": "5 instructions on sqe_flags alone",
}

# What the registration makes of a filter on patched (kernel-patches
# 0017-0019), by the filter's name; "-chain" (ringbench -L 0) is the same
# filter made under io_uring.bpf_fold=0, run as registered
FORM = {"allow": "decided at registration", "flags": "decided at registration",
        "real": "decided on ranges of user_data"}


def split_filter(f):
    """"realx4-chain" -> ("real", "4", "chain")."""
    base, _, suffix = f.partition("-")
    name, _, n = base.partition("x")
    return name, n, suffix


def filter_text(f):
    name, n, suffix = split_filter(f)
    jit = "JIT off" if suffix == "nojit" else "JIT on"
    chain = ", as registered" if suffix == "chain" else ""
    return f"{FILTER_TEXT.get(name, name)}{', ' + n + ' stacked' if n else ''}, {jit}{chain}"


def form(f):
    """What patched runs for filter @f (ringbench's name)."""
    name, n, suffix = split_filter(f)
    if suffix == "chain":
        return "as registered, program by program"
    if name in FORM:
        return FORM[name]
    return "one fused program" if n else "one program"


def forms_table(rows, unit):
    """Each filter made both ways, on the same kernel and cell: the chain
    as registered beside the form the registration made of it."""
    # by ring too: "tables + filter real" is the same filter on another ring
    by = {(r["cell"], r["kernel"], r["ring"], r["check"].rsplit(" ", 1)[1]): r
          for r in rows if " filter " in r["check"] and r["check_per_op"]}
    out = []
    for (cell, kernel, ring, f), chain in by.items():
        if not f.endswith("-chain"):
            continue
        made = by.get((cell, kernel, ring, f[:-len("-chain")]))
        if not made:
            continue
        a, b = float(chain["check_per_op"]), float(made["check_per_op"])
        out.append(f"| {cell} | {filter_text(made['check'].rsplit(' ', 1)[1])} | {kernel} | "
                   f"{a:+.2f} | {b:+.2f} | {form(f[:-len('-chain')])} | {b - a:+.2f} |")
    if not out:
        return []
    return ["### Chain, decided and fused side by side\n",
            f"What a filter adds to the same kernel's unrestricted ring, in {unit}/op: made "
            "under `io_uring.bpf_fold=0` (the chain run as registered, program by program) "
            "and as the registration makes it (verdicts worked out on the opcode and flags "
            "or on ranges of user_data, a stack fused into one program). Same run, same boots.\n",
            "| cell | filter | kernel | as registered | as made | made into | change |",
            "|---|---|---|---:|---:|---|---:|"] + out + [""]


def section(rows, unit, icount, kl):
    """Per cell, baseline, upstream's bitmap, patched's tables and
    patched's filters side by side (bench_summary.write_filters)."""
    if not rows:
        return []
    per = "instructions per op (icount: 1 ns = 1 instruction)" if icount else "ns per op"
    out = ["## BPF filters side by side (IORING_REGISTER_BPF_FILTER)\n",
           f"Per cell, what each way of checking an SQE costs, in {per}: the median of the "
           "check's ring, and what the check adds to the same kernel's unrestricted ring in the "
           "same run (95 % interval). Filters exist on patched only (patches 0013, 0014); "
           "a filter row's own unrestricted ring is its filter cell's.\n"]
    cells = []
    for r in rows:
        if r["cell"] not in cells:
            cells.append(r["cell"])
    for c in cells:
        out.append(f"### {c}\n")
        out.append(f"| check | kernel | ring | median {unit}/op | check adds {unit}/op | % | 95 % CI |")
        out.append("|---|---|---|---:|---:|---:|---:|")
        for r in (r for r in rows if r["cell"] == c):
            check = r["check"]
            if " filter " in check:
                head, f = check.rsplit(" ", 1)
                check = f"{head} ({filter_text(f)})"
            ci = (f"{float(r['ci95_lo_pct']):+.3f} .. {float(r['ci95_hi_pct']):+.3f} %"
                  if r["ci95_lo_pct"] else "—")
            out.append(f"| {check} | {kl(r['kernel'])} | {r['ring']} | {num(r['median_per_op'], 2)} | "
                       f"{float(r['check_per_op']):+.2f} | {float(r['check_pct']):+.3f} % | {ci} |"
                       if r["check_per_op"] else
                       f"| {check} | {kl(r['kernel'])} | {r['ring']} | {num(r['median_per_op'], 2)} | "
                       f"— | — | — |")
        out.append("")
    return out + forms_table(rows, unit)
