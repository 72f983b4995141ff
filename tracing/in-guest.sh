#!/bin/bash
# tracing/in-guest.sh KERNEL RUN [PARTS]: inside a lab guest booted by
# tracing/run.sh, trace the running kernel into RUN/raw/KERNEL/; PARTS
# (default "insn bpftrace perf") picks what runs in this boot:
#   windows.jsonl   ringbench's JSON line for each plugin window, in the
#                   order the plugin wrote them (RUN/raw/KERNEL/insn-count.txt)
#   bpftrace/       SCRIPT.CELL.RING.json: tracing/*.bt under a workload
#   perf/           CELL.RING.*: perf samples, symbols, annotate, folded
# insn needs the insn-count plugin and -icount; perf must not run under
# -icount (see tracing/run.sh). Restricted rings are skipped on a kernel
# without restrictions. Environment: TRACE_REPS (plugin windows per cell
# and ring, default 3).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
. "$lab/bench/lib.sh"
export PROGRESS_TAG=trace
kernel=$1
run=$2
raw=$run/raw/$kernel
[ -f "$run/trace.env" ] && . "$run/trace.env"
reps=${TRACE_REPS:-3}
parts=${3:-insn bpftrace perf}
export BENCH_CLOCK_FILE=$run/.clock
mkdir -p "$raw/bpftrace" "$raw/perf" "$run/env"
log=$raw/trace.log
: >"$log"
# from tmpfs under a fixed address layout, as make bench runs it
bin=/tmp/lab-bin
mkdir -p "$bin"
cp "$lab/build/bench/ringbench" "$bin/ringbench" || exit 1
rb() { setarch -R "$bin/ringbench" "$@"; }

{
	echo "kernel=$kernel"
	echo "guest_release=$(uname -r)"
	echo "guest_clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "guest_cpus=$(nproc)"
	echo "bpftrace=$(bpftrace --version 2>/dev/null || echo missing)"
	echo "perf=$(perf version 2>/dev/null || echo missing)"
} >"$run/env/$kernel.guest.env"

rings=$(ring_kinds rb)
[ "$rings" = 0 ] && echo "[trace] $kernel: no ring restrictions: restricted rings absent"
ring_name() { [ "$1" = 1 ] && echo restricted || echo unrestricted; }

# The plugin's cells: the cost check of issue 6 (NOP batch 1 and 32) and
# a real device (null_blk QD 32). Sizes as make bench: ~15 M instructions.
# the rings cells: what a ring's context costs when it is cold (the
# plugin's cache model), one ring beside 1024
cells=("nop -b 1 -n 15000" "nop -b 32 -n 50000" "read -d 32 -n 4000"
	"skip -b 32 -n 50000")
# after the others: tearing down rings spills into the runs that follow
ring_cells=("rings -R 1 -b 4 -n 20000" "rings -R 1024 -b 4 -n 20000")
# the BPF filter cells (issue 17), filtered ring (-r 2) against the
# unrestricted one, on a kernel with IORING_REGISTER_BPF_FILTER: where a
# filter's instructions go (entry, context, program, exit), JIT on and off
filter_cells=("nop -b 32 -F allow -n 50000" "nop -b 32 -F real -n 50000"
	"nop -b 32 -F real -S 4 -n 50000" "nop -b 32 -F real -J 0 -n 50000"
	"socket -b 32 -F socket -n 8000" "openat -b 32 -F open -n 2000")
frings="0 2"
rb -w nop -r 2 -F allow -n 32 -W 0 >/dev/null 2>&1
if [ $? = 77 ]; then
	filter_cells=()
	echo "[trace] $kernel: no IORING_REGISTER_BPF_FILTER: filter cells absent"
fi
# progress in units of about 2 s: a plugin window is one, a bpftrace run
# (clang compiling the script under TCG) about eight, a perf profile ten
nr=$(wc -w <<<"$rings")
total=0 done=0 failed=0
case " $parts " in *" insn "*) total=$((total + reps * ((${#cells[@]} + ${#ring_cells[@]}) * nr + ${#filter_cells[@]} * 2))) ;; esac
case " $parts " in *" bpftrace "*) total=$((total + 8 * (3 * nr + 1))) ;; esac
case " $parts " in *" perf "*) total=$((total + 10 * 2 * nr)) ;; esac
step_done() { done=$((done + ${1:-1})); progress "$kernel $parts" "$done" "$total"; }
fail() { failed=$((failed + 1)); echo "[trace] $kernel: $*" | tee -a "$log" >&2; }

if [[ " $parts " == *" insn "* ]]; then
	# untimed warm-up of every cell, outside any window, then the
	# interleaved windows; the rings cells as a group of their own, last
	# measure [-r RINGS] CELL...: every cell on each of RINGS (default: the
	# kernel's restriction rings)
	measure() {
		local kinds=$rings
		if [ "$1" = -r ]; then
			kinds=$2
			shift 2
		fi
		local group=("$@") m=$# rep i r cell
		[ "$m" -gt 0 ] || return 0
		for cell in "${group[@]}"; do
			# shellcheck disable=SC2086
			rb -w ${cell%-n*} -n 200 -W 100 >/dev/null 2>>"$log"
		done
		for rep in $(seq 1 "$reps"); do
			for i in $(seq 0 $((m - 1))); do
				cell=${group[$(((i + rep) % m))]}
				for r in $(ring_order "$rep" "$kinds"); do
					# -m: the plugin counts exactly ringbench's timed loop
					# shellcheck disable=SC2086
					rb -w $cell -r "$r" -m -t kernel="$kernel" -t rep="$rep" \
						>>"$part" 2>>"$log" || fail "ringbench -w $cell -r $r failed"
					step_done
				done
			done
		done
	}
	part=$raw/windows.jsonl.part
	: >"$part"
	"$here/ring-ctx.sh" start || fail "tracefs: cannot record ring contexts"
	measure "${cells[@]}"
	measure -r "$frings" "${filter_cells[@]}"
	measure "${ring_cells[@]}"
	"$here/ring-ctx.sh" stop "$raw/ring-ctx.txt" || fail "tracefs: cannot record ring contexts"
	mv "$part" "$raw/windows.jsonl"
	# the cache model's sanity check: known misses, in probe windows
	cp "$lab/build/tracing/cache-probe" "$bin/cache-probe" &&
		"$bin/cache-probe" >"$raw/cache-probe.jsonl" 2>>"$log" ||
		fail "cache-probe failed"
fi

bt() { # script cell-name ring ringbench-args...
	local script=$1 name=$2 r=$3
	shift 3
	"$here/bt-run.sh" "$here/$script.bt" "$raw/bpftrace/$script.$name.$(ring_name "$r").json" -- \
		"$bin/ringbench" "$@" -r "$r" >>"$raw/bpftrace/ringbench.jsonl" 2>>"$log" ||
		fail "bpftrace $script on $name ($(ring_name "$r")) failed: see $log"
	step_done 8
}
if [[ " $parts " == *" bpftrace "* ]]; then
	: >"$raw/bpftrace/ringbench.jsonl"
	for r in $rings; do
		bt submit-latency nop-b32 "$r" -w nop -b 32 -n 20000
		bt opcodes read-qd32 "$r" -w read -d 32 -n 2000
		bt ring-lifecycle setup "$r" -w setup -n 64 -W 16
	done
	# a restricted ring refusing NOPs: the denials the script counts
	if [ "$rings" = "0 1" ]; then
		bt opcodes deny-b32 1 -w deny -b 32 -n 2000
	else
		step_done 8
	fi
fi

if [[ " $parts " == *" perf "* ]]; then
	# a few thousand samples at 20 kHz, on TCG or KVM
	for r in $rings; do
		for cell in "nop-b32:-w nop -b 32 -n 200000" "read-qd32:-w read -d 32 -n 20000"; do
			name=${cell%%:*}
			# shellcheck disable=SC2086
			"$here/perf-profile.sh" "$raw/perf" "$name.$(ring_name "$r")" -- \
				setarch -R "$bin/ringbench" ${cell#*:} -r "$r" >>"$log" 2>&1 ||
				fail "perf on $name ($(ring_name "$r")) failed: see $log"
			step_done 10
		done
	done
fi
[ "$failed" = 0 ]
