#!/usr/bin/env python3
"""tests/check-policy.py: the policy recorder's host-side checks (TAP).

- tracing/policy-record.bt probes exactly the prep functions of 6.1's
  io_uring/opdef.c (a missing one would drop that opcode's SQEs);
- bench/uring-policy compiles filters that a classic-BPF interpreter
  written here, on contexts packed here in the kernel's layout and byte
  order, finds allowing exactly what the policy says;
- uringlab.policy turns a synthetic recording into the policy the kernel's
  rules give (ring numbers per process and exec, the filter's view of
  OPENAT and CONNECT, required flags, a drain's twins), and refuses a
  recording with SQEs it could not attribute.
"""
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile

LAB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", os.path.join(LAB, "build"))
sys.path.insert(0, LAB)


from uringlab.tap import done, tap  # noqa: E402


# --- a classic BPF interpreter for the subset uring-policy emits ---------

def run_prog(prog, ctx):
    a, pc = 0, 0
    while True:
        code, jt, jf, k = prog[pc]
        if code == 0x20:                # LD | W | ABS
            a = struct.unpack_from("<I", ctx, k)[0]
        elif code == 0x54:              # ALU | AND | K
            a &= k
        elif code == 0x74:              # ALU | RSH | K
            a >>= k
        elif code == 0x15:              # JMP | JEQ | K
            pc += jt if a == k else jf
        elif code == 0x06:              # RET | K
            return k
        else:
            raise ValueError(f"opcode {code:#x} the compiler should not emit")
        pc += 1


def ctx(op, flags, payload=b""):
    """struct io_uring_bpf_ctx: user_data, opcode, sqe_flags, pdu_size,
    pad[5], then the payload, in the kernel's (x86's) byte order."""
    return struct.pack("<QBBB5x", 0, op, flags, len(payload)) + payload.ljust(24, b"\0")


def sock(fam, typ, proto):
    return struct.pack("<III", fam, typ, proto)


def conn(fam, port, addr):
    raw = socket.inet_pton(fam, addr) if addr else b""
    return struct.pack("<I", fam) + struct.pack("!H", port) + b"\0\0" + raw


def opn(flags, mode, resolve):
    return struct.pack("<QQQ", flags, mode, resolve)


def compile_policy(text):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(text)
    p = subprocess.run([os.path.join(BUILD, "bench", "uring-policy"), "-j", f.name],
                       capture_output=True, text=True)
    os.unlink(f.name)
    return p.returncode, (json.loads(p.stdout) if p.returncode == 0 else p.stderr)


def verdict(rings, op, c):
    """the ring's filter chain's verdict: 1, 0, or None when @op has none"""
    for f in rings["filters"]:
        if f["opcode"] == op:
            return run_prog(f["program"], c)
    return None


def check_probes():
    bt = open(os.path.join(LAB, "tracing", "policy-record.bt")).read()
    probed = set()
    for line in bt.splitlines():
        if line.startswith("kprobe:"):
            probed |= {p.strip().rstrip(",")[len("kprobe:"):] for p in line.split(",")
                       if p.strip().startswith("kprobe:")}
    tree = os.path.join(BUILD, "linux")
    try:
        opdef = subprocess.run(["git", "-C", tree, "show", "patched:io_uring/opdef.c"],
                               capture_output=True, text=True, check=True).stdout
    except (subprocess.CalledProcessError, FileNotFoundError):
        tap(True, f"policy-record.bt's probes # SKIP no tree at {tree} (make tree)")
        return
    import re
    preps = set(re.findall(r"\.prep\s*=\s*(\w+)", opdef))
    tap(probed == preps, "policy-record.bt probes exactly opdef.c's prep functions",
        f"missing: {sorted(preps - probed)}; extra: {sorted(probed - preps)}")


def check_header():
    """policy.h, as a program would include it: compiled and linked"""
    with tempfile.TemporaryDirectory() as tmp:
        pol = os.path.join(tmp, "p.txt")
        open(pol, "w").write("ring=1\nsqe_op=nop\nsqe=nop/0\nring=2-3\n"
                             "sqe=socket/0/family=inet,type=stream\n")
        hdr = os.path.join(tmp, "policy.h")
        with open(hdr, "w") as f:
            p = subprocess.run([os.path.join(BUILD, "bench", "uring-policy"), "-c", pol],
                               stdout=f, stderr=subprocess.PIPE, text=True)
        src = os.path.join(tmp, "m.c")
        open(src, "w").write('#include "policy.h"\nint main(void)\n{\n\tstruct io_uring r;\n\n'
                             '\tif (io_uring_queue_init(4, &r, IORING_SETUP_R_DISABLED))\n'
                             '\t\treturn 1;\n\treturn uring_policy_apply(&r, 2) ? 1 : 0;\n}\n')
        c = subprocess.run(["gcc", "-Wall", "-Wextra", "-Werror", "-I", os.path.join(BUILD, "uapi"),
                            "-o", os.path.join(tmp, "m"), src, "-l:liburing.a"],
                           capture_output=True, text=True)
        tap(p.returncode == 0 and c.returncode == 0,
            "policy.h compiles without a warning and links with liburing", p.stderr + c.stderr)


def check_compiler():
    S, O, C, NOP = 45, 18, 16, 0
    rc, j = compile_policy("""ring=1
sqe_op=nop,socket
sqe=nop/0
sqe=nop/io_link+async
sqe=socket/0/family=inet,type=stream,protocol=*
sqe=socket/async/family=2,type=2,protocol=17
ring=2-3
sqe=connect/0/family=inet,port=4242,addr=127.0.0.1
sqe=connect/0/family=inet6,port=80,addr=::1
sqe=openat/*/flags=0x100008000,mode=0644
""")
    tap(rc == 0, "uring-policy compiles a policy of every field kind", j)
    if rc:
        return
    r1, r2 = j["rings"]
    cases = [
        (r1, NOP, ctx(NOP, 0), 1, "NOP with no flags"),
        (r1, NOP, ctx(NOP, 0x14), 1, "NOP with io_link+async"),
        (r1, NOP, ctx(NOP, 0x04), 0, "NOP with io_link alone"),
        (r1, S, ctx(S, 0, sock(2, 1, 6)), 1, "SOCKET inet stream, any protocol (6)"),
        (r1, S, ctx(S, 0, sock(2, 1, 0)), 1, "SOCKET inet stream, any protocol (0)"),
        (r1, S, ctx(S, 0, sock(10, 1, 0)), 0, "SOCKET inet6 stream"),
        (r1, S, ctx(S, 0x10, sock(2, 2, 17)), 1, "SOCKET async inet dgram udp"),
        (r1, S, ctx(S, 0, sock(2, 2, 17)), 0, "SOCKET inet dgram udp without async"),
        (r2, C, ctx(C, 0, conn(socket.AF_INET, 4242, "127.0.0.1")), 1, "CONNECT 127.0.0.1:4242"),
        (r2, C, ctx(C, 0, conn(socket.AF_INET, 4243, "127.0.0.1")), 0, "CONNECT 127.0.0.1:4243"),
        (r2, C, ctx(C, 0, conn(socket.AF_INET, 4242, "127.0.0.2")), 0, "CONNECT 127.0.0.2:4242"),
        (r2, C, ctx(C, 0, conn(socket.AF_INET6, 80, "::1")), 1, "CONNECT [::1]:80"),
        (r2, C, ctx(C, 0, conn(socket.AF_INET6, 80, "::2")), 0, "CONNECT [::2]:80"),
        (r2, O, ctx(O, 0x10, opn(0x100008000, 0o644, 0)), 1, "OPENAT, 64-bit flags, any SQE flags"),
        (r2, O, ctx(O, 0, opn(0x8000, 0o644, 0)), 0, "OPENAT, flags' high word differs"),
        (r2, O, ctx(O, 0, opn(0x100008000, 0o600, 0)), 0, "OPENAT, mode differs"),
    ]
    for r, op, c, want, what in cases:
        got = verdict(r, op, c)
        tap(got == want, f"filter: {what}: {'allowed' if want else 'refused'}", f"got {got}")
    last = [f["flags"] for f in r2["filters"]]
    tap(last[-1] == 1 and not any(last[:-1]),
        "filter: DENY_REST on the ring's last filter only", last)
    allow = {(e["opcode"], e.get("sqe_op", e.get("sqe_flags"))) for e in r2["restrictions"]}
    tap(allow == {(1, C), (1, O), (2, 0xff)},
        "a section of filters alone gets their opcodes and flags as its allow-list, no register call",
        sorted(allow))
    check_header()
    rc, err = compile_policy("sqe=connect/0/family=10,port=1,addr=::1\n" * 240)
    tap(rc == 2 and "instructions, more than" in err,
        "a filter past the program's size is refused when parsed", err)
    rc, err = compile_policy("ring=1\nsqe_op=nop\nsqe=connect/0/port=70000\n")
    tap(rc == 2 and ":3:" in err and "not a port" in err, "a bad field value names its line", err)


def bt_json(maps):
    """bpftrace -f json's map lines"""
    return "\n".join(json.dumps({"type": "map", "data": {f"@{k}": v}}) for k, v in maps.items())


def check_generator(tmp):
    OPEN_DIR, O_CREAT, LARGE = 0o200000, 0o100, 0o100000
    rec = {
        # process 10: two rings, exec, one more; process 20: one ring
        "ring_pid": {"100": 10, "200": 10, "400": 10, "300": 20},
        "ring_tid": {"100": 10, "200": 10, "400": 10, "300": 20},
        "ring_comm": {"100": "a", "200": "a", "400": "b", "300": "c"},
        "ring_flags": {"100": 0, "200": 0, "400": 0, "300": 0},
        "ring_entries": {"100": 8, "200": 8, "400": 8, "300": 8},
        "exec_at": {"10,350": 1},
        # ring 2 (serial 200): fixed files on every SQE, one linked
        "sqe": {"200,18,1,1": 2, "200,22,1,1": 3, "200,22,5,5": 1,
                # ring 1: a drain, the SQE after it, a CONNECT
                "400,0,2,18": 1, "400,0,0,16": 1, "300,16,0,0": 1},
        "args": {"200,18,1,%d,493,0,0,0,0" % OPEN_DIR: 1,
                 "200,18,1,%d,420,0,0,0,0" % O_CREAT: 1,
                 "300,16,0,8,2,36880,16777343,0,0": 1},
    }
    path = os.path.join(tmp, "rec.json")
    open(path, "w").write(bt_json(rec))
    out = os.path.join(tmp, "out")
    p = subprocess.run([sys.executable, "-m", "uringlab.policy", "--drop-top", path, out],
                       capture_output=True, text=True, cwd=LAB,
                       env=dict(os.environ, PYTHONPATH=LAB))
    tap(p.returncode == 0, "uringlab.policy makes a policy of a synthetic recording", p.stderr)
    if p.returncode:
        return
    text = open(os.path.join(out, "policy.txt")).read()
    sections = {}
    cur = None
    for line in text.splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("ring="):
            cur = line[5:]
            sections[cur] = []
        elif line and cur:
            sections[cur].append(line)
    tap(set(sections) == {"1", "2"},
        "ring numbers per process, from 1 again after an exec: rings 1 and 2 only", sections)
    r1, r2 = sections.get("1", []), sections.get("2", [])
    tap("sqe_flags_required=fixed_file" in r2 and "sqe_flags_allowed=fixed_file,io_link" in r2,
        "flags every SQE carried are required, any one carried allowed", r2)
    tap("sqe=openat/fixed_file/flags=%#x,mode=00,resolve=0x0" % (OPEN_DIR | LARGE) in r2,
        "OPENAT with O_DIRECTORY: O_LARGEFILE added, mode 0 (no O_CREAT)", r2)
    tap("sqe=openat/fixed_file/flags=%#x,mode=0644,resolve=0x0" % (O_CREAT | LARGE) in r2,
        "OPENAT with O_CREAT: its mode kept", r2)
    tap("sqe=connect/0/family=2,port=0,addr=0" in r1,
        "CONNECT with an addr_len short of sockaddr_in: family only", r1)
    tap({"sqe=nop/io_drain+async", "sqe=nop/async",
         "sqe=connect/async/family=2,port=0,addr=0"} <= set(r1) and "sqe=nop/0" not in r1,
        "a ring that drains: each filter entry's async and io_drain+async twins, no more", r1)
    tap(not any(x.startswith("sqe=") and ("async" in x) for x in r2),
        "a ring that does not drain: no twins", r2)
    tap("ring 1 is the ring number 1 of 2 processes" in p.stderr,
        "ring 1 of two processes: the union, and said so", p.stderr)
    rec["sqe_unprepped"] = {"100,9": 3}
    open(path, "w").write(bt_json(rec))
    p = subprocess.run([sys.executable, "-m", "uringlab.policy", path, out + "2"],
                       capture_output=True, text=True, cwd=LAB,
                       env=dict(os.environ, PYTHONPATH=LAB))
    tap(p.returncode != 0 and "no prep function probed" in p.stderr,
        "SQEs the recorder could not attribute: no policy, said why", p.stderr)


def main():
    check_probes()
    check_compiler()
    with tempfile.TemporaryDirectory() as tmp:
        check_generator(tmp)
    return done()


if __name__ == "__main__":
    sys.exit(main())
