"""report/header.py: the report's title (the run folder's name and one
line on what produced it), the environment table and the metric
paragraph, which close the report."""
import os

from uringlab.runfolder import kernel_of, read_env_file as read_env


def title(ctx):
    host = ctx.host
    accel = host.get("accel", "?") + (f" (`-icount {host.get('icount')}`)" if ctx.icount else "")
    when = f"{accel}, started {host.get('date', '?')}"
    settings = host.get("settings", "").strip()

    def made(by):
        return f"Produced by `{by}{' ' + settings if settings else ''}` on {when}"
    if ctx.bench:
        line = (made("make bench") + ": what the io_uring ring-restriction checks cost per "
                "op against the unpatched baseline. Every figure was measured in this run.")
    elif ctx.traced:
        line = (made("make trace") + ": where the io_uring ring-restriction checks spend "
                "their instructions, function by function. Every figure was measured in "
                "this run.")
    elif os.path.exists(os.path.join(ctx.run, "check.env")):
        line = (f"Produced by `make check` on {when}: its verdict is `GATE.txt` "
                "(`python3 -m uringlab.gate`), not this report.")
    else:
        line = f"Run on {when}."
    return [f"# {os.path.basename(ctx.run)}\n", line + "\n"]


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
