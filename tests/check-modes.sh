#!/bin/bash
# tests/check-modes.sh: TAP: every file git tracks that starts with #! is
# executable in git's index, since make test and the guest run them by
# path: a script committed without its mode fails only on a fresh clone
# ("Permission denied"), never in the checkout that wrote it.
set -u
lab=$(cd "$(dirname "$0")/.." && pwd)
cd "$lab" || exit 1
bad=()
while read -r mode path; do
	[ "$mode" = 100644 ] || continue
	[ "$(head -c 2 -- "$path" 2>/dev/null)" = '#!' ] && bad+=("$path")
done < <(git ls-files -s | awk '{ print $1, $4 }')
echo "1..1"
if [ ${#bad[@]} = 0 ]; then
	echo "ok 1 - every tracked file with a #! line is executable"
	exit 0
fi
echo "not ok 1 - every tracked file with a #! line is executable"
for f in "${bad[@]}"; do echo "#   not executable in git: $f (git update-index --chmod=+x $f)"; done
exit 1
