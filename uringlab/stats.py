"""stats.py: the statistics of the bench and gate tables.

One boot (icount): a comparison is the ratio of medians with a bootstrap
interval over repetitions. Several boots (wall clock): Student's t over
the rounds' log ratios. compare() draws every bootstrap from the caller's
random.Random, so the order of its calls is part of the figures.
"""
import math
import statistics

BOOTSTRAP = 2000

# Student's t quantiles by degrees of freedom: 0.975 (the two-sided 95 %
# interval) and 0.80 (80 % power), without scipy
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042, 60: 2.000,
        120: 1.980}
T80 = {1: 1.376, 2: 1.061, 3: 0.978, 4: 0.941, 5: 0.920, 6: 0.906, 7: 0.896, 8: 0.889,
       9: 0.883, 10: 0.879, 12: 0.873, 15: 0.866, 20: 0.860, 30: 0.854, 60: 0.848,
       120: 0.845}


def t_quantile(table, df):
    """The table's value at df, else the next smaller df's: conservative
    (a wider interval, more rounds) between entries and past the end."""
    return table[max(d for d in table if d <= df)]


def t_interval(x):
    """mean, sd and the 95 % half-width of the per-round log ratios."""
    n = len(x)
    m = statistics.fmean(x)
    if n < 2:
        return m, None, None
    sd = statistics.stdev(x)
    return m, sd, t_quantile(T975, n - 1) * sd / math.sqrt(n)


def mde(sd, n):
    """The smallest true difference (%) a paired t-test over n rounds with
    this spread finds at 5 % two-sided with 80 % power."""
    if sd is None or n < 2:
        return None
    return 100 * math.expm1((t_quantile(T975, n - 1) + t_quantile(T80, n - 1)) * sd / math.sqrt(n))


def boots_needed(sd, pct):
    """Rounds of boots for mde() to reach pct if the true spread is this
    one (cap 99). The two-quantile formula is optimistic for few rounds
    (simulated: 73 % power at 2 rounds, 78.5 % at 4, 80 % from 6): below 6
    it asks one round more."""
    for n in range(2, 100):
        if mde(sd, n) <= pct:
            return n + 1 if n < 6 else n
    return None


def pct(x):
    return 100 * math.expm1(x)


def per_op(lo_pct, hi_pct, ref):
    """A comparison's 95 % interval, kept in per cent of the ring it is
    relative to, in that ring's unit per op: (lo, hi), or None when the
    comparison has no interval or the ring no median. The answer tables,
    the verdict and the checks picture all convert through here."""
    if ref is None or lo_pct in (None, "") or hi_pct in (None, ""):
        return None
    return float(lo_pct) * ref / 100, float(hi_pct) * ref / 100


def bootstrap_ratio(a, b, rng):
    """95 % interval of median(a)/median(b) - 1, resampling both; (None,
    None) when a side has one value, whose resamples are all itself: a
    zero-width interval would claim a precision nobody measured."""
    if len(a) < 2 or len(b) < 2:
        return None, None
    stats = []
    for _ in range(BOOTSTRAP):
        ra = [rng.choice(a) for _ in a]
        rb = [rng.choice(b) for _ in b]
        stats.append(statistics.median(ra) / statistics.median(rb) - 1)
    stats.sort()
    return stats[int(0.025 * BOOTSTRAP)], stats[int(0.975 * BOOTSTRAP) - 1]


def values(s):
    return [v for _b, v, _r in s]


def boot_medians(s):
    """{boot: median of that boot's repetitions}"""
    per = {}
    for b, v, _r in s:
        per.setdefault(b, []).append(v)
    return {b: statistics.median(vs) for b, vs in per.items()}


def round_logs(a, b, same_boot):
    """{round: log(A/B)} for the rounds both sides measured. Across
    kernels, the ratio of the two boots' medians. Within a kernel both
    rings ran in the same boot, each repetition's two runs back to back
    (micro-matrix.sh): the median over the boot's repetitions of each
    pair's log ratio, so a burst of host load that slows a few seconds of
    runs slows both sides of the pairs it hits and cancels, where it
    would move one side's median alone."""
    if not same_boot:
        ba, bb = boot_medians(a), boot_medians(b)
        return {r: math.log(ba[r] / bb[r]) for r in sorted(set(ba) & set(bb))}
    pa = {(bt, rep): v for bt, v, rep in a}
    pb = {(bt, rep): v for bt, v, rep in b}
    per = {}
    for key in sorted(set(pa) & set(pb), key=str):
        per.setdefault(key[0], []).append(math.log(pa[key] / pb[key]))
    return {r: statistics.median(per[r]) for r in sorted(per)}


def compare(a, b, rng, same_boot=False):
    """A relative to B, as the report gives it; None when a side is absent.
    same_boot: both sides ran in each boot (one kernel's two rings)."""
    if not a or not b:
        return None
    ba, bb = boot_medians(a), boot_medians(b)
    if len(ba) > 1 or len(bb) > 1:
        logs = round_logs(a, b, same_boot)
        if not logs:
            return None
        x = list(logs.values())
        m, sd, half = t_interval(x)
        # per op: the same geometric mean, on B's geometric mean
        gb = math.exp(statistics.fmean(math.log(bb[r]) for r in logs))
        return {"delta_pct": pct(m),
                "lo": None if half is None else pct(m - half),
                "hi": None if half is None else pct(m + half),
                "delta_per_op": math.expm1(m) * gb,
                "boots": len(x), "sd": sd,
                "method": (f"t over {len(x)} boots, each its repetitions' median paired ratio"
                           if same_boot else f"t over {len(x)} rounds of boots"),
                "mde": mde(sd, len(x))}
    ma, mb = statistics.median(values(a)), statistics.median(values(b))
    lo, hi = bootstrap_ratio(values(a), values(b), rng)
    return {"delta_pct": 100 * (ma / mb - 1), "lo": None if lo is None else 100 * lo,
            "hi": None if hi is None else 100 * hi,
            "delta_per_op": ma - mb, "boots": 1, "sd": None,
            "method": "bootstrap over repetitions", "mde": None}


def med_min_max_n(v):
    """(median, min, max, n) of a non-empty list: the gate's figure."""
    return statistics.median(v), min(v), max(v), len(v)


def upper_median(vals):
    """The middle value, the upper one of an even count: what the reports
    have always printed (not statistics.median, which averages the two)."""
    vals = sorted(vals)
    return vals[len(vals) // 2] if vals else None
