#!/bin/bash
# tracing/policy-record-vm.sh: `make record`. Boot KERNEL (default
# patched) and run CMD inside it under tracing/policy-record.sh, as the
# shell runs it (bash -c CMD): results/<UTC timestamp>-record/ gets
# policy.txt, policy.h, policy.json, SUMMARY.md and record.json, env/
# logs/ and COMPLETE last; results/latest-record points at it. The guest
# sees the host's root read-only and this checkout read-write; its /tmp
# is its own. Environment: CMD, KERNEL, GENERALISE (sockets), ACCEL,
# TIMEOUT, RUN.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
. "$lab/vm/lib.sh"
. "$lab/vm/boots.sh"
kernel=${KERNEL:-patched}
[ -n "${CMD:-}" ] || { echo "record: no command: make record CMD='PROGRAM ARGS...'" >&2; exit 2; }
command -v bpftrace >/dev/null ||
	{ echo "record: bpftrace is needed on the host's root, which the guest runs (make deps-tools)" >&2; exit 1; }
accel=$("$lab/vm/run.sh" -a)
run=${RUN:-$lab/results/$(date -u +%Y%m%dT%H%M%SZ)-record}
run=$(run_open "$run")
printf 'CMD=%q\nGENERALISE=%s\n' "$CMD" "${GENERALISE:-}" | write_atomic "$run/record.env"
host_env "$accel" "$kernel" "$run/record.env" | write_atomic "$run/env/host.env"
gen=()
[ -n "${GENERALISE:-}" ] && gen=(-g "$GENERALISE")
echo "[record] $kernel on $accel: $CMD"
BOOT_RUN=$run
boots_start record kernel 1
status=0
boot_guest "$kernel" "$kernel" -- "$here/policy-record.sh" "${gen[@]}" "$run" -- bash -c "$CMD" || status=$?
boots_failures || true
boots_end latest-record "$run/policy.txt" "$status"
