"""python3 -m uringlab.compare RUN_A RUN_B [--tolerance PCT]: cell by cell, how far two bench
runs' medians lie apart (B relative to A), from their summary.csv files.

Answers "did my change make it worse?" (A before, B after) and "does the
lab repeat itself?" (A and B the same code). Prints a table in the
report's plain-text format (uringlab.textable: at most 72 columns, to
paste into a mail): per cell, kernel and ring present in both runs, A's
and B's median, B - A and d% = B over A, with beneath it the 95 % interval
of that ratio of medians, bootstrapped from both runs' samples.csv. Then
the rows only one run has, and the largest difference. With --tolerance,
the exit status is 1 if any cell moved by more than PCT %.

The bootstrap resamples each run's repetitions; a run of several boots
gives its boots' medians instead, since between boots is where a
wall-clock figure moves and a run's repetitions are not independent of
their boot. A run summarized before samples.csv existed gives no
interval, and the table says so.
"""
import argparse
import random
import statistics
import sys

from uringlab import textable
from uringlab.runfolder import RunFolder
from uringlab.stats import bootstrap_ratio


def load(run):
    rf = RunFolder(run)
    rows = rf.read_csv("summary.csv")
    if not rows:
        sys.exit(f"compare: {rf.file('summary.csv')} missing (not a bench run, or not summarized)")
    if not rf.complete:
        print(f"compare: warning: {run} has no COMPLETE marker (a killed run?)", file=sys.stderr)
    return {(r["cell"], r["kernel"], r["ring"]): r for r in rows}


def load_samples(run):
    """{(cell, kernel, ring): what the bootstrap draws from}, or None
    without samples.csv: the repetitions, or with several boots the
    boots' medians."""
    rows = RunFolder(run).read_csv("samples.csv")
    if not rows:
        return None
    per = {}
    for r in rows:
        per.setdefault((r["cell"], r["kernel"], r["ring"]), {}).setdefault(
            r["boot"], []).append(float(r["per_op"]))
    return {key: ([statistics.median(v) for v in boots.values()] if len(boots) > 1
                  else next(iter(boots.values())))
            for key, boots in per.items()}


def accel(run):
    return RunFolder(run).env().get("accel", "?")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--tolerance", type=float, help="fail above this |delta| in %%")
    args = ap.parse_args()
    a, b = load(args.a), load(args.b)
    if accel(args.a) != accel(args.b):
        print(f"compare: warning: accelerators differ ({accel(args.a)} vs {accel(args.b)}):"
              " the figures are not comparable", file=sys.stderr)
    unit = "instr/op" if accel(args.b) == "tcg-icount" else "ns/op"
    sa, sb = load_samples(args.a), load_samples(args.b)
    rng = random.Random(1)  # the same two runs give the same intervals
    print(f"A = {args.a}\nB = {args.b}")
    if sa is None or sb is None:
        print("no interval: samples.csv missing in "
              + " and ".join(n for n, s in (("A", sa), ("B", sb)) if s is None)
              + " (bench_summary writes it)")
    else:
        print("[lo,hi]: 95% interval of d%, bootstrap of the ratio of medians")
    cols = [textable.Col("cell\n  kernel ring", "<"), textable.Col(f"A\n{unit}"),
            textable.Col(f"B\n{unit}"), textable.Col("\nB-A"), textable.Col("\nd%", gap=1)]
    rows = []
    worst = (0.0, None)
    cell = None
    for key in sorted(set(a) & set(b), key=lambda k: (list(a).index(k))):
        ma, mb = float(a[key]["median_per_op"]), float(b[key]["median_per_op"])
        pct = 100 * (mb / ma - 1)
        under = {}
        if sa is not None and sb is not None and sa.get(key) and sb.get(key):
            lo, hi = bootstrap_ratio(sb[key], sa[key], rng)
            if lo is not None:
                under[4] = textable.interval(100 * lo, 100 * hi)
        beyond = args.tolerance is not None and abs(pct) > args.tolerance
        if key[0] != cell:
            cell = key[0]
            rows.append(textable.Group(cell))
        rows.append(textable.Row([f"  {key[1]} {key[2]}", textable.figure(ma), textable.figure(mb),
                                  f"{mb - ma:+.2f}", textable.pct(pct)], under,
                                 note="    ^ beyond tolerance" if beyond else ""))
        if abs(pct) >= abs(worst[0]):
            worst = (pct, key)
    print("\n".join(textable.render(cols, rows)))
    only = sorted(set(a) ^ set(b))
    for key in only:
        print(f"{key[0]}, {key[1]} {key[2]}: only in {'A' if key in a else 'B'}")
    if worst[1]:
        print(f"largest difference: {worst[0]:+.3f} % ({' '.join(worst[1])})")
    if args.tolerance is not None and worst[1] and abs(worst[0]) > args.tolerance:
        print(f"compare: FAIL: a cell moved by more than {args.tolerance} %")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
