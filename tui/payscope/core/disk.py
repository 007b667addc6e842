"""A full disk, told apart from other failures and said with its path.

`is_disk_full(exc)`: SQLite's SQLITE_FULL ("database or disk is full") or an OSError with
ENOSPC / EDQUOT. `full_disk(path)`: a sentence naming the disk that holds `path` when it has
(almost) no room left, else None: what a process that died without a word (its log could not
be written either) is asked after.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

# Below this many free bytes a disk counts as full: SQLite cannot add a page to its journal.
FULL_BELOW = 256 * 1024
_SQLITE_FULL = 13


def is_disk_full(exc: BaseException | None) -> bool:
    """True when `exc` (or what it was raised from) says the disk or the quota is full."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if isinstance(exc, sqlite3.Error) and (
            getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL
            or "database or disk is full" in str(exc)
        ):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def free_bytes(path: Path) -> int | None:
    """The bytes free to this user on the disk holding `path` (its nearest existing parent)."""
    probe = Path(path)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        stats = os.statvfs(probe)
    except OSError:
        return None
    return stats.f_bavail * stats.f_frsize


def full_disk(path: Path) -> str | None:
    """ "The disk holding PATH is full (N KiB free)" when it is, else None."""
    free = free_bytes(path)
    if free is None or free >= FULL_BELOW:
        return None
    return f"the disk holding {path} is full ({free // 1024} KiB free)"
