"""Run a command (`make test`) with CPU-bound busy processes beside it: `make test-under-load`.

The suite must pass on a loaded machine: no outcome may depend on its speed. This starts
`--busy` processes that each keep one core busy, runs the command, and stops them when it ends
(or is interrupted), then exits with the command's status.

Only processes this run started are ever signalled: each is a child of this process (its
`Popen` is held, so its PID cannot be reused before it is reaped), and its command line carries
a token made for this run, checked in /proc before it is stopped.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

BUSY = "import sys\nwhile True:\n    pass\n"


def command_line(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def ours(process: subprocess.Popen[bytes], token: str) -> bool:
    """`process` is still running and is the busy process this run started."""
    return process.poll() is None and token in command_line(process.pid)


def started(process: subprocess.Popen[bytes], token: str) -> bool:
    """Wait for `process` to show its command line (it may still be between fork and exec)."""
    deadline = time.monotonic() + 30
    while process.poll() is None and time.monotonic() < deadline:
        if token in command_line(process.pid):
            return True
        time.sleep(0.01)
    return False


def stop(busy: list[subprocess.Popen[bytes]], token: str) -> None:
    for process in busy:
        if ours(process, token):
            process.terminate()
    for process in busy:
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            if ours(process, token):
                process.kill()
            process.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=int, default=2, help="busy processes (default 2)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- the command to run")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (after --)")

    def interrupted(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    token = f"payscope-under-load-{os.getpid()}-{secrets.token_hex(4)}"
    busy: list[subprocess.Popen[bytes]] = []
    status = 1
    began = time.monotonic()
    try:
        for _ in range(args.busy):
            busy.append(subprocess.Popen([sys.executable, "-c", BUSY, token]))
        running = [p.pid for p in busy if started(p, token)]
        if len(running) != args.busy:
            print("under load: a busy process did not start", file=sys.stderr)
            return 1
        print(f"under load: {args.busy} busy processes (pids {', '.join(map(str, running))}) "
              f"beside: {' '.join(command)}", flush=True)  # fmt: skip
        status = subprocess.call(command)
    except KeyboardInterrupt:
        status = 130
    finally:
        stop(busy, token)
        left = [p.pid for p in busy if p.poll() is None]
        took = time.monotonic() - began
        print(
            f"under load: the command ended with status {status} after {took:.0f} s; "
            f"busy processes stopped: {', '.join(str(p.pid) for p in busy) or 'none'}"
            + (f" (still running: {left})" if left else ""),
            flush=True,
        )
    return status


if __name__ == "__main__":
    sys.exit(main())
