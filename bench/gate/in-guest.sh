#!/bin/bash
# bench/gate/in-guest.sh KERNEL OUT: inside a lab guest under -icount, run
# the regression gate's fixed workload set on the running kernel: each cell
# on an unrestricted and (when the kernel has them) a restricted ring, REPS
# times, interleaved, after an untimed warm-up. One ringbench JSON line per
# run in OUT/KERNEL.jsonl, written when complete; then the 1024-rings cell
# inside plugin windows (OUT/KERNEL.mem.jsonl), for the modelled misses.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/../.." && pwd)
. "$lab/bench/lib.sh"
export PROGRESS_TAG=check
kernel=$1 out=$2
reps=${REPS:-3}
# insn: the instruction cells (a boot without the plugin); mem: the
# modelled-miss runs (a boot under the plugin with its cache model, whose
# instrumentation moves where timer interrupts land and so, now and then,
# which background work falls inside a run: kept out of the insn boot)
part_of_gate=${GATE_PART:-insn}
# the host's clock file of the run (bench/gate/run.sh)
export BENCH_CLOCK_FILE=$out/../.clock
# the gate's cells, sized as make bench's (about 15 M instructions a run):
# the headline NOP and read cells, the uncommon flag classes that 0005
# keeps inline (CQE skip, drain, buffer select), refused NOPs (the call to
# io_init_req_slow()) and 64 rings in turn
cells=("nop -b 1 -n 15000" "nop -b 32 -n 50000" "read -d 32 -n 4000"
	"skip -b 32 -n 50000" "drain -b 32 -n 50000" "deny -b 32 -n 40000")
bin=/tmp/gate-bin
mkdir -p "$bin" "$out"
cp "$lab/build/bench/ringbench" "$bin/ringbench" || exit 1
rb() { setarch -R "$bin/ringbench" "$@"; }

rings=$(ring_kinds rb)
# BPF filters in each form the registration makes (bench/micro-matrix.sh):
# decided on the flags, decided on user_data's ranges (one and four
# stacked), one made as registered (-L 0: a program that must run), and
# on another opcode:
# on a filtered ring (2) where the kernel has filters, else on the cell's
# unrestricted ring, which is what baseline's figure comes from (a row
# compares the two; patched's unrestricted ring is not in it)
filter_cells=("nop -b 32 -F flags -n 50000" "nop -b 32 -F flags -S 4 -n 50000"
	"nop -b 32 -F real -n 50000" "nop -b 32 -F real -S 4 -n 50000"
	"nop -b 32 -F real -L 0 -n 50000" "nop -b 32 -F other -n 50000")
filter_rings=0
rb -w nop -r 2 -F allow -n 1 -W 0 >/dev/null 2>&1 && filter_rings=2
failed=0
done=0
# measure WARM EXTRA CELL...: an untimed warm-up of each CELL (WARM=1), then
# REPS interleaved runs of each on every ring kind, ringbench's lines to
# $part, EXTRA (e.g. -m) added to every timed run
measure() {
	local warm=$1 extra=$2 m rep i r cell
	shift 2
	m=$#
	local group=("$@")
	if [ "$warm" = 1 ]; then
		for cell in "${group[@]}"; do
			# shellcheck disable=SC2086
			rb -w ${cell%-n*} -n 200 -W 100 >/dev/null 2>>"$out/$kernel.log"
		done
	fi
	for rep in $(seq 1 "$reps"); do
		for i in $(seq 0 $((m - 1))); do
			cell=${group[$(((i + rep) % m))]}
			for r in $(ring_order "$rep" "$rings"); do
				# shellcheck disable=SC2086
				rb -w $cell -r "$r" $extra -t kernel="$kernel" -t rep="$rep" \
					>>"$part" 2>>"$out/$kernel.log" ||
					{ failed=1; echo "[check] $kernel: ringbench -w $cell -r $r $extra failed" >&2; }
				done=$((done + 1))
				progress "$kernel" "$done" "$total"
			done
		done
	done
}

if [ "$part_of_gate" = insn ]; then
	# buffer-select reads and 64 rings in turn after the other cells: their
	# teardown goes on in kworkers and RCU after ringbench exits and would
	# spill into the runs that follow (bench/micro-matrix.sh)
	tail_cells=("bufsel -d 32 -n 4000" "rings -R 64 -b 4 -n 25600")
	total=$((reps * ((${#cells[@]} + ${#tail_cells[@]}) * $(wc -w <<<"$rings") +
		${#filter_cells[@]} * $(wc -w <<<"$filter_rings"))))
	part=$out/$kernel.jsonl.part
	: >"$part"
	measure 1 "" "${cells[@]}"
	measure 1 "" "${tail_cells[@]}"
	# last: a filter's programs are freed by a workqueue after ringbench
	# exits, and would spill into any cell after them
	rings=$filter_rings measure 1 "" "${filter_cells[@]}"
	mv "$part" "$out/$kernel.jsonl"
	exit $failed
fi

# Modelled L1D misses (the plugin's cache model, counted on the host): 1024
# rings in turn, 4 NOPs each, so each ring's context is cold on its turn.
# One plugin window per run; uringlab/gate.py pairs them with these lines.
total=$((reps * $(wc -w <<<"$rings")))
part=$out/$kernel.mem.jsonl.part
: >"$part"
measure 0 -m "rings -R 1024 -b 4 -n 8192"
mv "$part" "$out/$kernel.mem.jsonl"
exit $failed
