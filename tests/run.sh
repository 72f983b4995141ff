#!/bin/bash
# tests/run.sh KERNEL...: boot each kernel, run the restriction tests in it,
# print one summary per kernel and a last line "N passed, N failed".
# Exit status is non-zero on any failure, a failed boot included.
# Environment: HOST_CHECKS=0 skips the host checks but each kernel's config
# (checkpatch and the bench statistics: make test-debug, after make test
# ran them); DIFF_SEED,
# DIFF_POLICIES (production kernels, 10 000 cases), DIFF_DEBUG_POLICIES
# (sanitizer kernels, 2 000), STRESS_SECONDS, FILTER_DIFF_SEED,
# FILTER_DIFF_CASES (tests/bpf-fold-diff.c's rings: 1 000 on production
# kernels, a quarter on sanitizer kernels).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
bin=$build/tests/restrictions

. "$here/tap-count.sh"
. "$lab/vm/lib.sh"
. "$lab/vm/boots.sh"

phase() { "$lab/.ci/phase.sh" add "$1" "$2" "$(date +%s)" "$3"; }

mkdir -p "$build/vm"
echo "== host checks: $([ "${HOST_CHECKS:-1}" = 1 ] && echo "patches, ")config$([ "${HOST_CHECKS:-1}" = 1 ] && echo ", bench statistics, references, make help, report tables, file modes, the policy recorder, the verdict, generated docs")"
t0=$(date +%s)
taps=()
if [ "${HOST_CHECKS:-1}" = 1 ]; then
	"$here/check-patches.sh" >"$build/vm/patches.tap" 2>&1
	count patches "$build/vm/patches.tap" $?
	taps+=("$build/vm/patches.tap")
fi
# each kernel's config, whichever kernels this run boots (make
# test-debug's own file: make test's stays)
cfg=$build/vm/config.tap
[ "${HOST_CHECKS:-1}" = 1 ] || cfg=$build/vm/config-sanitizers.tap
"$here/check-config.sh" "$@" >"$cfg" 2>&1
count config "$cfg" $?
taps+=("$cfg")
if [ "${HOST_CHECKS:-1}" = 1 ]; then
	# make bench's statistics, pictures and report on synthetic runs
	"$here/check-bench-stats.py" >"$build/vm/bench-stats.tap" 2>&1
	count stats "$build/vm/bench-stats.tap" $?
	taps+=("$build/vm/bench-stats.tap")
	# the front door: the committed references describe this tree, the
	# docs' answer tables are theirs, make help lists every target and
	# variable, and the report's plain-text tables fit a mail
	"$here/check-reference.sh" >"$build/vm/reference.tap" 2>&1
	count reference "$build/vm/reference.tap" $?
	python3 -m uringlab.makehelp "$lab/Makefile" --check >"$build/vm/help.tap" 2>&1
	count help "$build/vm/help.tap" $?
	"$here/check-textable.py" >"$build/vm/tables.tap" 2>&1
	count tables "$build/vm/tables.tap" $?
	# a script committed without its mode fails on a fresh clone only
	"$here/check-modes.sh" >"$build/vm/modes.tap" 2>&1
	count modes "$build/vm/modes.tap" $?
	# the policy recorder's pieces: its probes, the filter compiler, the generator
	"$here/check-policy.py" >"$build/vm/policy.tap" 2>&1
	count policy "$build/vm/policy.tap" $?
	# the report's verdict says missed where a planted figure is past its limit
	"$here/check-verdict.py" >"$build/vm/verdict.tap" 2>&1
	count verdict "$build/vm/verdict.tap" $?
	# the Makefile names the generated files once: its check-docs
	make --no-print-directory -s -C "$lab" check-docs >"$build/vm/docs.tap" 2>&1
	count docs "$build/vm/docs.tap" $?
	taps+=("$build/vm/reference.tap" "$build/vm/help.tap" "$build/vm/tables.tap"
		"$build/vm/modes.tap" "$build/vm/policy.tap" "$build/vm/verdict.tap" "$build/vm/docs.tap")
fi
cat "${taps[@]}"
phase "host checks$([ "${HOST_CHECKS:-1}" = 1 ] || echo ": config of $*")" "$t0" "$(grep -q '^not ok' "${taps[@]}" && echo failed || echo ok)"

# cases per kernel: a sanitizer kernel runs a prefix of the same stream
policies() {
	if [ "${1%-debug}" != "$1" ]; then echo "${DIFF_DEBUG_POLICIES:-2000}"; else echo "${DIFF_POLICIES:-10000}"; fi
}
# the filter differential's rings: under TCG 1 000 take about 25 s on
# patched; a sanitizer kernel runs a quarter of the same stream
filter_cases() {
	local n=${FILTER_DIFF_CASES:-1000}
	if [ "${1%-debug}" != "$1" ]; then echo $(((n + 3) / 4)); else echo "$n"; fi
}
# the boots' logs and failures under build/vm (VM_OUT build/vm/test-K);
# the verdicts are the TAP streams'
BOOT_RUN= BOOT_LOGS=$build/vm
# make test-debug's own: make test's stays
BOOT_FAILURES=$build/vm/failures$([ "${HOST_CHECKS:-1}" = 1 ] || echo -sanitizers).tsv
ntrace=0
for k in "$@"; do [ "${k%-debug}" = "$k" ] && ntrace=1; done
boots_start test boot $(($# + ntrace))
for kernel in "$@"; do
	out=$build/vm/test-$kernel
	boots_next "tests on $kernel"
	# only this boot's answers: another kernel's, from an earlier run of
	# the same build, may still be compared with it (make test-debug)
	rm -f "$build/vm/diff-$kernel.txt" "$build/vm/diff-$kernel.err"
	# a sanitizer kernel under TCG runs the same tests several times slower
	limit=${TIMEOUT:-}
	[ "${kernel%-debug}" != "$kernel" ] && limit=${TIMEOUT:-2400}
	t0=$(date +%s)
	boot_guest "test-$kernel" "$kernel" TIMEOUT="$limit" -- \
		env FILTER_DIFF_SEED="${FILTER_DIFF_SEED:-1}" FILTER_DIFF_CASES="$(filter_cases "$kernel")" \
		"$here/guest-run.sh" "$kernel" "$bin" "${DIFF_SEED:-1}" "$(policies "$kernel")" \
		"${STRESS_SECONDS:-10}" |
		tr -d '\r' | tee "$out.tap"
	rc=${PIPESTATUS[0]}
	"$here/boot-health.sh" "$out" "$kernel" | tee -a "$out.tap"
	count "$kernel" "$out.tap" "$rc"
	phase "test boot $kernel" "$t0" "$([ "$rc" = 0 ] && echo ok || echo "failed ($rc)")"
done

# Differential: ten thousand random cases (a ring, a policy, register
# calls, eight SQEs) must get the same answers from our series as from
# upstream (guest-run.sh), upstream's drain stalls excepted: patched must
# never stall. DIFF_SEED and DIFF_POLICIES pick another stream or a longer
# one; make fuzz runs a million SQEs. A sanitizer kernel runs the first
# DIFF_DEBUG_POLICIES cases of the same stream, compared with the sanitizer
# upstream's when that one booted too (make test-debug-full), else with
# the production upstream's first cases (the sanitizers change no answer).
# Both kernels tested but an answer file missing is a failure, not a skip.
# differential PATCHED UPSTREAM SUFFIX: compare the two kernels' answers
differential() {
	local pk=$1 uk=$2 sfx=$3 verdict denied k n
	n=$(policies "$pk")
	echo "== differential: $pk against $uk (tests/restrict-diff.c)"
	{
		echo "1..2"
		if [ ! -s "$build/vm/diff-$pk.txt" ] || [ ! -s "$build/vm/diff-$uk.txt" ]; then
			echo "not ok 1 - restrict-diff: no answers from $pk or $uk (build/vm/diff-*.txt missing or empty)"
		elif [ "$build/vm/diff-$uk.txt" -ot "$build/bzImage-$uk" ] ||
			[ "$build/vm/diff-$uk.txt" -ot "$build/tests/restrict-diff" ]; then
			echo "not ok 1 - restrict-diff: $uk's answers are older than its kernel or the test (run make test)"
		elif [ "$n" -lt 1 ]; then
			echo "not ok 1 - restrict-diff: $n cases asked for: nothing would be compared"
		elif verdict=$("$here/diff-answers.py" --prefix "$build/vm/diff-$pk.txt" "$build/vm/diff-$uk.txt" 2>&1); then
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
		if [ "${denied:-0}" -ge "$n" ]; then
			echo "ok 2 - restrict-diff: $denied SQEs denied with -EACCES, so the check was exercised"
		else
			echo "not ok 2 - restrict-diff: only ${denied:-0} SQEs denied: the run did not exercise the check"
		fi
	} | tee "$build/vm/diff$sfx.tap"
	count "differential$sfx" "$build/vm/diff$sfx.tap" 0
}
case " $* " in *" patched "*) case " $* " in *" upstream "*)
	differential patched upstream "" ;; esac ;; esac
# a sanitizer kernel is always compared: with no upstream answers at all,
# that is a failure (run make test first), not a skip
case " $* " in *" patched-debug "*)
	case " $* " in
	*" upstream-debug "*) differential patched-debug upstream-debug -debug ;;
	*) differential patched-debug upstream -debug ;;
	esac ;;
esac

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
	boots_next "tracing on $tk (TCG -icount, insn-count plugin, bpftrace, perf)"
	t0=$(date +%s)
	boot_guest "trace-$tk/vm" "$tk" ACCEL=tcg ICOUNT=1 \
		PLUGIN="file=$build/tracing/insn-count.so,out=$out/raw/$tk/insn-count.txt,cache=1" -- \
		"$here/trace-smoke.sh" "$tk" "$out/raw/$tk" | tr -d '\r' | tee "$out.tap"
	rc=${PIPESTATUS[0]}
	cp "$build/out/$tk/System.map" "$build/out/$tk/io_ring_ctx.size" "$out/raw/$tk/"
	"$here/check-windows.py" "$out" "$tk" | tee -a "$out.tap"
	count tracing "$out.tap" "$rc"
	phase "tracing on $tk" "$t0" "$([ "$rc" = 0 ] && echo ok || echo "failed ($rc)")"
fi

# one table: each bypass and stress scenario, each kernel's verdict and
# its kernel log status (tests/verdicts.tsv says what each test asserts)
# (make test-debug: beside make test's kernels, whose boots it follows)
vk=()
if [ "${HOST_CHECKS:-1}" = 0 ]; then
	for k in $LAB_KERNELS; do
		[ -f "$build/vm/test-$k.tap" ] && vk+=("$k")
	done
fi
echo "== verdicts per scenario and kernel ($build/vm/VERDICTS.md)"
"$here/verdict-table.py" "$build/vm" "${vk[@]}" "$@"

if ! boots_failures; then
	echo "== boots whose guest failed or was lost ($BOOT_FAILURES)"
	boots_list
fi
echo "== summary"
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
