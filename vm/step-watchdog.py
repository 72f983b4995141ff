#!/usr/bin/env python3
"""vm/step-watchdog.py SOCKET LOG: the host's half of the guest's step
time limits (vm/lib.sh run_step), on the guest's second serial port.

Under TCG -icount with sleep=off the guest's clocks are no measure of
time: an idle guest's clock jumps to its next timer, so while the guest
waits a few host milliseconds for a 9p reply its clock can run through
minutes, and a limit timed by a guest timer fires for a step that took a
second. So the guest keeps no timer: it announces each step here, and this
watchdog times it by the host's monotonic clock, the same under TCG,
icount and KVM. The guest's step-daemon carries out what it is told.

  guest -> host   start PID SHELLPID LIMIT NAME...   a step began
                  end PID                            it ended
  host -> guest   term PID      LIMIT seconds passed: SIGTERM its group
                  kill PID      10 s later: SIGKILL its group
                  abandon SHELLPID PID  5 s later, still there (stuck in
                                the kernel): the shell stops waiting
Every action is logged to LOG. Ends when QEMU closes the socket.
"""
import os
import select
import socket
import sys
import time

GRACE_KILL = 10.0
GRACE_ABANDON = 5.0


def connect(path):
    # QEMU creates the socket as it starts
    for _ in range(600):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s
        except OSError:
            s.close()
            time.sleep(0.1)
    sys.exit(f"step-watchdog: no socket at {path}")


def main():
    sock = connect(sys.argv[1])
    log = open(sys.argv[2], "a", buffering=1)
    steps = {}  # pid -> dict(shell, limit, name, t0, stage, due)
    buf = b""
    while True:
        now = time.monotonic()
        due = min((st["due"] for st in steps.values()), default=None)
        wait = None if due is None else max(0.0, due - now)
        r, _, _ = select.select([sock], [], [], wait)
        if r:
            data = sock.recv(4096)
            if not data:
                return
            buf += data.replace(b"\r", b"")
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                f = line.decode(errors="replace").split()
                if len(f) >= 5 and f[0] == "start":
                    steps[f[1]] = dict(shell=f[2], limit=float(f[3]), name=" ".join(f[4:]),
                                       t0=time.monotonic(), stage=0,
                                       due=time.monotonic() + float(f[3]))
                elif len(f) == 2 and f[0] == "end":
                    steps.pop(f[1], None)
        now = time.monotonic()
        for pid, st in list(steps.items()):
            if now < st["due"]:
                continue
            el = now - st["t0"]
            if st["stage"] == 0:
                msg, st["due"] = f"term {pid}", now + GRACE_KILL
            elif st["stage"] == 1:
                msg, st["due"] = f"kill {pid}", now + GRACE_ABANDON
            else:
                msg = f"abandon {st['shell']} {pid}"
                steps.pop(pid)
            st["stage"] += 1
            log.write(f"{time.strftime('%H:%M:%S')} {st['name']}: {el:.0f}s of host time, "
                      f"limit {st['limit']:.0f}s: {msg}\n")
            sock.sendall(msg.encode() + b"\n")


if __name__ == "__main__":
    try:
        main()
    except (KeyboardInterrupt, BrokenPipeError, ConnectionResetError):
        pass
