#!/bin/bash
# bench/micro-matrix.sh KERNEL OUT: run ringbench's matrix on the running
# kernel: every cell on an unrestricted and a restricted ring, REPS times.
# Cells and rings are interleaved (the order rotates each repetition) so
# that drift, if any, hits every variant alike. One JSON line per run in
# OUT/micro.jsonl (written when complete), stderr in OUT/micro.log.
# A kernel without ring restrictions has no restricted cells: they are
# recorded as absent, not run. The filter cells (issue 17) run the ring
# they are about, filtered (ringbench -r 2) or restricted and filtered
# (-r 3), against the unrestricted one; a kernel without
# IORING_REGISTER_BPF_FILTER does not run them and records them absent.
# Every run has a time limit (STEP_LIMIT, 60 s of host time; a run
# takes well under 1 s): a run that hangs or fails is recorded in
# OUT/failures.tsv and the matrix goes on. Fault lines in the kernel log
# are checked after every run (OUT/klog.tsv).
# Environment: REPS (5), QUICK=1 (fewer cells, 3 repetitions), OPS_SCALE
# (ops per run times this, default 1), CELLS (the
# workloads to run, e.g. "nop deny"; default all), RINGS (the ring counts
# of the rings cell, default "1 64 1024"), STEP_LIMIT, RINGBENCH.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
kernel=$1
out=$2
quick=${QUICK:-0}
# -n per cell: about 15 million guest instructions per run (setup: about
# 110 million, see ringbench), enough to repeat within 0.01 % under icount
# one cell per SQE flag class and a top-of-range opcode (ringbench -h),
# batch 32 like the headline NOP cell; io-wq NOPs cost 8 times more
flag_cells=("skip -b 32 -n 50000" "drain -b 32 -n 50000" "link -b 32 -n 50000"
	"async -b 32 -n 6400" "topop -b 32 -n 30000" "bufsel -d 32 -n 4000")
# many rings, 4 NOPs each per turn: each ring's context is cold on its turn
ring_cells=()
for r in ${RINGS:-1 64 1024}; do
	ring_cells+=("rings -R $r -b 4 -n 50000")
done
# SOCKET and OPENAT, each refused by the kernel at once after the
# checks: what an allow-list and a filter on their arguments cost
arg_cells=("socket -b 32 -n 8000" "openat -b 32 -n 2000" "connect -b 32 -n 8000")
# RING|CELL: the filters (ringbench -F, -S, -J) on the workload's opcode,
# one instruction to four stacked 13-instruction programs, the JIT off,
# a filter on another opcode only, filters with the allow-lists, and
# filters on the opcode and flags alone, one and four stacked; the
# filter on user_data and the flags, one and four stacked, and the flags
# filter also as registered (-L 0: the chain run program by program),
# beside the forms the registration makes of them
filter_cells=("2|nop -b 32 -F allow -n 50000" "2|nop -b 32 -F real -n 50000"
	"2|nop -b 32 -F flags -n 50000" "2|nop -b 32 -F flags -S 4 -n 50000"
	"2|nop -b 32 -F flags -L 0 -n 50000" "2|nop -b 32 -F flags -S 4 -L 0 -n 50000"
	"2|nop -b 32 -F real -L 0 -n 50000" "2|nop -b 32 -F real -S 4 -L 0 -n 50000"
	"2|nop -b 32 -F real -S 2 -n 50000" "2|nop -b 32 -F real -S 4 -n 50000"
	"2|nop -b 32 -F real -J 0 -n 50000" "2|nop -b 32 -F other -n 50000"
	"3|nop -b 32 -F real -n 50000" "2|socket -b 32 -F socket -n 8000"
	"2|openat -b 32 -F open -n 2000" "2|connect -b 32 -F connect -n 8000")
# RING|CELL with the task's restrictions (fd -1, registered before the
# ring): its allow-lists on NOP, SOCKET and CONNECT; and fork and exit of
# a task with allow-lists (4), with filters (5), and of one without
# while another task holds filters (6) or, the control, the same other
# task holds none (7: what another process alone costs a fork), each
# against a task with none
# (each tagged, so that its unrestricted side is a cell of its own)
task_cells=("4|nop -b 32 -t variant=task -n 50000" "4|socket -b 32 -t variant=task -n 8000"
	"4|connect -b 32 -t variant=task -n 8000" "4|fork -t variant=lists -n 40"
	"5|fork -t variant=filters -n 40" "6|fork -t variant=other -n 40"
	"7|fork -t variant=other -n 40")
if [ "$quick" = 1 ]; then
	reps=${REPS:-3}
	# a filter on the workload's opcode, on another, on the flags alone and on
	# each payload
	quick_filters=("2|nop -b 32 -F real -n 50000" "2|nop -b 32 -F other -n 50000"
		"2|nop -b 32 -F flags -n 50000"
		"2|socket -b 32 -F socket -n 8000" "2|openat -b 32 -F open -n 2000")
	cells=("nop -b 1 -n 15000" "nop -b 32 -n 50000" "read -d 32 -n 4000"
		"sqpoll -d 32 -n 4000" "setup -n 1600" "deny -b 32 -n 50000"
		"${flag_cells[@]}" "${arg_cells[@]}" "${quick_filters[@]}"
		"4|nop -b 32 -t variant=task -n 50000" "5|fork -t variant=filters -n 40"
		"${ring_cells[@]}")
else
	reps=${REPS:-5}
	cells=("nop -b 1 -n 15000" "nop -b 8 -n 40000" "nop -b 32 -n 50000"
		"nop -b 128 -n 50000" "read -d 1 -n 3500" "read -d 32 -n 4000"
		"sqpoll -d 1 -n 1600" "sqpoll -d 32 -n 4000" "setup -n 1600"
		"deny -b 32 -n 50000" "${flag_cells[@]}" "${arg_cells[@]}"
		"${filter_cells[@]}" "${task_cells[@]}" "${ring_cells[@]}")
fi
# a cell's workload; a filter cell's is "filter" (CELLS=filter) and a
# task cell's "task" (CELLS=task), so that CELLS=nop keeps meaning the
# plain NOP cells
cell_workload() {
	case $1 in
	[4567]"|"*) echo task ;;
	*"|"*) echo filter ;;
	*) echo "${1%% *}" ;;
	esac
}
if [ -n "${CELLS:-}" ]; then
	keep=()
	for cell in "${cells[@]}"; do
		selected "$(cell_workload "$cell")" "$CELLS" && keep+=("$cell")
	done
	cells=("${keep[@]}")
fi
# OPS_SCALE: every cell's -n times this (bench/run.sh: 1 under icount;
# longer runs in wall-clock mode, where a run of a few ms is one host
# scheduler hiccup away from twice its time). Not setup's: its 1600 rings
# are already 110 million instructions a run.
scale=${OPS_SCALE:-1}
if [ "$scale" != 1 ]; then
	for i in "${!cells[@]}"; do
		[ "${cells[$i]%% *}" = setup ] && continue
		[ "${cells[$i]#*|}" = setup ] && continue
		n_ops=${cells[$i]##*-n }
		cells[$i]="${cells[$i]% -n *} -n $((n_ops * scale))"
	done
fi
limit=${STEP_LIMIT:-60}
mkdir -p "$out"
# from tmpfs: nothing in a timed loop may wait on the 9p share
bin=/tmp/ringbench
cp "${RINGBENCH:-$here/../build/bench/ringbench}" "$bin" || exit 1

# ringbench -J and -L set these and put them back when it exits; one the
# step's watchdog kills cannot, so after a failed run the matrix does
declare -A knob_was
for k in /proc/sys/net/core/bpf_jit_enable /sys/module/io_uring/parameters/bpf_fold; do
	[ -r "$k" ] && knob_was[$k]=$(cat "$k")
done
knobs_put() {
	local k
	for k in "${!knob_was[@]}"; do
		echo "${knob_was[$k]}" >"$k" 2>/dev/null
	done
}

# the probes' complaints go to the run's log too
: >"$out/micro.log"

# no filter cell on a kernel without the filters: one probe, not a cell's
# worth of failed runs (exit 77: the register opcode is not there)
filters=1
if printf '%s\n' "${cells[@]}" | grep -q '|'; then
	"$bin" -w nop -r 2 -F allow -n 32 -W 0 >/dev/null 2>>"$out/micro.log"
	if [ $? = 77 ]; then
		filters=0
		echo "[bench] $kernel: no IORING_REGISTER_BPF_FILTER: filter cells absent"
		keep=()
		for cell in "${cells[@]}"; do
			case $cell in [23]"|"*) ;; *) keep+=("$cell") ;; esac
		done
		cells=("${keep[@]}")
	fi
fi
# the task's restrictions (fd -1): without them a task cell runs its
# unrestricted side only, so that fork's cost is there for every kernel
task=1
if printf '%s\n' "${cells[@]}" | grep -q '^[456]|'; then
	"$bin" -w nop -r 4 -n 32 -W 0 >/dev/null 2>>"$out/micro.log"
	if [ $? = 77 ]; then
		task=0
		echo "[bench] $kernel: no task restrictions: task cells run unrestricted only"
	fi
fi

# a cell's base name as uringlab/cells.py name begins it: a filter or
# task cell's failed step is named after its base cell (its -F, -S, -J or
# variant are in micro.log)
cell_label() {
	case " $2 " in
	*" -R "*) echo "$1 N=$(sed -n 's/.*-R \([0-9]*\).*/\1/p' <<<"$2")" ;;
	*" -b "*) echo "$1 b=$(sed -n 's/.*-b \([0-9]*\).*/\1/p' <<<"$2")" ;;
	*" -d "*) echo "$1 qd=$(sed -n 's/.*-d \([0-9]*\).*/\1/p' <<<"$2")" ;;
	*) echo "$1" ;;
	esac
}

n=${#cells[@]}
[ "$n" -gt 0 ] || exit 0
total=$((reps * n * 2))
done=0 failed=0 absent=0
part=$out/micro.jsonl.part
: >"$part"

# The rings and bufsel cells run after all the others, warm-up included:
# their teardown (1024 rings; a provided-buffer ring's pinned pages) goes
# on in kworkers and RCU after ringbench exits and spreads over the runs
# after it (measured: baseline's NOP b=1 runs 979.1 .. 979.4 without
# them, 979.4 .. 982.5 interleaved with them).
main_cells=() tail_cells=()
for cell in "${cells[@]}"; do
	case $cell in
	rings\ * | bufsel\ * | *"|fork "*) tail_cells+=("$cell") ;;
	*) main_cells+=("$cell") ;;
	esac
done
for phase in main tail; do
	if [ "$phase" = main ]; then
		group=("${main_cells[@]}")
	else
		group=("${tail_cells[@]}")
	fi
	m=${#group[@]}
	[ "$m" -gt 0 ] || continue
	# warm-up: one short untimed run per cell, so page cache, slab caches and
	# branch history are warm before the first measured run
	for cell in "${group[@]}"; do
		fring=1
		case $cell in *"|"*) fring=${cell%%|*}; cell=${cell#*|} ;; esac
		read -r wl args <<<"$cell"
		case $fring in
		4) [ "$task" = 0 ] && fring=0 ;;
		[56]) [ "$task" = 0 ] || [ "$filters" = 0 ] && fring=0 ;;
		esac
		# shellcheck disable=SC2086
		run_step "micro:$wl" "$limit" "$bin" -w "$wl" ${args%-n*} -r "$fring" \
			-n 200 -W 100 >/dev/null 2>>"$out/micro.log"
		rc=$?
		if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
			knobs_put
			failed=$((failed + 1))
			why=$(why_failed $rc "$limit")
			step_failed "$out" "micro $(cell_label "$wl" "$args"), warm-up" "$why" micro.log
			echo "[bench] $kernel: ringbench -w $wl $args warm-up failed ($why)"
		fi
	done
	klog_step "$out" "micro warm-up ($phase)"

	for rep in $(seq 1 "$reps"); do
		for i in $(seq 0 $((m - 1))); do
			cell=${group[$(((i + rep) % m))]}
			fring=1
			case $cell in *"|"*) fring=${cell%%|*}; cell=${cell#*|} ;; esac
			read -r wl args <<<"$cell"
			rings="0 $fring"
			[ $((rep % 2)) = 0 ] && rings="$fring 0"
			for r in $rings; do
				done=$((done + 1))
				if { [ "$r" = 1 ] && [ "$absent" = 1 ]; } ||
					{ [ "$task" = 0 ] && [ "$r" -ge 4 ] && [ "$r" -le 6 ]; } ||
					{ [ "$filters" = 0 ] && [ "$r" -ge 5 ] && [ "$r" -le 6 ]; }; then
					progress "$kernel micro" "$done" "$total"
					continue
				fi
				# setarch -R: the same address layout in every run, so
				# page-table and allocator paths do not vary with ASLR
				# shellcheck disable=SC2086
				run_step "micro:$wl" "$limit" \
					setarch -R "$bin" -w "$wl" $args -r "$r" -t kernel="$kernel" -t rep="$rep" \
					${BENCH_BOOT:+-t boot="$BENCH_BOOT"} \
					>>"$part" 2>>"$out/micro.log"
				rc=$?
				if [ "$rc" = 77 ] && [ "$r" = 1 ]; then
					absent=1
					echo "[bench] $kernel: no ring restrictions: restricted cells absent"
				elif [ "$rc" = 77 ]; then
					echo "[bench] $kernel: ringbench -w $wl $args -r $r: absent on this kernel (exit 77)"
				elif [ "$rc" != 0 ]; then
					knobs_put
					failed=$((failed + 1))
					why=$(why_failed $rc "$limit")
					ring=$(case $r in 0) echo unrestricted ;; 1) echo restricted ;;
						2) echo filtered ;; 3) echo restricted+filtered ;;
						4) echo task-restricted ;; 5) echo task-filtered ;;
						6) echo other-filtered ;; *) echo other-plain ;; esac)
					step_failed "$out" "micro $(cell_label "$wl" "$args"), $ring ring, rep $rep" "$why" micro.log
					echo "[bench] $kernel: ringbench -w $wl $args -r $r failed ($why): $(tail -1 "$out/micro.log")"
				fi
				klog_step "$out" "micro $wl $args ring $r rep $rep"
				progress "$kernel micro" "$done" "$total"
			done
		done
	done
done
[ "$absent" = 1 ] && echo '{"absent":"restricted","reason":"kernel has no IORING_SETUP_R_DISABLED"}' >>"$part"
[ "$filters" = 0 ] && echo '{"absent":"filtered","reason":"kernel has no IORING_REGISTER_BPF_FILTER"}' >>"$part"
[ "$task" = 0 ] && echo '{"absent":"task","reason":"kernel has no task restrictions (io_uring_register fd -1)"}' >>"$part"
mv "$part" "$out/micro.jsonl"
[ "$failed" = 0 ]
