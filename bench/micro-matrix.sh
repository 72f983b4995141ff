#!/bin/bash
# bench/micro-matrix.sh KERNEL OUT: run ringbench's matrix on the running
# kernel: every cell on an unrestricted and a restricted ring, REPS times.
# Cells and rings are interleaved (the order rotates each repetition) so
# that drift, if any, hits every variant alike. One JSON line per run in
# OUT/micro.jsonl (written when complete), stderr in OUT/micro.log.
# A kernel without ring restrictions has no restricted cells: they are
# recorded as absent, not run.
# Environment: REPS (5), QUICK=1 (fewer cells, 3 repetitions), RINGBENCH.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
kernel=$1
out=$2
quick=${QUICK:-0}
# -n per cell: about 15 million guest instructions per run (setup: about
# 110 million, see ringbench), enough to repeat within 0.01 % under icount
if [ "$quick" = 1 ]; then
	reps=${REPS:-3}
	cells=("nop -b 1 -n 15000" "nop -b 32 -n 50000" "read -d 32 -n 4000"
		"sqpoll -d 32 -n 4000" "setup -n 1600" "deny -b 32 -n 50000")
else
	reps=${REPS:-5}
	cells=("nop -b 1 -n 15000" "nop -b 8 -n 40000" "nop -b 32 -n 50000"
		"nop -b 128 -n 50000" "read -d 1 -n 3500" "read -d 32 -n 4000"
		"sqpoll -d 1 -n 1600" "sqpoll -d 32 -n 4000" "setup -n 1600"
		"deny -b 32 -n 50000")
fi
mkdir -p "$out"
# from tmpfs: nothing in a timed loop may wait on the 9p share
bin=/tmp/ringbench
cp "${RINGBENCH:-$here/../build/bench/ringbench}" "$bin" || exit 1

n=${#cells[@]}
total=$((reps * n * 2))
done=0 failed=0 absent=0
part=$out/micro.jsonl.part
: >"$part"
: >"$out/micro.log"

# warm-up: one short untimed run per cell, so page cache, slab caches and
# branch history are warm before the first measured run
for cell in "${cells[@]}"; do
	read -r wl args <<<"$cell"
	# shellcheck disable=SC2086
	"$bin" -w "$wl" ${args%-n*} -n 200 -W 100 >/dev/null 2>>"$out/micro.log"
done

for rep in $(seq 1 "$reps"); do
	for i in $(seq 0 $((n - 1))); do
		cell=${cells[$(((i + rep) % n))]}
		read -r wl args <<<"$cell"
		rings="0 1"
		[ $((rep % 2)) = 0 ] && rings="1 0"
		for r in $rings; do
			done=$((done + 1))
			if [ "$r" = 1 ] && [ "$absent" = 1 ]; then
				progress "$kernel micro" "$done" "$total"
				continue
			fi
			# setarch -R: the same address layout in every run, so
			# page-table and allocator paths do not vary with ASLR
			# shellcheck disable=SC2086
			setarch -R "$bin" -w "$wl" $args -r "$r" -t kernel="$kernel" -t rep="$rep" \
				>>"$part" 2>>"$out/micro.log"
			rc=$?
			if [ "$rc" = 77 ]; then
				absent=1
				echo "[bench] $kernel: no ring restrictions: restricted cells absent"
			elif [ "$rc" != 0 ]; then
				failed=$((failed + 1))
				echo "[bench] $kernel: ringbench -w $wl $args -r $r failed ($rc): $(tail -1 "$out/micro.log")"
			fi
			progress "$kernel micro" "$done" "$total"
		done
	done
done
[ "$absent" = 1 ] && echo '{"absent":"restricted","reason":"kernel has no IORING_SETUP_R_DISABLED"}' >>"$part"
mv "$part" "$out/micro.jsonl"
[ "$failed" = 0 ]
