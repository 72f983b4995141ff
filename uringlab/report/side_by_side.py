"""report/side_by_side.py: the kernels as columns, medians and the
check's cost per kernel, and fio's IOPS."""


def section(summary, fio, cells, kernels, unit, kl=lambda k: k):
    """The kernels as columns: each cell's medians, then what the check
    costs each kernel and what each unrestricted ring costs over baseline."""
    med = {(r["cell"], r["kernel"], r["ring"]): float(r["median_per_op"]) for r in summary}
    out = ["## The three kernels side by side\n",
           f"Median {unit}/op of each cell, over every repetition (of every boot); the "
           "spreads, confidence intervals and (several boots) the comparisons over rounds "
           "are in the per-cell tables below.\n",
           "| cell | ring | " + " | ".join(kl(k) for k in kernels) + " |",
           "|---|---|" + "---:|" * len(kernels)]
    for c in cells:
        for ring in ("unrestricted", "restricted"):
            vals = [med.get((c, k, ring)) for k in kernels]
            if any(v is not None for v in vals):
                out.append(f"| {c} | {ring} | " + " | ".join(
                    "—" if v is None else f"{v:,.2f}" for v in vals) + " |")
    out.append("")
    ks = [k for k in kernels if k != "baseline"]
    out += [f"What the restriction check costs each kernel (restricted − unrestricted ring) "
            f"and what an unrestricted ring costs over `baseline`, {unit}/op:\n",
            "| cell | " + " | ".join(f"check on {kl(k)}" for k in ks)
            + "".join(f" | {kl(k)} − {kl('baseline')}" for k in ks if "baseline" in kernels) + " |",
            "|---|" + "---:|" * (len(ks) * (2 if "baseline" in kernels else 1))]

    def diff(a, b):
        return "—" if a is None or b is None else f"{a - b:+.2f}"
    for c in cells:
        row = [diff(med.get((c, k, "restricted")), med.get((c, k, "unrestricted"))) for k in ks]
        if "baseline" in kernels:
            row += [diff(med.get((c, k, "unrestricted")), med.get((c, "baseline", "unrestricted")))
                    for k in ks]
        out.append(f"| {c} | " + " | ".join(row) + " |")
    out.append("")
    if fio:
        iops = {(r["job"], r["kernel"], r["ring"]): float(r["iops_median"]) for r in fio}
        jobs = []
        for r in fio:
            if (r["job"], r["ring"]) not in jobs:
                jobs.append((r["job"], r["ring"]))
        out += ["fio, median IOPS:\n",
                "| job | ring | " + " | ".join(kl(k) for k in kernels) + " |",
                "|---|---|" + "---:|" * len(kernels)]
        for job, ring in jobs:
            out.append(f"| {job} | {ring} | " + " | ".join(
                "—" if iops.get((job, k, ring)) is None else f"{iops[(job, k, ring)]:,.0f}"
                for k in kernels) + " |")
        out.append("")
    return out
