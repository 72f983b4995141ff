#!/bin/bash
# tests/diff-sensitivity.sh [NAME...]: show that the differential test
# (tests/restrict-diff.c, judged by tests/diff-answers.py) and drain-order
# catch a wrong kernel, as tests/gate-sensitivity.sh does for the gate.
# Each tests/planted/NAME.patch (default: all) is a bug planted in the
# patched kernel, never part of the series. For each: branch plant-NAME of
# build/linux is patched plus the bug, built as a kernel (about a minute,
# seeded from patched), booted once to run make test's restrict-diff
# stream (DIFF_SEED, DIFF_POLICIES) and drain-order judged as on patched.
# Its answers are compared with upstream's: they must differ. The first
# difference is printed with its seed and case, and minimised
# (tests/minimise-diff.py, one boot of each kernel per round).
# Prints TAP, one line per bug ("ok": the differential caught it), and
# what drain-order said. Results under build/vm/sensitivity/NAME/.
# Not in CI: 26 minutes for the six bugs on 2 cores under TCG, most of it
# minimising (MINIMISE=0 skips that: about 10 minutes).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
tree=$build/linux
seed=${DIFF_SEED:-1}
cases=${DIFF_POLICIES:-10000}
top=$build/vm/sensitivity
. "$here/plant.sh"
. "$lab/vm/lib.sh"
. "$lab/vm/boots.sh"
mapfile -t names < <(planted_names "$here/planted" "$@")
log() { printf '[sensitivity] %s\n' "$*"; }

make -C "$lab" -s kernels test-bin >/dev/null || exit 2
mkdir -p "$top"

# answers DIR KERNEL: restrict-diff and drain-order on KERNEL into DIR
answers() {
	rm -rf "$1"
	mkdir -p "$1"
	BOOT_RUN='' BOOT_LOGS=$1 boot_guest vm "$2" TIMEOUT=$((600 + cases / 50)) -- \
		"$here/sensitivity-guest.sh" "$build/tests" "$1" \
		-s "$seed" -n "$cases" -k 8 >"$1/vm.log" 2>&1
	[ -s "$1/diff.txt" ]
}

# upstream's answers to compare with, and patched's as the control: the
# differential must pass on the kernel the bugs are planted in
start=$(date +%s)
for k in upstream patched; do
	log "$k: restrict-diff seed $seed, $cases cases"
	answers "$top/$k" "$k" || { log "no answers from $k (see $top/$k/vm)"; exit 2; }
done
if ! verdict=$("$here/diff-answers.py" "$top/patched/diff.txt" "$top/upstream/diff.txt"); then
	log "patched itself differs from upstream: nothing to show"
	printf '%s\n' "$verdict" | cut -c1-400
	exit 2
fi
log "control: patched and upstream $(printf '%s' "$verdict" | cut -c1-60)..."

echo "1..${#names[@]}"
i=0 rc=0
for name in "${names[@]}"; do
	i=$((i + 1))
	patch=$here/planted/$name.patch
	out=$top/$name
	t0=$(date +%s)
	log "$name ($i of ${#names[@]}): $(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$patch")"
	plant "$name" "$patch" "$top/$name.build.log"
	case $? in
	1) echo "not ok $i - $name: the planted patch does not apply to patched"; rc=1; continue ;;
	2) echo "not ok $i - $name: the kernel did not build (see $top/$name.build.log)"; rc=1; continue ;;
	esac
	if ! answers "$out" "plant-$name"; then
		echo "not ok $i - $name: no answers (boot lost? see $out/vm)"
		rc=1
		continue
	fi
	order=$(grep -c '^not ok' "$out/drain-order.tap")
	if verdict=$("$here/diff-answers.py" "$out/diff.txt" "$top/upstream/diff.txt"); then
		echo "not ok $i - $name: the differential did not catch it ($verdict; drain-order: $order failed)"
		rc=1
		continue
	fi
	line=$(printf '%s\n' "$verdict" | sed -n 's/^< //p' | head -1)
	id=$(printf '%s\n' "$line" | sed -n 's/^case \([0-9]*\) .*/\1/p')
	why=$(printf '%s\n' "$verdict" | sed -n '1s/^differ at line [0-9]* (\(.*\)):$/\1/p')
	echo "ok $i - $name: caught at seed $seed case ${id:-?} ($why); drain-order: $order of $(grep -c '^\(not \)\{0,1\}ok' "$out/drain-order.tap") failed; $(($(date +%s) - t0)) s"
	printf '%s\n' "$verdict" | sed -n '2,3p' | cut -c1-300 | sed 's/^/#   /'
	if [ "${MINIMISE:-1}" = 1 ] && [ -n "$line" ]; then
		PATCHED=plant-$name "$here/minimise-diff.py" "$line" "$out/minimise" |
			grep -v '^# minimise round' | sed 's/^/#   /'
	fi
done
log "done in $(($(date +%s) - start)) s"
exit $rc
