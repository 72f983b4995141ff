"""python3 -m uringlab.gate RUN [--thresholds FILE] [--reference FILE] [--write-reference FILE]

The regression gate's verdict on a make check run (bench/gate/run.sh):
RUN/raw/baseline.jsonl and RUN/raw/patched.jsonl hold ringbench's lines,
in guest instructions per op (TCG -icount). Per cell and ring the figure is

    extra = median(patched, ring) - median(baseline, unrestricted ring)

the instructions per op our series adds over the unpatched kernel; for
cells named CELL-l1d, the modelled L1D misses per op it adds (the insn-count
plugin's cache model, over ringbench -m windows). The
pseudo-ring "check" is median(patched, restricted) - median(patched,
unrestricted): what the restriction check itself costs a ring. A cell
fails when its figure is over its limit, or when it moved from the
committed reference by more than its tolerance, either way (a figure that
got much better without a new reference means the reference no longer
describes the series). Prints a table, writes RUN/gate.csv and
RUN/GATE.txt, exits 1 on any failure, 2 on bad input. The rules and the
reference stay beside bench/gate/run.sh (bench/gate/thresholds,
bench/gate/reference.csv); gate.csv and reference.csv are written by hand,
not by the csv module, whose quoting would change them.
"""
import argparse
import json
import os
import sys

from uringlab import cells
from uringlab.plugin import read_windows
from uringlab.runfolder import LAB, RunFolder, read_jsonl, write_atomic
from uringlab.stats import med_min_max_n

# the rules and the reference live with the gate's shell side
RULES = os.path.join(LAB, "bench", "gate")


def cell_name(j):
    """bench/gate/thresholds' cell names: "nop-b32"."""
    return cells.slug(cells.name(j))


def l1d_medians(raw, kernel):
    """The plugin's modelled kernel L1D misses per op (raw/KERNEL.mem.jsonl's
    ringbench -m runs paired with the windows of raw/KERNEL.insn-count.txt),
    as medians() gives figures, under the cell name CELL-l1d."""
    jpath = os.path.join(raw, f"{kernel}.mem.jsonl")
    if not os.path.exists(jpath):
        return {}
    js = read_jsonl(jpath)
    wins = read_windows(os.path.join(raw, f"{kernel}.insn-count.txt"))
    if len(wins) != len(js) or any(w.mem is None for w in wins):
        raise ValueError(f"{kernel}: {len(wins)} plugin windows with the cache model "
                         f"for {len(js)} ringbench -m runs")
    runs = {}
    for w, j in zip(wins, js):
        runs.setdefault((cell_name(j) + "-l1d", j["ring"]), []).append(w.mem["kernel"][1] / j["ops"])
    return {k: med_min_max_n(v) for k, v in runs.items()}


def medians(path):
    runs = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                j = json.loads(line)
                runs.setdefault((cell_name(j), j["ring"]), []).append(j["ns_per_op"])
    return {k: med_min_max_n(v) for k, v in runs.items()}


def pair(base, pat, cell, ring):
    """(minuend, subtrahend) medians of a rule's figure, or None if unmeasured."""
    if ring == "check":
        return pat.get((cell, "restricted")), pat.get((cell, "unrestricted"))
    return pat.get((cell, ring)), base.get((cell, "unrestricted"))


def read_rules(path):
    """CELL RING LIMIT TOLERANCE  # why: one rule a line."""
    rules = {}
    with open(path) as f:
        for no, line in enumerate(f, 1):
            body, _, why = line.partition("#")
            p = body.split()
            if not p:
                continue
            if len(p) != 4 or not why.strip():
                sys.exit(f"gate: {path}:{no}: want 'CELL RING LIMIT TOLERANCE  # why', got: {line.strip()}")
            try:
                rules[(p[0], p[1])] = (float(p[2]), float(p[3]), why.strip())
            except ValueError:
                sys.exit(f"gate: {path}:{no}: LIMIT and TOLERANCE must be numbers: {line.strip()}")
    return rules


def read_reference(path):
    ref = {}
    if not os.path.exists(path):
        return ref
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("cell,") or not line.strip():
                continue
            cell, ring, extra = line.strip().split(",")[:3]
            ref[(cell, ring)] = float(extra)
    return ref


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--thresholds", default=os.path.join(RULES, "thresholds"))
    ap.add_argument("--reference", default=os.path.join(RULES, "reference.csv"))
    ap.add_argument("--write-reference", metavar="FILE")
    a = ap.parse_args()

    try:
        base = medians(os.path.join(a.run, "raw", "baseline.jsonl"))
        pat = medians(os.path.join(a.run, "raw", "patched.jsonl"))
        base.update(l1d_medians(os.path.join(a.run, "raw"), "baseline"))
        pat.update(l1d_medians(os.path.join(a.run, "raw"), "patched"))
    except (OSError, ValueError, KeyError) as e:
        print(f"gate: cannot read the run's figures: {e}", file=sys.stderr)
        return 2
    rules = read_rules(a.thresholds)
    ref = read_reference(a.reference)
    env = RunFolder(a.run).env()

    rows, failed = [], 0
    for (cell, ring), (limit, tol, _) in rules.items():
        p, b = pair(base, pat, cell, ring)
        r = ref.get((cell, ring))
        if not b or not p:
            rows.append((cell, ring, r, None, None, limit, tol, "FAIL: not measured"))
            failed += 1
            continue
        now = p[0] - b[0]
        delta = None if r is None else now - r
        if a.write_reference:
            verdict = "(writing the reference)"
        elif now > limit:
            verdict = f"FAIL: over the limit by {now - limit:.2f}"
        elif r is None:
            verdict = "FAIL: no reference figure"
        elif abs(delta) > tol:
            verdict = (f"FAIL: moved {delta:+.2f} (tolerance {tol:g})"
                       + ("; faster: update the reference" if delta < 0 else ""))
        else:
            verdict = "ok"
        failed += verdict.startswith("FAIL")
        rows.append((cell, ring, r, now, delta, limit, tol, verdict))

    def f(x, sign=False):
        return "—" if x is None else (f"{x:+.2f}" if sign else f"{x:.2f}")

    lines = [f"Regression gate: extra guest instructions per op, patched over baseline's "
             f"unrestricted ring (median of {next(iter(pat.values()))[3]} runs);",
             "  ring 'check': patched's restricted ring over its unrestricted one",
             f"  {env.get('accel', '?')}, QEMU {env.get('qemu', '?').split(' ')[0]}, "
             f"{env.get('tree', '?')}, series {env.get('series_restrictions', '?')}, "
             f"lab {env.get('lab_commit', '?')}", ""]
    hdr = f"{'cell':<15} {'ring':<13} {'reference':>9} {'now':>8} {'delta':>7} {'limit':>7} {'tol':>5}  verdict"
    lines += [hdr, "-" * len(hdr)]
    for cell, ring, r, now, delta, limit, tol, verdict in rows:
        lines.append(f"{cell:<15} {ring:<13} {f(r):>9} {f(now):>8} {f(delta, True):>7} "
                     f"{limit:>7g} {tol:>5g}  {verdict}")
    if not a.write_reference:
        lines += ["", f"gate: {'FAILED' if failed else 'passed'}: {len(rows) - failed} of {len(rows)} cells ok"]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    for name, body in (("GATE.txt", text), ("gate.csv", "cell,ring,reference,now,delta,limit,tolerance,verdict\n"
                       + "".join(f"{c},{rg},{'' if r is None else f'{r:.3f}'},{'' if n is None else f'{n:.3f}'},"
                                 f"{'' if d is None else f'{d:.3f}'},{li:g},{t:g},{v}\n"
                                 for c, rg, r, n, d, li, t, v in rows))):
        RunFolder(a.run).write(name, body)

    if a.write_reference:
        body = ["# bench/gate/reference.csv: the figures make check compares with, in guest",
                "# instructions per op (TCG -icount shift=0,sleep=off), patched over baseline's",
                "# unrestricted ring (ring \"check\": patched restricted over patched unrestricted;",
                "# its baseline_per_op column holds patched's unrestricted figure). Written",
                "# by `make check-reference` from the run",
                f"# {os.path.basename(os.path.abspath(a.run))}: {env.get('accel', '?')}, "
                f"QEMU {env.get('qemu', '?').split(' ')[0]}, {env.get('tree', '?')}, "
                f"series {env.get('series_restrictions', '?')}, lab {env.get('lab_commit', '?')}.",
                "cell,ring,extra_per_op,patched_per_op,baseline_per_op"]
        for (cell, ring) in rules:
            p, b = pair(base, pat, cell, ring)
            if b and p:
                body.append(f"{cell},{ring},{p[0] - b[0]:.3f},{p[0]:.3f},{b[0]:.3f}")
        if os.path.exists(a.write_reference) and not os.path.isfile(a.write_reference):
            # /dev/stdout, a pipe: renaming over it would replace the device
            with open(a.write_reference, "w") as fh:
                fh.write("\n".join(body) + "\n")
        else:
            write_atomic(a.write_reference, "\n".join(body) + "\n")
        print(f"gate: reference written to {a.write_reference}")
        return 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
