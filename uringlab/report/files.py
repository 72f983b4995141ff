"""report/files.py: the Files section of a bench report, the report's
last: the tables it lists are the ones this run has."""
import os

# the tables bench_summary may write, in the order a reader wants them
TABLES = ["summary.csv", "overhead.csv", "samples.csv", "filters.csv", "fio.csv",
          "fio-samples.csv", "boots.csv", "rounds.csv", "power.csv"]


def section(ctx):
    out = []
    w = out.append
    have = [t for t in TABLES if os.path.exists(os.path.join(ctx.run, t))]
    w("## Files\n")
    w("`raw/<kernel>/micro.jsonl` (one ringbench JSON line per run), "
      "`raw/<kernel>/fio/<job>.<ring>.<rep>.json` (fio's own JSON), "
      + "".join(f"`{t}`, " for t in have)
      + "`env/`, `logs/`, `plots/` (PNG, SVG and the data behind them). "
      + ("`samples.csv` holds every repetition, so `python3 -m uringlab.compare` can "
         "bootstrap its intervals without `raw/`. " if "samples.csv" in have else "")
      + "`COMPLETE` is written last.\n")
    return out
