"""python3 -m uringlab.mca RUN: a static cycle estimate of what the insn-count plugin saw
executed, per kernel, cell and ring, for two microarchitectures.

The plugin counts every kernel instruction of a window. Runs of
consecutive instructions with the same count are the window's basic
blocks (straight-line code executes whole); each goes through llvm-mca
(Debian's llvm) as a code region of its own, and the estimate per op is
the sum over blocks of (executions per op) x (llvm-mca's cycles per
iteration of that block). llvm-mca models a block in a steady-state loop
of itself: hits in every cache, predicted branches, no overlap between
different blocks. It ranks code paths and shows what an extra
instruction costs on a real core's ports; it is not a measurement, and
cache misses are the cache model's column, not this one's.

Writes RUN/trace/mca.csv: kernel, cell, ring, cpu, kernel instructions
per op, estimated kernel cycles per op, blocks, blocks llvm-mca could not
parse (left out, their instructions counted in skipped_insns_per_op).
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile

from uringlab import cells
from uringlab.plugin import read_windows, traced_kernels, vmlinux
from uringlab.plugin import disassemble as plugin_disassemble
from uringlab.runfolder import read_jsonl, write_csv

CPUS = os.environ.get("MCA_CPUS", "icelake-server znver3").split()
ITER = 100


def disassemble(image, addrs):
    """{address: (length, 'insn operands')} for the instructions at addrs,
    from plugin.py's objdump of the range around them: a length is the
    distance to the next instruction."""
    dis = plugin_disassemble(image, min(addrs), max(addrs) + 16)
    ins = sorted(dis.items())
    return {a: (b - a, text) for (a, text), (b, _) in zip(ins, ins[1:])}


def clean(text):
    """objdump's AT&T text as llvm-mc parses it"""
    text = text.split("#")[0].strip()
    # "call ffffffff81234567 <foo>" -> "call 0xffffffff81234567"
    text = re.sub(r"\b([0-9a-f]{16}) <[^>]*>", r"0x\1", text)
    text = re.sub(r"\s+", " ", text)
    return text


def blocks(counts, dis):
    """[(start, [insn text], executions)] from per-address counts"""
    out, cur = [], None
    for a in sorted(counts):
        n = counts[a]
        if a not in dis:
            cur = None
            continue
        length, text = dis[a]
        if cur and cur[3] == a and cur[2] == n:
            cur[1].append(text)
        else:
            cur = [a, [text], n, None]
            out.append(cur)
        cur[3] = a + length
    return [(b[0], b[1], b[2]) for b in out]


def mca(cpu, regions):
    """{region name: cycles per iteration}; a region llvm-mca cannot
    parse is dropped (and the rest retried) rather than failing all."""
    regions = dict(regions)
    bad = set()
    for _ in range(200):
        with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
            lines, owner = [], {}
            for name, insns in regions.items():
                if name in bad:
                    continue
                lines.append(f"# LLVM-MCA-BEGIN {name}")
                for i in insns:
                    lines.append(i)
                    owner[len(lines)] = name
                lines.append(f"# LLVM-MCA-END {name}")
            f.write("\n".join(lines) + "\n")
            path = f.name
        p = subprocess.run(["llvm-mca", "-mtriple=x86_64-unknown-linux-gnu", f"-mcpu={cpu}",
                            f"-iterations={ITER}", "-all-views=0", "-summary-view", path],
                           capture_output=True, text=True)
        os.unlink(path)
        if p.returncode == 0:
            res, name = {}, None
            for line in p.stdout.splitlines():
                m = re.match(r"\[\d+\] Code Region - (\S+)", line)
                if m:
                    name = m.group(1)
                m = re.match(r"Total Cycles:\s+(\d+)", line)
                if m and name:
                    res[name] = int(m.group(1)) / ITER
            return res, bad
        m = re.search(r":(\d+):\d+: error", p.stderr)
        if not m or int(m.group(1)) not in owner:
            sys.exit(f"mca: llvm-mca failed: {p.stderr[:400]}")
        bad.add(owner[int(m.group(1))])
    sys.exit("mca: too many regions llvm-mca cannot parse")


def main():
    run = os.path.abspath(sys.argv[1])
    rows = []
    for k in traced_kernels(run):
        raw = os.path.join(run, "raw", k)
        image = vmlinux(k)
        if not os.path.exists(image):
            print(f"[trace] mca: no {image}: {k} left out", file=sys.stderr)
            continue
        windows = read_windows(os.path.join(raw, "insn-count.txt"))
        runs = read_jsonl(os.path.join(raw, "windows.jsonl"))
        per = {}
        for win, j in zip(windows, runs):
            per.setdefault((cells.name(j), j["ring"]), []).append(
                {a: n / j["ops"] for a, n in win.counts.items()})
        # one op's counts: the median of each address over the repetitions
        med = {}
        for key, reps in per.items():
            addrs = set().union(*reps)
            med[key] = {a: statistics.median(r.get(a, 0.0) for r in reps) for a in addrs}
        allowed = set().union(*[set(m) for m in med.values()]) if med else set()
        if not allowed:
            continue
        # objdump per function-sized cluster of addresses
        dis = {}
        srt = sorted(allowed)
        start = 0
        for i in range(1, len(srt) + 1):
            if i == len(srt) or srt[i] - srt[i - 1] > 4096:
                dis.update(disassemble(image, srt[start:i]))
                start = i
        bl = {key: blocks(m, dis) for key, m in med.items()}
        regions = {}
        for bs in bl.values():
            for a, insns, _ in bs:
                regions[f"b{a:x}"] = [clean(t) for t in insns]
        for cpu in CPUS:
            cyc, bad = mca(cpu, regions)
            for (cell, ring), bs in sorted(bl.items()):
                est = insns_op = skipped = 0.0
                for a, insns, n in bs:
                    insns_op += n * len(insns)
                    c = cyc.get(f"b{a:x}")
                    if c is None:
                        skipped += n * len(insns)
                    else:
                        est += n * c
                rows.append([k, cell, ring, cpu, f"{insns_op:.2f}", f"{est:.2f}", len(bs),
                             len([b for b in bs if f"b{b[0]:x}" in bad]), f"{skipped:.2f}"])
        print(f"[trace] mca: {k}: {len(regions)} blocks through llvm-mca for {', '.join(CPUS)}")
    if rows:
        write_csv(os.path.join(run, "trace", "mca.csv"),
                  ["kernel", "cell", "ring", "cpu", "kernel_insns_per_op", "est_cycles_per_op",
                   "blocks", "blocks_unparsed", "skipped_insns_per_op"], rows)


if __name__ == "__main__":
    main()
