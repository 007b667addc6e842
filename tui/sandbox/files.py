"""The files in a sandbox's data dir, and whether a daemon serves it (standard library only).

What reads them at the TUI's launch (`tui.launch`, `tui.prefetch`) runs beside Textual's
import: importing `tui.sandbox.db` there for a file name brought pydantic and orjson with it
(about 0.1 s of CPU taken from the first paint), and `tui.sandbox.daemon` for its check that a
daemon runs cost 6 ms of a warm start's first frame.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

DB_FILE = "sandbox.sqlite3"
STATE_FILE = "daemon.json"  # written by `tui.sandbox.daemon`, read through it


def serving_pid(directory: Path) -> int | None:
    """The pid the state file of `directory` names, if that process is alive (None: no file,
    a broken one, or its process is gone). `daemon.read_state` reads the whole state."""
    import json

    try:
        pid = json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))["pid"]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return pid if type(pid) is int and alive(pid) else None


def alive(pid: int) -> bool:
    """True while process `pid` exists (a zombie counts as gone)."""
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
