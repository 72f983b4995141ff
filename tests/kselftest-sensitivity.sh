#!/bin/bash
# tests/kselftest-sensitivity.sh [NAME...]: show that the kselftest cases
# of the task restrictions and the filters (tests/task-restrict.c,
# tests/bpf-filter.c) catch a wrong kernel, as diff-sensitivity.sh does
# for the differential. Each tests/planted-kselftest/NAME.patch (default:
# all) is a bug planted in the patched kernel, never part of the series;
# its "Caught-by: BINARY CASE" line names the test binary and the case
# that must fail. For each: branch plant-NAME of build/linux is patched
# plus the bug, built as a kernel (a minute or two, seeded from patched
# through ccache), booted once to run that binary; the named case must
# fail, or the kernel must log a fault (a refcount warning, a BUG), which
# every boot's log check reports. Prints TAP, one line per bug. Results
# under build/vm/kselftest-sensitivity/NAME/. Not in CI: about two
# minutes per bug on 2 cores under TCG.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
tree=$build/linux
top=$build/vm/kselftest-sensitivity
names=("$@")
if [ ${#names[@]} = 0 ]; then
	for p in "$here"/planted-kselftest/*.patch; do
		n=${p##*/}
		names+=("${n%.patch}")
	done
fi
log() { printf '[kselftest-sensitivity] %s\n' "$*"; }

make -C "$lab" -s kernels test-bin >/dev/null || exit 2
mkdir -p "$top"

# plant-NAME is checked out in build/linux while its kernel builds: put
# patched back on every way out, a kill included
restore() {
	(flock 9 && git -C "$tree" am --abort >/dev/null 2>&1
		git -C "$tree" checkout -q patched) 9>"$tree.lock"
}
trap restore EXIT
trap 'exit 130' INT TERM

echo "1..${#names[@]}"
i=0 rc=0
for name in "${names[@]}"; do
	i=$((i + 1))
	patch=$here/planted-kselftest/$name.patch
	out=$top/$name
	t0=$(date +%s)
	read -r bin case <<<"$(sed -n 's/^Caught-by: //p' "$patch" | head -1)"
	log "$name ($i of ${#names[@]}): $(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$patch")"
	if [ -z "$bin" ] || [ ! -x "$build/tests/$bin" ]; then
		echo "not ok $i - $name: no Caught-by test binary in the patch"
		rc=1
		continue
	fi
	if ! (flock 9 && git -C "$tree" checkout -q -B "plant-$name" patched &&
		git -C "$tree" -c user.name=lab -c user.email=lab@localhost am -q "$patch") 9>"$tree.lock"; then
		restore
		echo "not ok $i - $name: the planted patch does not apply to patched"
		rc=1
		continue
	fi
	restore
	rm -rf "$out"
	mkdir -p "$out"
	if ! "$lab/kernel-patches/build-kernel.sh" "plant-$name" >"$out/build.log" 2>&1; then
		echo "not ok $i - $name: the kernel did not build (see $out/build.log)"
		rc=1
		continue
	fi
	# the binary from tmpfs, as guest-run.sh runs it; its TAP into $out
	KERNEL=plant-$name VM_OUT=$out/vm TIMEOUT=900 "$lab/vm/run.sh" -- \
		bash -c "cp '$build/tests/$bin' /tmp/t && cd /tmp && LAB_KERNEL=patched ./t" \
		2>&1 | tr -d '\r' >"$out/tap.txt"
	fault=$("$lab/vm/klog-check.sh" "$out/vm/console.log" 2>/dev/null | head -1)
	failed=$(grep -c '^not ok' "$out/tap.txt")
	if grep -q "^not ok [0-9]* [a-z_]*\.\{0,1\}$case\$" "$out/tap.txt"; then
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
