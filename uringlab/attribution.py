"""python3 -m uringlab.attribution RUN: turn the insn-count plugin's windows of a trace run
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

When the plugin ran its cache model (cache=1), also:

  memory.csv        per window: modelled data accesses, L1D and L2 misses
                    per op (kernel, user), distinct kernel lines, and the
                    ring contexts' distinct lines per ring and L1D misses
                    per op (contexts: tracing/ring-ctx.sh's addresses and
                    the build's sizeof(struct io_ring_ctx))
  memory-functions.csv  per kernel, cell, ring and function: median
                    accesses, L1D and L2 misses per op, distinct lines
  memory-attribution.csv  restricted - unrestricted per kernel, and each
                    kernel against baseline (unrestricted rings) and
                    upstream (restricted rings): totals, then functions
  cache-probe.csv   the model's check: known access patterns' misses

Kernel addresses resolve through the System.map kept with the run (the
guest boots with nokaslr). User-space instructions are one bucket, [user].
"""
import bisect
import os
import statistics
import sys

from uringlab import cells
from uringlab.numfmt import fmt3 as fmt
from uringlab.plugin import by_function, disassemble, load_symbols, read_windows, \
    traced_kernels, vmlinux
from uringlab.runfolder import read_jsonl, write_atomic, write_csv

NOISE = 0.05     # instructions per op below which a difference is not shown


def ring_contexts(raw):
    """{pid: [context address]} of the rings the trace run created
    (tracing/ring-ctx.sh), and the size of a context (build time)."""
    ctx = {}
    path = os.path.join(raw, "ring-ctx.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                pid, addr = line.split()
                ctx.setdefault(int(pid), []).append(int(addr, 16))
    size = None
    path = os.path.join(raw, "io_ring_ctx.size")
    if os.path.exists(path):
        with open(path) as f:
            size = int(f.read().split()[0])
    return ctx, size


def in_objects(addr, starts, size):
    """addr lies in one of the objects [start, start + size), starts sorted"""
    i = bisect.bisect_right(starts, addr) - 1
    return i >= 0 and addr < starts[i] + size


MEM_COLS = ["accesses", "l1d_misses", "l2_misses", "lines", "ctx_lines", "ctx_l1d_misses"]


def mem_row(k, cell, ring, j, win, ctxs, ctx_size):
    """A window's cache-model figures: per op, and the ring contexts'
    distinct lines per ring (lines any instruction of the window touched
    in the objects of the rings this run created)."""
    ops = j["ops"]
    ua, u1, u2 = win.mem["user"]
    ka, k1, k2 = win.mem["kernel"]
    starts = sorted(ctxs.get(int(j.get("pid", -1)), []))
    nrings = int(j.get("rings") or 1)
    lines, ctx_lines, ctx_miss = set(), set(), 0
    for line, _, _, miss in win.lines:
        lines.add(line)
        if ctx_size and starts and in_objects(line, starts, ctx_size):
            ctx_lines.add(line)
            ctx_miss += miss
    known = bool(ctx_size and starts)
    return [k, cell, ring, j.get("rep", ""), ops, fmt(ka / ops), fmt(k1 / ops), fmt(k2 / ops),
            len(lines), fmt(ua / ops), fmt(u1 / ops), fmt(u2 / ops), nrings,
            fmt(len(ctx_lines) / nrings) if known else "",
            fmt(ctx_miss / ops) if known else "", ctx_size or ""]


def mem_by_function(win, addrs, names, ops):
    """{function: [accesses, L1D misses, L2 misses per op, distinct lines]}"""
    funcs, lines = {}, {}
    for a, (acc, m1, m2) in win.addr_mem.items():
        i = bisect.bisect_right(addrs, a) - 1
        f = funcs.setdefault(names[i] if i >= 0 else "[unknown]", [0.0, 0.0, 0.0, 0])
        f[0] += acc / ops
        f[1] += m1 / ops
        f[2] += m2 / ops
    for line, a, _, _ in win.lines:
        i = bisect.bisect_right(addrs, a) - 1
        lines.setdefault(names[i] if i >= 0 else "[unknown]", set()).add(line)
    for name, ls in lines.items():
        funcs.setdefault(name, [0.0, 0.0, 0.0, 0])[3] = len(ls)
    u = win.mem["user"]
    funcs["[user]"] = [u[0] / ops, u[1] / ops, u[2] / ops, 0]
    return funcs


def cache_probe_rows(k, raw):
    """The cache model's check (tracing/cache-probe.c): per case, the
    probe window's user-space misses per read."""
    path = os.path.join(raw, "cache-probe.jsonl")
    if not os.path.exists(path):
        return []
    cases = read_jsonl(path)
    probes = read_windows(os.path.join(raw, "insn-count.txt"), probes=True)
    rows = []
    for c, w in zip(cases, probes):
        if w.mem is None:
            continue
        acc, m1, m2 = w.mem["user"]
        rows.append([k, c["case"], c["bytes"], c["passes"], c["reads"], acc,
                     f"{m1 / c['reads']:.4f}", f"{m2 / c['reads']:.4f}"])
    return rows


def write_memory(out, rows, per, kernels, cell_list):
    """memory.csv (per window), memory-functions.csv (median per function)
    and memory-attribution.csv (the comparisons of attribution.csv, in
    modelled misses and lines)."""
    write_csv(os.path.join(out, "memory.csv"),
              ["kernel", "cell", "ring", "rep", "ops", "kernel_accesses_per_op",
               "kernel_l1d_misses_per_op", "kernel_l2_misses_per_op", "kernel_lines",
               "user_accesses_per_op", "user_l1d_misses_per_op", "user_l2_misses_per_op",
               "rings", "ctx_lines_per_ring", "ctx_l1d_misses_per_op", "ctx_size"], rows)
    med, fn_rows = {}, []
    for key, reps in sorted(per.items()):
        med[key] = {}
        for name in set().union(*reps):
            vals = [r.get(name, [0.0, 0.0, 0.0, 0]) for r in reps]
            m = [statistics.median(v[i] for v in vals) for i in range(4)]
            med[key][name] = m
            if m[1] >= 0.01 or m[3]:
                fn_rows.append([*key, name, len(vals), fmt(m[0]), fmt(m[1]), fmt(m[2]), m[3]])
    fn_rows.sort(key=lambda r: (r[0], r[1], r[2], -float(r[6])))
    write_csv(os.path.join(out, "memory-functions.csv"),
              ["kernel", "cell", "ring", "function", "reps", "accesses_per_op",
               "l1d_misses_per_op", "l2_misses_per_op", "lines"], fn_rows)
    # window medians of the per-op columns, for the comparisons
    win = {}
    for r in rows:
        win.setdefault((r[0], r[1], r[2]), []).append(r)
    wmed = {key: [statistics.median(float(r[i]) for r in rs) if all(r[i] != "" for r in rs) else None
                  for i in (5, 6, 7, 13, 14)] for key, rs in win.items()}
    comps = []
    for c in cell_list:
        for k in kernels:
            if (k, c, "unrestricted") in wmed and (k, c, "restricted") in wmed:
                comps.append((f"{k}: restricted - unrestricted", c, (k, c, "unrestricted"),
                              (k, c, "restricted")))
        for k in kernels:
            for ring in ("unrestricted", "restricted"):
                b = "baseline" if ring == "unrestricted" else "upstream"
                if k != b and (b, c, ring) in wmed and (k, c, ring) in wmed:
                    comps.append((f"{k} - {b}: {ring}", c, (b, c, ring), (k, c, ring)))
    at_rows = []
    names = ["kernel accesses", "L1D misses", "L2 misses", "ctx lines per ring", "ctx L1D misses"]
    for name, c, a, b in comps:
        for i, what in enumerate(names):
            va, vb = wmed[a][i], wmed[b][i]
            if va is not None and vb is not None:
                at_rows.append([name, c, "[total]", what, fmt(va), fmt(vb), fmt(vb - va)])
        fa, fb = med.get(a, {}), med.get(b, {})
        rows_f = []
        for f in set(fa) | set(fb):
            za, zb = fa.get(f, [0.0] * 4), fb.get(f, [0.0] * 4)
            if abs(zb[1] - za[1]) >= 0.01:
                rows_f.append([name, c, f, "L1D misses", fmt(za[1]), fmt(zb[1]), fmt(zb[1] - za[1])])
            if zb[3] != za[3]:
                rows_f.append([name, c, f, "lines", za[3], zb[3], zb[3] - za[3]])
        rows_f.sort(key=lambda r: -abs(float(r[6])))
        at_rows += rows_f
    write_csv(os.path.join(out, "memory-attribution.csv"),
              ["comparison", "cell", "function", "measure", "a", "b", "delta"], at_rows)


# Where a BPF filter's instructions go (issue 17), by the functions the
# filtered ring runs more of than the unrestricted one. The program is the
# classic program converted to eBPF: run by the interpreter, or as a JIT
# image in the module area ("[bpf jit]", by_function()).
# Exit is what io_run_bpf_filters() runs after its last call (run_exit()).
# Entry is the way from the opcode table to the program, io_submit_sqes()'s
# share included (the part of io_init_req() that io_init_req_slow() runs
# instead is a negative there), the context's fixed fields too: since the
# registration-time verdicts, io_run_bpf_filters() builds them inline.
# Context build is the opcode's payload. The program includes the indirect
# calls into it (retpoline thunks; the interpreter's own jumps go through
# them too). A symbol's compiler suffix (.constprop.0, .isra.0, .cold)
# counts as the function.
FILTER_ENTRY = {"io_init_req_slow", "io_init_req_filtered", "io_run_bpf_filters",
                "migrate_disable", "io_init_req", "io_submit_sqes"}
FILTER_CTX = {"io_bpf_ctx_build", "io_socket_bpf_ctx", "io_open_bpf_ctx",
              "io_connect_bpf_ctx"}
FILTER_EXIT = {"migrate_enable", "preempt_schedule", "preempt_schedule_thunk"}


def filter_phase(name):
    name = name.split(".")[0]
    if name.startswith("__x86_indirect_thunk"):
        return "program"
    if name.startswith("__x86_return_thunk"):
        return "entry"
    if name in FILTER_CTX:
        return "context build"
    if name in FILTER_EXIT:
        return "exit"
    if name in FILTER_ENTRY:
        return "entry"
    if (name.startswith("___bpf_prog_run") or name.startswith("__bpf_prog_run")
            or name.startswith("bpf_prog_") or name.startswith("bpf_dispatcher")
            or name == "[bpf jit]"):
        return "program"
    return "other"


def run_exit(k, raw_addr, key, symbols):
    """The instructions per op io_run_bpf_filters() runs from turning
    preemption back on after the chain to its return (the stack
    protector's check and the pops included): its exit, which function
    totals cannot tell from its entry. 0 when the run has no addresses for
    it or the code does not have that shape."""
    addrs, names = symbols
    if "io_run_bpf_filters" not in names or key not in raw_addr:
        return 0.0
    i = names.index("io_run_bpf_filters")
    lo, hi = addrs[i], addrs[i + 1]
    dis = disassemble(vmlinux(k), lo, hi)
    reps = raw_addr[key]
    count = {a: statistics.median(r.get(a, 0.0) for r in reps) for a in dis}
    order = sorted(dis)
    # the program's call, then preempt_enable()
    prog = [a for a in order if dis[a].startswith("call") and "indirect_thunk" in dis[a]
            and count[a] > 0]
    if not prog:
        return 0.0
    # the one decl the program's calls (fused, or a chain's loop) all reach
    start = next((a for a in order if "__preempt_count" in dis[a]
                  and dis[a].startswith("decl") and count[a] > 0), None)
    if start is None:
        return 0.0
    total = 0.0
    for a in order[order.index(start):]:
        total += count[a]
        if "__x86_return_thunk" in dis[a] or dis[a].startswith("ret"):
            break
    return total


def write_filter_phases(out, med, comparisons, raw_addr=None, symbols=None):
    """filter-phases.csv: each filtered - unrestricted comparison's delta
    per op split into entry, context build, program, exit and other (the
    other's largest functions named)."""
    rows = []
    for name, c, a, b in comparisons:
        if not name.endswith("filtered - unrestricted"):
            continue
        fa, fb = med[a], med[b]
        phases, other = {}, {}
        ex = run_exit(b[0], raw_addr or {}, b, (symbols or {}).get(b[0], ([], [])))
        for f in set(fa) | set(fb):
            d = fb.get(f, 0.0) - fa.get(f, 0.0)
            ph = filter_phase(f)
            phases[ph] = phases.get(ph, 0.0) + d
            if ph == "other" and abs(d) >= NOISE:
                other[f] = d
        phases["entry"] = phases.get("entry", 0.0) - ex
        phases["exit"] = phases.get("exit", 0.0) + ex
        top = sorted(other.items(), key=lambda x: -abs(x[1]))[:4]
        total = sum(fb.values()) - sum(fa.values())
        for ph in ("entry", "context build", "program", "exit", "other"):
            rows.append([name, c, ph, fmt(phases.get(ph, 0.0)), fmt(total),
                         "; ".join(f"{f} {d:+.2f}" for f, d in top) if ph == "other" else ""])
    write_csv(os.path.join(out, "filter-phases.csv"),
              ["comparison", "cell", "phase", "delta_per_op", "total_delta_per_op",
               "largest_others"], rows)


def main():
    run = os.path.abspath(sys.argv[1])
    kernels = traced_kernels(run)
    if not kernels:
        sys.exit(f"attribution: no insn-count.txt and windows.jsonl under {run}/raw")
    out = os.path.join(run, "trace")
    os.makedirs(out, exist_ok=True)

    win_rows, per = [], {}     # per[(kernel, cell, ring)] = [ {func: n/op} ]
    mem_rows, mem_per = [], {}  # the cache model's, when the plugin ran it
    raw_addr = {}              # raw_addr[(kernel, cell, ring)] = [ {addr: n/op} ]
    symbols = {}
    for k in kernels:
        raw = os.path.join(run, "raw", k)
        symbols[k] = load_symbols(os.path.join(raw, "System.map"))
        windows = read_windows(os.path.join(raw, "insn-count.txt"))
        runs = read_jsonl(os.path.join(raw, "windows.jsonl"))
        if len(windows) != len(runs):
            sys.exit(f"attribution: {k}: {len(windows)} plugin windows but "
                     f"{len(runs)} ringbench runs: the two cannot be paired")
        ctxs, ctx_size = ring_contexts(raw)
        for win, j in zip(windows, runs):
            user, kern, counts = win.user, win.kernel, win.counts
            ops = j["ops"]
            cell, ring = cells.name(j), j["ring"]
            if win.mem is not None:
                mem_rows.append(mem_row(k, cell, ring, j, win, ctxs, ctx_size))
                mem_per.setdefault((k, cell, ring), []).append(
                    mem_by_function(win, *symbols[k], ops))
            if sum(counts.values()) != kern:
                sys.exit(f"attribution: {k}: a window's addresses do not add up to its total")
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
    cell_list = sorted({c for (_, c, _) in med})
    for k in kernels:
        for c in cell_list:
            if (k, c, "restricted") in med and (k, c, "unrestricted") in med:
                comparisons.append((f"{k}: restricted - unrestricted", c,
                                    (k, c, "unrestricted"), (k, c, "restricted")))
            if (k, c, "filtered") in med and (k, c, "unrestricted") in med:
                comparisons.append((f"{k}: filtered - unrestricted", c,
                                    (k, c, "unrestricted"), (k, c, "filtered")))
    for k in kernels:
        if k == "baseline":
            continue
        for c in cell_list:
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
    write_filter_phases(out, med, comparisons, raw_addr, symbols)

    # the instructions a restricted ring adds, address by address
    for k in kernels:
        addrs, names = symbols[k]
        image = vmlinux(k)
        for c in cell_list:
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
                dis = disassemble(image, lo, hi)
                total = sum(by_fn[i].values())
                lines.append(f"{names[i]} ({total:+.2f} per op):")
                for a in sorted(by_fn[i]):
                    lines.append(f"  {a:x} <+{a - lo:#x}>  {by_fn[i][a]:+7.2f}  {dis.get(a, '?')}")
                lines.append("")
            write_atomic(os.path.join(out, f"hot-{k}-{cells.slug(c)}.txt"),
                         "\n".join(lines))
    if mem_rows:
        write_memory(out, mem_rows, mem_per, kernels, cell_list)
    probe_rows = []
    for k in kernels:
        probe_rows += cache_probe_rows(k, os.path.join(run, "raw", k))
    if probe_rows:
        write_csv(os.path.join(out, "cache-probe.csv"),
                  ["kernel", "case", "bytes", "passes", "reads", "user_accesses",
                   "l1d_misses_per_read", "l2_misses_per_read"], probe_rows)
    print(f"[trace] attribution: {len(win_rows)} windows, {len(comparisons)} comparisons in {out}"
          + (f", cache model in {len(mem_rows)}" if mem_rows else ""))


if __name__ == "__main__":
    main()
