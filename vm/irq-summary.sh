#!/bin/bash
# vm/irq-summary.sh INTERRUPTS: from a guest's /proc/interrupts, the
# interrupts of the lab's PCI devices (virtio, NVMe) as boot.env lines:
#   irqs=NAME@IRQ/CHIP ...   every device interrupt and its controller
#   irq_legacy=NAME@IRQ ...  those on a legacy (IO-APIC, XT-PIC) line
#   irq_shared=IRQ:NAME,NAME ...  lines that more than one device shares
# A device on a legacy line shares it with whatever else the BIOS routed
# there, and one spurious-interrupt verdict stops them all (lab.config).
f=$1
[ -s "$f" ] || { echo "irqs=unknown"; exit 0; }
tr -d '\r' <"$f" | awk '
NR == 1 { ncpu = NF; next }
{
	irq = $1; sub(":", "", irq)
	if (irq !~ /^[0-9]+$/) next
	chip = $(ncpu + 2)
	# IO-APIC and MSI lines name a hwirq-trigger ("11-fasteoi") after the
	# chip; an XT-PIC line may not
	first = ($(ncpu + 3) ~ /-[a-z]+$/) ? ncpu + 4 : ncpu + 3
	names = ""
	for (i = first; i <= NF; i++) names = names (names == "" ? "" : " ") $i
	n = split(names, dev, /, */)
	ndev = 0
	for (j = 1; j <= n; j++) {
		if (dev[j] !~ /^(virtio|nvme)/) continue
		ndev++
		all = all " " dev[j] "@" irq "/" chip
		if (chip !~ /^PCI-MSI/) legacy = legacy " " dev[j] "@" irq
	}
	if (n > 1 && ndev > 0) { gsub(/, */, ",", names); shared = shared " " irq ":" names }
}
END {
	sub(/^ /, "", all); sub(/^ /, "", legacy); sub(/^ /, "", shared)
	print "irqs=" all
	print "irq_legacy=" legacy
	print "irq_shared=" shared
}'
