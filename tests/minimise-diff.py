#!/usr/bin/env python3
"""tests/minimise-diff.py CASE OUTDIR: shrink a restrict-diff case on which
patched and upstream disagree, until no smaller case still disagrees.

CASE is a restrict-diff answer line, or just its case ("ring ... sqes ...").
Each round writes the current case and every case one step smaller (one SQE,
policy entry or register call fewer, one flag bit cleared, a plain ring) to
OUTDIR/round-N/cases.txt, replays them on both kernels, one boot each
(restrict-diff -r, tests/diff-guest.sh), and keeps the first smaller case
that still disagrees (tests/diff-answers.py judges, drain bugs of upstream
6.1 excepted as there). Prints the minimised case and both answers.
PATCHED and UPSTREAM name the kernels (default patched, upstream).
Exits 0 when minimised, 2 when the case does not disagree when replayed.
"""
import importlib.util
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.dirname(HERE)
BUILD = os.environ.get("BUILD", os.path.join(LAB, "build"))
_spec = importlib.util.spec_from_file_location(
    "diff_answers", os.path.join(HERE, "diff-answers.py"))
diff_answers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(diff_answers)


def parse(line):
    """a case as {kind, mode, policy, calls, sqes} (token lists)"""
    text = line.split(" => ")[0]
    text = text[text.index("ring "):]
    part, c = None, {"policy": [], "calls": [], "sqes": []}
    for tok in text.split():
        if tok in ("ring", "policy", "calls", "sqes"):
            part = tok
        elif part == "ring":
            c["kind" if "kind" not in c else "mode"] = tok
        else:
            c[part].append(tok)
    return c


def render(c):
    return " ".join(["ring", c["kind"], c["mode"], "policy", *c["policy"],
                     "calls", *c["calls"], "sqes", *c["sqes"]])


def size(c):
    bits = sum(bin(int(t.split("/")[1], 16)).count("1") for t in c["sqes"])
    return len(c["sqes"]) + len(c["policy"]) + len(c["calls"]) + bits


def smaller(c):
    """every case one step smaller than c, the biggest steps first: half
    the SQEs, a quarter, ..., then one SQE, policy entry or call"""
    n = len(c["sqes"])
    k = n // 2
    while k >= 2:
        for i in range(0, n - k + 1, k):
            d = {k_: list(v) if isinstance(v, list) else v for k_, v in c.items()}
            del d["sqes"][i:i + k]
            yield d
        k //= 2
    for part in ("sqes", "policy", "calls"):
        if part == "sqes" and len(c["sqes"]) == 1:
            continue
        for i in range(len(c[part])):
            d = {k: list(v) if isinstance(v, list) else v for k, v in c.items()}
            del d[part][i]
            yield d
    for i, tok in enumerate(c["sqes"]):
        op, flags = tok.split("/")
        for bit in range(8):
            if int(flags, 16) & (1 << bit):
                d = {k: list(v) if isinstance(v, list) else v for k, v in c.items()}
                d["sqes"][i] = f"{op}/{int(flags, 16) & ~(1 << bit):x}"
                yield d
    if c["kind"] != "plain":
        yield dict(c, kind="plain")


def replay(kernel, cases, folder):
    """each case's answer line on kernel, from one boot"""
    os.makedirs(folder, exist_ok=True)
    src = os.path.join(folder, "cases.txt")
    with open(src, "w") as f:
        f.write("".join(render(c) + "\n" for c in cases))
    vm_out = os.path.join(folder, kernel)
    answers = os.path.join(vm_out, "answers.txt")
    os.makedirs(vm_out, exist_ok=True)
    with open(os.path.join(vm_out, "run.log"), "w") as log:
        subprocess.run([os.path.join(LAB, "vm", "run.sh"), "--",
                        os.path.join(HERE, "diff-guest.sh"),
                        os.path.join(BUILD, "tests", "restrict-diff"), answers,
                        "-r", src],
                       env=dict(os.environ, KERNEL=kernel, VM_OUT=vm_out),
                       stdout=log, stderr=subprocess.STDOUT, check=False)
    if not os.path.exists(answers):
        sys.exit(f"minimise-diff: no answers from {kernel} "
                 f"(boot lost? see {vm_out}/run.log and console.log)")
    with open(answers) as f:
        lines = [l.rstrip("\n") for l in f if l.startswith("case ")]
    if len(lines) != len(cases):
        sys.exit(f"minimise-diff: {kernel} answered {len(lines)} of {len(cases)} cases")
    return lines


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: minimise-diff.py CASE OUTDIR")
    pk = os.environ.get("PATCHED", "patched")
    uk = os.environ.get("UPSTREAM", "upstream")
    current, out = parse(sys.argv[1]), sys.argv[2]
    start, n = time.time(), 0
    while True:
        cands = [current] + list(smaller(current))
        print(f"# minimise round {n}: size {size(current)}, {len(cands) - 1} smaller "
              f"cases, {time.time() - start:.0f} s so far", flush=True)
        folder = os.path.join(out, f"round-{n}")
        pa = replay(pk, cands, folder)
        ua = replay(uk, cands, folder)
        why = [diff_answers.compare(a, b)[0] for a, b in zip(pa, ua)]
        if n == 0 and not why[0]:
            print(f"# the case agrees when replayed (timing?):\n{render(current)}")
            return 2
        keep = next((i for i in range(1, len(cands)) if why[i]), None)
        if keep is None:
            print(f"minimised case ({why[0]}):\n  {render(current)}\n"
                  f"  {pk}: {pa[0].split(' => ')[1]}\n  {uk}: {ua[0].split(' => ')[1]}")
            with open(os.path.join(out, "minimised.txt"), "w") as f:
                f.write(f"{render(current)}\n{pk}: {pa[0]}\n{uk}: {ua[0]}\n")
            return 0
        current, n = cands[keep], n + 1


if __name__ == "__main__":
    sys.exit(main())
