"""report/text.py: phrasing several sections share: a comparison's
interval and the verdict it allows."""


def ci_text(r):
    if not r.get("ci95_lo_pct"):
        return "no interval (one round)"
    return f"{float(r['ci95_lo_pct']):+.3f} .. {float(r['ci95_hi_pct']):+.3f} %"


def verdict(r):
    """What a comparison's interval lets one say (bench_summary.py's
    unrounded "significant", not the rounded bounds)."""
    if not r.get("ci95_lo_pct"):
        return "not judged: one round"
    if r.get("significant") != "yes":
        return "indistinguishable from 0"
    return "**costs more** (significant)" if float(r["delta_pct"]) > 0 else "**costs less** (significant)"

