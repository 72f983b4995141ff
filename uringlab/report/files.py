"""report/files.py: the Files section of a bench report."""


def section(ctx):
    out = []
    w = out.append
    w("## Files\n")
    w("`raw/<kernel>/micro.jsonl` (one ringbench JSON line per run), "
      "`raw/<kernel>/fio/<job>.<ring>.<rep>.json` (fio's own JSON), "
      "`summary.csv`, `overhead.csv`, `fio.csv`, `env/`, `logs/`, "
      "`plots/` (PNG, SVG and the data behind them). `COMPLETE` is written last.\n")
    return out
