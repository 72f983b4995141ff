#!/bin/bash
# TAP: the hot-path options of kernel-patches/lab.config (its part 1) are
# Debian's own amd64 values, and every kernel was built with the fragment
# (a NAME-debug kernel with debug.config after it).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
frag=$lab/kernel-patches/lab.config
debian=/usr/src/linux-config-6.1/config.amd64_none_amd64.xz
# Deliberate differences, each explained in lab.config.
exempt=" CONFIG_NR_CPUS "

kernels=("$@")
echo "1..$((1 + ${#kernels[@]}))"
part1=$(sed -n '/^## Part 1/,/^## Part 2/p' "$frag" | grep -E '^CONFIG_')
bad=0
while IFS= read -r want; do
	sym=${want%%=*}
	case "$exempt" in *" $sym "*) continue ;; esac
	got=$(xzcat "$debian" | grep -E "^$sym=|^# $sym is not set")
	if [ "$got" != "$want" ]; then
		echo "  lab.config has '$want', Debian has '${got:-nothing}'" >&2
		bad=1
	fi
done <<<"$part1"
[ $bad = 0 ] && echo "ok 1 - lab.config part 1 matches Debian's amd64 config" ||
	echo "not ok 1 - lab.config part 1 matches Debian's amd64 config"
rc=$bad
i=1
first_prod='' first_debug=''
# the name, and what kconfig reads off the host's tools at configure time
# (pahole arrives with make deps-tools, after the first kernel may have been
# configured): not the kernel's choices
# and the symbols a series adds to Kconfig, which the other trees lack:
# patched's IO_URING_BPF (0013, def_bool, changes no other symbol)
host_syms='^CONFIG_(LOCALVERSION|PAHOLE_VERSION|IO_URING_BPF)='

for k in "${kernels[@]}"; do
	i=$((i + 1))
	# NAME-debug: lab.config then debug.config (build-kernel.sh); each kind
	# compared with the first kernel of its kind
	if [ "${k%-debug}" != "$k" ]; then
		want=$(cat "$frag" "$lab/kernel-patches/debug.config") what="lab.config + debug.config"
		first_debug=${first_debug:-$k} ref=$first_debug
	else
		want=$(cat "$frag") what="lab.config"
		first_prod=${first_prod:-$k} ref=$first_prod
	fi
	if [ "$want" = "$(cat "$build/out/$k/.lab.config" 2>/dev/null)" ] &&
		diff -q <(grep -Ev "$host_syms" "$build/out/$k/.config") \
			<(grep -Ev "$host_syms" "$build/out/$ref/.config") >/dev/null; then
		echo "ok $i - $k built with $what, same .config as $ref"
	else
		echo "not ok $i - $k built with $what, same .config as $ref"
		rc=1
	fi
done
exit $rc
