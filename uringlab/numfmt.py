"""numfmt.py: how numbers become text in the tables and REPORT.md.

They look alike and are not: fmt() writes "0.000" for a rounded -0.000
(bench tables), fmt3() keeps the sign (trace tables), and changing either
would change committed CSVs. (Not named numbers.py: that is a stdlib
module statistics imports.)
"""


def fmt(x, nd=3):
    x = round(x, nd)
    return f"{x + 0.0 if x else 0.0:.{nd}f}"  # no "-0.000"


def opt(x, nd=3):
    """fmt(), or "" for a figure the run does not have."""
    return "" if x is None else fmt(x, nd)


def fmt3(x):
    return f"{x:.3f}"


def num(s, nd):
    """A CSV figure for REPORT.md, with thousands separators."""
    return f"{float(s):,.{nd}f}"
