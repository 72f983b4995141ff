"""plugin.py: the insn-count QEMU plugin's output (tracing/insn-count.c)
and the kernel symbols it is read against: the windows of
raw/KERNEL/insn-count.txt, System.map, objdump of build/out/KERNEL/vmlinux.
attribution, mca, the gate and tests/check-windows.py read it here.
"""
import bisect
import os
import re
import subprocess

from uringlab.kernels import of_run, with_lab
from uringlab.runfolder import LAB, RunFolder


def vmlinux(kernel):
    """The kernel image a run's addresses disassemble against: the current
    build's (build/out/KERNEL, not $BUILD), so a re-render depends on it."""
    return os.path.join(LAB, "build", "out", kernel, "vmlinux")


def traced_kernels(run):
    """The kernels the plugin counted, both of its files present: the
    lab's three, then any other the run booted (host.env)."""
    return [k for k in with_lab(of_run(RunFolder(run)))
            if all(os.path.exists(os.path.join(run, "raw", k, f))
                   for f in ("insn-count.txt", "windows.jsonl"))]


def load_symbols(path):
    addrs, names = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                addrs.append(int(parts[0], 16))
                names.append(parts[2])
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


class Window:
    """One complete plugin window. With the cache model (cache=1): mem,
    the (accesses, L1D misses, L2 misses) of user space, of the kernel and
    the count of distinct (line, instruction) pairs; addr_mem, those
    three per kernel instruction; lines, (line, instruction, accesses,
    L1D misses) per distinct pair."""

    def __init__(self, user, kernel, probe):
        self.user, self.kernel, self.probe = user, kernel, probe
        self.counts, self.addr_mem, self.lines, self.mem = {}, {}, [], None


def read_windows(path, probes=False):
    """The plugin's complete windows, in order; the cache model's probe
    windows (tracing/cache-probe.c) only when asked for."""
    windows, cur = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            p = line.split()
            if p[0] == "window":
                cur = Window(int(p[3]), int(p[5]), p[-1] == "probe")
            elif p[0] == "end":
                if cur is not None and cur.probe == probes:
                    windows.append(cur)
                cur = None
            elif cur is None:
                continue
            elif p[0] == "mem":
                cur.mem = {"user": tuple(map(int, p[2:5])),
                           "kernel": tuple(map(int, p[6:9])), "pairs": int(p[10])}
            elif p[0] == "line":
                cur.lines.append((int(p[1], 16), int(p[2], 16), int(p[3]), int(p[4])))
            else:
                a = int(p[0], 16)
                cur.counts[a] = int(p[1])
                if len(p) == 5:
                    cur.addr_mem[a] = tuple(map(int, p[2:5]))
    return windows


# x86-64's module area, where the BPF JIT puts its images (no module is
# loaded in the lab's guests): past every symbol of System.map
MODULES_VADDR = 0xffffffffa0000000


def by_function(counts, addrs, names):
    funcs = {}
    for a, n in counts.items():
        i = bisect.bisect_right(addrs, a) - 1
        name = names[i] if i >= 0 else "[unknown]"
        if a >= MODULES_VADDR:
            name = "[bpf jit]"
        funcs[name] = funcs.get(name, 0) + n
    return funcs


def disassemble(vmlinux, lo, hi):
    """{address: 'mnemonic operands'} for [lo, hi) of vmlinux."""
    if not os.path.exists(vmlinux):
        return {}
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn",
                          f"--start-address={lo:#x}", f"--stop-address={hi:#x}",
                          vmlinux], capture_output=True, text=True).stdout
    dis = {}
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
        if m:
            dis[int(m.group(1), 16)] = " ".join(m.group(2).split())
    return dis
