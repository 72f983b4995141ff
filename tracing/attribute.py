#!/usr/bin/env python3
"""attribute.py RUN: turn the insn-count plugin's windows of a trace run
(tracing/run.sh) into instructions per op per kernel function, and diff
rings and kernels function by function. Writes RUN/trace/:

  windows.csv       per window: ringbench's icount figure (guest ns per op
                    = instructions per op) beside the plugin's count per op
  functions.csv     per kernel, cell, ring and function: median, min, max
                    instructions per op over the repetitions
  attribution.csv   per comparison (restricted - unrestricted on one kernel;
                    a kernel's unrestricted ring - baseline's), cell and
                    function: the difference in instructions per op
  repeatability.csv per kernel, cell and ring: spread of the total and of
                    the worst-spread function over the repetitions
  hot-<kernel>-<cell>.txt  the instructions whose count per op differs
                    between the restricted and the unrestricted ring, with
                    their disassembly (objdump of build/out/<kernel>/vmlinux)

Kernel addresses resolve through the System.map kept with the run (the
guest boots with nokaslr). User-space instructions are one bucket, [user].
"""
import bisect
import csv
import json
import os
import re
import statistics
import subprocess
import sys

LAB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOISE = 0.05     # instructions per op below which a difference is not shown


def load_symbols(path):
    addrs, names = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                addrs.append(int(parts[0], 16))
                names.append(parts[2])
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def read_windows(path):
    """The plugin's complete windows, in order: (user, kernel, {addr: n})."""
    windows, cur = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            if line.startswith("window "):
                p = line.split()
                cur = (int(p[3]), int(p[5]), {})
            elif line.startswith("end "):
                windows.append(cur)
                cur = None
            elif cur is not None:
                a, n = line.split()
                cur[2][int(a, 16)] = int(n)
    return windows


def cell_of(j):
    if j["workload"] in ("nop", "deny"):
        return f"{j['workload']} b={j['batch']}"
    return f"{j['workload']} qd={j['depth']}"


def by_function(counts, addrs, names):
    funcs = {}
    for a, n in counts.items():
        i = bisect.bisect_right(addrs, a) - 1
        name = names[i] if i >= 0 else "[unknown]"
        funcs[name] = funcs.get(name, 0) + n
    return funcs


def write_csv(path, header, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    os.replace(tmp, path)


def fmt(x):
    return f"{x:.3f}"


def disassemble(vmlinux, lo, hi):
    """{address: 'mnemonic operands'} for [lo, hi) of vmlinux."""
    if not os.path.exists(vmlinux):
        return {}
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn",
                          f"--start-address={lo:#x}", f"--stop-address={hi:#x}",
                          vmlinux], capture_output=True, text=True).stdout
    dis = {}
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
        if m:
            dis[int(m.group(1), 16)] = " ".join(m.group(2).split())
    return dis


def main():
    run = os.path.abspath(sys.argv[1])
    kernels = [k for k in ("baseline", "patched", "upstream")
               if os.path.exists(os.path.join(run, "raw", k, "insn-count.txt"))]
    if not kernels:
        sys.exit(f"attribute: no insn-count.txt under {run}/raw")
    out = os.path.join(run, "trace")
    os.makedirs(out, exist_ok=True)

    win_rows, per = [], {}     # per[(kernel, cell, ring)] = [ {func: n/op} ]
    raw_addr = {}              # raw_addr[(kernel, cell, ring)] = [ {addr: n/op} ]
    symbols = {}
    for k in kernels:
        raw = os.path.join(run, "raw", k)
        symbols[k] = load_symbols(os.path.join(raw, "System.map"))
        windows = read_windows(os.path.join(raw, "insn-count.txt"))
        with open(os.path.join(raw, "windows.jsonl")) as f:
            runs = [json.loads(line) for line in f if line.strip()]
        if len(windows) != len(runs):
            sys.exit(f"attribute: {k}: {len(windows)} plugin windows but "
                     f"{len(runs)} ringbench runs: the two cannot be paired")
        for (user, kern, counts), j in zip(windows, runs):
            ops = j["ops"]
            cell, ring = cell_of(j), j["ring"]
            if sum(counts.values()) != kern:
                sys.exit(f"attribute: {k}: a window's addresses do not add up to its total")
            plugin = (user + kern) / ops
            win_rows.append([k, cell, ring, j.get("rep", ""), ops, fmt(j["ns_per_op"]),
                             fmt(plugin), fmt(plugin - j["ns_per_op"]),
                             f"{100 * (plugin - j['ns_per_op']) / j['ns_per_op']:.4f}",
                             fmt(user / ops), fmt(kern / ops)])
            funcs = by_function(counts, *symbols[k])
            funcs["[user]"] = user
            per.setdefault((k, cell, ring), []).append({f: n / ops for f, n in funcs.items()})
            raw_addr.setdefault((k, cell, ring), []).append({a: n / ops for a, n in counts.items()})
    write_csv(os.path.join(out, "windows.csv"),
              ["kernel", "cell", "ring", "rep", "ops", "icount_per_op", "plugin_per_op",
               "plugin_minus_icount", "plugin_minus_icount_pct", "user_per_op", "kernel_per_op"],
              win_rows)

    med = {}
    fn_rows, rep_rows = [], []
    for key, reps in sorted(per.items()):
        names = set().union(*reps)
        med[key] = {}
        worst = ("", 0.0)
        for name in names:
            vals = [r.get(name, 0.0) for r in reps]
            m = statistics.median(vals)
            med[key][name] = m
            fn_rows.append([*key, name, len(vals), fmt(m), fmt(min(vals)), fmt(max(vals))])
            # spread of functions that matter (>= 1 instruction per op)
            if m >= 1 and (max(vals) - min(vals)) / m > worst[1]:
                worst = (name, (max(vals) - min(vals)) / m)
        totals = [sum(r.values()) for r in reps]
        tm = statistics.median(totals)
        rep_rows.append([*key, len(reps), fmt(tm), fmt(min(totals)), fmt(max(totals)),
                         f"{100 * (max(totals) - min(totals)) / tm:.4f}",
                         worst[0], f"{100 * worst[1]:.4f}"])
    fn_rows.sort(key=lambda r: (r[0], r[1], r[2], -float(r[5])))
    write_csv(os.path.join(out, "functions.csv"),
              ["kernel", "cell", "ring", "function", "reps", "median_per_op", "min_per_op",
               "max_per_op"], fn_rows)
    write_csv(os.path.join(out, "repeatability.csv"),
              ["kernel", "cell", "ring", "reps", "total_median", "total_min", "total_max",
               "total_spread_pct", "worst_function", "worst_function_spread_pct"], rep_rows)

    comparisons = []
    cells = sorted({c for (_, c, _) in med})
    for k in kernels:
        for c in cells:
            if (k, c, "restricted") in med and (k, c, "unrestricted") in med:
                comparisons.append((f"{k}: restricted - unrestricted", c,
                                    (k, c, "unrestricted"), (k, c, "restricted")))
    for k in kernels:
        if k == "baseline":
            continue
        for c in cells:
            if ("baseline", c, "unrestricted") in med and (k, c, "unrestricted") in med:
                comparisons.append((f"{k} - baseline: unrestricted", c,
                                    ("baseline", c, "unrestricted"), (k, c, "unrestricted")))
    at_rows = []
    for name, c, a, b in comparisons:
        fa, fb = med[a], med[b]
        at_rows.append([name, c, "[total]", fmt(sum(fa.values())), fmt(sum(fb.values())),
                        fmt(sum(fb.values()) - sum(fa.values()))])
        rows = []
        for f in set(fa) | set(fb):
            d = fb.get(f, 0.0) - fa.get(f, 0.0)
            if abs(d) >= NOISE:
                rows.append([name, c, f, fmt(fa.get(f, 0.0)), fmt(fb.get(f, 0.0)), fmt(d)])
        rows.sort(key=lambda r: -abs(float(r[5])))
        at_rows += rows
    write_csv(os.path.join(out, "attribution.csv"),
              ["comparison", "cell", "function", "a_per_op", "b_per_op", "delta_per_op"], at_rows)

    # the instructions a restricted ring adds, address by address
    for k in kernels:
        addrs, names = symbols[k]
        vmlinux = os.path.join(LAB, "build", "out", k, "vmlinux")
        for c in cells:
            ua, ra = raw_addr.get((k, c, "unrestricted")), raw_addr.get((k, c, "restricted"))
            if not ua or not ra:
                continue
            keys = set().union(*ua, *ra)
            diff = {}
            for a in keys:
                d = statistics.median(r.get(a, 0.0) for r in ra) - \
                    statistics.median(r.get(a, 0.0) for r in ua)
                if abs(d) >= 0.5:
                    diff[a] = d
            by_fn = {}
            for a, d in diff.items():
                i = bisect.bisect_right(addrs, a) - 1
                by_fn.setdefault(i, {})[a] = d
            lines = [f"# {k}, {c}: guest instructions per op that the restricted ring",
                     "# executes more (+) or fewer (-) than the unrestricted one, by",
                     "# address (median over the repetitions; |delta| >= 0.5 shown).", ""]
            for i in sorted(by_fn, key=lambda i: -sum(abs(d) for d in by_fn[i].values())):
                lo = addrs[i]
                hi = addrs[i + 1] if i + 1 < len(addrs) else lo + 4096
                dis = disassemble(vmlinux, lo, hi)
                total = sum(by_fn[i].values())
                lines.append(f"{names[i]} ({total:+.2f} per op):")
                for a in sorted(by_fn[i]):
                    lines.append(f"  {a:x} <+{a - lo:#x}>  {by_fn[i][a]:+7.2f}  {dis.get(a, '?')}")
                lines.append("")
            tmp = os.path.join(out, f"hot-{k}-{c.replace(' ', '-').replace('=', '')}.txt")
            with open(tmp + ".tmp", "w") as f:
                f.write("\n".join(lines))
            os.replace(tmp + ".tmp", tmp)
    print(f"[trace] attribution: {len(win_rows)} windows, {len(comparisons)} comparisons in {out}")


if __name__ == "__main__":
    main()
