#!/usr/bin/env python3
"""tests/check-bench-stats.py: the run-folder module and make bench's
statistics, pictures and report on synthetic run folders whose answer is
known (TAP, host only, no guest):

- uringlab.runfolder writes whole files or nothing, reads env files,
  lists a run's boots and marks it complete;
- one boot: comparisons are bootstrapped over repetitions, no boot tables;
- several boots: per-boot medians, pairing by round, Student's t over
  rounds (checked against a hand computation), the smallest detectable
  difference, and the verdicts on a planted cost: upstream's +5 % under
  boot-to-boot noise is significant, patched's 0 is not;
- plots/draw.sh draws throughput.png and overhead.png, and uringlab.report
  writes the boots section with the rounds each verdict took.

Run with PYTHONPATH at the lab root (tests/run.sh, under make test, has it); the
modules it runs get the same PYTHONPATH, from this file's place.
"""
import csv
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

from uringlab import runfolder
from uringlab.tap import failures, tap

LAB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the lab's modules run as `python3 -m uringlab.X`, from this checkout
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(
    p for p in (LAB, os.environ.get("PYTHONPATH")) if p))



def rows(run, name):
    with open(os.path.join(run, name)) as f:
        return list(csv.DictReader(f))


def make_run(root, boots, effect, noise, seed=1):
    """A run folder like make bench's: NOP b=32 and b=1 on three kernels,
    5 repetitions per boot, upstream's restricted ring +effect, every boot
    scaled by its own noise factor (what a wall-clock boot does)."""
    rng = random.Random(seed)
    os.makedirs(os.path.join(root, "env"))
    insts = [k if boots == 1 else f"{k}.b{b}" for b in range(1, boots + 1)
             for k in ("baseline", "patched", "upstream")]
    with open(os.path.join(root, "env", "host.env"), "w") as f:
        f.write(f"accel={'tcg-icount' if boots == 1 else 'tcg'}\nkernels=baseline patched upstream\n"
                f"qemu=7.2.22 (test)\ntree=linux-source-6.1 6.1.192-3\nboots={boots}\n"
                f"instances={' '.join(insts)}\n")
    for inst in insts:
        k = runfolder.kernel_of(inst)
        b = int(inst.split(".b")[1]) if ".b" in inst else 1
        boot = 1 + rng.gauss(0, noise)
        raw = os.path.join(root, "raw", inst)
        os.makedirs(raw)
        with open(os.path.join(raw, "micro.jsonl"), "w") as f:
            for batch, base in ((1, 1000.0), (32, 300.0)):
                for rep in range(1, 6):
                    for ring in ("unrestricted", "restricted"):
                        if k == "baseline" and ring == "restricted":
                            continue
                        v = base * boot * (1 + rng.gauss(0, noise / 10))
                        if k == "upstream" and ring == "restricted":
                            v *= 1 + effect
                        d = {"workload": "nop", "batch": batch, "ring": ring,
                             "ns_per_op": v, "kernel": k, "rep": str(rep)}
                        if boots > 1:
                            d["boot"] = str(b)
                        f.write(json.dumps(d) + "\n")
    return root


def run_tool(*args):
    p = subprocess.run(args, capture_output=True, text=True, env=ENV)
    return p.returncode, p.stdout + p.stderr


def main():
    print("1..18")
    tmp = tempfile.mkdtemp(prefix="lab-stats-")
    try:
        # the module
        rf = runfolder.RunFolder(make_run(os.path.join(tmp, "m"), 2, 0.05, 0.01))
        rf.write("sub/x.txt", "whole\n")
        left = [f for f in os.listdir(rf.file("sub")) if ".tmp" in f]
        tap(open(rf.file("sub/x.txt")).read() == "whole\n" and not left,
            "runfolder: a written file is whole and no temporary file is left", left)
        tap(rf.env()["boots"] == "2" and rf.instances[:3] == ["baseline.b1", "patched.b1", "upstream.b1"],
            "runfolder: host.env is read, boots listed in interleaved order", rf.instances)
        tap(not rf.complete and (rf.mark_complete() or rf.complete),
            "runfolder: COMPLETE is absent until marked")
        tap(runfolder.kernel_of("upstream.b12") == "upstream" and runfolder.kernel_of("my.branch") == "my.branch",
            "runfolder: a boot's folder name gives its kernel")

        # one boot: the repetitions' bootstrap
        one = make_run(os.path.join(tmp, "one"), 1, 0.05, 0.0005)
        rc, out = run_tool(sys.executable, "-m", "uringlab.bench_summary", one)
        o = {(r["cell"], r["comparison"]): r for r in rows(one, "overhead.csv")} if rc == 0 else {}
        r = o.get(("nop b=32", "upstream: restricted vs unrestricted"), {})
        tap(rc == 0 and r.get("ci_method") == "bootstrap over repetitions" and r.get("boots") == "1"
            and not os.path.exists(os.path.join(one, "boots.csv")),
            "one boot: intervals bootstrapped over repetitions, no boot tables", out or r)

        # several boots: a planted +5 % under 1 % boot-to-boot noise
        many = make_run(os.path.join(tmp, "many"), 6, 0.05, 0.01, seed=7)
        rc, out = run_tool(sys.executable, "-m", "uringlab.bench_summary", many)
        tap(rc == 0, "several boots: bench_summary runs", out)
        o = {(r["cell"], r["comparison"]): r for r in rows(many, "overhead.csv")} if rc == 0 else {}
        up = o.get(("nop b=32", "upstream: restricted vs unrestricted"), {})
        pa = o.get(("nop b=32", "patched: restricted vs unrestricted"), {})
        tap(up.get("significant") == "yes" and float(up.get("ci95_lo_pct", 0)) > 3
            and float(up.get("ci95_hi_pct", 99)) < 7,
            "several boots: upstream's planted +5 % is significant, its interval around 5 %", up)
        tap(pa.get("significant") == "no" and float(pa["ci95_lo_pct"]) < 0 < float(pa["ci95_hi_pct"]),
            "several boots: patched's 0 is indistinguishable from 0", pa)
        ub = o.get(("nop b=32", "upstream vs baseline, unrestricted"), {})
        tap(up.get("boots") == "6" and up.get("ci_method", "").startswith("t over 6 boots, each its")
            and ub.get("ci_method") == "t over 6 rounds of boots" and float(up.get("mde_pct") or 0) > 0,
            "several boots: within a kernel per-boot paired repetitions, across kernels rounds; "
            "Student's t over 6; a detectable difference", (up, ub))

        # the interval by hand: rounds' log ratios of per-boot medians
        per = {}
        for inst in os.listdir(os.path.join(many, "raw")):
            for line in open(os.path.join(many, "raw", inst, "micro.jsonl")):
                d = json.loads(line)
                if d["batch"] == 32:
                    per.setdefault((d["kernel"], d["ring"], int(d["boot"])), []).append(d["ns_per_op"])
        import statistics as st
        med = {k: st.median(v) for k, v in per.items()}
        x = [math.log(med["upstream", "unrestricted", b] / med["baseline", "unrestricted", b])
             for b in range(1, 7)]
        m, s = st.fmean(x), st.stdev(x)
        lo, hi = 100 * math.expm1(m - 2.571 * s / math.sqrt(6)), 100 * math.expm1(m + 2.571 * s / math.sqrt(6))
        r = o.get(("nop b=32", "upstream vs baseline, unrestricted"), {})
        tap(r and abs(float(r["ci95_lo_pct"]) - lo) < 0.002 and abs(float(r["ci95_hi_pct"]) - hi) < 0.002,
            f"several boots: the interval across kernels is t(5) over rounds ({lo:+.3f} .. {hi:+.3f} %)", r)
        d = 100 * math.expm1((2.571 + 0.920) * s / math.sqrt(6))
        tap(r and abs(float(r["mde_pct"]) - d) < 0.002,
            f"several boots: detectable difference (t.975 + t.80)(5 df) sd / sqrt(6) = {d:.3f} %", r)
        tp = {}
        for line in open(os.path.join(many, "plots", "data", "throughput.dat")):
            if not line.startswith("#"):
                f = line.rsplit('"', 1)[1].split()
                tp[line.split('"')[1]] = [float(x) for x in f]
        u = tp.get("nop b=32", [0] * 12)[3:6]
        tap(u[0] < 0 and u[1] < u[0] < u[2] and abs(u[0] - 100 * (1 / (1 + float(up["delta_pct"]) / 100) - 1)) < 0.002,
            "throughput.dat: upstream's +5 % cost is a throughput loss, its interval turned over", u)
        b = rows(many, "boots.csv")
        tap(len(b) == 2 * 5 * 6, "several boots: boots.csv has one row per cell, kernel, ring and boot",
            len(b))
        rd = [r for r in rows(many, "rounds.csv") if r["cell"] == "nop b=32"
              and r["comparison"] == "upstream: restricted vs unrestricted"]
        tap([r["rounds"] for r in rd] == ["2", "3", "4", "5", "6"],
            "several boots: rounds.csv has each check after 2..6 rounds", rd)
        pw = [r for r in rows(many, "power.csv") if r["cell"] == "nop b=32"]
        tap(pw and all(r["rounds_for_5pct"] for r in pw),
            "several boots: power.csv gives the rounds needed per difference", pw)

        # pictures and report
        rc, out = run_tool(os.path.join(LAB, "plots", "draw.sh"), many)
        tap(rc == 0 and all(os.path.getsize(os.path.join(many, "plots", f)) > 10000
                            for f in ("throughput.png", "overhead.png")),
            "plots/draw.sh draws throughput.png and overhead.png", out)
        rc, out = run_tool(sys.executable, "-m", "uringlab.report", many)
        rep = open(os.path.join(many, "REPORT.md")).read() if rc == 0 else out
        tap(rc == 0 and "6 boots per kernel" in rep and "from round" in rep
            and "detectable now" in rep,
            "report: the boots section (boots, spread, detectable, rounds taken)", rep[-2000:])
        tap("upstream: restricted vs unrestricted: **costs more** (significant) from round" in rep
            and "patched: restricted vs unrestricted: indistinguishable from 0 after 6 rounds" in rep,
            "report: the NOP b=32 verdicts and the round each took", rep[-2000:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures() else 0


if __name__ == "__main__":
    sys.exit(main())
