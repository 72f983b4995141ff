#!/bin/bash
# PID 1 of the lab's guest (see vm/run.sh): mount what the tools need, run
# the host's command or a shell, report its exit status, power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TERM=${TERM:-linux} LANG=C.UTF-8

mount -t proc proc /proc
mount -t sysfs sysfs /sys
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	lab.dir=*) labdir=${arg#lab.dir=} ;;
	lab.out=*) out=${arg#lab.out=} ;;
	lab.interactive=*) interactive=${arg#lab.interactive=} ;;
	esac
done
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
# devtmpfs lacks these links; bash's <(...) needs /dev/fd
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
for d in /tmp /run /var/tmp; do
	mount -t tmpfs -o mode=1777 tmpfs "$d"
done
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
# A checkout under /tmp or /run is hidden by the tmpfs above: recreate
# its mount point there.
mkdir -p "$labdir" 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 lab "$labdir" ||
	echo "guest-init: cannot mount the lab share at $labdir" >&2
ulimit -l unlimited
ulimit -n 65536

hostname "lab-$(uname -r | sed "s/.*-//")"
# tsc-early gives way to tsc when the kernel's refined TSC calibration
# runs, about a second of guest time after boot; an init that gets here
# first would record tsc-early (vm/run.sh refuses it) and its first step
# would time across the switch. Under -icount the idle waits cost no host
# time.
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
for _ in $(seq 50); do
	[ "$(cat "$cs")" != tsc-early ] && break
	sleep 0.1
done
cat "$cs" >"$out/clocksource"
uname -r >"$out/kernel-release"
# The host's step watchdog talks to the guest on the second serial port
# (vm/step-watchdog.py, vm/lib.sh run_step).
# /dev/ttyS1 exists without the UART: stty tells whether it is there.
if stty -F /dev/ttyS1 raw -echo 2>/dev/null; then
	"$(dirname "$0")/step-daemon.sh" /dev/ttyS1 </dev/null &
	export LAB_STEP_PORT=/dev/ttyS1
fi
# Which interrupts the devices got (vm/irq-summary.sh): once the NVMe
# driver's asynchronous probe has made its I/O queues, and again at the end.
for _ in $(seq 50); do
	[ -b /dev/nvme0n1 ] && break
	sleep 0.1
done
cat /proc/interrupts >"$out/interrupts"

cd "$labdir" || cd /
if [ "$interactive" = 1 ]; then
	echo "guest: $(uname -r), clocksource $(cat "$out/clocksource"), lab at $labdir"
	setsid -c bash -l
	status=$?
else
	bash "$out/cmd" </dev/null
	status=$?
fi
cat /proc/interrupts >"$out/interrupts"
dmesg >"$out/dmesg"
echo "$status" >"$out/status"
sync
echo o >/proc/sysrq-trigger
# PID 1 must not exit (that panics) while the power-off completes, and
# nothing may be loaded from the 9p root any more.
while :; do :; done
