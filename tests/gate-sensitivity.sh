#!/bin/bash
# tests/gate-sensitivity.sh [N [WHERE]]: show that the regression gate
# (make check) catches a slower submission path. A throw-away edit, never
# part of the series, puts N NOPs (default 1: one guest instruction per SQE)
# into the patched kernel's io_init_req(); the patched kernel is rebuilt and
# the gate runs. WHERE says which SQEs pay:
#   all       (default) every SQE of every ring: in the prep every SQE
#             runs, filtered or not; the gate must fail on the NOP cells
#   uncommon  only SQEs with allowed uncommon flags (CQE skip, drain, buffer
#             select), in the branch 0005 keeps inline: the gate must fail on
#             the CQE-skip cell's rows and pass the NOP cells, which such a
#             cost does not touch
#   refused   only SQEs the tables send to io_init_req_slow() (a refused
#             SQE, one decided on user_data, one whose filters must run):
#             the gate must fail on the refused cell's check row and pass
#             the NOP cells
#   filtered  only SQEs whose filters must run (io_init_req_filtered()):
#             the gate must fail on the Freal-chain row and pass the
#             decided filters' rows (Fflags, Fflagsx4 on the flags, Freal,
#             Frealx4 on user_data), Fother and the NOP cells
#   unfolded  no NOPs: io_uring.bpf_fold starts off, so filters run as
#             registered; the gate must fail on the decided filters' rows
#             (Fflags, Fflagsx4, Freal, Frealx4) and pass the NOP cells
# The edit is undone and the patched kernel rebuilt on every way out, a
# kill included.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
tree=$build/linux
n=${1:-1}
where=${2:-all}
file=io_uring/io_uring.c
case $where in
all) anchor='	def = &io_op_defs[opcode];

	if (!def->ioprio && sqe->ioprio)' ;;
uncommon) anchor='		} else {
			ret = io_init_req_uncommon(ctx, req, sqe,' ;;
refused) anchor='		if (!verdict) {
			ret = io_init_req_slow(ctx, req, sqe, opcode,' ;;
filtered) anchor='		io_init_req_drain_flags(ctx, req);
	return __io_init_req_filtered(ctx, req, sqe, opcode);' ;;
unfolded) file=io_uring/bpf_filter.c
	anchor='static bool bpf_fold = true;' ;;
*) echo "usage: $0 [N [all|uncommon|refused|filtered|unfolded]]" >&2; exit 2 ;;
esac

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
	{ echo "[sensitivity] the code for '$where' not found in $file" >&2; exit 2; }
trap restore EXIT
trap 'exit 130' INT TERM
python3 - "$tree/$file" "$n" "$anchor" "$where" <<'PY'
import sys
path, n, anchor, where = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
s = open(path).read()
nops = f'asm volatile(".rept {n}\\n\\tnop\\n\\t.endr");'
if where == "unfolded":
    # not a slower path: the registration no longer decides or fuses
    new = anchor.replace("true", "false")
elif where == "filtered":
    # before the last statement, in the function's own indentation
    head, call = anchor.split("\n", 1)
    new = f"{head}\n\t{nops}\n{call}"
elif where == "all":
    new = anchor.replace("\n\n", f"\n\n\t{nops}\n", 1)
else:
    # the branch's first statement, the NOPs before it
    head, call = anchor.split("\n", 1)
    new = f"{head}\n\t\t\t{nops}\n{call}"
s = s.replace(anchor, new, 1)
open(path, "w").write(s)
PY
if [ "$where" = unfolded ]; then
	change="filters made as registered, neither decided nor fused"
else
	change="a path $n instruction(s) per SQE slower"
fi
echo "[sensitivity] patched kernel with $change ($where):"
git -C "$tree" diff | grep -E '^[-+][^-+]'

git -C "$tree" diff --stat
"$lab/kernel-patches/build-kernel.sh" patched | tail -1
out=$(mktemp)
RUN=$lab/results/$(date -u +%Y%m%dT%H%M%SZ)-check-slowed-$n "$lab/bench/gate/run.sh" | tee "$out"
rc=${PIPESTATUS[0]}
if [ "$where" = filtered ]; then
	# the filters that run pay; the decided ones and the NOP rows do not
	caught=$([ "$rc" = 1 ] && grep -qE '^nop-b32-Freal-chain +filtered .*FAIL' "$out" &&
		! grep -qE '^nop-b32-F(flags|flagsx4|other|real|realx4) .*FAIL|^nop-b(1|32) .*FAIL' "$out" && echo 1)
	what="the filter row that runs a program and not the decided, other-opcode or NOP rows"
elif [ "$where" = unfolded ]; then
	caught=$([ "$rc" = 1 ] && grep -qE '^nop-b32-Fflags +filtered .*FAIL' "$out" &&
		grep -qE '^nop-b32-Fflagsx4 +filtered .*FAIL' "$out" &&
		grep -qE '^nop-b32-Freal +filtered .*FAIL' "$out" &&
		grep -qE '^nop-b32-Frealx4 +filtered .*FAIL' "$out" &&
		! grep -qE '^nop-b(1|32) .*FAIL' "$out" && echo 1)
	what="the decided filters' rows and not the NOP rows"
elif [ "$where" = all ]; then
	caught=$([ "$rc" = 1 ] && grep -qE '^nop-b(1|32) +(un)?restricted .*FAIL' "$out" && echo 1)
	what="the NOP cells"
elif [ "$where" = refused ]; then
	caught=$([ "$rc" = 1 ] && grep -qE '^deny-b32 +check .*FAIL' "$out" &&
		! grep -qE '^nop-b(1|32) .*FAIL' "$out" && echo 1)
	what="the refused cell's check and not the NOP cells"
else
	# caught on the CQE-skip cell (every SQE takes the branch; in the
	# drain cell one SQE in 32 does), and the NOP rows stay ok
	caught=$([ "$rc" = 1 ] && grep -qE '^skip-b32 +unrestricted .*FAIL' "$out" &&
		grep -qE '^skip-b32 +restricted .*FAIL' "$out" &&
		! grep -qE '^nop-b(1|32) .*FAIL' "$out" && echo 1)
	what="the CQE-skip cell and not the NOP cells"
fi
if [ "$caught" = 1 ]; then
	echo "[sensitivity] ok: the gate fails on $what, with $change ($where)"
	status=0
else
	echo "[sensitivity] NOT CAUGHT: the gate did not fail on $what (status $rc)"
	status=1
fi
rm -f "$out"
exit $status
