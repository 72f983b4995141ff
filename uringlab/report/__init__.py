"""python3 -m uringlab.report RUN: write RUN/REPORT.md from the run's
tables (bench_summary, attribution, mca, trace_summary), its environment
files and its plots. Every figure in the report is read from this run's
files: nothing is carried over from elsewhere, and a cell the run did not
measure is shown as absent.

A bench report reads from the answer down: the run's name and what
produced it, the verdict against the lab's targets, the kernels side by
side in plain text (to paste into a mail), the pictures, the caveats;
then an appendix with every table the answer rests on, and last the
environment and the files. A trace report opens with its summary and
also ends with the environment.

This file gives the sections' order only; each section is a module of
this package, reading what it needs from context.Context.
"""
import sys

from uringlab.report import boots, caveats, cells, filters, files, fio, header, health, \
    method, pictures, side_by_side, table, trace, verdict
from uringlab.report.context import Context
from uringlab.runfolder import kernel_of


def demote(lines):
    """One heading level down, outside code blocks: the sections keep
    their own levels and sit under the appendix's heading."""
    out, fenced = [], False
    for line in lines:
        if line.strip().startswith("```"):
            fenced = not fenced
        out.append("#" + line if line.startswith("#") and not fenced else line)
    return out


def report(path):
    ctx = Context(path)
    out = header.title(ctx)
    if not ctx.bench:
        # a trace run's status only when a boot failed: it goes on after one
        if ctx.failures:
            out += health.run_health(ctx.run, ctx.kernels, "make trace")[0]
        out += (trace.summary(ctx.run) + trace.section(ctx.run) if ctx.traced
                else ["No measurements in this run.\n"])
        out += header.environment(ctx)
        return ctx.rf.write("REPORT.md", "\n".join(out))
    status, suspect_boots = health.run_health(ctx.run, ctx.instances)
    for inst, why in suspect_boots.items():
        ctx.suspect.add(kernel_of(inst))
        ctx.suspect_why.setdefault(kernel_of(inst), why)
    out += verdict.section(ctx)
    out += table.section(ctx)
    out += pictures.section(ctx)
    out += caveats.section(ctx)
    appendix = method.method(ctx)
    appendix += side_by_side.section(ctx.summary, ctx.fio, ctx.cells, ctx.kernels, ctx.unit,
                                     ctx.kl)
    appendix += filters.section(ctx.filters, ctx.unit, ctx.icount, ctx.kl)
    appendix += cells.section(ctx)
    appendix += fio.section(ctx)
    if ctx.boots > 1:
        appendix += boots.section(ctx.rf, ctx.kernels, ctx.boots, ctx.unit)
    if ctx.traced:
        appendix += trace.section(ctx.run)
    appendix += status
    out += ["## Appendix: the tables behind the answer\n"] + demote(appendix)
    out += header.environment(ctx)
    out += files.section(ctx)
    ctx.rf.write("REPORT.md", "\n".join(out))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    report(sys.argv[1])
