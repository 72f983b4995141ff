#!/bin/bash
# tracing/bt-run.sh SCRIPT.bt OUT.json -- COMMAND...: run COMMAND under one
# of the lab's bpftrace scripts inside a lab guest; bpftrace's JSON output
# (maps, histograms, printf lines) goes to OUT.json, its errors to OUT.err.
#
# The lab's kernels have no BTF, so bpftrace reads the kernel's own
# headers: the tree and the O= build folder of the running kernel, which
# the guest sees on the 9p share. Before bpftrace starts, every kprobe and
# tracepoint the script names is looked up in tracefs, so a missing probe
# says which one and why instead of a compiler error.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}

[ $# -ge 4 ] && [ "$3" = -- ] || { echo "usage: $0 SCRIPT.bt OUT.json -- COMMAND..." >&2; exit 2; }
script=$1 out=$2
shift 3
die() { echo "bt-run: $(basename "$script"): $*" >&2; exit 1; }

kernel=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^lab\.kernel=//p')
[ -n "$kernel" ] || die "not in a lab guest (no lab.kernel= on the command line)"
export BPFTRACE_KERNEL_SOURCE=$build/linux BPFTRACE_KERNEL_BUILD=$build/out/$kernel
[ -d "$BPFTRACE_KERNEL_BUILD/include/generated" ] ||
	die "no build folder for '$kernel' at $BPFTRACE_KERNEL_BUILD: bpftrace needs its headers"
command -v bpftrace >/dev/null || die "bpftrace missing (make deps-tools)"

tracefs=/sys/kernel/tracing
[ -r $tracefs/available_filter_functions ] || die "tracefs is not mounted at $tracefs"
# 'kprobe:fn' and 'kretprobe:fn' need fn in available_filter_functions
# (inlined functions are not); 'tracepoint:sys:name' needs events/sys/name
missing=0
# (every probe of a line that starts with one: a probe list may run on)
for p in $(grep -E '^(kprobe|kretprobe|tracepoint):' "$script" |
	grep -oE '(kprobe|kretprobe|tracepoint):[A-Za-z0-9_:]+' | sort -u); do
	case $p in
	kprobe:*|kretprobe:*)
		fn=${p#*:}
		if ! grep -qx "$fn" <(cut -d' ' -f1 $tracefs/available_filter_functions); then
			echo "bt-run: $p: no function '$fn' to probe in $(uname -r): inlined or renamed; the script's header names the tracepoint to use instead" >&2
			missing=1
		fi ;;
	tracepoint:*)
		ev=${p#tracepoint:}
		if [ ! -d "$tracefs/events/${ev/://}" ]; then
			echo "bt-run: $p: no such tracepoint in $(uname -r) (CONFIG_TRACEPOINTS, or a renamed event)" >&2
			missing=1
		fi ;;
	esac
done
[ "$missing" = 0 ] || die "probe points missing, not run"

cmd=$(printf '%q ' "$@")
# bpftrace -c wants a full path; /bin and /usr/bin both hold most programs
first=$(command -v "$1") || die "no program '$1'"
cmd="$(readlink -f "$first") ${cmd#* }"
cmd=${cmd% }	# bpftrace takes a trailing space as part of a lone path
bpftrace -q -f json -o "$out.tmp" -c "$cmd" "$script" 2>"${out%.json}.err"
rc=$?
if [ "$rc" != 0 ] || ! grep -q '"type": "\(map\|hist\)"' "$out.tmp" 2>/dev/null; then
	echo "bt-run: $(basename "$script") failed (status $rc); bpftrace said:" >&2
	sed 's/^/  | /' "${out%.json}.err" | tail -n 15 >&2
	exit 1
fi
mv "$out.tmp" "$out"
