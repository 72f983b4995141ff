"""report/context.py: what the report reads from a run folder, once, and
the ⚠ marker of a suspect kernel (set from the run's health)."""
import os

from uringlab.runfolder import RunFolder, read_csv_file, read_tsv


class Context:
    def __init__(self, path):
        self.rf = rf = RunFolder(path)
        self.run = run = rf.path
        self.host = host = rf.env()
        self.instances = rf.instances
        self.boots = int(host.get("boots", "1") or 1)
        self.icount = icount = host.get("accel") == "tcg-icount"
        self.unit = "instr" if icount else "ns"
        self.summary = read_csv_file(os.path.join(run, "summary.csv"))
        self.overhead = read_csv_file(os.path.join(run, "overhead.csv"))
        fio = read_csv_file(os.path.join(run, "fio.csv"))
        # Under icount the emulated NVMe disk's figures are the host's timing,
        # not the kernel's (fio.nvme_note): they leave the tables, with the
        # reason and the range this run saw.
        self.nvme = [r for r in fio if r["job"].startswith("nvme-")] if icount else []
        self.fio = [r for r in fio if r not in self.nvme]
        self.kernels = host.get("kernels", "").split()
        self.traced = os.path.isdir(os.path.join(run, "trace"))
        # make bench writes bench.env first: its run folder gets a benchmark
        # report even when every cell failed
        self.bench = bool(self.summary) or os.path.exists(os.path.join(run, "bench.env"))
        self.failures = read_tsv(os.path.join(run, "FAILURES"))
        self.cells = []
        for r in self.summary:
            if r["cell"] not in self.cells:
                self.cells.append(r["cell"])
        # a cell that failed on every kernel has no row, but still a section
        for f in self.failures:
            if len(f) > 1 and f[1].startswith("micro "):
                c = f[1][len("micro "):].split(",")[0]
                if c not in self.cells:
                    self.cells.append(c)
        self.filters = read_csv_file(os.path.join(run, "filters.csv"))
        self.suspect = set()  # kernels whose figures are suspect (health.py)
        self.suspect_why = {}  # and why, per kernel

    def kl(self, k):
        return f"{k} ⚠" if k in self.suspect else k

    def cl(self, label):
        """a comparison's label, marked when a suspect kernel is in it"""
        return label + (" ⚠" if any(k in label for k in self.suspect) else "")
