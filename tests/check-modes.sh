#!/bin/bash
# tests/check-modes.sh: TAP: every file git tracks that starts with #! is
# executable in git's index, since make test and the guest run them by
# path: a script committed without its mode fails only on a fresh clone
# ("Permission denied"), never in the checkout that wrote it. The index
# is what a commit takes, so both the mode and the first bytes are read
# from it, not from the working tree.
set -u
lab=$(cd "$(dirname "$0")/.." && pwd)
cd "$lab" || exit 1
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "1..0"
	echo "# SKIP $lab is not a git checkout: no index to read modes from"
	exit 0
fi
bad=()
while IFS= read -r -d '' entry; do
	mode=${entry%% *}
	path=${entry#*$'\t'}
	# symlinks (120000) and submodules (160000) have no mode of their own
	[ "$mode" = 100644 ] || continue
	[ "$(git cat-file blob ":$path" | head -c 2)" = '#!' ] && bad+=("$path")
done < <(git ls-files -s -z)
echo "1..1"
if [ ${#bad[@]} = 0 ]; then
	echo "ok 1 - every tracked file with a #! line is executable"
	exit 0
fi
echo "not ok 1 - every tracked file with a #! line is executable"
for f in "${bad[@]}"; do echo "#   not executable in git: $f (git update-index --chmod=+x '$f')"; done
exit 1
