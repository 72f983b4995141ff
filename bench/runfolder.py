#!/usr/bin/env python3
"""runfolder.py: a results folder (results/<UTC time>-<kind>/) as every
Python tool of the lab opens, reads and writes it.

A run folder holds env/ (KEY=VALUE files: host.env, and one boot.env and
guest.env per boot), raw/, logs/, the tables and REPORT.md the tools
write, and COMPLETE, written last: a folder without it is a killed run.
Every file written through this module appears whole or not at all, so a
tool killed half-way leaves the previous version or nothing, never half
a table.

As a command, for the shell scripts (bench/lib.sh run_close):
  runfolder.py complete RUN   mark RUN complete
"""
import csv
import io
import os
import re
import sys
import time


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


def kernel_of(instance):
    """The kernel of one boot's folder name: patched.b3 -> patched (make
    bench's wall-clock mode boots each kernel several times)."""
    return re.sub(r"\.b[0-9]+$", "", instance)


class RunFolder:
    def __init__(self, path):
        self.path = os.path.abspath(path)
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
        self.write(rel, csv_text(header, rows))

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
