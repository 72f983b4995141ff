#!/usr/bin/env python3
"""tests/check-verdict.py [RUN]: the report's verdict says met and missed
where the figures are (TAP, host only, no guest).

On copies of RUN (default: the committed reference), each case plants
one change in the copy's summary.csv and overhead.csv (or its host.env)
and reads uringlab.report.verdict's three lines: the run as it is meets
every limit it judges; an allowed SQE made 5 instructions dearer on
patched's restricted NOP b=32 ring is "missed" on the check line and on
the rings line; a refused SQE past 117 is "missed"; a cell the run lacks
is named as not measured, never judged; a wall-clock run's figures are
given, not judged. Nothing is written under results/.

Run with PYTHONPATH at the lab root (tests/run.sh, under make test, has
it).
"""
import csv
import os
import shutil
import sys
import tempfile

from uringlab.report import verdict
from uringlab.report.context import Context
from uringlab.runfolder import LAB
from uringlab.tap import cases, failures, tap


def rewrite_csv(path, change):
    """change(row) edits a row in place, or returns False to drop it"""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
        fields = list(rows[0].keys()) if rows else []
    keep = [r for r in rows if change(r) is not False]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(keep)


def dearer(cell, kernel, ring, comparisons, by):
    """cell's median on kernel's ring, and the comparisons' deltas that
    have that ring on their A side, `by` per op more"""
    def summary(r):
        if (r["cell"], r["kernel"], r["ring"]) == (cell, kernel, ring):
            for k in ("median_per_op", "min_per_op", "max_per_op"):
                r[k] = f"{float(r[k]) + by:.3f}"

    def overhead(r):
        if r["cell"] == cell and r["comparison"] in comparisons:
            r["delta_per_op"] = f"{float(r['delta_per_op']) + by:.3f}"
            for k in ("ci95_lo_pct", "ci95_hi_pct"):
                r[k] = ""  # no interval: the planted figure has none
    return summary, overhead


def lines_of(run):
    ctx = Context(run)
    out = verdict.section(ctx)
    check = next((s for s in out if s.startswith("- **An allowed SQE")), "")
    rings = next((s for s in out if s.startswith("- **Unrestricted and restricted")), "")
    deny = next((s for s in out if s.startswith("- **A refused SQE")), "")
    return check, rings, deny, "\n".join(out)


def planted(src, tmp, name, summary=None, overhead=None, env=None):
    run = os.path.join(tmp, name)
    shutil.copytree(src, run, symlinks=True, ignore=shutil.ignore_patterns("raw", "logs", "plots"))
    if summary:
        rewrite_csv(os.path.join(run, "summary.csv"), summary)
    if overhead:
        rewrite_csv(os.path.join(run, "overhead.csv"), overhead)
    if env:
        path = os.path.join(run, "env", "host.env")
        text = open(path).read()
        open(path, "w").write(env(text))
    return lines_of(run)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(LAB, "results", "reference")
    host = open(os.path.join(src, "env", "host.env")).read()
    if "accel=tcg-icount" not in host:
        print(f"1..0 # SKIP {src} is not an icount run: its verdict judges nothing")
        return 0
    tmp = tempfile.mkdtemp(prefix="lab-verdict-")
    try:
        check, rings, deny, text = planted(src, tmp, "as-is")
        tap("**met**" in check and "**met**" in rings and "**met**" in deny
            and "missed" not in text,
            "the run as it is: every judged limit met", text)

        s, o = dearer("nop b=32", "patched", "restricted",
                      ("patched: restricted vs unrestricted", "patched restricted vs baseline"), 5)
        check, rings, deny, text = planted(src, tmp, "dearer-check", s, o)
        tap("**missed**" in check and "nop b=32" in check,
            "patched's restricted NOP b=32 ring +5 instructions: the check line says missed",
            check)
        tap("missed" in rings and "nop b=32, restricted" in rings,
            "... and the rings line names nop b=32's restricted ring as missed", rings)
        tap("**met**" in deny, "... and the refused SQE's line is untouched", deny)

        s, o = dearer("deny b=32", "patched", "restricted",
                      ("patched: restricted vs unrestricted",), 10)
        check, rings, deny, text = planted(src, tmp, "dearer-deny", s, o)
        tap("**missed**" in deny and "limit of 117" in deny,
            "a refused SQE 10 instructions dearer (past 117): missed", deny)

        def drop(r):
            return False if r["cell"] == "nop b=32" else None
        check, rings, deny, text = planted(src, tmp, "no-nop-b32", drop, drop)
        tap("Not measured in this run: nop b=32" in check and "nop b=32 (" not in check,
            "a run without nop b=32: named as not measured, not judged", check)

        check, rings, deny, text = planted(
            src, tmp, "wall-clock", env=lambda t: t.replace("accel=tcg-icount", "accel=tcg"))
        tap("not judged" in text and "**met**" not in text and "**missed**" not in text,
            "a wall-clock run: figures given, no limit judged", text)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"1..{cases()}")
    return 1 if failures() else 0


if __name__ == "__main__":
    sys.exit(main())
