#!/bin/bash
# tests/kselftest-sensitivity.sh [NAME...]: show that the kselftest cases
# of the task restrictions and the filters (tests/task-restrict.c,
# tests/bpf-filter.c) catch a wrong kernel, as diff-sensitivity.sh does
# for the differential. Each tests/planted-kselftest/NAME.patch (default:
# all) is a bug planted in the patched kernel, never part of the series;
# its "Caught-by: BINARY CASE" line names the test binary and the case
# that must fail ("*": any of its cases, for a bug whose symptom moves). First a control: patched itself runs both binaries, and
# each named case must pass there. Then for each bug: branch plant-NAME of
# build/linux is patched plus the bug, built as a kernel (three to four
# minutes, seeded from patched through ccache), booted once to run that
# binary; the named case must fail, or the kernel must log a fault of its
# own making (a refcount_t warning, a KASAN report, a BUG or WARNING).
# Prints TAP, one line per bug. Results under
# build/vm/kselftest-sensitivity/. Not in CI: about four minutes per bug
# on 2 cores under TCG.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
tree=$build/linux
top=$build/vm/kselftest-sensitivity
. "$here/plant.sh"
. "$lab/vm/lib.sh"
. "$lab/vm/boots.sh"
mapfile -t names < <(planted_names "$here/planted-kselftest" "$@")
log() { printf '[kselftest-sensitivity] %s\n' "$*"; }

make -C "$lab" -s kernels test-bin >/dev/null || exit 2
mkdir -p "$top"

# boot KERNEL OUT BIN: BIN's TAP in OUT/tap.txt, the console in OUT/vm
boot() {
	rm -rf "$2"
	mkdir -p "$2"
	BOOT_RUN='' BOOT_LOGS=$2 boot_guest vm "$1" TIMEOUT=900 -- \
		bash -c "cp '$build/tests/$3' /tmp/t && cd /tmp && LAB_KERNEL=patched ./t" \
		2>&1 | tr -d '\r' >"$2/tap.txt"
}
# the case names a TAP line of the kselftest harness carries; "*": any
failed_case() {
	if [ "$2" = "*" ]; then grep -q "^not ok " "$1"; else
		grep -q "^not ok [0-9]* [a-z_]*\.\{0,1\}$2\$" "$1"; fi
}
passed_case() {
	if [ "$2" = "*" ]; then ! grep -q "^not ok " "$1" && grep -q "^ok " "$1"; else
		grep -q "^ok [0-9]* [a-z_]*\.\{0,1\}$2\$" "$1"; fi
}
# a fault the kernel logged: what only a kernel bug prints
fault_of() {
	tr -d '\r' <"$1" | grep -E '^\[ *[0-9]+\.[0-9]+\] ' |
		grep -E 'refcount_t|KASAN|BUG:|WARNING:|general protection' | head -1
}

# control: every case a bug names passes on patched, with no fault
for bin in $(sed -n 's/^Caught-by: \([^ ]*\) .*/\1/p' "$here"/planted-kselftest/*.patch | sort -u); do
	log "control: $bin on patched"
	boot patched "$top/control-$bin" "$bin"
	for p in "$here"/planted-kselftest/*.patch; do
		read -r b c <<<"$(sed -n 's/^Caught-by: //p' "$p" | head -1)"
		[ "$b" = "$bin" ] || continue
		if ! passed_case "$top/control-$bin/tap.txt" "$c"; then
			log "control: $bin $c does not pass on patched (see $top/control-$bin): nothing to show"
			exit 2
		fi
	done
	if f=$(fault_of "$top/control-$bin/vm/console.log") && [ -n "$f" ]; then
		log "control: patched logged a fault running $bin: $f"
		exit 2
	fi
done

echo "1..${#names[@]}"
i=0 rc=0
for name in "${names[@]}"; do
	i=$((i + 1))
	patch=$here/planted-kselftest/$name.patch
	out=$top/$name
	t0=$(date +%s)
	read -r bin case <<<"$(sed -n 's/^Caught-by: //p' "$patch" | head -1)"
	log "$name ($i of ${#names[@]}): $(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$patch")"
	if [ -z "$bin" ] || [ -z "$case" ] || [ ! -x "$build/tests/$bin" ]; then
		echo "not ok $i - $name: no \"Caught-by: BINARY CASE\" line naming a test binary"
		rc=1
		continue
	fi
	plant "$name" "$patch" "$top/$name.build.log"
	case $? in
	1) echo "not ok $i - $name: the planted patch does not apply to patched"; rc=1; continue ;;
	2) echo "not ok $i - $name: the kernel did not build (see $top/$name.build.log)"; rc=1; continue ;;
	esac
	boot "plant-$name" "$out" "$bin"
	fault=$(fault_of "$out/vm/console.log")
	failed=$(grep -c '^not ok' "$out/tap.txt")
	if failed_case "$out/tap.txt" "$case"; then
		echo "ok $i - $name: $bin $case failed ($failed cases failed in all)${fault:+; kernel log: $fault}; $(($(date +%s) - t0)) s"
	elif [ -n "$fault" ]; then
		echo "ok $i - $name: the kernel log caught it ($fault); $bin: $failed cases failed; $(($(date +%s) - t0)) s"
	else
		echo "not ok $i - $name: $bin $case passed and the kernel logged no fault ($failed cases failed)"
		rc=1
	fi
done
log "done"
exit $rc
