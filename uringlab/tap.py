"""uringlab/tap.py: TAP for the lab's Python tests (make test counts it
with tests/tap-count.sh). tap() prints one case, numbered in order, with
the last lines of its evidence under a failure; done() prints the plan
and gives the exit status."""

_n = 0
_failed = 0


def tap(ok, what, diag=""):
    global _n, _failed
    _n += 1
    print(f"{'ok' if ok else 'not ok'} {_n} - {what}")
    if not ok:
        _failed += 1
        for line in str(diag).splitlines()[-8:]:
            print(f"#   {line}")


def failures():
    return _failed


def done():
    """the plan, last (the count is known only now), and the exit status"""
    print(f"1..{_n}")
    return 1 if _failed else 0
