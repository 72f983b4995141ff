#!/bin/bash
# tests/gate-sensitivity.sh [N]: show that the regression gate (make check)
# catches a slower restriction check. A throw-away edit, never part of the
# series, puts N NOPs (default 1: one guest instruction per SQE) into the
# patched kernel's per-SQE check (io_restriction_allows()), the patched
# kernel is rebuilt and the gate runs; the script succeeds only if the gate
# fails, and on the NOP cells of a restricted ring. The edit is undone and
# the patched kernel rebuilt on every way out, a kill included.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
tree=$build/linux
n=${1:-1}
file=io_uring/io_uring.c
anchor='					 u8 opcode, unsigned int sqe_flags)'

restore() {
	git -C "$tree" checkout -q -- "$file"
	# the branch's commit did not change: make build-kernel.sh rebuild
	rm -f "$build/out/patched/.lab-stamp"
	echo "[sensitivity] edit undone; rebuilding the patched kernel"
	"$lab/kernel-patches/build-kernel.sh" patched >/dev/null
}

"$lab/kernel-patches/build-kernel.sh" baseline patched >/dev/null || exit 2
[ "$(git -C "$tree" symbolic-ref --short HEAD)" = patched ] || git -C "$tree" checkout -q patched
grep -qF "$anchor" "$tree/$file" || { echo "[sensitivity] io_restriction_allows() not found in $file" >&2; exit 2; }
trap restore EXIT
trap 'exit 130' INT TERM
python3 - "$tree/$file" "$n" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
s = open(path).read()
anchor = "\t\t\t\t\t u8 opcode, unsigned int sqe_flags)\n{\n"
s = s.replace(anchor, anchor + f'\tasm volatile(".rept {n}\\n\\tnop\\n\\t.endr");\n', 1)
open(path, "w").write(s)
PY
echo "[sensitivity] patched kernel with $n extra instruction(s) per restricted SQE:"
git -C "$tree" diff --stat
"$lab/kernel-patches/build-kernel.sh" patched | tail -1
out=$(mktemp)
RUN=$lab/results/$(date -u +%Y%m%dT%H%M%SZ)-check-slowed-$n "$lab/bench/gate/run.sh" | tee "$out"
rc=${PIPESTATUS[0]}
if [ "$rc" = 1 ] && grep -qE '^nop-b(1|32) +restricted .*FAIL' "$out"; then
	echo "[sensitivity] ok: the gate fails on a check $n instruction(s) per SQE slower"
	status=0
else
	echo "[sensitivity] NOT CAUGHT: the gate did not fail on the restricted NOP cells (status $rc)"
	status=1
fi
rm -f "$out"
exit $status
