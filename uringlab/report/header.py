"""report/header.py: the report's title, the environment table (what
produced the run) and the metric paragraph."""
import os

from uringlab.runfolder import kernel_of, read_env_file as read_env


def title(ctx):
    out = []
    w = out.append
    run = ctx.run
    if ctx.bench:
        w(f"# Benchmark report: {os.path.basename(run)}\n")
        w("What the io_uring ring-restriction checks cost on the submission path, "
          "per op, against the unpatched baseline. Produced by `make bench`; "
          "every figure below was measured in this run.\n")
    else:
        w(f"# Trace report: {os.path.basename(run)}\n")
        w("Where the io_uring ring-restriction checks spend their instructions, "
          "function by function, per kernel. Produced by `make trace`; every "
          "figure below was measured in this run.\n")
    return out


def environment(ctx):
    """The environment table and the metric paragraph."""
    out = []
    w = out.append
    run, host, instances, kernels = ctx.run, ctx.host, ctx.instances, ctx.kernels
    icount, traced = ctx.icount, ctx.traced
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
    return out
