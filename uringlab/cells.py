"""cells.py: a cell's name, built once from a ringbench JSON line.

The name ("nop b=32", "nop b=32 F=real", "nop b=32 task", "setup") is the
key of every bench and trace table and REPORT.md; slug() is its file-name
form ("nop-b32"), which the trace's hot-*.txt and plots/data/trace-insn-*
files, the gate's cells and bench/gate/thresholds use (plots/draw.sh reads
the cell back from the file name). bench/micro-matrix.sh's cell_label and
tracing/in-guest.sh's file names mirror these by hand.
"""
WORKLOAD_ORDER = ["nop", "skip", "drain", "link", "async", "topop", "rings", "read", "bufsel",
                  "sqpoll", "deny", "setup", "socket", "openat", "connect", "fork"]


def name(d):
    # ringbench reports the batch of the workloads that have one, the
    # depth of the others, 0 where neither applies
    # a filter cell (ringbench -F) adds its filter: "nop b=32 F=realx2"
    w = d["workload"]
    if d.get("rings"):
        name = f"{w} N={d['rings']}"
    elif d.get("batch"):
        name = f"{w} b={d['batch']}"
    elif d.get("depth"):
        name = f"{w} qd={d['depth']}"
    else:
        name = w
    if d.get("filter"):
        name += f" F={d['filter']}"
    # a task cell (micro-matrix.sh) is its own cell, unrestricted side too
    if d.get("variant"):
        name += f" {d['variant']}"
    return name


def slug(name):
    """"nop b=32" -> "nop-b32": a cell in a file name or a gate rule."""
    return name.replace(" ", "-").replace("=", "")


def split(name):
    """(base cell, filter or ""): "nop b=32 F=real" -> ("nop b=32", "real")."""
    base, _, f = name.partition(" F=")
    return base, f


def sort_key(name):
    # "nop b=32", "nop b=32 task", "fork lists", "nop b=32 F=real"
    base, f = split(name)
    w, _, p = base.partition(" ")
    first, _, variant = p.partition(" ")
    if "=" in first:
        n = int(first.split("=")[1])
    else:
        n, variant = 0, p
    return (WORKLOAD_ORDER.index(w) if w in WORKLOAD_ORDER else 99, n, variant, f)


def trace_order(key):
    """The trace report's (cell, kernel, ring) order: workloads
    alphabetically, then the number, then the filter. Not sort_key's
    order: the trace tables have always been sorted this way. The number
    is the base cell's first parameter: "nop b=32 F=real" once crashed
    the report, and "nop b=32 task" would have."""
    base, f = split(key[0])
    w, _, p = base.partition(" ")
    first, _, variant = p.partition(" ")
    n = int(first.split("=")[1]) if "=" in first else 0
    return (w, n, variant, f, key[1], key[2])


def is_task(name):
    """A task cell (micro-matrix.sh): its own rings, none of the plain ones."""
    return name.endswith(" task") or name.startswith("fork")
