"""report/table.py: the side-by-side table in plain text (uringlab.textable),
the one to paste into a mail: per cell and ring each kernel's median,
and for every kernel but baseline the comparison's d% with its 95 %
interval beneath. An unrestricted ring is compared with baseline's
unrestricted ring (what the kernel costs without restrictions); any
other ring with the same kernel's unrestricted ring (what the check
itself costs), as overhead.csv has them."""
import textwrap

from uringlab import textable
from uringlab.bench_plotdata import RINGS

HEADING = "## The kernels side by side, in plain text"
# a kernel's median and its d% take 18 columns: three kernels fit beside
# a 25-column label, a fourth would squeeze the label to nothing
PER_TABLE = 3


def comparison(k, ring, kernels, labels):
    """overhead.csv's label for kernel k's d% on this ring, or None."""
    if ring == "unrestricted":
        # a kernel outside the lab's three is compared with patched
        for ref in ("baseline", "patched"):
            lab = f"{k} vs {ref}, unrestricted"
            if ref in kernels and ref != k and lab in labels:
                return lab
        return None
    lab = f"{k}: {ring} vs unrestricted"
    return lab if lab in labels else None


def _fnum(s):
    return float(s) if s not in (None, "") else None


def header(ctx):
    """The lines above the table: what produced it and how to read it."""
    host = ctx.host
    reps = sorted({int(r["reps"]) for r in ctx.summary if r.get("reps")})
    nrep = (f"{reps[0]}" if len(reps) == 1 else f"{reps[0]}..{reps[-1]}") if reps else "?"
    accel = host.get("accel", "?") + (f" ({host.get('icount')})" if ctx.icount else "")
    per = "guest instructions" if ctx.icount else "ns (wall clock)"
    how = ("bootstrap over repetitions" if ctx.boots <= 1 else
           f"Student's t over {ctx.boots} rounds of boots")
    text = [f"{ctx.rf.path.rsplit('/', 1)[-1]}: make bench, {accel}, "
            f"QEMU {host.get('qemu', '?').split(' ')[0]}",
            f"series {host.get('series_restrictions', '?')} on baseline "
            f"{host.get('series_baseline', '?')}, lab {host.get('lab_commit', '?')}",
            f"{per} per op, median of {nrep} repetitions"
            + (f" over {ctx.boots} boots" if ctx.boots > 1 else "") + ".",
            "d%: an unrestricted ring against baseline's unrestricted ring, any other "
            "ring against the same kernel's unrestricted ring (the check's own cost); "
            f"[lo,hi] its 95% interval, {how}."]
    if any(k not in ("baseline", "patched", "upstream") for k in ctx.kernels):
        text.append("A kernel outside the lab's three is compared with patched.")
    if ctx.suspect:
        text.append("* suspect: " + ", ".join(sorted(ctx.suspect))
                    + "'s kernel log has fault lines (Run status).")
    out = []
    for t in text:
        out += textwrap.wrap(t, textable.WIDTH, subsequent_indent="  ")
    return out


def lines(ctx):
    """The table (or, beside more than three kernels, one table per
    three, each with the first kernel), header included."""
    kernels = ctx.kernels or sorted({r["kernel"] for r in ctx.summary})
    med = {(r["cell"], r["kernel"], r["ring"]): _fnum(r["median_per_op"]) for r in ctx.summary}
    over = {(r["cell"], r["comparison"]): r for r in ctx.overhead}
    labels = {r["comparison"] for r in ctx.overhead}
    first, others = kernels[:1], kernels[1:]
    out = header(ctx)
    for at in range(0, max(len(others), 1), PER_TABLE - 1):
        ks = first + others[at:at + PER_TABLE - 1]
        out.append("")
        out += _table(ctx, ks, kernels, med, over, labels)
    return out


def _table(ctx, ks, kernels, med, over, labels):
    def head(k):
        return k + ("*" if k in ctx.suspect else "")
    cols = [textable.Col("cell\n  ring", "<")]
    for k in ks:
        cols.append(textable.Col(head(k)))
        if k != "baseline":
            cols.append(textable.Col("d%", gap=1))
    rows = []
    for c in ctx.cells:
        rings = [r for r in RINGS if any(med.get((c, k, r)) is not None for k in ks)]
        if not rings:
            continue
        rows.append(textable.Group(c))
        for ring in rings:
            cells, under = [f"  {ring}"], {}
            for k in ks:
                cells.append(textable.figure(med.get((c, k, ring))))
                if k == "baseline":
                    continue
                lab = comparison(k, ring, kernels, labels)
                r = over.get((c, lab)) if lab else None
                cells.append(textable.pct(_fnum(r["delta_pct"])) if r else "")
                if r:
                    under[len(cells) - 1] = textable.interval(_fnum(r["ci95_lo_pct"]),
                                                              _fnum(r["ci95_hi_pct"]))
            rows.append(textable.Row(cells, under))
    return textable.render(cols, rows)


def section(ctx):
    if not ctx.summary:
        return []
    return [HEADING + "\n", "```"] + lines(ctx) + ["```", ""]
