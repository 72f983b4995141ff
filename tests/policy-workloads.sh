# tests/policy-workloads.sh: the programs the policy round trip records,
# restricts and reruns (tests/policy-roundtrip.sh) and whose restricted
# cost bench/policy-cost.sh measures; sourced. Each entry is
#   NAME|METRIC|COMMAND
# METRIC says where the program reports its throughput (uringlab.policy_cost):
# ringbench's JSON line, fio's JSON, qemu-img bench's run time. COMMAND runs
# in the guest with $RB (ringbench, from tmpfs), $FIO_JOBS (fio-jobs/) and
# $IMG (a 64 MiB raw image on tmpfs) set; its rings are the program's own
# (ringbench -r 0: unrestricted, as any program would set them up).
policy_workloads=(
	"rb-nop|ringbench|\$RB -w nop -b 8 -n 4000 -W 100"
	"rb-read|ringbench|\$RB -w read -d 32 -n 2000 -W 100"
	"rb-sqpoll|ringbench|\$RB -w sqpoll -d 32 -n 2000 -W 100"
	"rb-setup|ringbench|\$RB -w setup -n 16 -W 4"
	"rb-deny|ringbench|\$RB -w deny -b 8 -n 2000 -W 100"
	"rb-skip|ringbench|\$RB -w skip -b 8 -n 2000 -W 100"
	"rb-drain|ringbench|\$RB -w drain -b 8 -n 2000 -W 100"
	"rb-link|ringbench|\$RB -w link -b 8 -n 2000 -W 100"
	"rb-async|ringbench|\$RB -w async -b 8 -n 1000 -W 100"
	"rb-topop|ringbench|\$RB -w topop -b 8 -n 2000 -W 100"
	"rb-bufsel|ringbench|\$RB -w bufsel -d 32 -n 2000 -W 100"
	"rb-rings|ringbench|\$RB -w rings -R 16 -b 4 -n 2000 -W 100"
	"rb-socket|ringbench|\$RB -w socket -b 8 -n 500 -W 50"
	"rb-openat|ringbench|\$RB -w openat -b 8 -n 500 -W 50"
	"rb-connect|ringbench|\$RB -w connect -b 8 -n 500 -W 50"
)
for f in "$(dirname "${BASH_SOURCE[0]}")"/../fio-jobs/*.fio; do
	j=$(basename "$f" .fio)
	policy_workloads+=("fio-$j|fio|/tmp/fio --output-format=json --eta=never \$FIO_JOBS/$j.fio")
done
policy_workloads+=("qemu-img|qemu-img|qemu-img bench -f raw -i io_uring -c 8000 -d 8 \$IMG")
# make test's short set: one of each kind
policy_short="rb-nop rb-socket fio-nullb-qd32-reg qemu-img"
