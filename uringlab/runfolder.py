"""runfolder.py: a results folder (results/<UTC time>-<kind>/) as every
module of uringlab opens, reads and writes it, and LAB, the lab's root.

A run folder holds env/ (KEY=VALUE files: host.env, and one boot.env and
guest.env per boot), raw/, logs/, the tables and REPORT.md the tools
write, and COMPLETE, written last: a folder without it is a killed run.
Every file written through this module appears whole or not at all, so a
tool killed half-way leaves the previous version or nothing, never half
a table.

As a command, for the shell scripts (run_close):
  python3 -m uringlab.runfolder complete RUN   mark RUN complete
"""
import csv
import io
import json
import os
import re
import sys
import time

# the package's parent: where bench/, build/ and plots/ are
LAB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_atomic(path, text):
    """TEXT to PATH, visible only once complete (also outside a run)."""
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def csv_text(header, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def write_csv(path, header, rows):
    write_atomic(path, csv_text(header, rows))


def read_env_file(path):
    """KEY=VALUE lines as a dict; {} when the file is absent."""
    env = {}
    try:
        with open(path) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                if k and not k.startswith("#"):
                    env[k] = v
    except OSError:
        pass
    return env


def read_csv_file(path):
    """A table's rows as dicts; [] when the table is absent."""
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def read_tsv(path):
    """Tab-separated lines as lists (FAILURES, klog.tsv); [] when absent."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def read_jsonl(path):
    """One JSON object a line (ringbench's windows.jsonl and the like)."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def kernel_of(instance):
    """The kernel of one boot's folder name: patched.b3 -> patched (make
    bench's wall-clock mode boots each kernel several times)."""
    return re.sub(r"\.b[0-9]+$", "", instance)


class RunFolder:
    def __init__(self, path):
        self.path = os.path.realpath(path)
        if not os.path.isdir(self.path):
            raise SystemExit(f"{os.path.basename(sys.argv[0])}: {path} is not a run folder")

    def file(self, *parts):
        return os.path.join(self.path, *parts)

    def env(self, name="host"):
        """env/NAME.env as a dict (host.env: what produced the run)."""
        return read_env_file(self.file("env", f"{name}.env"))

    @property
    def icount(self):
        return self.env().get("accel") == "tcg-icount"

    def write(self, rel, text):
        path = self.file(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, text)

    def write_csv(self, rel, header, rows):
        self.write(rel, csv_text(header, rows))  # makes the folder: write_csv() does not

    def read_csv(self, rel):
        return read_csv_file(self.file(rel))

    @property
    def instances(self):
        """Every boot's folder name, in boot order (env/host.env)."""
        env = self.env()
        return (env.get("instances") or env.get("kernels", "")).split()

    @property
    def complete(self):
        return os.path.exists(self.file("COMPLETE"))

    def mark_complete(self):
        """Always the run's last write."""
        self.write("COMPLETE", time.strftime("%Y-%m-%dT%H:%M:%SZ\n", time.gmtime()))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "complete":
        RunFolder(sys.argv[2]).mark_complete()
    else:
        sys.exit(__doc__)
