"""Where a profile's listener journals, and the lock that gives that journal one writer."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
from pathlib import Path

from payscope.core.private_files import private_dir


def listener_dir_for(data_dir: Path, profile: str | None) -> Path:
    """Where the listener of `profile` journals (None: the embedded sandbox, the local profile).

    The local profile keeps `<data>/listener` (shared with `payscope listen`); each remote
    profile has its own `<data>/listeners/<name>`, so its events are only its own.
    """
    if profile is None:
        return data_dir / "listener"
    # Profile names are checked (letters, digits, '-', '_'); made file-safe here all the same.
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", profile) or "_"
    return data_dir / "listeners" / safe


JOURNAL_LOCK = "in-use.lock"  # held (flock) by the payscope whose listener journals there


def claim_listener_dir(first: Path, data_dir: Path) -> tuple[Path, int]:
    """A journal directory no other running payscope uses, and the open lock that holds it
    (close it to let go): `first` when free, else `<data>/listeners/local-2`, `-3`, ... .

    Two payscopes on one background sandbox both get every webhook (each listener is attached),
    and a journal has one writer: the second one journals in a directory of its own."""
    number = 1
    while True:
        directory = first if number == 1 else data_dir / "listeners" / f"local-{number}"
        private_dir(directory)
        fd = os.open(directory / JOURNAL_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            number += 1
            continue
        return directory, fd


def claim_profile_listener(directory: Path) -> tuple[int | None, str]:
    """The lock of a remote profile's listener (its journal directory), or None with what the
    payscope holding it wrote there ("pid URL"): the service sends the profile's webhooks to
    the one URL registered with it, so one payscope on a machine listens for a profile."""
    private_dir(directory)
    fd = os.open(directory / JOURNAL_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            held = os.read(fd, 512).decode("utf-8", "replace").strip()
        finally:
            os.close(fd)
        return None, held
    return fd, ""


def say_listener_owner(fd: int, url: str) -> None:
    """Write "pid URL" into a held listener lock (what a second payscope reads and says)."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {url}\n".encode(), 0)


def held_elsewhere(profile: str, held: str) -> str:
    """Why this payscope starts no listener: another one listens for `profile` (its "pid
    URL" as written in the lock, when readable)."""
    pid, _, url = held.partition(" ")
    who = f"payscope (pid {pid})" if pid.isdigit() else "payscope"
    where = f" on {url}" if url.startswith("http") else ""
    return (
        f"Another {who} already listens for profile {profile}'s webhooks{where}. The service "
        "sends them to the one URL registered with it, so this payscope gets none: its Events "
        "stay empty and its lists do not update by themselves (r reloads). Watch webhooks in "
        "the other one, or quit it and start this one again to listen here."
    )
