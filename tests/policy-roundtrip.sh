#!/bin/bash
# tests/policy-roundtrip.sh KERNEL OUT [NAME...]: inside a lab guest, the
# round trip of tracing/policy-record.sh on each program of
# tests/policy-workloads.sh (NAME...: a subset; default all), TAP:
#   1. record it (unrestricted) into OUT/NAME/: its least policy;
#   2. rerun it under bench/uring-restrict with that policy, recorded again:
#      it must exit as it did, with no -EACCES, and every ring it sets up
#      must have got its policy (a ring the wrapper cannot reach fails);
#   3. rerun it under the policy less its busiest opcode (dropped.txt),
#      under the denial tracer (tracing/opcodes.bt): it must name exactly
#      that opcode's SQEs as refused with -EACCES;
#   4. on a kernel with BPF filters, the same under the policy whose
#      filters allow that opcode only with flags it never used, its
#      allow-list entry kept (filter-miss.txt): the filters must refuse.
# A kernel without BPF filters (upstream, baseline) gets the allow-lists
# only (uring-restrict -a); a kernel without restrictions is skipped.
# Then the inputs a user gets wrong, each a clear error: a command that
# sets up no ring, a policy file with a typo, a program that forks (its
# children's rings are recorded and restricted per process); BAD_INPUTS=0
# leaves them out (tests/policy-sensitivity.sh's plant runs).
set -u
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
kernel=$1 out=$2
shift 2
. "$here/tap.sh"
. "$lab/bench/lib.sh"
export PROGRESS_TAG=policy BENCH_CLOCK_FILE=$out/.clock
mkdir -p "$out" /tmp/pr && out=$(cd "$out" && pwd) || exit 1
export RB=/tmp/pr/ringbench FIO_JOBS=$lab/fio-jobs IMG=/tmp/pr/img.raw
cp "$build/bench/ringbench" "$RB" && cp "$(command -v fio)" /tmp/fio || exit 1
qemu-img create -q -f raw "$IMG" 64M || exit 1
. "$here/policy-workloads.sh"
wrap=$lab/bench/uring-restrict
record=$lab/tracing/policy-record.sh
bt=$lab/tracing/bt-run.sh
export PYTHONPATH=$lab
# python3 -m imports from the working folder first: this lab's uringlab/
cd "$lab" || exit 1

if [ "$(ring_kinds "$RB")" = 0 ]; then
	echo "1..0 # SKIP $kernel has no ring restrictions"
	exit 0
fi
allow=()
"$RB" -w nop -r 2 -F allow -n 32 -W 0 >/dev/null 2>&1
[ $? = 77 ] && allow=(-a)
mode=$([ ${#allow[@]} = 0 ] && echo "allow-lists and filters" || echo "allow-lists only")

want=("$@")
sel=()
for w in "${policy_workloads[@]}"; do
	name=${w%%|*}
	if [ ${#want[@]} = 0 ] || [[ " ${want[*]} " == *" $name "* ]]; then
		sel+=("$w")
	fi
done
steps=$([ ${#allow[@]} = 0 ] && echo 4 || echo 3)
bad=$([ "${BAD_INPUTS:-1}" = 0 ] && echo 0 || echo 4)
echo "1..$((steps * ${#sel[@]} + bad))"
echo "# $kernel: $mode; ${#sel[@]} programs"
i=0
for w in "${sel[@]}"; do
	name=${w%%|*}
	cmd=${w#*|*|}
	d=$out/$name
	rm -rf "$d"
	mkdir -p "$d"
	progress "$kernel round trip" "$i" "${#sel[@]}" >&2
	i=$((i + 1))
	eval "set -- $cmd"
	"$record" "$d" -- "$@" >"$d/record.log" 2>&1
	rc=$?
	[ "$rc" = 0 ]
tap $? "$name: recorded, its policy made ($(grep -c '^ring=' "$d/policy.txt" 2>/dev/null) ring sections)" "$d/record.log"
	status=$(cat "$d/status" 2>/dev/null)
	# the rerun, restricted, recorded again
	mkdir -p "$d/rerun"
	"$lab/tracing/bt-command.sh" "$d/rerun" "$wrap" "${allow[@]}" -f "$d/policy.txt" -- "$@"
	"$bt" "$lab/tracing/policy-record.bt" "$d/rerun/record.json" -- bash "$d/rerun/command.sh" \
		>"$d/rerun.log" 2>&1
	(
		python3 -m uringlab.policy_check passed "$d/record.json" "$d/rerun/record.json"
		c=$?
		s=$(cat "$d/rerun/status" 2>/dev/null)
		[ "$s" = "$status" ] || { echo "policy_check: the rerun exited $s, the recording $status"; c=1; }
		exit $c
	) >"$d/rerun.verdict" 2>&1
	[ $? = 0 ]
tap $? "$name: restricted by its policy, it runs as recorded: $(tail -1 "$d/rerun.verdict")" \
		"$d/rerun.verdict" "$d/rerun.log"
	# less one entry: the denial tracer names it
	top=$(sed -n '1s/^# //p' "$d/dropped.txt" 2>/dev/null)
	for v in dropped filter-miss; do
		[ $v = filter-miss ] && [ ${#allow[@]} != 0 ] && continue
		what=$([ $v = dropped ] && echo "without $top" || echo "with $top's filters made to miss")
		if [ -z "$top" ] && [ "$rc" = 0 ]; then
			n=$((n + 1))
			echo "ok $n - $name: $v # SKIP it submits no SQE: no opcode to drop"
			continue
		fi
		mkdir -p "$d/$v"
		"$lab/tracing/bt-command.sh" "$d/$v" "$wrap" "${allow[@]}" -f "$d/$v.txt" -- "$@"
		"$bt" "$lab/tracing/opcodes.bt" "$d/$v/opcodes.json" -- bash "$d/$v/command.sh" \
			>"$d/$v.log" 2>&1
		python3 -m uringlab.policy_check denied "$d/$v/opcodes.json" "${top:-?}" >"$d/$v.verdict" 2>&1
		[ $? = 0 ]
		tap $? "$name: $what it is refused: $(tail -1 "$d/$v.verdict") (exit status $(cat "$d/$v/status" 2>/dev/null))" \
			"$d/$v.verdict"
	done
done

# the inputs a user gets wrong
[ "$bad" = 0 ] && exit 0
d=$out/bad
mkdir -p "$d"
"$record" "$d/no-ring" -- "$RB" -w fork -n 10 -W 1 >"$d/no-ring.log" 2>&1
rc=$?
grep -q "set up no io_uring ring" "$d/no-ring.log"
[ "$rc.$?" = 1.0 ]
tap $? "a command that sets up no ring: exit 1, 'set up no io_uring ring'" "$d/no-ring.log"
printf 'ring=1\nsqe_op=nop\nsqe_op=reed\n' >"$d/typo.txt"
"$wrap" -f "$d/typo.txt" -- "$RB" -w nop -n 10 -W 1 >"$d/typo.log" 2>&1
rc=$?
grep -q "typo.txt:3: 'sqe_op=reed': 'reed' is not a known SQE opcode.*did you mean 'read'" "$d/typo.log"
[ "$rc.$?" = 2.0 ]
tap $? "a policy file with a typo: exit 2 before the program runs, naming line 3 and 'read'" "$d/typo.log"
"$record" "$d/missing" -- /nonexistent/program >"$d/missing.log" 2>&1
rc=$?
grep -q "no program '/nonexistent/program'" "$d/missing.log"
[ "$rc.$?" = 2.0 ]
tap $? "a program that does not exist: exit 2, named" "$d/missing.log"
# a program that forks: each child's ring is ring 1 of its own process
cat >"$d/forks.sh" <<EOF
#!/bin/bash
$RB -w nop -b 4 -n 200 -W 10 & $RB -w socket -b 4 -n 100 -W 10 & wait
EOF
chmod +x "$d/forks.sh"
"$record" "$d/forks" -- bash "$d/forks.sh" >"$d/forks.log" 2>&1
mkdir -p "$d/forks/rerun"
"$lab/tracing/bt-command.sh" "$d/forks/rerun" "$wrap" "${allow[@]}" -f "$d/forks/policy.txt" -- bash "$d/forks.sh"
"$bt" "$lab/tracing/policy-record.bt" "$d/forks/rerun/record.json" -- bash "$d/forks/rerun/command.sh" >>"$d/forks.log" 2>&1
python3 -m uringlab.policy_check passed "$d/forks/record.json" "$d/forks/rerun/record.json" >>"$d/forks.log" 2>&1
rc=$?
grep -q "^sqe_op=nop" "$d/forks/policy.txt" && grep -q "^sqe_op=socket" "$d/forks/policy.txt" &&
	grep -q "ring 1 is the ring number 1 of 2 processes" "$d/forks.log"
[ "$rc.$?" = 0.0 ]
tap $? "a program that forks: both children's rings recorded as ring 1 (NOP and SOCKET), said so, and restricted" "$d/forks.log"
