"""report/health.py: the run's status: FAILURES, each boot's kernel log
faults and device interrupts, and which kernels are therefore suspect."""
import os

from uringlab.runfolder import read_env_file as read_env, read_tsv


def run_health(run, kernels, job="make bench"):
    """The run's status: what failed (FAILURES, written by vm/boots.sh for
    JOB), each boot's kernel log faults and device interrupts. Returns the
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
          f"what failed was not, and is not estimated. `{job}` exited non-zero.\n")
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
