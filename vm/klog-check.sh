#!/bin/bash
# vm/klog-check.sh FILE...: print the kernel log lines of FILE(s) that
# vm/klog-patterns names; exit 0 when there is none, 1 when there is one.
# Only the kernel's own lines count (they start with printk's timestamp):
# a console also carries programs that quote the kernel's log.
# Used on the host on a boot's console and dmesg (vm/run.sh), and in the
# guest after every benchmark step (bench/in-guest.sh).
here=$(cd "$(dirname "$0")" && pwd)
pat=$(grep -v -e '^#' -e '^$' "$here/klog-patterns")
# the console carries CR LF; a log that does not exist has nothing to say
hits=$(tr -d '\r' <<<"$(cat -- "$@" 2>/dev/null)" | grep -E '^\[ *[0-9]+\.[0-9]+\] ' | grep -E -e "$pat")
[ -z "$hits" ] && exit 0
printf '%s\n' "$hits"
exit 1
