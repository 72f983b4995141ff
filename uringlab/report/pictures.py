"""report/pictures.py: the bench pictures, each under the question it
answers, and only those the run has (plots/draw.sh draws what its data
allow)."""
import os


def section(ctx):
    per = "instructions" if ctx.icount else "ns"
    pics = [
        ("checks", f"What does each way of checking an SQE add, in {per} per SQE: upstream's "
                   "bitmap, patched's tables, a refused SQE, each BPF filter?"),
        ("throughput", "Does a restricted ring lose throughput, against its own unrestricted "
                       "ring and against baseline's? Per cell, with 95 % intervals."),
        ("overhead", "Does the check's cost change with the number of SQEs per submit? "
                     "NOP, per batch size."),
        ("fio-iops", "Does restricting fio's ring change its IOPS? Restricted over "
                     "unrestricted, per job and kernel, with 95 % intervals."),
    ]
    have = [(n, c) for n, c in pics if os.path.exists(os.path.join(ctx.run, "plots", f"{n}.png"))]
    if not have:
        return []
    out = ["## Pictures\n"]
    for name, caption in have:
        out += [f"*{caption}*\n", f"![{name}](plots/{name}.png)\n"]
    return out
