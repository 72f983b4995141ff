# tests/plant.sh, sourced by diff-sensitivity.sh and kselftest-sensitivity.sh:
# a bug planted in patched built as kernel plant-NAME, and build/linux put
# back on patched however the script ends. Needs $tree (build/linux).

# the names of DIR's planted patches, or the arguments if any were given
planted_names() {
	local dir=$1 p
	shift
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@"
		return
	fi
	for p in "$dir"/*.patch; do
		p=${p##*/}
		echo "${p%.patch}"
	done
}

# plant-NAME is checked out in build/linux while it is made: put patched
# back on every way out, a kill included
restore() {
	(flock 9 && git -C "$tree" am --abort >/dev/null 2>&1
		git -C "$tree" checkout -q patched) 9>"$tree.lock"
}
trap restore EXIT
trap 'exit 130' INT TERM

# plant NAME PATCH LOG: branch plant-NAME is patched plus PATCH, built as a
# kernel (build-kernel.sh checks the branch out itself, under the lock);
# 1: PATCH does not apply, 2: the kernel did not build (see LOG)
plant() {
	# the branch changes under the main checkout's lock, as in prepare-tree.sh
	if ! (flock 9 && git -C "$tree" checkout -q -B "plant-$1" patched &&
		git -C "$tree" -c user.name=lab -c user.email=lab@localhost am -q "$2") 9>"$tree.lock"; then
		restore
		return 1
	fi
	restore
	"$lab/kernel-patches/build-kernel.sh" "plant-$1" >"$3" 2>&1 || return 2
}
