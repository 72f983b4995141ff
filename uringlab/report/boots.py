"""report/boots.py: wall-clock mode's boots section (bench_summary's
boots.csv, rounds.csv and power.csv)."""
from uringlab.report.text import ci_text, verdict
from uringlab.stats import upper_median


def section(rf, kernels, boots, unit):
    """Wall-clock mode: how many boots, how far the boots spread, what the
    run could detect, and after how many rounds each verdict stood."""
    out = []
    w = out.append
    summary = rf.read_csv("summary.csv")
    rounds = rf.read_csv("rounds.csv")
    power = rf.read_csv("power.csv")
    w("## Boots, spread between boots, and what this run could detect\n")
    spreads = [float(r["boot_spread_pct"]) for r in summary if r.get("boot_spread_pct")]
    if spreads:
        spreads.sort()
        w(f"{boots} boots per kernel. The boots' medians of one cell and ring lay "
          f"{upper_median(spreads):.3f} % apart (median over the {len(spreads)} cells × kernels × "
          f"rings; (max − min) / median), at most {spreads[-1]:.3f} %. Per cell in `boots.csv`.\n")
    nop = [r for r in power if r["cell"] == "nop b=32"]
    if nop:
        w("Power at NOP batch 32: the standard deviation between rounds of each comparison's "
          "log ratio, the smallest difference this run could detect, and the rounds of boots "
          "it takes to detect a given difference (5 % two-sided, 80 % power) if the true "
          "spread is the one seen here; below 6 rounds one more than the normal-theory "
          "figure, which is optimistic there:\n")
        w("| comparison | rounds | sd between rounds | detectable now | rounds for 0.5 % | 1 % | 2 % | 5 % |")
        w("|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in nop:
            w(f"| {r['comparison']} | {r['rounds']} | {float(r['sd_between_rounds_pct']):.3f} % | "
              f"±{float(r['mde_pct']):.3f} % | {r['rounds_for_0.5pct']} | {r['rounds_for_1pct']} | "
              f"{r['rounds_for_2pct']} | {r['rounds_for_5pct']} |")
        w("")
    seq = [r for r in rounds if r["cell"] == "nop b=32"]
    if seq:
        w("How the NOP batch 32 comparisons stood after each round (the same data cut "
          "short; descriptive: looking after every round is not a sequential test):\n")
        w("| comparison | after round | Δ | 95 % CI | verdict |")
        w("|---|---:|---:|---:|---|")
        for r in seq:
            w(f"| {r['comparison']} | {r['last_round']} | {float(r['delta_pct']):+.3f} % | "
              f"{ci_text(r)} | {verdict(r)} |")
        w("")
        for comp in dict.fromkeys(r["comparison"] for r in seq):
            rs = [r for r in seq if r["comparison"] == comp]
            last = rs[-1]
            final = verdict(last)
            if last["significant"] != "yes":
                # no verdict "took" rounds: say what it would have found
                w(f"- {comp}: {final} after {last['rounds']} rounds; a true difference of "
                  f"±{float(last['mde_pct']):.3f} % would have been found (80 % power).")
                continue
            # the first round from which the final verdict held to the end
            n = last["last_round"]
            for r in reversed(rs):
                if verdict(r) != final:
                    break
                n = r["last_round"]
            w(f"- {comp}: {final} from round {n} of {last['last_round']} on.")
        w("")
    return out
