#!/bin/bash
# tests/bench-boots.sh KERNEL KERNEL2 (TAP, on the host): make bench's
# wall-clock mode end to end. One short run (TCG without -icount, NOP
# cells, BOOTS=2) must boot the two kernels interleaved, the order rotated
# each round (A B, B A), with wall-clock mode's defaults (one guest CPU,
# 20 times the ops per run), keep each boot's figures apart and tagged
# with their boot, and summarize, draw and report them with between-boot
# intervals. Whether the figures
# agree with anything is the job of make bench, not of this test.
set -u
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
a=$1 b=$2
run=$build/vm/bench-boots
rm -rf "$run"
mkdir -p "$run"
log=$build/vm/bench-boots.log
KERNELS="$a $b" ACCEL=tcg ICOUNT=0 BOOTS=2 QUICK=1 REPS=3 CELLS=nop FIO=0 RUN=$run \
	"$lab/bench/run.sh" >"$log" 2>&1
rc=$?

n=0 fail=0
t() { # VERDICT DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
echo "1..8"
[ "$rc" = 0 ] && [ -f "$run/COMPLETE" ] && [ ! -f "$run/FAILURES" ]
t $? "make bench BOOTS=2 ICOUNT=0 completes, nothing failed (status $rc)"
grep -q '^accel=tcg$' "$run/env/host.env" && grep -q '^boots=2$' "$run/env/host.env" &&
	grep -q "^instances=$a.b1 $b.b1 $b.b2 $a.b2\$" "$run/env/host.env"
t $? "host.env: wall-clock TCG, 2 boots, in the order $a $b, then $b $a"
[ "$(grep -o '^\[bench\] boot [0-9]/4: [^ ]*, round [0-9]/2' "$log" | tr '\n' ';')" = \
	"[bench] boot 1/4: $a, round 1/2;[bench] boot 2/4: $b, round 1/2;[bench] boot 3/4: $b, round 2/2;[bench] boot 4/4: $a, round 2/2;" ]
t $? "the boots ran interleaved, with their rounds in the progress lines"
ok=0
for k in "$a" "$b"; do
	for i in 1 2; do
		f=$run/raw/$k.b$i/micro.jsonl
		# every figure tagged with its own boot, none with another
		[ -s "$f" ] && [ "$(grep -c '"ns_per_op"' "$f")" = "$(grep -c "\"boot\": *\"$i\"" "$f")" ] || ok=1
		grep -q '^guest_clocksource=' "$run/env/$k.b$i.guest.env" 2>/dev/null || ok=1
		# wall-clock defaults: one guest CPU, NOP b=32 at 20 x 50000 ops
		grep -q '^guest_cpus=1$' "$run/env/$k.b$i.guest.env" 2>/dev/null || ok=1
		grep -q '"batch":32,"depth":0,"ops":1000000,' "$f" || ok=1
	done
done
t $ok "each boot's figures in raw/KERNEL.bN tagged with their boot; one guest CPU, 20 x the ops per run"
python3 - "$run" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/boots.csv")))
boots = {(r["kernel"], r["boot"]) for r in rows}
sys.exit(0 if len(boots) == 4 and all(r["reps"] == "3" for r in rows) else 1)
PY
t $? "boots.csv: each boot's median of its 3 repetitions, for both kernels and both boots"
python3 - "$run" <<'PY'
import csv, sys
run = sys.argv[1]
o = [r for r in csv.DictReader(open(run + "/overhead.csv")) if r["cell"] == "nop b=32"]
rd = [r for r in csv.DictReader(open(run + "/rounds.csv")) if r["cell"] == "nop b=32"]
pw = list(csv.DictReader(open(run + "/power.csv")))
# within a kernel the boots' paired repetitions, across kernels rounds
ok = (o and all(r["ci_method"] == ("t over 2 boots, each its repetitions' median paired ratio"
                                   if ": restricted vs unrestricted" in r["comparison"]
                                   else "t over 2 rounds of boots") and r["ci95_lo_pct"] for r in o)
      and rd and all(r["rounds"] == "2" and r["last_round"] == "2" for r in rd) and pw)
sys.exit(0 if ok else 1)
PY
t $? "overhead.csv compares over 2 rounds; rounds.csv and power.csv written"
grep -q '^\*\*2 boots per kernel\*\*' "$run/REPORT.md" &&
	grep -q '^## Boots, spread between boots, and what this run could detect' "$run/REPORT.md" &&
	grep -q '| detectable | verdict |' "$run/REPORT.md"
t $? "REPORT.md: the boots, the spread between them, what the run could detect, a verdict per comparison"
[ -s "$run/plots/throughput.png" ] && [ -s "$run/plots/overhead.png" ]
t $? "the pictures are drawn"
[ "$fail" = 0 ] || sed 's/^/#   /' "$log" | tail -15
exit $fail
