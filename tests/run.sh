#!/bin/bash
# tests/run.sh KERNEL...: boot each kernel, run the restriction tests in it,
# print one summary per kernel and a last line "N passed, N failed".
# Exit status is non-zero on any failure, a failed boot included.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
bin=$build/tests/restrictions

passed=0 failed=0 summary=()

# count NAME TAPFILE RC: add a TAP stream's verdicts to the totals
count() {
	local name=$1 tap=$2 rc=$3 p f plan note=
	p=$(grep -c '^ok ' "$tap")
	f=$(grep -c '^not ok ' "$tap")
	# one or more TAP streams: the plans add up
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tap" | awk '{ s += $1 } END { if (NR) print s }')
	if [ -z "$plan" ] || [ $((p + f)) -ne "$plan" ]; then
		# a crash or failed boot: whatever did not report counts as failed
		f=$((${plan:-0} - p))
		[ "$f" -gt 0 ] || f=1
		note=" (did not finish: status $rc)"
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1
		note=" (exit status $rc)"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	summary+=("$(printf '%-9s %3d passed, %d failed%s' "$name:" "$p" "$f" "$note")")
}

mkdir -p "$build/vm"
echo "== host checks: patches, config, bench statistics"
"$here/check-patches.sh" >"$build/vm/patches.tap" 2>&1
count patches "$build/vm/patches.tap" $?
"$here/check-config.sh" "$@" >"$build/vm/config.tap" 2>&1
count config "$build/vm/config.tap" $?
# make bench's statistics, pictures and report on synthetic runs
"$here/check-bench-stats.py" >"$build/vm/bench-stats.tap" 2>&1
count stats "$build/vm/bench-stats.tap" $?
cat "$build/vm/patches.tap" "$build/vm/config.tap" "$build/vm/bench-stats.tap"

rm -f "$build"/vm/diff-*.txt "$build"/vm/diff-*.err
for kernel in "$@"; do
	out=$build/vm/test-$kernel
	echo "== tests on $kernel"
	# a sanitizer kernel under TCG runs the same tests several times slower
	limit=${TIMEOUT:-}
	[ "${kernel%-debug}" != "$kernel" ] && limit=${TIMEOUT:-2400}
	KERNEL=$kernel VM_OUT=$out TIMEOUT=$limit "$lab/vm/run.sh" -- \
		"$here/guest-run.sh" "$kernel" "$bin" "${DIFF_SEED:-1}" "${DIFF_POLICIES:-10000}" \
		"${STRESS_SECONDS:-10}" |
		tr -d '\r' | tee "$out.tap"
	rc=${PIPESTATUS[0]}
	"$here/boot-health.sh" "$out" "$kernel" | tee -a "$out.tap"
	count "$kernel" "$out.tap" "$rc"
done

# Differential: ten thousand random cases (a ring, a policy, register
# calls, eight SQEs) must get the same answers from our series as from
# upstream (guest-run.sh), upstream's drain stalls excepted: patched must
# never stall. DIFF_SEED and DIFF_POLICIES pick another stream or a longer
# one; make fuzz runs a million SQEs.
# Both kernels tested but an answer file missing is a failure, not a skip.
# differential PATCHED UPSTREAM SUFFIX: compare the two kernels' answers
differential() {
	local pk=$1 uk=$2 sfx=$3 verdict denied k
	echo "== differential: $pk against $uk (tests/restrict-diff.c)"
	{
		echo "1..2"
		if [ ! -s "$build/vm/diff-$pk.txt" ] || [ ! -s "$build/vm/diff-$uk.txt" ]; then
			echo "not ok 1 - restrict-diff: no answers from $pk or $uk (build/vm/diff-*.txt missing or empty)"
		elif verdict=$("$here/diff-answers.py" "$build/vm/diff-$pk.txt" "$build/vm/diff-$uk.txt" 2>&1); then
			echo "ok 1 - restrict-diff: $pk and $uk $verdict (seed ${DIFF_SEED:-1}: $(tail -1 "$build/vm/diff-$pk.txt" | sed 's/^# //'))"
		else
			echo "not ok 1 - restrict-diff: $pk and $uk differ; first difference:"
			printf '%s\n' "$verdict" | cut -c1-200 | sed 's/^/#   /'
		fi
		for k in "$pk" "$uk"; do
			sed "s/^/#   $k: /" "$build/vm/diff-$k.err" 2>/dev/null
		done
		# a run that denies nothing would agree trivially: want one a policy
		denied=$(tail -1 "$build/vm/diff-$pk.txt" 2>/dev/null | sed -n 's/.* \([0-9]*\) -EACCES.*/\1/p')
		if [ "${denied:-0}" -ge "${DIFF_POLICIES:-10000}" ]; then
			echo "ok 2 - restrict-diff: $denied SQEs denied with -EACCES, so the check was exercised"
		else
			echo "not ok 2 - restrict-diff: only ${denied:-0} SQEs denied: the run did not exercise the check"
		fi
	} | tee "$build/vm/diff$sfx.tap"
	count "differential$sfx" "$build/vm/diff$sfx.tap" 0
}
for sfx in "" -debug; do
	case " $* " in *" patched$sfx "*) case " $* " in *" upstream$sfx "*)
		differential "patched$sfx" "upstream$sfx" "$sfx" ;; esac ;; esac
done

# Tracing (make trace's tools) on one kernel with restrictions: under
# -icount with the insn-count plugin, as make trace boots it; a production
# kernel (a sanitizer kernel's figures would trace the sanitizers).
prod=()
for k in "$@"; do
	[ "${k%-debug}" = "$k" ] && prod+=("$k")
done
tk=
for k in "${prod[@]}"; do
	[ "$k" != baseline ] && { tk=$k; break; }
done
tk=${tk:-${prod[0]:-}}
if [ -n "$tk" ]; then
	out=$build/vm/trace-$tk
	rm -rf "$out"
	mkdir -p "$out/raw/$tk"
	echo "== tracing on $tk (TCG -icount, insn-count plugin, bpftrace, perf)"
	ACCEL=tcg ICOUNT=1 KERNEL=$tk VM_OUT=$out/vm \
		PLUGIN="file=$build/tracing/insn-count.so,out=$out/raw/$tk/insn-count.txt,cache=1" \
		"$lab/vm/run.sh" -- "$here/trace-smoke.sh" "$tk" "$out/raw/$tk" | tr -d '\r' | tee "$out.tap"
	rc=${PIPESTATUS[0]}
	cp "$build/out/$tk/System.map" "$build/out/$tk/io_ring_ctx.size" "$out/raw/$tk/"
	"$here/check-windows.py" "$out" "$tk" | tee -a "$out.tap"
	count tracing "$out.tap" "$rc"
fi

# make bench when a guest step and a whole boot hang: the report is still
# written from what was measured (tests/bench-hang.sh). Two kernels with
# restrictions if there are two, else any two.
hk=() rk=()
for k in "${prod[@]}"; do
	[ "$k" != baseline ] && hk+=("$k") || rk+=("$k")
done
hk+=("${rk[@]}")
if [ "${#hk[@]}" -ge 2 ]; then
	echo "== make bench when a step and a boot hang (${hk[0]} boot, ${hk[1]} fio)"
	"$here/bench-hang.sh" "${hk[0]}" "${hk[1]}" | tee "$build/vm/bench-hang.tap"
	count bench-hang "$build/vm/bench-hang.tap" "${PIPESTATUS[0]}"
fi

# make bench's wall-clock mode: two kernels, two boots each, interleaved
if [ "${#hk[@]}" -ge 2 ]; then
	echo "== make bench BOOTS=2 ICOUNT=0 (${hk[0]}, ${hk[1]})"
	"$here/bench-boots.sh" "${hk[0]}" "${hk[1]}" | tee "$build/vm/bench-boots.tap"
	count bench-boots "$build/vm/bench-boots.tap" "${PIPESTATUS[0]}"
fi

# one table: each bypass and stress scenario, each kernel's verdict and
# its kernel log status (tests/verdicts.tsv says what each test asserts)
echo "== verdicts per scenario and kernel ($build/vm/VERDICTS.md)"
"$here/verdict-table.py" "$build/vm" "$@"

echo "== summary"
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
