"""python3 -m uringlab.compare RUN_A RUN_B [--tolerance PCT]: cell by cell, how far two bench
runs' medians lie apart (B relative to A), from their summary.csv files.

Answers "did my change make it worse?" (A before, B after) and "does the
lab repeat itself?" (A and B the same code). Prints one line per cell,
kernel and ring present in both runs, then the largest difference. With
--tolerance, the exit status is 1 if any cell moved by more than PCT %.
"""
import argparse
import sys

from uringlab.runfolder import RunFolder


def load(run):
    rf = RunFolder(run)
    rows = rf.read_csv("summary.csv")
    if not rows:
        sys.exit(f"compare: {rf.file('summary.csv')} missing (not a bench run, or not summarized)")
    if not rf.complete:
        print(f"compare: warning: {run} has no COMPLETE marker (a killed run?)", file=sys.stderr)
    return {(r["cell"], r["kernel"], r["ring"]): r for r in rows}


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
    print(f"A = {args.a}\nB = {args.b}")
    print(f"{'cell':<14} {'kernel':<9} {'ring':<12} {'A ' + unit:>14} {'B ' + unit:>14} {'delta':>9} {'delta %':>9}")
    worst = (0.0, None)
    for key in sorted(set(a) & set(b), key=lambda k: (list(a).index(k))):
        ma, mb = float(a[key]["median_per_op"]), float(b[key]["median_per_op"])
        pct = 100 * (mb / ma - 1)
        flag = ""
        if args.tolerance is not None and abs(pct) > args.tolerance:
            flag = "  <-- beyond tolerance"
        print(f"{key[0]:<14} {key[1]:<9} {key[2]:<12} {ma:>14.2f} {mb:>14.2f} {mb - ma:>+9.2f} {pct:>+8.3f}%{flag}")
        if abs(pct) >= abs(worst[0]):
            worst = (pct, key)
    only = sorted(set(a) ^ set(b))
    for key in only:
        print(f"{key[0]:<14} {key[1]:<9} {key[2]:<12} only in {'A' if key in a else 'B'}")
    if worst[1]:
        print(f"largest difference: {worst[0]:+.3f} % ({' '.join(worst[1])})")
    if args.tolerance is not None and worst[1] and abs(worst[0]) > args.tolerance:
        print(f"compare: FAIL: a cell moved by more than {args.tolerance} %")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
