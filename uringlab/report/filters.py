"""report/filters.py: the BPF filters section (bench_summary's
filters.csv)."""
from uringlab.numfmt import num


FILTER_TEXT = {
    "allow": "1 instruction (return 1)",
    "real": "13 instructions on user_data and sqe_flags, 12 run",
    "other": "1 instruction, on IORING_OP_SOCKET: NOP has none",
    "socket": "family and type, 7 or 9 instructions",
    "open": "open flags, 4 instructions",
}


def filter_text(f):
    name, _, rest = f.partition("x")
    jit = "JIT off" if f.endswith("-nojit") else "JIT on"
    name = name.replace("-nojit", "")
    n = rest.replace("-nojit", "")
    return f"{FILTER_TEXT.get(name, name)}{', ' + n + ' stacked' if n else ''}, {jit}"


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
    return out
