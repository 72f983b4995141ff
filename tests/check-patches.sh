#!/bin/bash
# TAP: every patch of every series is checkpatch.pl --strict clean (the
# series applying with git am is checked when the tree is prepared).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
tree=${BUILD:-$lab/build}/linux

patches=()
for s in baseline restrictions; do
	while IFS= read -r p; do
		[ -n "$p" ] && patches+=("kernel-patches/$s/$p")
	done <"$lab/kernel-patches/$s/series"
done

echo "1..${#patches[@]}"
i=0 rc=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	# From inside the kernel tree: run in this repository, checkpatch.pl
	# sees a git-tracked .patch as a source file and checks it as one.
	# UNKNOWN_COMMIT_ID: the tree is Debian's source package, which has
	# no history for a Fixes: tag's mainline id to be found in.
	# Debian's python3 first: checkpatch runs scripts/spdxcheck.py on new
	# files, which needs python3-ply and python3-git (make deps), not a
	# python3 that a user's PATH may put first (pyenv on the lab's
	# machines)
	out=$(cd "$tree" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --terse \
		--ignore UNKNOWN_COMMIT_ID "$lab/$p" 2>&1)
	if [ -z "$out" ]; then
		echo "ok $i - checkpatch --strict: $p"
	else
		echo "not ok $i - checkpatch --strict: $p"
		echo "$out" | sed 's/^/  /' >&2
		rc=1
	fi
done
exit $rc
