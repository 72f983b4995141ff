#!/usr/bin/env python3
"""report.py RUN: write RUN/REPORT.md from the run's CSV tables (see
summarize_bench.py), its environment files and its plots. Every figure in the
report is read from this run's files: nothing is carried over from
elsewhere, and a cell the run did not measure is shown as absent.
"""
import glob
import os
import sys

from runfolder import RunFolder, kernel_of, read_csv_file, read_env_file
from summarize_bench import task_cell

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tracing"))
import report_trace  # noqa: E402  (make trace's section)


read_env = read_env_file
read_csv = read_csv_file


def num(s, nd=1):
    return f"{float(s):,.{nd}f}"


def main():
    rf = RunFolder(sys.argv[1])
    run = rf.path
    host = rf.env()
    instances = rf.instances
    boots = int(host.get("boots", "1") or 1)
    icount = host.get("accel") == "tcg-icount"
    unit = "instr" if icount else "ns"
    summary = read_csv(os.path.join(run, "summary.csv"))
    overhead = read_csv(os.path.join(run, "overhead.csv"))
    fio = read_csv(os.path.join(run, "fio.csv"))
    # Under icount the emulated NVMe disk's figures are the host's timing,
    # not the kernel's (nvme_note): they leave the tables, with the reason
    # and the range this run saw.
    nvme = [r for r in fio if r["job"].startswith("nvme-")] if icount else []
    fio = [r for r in fio if r not in nvme]
    kernels = host.get("kernels", "").split()

    traced = os.path.isdir(os.path.join(run, "trace"))
    # make bench writes bench.env first: its run folder gets a benchmark
    # report even when every cell failed
    bench = bool(summary) or os.path.exists(os.path.join(run, "bench.env"))

    out = []
    w = out.append
    if bench:
        w(f"# Benchmark report: {os.path.basename(run)}\n")
        w("What the io_uring ring-restriction checks cost on the submission path, "
          "per op, against the unpatched baseline. Produced by `make bench`; "
          "every figure below was measured in this run.\n")
    else:
        w(f"# Trace report: {os.path.basename(run)}\n")
        w("Where the io_uring ring-restriction checks spend their instructions, "
          "function by function, per kernel. Produced by `make trace`; every "
          "figure below was measured in this run.\n")

    w("## Environment\n")
    w("| | |\n|---|---|")
    w(f"| date (UTC) | {host.get('date', '?')} |")
    w(f"| accelerator | {host.get('accel', '?')}"
      + (f" (`-icount {host.get('icount')}`)" if icount else "") + " |")
    w(f"| QEMU | {host.get('qemu', '?')} |")
    w(f"| host | {host.get('host_cpu', '?')}, {host.get('host_cpus', '?')} CPUs, Linux {host.get('host_kernel', '?')} |")
    for k in kernels:
        mine = [i for i in instances if kernel_of(i) == k] or [k]
        bs = [read_env(os.path.join(run, "env", f"{i}.boot.env")) for i in mine]
        gs = [read_env(os.path.join(run, "env", f"{i}.guest.env")) for i in mine]
        rel = sorted({g.get("guest_release", b.get("kernel_release", "?")) for b, g in zip(bs, gs)})
        cs = [g.get("guest_clocksource", "?") for g in gs]
        cs = ", ".join(f"{c} ({cs.count(c)} of {len(cs)} boots)" if len(cs) > 1 else c
                       for c in sorted(set(cs)))
        w(f"| kernel `{k}` | {', '.join(rel)}, clocksource {cs}, "
          f"{gs[0].get('guest_cpus', '?')} guest CPU(s) |")
    w(f"| tree | {host.get('tree', '?')} |")
    w(f"| series | baseline {host.get('series_baseline', '?')}, restrictions "
      f"{host.get('series_restrictions', '?')}, lab.config {host.get('lab_config', '?')} |")
    w(f"| lab commit | {host.get('lab_commit', '?')} |")
    w(f"| tools | {host.get('fio', '?')}, liburing {host.get('liburing', '?')}"
      + (f", bpftrace {host.get('bpftrace', '?').replace('bpftrace ', '')}, "
         f"{host.get('perf', '?')}, insn-count plugin {host.get('plugin', '?')}" if traced else "")
      + " |")
    w(f"| settings | {host.get('settings', '?').strip()} |")
    w("")
    if icount:
        w("**Metric.** Under TCG with `-icount shift=0,sleep=off` one virtual "
          "nanosecond is one guest instruction, so every per-op figure here is "
          "**guest instructions per op** (user and kernel, everything the CPU "
          "ran while the op was timed) and ops/s are ops per virtual second. "
          "Wall time under TCG would measure QEMU, not the kernel.\n")
    else:
        w("**Metric.** Wall-clock ns per op and ops/s inside the guest.\n")
    if not bench:
        out.extend(report_trace.section(run, read_csv) if traced else ["No measurements in this run.\n"])
        return write_report(run, out)
    status, suspect_boots = run_health(run, instances)
    suspect = {kernel_of(i) for i in suspect_boots}
    out.extend(status)
    w("Each cell ran on every kernel on an unrestricted ring and on a ring "
      "restricted to what the workload needs (reads: `IOSQE_FIXED_FILE` "
      "required), repetitions interleaved, warm-up not counted, binaries on "
      "tmpfs. `baseline` has no ring restrictions: its restricted cells are "
      "absent, not estimated.\n")
    if boots > 1:
        w(f"**{boots} boots per kernel**, interleaved: each round boots "
          f"{', '.join(kernels)} once, the order rotated by one kernel each round "
          f"(`env/host.env` instances: {host.get('instances', '?')}). "
          "*Median* below is over every repetition of every boot; *spread* is "
          "(max − min) / median over repetitions; *between boots* is (max − min) / "
          "median of the boots' medians. Each boot gives a comparison one figure: "
          "within a kernel (restricted vs unrestricted ring, both in every boot, each "
          "repetition's two runs back to back) the median over the boot's repetitions "
          "of the pair's ratio; across kernels the ratio of the two boots' medians in "
          "the same round. A comparison is the geometric mean of those figures, and its "
          "95 % interval Student's t over their logs: it comes from the variation "
          "between boots, which is what moves a wall-clock figure. *Detectable* is the smallest true difference this run would have "
          "found at 5 % (two-sided) with 80 % power if the true spread between rounds "
          "is the one it saw. Each verdict is one comparison's own 95 % test, not "
          "corrected for the many in this report: about one in twenty true zeros "
          "will read as significant somewhere.\n")
    else:
        w("*Median* is over the repetitions; *spread* is (max − min) / median; the "
          "95 % interval of a comparison is a bootstrap (2000 resamples of both sides) "
          "of the ratio of medians. One boot per kernel"
          + (": under icount a boot repeats its figures to about 0.01 %." if icount else
             ": the interval covers the repetitions, not the variation between boots "
             "(`BOOTS=N` for that).") + "\n")

    def kl(k):
        return f"{k} ⚠" if k in suspect else k

    def cl(label):
        """a comparison's label, marked when a suspect kernel is in it"""
        return label + (" ⚠" if any(k in label for k in suspect) else "")

    # headline: the check's cost on NOP batch 32, when measured
    head = [r for r in overhead if r["cell"] == "nop b=32"
            and r["comparison"] in ("patched: restricted vs unrestricted",
                                    "upstream: restricted vs unrestricted",
                                    "patched vs baseline, unrestricted")]
    if head:
        w("## Headline (NOP, 32 SQEs per submit)\n")
        for r in head:
            w(f"- {cl(r['comparison'])}: {float(r['delta_per_op']):+.2f} {unit}/SQE, "
              f"{float(r['delta_pct']):+.3f} % (95 % CI {ci_text(r)}"
              + (f"; {verdict(r)}" if boots > 1 else "") + ")")
        w("")
    if boots > 1:
        out.extend(boots_section(rf, kernels, boots, unit))

    cells = []
    for r in summary:
        if r["cell"] not in cells:
            cells.append(r["cell"])
    failures = read_tsv(os.path.join(run, "FAILURES"))
    # a cell that failed on every kernel has no row, but still a section
    for f in failures:
        if len(f) > 1 and f[1].startswith("micro "):
            c = f[1][len("micro "):].split(",")[0]
            if c not in cells:
                cells.append(c)
    out.extend(side_by_side(summary, fio, cells, kernels, unit, kl))

    out.extend(filters_section(read_csv(os.path.join(run, "filters.csv")), unit, icount, kl))

    w("## Microbenchmarks (`bench/ringbench`)\n")
    notes = {
        "socket": "`IORING_OP_SOCKET` (AF_UNIX, SOCK_DGRAM, protocol 99, which af_unix refuses at once "
                  "with -EPROTONOSUPPORT: no file to close), 32 per submit; restricted = SOCKET allowed; "
                  "filtered = a classic BPF filter allowing AF_INET or AF_UNIX, stream or datagram.",
        "openat": "`IORING_OP_OPENAT` of a name that does not exist in /tmp (tmpfs, -ENOENT), 32 per "
                  "submit; restricted = OPENAT allowed; filtered = a classic BPF filter refusing "
                  "O_CREAT, O_TRUNC and O_TMPFILE.",
        "deny": "restricted = every NOP refused with -EACCES (policy allows reads only); unrestricted = the NOPs run.",
        "skip": "every NOP `IOSQE_CQE_SKIP_SUCCESS` (no CQE); restricted = NOP and that flag allowed.",
        "drain": "the batch's last NOP `IOSQE_IO_DRAIN`; restricted = NOP and that flag allowed.",
        "link": "NOPs in `IOSQE_IO_LINK` pairs; restricted = NOP and that flag allowed.",
        "async": "every NOP `IOSQE_ASYNC`, run by io-wq; restricted = NOP and that flag allowed.",
        "topop": "`IORING_OP_URING_CMD` (46, near the top of 6.1's opcodes) on fd -1, failing at once "
                 "with -EBADF; restricted = that opcode allowed.",
        "bufsel": "4 KiB O_DIRECT `IORING_OP_READ`s of null_blk with `IOSQE_BUFFER_SELECT` from a "
                  "provided-buffer ring (`IORING_REGISTER_PBUF_RING`), 32 in flight, each buffer given back "
                  "as its CQE is reaped; restricted = READ allowed, `IOSQE_FIXED_FILE` required, "
                  "`IOSQE_BUFFER_SELECT` allowed.",
        "rings": "N rings, each submitting 4 NOPs in turn (one enter per ring per turn); restricted = "
                 "every ring allows NOP only. Under icount this counts instructions only: a ring's context "
                 "going cold between its turns costs nothing here (see the trace report's cache model).",
        "setup": "one op = a whole ring: setup, (restricted: register the policy, enable), teardown; "
                 "timed on the thread's CPU time, so teardown work left to a kworker and RCU is not in it.",
        "sqpoll": "one guest CPU under icount: the SQPOLL thread shares it with the submitter.",
    }
    for c in cells:
        w(f"### {c}\n")
        note = notes.get(c.split()[0])
        if " F=" in c:
            note = ("filter cell: the filtered ring has `ringbench -F` "
                    + c.split(" F=")[1] + " (see the filters section); the unrestricted ring "
                    "is the same ring without it")
        if note:
            w(f"_{note}_\n")
        bcol = boots > 1
        w(f"| kernel | ring |{' boots |' if bcol else ''} reps | median {unit}/op | min .. max | spread |"
          f"{' between boots |' if bcol else ''} ops/s |")
        w("|---|---|" + ("---:|" if bcol else "") + "---:|---:|---:|---:|"
          + ("---:|" if bcol else "") + "---:|")
        for r in summary:
            if r["cell"] != c:
                continue
            between = f" {float(r['boot_spread_pct']):.3f} % |" if r.get("boot_spread_pct") else " — |"
            w(f"| {kl(r['kernel'])} | {r['ring']} |{' ' + r['boots'] + ' |' if bcol else ''} "
              f"{r['reps']} | {num(r['median_per_op'], 2)} | "
              f"{num(r['min_per_op'], 2)} .. {num(r['max_per_op'], 2)} | {float(r['spread_pct']):.3f} % |"
              f"{between if bcol else ''} {num(r['median_ops_per_s'], 0)} |")
        if "baseline" in kernels and " F=" not in c and not task_cell(c) and not any(
                r["cell"] == c and r["kernel"] == "baseline"
                                             and r["ring"] == "restricted" for r in summary):
            w("| baseline | restricted |" + (" — |" if bcol else "")
              + " — | absent: no ring restrictions | | |" + (" |" if bcol else "") + " |")
        w("")
        failed = [f for f in failures if len(f) > 3 and f[1].startswith(f"micro {c},")]
        if failed:
            w(f"**Failed runs of this cell** (not in the figures above):\n")
            for f in failed:
                w(f"- `{f[0]}`, {f[1][len('micro ' + c) + 2:]}: {f[2]} (`{f[3]}`)")
            w("")
        rows = [r for r in overhead if r["cell"] == c]
        if rows and boots > 1:
            w(f"| comparison | Δ (rounds) | 95 % CI | Δ {unit}/op | detectable | verdict |")
            w("|---|---:|---:|---:|---:|---|")
            for r in rows:
                w(f"| {cl(r['comparison'])} | {float(r['delta_pct']):+.3f} % ({r['boots']}) | "
                  f"{ci_text(r)} | {float(r['delta_per_op']):+.2f} | "
                  f"{'±' + format(float(r['mde_pct']), '.3f') + ' %' if r['mde_pct'] else '—'} | "
                  f"{verdict(r)} |")
            w("")
        elif rows:
            w(f"| comparison | Δ median | 95 % CI | Δ {unit}/op |")
            w("|---|---:|---:|---:|")
            for r in rows:
                w(f"| {cl(r['comparison'])} | {float(r['delta_pct']):+.3f} % | "
                  f"{ci_text(r)} | {float(r['delta_per_op']):+.2f} |")
            w("")

    w("## Plots\n")
    for name, caption in (("throughput", "each kernel's restricted ring's throughput relative to "
                                         "its unrestricted ring and to baseline's, per cell, with "
                                         "95 % intervals"),
                          ("overhead", "the restriction check's cost against NOP batch size")):
        if os.path.exists(os.path.join(run, "plots", f"{name}.png")):
            w(f"![{caption}](plots/{name}.png)\n")

    failed_fio = [f for f in failures if len(f) > 3 and f[1].startswith("fio ")]
    if fio or failed_fio or nvme:
        w("## fio (`fio-jobs/`)\n")
    if failed_fio:
        w("**Failed fio runs** (not in the figures below):\n")
        for f in failed_fio:
            w(f"- `{f[0]}`, {f[1][4:]}: {f[2]} (`{f[3]}`)")
        w("")
    if fio:
        w("Restricted runs use `bench/uring-restrict` with the policy in the job "
          "file; a run counts only if the wrapper restricted fio's ring and fio "
          "reported no error. Latency is fio's completion latency (clat), "
          + ("in guest instructions (icount)" if icount else "in µs") + ".\n")
        w("| job | kernel | ring | reps | IOPS median (min .. max) | clat p50 | p90 | p99 | p99.9 |")
        w("|---|---|---|---:|---:|---:|---:|---:|---:|")
        div = 1 if icount else 1000
        for r in fio:
            lat = [f"{float(r[k]) / div:,.0f}" if r[k] else "" for k in
                   ("clat_p50_ns", "clat_p90_ns", "clat_p99_ns", "clat_p99.9_ns")]
            w(f"| {r['job']} | {kl(r['kernel'])} | {r['ring']} | {r['reps']} | "
              f"{num(r['iops_median'], 0)} ({num(r['iops_min'], 0)} .. {num(r['iops_max'], 0)}) | "
              + " | ".join(lat) + " |")
        w("")
        w("Caveats: fio 3.33 does not time SQPOLL submissions (its clat for "
          "`*-sqpoll` jobs is its overflow bucket, not a latency; read the "
          "IOPS)." + ("" if icount else " The emulated NVMe disk completes on QEMU's I/O "
                      "thread: its figures depend on the host.") + "\n")
    if nvme:
        out.extend(nvme_note(nvme))
    if fio:
        for f in sorted(glob.glob(os.path.join(run, "plots", "fio-*.png"))):
            job = os.path.basename(f)[4:-4]
            if icount and job.startswith("nvme-"):
                continue
            w(f"![fio {job} latency percentiles](plots/{os.path.basename(f)})\n")

    if traced:
        out.extend(report_trace.section(run, read_csv))

    w("## Files\n")
    w("`raw/<kernel>/micro.jsonl` (one ringbench JSON line per run), "
      "`raw/<kernel>/fio/<job>.<ring>.<rep>.json` (fio's own JSON), "
      "`summary.csv`, `overhead.csv`, `fio.csv`, `env/`, `logs/`, "
      "`plots/` (PNG, SVG and the data behind them). `COMPLETE` is written last.\n")

    write_report(run, out)


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


def filters_section(rows, unit, icount, kl):
    """Per cell, baseline, upstream's bitmap, patched's tables and
    patched's filters side by side (summarize_bench.write_filters)."""
    if not rows:
        return []
    per = "instructions per op (icount: 1 ns = 1 instruction)" if icount else "ns per op"
    out = ["## BPF filters side by side (IORING_REGISTER_BPF_FILTER, issue 17)\n",
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


def ci_text(r):
    if not r.get("ci95_lo_pct"):
        return "no interval (one round)"
    return f"{float(r['ci95_lo_pct']):+.3f} .. {float(r['ci95_hi_pct']):+.3f} %"


def verdict(r):
    """What a comparison's interval lets one say (summarize_bench.py's
    unrounded "significant", not the rounded bounds)."""
    if not r.get("ci95_lo_pct"):
        return "not judged: one round"
    if r.get("significant") != "yes":
        return "indistinguishable from 0"
    return "**costs more** (significant)" if float(r["delta_pct"]) > 0 else "**costs less** (significant)"


def boots_section(rf, kernels, boots, unit):
    """Wall-clock mode: how many boots, how far the boots spread, what the
    run could detect, and after how many rounds each verdict stood."""
    out = []
    w = out.append
    summary = rf.read_csv("summary.csv")
    rounds = rf.read_csv("rounds.csv")
    power = rf.read_csv("power.csv")
    w("## Boots, spread between boots, and what this run could detect\n")
    spreads = [float(r["boot_spread_pct"]) for r in summary if r.get("boot_spread_pct")]
    if spreads:
        spreads.sort()
        w(f"{boots} boots per kernel. The boots' medians of one cell and ring lay "
          f"{spreads[len(spreads) // 2]:.3f} % apart (median over the {len(spreads)} cells × kernels × "
          f"rings; (max − min) / median), at most {spreads[-1]:.3f} %. Per cell in `boots.csv`.\n")
    nop = [r for r in power if r["cell"] == "nop b=32"]
    if nop:
        w("Power at NOP batch 32: the standard deviation between rounds of each comparison's "
          "log ratio, the smallest difference this run could detect, and the rounds of boots "
          "it takes to detect a given difference (5 % two-sided, 80 % power) if the true "
          "spread is the one seen here; below 6 rounds one more than the normal-theory "
          "figure, which is optimistic there:\n")
        w("| comparison | rounds | sd between rounds | detectable now | rounds for 0.5 % | 1 % | 2 % | 5 % |")
        w("|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in nop:
            w(f"| {r['comparison']} | {r['rounds']} | {float(r['sd_between_rounds_pct']):.3f} % | "
              f"±{float(r['mde_pct']):.3f} % | {r['rounds_for_0.5pct']} | {r['rounds_for_1pct']} | "
              f"{r['rounds_for_2pct']} | {r['rounds_for_5pct']} |")
        w("")
    seq = [r for r in rounds if r["cell"] == "nop b=32"]
    if seq:
        w("How the NOP batch 32 comparisons stood after each round (the same data cut "
          "short; descriptive: looking after every round is not a sequential test):\n")
        w("| comparison | after round | Δ | 95 % CI | verdict |")
        w("|---|---:|---:|---:|---|")
        for r in seq:
            w(f"| {r['comparison']} | {r['last_round']} | {float(r['delta_pct']):+.3f} % | "
              f"{ci_text(r)} | {verdict(r)} |")
        w("")
        for comp in dict.fromkeys(r["comparison"] for r in seq):
            rs = [r for r in seq if r["comparison"] == comp]
            last = rs[-1]
            final = verdict(last)
            if last["significant"] != "yes":
                # no verdict "took" rounds: say what it would have found
                w(f"- {comp}: {final} after {last['rounds']} rounds; a true difference of "
                  f"±{float(last['mde_pct']):.3f} % would have been found (80 % power).")
                continue
            # the first round from which the final verdict held to the end
            n = last["last_round"]
            for r in reversed(rs):
                if verdict(r) != final:
                    break
                n = r["last_round"]
            w(f"- {comp}: {final} from round {n} of {last['last_round']} on.")
        w("")
    return out


def nvme_note(nvme):
    """Why the NVMe jobs have no figures in an icount report, with the
    spread of what they measured in this run as the evidence."""
    iops = [(float(r["iops_min"]), float(r["iops_max"])) for r in nvme]
    lo, hi = min(a for a, _ in iops), max(b for _, b in iops)
    worst = max(nvme, key=lambda r: float(r["iops_max"]) / max(float(r["iops_min"]), 1e-9))
    runs = sum(int(r["reps"]) for r in nvme)
    njobs = len({r["job"] for r in nvme})
    same = ""
    if max(int(r["reps"]) for r in nvme) > 1:
        same = (f", and the same job on the same kernel and ring {float(worst['iops_min']):,.0f} .. "
                f"{float(worst['iops_max']):,.0f} ({worst['job']}, {worst['kernel']}, {worst['ring']})")
    return [
        f"**NVMe: run, not reported.** The {njobs} NVMe job{'s' if njobs > 1 else ''} ran "
        f"({runs} fio runs over all kernels and rings; failures, if any, are listed above), "
        "so the driver, its MSI-X vectors and io_uring's block path were exercised. Their "
        "figures are left out under icount because they time the host, not the kernel: QEMU "
        "reads the disk image on its I/O thread in host time while the idle guest's clock, "
        "under `sleep=off`, jumps to its next timer, so what a completion costs the guest's "
        "clock depends on when the host finished the read. In this run the NVMe IOPS ranged "
        f"{lo:,.0f} .. {hi:,.0f} across jobs, kernels and rings{same}. Their raw JSON is in "
        "`raw/<kernel>/fio/`; with KVM (or `ICOUNT=0`) they are reported.\n"]


def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def run_health(run, kernels):
    """The run's status: what failed (FAILURES, written by bench/run.sh),
    each boot's kernel log faults and device interrupts. Returns the
    report's lines and the kernels whose figures are suspect."""
    out = []
    w = out.append
    failures = read_tsv(os.path.join(run, "FAILURES"))
    suspect = {}
    klog = {}
    for k in kernels:
        lines = [("boot", line) for line in
                 (r[0] for r in read_tsv(os.path.join(run, "logs", k, "klog-errors")))]
        lines += [tuple(r[:2]) if len(r) > 1 else ("?", r[0])
                  for r in read_tsv(os.path.join(run, "raw", k, "klog.tsv"))]
        # the same line seen by the guest after a step and in the console
        seen, uniq = set(), []
        for step, line in lines:
            if line not in seen:
                seen.add(line)
                uniq.append((step, line))
        klog[k] = uniq
        if uniq:
            suspect[k] = "kernel log faults"
        b = read_env(os.path.join(run, "env", f"{k}.boot.env"))
        if b.get("irq_legacy"):
            suspect.setdefault(k, "devices on a legacy interrupt line")

    w("## Run status\n")
    if failures:
        w(f"**{len(failures)} step(s) failed.** Everything else below was measured; "
          "what failed was not, and is not estimated. `make bench` exited non-zero.\n")
        w("| kernel | step | reason | log |")
        w("|---|---|---|---|")
        for r in failures:
            r = (r + ["", "", "", ""])[:4]
            w(f"| {r[0]} | {r[1]} | {r[2]} | `{r[3]}` |")
        w("")
    else:
        w("Every boot and every step completed.\n")
    for k in kernels:
        if os.path.exists(os.path.join(run, "raw", k, "micro.jsonl.part")) and \
                not os.path.exists(os.path.join(run, "raw", k, "micro.jsonl")):
            w(f"- `{k}`: its boot stopped inside the microbenchmarks; the runs it "
              f"finished are included (`raw/{k}/micro.jsonl.part`).")
    w("")
    w("Kernel log (console and dmesg of every boot, and the guest's own check "
      "after every benchmark step, for the faults in `vm/klog-patterns`):\n")
    for k in kernels:
        if not klog[k]:
            w(f"- `{k}`: no fault lines.")
            continue
        w(f"- `{k}`: **{len(klog[k])} fault line(s): this boot's figures are suspect** "
          "(marked ⚠ below):")
        w("")
        w("  ```")
        for step, line in klog[k][:20]:
            w(f"  [{step}] {line}")
        if len(klog[k]) > 20:
            w(f"  ... {len(klog[k]) - 20} more in logs/{k}/klog-errors and raw/{k}/klog.tsv")
        w("  ```")
    w("")
    w("Device interrupts of each boot (from the guest's `/proc/interrupts`):\n")
    w("| kernel | virtio and NVMe vectors | on a legacy line | shared lines |")
    w("|---|---|---|---|")
    for k in kernels:
        b = read_env(os.path.join(run, "env", f"{k}.boot.env"))
        irqs = b.get("irqs", "")
        if not irqs or irqs == "unknown":
            w(f"| {k} | not recorded | | |")
            continue
        chips = {}
        for d in irqs.split():
            chip = d.rsplit("/", 1)[-1]
            chips[chip] = chips.get(chip, 0) + 1
        w(f"| {k} | " + ", ".join(f"{n} {c}" for c, n in sorted(chips.items()))
          + f" | {b.get('irq_legacy') or 'none'} | {b.get('irq_shared') or 'none'} |")
    w("")
    return out, suspect


def side_by_side(summary, fio, cells, kernels, unit, kl=lambda k: k):
    """The kernels as columns: each cell's medians, then what the check
    costs each kernel and what each unrestricted ring costs over baseline."""
    med = {(r["cell"], r["kernel"], r["ring"]): float(r["median_per_op"]) for r in summary}
    out = ["## The three kernels side by side\n",
           f"Median {unit}/op of each cell, over every repetition (of every boot); the "
           "spreads, confidence intervals and (several boots) the comparisons over rounds "
           "are in the per-cell tables below.\n",
           "| cell | ring | " + " | ".join(kl(k) for k in kernels) + " |",
           "|---|---|" + "---:|" * len(kernels)]
    for c in cells:
        for ring in ("unrestricted", "restricted"):
            vals = [med.get((c, k, ring)) for k in kernels]
            if any(v is not None for v in vals):
                out.append(f"| {c} | {ring} | " + " | ".join(
                    "—" if v is None else f"{v:,.2f}" for v in vals) + " |")
    out.append("")
    ks = [k for k in kernels if k != "baseline"]
    out += [f"What the restriction check costs each kernel (restricted − unrestricted ring) "
            f"and what an unrestricted ring costs over `baseline`, {unit}/op:\n",
            "| cell | " + " | ".join(f"check on {kl(k)}" for k in ks)
            + "".join(f" | {kl(k)} − {kl('baseline')}" for k in ks if "baseline" in kernels) + " |",
            "|---|" + "---:|" * (len(ks) * (2 if "baseline" in kernels else 1))]

    def diff(a, b):
        return "—" if a is None or b is None else f"{a - b:+.2f}"
    for c in cells:
        row = [diff(med.get((c, k, "restricted")), med.get((c, k, "unrestricted"))) for k in ks]
        if "baseline" in kernels:
            row += [diff(med.get((c, k, "unrestricted")), med.get((c, "baseline", "unrestricted")))
                    for k in ks]
        out.append(f"| {c} | " + " | ".join(row) + " |")
    out.append("")
    if fio:
        iops = {(r["job"], r["kernel"], r["ring"]): float(r["iops_median"]) for r in fio}
        jobs = []
        for r in fio:
            if (r["job"], r["ring"]) not in jobs:
                jobs.append((r["job"], r["ring"]))
        out += ["fio, median IOPS:\n",
                "| job | ring | " + " | ".join(kl(k) for k in kernels) + " |",
                "|---|---|" + "---:|" * len(kernels)]
        for job, ring in jobs:
            out.append(f"| {job} | {ring} | " + " | ".join(
                "—" if iops.get((job, k, ring)) is None else f"{iops[(job, k, ring)]:,.0f}"
                for k in kernels) + " |")
        out.append("")
    return out


def write_report(run, out):
    RunFolder(run).write("REPORT.md", "\n".join(out))


if __name__ == "__main__":
    main()
