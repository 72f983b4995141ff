#!/bin/bash
# make fuzz: the differential test's long mode. One boot each of patched
# and upstream runs restrict-diff over FUZZ_SQES SQEs (default a million,
# eight per case) from FUZZ_SEED (default: the time, printed); the answers
# must agree (tests/diff-answers.py). On a difference it prints the seed,
# the case and the command that replays it, and minimises the case
# (tests/minimise-diff.py). Answers under build/vm/fuzz-SEED/.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
. "$lab/vm/lib.sh"
. "$lab/vm/boots.sh"
seed=${FUZZ_SEED:-$(date +%s)}
sqes=${FUZZ_SQES:-1000000}
per=8
cases=$(((sqes + per - 1) / per))
out=$build/vm/fuzz-$seed
rm -rf "$out"
mkdir -p "$out"
echo "== fuzz: seed $seed, $cases cases of $per SQEs ($((cases * per)) SQEs), answers in $out; progress every 10000 cases"
BOOT_RUN= BOOT_LOGS=$out
boots_start fuzz kernel 2
for k in patched upstream; do
	start=$(date +%s)
	boots_next "$k"
	# a million SQEs take upstream about 12 min under TCG (its stalls
	# wait out their timeouts): past the runner's default 600 s
	boot_guest "$k" "$k" TIMEOUT="${TIMEOUT:-$((600 + cases / 50))}" -- "$here/diff-guest.sh" \
		"$build/tests/restrict-diff" "$out/$k.txt" -s "$seed" -n "$cases" -k "$per" -p 10000 |
		sed -u -n -e 's/\r$//' -e '/^\(# restrict-diff\|vm:\)/p'
	if [ -s "$out/$k.txt" ]; then
		echo "$k: $(tail -1 "$out/$k.txt" | sed 's/^# //') in $(($(date +%s) - start)) s"
	else
		echo "fuzz: no answers from $k (boot or run lost; see $out/$k/console.log)"
	fi
done
boots_failures || boots_list
for k in patched upstream; do [ -s "$out/$k.txt" ] || exit 1; done
if verdict=$("$here/diff-answers.py" "$out/patched.txt" "$out/upstream.txt"); then
	echo "fuzz seed $seed: $verdict"
	exit 0
fi
echo "fuzz seed $seed: patched and upstream DISAGREE"
printf '%s\n' "$verdict" | cut -c1-400
line=$(printf '%s\n' "$verdict" | sed -n 's/^< //p' | head -1)
id=$(printf '%s\n' "$line" | sed -n 's/^case \([0-9]*\) .*/\1/p')
[ -n "$id" ] && echo "replay it: restrict-diff -s $seed -c $id (in a guest of each kernel)"
[ -n "$line" ] && "$here/minimise-diff.py" "$line" "$out/minimise"
exit 1
