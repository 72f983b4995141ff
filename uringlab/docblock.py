"""uringlab/docblock.py: the generated blocks of the lab's Markdown files.

A block is everything between two marker lines,

    <!-- NAME:begin -->           or   <!-- NAME:begin ARG -->
    <!-- NAME:end -->

and its body is generated, never edited by hand: a program says what the
body of a block is (from its ARG, None without one) and this module puts
it in place. uringlab/answers.py writes the "answers" blocks (README.md,
docs/results.md), tests/verdict-table.py the "verdicts" block
(docs/tests.md).

    write(paths, name, body)      rewrite PATHS' NAME blocks; every file is
                                  read and regenerated first, so one bad
                                  file changes none; atomically, and only
                                  the files that change
    check(paths, name, body, ...) write nothing: TAP, one case a file, exit
                                  status 1 when a block is stale (make
                                  test's host checks)

BODY(arg) returns the block's whole body, ending with a newline, or
raises BlockError (or a subclass) when it cannot.
"""
import re

from uringlab.runfolder import write_atomic


class BlockError(Exception):
    """A file cannot take a block (unreadable, no block, no end marker),
    or a program cannot give one."""


def markers(name):
    """(the begin marker's pattern, the end marker) of NAME's blocks."""
    begin = re.compile(r"<!-- %s:begin(?: ([^ >]+))? -->\n" % re.escape(name))
    return begin, f"<!-- {name}:end -->"


def replace(text, name, body):
    """TEXT with the body of each NAME block replaced by body(arg); None
    when TEXT has no NAME block."""
    begin, end = markers(name)
    out, pos, found = [], 0, False
    for m in begin.finditer(text):
        if m.start() < pos:
            continue
        stop = text.find(end, m.end())
        if stop < 0:
            raise BlockError(f"a <!-- {name}:begin --> marker without <!-- {name}:end -->")
        found = True
        out += [text[pos:m.end()], body(m.group(1))]
        pos = stop
    if not found:
        return None
    out.append(text[pos:])
    return "".join(out)


def regenerate(path, name, body):
    """(PATH's text, PATH's text with its NAME blocks regenerated)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise BlockError(f"{path}: {e.strerror}")
    new = replace(text, name, body)
    if new is None:
        raise BlockError(f"{path} has no <!-- {name}:begin --> ... <!-- {name}:end --> block")
    return text, new


def write(paths, name, body):
    """Rewrite the NAME blocks of PATHS; the paths rewritten. Raises
    BlockError, having changed no file, when any path cannot take them."""
    new = {path: regenerate(path, name, body) for path in paths}
    done = []
    for path, (old, text) in new.items():
        if text != old:
            write_atomic(path, text)
            done.append(path)
    return done


def check(paths, name, body, ok, stale, fix, what):
    """TAP, one case a path: ok(path) when its NAME blocks are what BODY
    gives, stale(path) when not; WHAT names the blocks in a case that
    cannot be judged, FIX (a comment line) how to rewrite them. Returns
    the exit status: 1 when any case failed."""
    if not paths:
        # a check of nothing must not pass
        print(f"1..1\nnot ok 1 - {what}: no file to check")
        return 1
    print(f"1..{len(paths)}")
    bad = 0
    for n, path in enumerate(paths, 1):
        try:
            old, new = regenerate(path, name, body)
        except BlockError as e:
            print(f"not ok {n} - {what}: {e}")
            bad += 1
            continue
        if old == new:
            print(f"ok {n} - {ok(path)}")
        else:
            print(f"not ok {n} - {stale(path)}")
            bad += 1
    if bad:
        print(f"# {fix}")
    return 1 if bad else 0
