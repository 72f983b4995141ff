#!/bin/bash
# tests/boot-health.sh VM_OUT KERNEL (TAP, on the host, after a boot):
# the guest's virtio and NVMe devices each had an MSI/MSI-X vector, none a
# legacy line, and its kernel log (console and dmesg) has no fault line
# (vm/klog-patterns). Reads what vm/run.sh left in VM_OUT.
out=$1 kernel=$2
env=$out/boot.env
echo "1..2"
irqs=$(sed -n 's/^irqs=//p' "$env" 2>/dev/null)
legacy=$(sed -n 's/^irq_legacy=//p' "$env" 2>/dev/null)
# virtio: the two 9p shares; nvme: admin and I/O queues
if grep -q 'virtio.*PCI-MSI' <<<"$irqs" && grep -q 'nvme0q[1-9].*PCI-MSI' <<<"$irqs" &&
	[ -z "$legacy" ]; then
	echo "ok 1 - $kernel: virtio and NVMe interrupts are all MSI ($(wc -w <<<"$irqs") vectors)"
else
	echo "not ok 1 - $kernel: virtio and NVMe interrupts are all MSI"
	echo "#   irqs=${irqs:-none recorded}"
	echo "#   on a legacy line: ${legacy:-none}"
fi
if [ -f "$out/klog-errors" ] && [ ! -s "$out/klog-errors" ]; then
	echo "ok 2 - $kernel: no fault lines in the kernel log"
else
	echo "not ok 2 - $kernel: no fault lines in the kernel log ($out/klog-errors)"
	head -10 "$out/klog-errors" 2>/dev/null | sed 's/^/#   /'
fi
