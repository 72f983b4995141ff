#!/bin/bash
# build-kernel.sh VARIANT...: build bzImage for baseline, patched, upstream
# or any other branch of build/linux.
#
# One source tree (build/linux, one branch per variant) and one output folder
# per variant (build/out/VARIANT). A sanitizer kernel (NAME-debug) builds
# from a second checkout of the same repository (build/linux-debug, a git
# worktree): its config recompiles everything anyway, and with its own
# checkout it can build in the background while the production kernels
# are built or booted (.ci/run) without a checkout pulling files from
# under either. Each checkout takes a lock (build/linux*.lock) per build. ccache with base_dir = the build folder
# makes every compile command path-independent, so a config change or a new
# clone recompiles only what really changed; a variant's first build starts
# from a copy of another variant's output, and a rebuild after a patch edit
# recompiles only what the patch touches.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$(cd "$here/.." && pwd)/build}
maintree=$build/linux
jobs=${JOBS:-$(($(nproc) + 1))}

export CCACHE_DIR=${CCACHE_DIR:-$build/ccache}
export CCACHE_BASEDIR=$build
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Kernel builds embed no timestamps we care about; keep hits across clones.
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
# Depend mode: a miss compiles once, from the compiler's own dependency
# file (kbuild's -Wp,-MMD), instead of running the preprocessor first to
# hash its output. A cold build (CI, a fresh clone) then costs what it
# would without ccache: the preprocessor pass cost a cold miss about 20 %
# more CPU (mm/page_alloc.c, shmem.c, vmalloc.c, memcontrol.c: 9.7 s of
# gcc alone, 12.1 s through ccache, 9.9 s in depend mode). Hits work as
# before: same source and headers, base_dir-relative paths.
export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
export KBUILD_BUILD_TIMESTAMP='2020-07-10'
export KBUILD_BUILD_USER=lab KBUILD_BUILD_HOST=uring-restrict-lab

log() { printf '[build %s] %s\n' "$variant" "$*"; }
phase() { "$here/../.ci/phase.sh" add "build $variant${2:+ ($2)}" "$1" "$(date +%s)" "${3:-ok}"; }

fmt_s() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# Filter kbuild's output into one progress line every 10 s (and keep the
# whole log): objects compiled so far, against the count of the last full
# build when there is one to compare with (a cold build). An incremental
# build (seeded, or after a patch edit) compiles an unknown few objects:
# it gets no estimate rather than a cold build's. Nor does a cold build's
# first 5 %: the early objects (host tools, headers) are not the rate.
progress() {
	local logf=$1 ref=$2 t0=$SECONDS last=0 n=0 line
	: >"$logf"
	while IFS= read -r line; do
		printf '%s\n' "$line" >>"$logf"
		case "$line" in
		"  CC "*|"  AS "*) n=$((n + 1)) ;;
		*error*|*Error*) printf '%s\n' "$line" ;;
		esac
		if [ $((SECONDS - last)) -ge 10 ]; then
			last=$SECONDS
			local el=$((SECONDS - t0)) msg
			msg="$n objects, $(fmt_s $el) elapsed"
			if [ "$ref" -gt 0 ] && [ "$n" -ge $((ref / 20)) ] && [ "$n" -lt "$ref" ]; then
				msg="$n/$ref objects, $(fmt_s $el) elapsed, about $(fmt_s $((el * (ref - n) / n))) left"
			fi
			log "$msg"
		fi
	done
	echo "$n" >"$logf.count"
}

kmake() {
	make -C "$tree" O="$out" ARCH=x86_64 LOCALVERSION="-$variant" \
		CC="ccache gcc" HOSTCC="ccache gcc" -j"$jobs" "$@"
}

configure() {
	log "configuring: tinyconfig + ${fragments[*]#"$here/"} (merge_config.sh)"
	kmake -s tinyconfig >"$out/config.log" 2>&1 || { cat "$out/config.log"; exit 1; }
	local msgs
	msgs=$(cd "$out" && ARCH=x86_64 CC="ccache gcc" \
		"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" \
		"$out/.config" "${fragments[@]}" 2>&1) || { echo "$msgs"; exit 1; }
	# olddefconfig's "override changes choice state" notes are expected:
	# the fragment overrides tinyconfig's choices on purpose.
	kmake -s olddefconfig >>"$out/config.log" 2>&1 || { cat "$out/config.log"; exit 1; }
	# merge_config.sh -m does not verify; do it the way it does without -m
	# (a later fragment's value of a symbol wins, as in the merge)
	local bad=0 sym want got
	while IFS= read -r want; do
		sym=${want%%=*}
		got=$(grep -E "^$sym=|^# $sym is not set" "$out/.config" || true)
		if [ "$got" != "$want" ]; then
			echo "error: ${fragments[*]##*/} ask '$want' but the kernel has '${got:-nothing}'" >&2
			bad=1
		fi
	done < <(cat "${fragments[@]}" | grep -E '^CONFIG_' | tac | sort -s -u -t= -k1,1)
	[ "$bad" = 0 ] || exit 1
	cat "${fragments[@]}" >"$out/.lab.config"
}

"$here/prepare-tree.sh"

for variant in "$@"; do
	# the lab's three, or any other branch of build/linux: a developer's
	# own change, or one patch of the series alone, measured beside them;
	# NAME-debug is branch NAME with the sanitizers of debug.config
	branch=${variant%-debug}
	fragments=("$here/lab.config")
	[ "$branch" != "$variant" ] && fragments+=("$here/debug.config")
	if ! git -C "$maintree" rev-parse -q --verify "refs/heads/$branch" >/dev/null; then
		echo "error: unknown kernel '$variant' (baseline, patched, upstream or a branch of build/linux, each optionally NAME-debug)" >&2
		exit 2
	fi
	tree=$maintree
	if [ "$branch" != "$variant" ]; then
		tree=$build/linux-debug
		# a checkout of this repository, or none (a tree extracted
		# again, an interrupted add): check it out anew
		if [ "$(git -C "$tree" rev-parse --git-common-dir 2>/dev/null | xargs -r readlink -f)" != \
			"$(readlink -f "$maintree/.git")" ]; then
			log "checking out $branch as build/linux-debug (git worktree, about 30 s)"
			rm -rf "$tree"
			git -C "$maintree" worktree prune
			git -C "$maintree" worktree add -q --detach "$tree" "$branch"
		fi
	fi
	# one build per checkout at a time; the lock goes with this variant
	exec 9>"$tree.lock"
	flock 9
	out=$build/out/$variant
	# an output folder configured against another checkout would mix
	# two trees' dependency files: start it again
	if [ -e "$out/source" ] && [ "$(readlink -f "$out/source")" != "$(readlink -f "$tree")" ]; then
		log "build/out/$variant was built from $(readlink -f "$out/source"): building it again from ${tree#"$build"/}"
		rm -rf "$out"
	fi
	# Seed a new output folder from a built variant: all three share one
	# source tree and config, so only what the checkout below touches is
	# rebuilt (io_uring and its few includers) instead of ccache replaying
	# 1400 compiles.
	seeded=
	if [ ! -f "$out/vmlinux" ]; then
		for seed in "$build"/out/*/vmlinux; do
			[ -f "$seed" ] || continue
			seed=$(dirname "$seed")
			# another config recompiles everything, and another
			# checkout's dependency files name its sources: no use
			# copying either
			cat "${fragments[@]}" | cmp -s - "$seed/.lab.config" || continue
			[ "$(readlink -f "$seed/source")" = "$(readlink -f "$tree")" ] || continue
			log "seeding build/out/$variant from build/out/${seed##*/}"
			rm -rf "$out"
			cp -a "$seed" "$out"
			# objtool's own build records absolute output paths; a
			# stale path would rebuild objtool and, through it, every
			# object. Rewrite them, keeping the files' mtimes.
			grep -rlIZ "$seed/" "$out/tools" | while IFS= read -r -d '' f; do
				sed -i "s|$seed/|$out/|g" "$f"
				touch -r "$seed/${f#"$out"/}" "$f"
			done
			rm -f "$out/build.log.count"
			seeded=${seed##*/}
			break
		done
	fi
	mkdir -p "$out"
	t0=$SECONDS
	# the phase table's start (.ci/phase.sh): configuring included
	tb=$(date +%s)
	# Up to date: same branch commit and config as the last build, and no
	# local edits in the tree. Skipping also spares the checkout, whose
	# mtime changes would make the other variants recompile io_uring.
	stamp="$(git -C "$tree" rev-parse "refs/heads/$branch") $(cat "${fragments[@]}" | sha1sum | cut -c1-40)"
	if [ -f "$build/bzImage-$variant" ] && [ "$(cat "$out/.lab-stamp" 2>/dev/null)" = "$stamp" ] &&
		[ -s "$out/io_ring_ctx.size" ] &&
		[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; then
		log "up to date: build/bzImage-$variant ($(cat "$out/include/config/kernel.release"))"
		exec 9>&-
		continue
	fi
	rm -f "$out/.lab-stamp"
	# Only the files that differ between branches get new mtimes here.
	if [ "$tree" != "$maintree" ]; then
		# nobody edits this checkout: whatever differs is left over
		[ "$(git -C "$tree" rev-parse HEAD)" = "$(git -C "$tree" rev-parse "refs/heads/$branch")" ] &&
			[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
			git -C "$tree" checkout -q -f --detach "$branch"
	elif [ "$(git -C "$tree" symbolic-ref -q --short HEAD || true)" != "$branch" ]; then
		git -C "$tree" checkout -q "$branch"
	fi
	configured=0
	if [ ! -f "$out/.config" ] || ! cat "${fragments[@]}" | cmp -s - "$out/.lab.config"; then
		configure
		configured=1
	fi
	# ETA reference, for a build of everything only (no output yet, or a
	# new config): the last full build's count, else this config's usual one.
	kind=cold
	if [ -f "$out/vmlinux" ] && [ "$configured" = 0 ]; then
		kind=incremental
		[ -n "${seeded:-}" ] && kind="seeded from $seeded"
		ref=0
		log "compiling bzImage with $jobs jobs, incremental (log: build/out/$variant/build.log)"
	else
		ref=$(cat "$build"/out/*/build.log.count 2>/dev/null | sort -n | tail -1 || true)
		ref=${ref:-1420}
		log "compiling bzImage with $jobs jobs, cold: about $ref objects (log: build/out/$variant/build.log)"
	fi
	if ! kmake bzImage 2>&1 | progress "$out/build.log" "$ref"; then
		phase "$tb" "$kind" failed
		tail -30 "$out/build.log" >&2
		echo "error: building the $variant kernel failed; full log: $out/build.log" >&2
		exit 1
	fi
	n=$(cat "$out/build.log.count")
	# A rebuild's count must not become the ETA reference of a cold build.
	[ "$n" -gt 500 ] || rm -f "$out/build.log.count"
	# for the trace report: which cache lines are a ring's context
	"$here/../tracing/ctx-size.sh" "$out" >"$out/io_ring_ctx.size.tmp"
	mv "$out/io_ring_ctx.size.tmp" "$out/io_ring_ctx.size"
	cp "$out/arch/x86/boot/bzImage" "$build/bzImage-$variant.tmp"
	mv "$build/bzImage-$variant.tmp" "$build/bzImage-$variant"
	echo "$stamp" >"$out/.lab-stamp"
	exec 9>&-
	phase "$tb" "$kind"
	log "done in $(fmt_s $((SECONDS - t0))): build/bzImage-$variant ($(cat "$out/include/config/kernel.release"), $n objects compiled)"
done
