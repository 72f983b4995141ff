#!/bin/bash
# tracing/ring-ctx.sh start | stop FILE: record the address of every ring
# context created in between (tracepoint io_uring:io_uring_create, read
# through tracefs), for uringlab/attribution.py to tell which cache lines the
# plugin saw touched belong to a ring. It fires once per ring, at setup,
# outside every plugin window. The lab's kernels hash %p in trace output
# (trace option hash-ptr), and print "(____ptrval____)" while the entropy
# pool is not ready: start turns the option off, stop back on. One line
# per ring:
#   PID CTX-ADDRESS
set -euo pipefail
t=/sys/kernel/tracing
[ -d "$t/events" ] || mount -t tracefs nodev "$t"
ev=$t/events/io_uring/io_uring_create
case $1 in
start)
	: >"$t/trace"
	echo nohash-ptr >"$t/trace_options"
	echo 1 >"$ev/enable"
	;;
stop)
	echo 0 >"$ev/enable"
	# "ringbench-212 [000] ..... 12.3: io_uring_create: ring ffff8880..., fd 3 ..."
	sed -n 's/^ *.*-\([0-9][0-9]*\) *\[.*io_uring_create: ring \([0-9a-f]*\),.*/\1 \2/p' \
		"$t/trace" >"$2.tmp"
	mv "$2.tmp" "$2"
	: >"$t/trace"
	# after the read: the option applies when the buffer is printed
	echo hash-ptr >"$t/trace_options"
	;;
*)
	echo "usage: $0 start | stop FILE" >&2
	exit 2
	;;
esac
