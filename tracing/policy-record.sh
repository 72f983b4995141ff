#!/bin/bash
# tracing/policy-record.sh [-g sockets] OUTDIR -- COMMAND...: inside a lab
# guest, run COMMAND under tracing/policy-record.bt and write its least
# io_uring policy into OUTDIR:
#   record.json  what bpftrace recorded (raw)
#   policy.txt   bench/uring-restrict's policy file (uring-restrict -f)
#   policy.h     the same as a C header a program registers itself
#   policy.json  the same as JSON, for a runtime
#   SUMMARY.md   per ring: opcode, count, flags and arguments seen, and
#                what the policy allows (also printed)
#   dropped.txt  policy.txt less its busiest opcode (the round trip's)
# COMMAND runs as it is: no change, no recompilation; it must set up its
# rings itself, and its children's rings are recorded too. -g sockets lets
# SOCKET's filters allow any protocol of each family and type seen.
# Exit status: 1 when COMMAND failed (the policy is still written: what it
# did until then) or set up no ring, 2 for a usage error.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
gen=()
if [ "${1:-}" = -g ]; then
	[ "${2:-}" = sockets ] || { echo "policy-record: -g takes 'sockets', not '${2:-}'" >&2; exit 2; }
	gen=(--generalise "$2")
	shift 2
fi
[ $# -ge 3 ] && [ "$2" = -- ] || { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
out=$1
shift 2
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
command -v "$1" >/dev/null || { echo "policy-record: no program '$1' to run" >&2; exit 2; }
echo "[record] $* (bpftrace compiles its script first: under TCG about half a minute)" >&2
rm -f "$out/record.json" "$out/status"
"$here/bt-command.sh" "$out" "$@" || exit 2
"$here/bt-run.sh" "$here/policy-record.bt" "$out/record.json" -- bash "$out/command.sh" ||
	{ echo "policy-record: the recording failed (above)" >&2; exit 1; }
rc=$(cat "$out/status" 2>/dev/null || echo "?")
[ "$rc" = 0 ] || echo "policy-record: note: the recorded command exited with status $rc; its policy covers what it did until then" >&2
# from the lab's root: python3 -m imports from the working folder first
(cd "$lab" && PYTHONPATH=$lab python3 -m uringlab.policy "${gen[@]}" --drop-top "$out/record.json" "$out") || exit 1
"$build/bench/uring-policy" -c "$out/policy.txt" >"$out/policy.h.tmp" && mv "$out/policy.h.tmp" "$out/policy.h" || exit 1
"$build/bench/uring-policy" -j "$out/policy.txt" >"$out/policy.json.tmp" && mv "$out/policy.json.tmp" "$out/policy.json" || exit 1
cat "$out/SUMMARY.md"
echo "[record] policy: $out/policy.txt (uring-restrict -f), policy.h, policy.json" >&2
[ "$rc" = 0 ]
