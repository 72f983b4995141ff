#!/bin/bash
# tests/trace-smoke.sh KERNEL OUT: inside a lab guest booted under -icount
# with the insn-count plugin (tests/run.sh), check that the lab's tracing
# works on the running kernel (TAP): each bpftrace script attaches and
# counts what the workload did, perf samples the kernel and annotates
# io_submit_sqes, and ringbench -m opens and closes plugin windows (their
# JSON lines go to OUT/windows.jsonl for the host's check of the counts).
set -u
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
kernel=$1 out=$2
case $kernel in baseline) r=0 ;; *) r=1 ;; esac
mkdir -p "$out" /tmp/tb
cp "$build/bench/ringbench" /tmp/tb/ringbench
rb=/tmp/tb/ringbench

. "$here/tap.sh"
# json_has FILE MAP KEY VALUE: bpftrace's JSON has MAP with KEY at VALUE
json_has() {
	python3 - "$@" <<'PY'
import json, sys
path, name, key, want = sys.argv[1:]
for line in open(path):
    j = json.loads(line)
    if j.get("type") in ("map", "hist") and name in j["data"]:
        v = j["data"][name]
        if isinstance(v, dict):
            # drop the ring's address (it varies) from keys that start with it
            v = {(k.split(",", 1)[1] if "," in k else "") if k.startswith("0x") else k: x
                 for k, x in v.items()}
            v = v.get(key)
        if key == "-" and isinstance(v, list):
            v = sum(b["count"] for b in v)
        sys.exit(0 if str(v) == want else 1)
sys.exit(1)
PY
}

echo "1..9"
: >"$out/windows.jsonl"
ok=0
"$lab/tracing/ring-ctx.sh" start 2>/tmp/err.ctx
ctx=$?
for ring in 0 "$r"; do
	$rb -w nop -b 32 -n 20000 -r "$ring" -m >>"$out/windows.jsonl" 2>/tmp/err || ok=1
done
tap $ok "ringbench -m runs inside plugin windows" /tmp/err
[ $ctx = 0 ] && "$lab/tracing/ring-ctx.sh" stop "$out/ring-ctx.txt" 2>>/tmp/err.ctx &&
	[ "$(wc -l <"$out/ring-ctx.txt")" = 2 ]
tap $? "ring-ctx.sh: the two rings' contexts recorded from io_uring_create" /tmp/err.ctx
cp "$build/tracing/cache-probe" /tmp/tb/ && /tmp/tb/cache-probe >"$out/cache-probe.jsonl" 2>/tmp/err
tap $? "cache-probe runs its three probe windows" /tmp/err

bt=$lab/tracing/bt-run.sh
$bt "$lab/tracing/submit-latency.bt" /tmp/sl.json -- $rb -w nop -b 32 -n 3200 -W 320 -r "$r" >/dev/null 2>/tmp/err &&
	json_has /tmp/sl.json @sqes - 110
tap $? "submit-latency.bt: one io_submit_sqes() call per 32 NOPs, 110 calls" /tmp/err

if [ "$r" = 1 ]; then
	$bt "$lab/tracing/opcodes.bt" /tmp/op.json -- $rb -w deny -b 32 -n 640 -W 64 -r 1 >/dev/null 2>/tmp/err &&
		json_has /tmp/op.json @denied NOP 704 && json_has /tmp/op.json @cqe_eacces "" 704
	tap $? "opcodes.bt: every refused NOP counted as a denial and as an -EACCES CQE" /tmp/err
else
	$bt "$lab/tracing/opcodes.bt" /tmp/op.json -- $rb -w deny -b 32 -n 640 -W 64 -r 0 >/dev/null 2>/tmp/err &&
		json_has /tmp/op.json @submitted NOP 704 && ! grep -q '@denied' /tmp/op.json
	tap $? "opcodes.bt: NOPs counted as submitted, none denied (no restrictions)" /tmp/err
fi

$bt "$lab/tracing/ring-lifecycle.bt" /tmp/rl.json -- $rb -w setup -n 16 -W 16 -r "$r" >/dev/null 2>/tmp/err
rc=$?
if [ "$r" = 1 ]; then
	[ $rc = 0 ] && json_has /tmp/rl.json @rings R_DISABLED 33 && json_has /tmp/rl.json @register 11,0 33 &&
		json_has /tmp/rl.json @register 12,0 33
	tap $? "ring-lifecycle.bt: 33 rings created disabled, restricted, enabled" /tmp/err
else
	[ $rc = 0 ] && json_has /tmp/rl.json @rings enabled 33 && ! grep -q '"@register"' /tmp/rl.json
	tap $? "ring-lifecycle.bt: 33 rings created enabled, none registered" /tmp/err
fi

# a probe the kernel does not have: refused before bpftrace runs, and why
printf 'kprobe:io_init_req { @ = count(); }\n' >/tmp/missing.bt
$bt /tmp/missing.bt /tmp/m.json -- $rb -w nop -n 32 >/dev/null 2>/tmp/err
[ $? != 0 ] && grep -q "no function 'io_init_req' to probe" /tmp/err
tap $? "bt-run.sh: a missing (inlined) probe point fails and says which" /tmp/err

PERF_FREQ=20000 "$lab/tracing/perf-profile.sh" /tmp/perf nop -- $rb -w nop -b 32 -n 40000 -r "$r" >/tmp/err 2>&1 &&
	grep -q ',io_submit_sqes$' /tmp/perf/nop.symbols.csv && [ -s /tmp/perf/nop.folded ]
tap $? "perf-profile.sh: samples name io_submit_sqes, folded stacks written" /tmp/err
grep -q 'io_submit_sqes' /tmp/perf/nop.annotate.txt && grep -qE '^ +[0-9]+\.[0-9]+ +:' /tmp/perf/nop.annotate.txt
tap $? "perf-profile.sh: io_submit_sqes annotated with per-instruction shares" /tmp/perf/nop.perf.err
