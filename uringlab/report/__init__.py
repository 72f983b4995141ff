"""python3 -m uringlab.report RUN: write RUN/REPORT.md from the run's
tables (bench_summary, attribution, mca, trace_summary), its environment
files and its plots. Every figure in the report is read from this run's
files: nothing is carried over from elsewhere, and a cell the run did not
measure is shown as absent.

This file gives the sections' order only; each section is a module of
this package, reading what it needs from context.Context.
"""
import os
import sys

from uringlab.report import boots, cells, filters, files, fio, header, health, method, \
    side_by_side, trace
from uringlab.report.context import Context
from uringlab.runfolder import kernel_of, read_csv_file


def report(path):
    ctx = Context(path)
    out = header.title(ctx) + header.environment(ctx)
    if not ctx.bench:
        # a trace run's status only when a boot failed: it goes on after one
        if ctx.failures:
            out += health.run_health(ctx.run, ctx.kernels, "make trace")[0]
        out += trace.section(ctx.run) if ctx.traced else ["No measurements in this run.\n"]
        return ctx.rf.write("REPORT.md", "\n".join(out))
    status, suspect_boots = health.run_health(ctx.run, ctx.instances)
    ctx.suspect = {kernel_of(i) for i in suspect_boots}
    out += status
    out += method.method(ctx)
    out += method.headline(ctx)
    if ctx.boots > 1:
        out += boots.section(ctx.rf, ctx.kernels, ctx.boots, ctx.unit)
    out += side_by_side.section(ctx.summary, ctx.fio, ctx.cells, ctx.kernels, ctx.unit, ctx.kl)
    out += filters.section(read_csv_file(os.path.join(ctx.run, "filters.csv")), ctx.unit,
                           ctx.icount, ctx.kl)
    out += cells.section(ctx)
    out += fio.section(ctx)
    if ctx.traced:
        out += trace.section(ctx.run)
    out += files.section(ctx)
    ctx.rf.write("REPORT.md", "\n".join(out))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    report(sys.argv[1])
