#!/bin/bash
# vm/run.sh [-i] [-- COMMAND...]: boot one lab kernel in QEMU and run COMMAND
# inside it (or, with -i, an interactive shell), then power off.
# vm/run.sh -a prints the accelerator a boot would use (kvm, tcg,
# tcg-icount), probing KVM if it has to, and boots nothing.
#
# Everything the guest gets is decided here: the host's root read-only over
# virtio-9p, this checkout read-write at the same path, tmpfs on /tmp, a
# null_blk device (/dev/nullb0), an emulated NVMe disk (/dev/nvme0n1)
# backed by build/nvme.img, and the serial console mirrored to a log file.
#
# Settings (environment):
#   KERNEL   baseline | patched | upstream            (default: patched)
#   ACCEL    auto | kvm | tcg; auto probes KVM with a short boot
#   ICOUNT   1: TCG with -icount shift=0,sleep=off (1 virtual ns per guest
#            instruction: deterministic cost figures)
#   TIMEOUT  hard limit per boot in seconds            (default: 600)
#   IDLE_TIMEOUT  seconds without a line from the guest's programs (the
#            kernel's own messages do not count) after which the guest
#            counts as hung and QEMU is killed; 0 or empty: off (default)
#   SMP, MEM guest CPUs and memory        (default: 2, 2G; 1 CPU with ICOUNT)
#   VM_OUT   folder for console.log and boot.env       (default: build/vm/last)
#   VERBOSE  1: show the kernel's boot messages
#   PLUGIN   a QEMU TCG plugin and its arguments, as -plugin takes them
#            (file=build/tracing/insn-count.so,out=FILE); needs TCG
# The guest's exit status is this script's exit status; a timeout, hang or
# panic kills QEMU, prints the console's tail and exits 124/125.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
KERNEL=${KERNEL:-patched}
ACCEL=${ACCEL:-auto}
ICOUNT=${ICOUNT:-0}
TIMEOUT=${TIMEOUT:-600}
IDLE_TIMEOUT=${IDLE_TIMEOUT:-0}
# Under -icount a 6.1 guest hangs bringing up its second CPU; one CPU is
# also what a deterministic instruction count wants.
if [ "$ICOUNT" = 1 ]; then
	SMP=${SMP:-1}
else
	SMP=${SMP:-2}
fi
MEM=${MEM:-2G}
VM_OUT=${VM_OUT:-$build/vm/last}
VERBOSE=${VERBOSE:-0}
PLUGIN=${PLUGIN:-}

interactive=0
accel_only=0
if [ "${1:-}" = "-a" ]; then
	accel_only=1
	shift
fi
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0
fi
if [ "${1:-}" = "-i" ]; then
	interactive=1
	shift
fi
[ "${1:-}" = "--" ] && shift
if [ "$interactive" = 0 ] && [ "$accel_only" = 0 ] && [ $# -eq 0 ]; then
	echo "usage: vm/run.sh [-h] [-a] [-i] [-- COMMAND...]" >&2
	exit 2
fi

die() { echo "vm: error: $*" >&2; exit 1; }

case "$TIMEOUT$IDLE_TIMEOUT" in
*[!0-9]*) die "TIMEOUT and IDLE_TIMEOUT are whole seconds, not '$TIMEOUT' and '$IDLE_TIMEOUT'" ;;
esac

image=$build/bzImage-$KERNEL
[ -f "$image" ] || die "no kernel '$KERNEL' at $image (run: make kernels)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"

nvme=$build/nvme.img
[ -f "$nvme" ] || truncate -s 1G "$nvme"

# kvm_works: boot the kernel under KVM with 'true' as the command and see
# the guest report back within a few seconds. /dev/kvm existing is not
# enough: on some hosts KVM guests hang right after the BIOS.
kvm_works() {
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	local cache=$build/vm/kvm-probe boot_id
	boot_id=$(cat /proc/sys/kernel/random/boot_id)
	if [ -f "$cache" ] && [ "$(head -1 "$cache")" = "$boot_id" ]; then
		[ "$(sed -n 2p "$cache")" = yes ]
		return
	fi
	echo "vm: probing KVM with a 20 s test boot" >&2
	mkdir -p "$build/vm"
	local verdict=no
	if ACCEL=kvm ICOUNT=0 TIMEOUT=20 VM_OUT=$build/vm/kvm-probe.d VERBOSE=0 \
		"$0" -- true >"$build/vm/kvm-probe.log" 2>&1; then
		verdict=yes
	else
		echo "vm: KVM probe failed, using TCG: $(grep -m1 -E 'error|hung|panic' \
			"$build/vm/kvm-probe.log" | sed 's/^vm: //')" >&2
	fi
	printf '%s\n%s\n' "$boot_id" "$verdict" >"$cache"
	[ "$verdict" = yes ]
}

case "$ACCEL" in
auto)
	if [ "$ICOUNT" = 1 ]; then
		accel=tcg
	elif kvm_works; then
		accel=kvm
	else
		accel=tcg
	fi ;;
kvm|tcg) accel=$ACCEL ;;
*) die "ACCEL must be auto, kvm or tcg, not '$ACCEL'" ;;
esac
[ "$ICOUNT" = 1 ] && [ "$accel" = kvm ] && die "ICOUNT=1 needs ACCEL=tcg"
[ -n "$PLUGIN" ] && [ "$accel" = kvm ] && die "PLUGIN needs ACCEL=tcg (plugins instrument TCG code)"

qemu_args=(-nodefaults -no-user-config -nographic -no-reboot
	-machine pc -smp "$SMP" -m "$MEM")
if [ "$accel" = kvm ]; then
	qemu_args+=(-accel kvm -cpu host)
	label=kvm
else
	qemu_args+=(-accel tcg -cpu max)
	label=tcg
	if [ "$ICOUNT" = 1 ]; then
		qemu_args+=(-icount shift=0,sleep=off)
		label=tcg-icount
	fi
fi

if [ "$accel_only" = 1 ]; then
	echo "$label"
	exit 0
fi

mkdir -p "$VM_OUT"
VM_OUT=$(cd "$VM_OUT" && pwd)
rm -f "$VM_OUT/status" "$VM_OUT/clocksource" "$VM_OUT/kernel-release" "$VM_OUT/boot.env" \
	"$VM_OUT/interrupts" "$VM_OUT/dmesg" "$VM_OUT/klog-errors"
log=$VM_OUT/console.log
: >"$log"
case "$VM_OUT" in
"$lab"/*) ;;
*) die "VM_OUT must lie inside the checkout ($lab), the guest's only writable share" ;;
esac
if [ "$interactive" = 0 ]; then
	printf '%q ' "$@" >"$VM_OUT/cmd"
	echo >>"$VM_OUT/cmd"
fi

# Warnings and worse reach the console, not only errors: a WARN() or an
# NVMe timeout said before a hang is in console.log even when the guest
# never writes its dmesg.
quiet=loglevel=5
[ "$VERBOSE" = 1 ] && quiet=

# tsc=reliable: under TCG the clocksource watchdog sees the emulated TSC
# drift against HPET/PM timer and would demote it to a 4 ms jiffies clock.
# nokaslr: the same addresses on every boot, for perf and symbol maps.
# null_blk.irqmode=0: completions inline, no memory backing (the default).
cmdline="console=ttyS0 $quiet panic=-1 tsc=reliable nokaslr
 root=hostroot rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose ro
 init=$here/guest-init.sh lab.dir=$lab lab.out=$VM_OUT lab.interactive=$interactive
 lab.kernel=$KERNEL lab.accel=$label
 null_blk.nr_devices=1 null_blk.queue_mode=2 null_blk.irqmode=0 null_blk.gb=16"
# A sanitizer kernel (NAME-debug) under TCG interprets ACPI's AML so slowly
# that the _PRT QEMU writes for this machine (pc: a While loop over 128
# routes) sometimes runs into ACPICA's 30 s loop limit when a PCI device's
# INTx line is looked up: seen twice at boot (one per virtio device) and
# once at power-off in one 428 s test boot, 90 s of waiting, and not on
# every boot. Every lab device uses MSI or MSI-X (tests/boot-health.sh
# checks it), so such a kernel skips ACPI's IRQ routing and takes the
# IO-APIC from the BIOS's MP table (X86_MPPARSE) instead; production
# kernels, and KVM, keep ACPI's, as users' kernels do.
[ "${KERNEL%-debug}" != "$KERNEL" ] && [ "$label" != kvm ] && cmdline="$cmdline acpi=noirq"
cmdline=$(echo $cmdline)

qemu_args+=(-kernel "$image" -append "$cmdline"
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
	-virtfs "local,path=$lab,mount_tag=lab,security_model=none,multidevs=remap"
	-drive "file=$nvme,if=none,id=nvm,format=raw,readonly=on,file.locking=off"
	-device nvme,serial=lab0001,drive=nvm
	-fw_cfg name=etc/sercon-port,string=0)
[ -n "$PLUGIN" ] && qemu_args+=(-plugin "$PLUGIN")
# The NVMe disk is only read (fio's randread jobs): read-only and
# unlocked, several guests (make check beside make bench) can share it.
# SeaBIOS would mirror its screen to the serial console (escape codes in
# every log); sercon-port=0 stops it. QEMU warns about the name's prefix
# each boot, which says nothing here.
qemu_quiet() { grep -v --line-buffered 'externally provided fw_cfg item' >&2; }
if [ "$interactive" = 1 ]; then
	qemu_args+=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$log"
		-serial chardev:con -mon chardev=con)
else
	qemu_args+=(-chardev "stdio,id=con,logfile=$log" -serial chardev:con)
fi

# The second serial port: the host's step watchdog (vm/step-watchdog.py)
# and the guest's step daemon (vm/step-daemon.sh). A socket path must be
# short, so it lives in /tmp.
ctl=$(mktemp -d /tmp/lab-vm.XXXXXX)
qemu= idle= watchdog=
# interrupted, take QEMU, the idle watch and the step watchdog along
trap 'kill $qemu $idle $watchdog 2>/dev/null || true; rm -rf "$ctl"' EXIT
trap 'exit 130' INT TERM
qemu_args+=(-chardev "socket,id=ctl,path=$ctl/step.sock,server=on,wait=off" -serial chardev:ctl)

qemu_version=$(qemu-system-x86_64 --version | sed -n '1s/^QEMU emulator version //p')
limits=", timeout ${TIMEOUT}s"
[ "$IDLE_TIMEOUT" = 0 ] || limits="$limits, ${IDLE_TIMEOUT}s without output"
[ "$interactive" = 1 ] && limits=
echo "vm: booting $KERNEL on $label (qemu $qemu_version, $SMP cpus, $MEM$limits)" >&2
[ "$interactive" = 1 ] && echo "vm: exit the shell to power off (Ctrl-a x kills QEMU)" >&2

# idle_watch PID: a guest whose programs have said nothing for
# IDLE_TIMEOUT seconds is hung, however long its boot limit. A long boot
# limit is what a slow host needs (a full make bench boot took 551 s under
# load), a short idle limit what a hung guest should cost. Only lines
# without a printk timestamp count: a dead guest can go on printing hung
# task and RCU stall reports. make bench prints a line after each step
# (at least every 10 s while steps end) and each step is killed at its own
# limit (vm/step-watchdog.py); bench/run.sh keeps IDLE_TIMEOUT above it.
idle_watch() {
	local last=-1 lines quiet=0
	while sleep 5 && [ -d "$ctl" ]; do
		lines=$(grep -cv '^\[ *[0-9]*\.[0-9]*\]' "$log" || true)
		if [ "$lines" != "$last" ]; then
			last=$lines quiet=0
			continue
		fi
		quiet=$((quiet + 5))
		if [ "$quiet" -ge "$IDLE_TIMEOUT" ]; then
			echo "$quiet" >"$ctl/idle"
			kill "$1"
			return
		fi
	done
}

t0=$SECONDS
: >"$VM_OUT/watchdog.log"
python3 "$here/step-watchdog.py" "$ctl/step.sock" "$VM_OUT/watchdog.log" &
watchdog=$!
set +e
if [ "$interactive" = 1 ]; then
	qemu-system-x86_64 "${qemu_args[@]}" 2> >(qemu_quiet)
	rc=$?
else
	timeout -k 5 "$TIMEOUT" qemu-system-x86_64 "${qemu_args[@]}" </dev/null 2> >(qemu_quiet) &
	qemu=$!
	idle=
	# its own output closed: a sleep left behind must not hold the
	# caller's pipe open
	[ "$IDLE_TIMEOUT" = 0 ] || { idle_watch "$qemu" >/dev/null 2>&1 & idle=$!; }
	wait "$qemu"
	rc=$?
	qemu=
	[ -z "$idle" ] || kill "$idle" 2>/dev/null
fi
set -e
# it ends when QEMU closes the socket; a watchdog still connecting does not
kill "$watchdog" 2>/dev/null || true
wait "$watchdog" 2>/dev/null || true
watchdog=

{
	echo "kernel=$KERNEL"
	echo "kernel_release=$(cat "$VM_OUT/kernel-release" 2>/dev/null || echo unknown)"
	echo "accel=$label"
	echo "qemu=$qemu_version"
	echo "clocksource=$(cat "$VM_OUT/clocksource" 2>/dev/null || echo unknown)"
	echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "boot_seconds=$((SECONDS - t0))"
	"$here/irq-summary.sh" "$VM_OUT/interrupts"
	# The console has what the guest said up to a hang; dmesg (written
	# at power-off) what the console's log level left out.
	{ "$here/klog-check.sh" "$log" "$VM_OUT/dmesg" || true; } | sort -u >"$VM_OUT/klog-errors"
	echo "klog_errors=$(wc -l <"$VM_OUT/klog-errors")"
} >"$VM_OUT/boot.env.tmp"
mv "$VM_OUT/boot.env.tmp" "$VM_OUT/boot.env"

fail() {
	echo "vm: error: $1 ($KERNEL, $label); last console lines of $log:" >&2
	tail -n 25 "$log" | sed 's/^/  | /' >&2
	exit "$2"
}

# a guest that reported its status powered off on its own, whatever the
# idle watch decided in the same moment
if [ -f "$ctl/idle" ] && [ ! -f "$VM_OUT/status" ]; then
	fail "no output from the guest's programs for $(cat "$ctl/idle")s: guest hung, QEMU killed" 124
fi
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	fail "no power-off within ${TIMEOUT}s: guest hung or too slow, QEMU killed" 124
fi
if grep -q 'Kernel panic' "$log"; then
	fail "kernel panic" 125
fi
[ "$rc" = 0 ] || fail "QEMU exited with status $rc" 125
[ -f "$VM_OUT/status" ] || fail "the guest powered off without reporting a status" 125

cs=$(cat "$VM_OUT/clocksource" 2>/dev/null || true)
case "$cs" in
tsc|kvm-clock) ;;
*) fail "guest clocksource is '${cs:-unknown}', not tsc/kvm-clock: timings would be meaningless" 125 ;;
esac
if [ -s "$VM_OUT/klog-errors" ]; then
	echo "vm: warning: the guest kernel's log has $(wc -l <"$VM_OUT/klog-errors") error line(s) ($VM_OUT/klog-errors):" >&2
	head -5 "$VM_OUT/klog-errors" | sed 's/^/  | /' >&2
fi
legacy=$(sed -n 's/^irq_legacy=//p' "$VM_OUT/boot.env")
[ -z "$legacy" ] || echo "vm: warning: devices on a legacy interrupt line: $legacy" >&2
echo "vm: $KERNEL ($(cat "$VM_OUT/kernel-release")) on $label, clocksource $cs, $((SECONDS - t0)) s" >&2
exit "$(cat "$VM_OUT/status")"
