#!/usr/bin/env python3
"""tests/check-verdict.py [RUN]: the report's verdict says met and missed
where the figures are (TAP, host only, no guest).

On copies of RUN (default: the committed reference), each case plants
figures in the copy's overhead.csv (the comparisons verdict.py reads) and
summary.csv (their rings' medians), or its host.env, and reads
uringlab.report.verdict's three lines: the run as it is meets every limit
it judges; patched's check on NOP b=32 exactly at its limit of 1 is met,
0.2 past it missed, with its planted interval turned into instructions
on the unrestricted ring's median; the same 0.2 past the rings rule and
past the refused SQE's 117 read missed there; a cell the run lacks is
named as not measured on both lines that judge it; the filter rows with
a limit have a line of their own, met as the run is, a decided filter's
ring at +4.99 over baseline's NOP met and +5.2 missed, and its cell missing
named; a wall-clock run's figures are given, not judged. Nothing is written under results/.

Run with PYTHONPATH at the lab root (tests/run.sh, under make test, has
it).
"""
import os
import shutil
import sys
import tempfile

from uringlab.report import verdict
from uringlab.report.context import Context
from uringlab.runfolder import LAB, read_csv_file, write_csv
from uringlab.tap import done, tap


def rewrite_csv(path, change):
    """change(row) edits a row in place, or returns False to drop it"""
    rows = read_csv_file(path)
    fields = list(rows[0].keys()) if rows else []
    keep = [r for r in rows if change(r) is not False]
    write_csv(path, fields, [[r[k] for k in fields] for r in keep])


def set_to(cell, kernel, ring, values):
    """VALUES {comparison: (delta per op, lo %, hi %)}: those comparisons
    of CELL set, and KERNEL's RING median moved with the first, so that
    summary.csv and overhead.csv agree"""
    first = next(iter(values.values()))[0]
    moved = {}

    def overhead(r):
        if r["cell"] == cell and r["comparison"] in values:
            d, lo, hi = values[r["comparison"]]
            moved.setdefault("by", d - float(r["delta_per_op"]))
            r["delta_per_op"] = f"{d:.3f}"
            r["ci95_lo_pct"], r["ci95_hi_pct"] = ("", "") if lo is None else (f"{lo:.3f}", f"{hi:.3f}")

    def summary(r):
        if (r["cell"], r["kernel"], r["ring"]) == (cell, kernel, ring):
            by = moved.get("by", first)
            for k in ("median_per_op", "min_per_op", "max_per_op"):
                r[k] = f"{float(r[k]) + by:.3f}"
    return summary, overhead


def median(run, cell, kernel, ring):
    return next((float(r["median_per_op"]) for r in read_csv_file(os.path.join(run, "summary.csv"))
                 if (r["cell"], r["kernel"], r["ring"]) == (cell, kernel, ring)), None)


def lines_of(run):
    ctx = Context(run)
    out = verdict.section(ctx)
    check = next((s for s in out if s.startswith("- **An allowed SQE")), "")
    rings = next((s for s in out if s.startswith("- **Unrestricted and restricted")), "")
    deny = next((s for s in out if s.startswith("- **A refused SQE")), "")
    filtered = next((s for s in out if s.startswith("- **BPF filters with a limit")), "")
    return check, rings, deny, filtered, "\n".join(out)


def planted(src, tmp, name, summary=None, overhead=None, env=None):
    run = os.path.join(tmp, name)
    shutil.copytree(src, run, symlinks=True, ignore=shutil.ignore_patterns("raw", "logs", "plots"))
    if overhead:
        rewrite_csv(os.path.join(run, "overhead.csv"), overhead)
    if summary:
        rewrite_csv(os.path.join(run, "summary.csv"), summary)
    if env:
        path = os.path.join(run, "env", "host.env")
        text = open(path).read()
        open(path, "w").write(env(text))
    return lines_of(run)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(LAB, "results", "reference")
    host = open(os.path.join(src, "env", "host.env")).read()
    if "accel=tcg-icount" not in host:
        print("1..0")
        print(f"# SKIP {src} is not an icount run: its verdict judges nothing")
        return 0
    tmp = tempfile.mkdtemp(prefix="lab-verdict-")
    try:
        check, rings, deny, _, text = planted(src, tmp, "as-is")
        tap("**met**" in check and "**met**" in rings and "**met**" in deny
            and "missed" not in text,
            "the run as it is: every judged limit met", text)

        check_cmp = "patched: restricted vs unrestricted"
        mb = median(src, "nop b=32", "patched", "unrestricted")
        s, o = set_to("nop b=32", "patched", "restricted", {check_cmp: (1.0, None, None)})
        check, rings, deny, _, text = planted(src, tmp, "check-at-limit", s, o)
        tap("instr/op on nop b=32 against a limit of 1: **met**" in check,
            "patched's check on NOP b=32 exactly at its limit of 1: met", check)

        s, o = set_to("nop b=32", "patched", "restricted", {check_cmp: (1.2, 0.3, 0.5)})
        check, rings, deny, _, text = planted(src, tmp, "check-past-limit", s, o)
        iv = f"(95 % interval {0.3 * mb / 100:+.2f} .. {0.5 * mb / 100:+.2f})"
        tap(f"+1.20 instr/op on nop b=32 {iv} against a limit of 1: **missed**" in check,
            f"... 0.2 past it: missed, its interval {iv} in instructions", check)
        tap("**met**" in deny, "... and the refused SQE's line is untouched", deny)

        s, o = set_to("nop b=32", "patched", "restricted",
                      {"patched restricted vs baseline": (1.2, None, None)})
        check, rings, deny, _, text = planted(src, tmp, "ring-past-limit", s, o)
        tap("+1.20 instr/op on nop b=32, restricted against a limit of 1: **missed**" in rings,
            "patched's restricted NOP b=32 ring 0.2 past baseline's limit: missed", rings)

        for d, word in ((117.0, "met"), (117.2, "missed")):
            s, o = set_to("deny b=32", "patched", "restricted", {check_cmp: (d, None, None)})
            check, rings, deny, _, text = planted(src, tmp, f"deny-{d}", s, o)
            tap(f"+{d:.2f} instr/op on deny b=32 against a limit of 117: **{word}**" in deny,
                f"a refused SQE at {d:g} against its limit of 117: {word}", deny)

        def drop(r):
            return False if r["cell"] == "nop b=32" else None
        check, rings, deny, _, text = planted(src, tmp, "no-nop-b32", drop, drop)
        tap("Not measured in this run: nop b=32" in check and "nop b=32 (" not in check
            and "Not measured in this run: nop b=32" in rings,
            "a run without nop b=32: named as not measured on the check and rings lines",
            check + "\n" + rings)

        # a filter cell: patched's filtered ring against baseline's
        # unrestricted ring of its base cell, moved in summary.csv alone
        fcell = "nop b=32 F=flags"
        base = median(src, "nop b=32", "baseline", "unrestricted")
        _, _, _, filtered, _ = planted(src, tmp, "filters-as-is")
        tap("**met**" in filtered and "missed" not in filtered,
            "the filter rows with a limit: a line of their own, met as the run is", filtered)
        # 4.99, not 5: the median is written to three places and read back
        for d, word in ((4.99, "met"), (5.2, "missed")):
            def move(r, d=d):
                if (r["cell"], r["kernel"], r["ring"]) == (fcell, "patched", "filtered"):
                    for k in ("median_per_op", "min_per_op", "max_per_op"):
                        r[k] = f"{base + d:.3f}"
            _, _, _, filtered, _ = planted(src, tmp, f"flags-{d}", summary=move)
            tap(f"+{d:.2f} instr/op on {fcell}, filtered against a limit of 5: **{word}**" in filtered,
                f"a decided filter at +{d:g} over baseline's NOP against its limit of 5: {word}", filtered)

        def drop_flags(r):
            return False if r["cell"] == fcell else None
        _, _, _, filtered, _ = planted(src, tmp, "no-flags", drop_flags, drop_flags)
        tap("Not measured in this run: nop-b32-Fflags" in filtered,
            "a run without the flags filter's cell: named as not measured on its line", filtered)

        check, rings, deny, _, text = planted(
            src, tmp, "wall-clock", env=lambda t: t.replace("accel=tcg-icount", "accel=tcg"))
        tap("here, not judged" in text and "**met**" not in text and "**missed**" not in text,
            "a wall-clock run: figures given, no limit judged", text)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
