#!/usr/bin/env python3
"""tests/verdict-table.py VM_DIR KERNEL...: one Markdown table of every
bypass and stress scenario (tests/verdicts.tsv), with each kernel's verdict
as its tests observed it in VM_DIR/test-KERNEL.tap, and each kernel's log
status (fault lines, kmemleak on the sanitizer kernels). Writes
VM_DIR/VERDICTS.md atomically and prints it."""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASE = re.compile(r'^(not )?ok \d+ ((?:ring|stress|drain)\.\S+)')


def expected(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            cols = line.rstrip('\n').split('\t')
            test, scenario, patched, baseline = cols[:4]
            upstream = cols[4] if len(cols) > 4 else patched
            rows.append((test, scenario,
                         {'patched': patched, 'upstream': upstream,
                          'baseline': baseline}))
    return rows


def observed(tap):
    """case -> True/False from a kernel's TAP, and its log status"""
    cases, log, leaks = {}, None, None
    if not os.path.exists(tap):
        return None, 'no test output', None
    with open(tap, errors='replace') as f:
        for line in f:
            m = CASE.match(line)
            if m:
                cases[m.group(2)] = not m.group(1)
            elif 'no fault lines in the kernel log' in line:
                log = ('clean' if line.startswith('ok ')
                       else '**fault lines** (klog-errors)')
            elif '- kmemleak:' in line:
                leaks = ('no leak' if line.startswith('ok ')
                         else '**leaks** (kmemleak)')
    return cases, log or 'not checked (boot failed?)', leaks


def main():
    vm, kernels = sys.argv[1], sys.argv[2:]
    rows = expected(os.path.join(HERE, 'verdicts.tsv'))
    seen = {k: observed(os.path.join(vm, 'test-%s.tap' % k))
            for k in kernels}
    out = ['| scenario (test) | ' + ' | '.join(kernels) + ' |',
           '|---|' + '---|' * len(kernels)]
    for test, scenario, want in rows:
        cells = []
        for k in kernels:
            cases = seen[k][0]
            verdict = want.get(k.removesuffix('-debug'), want['patched'])
            if cases is None or test not in cases:
                cells.append('not run')
            elif cases[test]:
                cells.append('✓ ' + verdict)
            else:
                cells.append('✗ **failed**, expected ' + verdict)
        out.append('| %s (`%s`) | %s |' % (scenario, test, ' | '.join(cells)))
    out.append('| kernel log (KASAN, UBSAN, lockdep, WARN, BUG) | ' +
               ' | '.join(seen[k][1] for k in kernels) + ' |')
    out.append('| kmemleak over the tests | ' +
               ' | '.join(seen[k][2] or 'n/a (production config)'
                          for k in kernels) + ' |')
    text = '\n'.join(out) + '\n'
    dst = os.path.join(vm, 'VERDICTS.md')
    with open(dst + '.tmp', 'w') as f:
        f.write(text)
    os.replace(dst + '.tmp', dst)
    sys.stdout.write(text)


if __name__ == '__main__':
    main()
