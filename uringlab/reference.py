"""python3 -m uringlab.reference RUN [--force]: make RUN the committed
reference: results/reference for a make bench run, results/reference-trace
for a make trace run, results/reference-policy for a make policy run.

The reference is what the README's and docs' figures come from, so only
a whole run qualifies (COMPLETE, no FAILURES, a clean lab commit, no
kernel marked ⚠); --force (make reference FORCE=1) takes another, and tests/check-reference.sh
will then say what is wrong with it. Only what a reader needs is copied:
REPORT.md, the CSV tables, the PNG pictures, the env files and COMPLETE,
and a trace run's hot listings, which its report quotes. Logs, SVG copies,
plot data and raw tool output stay in the run folder, outside git. The
copy is made beside the old reference and swapped in by rename.
"""
import argparse
import fnmatch
import os
import shutil
import sys

from uringlab.runfolder import LAB, RunFolder

# (folder, pattern): files directly in that folder, never deeper (logs/
# and raw/ hold env and CSV files of their own)
KEEP = (("", "REPORT.md"), ("", "COMPLETE"), ("", "*.csv"), ("", "*.env"), ("env", "*"),
        ("plots", "*.png"), ("trace", "*.csv"), ("trace", "hot-*.txt"))


def kind(run):
    if os.path.exists(os.path.join(run, "bench.env")):
        return "reference"
    if os.path.isdir(os.path.join(run, "trace")):
        return "reference-trace"
    if os.path.exists(os.path.join(run, "policy.env")):
        return "reference-policy"
    sys.exit(f"reference: {run} is neither a make bench, a make trace nor a make policy run")


def problems(run):
    rf = RunFolder(run)
    why = []
    if not rf.complete:
        why.append("no COMPLETE: a killed run")
    if os.path.exists(os.path.join(run, "FAILURES")):
        why.append("it has FAILURES")
    if rf.env().get("lab_commit", "").endswith("-dirty"):
        why.append("it was measured from a modified tree")
    try:
        with open(os.path.join(run, "REPORT.md")) as f:
            if "⚠" in f.read():
                why.append("REPORT.md marks a kernel suspect (⚠)")
    except OSError:
        why.append("no REPORT.md")
    return why


def kept(run):
    for folder, pattern in KEEP:
        try:
            names = os.listdir(os.path.join(run, folder))
        except OSError:
            continue
        for name in names:
            rel = os.path.join(folder, name)
            if fnmatch.fnmatch(name, pattern) and os.path.isfile(os.path.join(run, rel)):
                yield rel


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run")
    ap.add_argument("--force", action="store_true", help="take a run that is not whole")
    a = ap.parse_args()
    run = os.path.realpath(a.run)
    dest = os.path.join(LAB, "results", kind(run))
    why = problems(run)
    if why and not a.force:
        sys.exit(f"reference: {a.run} is not a whole run: {'; '.join(why)} (--force to take it anyway)")
    tmp = dest + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    files = sorted(kept(run))
    for rel in files:
        os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
        shutil.copy2(os.path.join(run, rel), os.path.join(tmp, rel))
    # the old reference leaves only once the new one is whole beside it;
    # between the two renames the folder is absent, never half-written
    old = dest + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.exists(dest):
        os.rename(dest, old)
    os.rename(tmp, dest)
    shutil.rmtree(old, ignore_errors=True)
    print(f"reference: {os.path.relpath(dest, LAB)} is now {os.path.basename(run)} ({len(files)} files)"
          + (f"; not whole: {'; '.join(why)}" if why else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
