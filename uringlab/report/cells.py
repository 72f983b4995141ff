"""report/cells.py: one table per microbenchmark cell (summary.csv and
overhead.csv), with its failed runs."""
from uringlab import cells as cellnames
from uringlab.numfmt import num
from uringlab.report.text import ci_text, verdict


def section(ctx):
    out = []
    w = out.append
    summary, overhead, kernels = ctx.summary, ctx.overhead, ctx.kernels
    cells, failures, boots, unit, kl, cl = \
        ctx.cells, ctx.failures, ctx.boots, ctx.unit, ctx.kl, ctx.cl
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
        if "baseline" in kernels and " F=" not in c and not cellnames.is_task(c) and not any(
                r["cell"] == c and r["kernel"] == "baseline"
                                             and r["ring"] == "restricted" for r in summary):
            w("| baseline | restricted |" + (" — |" if bcol else "")
              + " — | absent: no ring restrictions | | |" + (" |" if bcol else "") + " |")
        w("")
        failed = [f for f in failures if len(f) > 3 and f[1].startswith(f"micro {c},")]
        if failed:
            w("**Failed runs of this cell** (not in the figures above):\n")
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
    return out
