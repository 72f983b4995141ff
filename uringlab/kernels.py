"""kernels.py: the lab's kernel order, once.

make bench, make trace and the tables all put the lab's three kernels
first, in this order; any other kernel a run measured (a branch of
build/linux, make bench KERNELS=...) follows, sorted, so it gets its rows
and columns instead of being dropped.
"""
LAB_KERNELS = ["baseline", "patched", "upstream"]


def with_lab(extra):
    """The lab's kernels, then the others of EXTRA, sorted."""
    return LAB_KERNELS + sorted(set(extra) - set(LAB_KERNELS))


def of_run(rf):
    """The kernels a run booted, as env/host.env lists them; the lab's
    three when host.env does not say."""
    return rf.env().get("kernels", " ".join(LAB_KERNELS)).split()
