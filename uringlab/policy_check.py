"""The round trip's verdicts on a restricted rerun (tests/policy-roundtrip.sh).

python3 -m uringlab.policy_check passed RECORD.json RERUN.json
    RERUN.json is tracing/policy-record.bt's recording of the command run
    under bench/uring-restrict with RECORD.json's policy. Fails, saying
    which, when an SQE or register call was refused with -EACCES, when a
    ring was set up without the wrapper giving it a policy (a ring the
    wrapper cannot reach), or when the rerun set up a different number of
    rings than the recording.
python3 -m uringlab.policy_check denied OPCODES.json OPNAME
    OPCODES.json is tracing/opcodes.bt's (the denial tracer's) count of a
    run under the policy less OPNAME: fails unless it names OPNAME's SQEs
    among those refused with -EACCES, and only those.
"""
import sys

from uringlab.policy import EACCES, load, rings_of
from uringlab.trace_summary import read_bpftrace

REGISTER_RESTRICTIONS, REGISTER_BPF_FILTER = 11, 37


def passed(record, rerun):
    problems = []
    before, _ = rings_of(load(record))
    maps = load(rerun)
    after, _ = rings_of(maps)
    for (s, op, f, err), n in maps.get("sqe_failed", {}).items():
        if int(err) == -EACCES:
            problems.append(f"{n} SQE(s) of opcode {op} (flags {f}) refused with -EACCES")
    for (s, op, err), n in maps.get("reg", {}).items():
        if int(err) == -EACCES:
            problems.append(f"{n} register call(s) of opcode {op} refused with -EACCES")
    restricted = {int(s) for (s, op, err) in maps.get("reg", {})
                  if int(op) in (REGISTER_RESTRICTIONS, REGISTER_BPF_FILTER) and int(err) == 0}
    for idx, r in sorted(after.items()):
        for serial, pid, _, comm, *_ in r.setups:
            if serial not in restricted:
                problems.append(f"ring {idx} of {comm} (pid {pid}) was set up without a "
                                "policy: the wrapper cannot reach it")
    n_before = sum(len(r.setups) for r in before.values())
    n_after = sum(len(r.setups) for r in after.values())
    if n_before != n_after:
        problems.append(f"the rerun set up {n_after} ring(s), the recording {n_before}")
    sqes = sum(r.total() for r in after.values())
    return problems, f"{n_after} ring(s) restricted, {sqes} SQEs, no -EACCES"


def denied(path, opname):
    counts = {}
    for k, n in read_bpftrace(path).get("@denied", {}).items():
        op = k.split(",", 1)[1] if "," in k else k
        counts[op] = counts.get(op, 0) + n
    want = opname.upper()
    problems = []
    if not counts.get(want):
        problems.append(f"the denial tracer saw no {want} SQE refused with -EACCES "
                        f"(it saw: {counts or 'none'})")
    others = {k: v for k, v in counts.items() if k != want}
    if others:
        problems.append(f"SQEs other than {want} were refused too: {others}")
    return problems, f"the denial tracer names {counts.get(want, 0)} {want} SQE(s) refused"


def main(argv):
    if len(argv) == 3 and argv[0] == "passed":
        problems, ok = passed(argv[1], argv[2])
    elif len(argv) == 3 and argv[0] == "denied":
        problems, ok = denied(argv[1], argv[2])
    else:
        sys.exit(__doc__)
    for p in problems:
        print(f"policy_check: {p}")
    if not problems:
        print(ok)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
