#!/bin/bash
# Inside the guest: run restrict-diff with ARGS, its answers to OUT and its
# stderr (progress) to the console; for make fuzz and tests/minimise-diff.py.
# Usage: diff-guest.sh BIN OUT ARGS...
set -u
bin=$1 out=$2
shift 2
echo "# kernel $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# from tmpfs: nothing it does waits on the 9p share
cp "$bin" /tmp/restrict-diff
/tmp/restrict-diff "$@" >"$out.tmp" && mv "$out.tmp" "$out"
