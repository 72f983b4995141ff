#!/bin/bash
# tests/gate-sensitivity.sh [N]: show that the regression gate (make check)
# catches a slower submission path. A throw-away edit, never part of the
# series, puts N NOPs (default 1: one guest instruction per SQE) into the
# patched kernel's io_init_req(), right after the per-ring table test that
# every SQE of every ring passes (since the check went into those tables,
# io_restriction_allows() runs only for SQEs it refuses); the patched kernel
# is rebuilt and the gate runs. The script succeeds only if the gate fails,
# and on the NOP cells. The edit is undone and the patched kernel rebuilt on
# every way out, a kill included.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
tree=$build/linux
n=${1:-1}
file=io_uring/io_uring.c
anchor='	def = &io_op_defs[opcode];
	if (unlikely(ctx->drain_active || ctx->drain_next)) {'

restore() {
	git -C "$tree" checkout -q -- "$file"
	# the branch's commit did not change: make build-kernel.sh rebuild
	rm -f "$build/out/patched/.lab-stamp"
	echo "[sensitivity] edit undone; rebuilding the patched kernel"
	"$lab/kernel-patches/build-kernel.sh" patched >/dev/null
}

"$lab/kernel-patches/build-kernel.sh" baseline patched >/dev/null || exit 2
[ "$(git -C "$tree" symbolic-ref --short HEAD)" = patched ] || git -C "$tree" checkout -q patched
python3 -c 'import sys; sys.exit(sys.argv[2] not in open(sys.argv[1]).read())' "$tree/$file" "$anchor" ||
	{ echo "[sensitivity] io_init_req()'s table test not found in $file" >&2; exit 2; }
trap restore EXIT
trap 'exit 130' INT TERM
python3 - "$tree/$file" "$n" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
s = open(path).read()
anchor = "\tdef = &io_op_defs[opcode];\n\tif (unlikely(ctx->drain_active || ctx->drain_next)) {\n"
s = s.replace(anchor, f'\tasm volatile(".rept {n}\\n\\tnop\\n\\t.endr");\n' + anchor, 1)
open(path, "w").write(s)
PY
echo "[sensitivity] patched kernel with $n extra instruction(s) per SQE:"
git -C "$tree" diff --stat
"$lab/kernel-patches/build-kernel.sh" patched | tail -1
out=$(mktemp)
RUN=$lab/results/$(date -u +%Y%m%dT%H%M%SZ)-check-slowed-$n "$lab/bench/gate/run.sh" | tee "$out"
rc=${PIPESTATUS[0]}
if [ "$rc" = 1 ] && grep -qE '^nop-b(1|32) +(un)?restricted .*FAIL' "$out"; then
	echo "[sensitivity] ok: the gate fails on a submission path $n instruction(s) per SQE slower"
	status=0
else
	echo "[sensitivity] NOT CAUGHT: the gate did not fail on the NOP cells (status $rc)"
	status=1
fi
rm -f "$out"
exit $status
