"""python3 -m uringlab.answers RUN [--check] [--short] [FILE...]: the lab's
answer table, generated from a bench run folder, never pasted.

From RUN's summary.csv, overhead.csv, filters.csv (when the run has
filter cells) and env/host.env it builds a markdown table, one row per
answer: what the restriction check adds per allowed SQE on patched and on
upstream (NOP batch 32 and batch 1), what a refused SQE costs (cell
"deny b=32"), and what each BPF filter variant the run measured adds. A
row the run has no figure for is left out, never estimated. Columns:
kernel, what, what it adds per SQE (guest instructions under TCG -icount,
ns otherwise) and its 95 % interval. A one-line caption names the run
folder, accelerator, QEMU, series hash and date (env/host.env).

In each FILE the block between

    <!-- answers:begin -->            the full table (docs/results.md)
    <!-- answers:begin short -->      the short one (README.md): NOP b=32,
                                      the refused SQE and one filter
    <!-- answers:end -->

is rewritten (uringlab/docblock.py: atomically, only when it changed; a
FILE without a block, or a RUN that cannot answer, changes no file).
With --check nothing is written: it prints TAP, one case a FILE (make
test's host checks), and exits 1, naming each stale FILE, when a block
differs from what RUN gives. Without FILE the table is printed (--short: the short one).

    python3 -m uringlab.answers results/reference README.md docs/results.md
    python3 -m uringlab.answers results/reference --check README.md docs/results.md
"""
import argparse
import glob
import os
import re
import shlex
import sys

from uringlab import docblock
from uringlab.numfmt import fmt
from uringlab.runfolder import LAB, RunFolder, read_env_file
from uringlab.stats import per_op


class AnswerError(docblock.BlockError):
    """RUN or a FILE cannot give or take an answer table."""


# the blocks' name: <!-- answers:begin [short] --> (uringlab/docblock.py)
BLOCK = "answers"

# ringbench -F: what each filter program is (bench/ringbench.c)
FILTERS = {
    "allow": "1 instruction (return 1)",
    "real": "13 instructions on user_data, opcode and flags (12 run)",
    "other": "1 instruction on another opcode (SOCKET): the NOP has none",
    "socket": "family and type (9 instructions)",
    "open": "open flags (4 instructions)",
    "connect": "address and port (8 instructions)",
    "flags": "no IOSQE_ASYNC (5 instructions on the flags alone)",
}
OPS = {"nop": "NOP", "socket": "SOCKET", "openat": "OPENAT", "connect": "CONNECT"}


def signed(x):
    s = fmt(x, 2)
    return s if s.startswith("-") or s == "0.00" else "+" + s


def filter_text(name):
    """"realx4-nojit" -> the program, 4 stacked, JIT off; "-chain": made
    under io_uring.bpf_fold=0, run as registered."""
    base, _, suffix = name.partition("-")
    m = re.fullmatch(r"(.*?)x([0-9]+)", base)
    base, stacked = (m.group(1), m.group(2)) if m else (base, "")
    text = FILTERS.get(base, base)
    if stacked:
        text += f", {stacked} stacked"
    if suffix == "nojit":
        text += ", JIT off"
    elif suffix == "chain":
        text += ", run as registered"
    return text


def cell_text(cell):
    """"nop b=32" -> "NOP, batch 32"."""
    w, _, p = cell.partition(" ")
    op = OPS.get(w, w)
    if p.startswith("b="):
        return f"{op}, batch {p[2:]}"
    return f"{op} {p}".strip()


class Run:
    def __init__(self, path):
        if not os.path.isdir(path):
            raise AnswerError(f"{path} is not a run folder")
        self.rf = rf = RunFolder(path)
        self.host = rf.env()
        if not rf.read_csv("summary.csv"):
            raise AnswerError(f"{path}: no summary.csv (not a bench run, or not summarized)")
        if not rf.complete:
            raise AnswerError(f"{path}: no COMPLETE marker (a killed run): not a source of answers")
        self.median = {(r["cell"], r["kernel"], r["ring"]): float(r["median_per_op"])
                       for r in rf.read_csv("summary.csv") if r["median_per_op"]}
        self.reps = {(r["cell"], r["kernel"], r["ring"]): r["reps"]
                     for r in rf.read_csv("summary.csv") if r["reps"]}
        self.used = set()  # the summary rows the table's figures come from
        self.overhead = {(r["cell"], r["comparison"]): r for r in rf.read_csv("overhead.csv")}
        self.filters = rf.read_csv("filters.csv")
        self.icount = self.host.get("accel") == "tcg-icount"
        # where a run lives, as a reader of the docs would type it
        p = os.path.abspath(path)
        self.name = os.path.relpath(p, LAB) if p.startswith(LAB + os.sep) else path.rstrip("/")
        self.suspect = {k for k in self.host.get("kernels", "").split() if self._suspect(k)}

    def _suspect(self, kernel):
        """A boot with kernel log faults or a device on a legacy line (its
        boot.env): the run's REPORT.md marks that kernel's figures ⚠."""
        paths = [self.rf.file("env", f"{kernel}.boot.env")]
        paths += glob.glob(self.rf.file("env", f"{kernel}.b[0-9]*.boot.env"))
        for p in paths:
            b = read_env_file(p)
            if b.get("klog_errors", "0") not in ("", "0") or b.get("irq_legacy"):
                return True
        return False

    def row(self, kernel, what, delta, lo_pct, hi_pct, ref, keys):
        """A table row; the interval is the run's 95 % interval of the ratio,
        in per cent of the reference ring's median, turned into its unit.
        KEYS: the summary rows (cell, kernel, ring) of both sides."""
        self.used.update(keys)
        iv = per_op(lo_pct, hi_pct, ref)
        ci = "—" if iv is None else f"{signed(iv[0])} .. {signed(iv[1])}"
        k = f"{kernel} ⚠" if kernel in self.suspect else kernel
        return (k, what, signed(delta), ci)

    def check_row(self, cell, kernel, what):
        r = self.overhead.get((cell, f"{kernel}: restricted vs unrestricted"))
        if not r or not r["delta_per_op"]:
            return None
        ref = self.median.get((cell, kernel, "unrestricted"))
        return self.row(kernel, what, float(r["delta_per_op"]), r["ci95_lo_pct"],
                        r["ci95_hi_pct"], ref,
                        [(cell, kernel, "unrestricted"), (cell, kernel, "restricted")])

    def filter_rows(self):
        """Every filter variant in filters.csv: patched's filtered ring (or
        allow-lists and filters) against its filter cell's unrestricted ring."""
        out = []
        for r in self.filters:
            m = re.fullmatch(r"(\S+) (tables \+ )?filter (\S+)", r["check"])
            if not m or not r["check_per_op"]:
                continue
            kernel, both, f = m.groups()
            cell = r["cell"]
            fcell = f"{cell} F={f}"
            ref = self.median.get((fcell, kernel, "unrestricted"))
            what = f"BPF filter, {filter_text(f)}; {cell_text(cell)}"
            if both:
                what = f"allow-lists and BPF filter, {filter_text(f)}; {cell_text(cell)}"
            keys = [(fcell, kernel, "unrestricted"), (fcell, kernel, r["ring"])]
            out.append((f, both, self.row(kernel, what, float(r["check_per_op"]),
                                          r["ci95_lo_pct"], r["ci95_hi_pct"], ref, keys)))
        return out

    def rows(self, short=False):
        self.used = set()
        batches = ["32"] if short else ["32", "1"]
        out = []
        for b in batches:
            for k in ("patched", "upstream"):
                out.append(self.check_row(f"nop b={b}", k,
                                          f"restriction check, allowed NOP, batch {b}"))
        for k in ("patched", "upstream"):
            out.append(self.check_row("deny b=32", k,
                                      "refused NOP (-EACCES), batch 32, over an unrestricted ring's NOP"))
        filters = self.filter_rows()
        if short:
            # the filters on NOP: on the flags alone (decided at
            # registration), the 13-instruction program on user_data
            # (decided on its ranges), four of them, and the same one and
            # four as registered; else the first
            pick = [f for n in ("flags", "real", "realx4", "real-chain", "realx4-chain")
                    for f in filters
                    if f[0] == n and not f[1]] or filters[:1]
            filters = pick
        out += [f[2] for f in filters]
        return [r for r in out if r]

    def caption(self):
        h = self.host
        qemu = (h.get("qemu") or "?").split(" ")[0]
        reps = sorted({int(self.reps[k]) for k in self.used if k in self.reps})
        reps = (f"{reps[0]}" if len(reps) == 1 else f"{reps[0]} to {reps[-1]}") if reps else "?"
        reps = f"median of {reps} repetitions"
        boots = h.get("boots", "1")
        if boots not in ("", "1"):
            reps += f" over {boots} boots"
        try:
            settings = shlex.split(h.get("settings", ""))
        except ValueError:
            settings = []
        settings = " ".join(s if " " not in s else s.replace("=", '="', 1) + '"' for s in settings
                            if s == "QUICK=1" or s.startswith("CELLS="))
        method = next((r["ci_method"] for r in self.overhead.values() if r.get("ci_method")), "")
        parts = [f"Run `{self.name}` ({h.get('date', '?')})",
                 f"{h.get('accel', '?')}, QEMU {qemu}",
                 f"series {h.get('series_restrictions', '?')}",
                 h.get("tree", "?")]
        if settings:
            parts.append(settings)
        text = ", ".join(parts) + f"; {reps}"
        if method:
            text += f", 95 % interval: {method}"
        return text + "."

    def table(self, short=False):
        unit = "instructions" if self.icount else "ns"
        rows = self.rows(short)
        if not rows:
            raise AnswerError(f"{self.name} has none of the answer cells "
                              "(nop b=32, nop b=1, deny b=32, filter cells)")
        lines = [f"| kernel | what | {unit} per SQE added | 95 % interval |",
                 "|---|---|---:|---:|"]
        lines += [f"| {k} | {w} | {d} | {ci} |" for k, w, d, ci in rows]
        lines += ["", self.caption()]
        if self.suspect:
            lines.append("")
            lines.append(f"⚠ {', '.join(sorted(self.suspect))}: a boot of this run logged "
                         "kernel fault lines; those figures are suspect (the run's REPORT.md "
                         "quotes the lines).")
        return "\n".join(lines) + "\n"


def body(run, cmd):
    """The body of an answers block, by its argument: the full table, or
    with "short" the short one."""
    def make(arg):
        if arg not in (None, "short"):
            raise AnswerError(f"<!-- answers:begin {arg} -->: the argument is short or none")
        return (f"<!-- generated by {cmd}: edit uringlab/answers.py, not this table -->\n"
                + run.table(short=arg == "short"))
    return make


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", help="a bench run folder (results/reference)")
    ap.add_argument("files", nargs="*", help="files with answers blocks to rewrite")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; TAP, one case a file; exit 1 if a block is stale")
    ap.add_argument("--short", action="store_true", help="print the short table (no FILE)")
    args = ap.parse_intermixed_args()
    if args.check:
        return check(args.run, args.files)
    try:
        run = Run(args.run)
        if not args.files:
            sys.stdout.write(run.table(short=args.short))
            return 0
        # every file first: a bad one leaves all of them as they were
        cmd = f"python3 -m uringlab.answers {run.name}"
        done = docblock.write(args.files, BLOCK, body(run, cmd))
    except docblock.BlockError as e:
        sys.exit(f"answers: {e}")
    for path in done:
        print(f"answers: {path} rewritten from {run.name}")
    return 0


def check(run_path, files):
    """make test's case: TAP, one case a FILE, its blocks what RUN gives."""
    try:
        run = Run(run_path)
    except AnswerError as e:
        print("1..1")
        print(f"not ok 1 - answer tables: {e}")
        return 1
    cmd = f"python3 -m uringlab.answers {run.name}"
    return docblock.check(
        files, BLOCK, body(run, cmd),
        ok=lambda path: f"{path}: its answer tables are {run.name}'s",
        stale=lambda path: f"{path} is stale: its answer tables are not what {run.name} gives",
        fix=f"rewrite them: {cmd} {' '.join(files)} (make docs)",
        what="answer tables")


if __name__ == "__main__":
    sys.exit(main())
