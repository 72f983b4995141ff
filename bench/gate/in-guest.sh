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
export BENCH_CLOCK_FILE=$out/.clock
# the gate's cells, sized as make bench's (about 15 M instructions a run):
# the headline NOP and read cells, the uncommon flag classes that 0005
# keeps inline (CQE skip, drain, buffer select) and 64 rings in turn
cells=("nop -b 1 -n 15000" "nop -b 32 -n 50000" "read -d 32 -n 4000"
	"skip -b 32 -n 50000" "drain -b 32 -n 50000")
bin=/tmp/gate-bin
mkdir -p "$bin" "$out"
cp "$lab/build/bench/ringbench" "$bin/ringbench" || exit 1
rb() { setarch -R "$bin/ringbench" "$@"; }

rings=$(ring_kinds rb)
failed=0
if [ "$part_of_gate" = insn ]; then
	for cell in "${cells[@]}"; do
		# shellcheck disable=SC2086
		rb -w ${cell%-n*} -n 200 -W 100 >/dev/null 2>>"$out/$kernel.log"
	done
	part=$out/$kernel.jsonl.part
	: >"$part"
	n=${#cells[@]}
	total=$((reps * n * $(wc -w <<<"$rings")))
	done=0 failed=0
	for rep in $(seq 1 "$reps"); do
		for i in $(seq 0 $((n - 1))); do
			cell=${cells[$(((i + rep) % n))]}
			for r in $(ring_order "$rep" "$rings"); do
				# shellcheck disable=SC2086
				rb -w $cell -r "$r" -t kernel="$kernel" -t rep="$rep" >>"$part" 2>>"$out/$kernel.log" ||
					{ failed=1; echo "[check] $kernel: ringbench -w $cell -r $r failed" >&2; }
				done=$((done + 1))
				progress "$kernel" "$done" "$total"
			done
		done
	done
	# Buffer-select reads and 64 rings in turn, after the other cells: their
	# teardown goes on in kworkers and RCU after ringbench exits and would
	# spill into the runs that follow (bench/micro-matrix.sh)
	for cell in "bufsel -d 32 -n 4000" "rings -R 64 -b 4 -n 25600"; do
		# shellcheck disable=SC2086
		rb -w ${cell%-n*} -n 200 -W 100 >/dev/null 2>>"$out/$kernel.log"
	done
	for rep in $(seq 1 "$reps"); do
		for cell in "bufsel -d 32 -n 4000" "rings -R 64 -b 4 -n 25600"; do
			for r in $(ring_order "$rep" "$rings"); do
				# shellcheck disable=SC2086
				rb -w $cell -r "$r" -t kernel="$kernel" -t rep="$rep" \
					>>"$part" 2>>"$out/$kernel.log" ||
					{ failed=1; echo "[check] $kernel: ringbench -w $cell -r $r failed" >&2; }
			done
		done
	done
	mv "$part" "$out/$kernel.jsonl"
	exit $failed
fi

# Modelled L1D misses (the plugin's cache model, counted on the host): 1024
# rings in turn, 4 NOPs each, so each ring's context is cold on its turn.
# One plugin window per run; gate.py pairs them with these lines.
part=$out/$kernel.mem.jsonl.part
: >"$part"
for rep in $(seq 1 "$reps"); do
	for r in $(ring_order "$rep" "$rings"); do
		rb -w rings -R 1024 -b 4 -n 8192 -r "$r" -m -t kernel="$kernel" -t rep="$rep" \
			>>"$part" 2>>"$out/$kernel.log" ||
			{ failed=1; echo "[check] $kernel: ringbench -w rings -R 1024 -r $r -m failed" >&2; }
	done
done
mv "$part" "$out/$kernel.mem.jsonl"
exit $failed
