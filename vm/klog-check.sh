#!/bin/bash
# vm/klog-check.sh FILE...: print the kernel log lines of FILE(s) that
# vm/klog-patterns names (prefixed with the file's name when there are
# several); exit 0 when there is none, 1 when there is one.
# Used on the host on a boot's console and dmesg (vm/run.sh), and in the
# guest after every benchmark step (bench/in-guest.sh).
here=$(cd "$(dirname "$0")" && pwd)
pat=$(grep -v -e '^#' -e '^$' "$here/klog-patterns")
# the console carries CR LF; a log that does not exist has nothing to say
hits=$(grep -h -E -e "$pat" -- "$@" 2>/dev/null | tr -d '\r')
[ -z "$hits" ] && exit 0
printf '%s\n' "$hits"
exit 1
