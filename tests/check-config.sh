#!/bin/bash
# TAP: the hot-path options of kernel-patches/lab.config (its part 1) are
# Debian's own amd64 values, and every kernel was built with the fragment.
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
for k in "${kernels[@]}"; do
	i=$((i + 1))
	if cmp -s "$frag" "$build/out/$k/.lab.config" &&
		diff -q <(grep -v '^CONFIG_LOCALVERSION' "$build/out/$k/.config") \
			<(grep -v '^CONFIG_LOCALVERSION' "$build/out/${kernels[0]}/.config") >/dev/null; then
		echo "ok $i - $k built with lab.config, same .config as ${kernels[0]}"
	else
		echo "not ok $i - $k built with lab.config, same .config as ${kernels[0]}"
		rc=1
	fi
done
exit $rc
