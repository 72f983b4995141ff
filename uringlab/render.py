"""python3 -m uringlab.render RUN [--until draw]: the one way a run folder
becomes tables, plots and REPORT.md, for make plots, make report,
bench/run.sh and tracing/run.sh alike.

Each stage runs only when the run has its data, so a bench run, a trace
run, a trace run without the plugin (TRACE_PARTS=perf) and a committed
run without its ignored raw files all render with the same command. A
failing stage does not stop the next: the report is written from
whatever was measured, and the exit status says something failed.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

from uringlab.plugin import traced_kernels
from uringlab.runfolder import LAB


def exists(run, *patterns):
    return any(glob.glob(os.path.join(run, p)) for p in patterns)


def stage(what, cmd):
    """One stage in its own process, as it runs by hand (python3 -m
    uringlab.MODULE RUN): its traceback and exit status stay its own.
    The hash seed is pinned: attribution sums and sorts sets of function
    names, whose order would otherwise move ties and last digits between
    two renders of the same data."""
    print(f"[render] {what}", flush=True)
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=os.pathsep.join(
        p for p in (LAB, os.environ.get("PYTHONPATH")) if p))
    return subprocess.run(cmd, env=env).returncode == 0


def module(name, run):
    return [sys.executable, "-m", f"uringlab.{name}", run]


def warn_rebuilt(run, kernel):
    """The hot listings, the filter phases and mca disassemble the
    current build's vmlinux (plugin.vmlinux): say so when it is not the
    kernel the run traced."""
    def stamp(path):
        try:
            with open(path) as f:
                return f.read()
        except OSError:
            return None
    ran = stamp(os.path.join(run, "env", f"{kernel}.build-stamp"))
    now = stamp(os.path.join(LAB, "build", "out", kernel, ".lab-stamp"))
    if ran is not None and ran != now:
        print(f"[render] warning: build/out/{kernel} is not the kernel this run traced "
              "(build stamps differ): hot-*.txt, filter-phases.csv and mca.csv "
              "disassemble the current build", flush=True)


def render(run, until=None):
    """True if every stage that had data ran clean."""
    ok = True
    # make bench writes bench.env before its first boot: a bench run
    # gets its tables even when every cell failed
    if exists(run, "bench.env", "raw/*/micro.jsonl", "raw/*/micro.jsonl.part"):
        ok &= stage("summarizing bench", module("bench_summary", run))
    traced = traced_kernels(run)
    for k in traced:
        warn_rebuilt(run, k)
    if traced:
        ok &= stage("attributing", module("attribution", run))
        if shutil.which("llvm-mca"):
            ok &= stage("estimating cycles with llvm-mca", module("mca", run))
        else:
            print("[render] no llvm-mca on PATH: no trace/mca.csv", flush=True)
    if exists(run, "trace/attribution.csv", "raw/*/perf", "raw/*/bpftrace"):
        ok &= stage("summarizing trace", module("trace_summary", run))
    ok &= stage("drawing", [os.path.join(LAB, "plots", "draw.sh"), run])
    if until == "draw":
        return ok
    if stage("writing the report", module("report", run)):
        print(f"[report] {run}/REPORT.md")
        return ok
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run")
    ap.add_argument("--until", choices=["draw"], help="stop after the plots")
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(a.run, "raw")):
        sys.exit(f"render: {a.run} is not a run folder (no raw/)")
    # a gate run has a verdict, not a report
    if os.path.exists(os.path.join(a.run, "check.env")):
        sys.exit(f"render: {a.run} is a make check run: python3 -m uringlab.gate {a.run}")
    return 0 if render(a.run, a.until) else 1


if __name__ == "__main__":
    sys.exit(main())
