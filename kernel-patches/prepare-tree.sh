#!/bin/bash
# Turn Debian's linux-source-6.1 into a git tree with one branch per kernel:
#   upstream  the packaged tree, untouched
#   baseline  upstream + kernel-patches/baseline   (restrictions stripped)
#   patched   baseline + kernel-patches/restrictions (our series)
# Branches are rebuilt only when their series changed, so an unchanged tree
# keeps its mtimes and the kernels stay incremental.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$(cd "$here/.." && pwd)/build}
tree=$build/linux
tarball=/usr/src/linux-source-6.1.tar.xz

log() { printf '[tree] %s\n' "$*"; }

if [ ! -f "$tarball" ]; then
	log "installing linux-source-6.1 (Debian's kernel tree)"
	apt-get install -y -q linux-source-6.1 >/dev/null
fi

# series_sum BASE DIR: what a branch built from BASE and DIR's series records
series_sum() {
	(git -C "$tree" rev-parse "$1"; cd "$here/$2" && cat series $(cat series)) | sha1sum | cut -c1-40
}
# Nothing to do: no lock needed (a sanitizer kernel building from its own
# checkout asks while a production kernel compiles from this one).
if git -C "$tree" rev-parse -q --verify refs/heads/patched >/dev/null 2>&1 &&
	[ "$(git -C "$tree" config --get lab.baseline)" = "$(series_sum refs/heads/upstream baseline)" ] &&
	[ "$(git -C "$tree" config --get lab.patched)" = "$(series_sum refs/heads/baseline restrictions)" ]; then
	exit 0
fi
# The branches change under build-kernel.sh's lock of the main checkout,
# never while a kernel compiles from it.
mkdir -p "$build"
exec 9>"$tree.lock"
flock 9

if ! git -C "$tree" rev-parse -q --verify refs/heads/upstream >/dev/null 2>&1; then
	t0=$SECONDS
	rm -rf "$tree" "$build/linux-source-6.1"
	mkdir -p "$build"
	log "extracting $tarball (about 20 s)"
	tar -C "$build" -xJf "$tarball"
	mv "$build/linux-source-6.1" "$tree"
	log "recording the packaged tree as branch 'upstream' (about 40 s)"
	git -C "$tree" init -q -b upstream
	git -C "$tree" config gc.auto 0
	git -C "$tree" add -A -f  # Debian's .gitignore ignores the whole top level
	git -C "$tree" -c user.name=lab -c user.email=lab@localhost \
		commit -q -m "Debian linux-source-$(dpkg-query -W -f='${Version}' linux-source-6.1)"
	log "tree ready in $((SECONDS - t0)) s"
fi

# apply_series BRANCH BASE DIR: (re)create BRANCH as BASE + DIR's series,
# unless BRANCH already records the same base commit and series hash.
apply_series() {
	local branch=$1 base=$2 dir=$here/$3
	local base_rev sum stamp
	sum=$(series_sum "$base" "$3")
	stamp=$(git -C "$tree" config --get "lab.$branch" || true)
	if [ "$stamp" = "$sum" ] && git -C "$tree" rev-parse -q --verify "$branch" >/dev/null; then
		return 0
	fi
	log "applying kernel-patches/$3 onto $base as branch $branch"
	git -C "$tree" am --abort >/dev/null 2>&1 || true
	git -C "$tree" checkout -q -B "$branch" "$base"
	[ -s "$dir/series" ] || { git -C "$tree" config "lab.$branch" "$sum"; return 0; }
	(cd "$dir" && git -C "$tree" am -q --whitespace=error-all $(sed "s|^|$dir/|" series)) || {
		git -C "$tree" am --abort >/dev/null 2>&1 || true
		echo "error: kernel-patches/$3 does not apply with git am" >&2
		exit 1
	}
	git -C "$tree" config "lab.$branch" "$sum"
}

apply_series baseline refs/heads/upstream baseline
apply_series patched refs/heads/baseline restrictions
