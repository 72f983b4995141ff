"""report/verdict.py: the report's first lines, the run against the lab's
stated targets: the LIMIT column of bench/gate/thresholds, read the way
make check's gate reads it (uringlab.gate: ring "check" is patched's
restricted ring minus its unrestricted ring, any other ring patched's
ring minus baseline's unrestricted ring, same cell). Only the limits: a
gate run's tolerance is against a reference made by make check, whose
runs are not these.

Three lines: an allowed SQE on a restricted ring (the check rules), the
rings against baseline (the other rules), a refused SQE with the BPF
filters beside it (no target: logged). A rule whose cell the run did not
measure is named, never filled in. A wall-clock run has figures in ns,
which the limits do not speak of: its lines give the figures and what
their intervals allow, unjudged."""
import os
import re

from uringlab import cells as cellnames, gate
from uringlab.stats import per_op

# the cell whose restricted ring refuses every SQE (bench/ringbench -w deny)
DENY = "deny"

# (comparison in overhead.csv, A side, B side) of a rule's ring
SIDES = {
    "check": ("patched: restricted vs unrestricted", ("patched", "restricted"),
              ("patched", "unrestricted")),
    "unrestricted": ("patched vs baseline, unrestricted", ("patched", "unrestricted"),
                     ("baseline", "unrestricted")),
    "restricted": ("patched restricted vs baseline", ("patched", "restricted"),
                   ("baseline", "unrestricted")),
}


class Rule:
    def __init__(self, slug, ring, limit, cell):
        self.slug, self.ring, self.limit, self.cell = slug, ring, limit, cell
        self.value = None   # the figure per op, None when not measured
        self.lo = self.hi = None  # its 95 % interval per op
        self.row = None     # overhead.csv's row of the comparison

    def name(self):
        """the cell's name; from the slug when the run has no such cell"""
        if self.cell:
            return self.cell
        m = re.fullmatch(r"([a-z]+)-(b|qd|N)([0-9]+)", self.slug)
        return f"{m[1]} {m[2]}={m[3]}" if m else self.slug

    def where(self, ring=False):
        return f"{self.name()}, {self.ring}" if ring else self.name()


def _f(s):
    return float(s) if s not in (None, "") else None


def rules(ctx):
    """bench/gate/thresholds' rules with this run's figures; the -l1d
    rules (the trace plugin's cache model) apart. None without the file."""
    path = os.path.join(gate.RULES, "thresholds")
    if not os.path.exists(path):
        return None, []
    bycell = {cellnames.slug(c): c for c in ctx.cells}
    med = {(r["cell"], r["kernel"], r["ring"]): _f(r["median_per_op"]) for r in ctx.summary}
    over = {(r["cell"], r["comparison"]): r for r in ctx.overhead}
    out, l1d = [], []
    for (slug, ring), (limit, _tol, _why) in gate.read_rules(path).items():
        if slug.endswith("-l1d"):
            l1d.append(slug)
            continue
        r = Rule(slug, ring, limit, bycell.get(slug))
        label, a, b = SIDES.get(ring, (None, ("patched", ring), ("baseline", "unrestricted")))
        ma, mb = med.get((r.cell, *a)), med.get((r.cell, *b))
        # a filter cell runs on patched only: baseline's side is its base
        # cell, whose unrestricted ring is the filter cell's ring 0
        if r.cell and mb is None and cellnames.split(r.cell)[1]:
            mb = med.get((cellnames.split(r.cell)[0], *b))
        if r.cell and ma is not None and mb is not None:
            r.row = over.get((r.cell, label))
            r.value = _f(r.row["delta_per_op"]) if r.row else ma - mb
            iv = per_op(r.row["ci95_lo_pct"], r.row["ci95_hi_pct"], mb) if r.row else None
            if iv:
                r.lo, r.hi = iv
        out.append(r)
    return out, sorted(set(l1d))


def _per(x, unit):
    return f"{x:+.2f} {unit}"


def _interval(r, unit):
    return "" if r.lo is None else f" (95 % interval {r.lo:+.2f} .. {r.hi:+.2f})"


def _unmeasured(rs, ring=False):
    """the rules' cells the run lacks; a cell alone when all its rules
    here are unmeasured, else with the ring"""
    names = []
    for r in rs:
        if r.value is not None:
            continue
        whole = all(o.value is None for o in rs if o.slug == r.slug)
        names.append(r.name() if whole or not ring else r.where(ring))
    names = list(dict.fromkeys(names))
    return f" Not measured in this run: {', '.join(names)}." if names else ""


def _judged(rs, unit, ring=False):
    """worst figure, where, against its limit, met or missed, how many met"""
    got = [r for r in rs if r.value is not None]
    if not got:
        return _unmeasured(rs, ring)
    worst = max(got, key=lambda r: r.value - r.limit)
    met = [r for r in got if r.value <= r.limit]
    missed = [r for r in got if r.value > r.limit and r is not worst]
    s = (f" {'Worst ' if len(got) > 1 else ''}{_per(worst.value, unit)} on "
         f"{worst.where(ring)}{_interval(worst, unit)} against a limit of {worst.limit:g}: "
         f"**{'met' if worst.value <= worst.limit else 'missed'}**"
         + (f"; {len(met)} of {len(got)} rules met." if len(got) > 1 else "."))
    if missed:
        s += " Also missed: " + ", ".join(
            f"{r.where(ring)} ({_per(r.value, unit)}, limit {r.limit:g})" for r in missed) + "."
    return s + _unmeasured(rs, ring)


def _described(rs, unit, ring=False):
    """wall clock: the largest figure and what its interval allows"""
    got = [r for r in rs if r.value is not None]
    if not got:
        return _unmeasured(rs, ring)
    top = max(got, key=lambda r: r.value)
    s = f" Largest {_per(top.value, unit)} on {top.where(ring)}"
    if top.row:
        s += f" ({float(top.row['delta_pct']):+.3f} %" + (
            f", 95 % {float(top.row['ci95_lo_pct']):+.3f} .. {float(top.row['ci95_hi_pct']):+.3f} %: "
            + ("significant" if top.row.get("significant") == "yes" else "indistinguishable from 0")
            if top.row["ci95_lo_pct"] else ", no interval") + ")"
    sig = [r for r in got if r.row and r.row.get("significant") == "yes"
           and float(r.row["delta_pct"]) > 0]
    s += (f"; significantly dearer in {len(sig)} of {len(got)} rule"
          f"{'s' if len(got) > 1 else ''}.")
    return s + _unmeasured(rs, ring)


def _upstream(ctx, unit):
    """upstream's bitmap on NOP batch 32, the contrast to patched's check"""
    r = next((r for r in ctx.overhead if r["cell"] == "nop b=32"
              and r["comparison"] == "upstream: restricted vs unrestricted"), None)
    if not r:
        return ""
    return (" For contrast, upstream's bitmap check on nop b=32"
            f"{' (⚠)' if 'upstream' in ctx.suspect else ''}: "
            f"{_per(float(r['delta_per_op']), unit)}.")


def _filters(ctx, unit):
    """the BPF filters' range of cost per SQE (filters.csv), or ''"""
    rows = [r for r in ctx.filters if r["check"].startswith(("patched filter", "patched tables + filter"))
            and r["check_per_op"]]
    if not rows:
        return ""

    def name(r):
        f = r["check"].rsplit(" ", 1)[1]
        return f"{r['cell']} F={f}" + (", with the tables" if "tables" in r["check"] else "")
    lo = min(rows, key=lambda r: float(r["check_per_op"]))
    hi = max(rows, key=lambda r: float(r["check_per_op"]))
    return (f" **BPF filters** (a filtered ring minus its cell's unrestricted ring, "
            f"{len(rows)} filter ring{'s' if len(rows) > 1 else ''}): "
            f"{_per(float(lo['check_per_op']), unit).split()[0]} ({name(lo)}) .. "
            f"{_per(float(hi['check_per_op']), unit)} ({name(hi)}) per SQE: "
            "logged; the ones with a limit are judged below.")


def warnings(ctx):
    """what makes the run's figures less than whole, before anything else"""
    out = []
    if ctx.failures:
        steps = "; ".join(f"`{f[0]}` {f[1]}" for f in ctx.failures[:3] if len(f) > 1)
        more = f"; {len(ctx.failures) - 3} more" if len(ctx.failures) > 3 else ""
        out.append(f"**⚠ {len(ctx.failures)} step(s) failed** ({steps}{more}): `make bench` "
                   "exited non-zero; what failed is in no figure below, and is not estimated "
                   "(Run status, in the appendix).")
    for k in sorted(ctx.suspect):
        out.append(f"**⚠ `{k}`: {ctx.suspect_why.get(k, 'suspect')}; its figures are "
                   "suspect** (Run status, in the appendix).")
    if ctx.suspect:
        judged = {"patched", "baseline"} & ctx.suspect
        out.append("The limits judge patched against baseline: "
                   + ("they rest on a suspect kernel." if judged else "neither is suspect."))
    return out


def section(ctx):
    if not ctx.summary:
        return []
    unit = "instr/op" if ctx.icount else "ns/op"
    rs, l1d = rules(ctx)
    out = ["## Verdict\n"]
    out += [w + "\n" for w in warnings(ctx)]
    if rs is None:
        out.append("No `bench/gate/thresholds` in this lab: no targets to judge against.\n")
        return out
    check = [r for r in rs if r.ring == "check" and not r.slug.startswith(DENY)]
    rings = [r for r in rs if r.ring not in ("check", "filtered")]
    filtered = [r for r in rs if r.ring == "filtered"]
    deny = [r for r in rs if r.ring == "check" and r.slug.startswith(DENY)]
    if ctx.icount:
        out.append("Against the limits of `bench/gate/thresholds` (guest instructions per op, "
                   "medians):\n")
        say = _judged
    else:
        out.append("The limits of `bench/gate/thresholds` count guest instructions under "
                   "icount; this run measured wall-clock time, so its figures are given "
                   "here, not judged:\n")
        say = _described
    l1 = ("- **An allowed SQE on a restricted ring** (patched's check: its restricted ring "
          "minus its unrestricted ring)." + say(check, unit) + _upstream(ctx, unit))
    l2 = ("- **Unrestricted and restricted rings against baseline** (patched's ring minus "
          "baseline's unrestricted ring)." + say(rings, unit, ring=True))
    if "baseline" not in ctx.kernels:
        l2 += " This run booted no `baseline`."
    if l1d:
        l2 += (f" The {', '.join(l1d)} rules count modelled L1D misses, which need the "
               "trace plugin: `make check` judges them.")
    l3 = ("- **A refused SQE** (a NOP refused with -EACCES, minus the same NOP on an unrestricted ring)."
          + say(deny, unit) + _filters(ctx, unit))
    out += [l1, l2, l3]
    if filtered:
        out.append("- **BPF filters with a limit** (patched's filtered ring minus baseline's "
                   "unrestricted ring, same cell)." + say(filtered, unit, ring=True))
    out.append("")
    return out
