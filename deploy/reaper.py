"""Runs one program and takes its orphans down with it: supervisord starts nginx through this.

nginx's workers hold the listening ports. When the master dies without stopping them (SIGKILL, the OOM
killer), they live on, orphaned, and the master supervisord starts again cannot bind the ports: it fails
until supervisord gives up. Run as a child subreaper (Linux), this process becomes the orphans' parent,
stops them once the program has died, and exits with the program's status, so that supervisord's restart
finds the ports free. The signals supervisord sends (QUIT to stop, HUP to reload) reach the program.

    python deploy/reaper.py /usr/sbin/nginx -p … -c …
"""

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2)
# How long the orphans get to finish after SIGTERM before SIGKILL.
ORPHAN_GRACE_SECONDS = 5.0


def become_subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def children() -> list[int]:
    found = []
    for task in Path(f"/proc/{os.getpid()}/task").glob("*/children"):
        found.extend(int(pid) for pid in task.read_text().split())
    return found


def reap_orphans() -> None:
    """SIGTERM to whatever the program left behind, then SIGKILL to what is still there."""
    for pid in children():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + ORPHAN_GRACE_SECONDS
    while children():
        try:
            os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if time.monotonic() > deadline:
            for pid in children():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            deadline = float("inf")
        time.sleep(0.05)


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: reaper.py PROGRAM [ARGS…]", file=sys.stderr)
        return 2
    become_subreaper()
    program = subprocess.Popen(argv)
    for number in FORWARDED:
        signal.signal(number, lambda received, _frame: program.send_signal(received))
    status = program.wait()
    reap_orphans()
    # A program killed by a signal: exit as the shell reports it (128 + signal), which supervisord logs.
    return status if status >= 0 else 128 - status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
