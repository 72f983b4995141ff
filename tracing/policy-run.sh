#!/bin/bash
# tracing/policy-run.sh: `make policy`. Boot each of KERNELS that has ring
# restrictions and, in one boot each:
#   tests/policy-roundtrip.sh  record every program of
#                              tests/policy-workloads.sh, restrict it with
#                              its recorded policy, rerun it, drop one entry
#   bench/policy-cost.sh       its throughput unrestricted, under the
#                              recorded allow-lists, under allow-lists and
#                              filters (kernels with BPF filters)
# Into results/<UTC timestamp>-<accel>-policy/: env/ logs/, raw/KERNEL/
# (roundtrip.tap, NAME/: recording, policy, reruns; cost/), cost.csv and
# REPORT.md (uringlab.policy_cost), COMPLETE last; results/latest-policy
# points at it. Under TCG the boots run with -icount (ICOUNT=0: off), so
# throughput is per guest instruction, as make bench's. Environment:
# KERNELS (default patched upstream), REPS (3), POLICY_PROGRAMS (a subset
# of the programs, by name), RUN, TIMEOUT (per boot, default 3600).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
. "$lab/vm/lib.sh"
. "$lab/vm/boots.sh"
kernels=${KERNELS:-patched upstream}
command -v bpftrace >/dev/null ||
	{ echo "policy: bpftrace is needed on the host's root, which the guest runs (make deps-tools)" >&2; exit 1; }
accel=$(ACCEL=${ACCEL:-auto} ICOUNT=0 "$lab/vm/run.sh" -a)
if [ "$accel" = tcg ] && [ "${ICOUNT:-1}" != 0 ]; then
	export ICOUNT=1
	accel=tcg-icount
fi
export ACCEL=${accel%-icount} TIMEOUT=${TIMEOUT:-3600}
run=${RUN:-$lab/results/$(date -u +%Y%m%dT%H%M%SZ)-$accel-policy}
run=$(run_open "$run")
echo "REPS=${REPS:-3} POLICY_PROGRAMS=\"${POLICY_PROGRAMS:-}\"" | write_atomic "$run/policy.env"
host_env "$accel" "$kernels" "$run/policy.env" | write_atomic "$run/env/host.env"
echo "[policy] run folder: $run"
echo "[policy] kernels: $kernels; $accel; each program recorded, restricted, rerun, then measured"
BOOT_RUN=$run
boots_start policy kernel "$(wc -w <<<"$kernels")"
for k in $kernels; do
	boots_next "$k"
	mkdir -p "$run/raw/$k"
	# shellcheck disable=SC2086
	boot_guest "$k" "$k" REPS="${REPS:-3}" -- bash -c \
		'"$1/tests/policy-roundtrip.sh" "$2" "$3" $4 | tee "$3/roundtrip.tap"; "$1/bench/policy-cost.sh" "$2" "$3" && "$1/tests/tap-whole.sh" "$3/roundtrip.tap"' \
		sh "$lab" "$k" "$run/raw/$k" "${POLICY_PROGRAMS:-}" || true
done
status=0
boots_failures || true
python3 -m uringlab.policy_cost "$run" || status=1
boots_end latest-policy "$run/REPORT.md" "$status"
