#!/bin/bash
# Inside the guest: run the restriction tests against the running kernel.
# The binary runs from tmpfs so nothing it does waits on the 9p share.
set -eu
kernel=$1
bin=$2
cp "$bin" /tmp/restrictions
echo "# kernel $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
exec /tmp/restrictions --kernel "$kernel"
