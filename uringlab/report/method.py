"""report/method.py: how a bench run measured (one boot or several) and
the headline: the check's cost on NOP batch 32."""
from uringlab.report.text import ci_text, verdict


def method(ctx):
    out = []
    w = out.append
    host, boots, kernels, icount = ctx.host, ctx.boots, ctx.kernels, ctx.icount
    w("Each cell ran on every kernel on an unrestricted ring and on a ring "
      "restricted to what the workload needs (reads: `IOSQE_FIXED_FILE` "
      "required), repetitions interleaved, warm-up not counted, binaries on "
      "tmpfs. `baseline` has no ring restrictions: its restricted cells are "
      "absent, not estimated.\n")
    if boots > 1:
        w(f"**{boots} boots per kernel**, interleaved: each round boots "
          f"{', '.join(kernels)} once, the order rotated by one kernel each round "
          f"(`env/host.env` instances: {host.get('instances', '?')}). "
          "*Median* below is over every repetition of every boot; *spread* is "
          "(max − min) / median over repetitions; *between boots* is (max − min) / "
          "median of the boots' medians. Each boot gives a comparison one figure: "
          "within a kernel (restricted vs unrestricted ring, both in every boot, each "
          "repetition's two runs back to back) the median over the boot's repetitions "
          "of the pair's ratio; across kernels the ratio of the two boots' medians in "
          "the same round. A comparison is the geometric mean of those figures, and its "
          "95 % interval Student's t over their logs: it comes from the variation "
          "between boots, which is what moves a wall-clock figure. *Detectable* is the smallest true difference this run would have "
          "found at 5 % (two-sided) with 80 % power if the true spread between rounds "
          "is the one it saw. Each verdict is one comparison's own 95 % test, not "
          "corrected for the many in this report: about one in twenty true zeros "
          "will read as significant somewhere.\n")
    else:
        w("*Median* is over the repetitions; *spread* is (max − min) / median; the "
          "95 % interval of a comparison is a bootstrap (2000 resamples of both sides) "
          "of the ratio of medians. One boot per kernel"
          + (": under icount a boot repeats its figures to about 0.01 %." if icount else
             ": the interval covers the repetitions, not the variation between boots "
             "(`BOOTS=N` for that).") + "\n")
    return out


def headline(ctx):
    out = []
    w = out.append
    overhead, unit, boots, cl = ctx.overhead, ctx.unit, ctx.boots, ctx.cl
    # headline: the check's cost on NOP batch 32, when measured
    head = [r for r in overhead if r["cell"] == "nop b=32"
            and r["comparison"] in ("patched: restricted vs unrestricted",
                                    "upstream: restricted vs unrestricted",
                                    "patched vs baseline, unrestricted")]
    if head:
        w("## Headline (NOP, 32 SQEs per submit)\n")
        for r in head:
            w(f"- {cl(r['comparison'])}: {float(r['delta_per_op']):+.2f} {unit}/SQE, "
              f"{float(r['delta_pct']):+.3f} % (95 % CI {ci_text(r)}"
              + (f"; {verdict(r)}" if boots > 1 else "") + ")")
        w("")
    return out
