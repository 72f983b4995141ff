#!/bin/bash
# bench/policy-cost.sh KERNEL OUT: inside a lab guest, after
# tests/policy-roundtrip.sh wrote OUT/NAME/policy.txt for each program of
# tests/policy-workloads.sh: what running restricted costs each program.
# Every program whose round trip passed runs REPS times (default 3) in each
# mode, the modes interleaved and their order rotated each repetition:
#   none      unrestricted, as recorded
#   allow     under its recorded allow-lists (uring-restrict -a -f)
#   filters   under its recorded allow-lists and filters (uring-restrict
#             -f), on a kernel with IORING_REGISTER_BPF_FILTER only
# Each run's output goes to OUT/cost/NAME.MODE.REP.out, the program's own
# report of its throughput, which uringlab.policy_cost reads; a failed run
# is named in OUT/cost/failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
kernel=$1 out=$2
. "$here/lib.sh"
export PROGRESS_TAG=policy-cost BENCH_CLOCK_FILE=$out/.clock
reps=${REPS:-3}
export RB=/tmp/pr/ringbench FIO_JOBS=$lab/fio-jobs IMG=/tmp/pr/img.raw
mkdir -p /tmp/pr "$out/cost"
cp "$build/bench/ringbench" "$RB" && cp "$(command -v fio)" /tmp/fio || exit 1
[ -f "$IMG" ] || qemu-img create -q -f raw "$IMG" 64M || exit 1
. "$lab/tests/policy-workloads.sh"
wrap=$lab/bench/uring-restrict
modes="none allow filters"
"$RB" -w nop -r 2 -F allow -n 32 -W 0 >/dev/null 2>&1
[ $? = 77 ] && modes="none allow"
: >"$out/cost/failed"
todo=()
for w in "${policy_workloads[@]}"; do
	name=${w%%|*}
	if [ -f "$out/$name/policy.txt" ] && grep -q "^ok .* $name: restricted by its policy" "$out/roundtrip.tap" 2>/dev/null; then
		todo+=("$w")
	else
		echo "$name: no passing round trip, not measured" >>"$out/cost/failed"
	fi
done
nm=$(wc -w <<<"$modes")
total=$((${#todo[@]} * reps * nm)) done=0
for rep in $(seq 1 "$reps"); do
	for w in "${todo[@]}"; do
		name=${w%%|*}
		cmd=${w#*|*|}
		eval "set -- $cmd"
		# rotate the modes' order with the repetition
		order=$(tr ' ' '\n' <<<"$modes" | awk -v r="$rep" -v n="$nm" '{a[NR]=$0} END {for (i = 0; i < n; i++) print a[(i + r) % n + 1]}')
		for m in $order; do
			o=$out/cost/$name.$m.$rep.out
			case $m in
			none) "$@" >"$o.tmp" 2>"$o.err" ;;
			allow) "$wrap" -a -f "$out/$name/policy.txt" -- "$@" >"$o.tmp" 2>"$o.err" ;;
			filters) "$wrap" -f "$out/$name/policy.txt" -- "$@" >"$o.tmp" 2>"$o.err" ;;
			esac
			rc=$?
			if [ "$rc" = 0 ]; then
				mv "$o.tmp" "$o"
			else
				echo "$name $m $rep: exit status $rc: $(tail -1 "$o.err")" >>"$out/cost/failed"
			fi
			done=$((done + 1))
			progress "$kernel cost" "$done" "$total" >&2
		done
	done
done
echo "modes=$modes" >"$out/cost/modes"
