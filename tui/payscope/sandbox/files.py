"""The files in a sandbox's data dir, and whether a daemon serves it (standard library only).

What reads them at the TUI's launch (`payscope.app.launch`) runs beside Textual's import: importing
`payscope.sandbox.db` there for a file name brought pydantic and orjson with it (about 0.1 s of CPU
taken from the first paint), and `payscope.sandbox.daemon` for its check that a daemon runs cost 6
ms
of a warm start's first frame.

Who serves a data dir is decided by a lock, never by a pid in a file alone. The daemon holds an
exclusive `flock` on `daemon.lock` for its whole life (one daemon per data dir: a second one
cannot take it and leaves). Its state file, `daemon.json`, names its pid and its start time.
`check_state` trusts that file only when all three agree: the lock is held, the process with
that pid runs `payscope.sandbox.daemon --data <this dir>`, and it started when the file says. A pid
of 1 or less is refused outright. So a file left by a `kill -9` or a reboot, whose pid now
belongs to anything, is reported and ignored, and nothing is ever signalled by it.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import os
import subprocess
from pathlib import Path
from typing import Any, NamedTuple

DB_FILE = "sandbox.sqlite3"
STATE_FILE = "daemon.json"  # written by `payscope.sandbox.daemon`, read through `check_state`
LOCK_FILE = "daemon.lock"  # held (flock) by the daemon that serves the directory
DAEMON_MODULE = "payscope.sandbox.daemon"
PHASES = ("starting", "seeding", "ready")
_FIELDS: dict[str, type] = {
    "pid": int,
    "url": str,
    "phase": str,
    "done": int,
    "total": int,
    "note": str,
    "started": str,
    "afresh": str,
}
_REQUIRED = ("pid", "url", "phase", "started")


class StateCheck(NamedTuple):
    """What `daemon.json` says, once proven (`fields`), or why it is not trusted (`problem`).
    Both empty: there is no state file (nothing runs, nothing to report)."""

    fields: dict[str, Any] | None
    problem: str = ""


def check_state(directory: Path) -> StateCheck:
    """The state file of `directory`, trusted only when a live daemon proves it is its own."""
    path = directory / STATE_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return StateCheck(None)
    except OSError as exc:
        return StateCheck(None, f"{path} cannot be read ({exc.strerror or exc})")
    try:
        data = json.loads(raw)
    except ValueError:
        return StateCheck(None, f"{path} is not valid JSON")
    problem = _shape_problem(data)
    if problem:
        return StateCheck(None, f"{path} is malformed: {problem}")
    pid = data["pid"]
    if not lock_held(directory):
        return StateCheck(None, f"{path} names pid {pid}, but no sandbox daemon holds its lock")
    problem = identity_problem(pid, directory, data["started"])
    if problem:
        return StateCheck(None, f"{path} names pid {pid}, which {problem}")
    return StateCheck(data)


def _shape_problem(data: Any) -> str:
    if not isinstance(data, dict):
        return "it is not a JSON object"
    for name, kind in _FIELDS.items():
        value = data.get(name)
        if name in data and type(value) is not kind:
            return f'"{name}" is {type(value).__name__}, not {kind.__name__}'
    for name in _REQUIRED:
        if name not in data:
            return f'it has no "{name}"'
    if data["pid"] <= 1:
        return f'"pid" is {data["pid"]}: a sandbox daemon never has a pid of 1 or less'
    if data["phase"] not in PHASES:
        return f'"phase" is {data["phase"]!r}, not one of {", ".join(PHASES)}'
    url = data["url"]
    if url and not url.startswith("http://127.0.0.1:"):
        return f'"url" is {url!r}, not a loopback http URL'
    return ""


def serving_pid(directory: Path) -> int | None:
    """The pid of the daemon proven to serve `directory`, or None."""
    fields = check_state(directory).fields
    return int(fields["pid"]) if fields is not None else None


def lock_held(directory: Path) -> bool:
    """True while some process holds the daemon's lock on `directory` (False: no lock file,
    or nobody holds it). Holding it is what makes a daemon the one that serves."""
    try:
        fd = os.open(directory / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing releases a lock taken just now
    return False


def take_lock(directory: Path) -> int | None:
    """Take the daemon's lock on `directory` for this process's life: the open file descriptor
    (keep it open: closing it releases the lock), or None when another process holds it."""
    fd = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def still_locked_here(fd: int, directory: Path) -> bool:
    """True while the lock file of `directory` is the file `fd` holds (it may have been removed
    with its directory, or replaced: then another daemon could take the new one)."""
    try:
        mine, there = os.fstat(fd), os.stat(directory / LOCK_FILE)
    except OSError:
        return False
    return (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)


def start_time(pid: int) -> str | None:
    """When process `pid` started, as the system tells it (None: no such process, or unknown).
    On Linux, the start time in clock ticks since boot (/proc/PID/stat, field 22); elsewhere,
    what `ps -o lstart=` prints."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except FileNotFoundError:
        return None if Path("/proc/self/stat").exists() else _ps(pid, "lstart=")
    except OSError:
        return None
    # "pid (name) state ppid ...": the name may hold spaces and parentheses; field 22 is the
    # 20th after the last ")".
    fields = stat.rpartition(")")[2].split()
    return fields[19] if len(fields) > 19 else None


def command_line(pid: int) -> list[str] | None:
    """The arguments process `pid` runs with (None: no such process, or not readable)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        if Path("/proc/self/cmdline").exists():
            return None
        text = _ps(pid, "command=")
        return text.split() if text else None
    except OSError:
        return None
    return [part.decode("utf-8", "surrogateescape") for part in raw.split(b"\0") if part]


def _ps(pid: int, column: str) -> str | None:
    """One column of `ps` for `pid` (where there is no /proc)."""
    try:
        done = subprocess.run(
            ["ps", "-p", str(pid), "-o", column],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def identity_problem(pid: int, directory: Path, started: str) -> str:
    """Why process `pid` is not the sandbox daemon of `directory` that started at `started`
    ("" when it is)."""
    if pid <= 1:
        return "is 1 or less"
    if pid == os.getpid():
        return "is this process"
    if not alive(pid):
        return "is not running"
    argv = command_line(pid)
    if argv is None:
        return "cannot be inspected"
    if DAEMON_MODULE not in argv or _data_arg(argv) != _resolved(directory):
        return f"is not a payscope sandbox daemon of this directory (it runs {_shown(argv)})"
    now = start_time(pid)
    if now is None or now != started:
        return "is another process than the daemon that wrote the file (its start time differs)"
    return ""


def _data_arg(argv: list[str]) -> Path | None:
    for flag, value in itertools.pairwise(argv):
        if flag == "--data":
            return _resolved(Path(value))
    return None


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve()
    except OSError:
        return None


def _shown(argv: list[str]) -> str:
    text = " ".join(argv) or "nothing"
    return text if len(text) <= 80 else text[:79] + "…"


def alive(pid: int) -> bool:
    """True while process `pid` exists (a zombie counts as gone; a pid of 1 or less is never
    taken for a process: `os.kill` would address a group, or every process, with it)."""
    if pid <= 1:
        return False
    with contextlib.suppress(ChildProcessError, OSError):
        done, _status = os.waitpid(pid, os.WNOHANG)  # only reaps our own children
        if done == pid:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # Another process's child that exited stays a zombie until that parent reaps it (the TUI
    # that started the daemon, still open): `payscope sandbox stop` waited its whole timeout.
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """True if `pid` has exited and waits for its parent to reap it (Linux; False elsewhere)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    # "pid (name) state ...": the name may hold spaces and parentheses, so split after the last.
    return stat.rpartition(")")[2].split()[:1] == ["Z"]
