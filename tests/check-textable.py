#!/usr/bin/env python3
"""tests/check-textable.py [--width N] [RUN...]: the plain-text tables
fit a mail (TAP, host only, no guest).

uringlab.textable's own cases first: a deliberately wide table and a
non-ASCII line are caught (so this test can fail), a long label goes on
a line of its own and keeps the figures within the width, an interval
ends under its figure. Then, on a copy of each RUN (default: the
committed reference, results/latest and the wall-clock runs under
results/), REPORT.md's plain-text table: present, after the verdict and
before the appendix, every line within the width and ASCII; and
`python3 -m uringlab.compare` between two copies, with samples.csv
(intervals) and without (said so), every line but the A = / B = paths
within the width. Nothing is written under results/: the copies are in
a temporary folder, removed at the end.

Run with PYTHONPATH at the lab root (tests/run.sh, under make test, has
it). --width N checks against N columns instead of 72: below the tables'
width every check on them fails, which is how to see that it can.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

from uringlab import textable
from uringlab.runfolder import LAB
from uringlab.tap import done, tap



def run_tool(*args):
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def report_table(text):
    """REPORT.md's plain-text table: the code block under its heading"""
    lines = text.splitlines()
    try:
        at = lines.index(textable_heading())
        start = lines.index("```", at) + 1
        end = lines.index("```", start)
    except ValueError:
        return None, lines
    return lines[start:end], lines


def textable_heading():
    from uringlab.report.table import HEADING
    return HEADING


def problems(lines, width):
    return "\n".join(f"line {i}: {n} columns: {s}" for i, n, s in textable.too_wide(lines, width))


def unit_cases(width):
    cols = [textable.Col("cell", "<"), textable.Col("baseline"), textable.Col("d%", gap=1)]
    wide = textable.render(cols, [textable.Row(["nop b=32", "9" * 80, "+1.00"])])
    tap(textable.too_wide(wide, width), "textable: a deliberately wide table is caught",
        "\n".join(wide))
    tap(textable.too_wide(["nop b=32  Δ 1.00"], width), "textable: a non-ASCII line is caught")
    cols = [textable.Col("cell\n  ring", "<")] + [textable.Col(k) for k in ("a", "b", "c")] \
        + [textable.Col("d%", gap=1)] * 2
    long = "socket b=32 F=socket with a name far longer than any label column"
    t = textable.render(cols, [textable.Row([long, "1.00", "2.00", "3.00", "+1.00", "+2.00"],
                                            {4: "[-0.10,+0.20]"}),
                               textable.Row(["x" * 60, "1.00", "2.00", "3.00", "+1.00", "+2.00"])])
    tap(not textable.too_wide(t, textable.WIDTH) and long in t and "x" * 60 in t,
        "textable: a long label goes on a line of its own, the figures stay within 72",
        "\n".join(t))
    row = next(i for i, s in enumerate(t) if s.endswith("+2.00") and "1.00" in s)
    under = t[row + 1]
    end = t[row].index("+1.00") + len("+1.00")
    tap(under.rstrip().endswith("[-0.10,+0.20]") and len(under.rstrip()) == end,
        "textable: an interval ends under its figure", "\n".join(t[row:row + 2]))


def default_runs():
    res = os.path.join(LAB, "results")
    runs = [os.path.join(res, "reference"), os.path.realpath(os.path.join(res, "latest"))]
    runs += sorted(glob.glob(os.path.join(res, "*-tcg")))
    return [r for r in dict.fromkeys(runs) if os.path.exists(os.path.join(r, "summary.csv"))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--width", type=int, default=textable.WIDTH)
    ap.add_argument("runs", nargs="*")
    a = ap.parse_args()
    width = a.width
    unit_cases(width)
    runs = a.runs or default_runs()
    tmp = tempfile.mkdtemp(prefix="lab-textable-")
    try:
        copies = []
        for r in runs:
            c = os.path.join(tmp, os.path.basename(os.path.abspath(r)))
            shutil.copytree(r, c, symlinks=True)
            copies.append(c)
            rc, out, err = run_tool(sys.executable, "-m", "uringlab.report", c)
            text = open(os.path.join(c, "REPORT.md")).read() if rc == 0 else ""
            table, lines = report_table(text)
            name = os.path.basename(c)
            tap(rc == 0 and table, f"report {name}: has its plain-text table", out + err)
            if not table:
                continue
            tap(not textable.too_wide(table, width),
                f"report {name}: all {len(table)} lines of the table within {width} columns, ASCII",
                problems(table, width))
            heads = [i for i, s in enumerate(lines) if s.startswith("## ")]
            order = [lines[i] for i in heads]
            tap(order[:2] == ["## Verdict", textable_heading()]
                and order.index("## Appendix: the tables behind the answer") > 1
                and order[-2:] == ["## Environment", "## Files"],
                f"report {name}: verdict, then the table, the appendix, environment and files last",
                order)
        if copies:
            # one run (a fresh clone has only the reference): compared with itself
            a_run, b_run = copies[0], copies[1] if len(copies) > 1 else copies[0]
            bare = []
            for c in (a_run, b_run):
                d = os.path.join(tmp, "bare", str(len(bare)))
                shutil.copytree(c, d, symlinks=True, ignore=shutil.ignore_patterns("samples.csv", "raw"))
                bare.append(d)
            rc, out, err = run_tool(sys.executable, "-m", "uringlab.compare", *bare)
            lines = [s for s in out.splitlines() if not s.startswith(("A = ", "B = "))]
            tap(rc == 0 and "no interval: samples.csv missing" in out,
                "compare without samples.csv: no interval, and it says so", out + err)
            tap(lines and not textable.too_wide(lines, width),
                f"compare without samples.csv: every line within {width} columns",
                problems(lines, width))
            for c in (a_run, b_run):
                if not os.path.exists(os.path.join(c, "samples.csv")) and \
                        os.path.isdir(os.path.join(c, "raw")):
                    run_tool(sys.executable, "-m", "uringlab.bench_summary", c)
            rc, out, err = run_tool(sys.executable, "-m", "uringlab.compare", a_run, b_run,
                                    "--tolerance", "1000")
            lines = [s for s in out.splitlines() if not s.startswith(("A = ", "B = "))]
            tap(rc == 0 and "[lo,hi]" in out and "largest difference:" in out
                and any(s.strip().startswith("[") for s in lines),
                "compare with samples.csv: intervals under the figures, the largest difference",
                out + err)
            tap(lines and not textable.too_wide(lines, width),
                f"compare with samples.csv: every line within {width} columns",
                problems(lines, width))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
