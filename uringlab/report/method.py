"""report/method.py: how a bench run measured (one boot or several): the
appendix's opening. What this leaves uncertain is in caveats.py."""


def method(ctx):
    out = []
    w = out.append
    host, boots, kernels = ctx.host, ctx.boots, ctx.kernels
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
          "between boots, which is what moves a wall-clock figure. *Detectable* is the "
          "smallest true difference this run would have found at 5 % (two-sided) with "
          "80 % power if the true spread between rounds is the one it saw.\n")
    else:
        w("*Median* is over the repetitions; *spread* is (max − min) / median; the "
          "95 % interval of a comparison is a bootstrap (2000 resamples of both sides) "
          "of the ratio of medians, one boot per kernel (Caveats).\n")
    return out
