#!/bin/bash
# tests/policy-sensitivity.sh [NAME...]: show that the policy round trip
# (tests/policy-roundtrip.sh) catches a wrong recorder, generator, filter
# compiler or wrapper, as kselftest-sensitivity.sh does for the kernel.
# Each tests/planted-policy/NAME.patch (default: all) is a bug in the
# lab's own code; its "Programs:" line names the programs to run and its
# "Caught-by:" line the TAP description (a prefix) that must fail. Each
# plant goes into a scratch copy of this checkout's files
# (build/policy-plant/NAME, built against build/'s kernels); one boot of
# patched then runs the round trip of every plant's programs with its own
# copy, after a control run of the unplanted checkout in which each named
# line must pass. Prints TAP, one line per plant. Not in CI: each program
# of a plant is three or four bpftrace runs, about half a minute each under
# TCG (the control runs every plant's programs once).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
top=$build/policy-plant
. "$here/plant.sh" 2>/dev/null || true
trap - EXIT
. "$lab/vm/lib.sh"
mapfile -t names < <(planted_names "$here/planted-policy" "$@")
log() { printf '[policy-sensitivity] %s\n' "$*"; }
field() { sed -n "s/^$1: //p" "$here/planted-policy/$2.patch"; }

if [ "${1:-}" = --guest ]; then
	# in the guest: ROOT NAME PROGRAMS... for each plant, as the host wrote them
	while IFS='|' read -r root name progs; do
		# shellcheck disable=SC2086
		# from the copy's own root: python3 -m imports from the working
		# folder first, and a plant in uringlab/ must be the one imported
		(cd "$root" && BUILD=$root/build BAD_INPUTS=0 "$root/tests/policy-roundtrip.sh" patched \
			"$top/$name.out" $progs >"$top/$name.tap" 2>"$top/$name.err" </dev/null)
	done <"$top/runs"
	exit 0
fi

# the guest sees this checkout only: a build/ elsewhere is not there
case $(readlink -f "$top") in
"$lab"/*) ;;
*) log "$top is outside $lab, which is all the guest sees"; exit 2 ;;
esac
make -C "$lab" -s kernels bench-bin >/dev/null || exit 2
rm -rf "$top"
mkdir -p "$top"
: >"$top/runs"
copy() { # DIR: this checkout's tracked files, as they are now, built against build/
	local d=$1 f
	mkdir -p "$d/build/bench"
	git -C "$lab" ls-files -z | (cd "$lab" && tar --null -T - -cf -) | tar -x -C "$d" ||
		{ log "cannot copy the checkout to $d"; exit 2; }
	for f in linux out uapi nvme.img bzImage-patched; do
		ln -s "$build/$f" "$d/build/$f"
	done
}
all_progs=
for name in control "${names[@]}"; do
	d=$top/$name
	copy "$d"
	if [ "$name" != control ]; then
		patch -s -p1 -d "$d" <"$here/planted-policy/$name.patch" || { log "$name: does not apply"; exit 2; }
		all_progs="$all_progs $(field Programs "$name")"
		echo "$d|$name|$(field Programs "$name")" >>"$top/runs"
	fi
	make -C "$d" -s bench-bin BUILD="$d/build" >"$top/$name.build" 2>&1 ||
		{ log "$name: does not build (see $top/$name.build)"; exit 2; }
done
# the control first: the same programs, unplanted
progs=$(tr ' ' '\n' <<<"$all_progs" | sed '/^$/d' | sort -u | tr '\n' ' ')
{ echo "$top/control|control|$progs"; cat "$top/runs"; } >"$top/runs.tmp" && mv "$top/runs.tmp" "$top/runs"
log "${#names[@]} plants, one boot of patched (programs: $progs)"
# a bpftrace run is about half a minute: four for each program of each run
nprog=$(awk -F'|' '{ n += split($3, a, " ") } END { print n }' "$top/runs")
VM_OUT=$top/vm KERNEL=patched TIMEOUT=${TIMEOUT:-$((600 + 4 * 60 * nprog))} "$lab/vm/run.sh" -- "$here/policy-sensitivity.sh" --guest \
	>"$top/vm.log" 2>&1 || log "the boot failed: $top/vm.log"

i=0
echo "1..${#names[@]}"
for name in "${names[@]}"; do
	i=$((i + 1))
	caught=$(field Caught-by "$name")
	ctl=$(grep -E "^(ok|not ok) [0-9]+ - $caught" "$top/control.tap" | head -1)
	got=$(grep -E "^(ok|not ok) [0-9]+ - $caught" "$top/$name.tap" | head -1)
	if [[ $ctl != ok* ]]; then
		echo "not ok $i - $name: the control does not pass '$caught' (${ctl:-no such line})"
	elif [[ $got == "not ok"* ]]; then
		echo "ok $i - $name: caught by '$caught'"
	else
		echo "not ok $i - $name: not caught: ${got:-no line '$caught'}"
	fi
done
