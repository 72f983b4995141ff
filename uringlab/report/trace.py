"""report/trace.py: the REPORT.md section of a trace run (make trace),
read from RUN/trace/ (attribution, mca, trace_summary) and the run's
pictures; every figure comes from the run's own files.

section() gives the subsections' order only; each subsection is a
function below that returns its lines, none when the run lacks its table
(a trace run without the cache model or the filter cells still reports).

Its medians of the CSV figures are upper medians (the middle row, or the
upper of the two): what the trace report has always shown, so not
stats' statistics.median.
"""
import os

from uringlab.cells import trace_order
from uringlab.numfmt import num
from uringlab.runfolder import RunFolder, read_csv_file
from uringlab.stats import upper_median


def _f(s):
    return num(s, 2)


def _csv(run, name):
    return read_csv_file(os.path.join(run, "trace", name))


def _distinct(rows, key):
    """key(row) of each row, first-seen order: the tables keep the order
    the CSV writer chose rather than sorting it again"""
    return list(dict.fromkeys(key(r) for r in rows))


def _cell_kernel_ring(r):
    return r["cell"], r["kernel"], r["ring"]


def _upper_median(rows, col):
    return upper_median(float(r[col]) for r in rows if r[col] != "")


def _model(run):
    """the plugin's cache-model line, as the first kernel's output has it"""
    raw = os.path.join(run, "raw")
    for k in sorted(os.listdir(raw)) if os.path.isdir(raw) else []:
        path = os.path.join(raw, k, "insn-count.txt")
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    if line.startswith("# cache model:"):
                        return line[len("# cache model:"):].strip()
                    if not line.startswith("#"):
                        break
    return "?"


def summary(run):
    """The trace report's opening: per comparison of attribution.csv, its
    total on NOP batch 32 and its range over the cells; a BPF filter's
    phases; the cache model's largest difference. [] without
    attribution.csv."""
    tot = [r for r in _csv(run, "attribution.csv") if r["function"] == "[total]"]
    if not tot:
        return []
    out = ["## Summary\n",
           "Every guest instruction of ringbench's timed window, per op, as the plugin "
           "counted it (b − a, medians over the repetitions):\n"]
    w = out.append
    for comp in _distinct(tot, lambda r: r["comparison"]):
        rows = {}
        for r in tot:
            if r["comparison"] == comp:
                rows.setdefault(r["cell"], float(r["delta_per_op"]))
        lo, hi = min(rows, key=rows.get), max(rows, key=rows.get)
        nop = f"{rows['nop b=32']:+.2f} on nop b=32; " if "nop b=32" in rows else ""
        w(f"- **{comp}**: {nop}" + (f"{rows[lo]:+.2f} ({lo}) .. {rows[hi]:+.2f} ({hi}) over "
                                    f"{len(rows)} cells" if len(rows) > 1 else
                                    f"{rows[lo]:+.2f} ({lo})") + ".")
    phases = _csv(run, "filter-phases.csv")
    cells = _distinct(phases, lambda r: r["cell"])
    if cells:
        c = "nop b=32 F=real" if "nop b=32 F=real" in cells else cells[0]
        ph = [r for r in phases if r["cell"] == c]
        w(f"- **A BPF filter's instructions, {c}**: "
          + ", ".join(f"{r['phase']} {float(r['delta_per_op']):+.2f}" for r in ph)
          + f" (total {float(ph[0]['total_delta_per_op']):+.2f}).")
    mem = [r for r in _csv(run, "memory-attribution.csv")
           if r["function"] == "[total]" and r["measure"] == "L1D misses"]
    if mem:
        big = max(mem, key=lambda r: abs(float(r["delta"])))
        w(f"- **Cache model**: the largest difference in modelled L1D misses per op is "
          f"{float(big['delta']):+.2f} ({big['comparison']}, {big['cell']}).")
    w("")
    return out


def section(run):
    """REPORT.md lines."""
    out = []
    for part in (intro, cache_lines, attribution, filter_phases, plugin_agreement,
                 repeatability, top_functions, perf_shares, bpftrace, insn_plots,
                 trace_files):
        out += part(run)
    return out


def intro(run):
    out = []
    w = out.append
    w("## Where the cost goes (`make trace`)\n")
    w("Three views of the same workloads, each kernel booted under TCG with "
      "`-icount shift=0,sleep=off` and the lab's QEMU plugin "
      "(`tracing/insn-count.c`):\n")
    w("- **insn-count plugin**: QEMU counts every guest instruction by kernel "
      "address inside ringbench's timed loop (the window opens and closes with "
      "marker NOPs, `ringbench -m`); addresses resolve to functions through the "
      "kernel's System.map. Exact, and nothing runs in the guest to observe it.")
    perf_accel = RunFolder(run).env().get("perf_accel", "")
    w(f"- **perf**: `perf record -e cpu-clock -F 20000 -g` in a second boot of each kernel, "
      f"on {perf_accel or '?'} without `-icount` (no PMU under TCG: a software clock). "
      "Under `-icount` the sampling timer and a periodic workload run in lockstep and the "
      "samples alias onto a few phases of the loop; wall-clock TCG time has the jitter "
      "sampling needs, but weighs each instruction by what QEMU takes to emulate it.")
    w("- **bpftrace**: `tracing/*.bt` in the guest; its probes cost more than a "
      "NOP SQE, so it counts and compares rings, it does not give absolute costs.\n")
    return out


def cache_lines(run):
    """one subsection: the differences, llvm-mca and the probe are read
    against the model's table, so none of them goes in without memory.csv"""
    mem = _csv(run, "memory.csv")
    if not mem:
        return []
    return (_memory_table(run, mem) + _memory_differences(run) + _mca(run, mem)
            + _cache_probe(run))


def _memory_table(run, mem):
    out = []
    w = out.append
    w("### Cache lines: what `-icount` cannot see\n")
    w(f"The plugin's cache model ({_model(run)}; defaults: one Golden Cove core, "
      "Intel Xeon 4th gen) runs every data access of the boot, user space included, "
      "through a modelled L1D and L2. Misses are the model's, not a measurement of any "
      "CPU: no prefetcher, no other core, no TLB. *ctx lines / ring* counts the distinct "
      "64-byte lines of the rings' `struct io_ring_ctx` that the window touched, divided "
      "by the number of rings (one ring: every line any of its submits touched); "
      "*ctx misses* are the L1D misses on those lines. Medians over the repetitions.\n")
    w("| cell | kernel | ring | kernel accesses /op | L1D misses /op | L2 misses /op | "
      "ctx lines / ring | ctx L1D misses /op | user L1D misses /op |")
    w("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for cell, k, ring in sorted(_distinct(mem, _cell_kernel_ring), key=trace_order):
        rows = [r for r in mem if (r["cell"], r["kernel"], r["ring"]) == (cell, k, ring)]
        vals = [_upper_median(rows, c)
                for c in ("kernel_accesses_per_op", "kernel_l1d_misses_per_op",
                          "kernel_l2_misses_per_op", "ctx_lines_per_ring",
                          "ctx_l1d_misses_per_op", "user_l1d_misses_per_op")]
        w(f"| {cell} | {k} | {ring} | " + " | ".join("?" if v is None else f"{v:,.2f}" for v in vals)
          + " |")
    w("")
    return out


def _memory_differences(run):
    tot = [r for r in _csv(run, "memory-attribution.csv") if r["function"] == "[total]"]
    if not tot:
        return []
    out = []
    w = out.append
    w("Differences (b − a, medians): each kernel's restricted ring against its unrestricted "
      "one, patched's and upstream's unrestricted rings against baseline's, patched's "
      "restricted ring against upstream's. By function: `trace/memory-attribution.csv`.\n")
    w("| comparison | cell | kernel accesses | L1D misses | L2 misses | ctx lines / ring | "
      "ctx L1D misses |")
    w("|---|---|---:|---:|---:|---:|---:|")
    for comp, cell in _distinct(tot, lambda r: (r["comparison"], r["cell"])):
        d = {r["measure"]: float(r["delta"]) for r in tot
             if r["comparison"] == comp and r["cell"] == cell}
        w(f"| {comp} | {cell} | " + " | ".join(
            f"{d[m]:+.2f}" if m in d else "?" for m in
            ("kernel accesses", "L1D misses", "L2 misses", "ctx lines per ring",
             "ctx L1D misses")) + " |")
    w("")
    return out


def _mca(run, mem):
    mca = _csv(run, "mca.csv")
    if not mca:
        return []
    out = []
    w = out.append
    cpus = _distinct(mca, lambda r: r["cpu"])
    w("Side by side: kernel instructions per op (the plugin), modelled kernel L1D misses "
      "per op (the cache model) and a static estimate of kernel cycles per op: every "
      "basic block the window executed, through `llvm-mca` (Debian's LLVM "
      "14) for " + " and ".join(f"`{c}`" for c in cpus) + ", weighted by its executions "
      "per op (`uringlab/mca.py`). llvm-mca sees each block as a hot loop of itself: no "
      "misses, no mispredictions, so the estimate ranks paths and prices an extra "
      "instruction on real ports; the misses column says what it leaves out.\n")
    memk = {}
    for r in mem:
        memk.setdefault(_cell_kernel_ring(r), []).append(r)
    w("| cell | kernel | ring | kernel insns /op | L1D misses /op | "
      + " | ".join(f"est. cycles /op, {c}" for c in cpus) + " |")
    w("|---|---|---|---:|---:|" + "---:|" * len(cpus))
    for key in sorted(_distinct(mca, _cell_kernel_ring), key=trace_order):
        rows = {r["cpu"]: r for r in mca if _cell_kernel_ring(r) == key}
        first = rows[cpus[0]]
        m = _upper_median(memk.get(key, []), "kernel_l1d_misses_per_op")
        w(f"| {key[0]} | {key[1]} | {key[2]} | {_f(first['kernel_insns_per_op'])} | "
          f"{'?' if m is None else f'{m:,.2f}'} | "
          + " | ".join(_f(rows[c]["est_cycles_per_op"]) if c in rows else "?" for c in cpus)
          + " |")
    w("")
    return out


def _cache_probe(run):
    probe = _csv(run, "cache-probe.csv")
    if not probe:
        return []
    out = []
    w = out.append
    w("The model checked against access patterns whose misses are known "
      "(`tracing/cache-probe.c`: one read per 64-byte line, cyclically, after a warm "
      "pass; an LRU cache misses on every read of a walk larger than itself and on "
      "none of one that fits):\n")
    w("| kernel | case | buffer | reads | user accesses | L1D misses / read | "
      "L2 misses / read |")
    w("|---|---|---:|---:|---:|---:|---:|")
    for r in probe:
        w(f"| {r['kernel']} | {r['case']} | {int(r['bytes']) >> 10} KiB | {r['reads']} | "
          f"{r['user_accesses']} | {r['l1d_misses_per_read']} | {r['l2_misses_per_read']} |")
    w("")
    return out


def attribution(run):
    rows_all = _csv(run, "attribution.csv")
    if not rows_all:
        return []
    out = []
    w = out.append
    w("### Attribution of the restricted ring's extra instructions\n")
    w("Instructions per op, restricted ring minus unrestricted ring on the "
      "same kernel (median over the repetitions), per function; then each "
      "kernel's unrestricted ring against baseline's. Functions that moved "
      "by less than 0.05 instructions per op are left out; `[total]` is "
      "all of them, user space (`[user]`) included. A `.cold` symbol is the "
      "compiler's out-of-line part of the function before the dot.\n")
    for comp, cell in _distinct(rows_all, lambda r: (r["comparison"], r["cell"])):
        rows = [r for r in rows_all if r["comparison"] == comp and r["cell"] == cell]
        tot = next(r for r in rows if r["function"] == "[total]")
        w(f"**{comp}, {cell}**: {float(tot['delta_per_op']):+.2f} instructions per op "
          f"({_f(tot['a_per_op'])} → {_f(tot['b_per_op'])})\n")
        w("| function | a /op | b /op | Δ /op |")
        w("|---|---:|---:|---:|")
        for r in rows:
            if r["function"] != "[total]":
                w(f"| `{r['function']}` | {_f(r['a_per_op'])} | {_f(r['b_per_op'])} | "
                  f"{float(r['delta_per_op']):+.2f} |")
        w("")
    return out + _hot_listings(run)


def _hot_listings(run):
    hot = sorted(f for f in os.listdir(os.path.join(run, "trace")) if f.startswith("hot-"))
    if not hot:
        return []
    out = []
    w = out.append
    w("Instruction by instruction: `trace/hot-<kernel>-<cell>.txt` lists every "
      "address whose count per op differs between the rings, with its "
      "disassembly. For NOP batch 32:\n")
    for h in hot:
        if h.endswith("nop-b32.txt"):
            with open(os.path.join(run, "trace", h)) as f:
                body = [l for l in f.read().splitlines() if l and not l.startswith("#")]
            w(f"`{h}`:\n")
            w("```")
            out.extend(body[:40])
            if len(body) > 40:
                w(f"... ({len(body) - 40} more lines in the file)")
            w("```\n")
    return out


def filter_phases(run):
    phases = _csv(run, "filter-phases.csv")
    if not phases:
        return []
    out = []
    w = out.append
    w("### Where a BPF filter's instructions go\n")
    w("Filtered ring minus unrestricted ring on patched (`ringbench -r 2 -F ...`), "
      "instructions per op, by phase: **entry** (the opcode table sends the SQE to "
      "`io_init_req_slow()`, which runs the rest of its init there instead of in "
      "`io_submit_sqes()`, and `io_run_bpf_filters()` up to the program, the context's "
      "fixed fields and the verdicts worked out at registration included, return thunks "
      "too), **context build** (the opcode's payload: `io_socket_bpf_ctx()`, "
      "`io_open_bpf_ctx()`, `io_connect_bpf_ctx()`), **program** (the converted classic program and the indirect "
      "calls into it: `___bpf_prog_run` with the JIT off, the JIT image, `[bpf jit]`, "
      "with it on), **exit** (`io_run_bpf_filters()` from `preempt_enable()` to its "
      "return, by address) and **other** (everything else that moved, its largest "
      "functions named). `trace/filter-phases.csv`; per function: "
      "`trace/attribution.csv`.\n")
    w("| cell | entry | context build | program | exit | other | total | largest others |")
    w("|---|---:|---:|---:|---:|---:|---:|---|")
    for c in _distinct(phases, lambda r: r["cell"]):
        ph = {r["phase"]: r for r in phases if r["cell"] == c}
        w(f"| {c} | " + " | ".join(f"{float(ph[p]['delta_per_op']):+.2f}" for p in
                                   ("entry", "context build", "program", "exit", "other"))
          + f" | {float(ph['entry']['total_delta_per_op']):+.2f} | "
          f"{ph['other']['largest_others'] or '—'} |")
    w("")
    return out


def plugin_agreement(run):
    windows = _csv(run, "windows.csv")
    if not windows:
        return []
    out = []
    w = out.append
    w("### Does the plugin agree with the benchmark figure?\n")
    w("Each window is one ringbench run: its own icount figure (virtual ns "
      "per op = instructions per op, read from the guest clock) against the "
      "plugin's count of all guest instructions in the window, per op. The "
      "difference is the clock reads at the window's edges.\n")
    w("| kernel | cell | ring | windows | icount figure /op | plugin /op | largest |Δ| |")
    w("|---|---|---|---:|---:|---:|---:|")
    groups = {}
    for r in windows:
        groups.setdefault((r["kernel"], r["cell"], r["ring"]), []).append(r)
    for (k, c, ring), rs in groups.items():
        worst = max(rs, key=lambda r: abs(float(r["plugin_minus_icount_pct"])))
        ic = _upper_median(rs, "icount_per_op")
        pl = _upper_median(rs, "plugin_per_op")
        w(f"| {k} | {c} | {ring} | {len(rs)} | {ic:,.2f} | {pl:,.2f} | "
          f"{float(worst['plugin_minus_icount']):+.3f} ({float(worst['plugin_minus_icount_pct']):+.4f} %) |")
    w("")
    return out


def repeatability(run):
    rep = _csv(run, "repeatability.csv")
    if not rep:
        return []
    out = []
    w = out.append
    w("### Repeatability of the plugin's counts\n")
    w("Over the repetitions of each cell (windows in separate ringbench "
      "processes, interleaved with the other cells): spread = (max − min) / "
      "median of the window's total per op, and the largest spread of any "
      "function that runs at least one instruction per op.\n")
    w("| kernel | cell | ring | reps | total /op | spread | worst function | its spread |")
    w("|---|---|---|---:|---:|---:|---|---:|")
    for r in rep:
        w(f"| {r['kernel']} | {r['cell']} | {r['ring']} | {r['reps']} | {_f(r['total_median'])} | "
          f"{float(r['total_spread_pct']):.4f} % | `{r['worst_function']}` | "
          f"{float(r['worst_function_spread_pct']):.4f} % |")
    w("")
    return out


def top_functions(run):
    """no heading of its own: the report has always run it on from the
    plugin's repeatability table"""
    functions = _csv(run, "functions.csv")
    if not functions:
        return []
    out = []
    w = out.append
    w("Top kernel functions per op (NOP batch 32, unrestricted; full table in "
      "`trace/functions.csv`):\n")
    ks = sorted({r["kernel"] for r in functions})
    w("| function | " + " | ".join(ks) + " |")
    w("|---|" + "---:|" * len(ks))
    rows = [r for r in functions if r["cell"] == "nop b=32" and r["ring"] == "unrestricted"]
    per = {}
    for r in rows:
        per.setdefault(r["function"], {})[r["kernel"]] = float(r["median_per_op"])
    top = sorted(per, key=lambda f: -max(per[f].values()))[:12]
    for fn in top:
        w(f"| `{fn}` | " + " | ".join(f"{per[fn].get(k, 0):,.2f}" for k in ks) + " |")
    w("")
    return out


def perf_shares(run):
    perf = _csv(run, "perf-shares.csv")
    if not perf:
        return []
    out = []
    w = out.append
    w("### perf: share of samples per symbol\n")
    w("Top symbols of `perf report --no-children --sort sym` per kernel and ring "
      "(full lists in `trace/perf-shares.csv`; annotated `io_submit_sqes` in "
      "`raw/<kernel>/perf/<cell>.<ring>.annotate.txt`, folded stacks in "
      "`*.folded`). Shares are of samples on the perf boot's clock: the "
      "plugin's table, not perf's, sizes a 20-instruction check.\n")
    for cell in sorted({r["cell"] for r in perf}):
        out += _perf_cell(perf, cell) + _perf_check(run, cell)
        png = f"plots/trace-perf-{cell}.png"
        if os.path.exists(os.path.join(run, png)):
            w(f"![perf shares, {cell}]({png})\n")
    return out


def _perf_cell(perf, cell):
    out = []
    w = out.append
    rows = [r for r in perf if r["cell"] == cell]
    vs = _distinct(rows, lambda r: (r["kernel"], r["ring"]))
    per = {}
    for r in rows:
        per.setdefault(r["symbol"], {})[(r["kernel"], r["ring"])] = float(r["pct_samples"])
    top = sorted(per, key=lambda s: -max(per[s].values()))[:8]
    w(f"**{cell}**\n")
    w("| symbol | " + " | ".join(f"{k} {ring[:5]}." for k, ring in vs) + " |")
    w("|---|" + "---:|" * len(vs))
    for s in top:
        w(f"| `{s}` | " + " | ".join(f"{per[s].get(v, 0):.1f} %" for v in vs) + " |")
    w("")
    return out


def _perf_check(run, cell):
    chk = [r for r in _csv(run, "perf-check.csv") if r["cell"] == cell]
    if not chk:
        return []
    out = []
    w = out.append
    w("The check's own share, from `perf annotate`: the samples that fell on "
      "the instructions the plugin found the restricted ring adds "
      "(`trace/hot-*.txt`), as a share of `io_submit_sqes` and of all "
      "samples (`trace/perf-check.csv`). On the unrestricted ring those "
      "addresses never execute, so no sample may land on them.\n")
    w("| kernel | ring | io_submit_sqes | check's addresses, of it | of all samples |")
    w("|---|---|---:|---:|---:|")
    for r in chk:
        w(f"| {r['kernel']} | {r['ring']} | {r['io_submit_sqes_pct_of_samples']} % | "
          f"{r['check_pct_of_io_submit_sqes']} % | {r['check_pct_of_samples']} % |")
    w("")
    return out


def bpftrace(run):
    bt = _csv(run, "bpftrace.csv")
    if not bt:
        return []
    out = []
    w = out.append
    w("### bpftrace\n")
    w("`tracing/submit-latency.bt` (NOP batch 32): median bucket of "
      "io_submit_sqes() time per SQE and per io_uring_enter call, probes "
      "included. `tracing/opcodes.bt`: SQEs per opcode, denials. "
      "`tracing/ring-lifecycle.bt` (setup): rings and registrations. "
      "All values in `trace/bpftrace.csv`, raw JSON in `raw/<kernel>/bpftrace/`.\n")
    w("| kernel | script | cell | ring | map | key | count/value | median bucket |")
    w("|---|---|---|---|---|---|---:|---|")
    for r in bt:
        if r["map"] in ("@sqe_ns", "@enter_ns", "@submitted", "@denied", "@cqe_eacces",
                        "@rings", "@register", "@failed"):
            key = r["key"]
            if r["map"] in ("@submitted", "@denied", "@failed"):
                key = key.split(",", 1)[-1]     # the ring's address varies
            if r["map"] == "@cqe_eacces":
                key = ""
            w(f"| {r['kernel']} | {r['script']} | {r['cell']} | {r['ring']} | `{r['map']}` | "
              f"{key} | {r['count_or_value']} | {r['median_bucket']} |")
    w("")
    if os.path.exists(os.path.join(run, "plots", "trace-sqe-hist.png")):
        w("![bpftrace: io_submit_sqes time per SQE](plots/trace-sqe-hist.png)\n")
    return out


def insn_plots(run):
    plots = os.path.join(run, "plots")
    return [f"![insn-count attribution, {f[11:-4]}](plots/{f})\n"
            for f in (sorted(os.listdir(plots)) if os.path.isdir(plots) else [])
            if f.startswith("trace-insn-") and f.endswith(".png")]


def trace_files(run):
    return ["### Trace files\n",
            "`raw/<kernel>/insn-count.txt` (the plugin's windows: counts per kernel "
            "address), `raw/<kernel>/windows.jsonl` (ringbench's line per window, same "
            "order), `raw/<kernel>/System.map`, `raw/<kernel>/bpftrace/<script>.<cell>.<ring>.json` "
            "(bpftrace's JSON output), `raw/<kernel>/perf/<cell>.<ring>.*` (perf.data, "
            "symbols.csv, report.txt, annotate.txt, folded), `trace/*.csv` and "
            "`trace/hot-*.txt` (uringlab/attribution.py, uringlab/trace_summary.py).\n"]
