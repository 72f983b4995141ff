"""textable.py: plain-text tables that paste into a mail as they are, in
the spirit of mmtests' compare-kernels: ASCII, at most 72 columns, each
figure's 95 % interval on a line of its own under it. REPORT.md's
side-by-side table and `python3 -m uringlab.compare` both print through
render(), so a table from either reads the same way.

    cols = [Col("", "<"), Col("baseline"), Col("patched"), Col("d%", gap=1)]
    rows = [Group("nop b=32"),
            Row(["  unrestricted", "301.71", "297.91", "-1.26"],
                under={3: "[-1.34,-0.79]"})]
    print("\\n".join(render(cols, rows)))

The first column is the label. When the table would be wider than the
limit the label column gives way, and a label longer than what is left
goes on a line of its own above its figures: a cell's name never pushes
the numbers past the limit. An interval is right-aligned with its
figure's column and may reach left over the empty columns before it.
Nothing else is cut: a figure too wide for the limit makes a line too
long, which too_wide() finds (tests/check-textable.py).
"""
WIDTH = 72


class Col:
    """A column: its heading ("\\n" between heading lines), "<" or ">",
    and the spaces before it."""

    def __init__(self, head, align=">", gap=2):
        self.head = head.split("\n") if head else [""]
        self.align = align
        self.gap = gap


class Row:
    """One line of figures; under: {column index: text} for the line
    beneath (the intervals); note: text for that line's label place."""

    def __init__(self, cells, under=None, note=""):
        self.cells = [str(c) for c in cells]
        self.under = dict(under or {})
        self.note = note


class Group:
    """A line of its own, flush left: the name of the rows below it."""

    def __init__(self, text):
        self.text = text


def _fit(text, width, align):
    return text.ljust(width) if align == "<" else text.rjust(width)


def _line(cols, widths, cells):
    parts = []
    for i, (c, w, t) in enumerate(zip(cols, widths, cells)):
        parts.append((" " * c.gap if i else "") + _fit(t, w, c.align))
    return "".join(parts).rstrip()


def _under_lines(ends, under, note):
    """The line(s) beneath a row: each text ending where its column ends;
    a text that would run into the one before it moves to a further
    line rather than overwrite it."""
    lines = []
    for i in sorted(under):
        t = under[i]
        if not t:
            continue
        start = max(0, ends[i] - len(t))
        for ln in lines:
            if ln["free"] < start:
                break
        else:
            ln = {"buf": [], "free": 0}
            lines.append(ln)
        ln["buf"].append((start, t))
        ln["free"] = start + len(t) + 1
    if note:
        # the note takes the label's place on the first line when it fits
        first = lines[0]["buf"][0][0] if lines else None
        if first is not None and len(note) < first:
            lines[0]["buf"].insert(0, (0, note))
        else:
            lines.append({"buf": [(0, note)], "free": len(note) + 1})
    out = []
    for ln in lines:
        s = ""
        for start, t in ln["buf"]:
            s = s.ljust(start) + t
        out.append(s.rstrip())
    return out


def render(cols, rows, width=WIDTH):
    """The table's lines: headings, a rule, then the rows."""
    n = len(cols)
    widths = [max(len(h) for h in c.head) for c in cols]
    for r in rows:
        if isinstance(r, Row):
            for i, t in enumerate(r.cells[:n]):
                widths[i] = max(widths[i], len(t))
    rest = sum(widths[1:]) + sum(c.gap for c in cols[1:])
    if widths[0] + rest > width:
        widths[0] = max(max(len(h) for h in cols[0].head), width - rest, 1)
    ends, pos = [], 0
    for i, (c, w) in enumerate(zip(cols, widths)):
        pos += (c.gap if i else 0) + w
        ends.append(pos)
    out = []
    depth = max(len(c.head) for c in cols)
    for k in range(depth):
        # headings sit on the last lines, as over a column of figures
        out.append(_line(cols, widths, [
            c.head[k - (depth - len(c.head))] if k >= depth - len(c.head) else ""
            for c in cols]))
    out.append("-" * min(ends[-1], width))
    for r in rows:
        if isinstance(r, Group):
            out.append(r.text)
            continue
        cells = (r.cells + [""] * n)[:n]
        if len(cells[0]) > widths[0]:
            out.append(cells[0].rstrip())
            cells[0] = ""
        out.append(_line(cols, widths, cells))
        out.extend(_under_lines(ends, r.under, r.note))
    return out


def too_wide(lines, width=WIDTH):
    """(line number from 1, length, line) of every line longer than
    width columns, or holding anything but ASCII (a mail client may
    count a character of several bytes twice)."""
    return [(i, len(s), s) for i, s in enumerate(lines, 1)
            if len(s) > width or not s.isascii()]


def pct(x):
    """A relative difference in %, signed, in at most 6 columns for any
    |x| below 100000: two decimals below 100, one below 1000."""
    if x is None:
        return ""
    a = abs(x)
    nd = 2 if a < 99.995 else 1 if a < 999.95 else 0
    s = f"{x:+.{nd}f}"
    # a tiny negative rounded to nothing has no direction to show
    return "+0.00" if s == "-0.00" else s


def interval(lo, hi):
    """[lo,hi] in % (pct()), or "" without an interval."""
    if lo is None or hi is None:
        return ""
    return f"[{pct(lo)},{pct(hi)}]"


def figure(x):
    """A per-op figure: two decimals, no thousands separator (a mail
    reader's tools split on commas)."""
    return "-" if x is None else f"{x:.2f}"
