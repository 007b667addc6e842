"""Files only their owner may read: the sandbox's and the listener's SQLite files, the daemon's
state and log, exports, and secrets read from a file instead of the command line.

Standard library only (the sandbox, the listener and the TUI all use it). Modes are set
explicitly, whatever the umask: directories payscope creates are 0700, files it creates 0600,
and a database it opens is brought to 0600 with its `-wal` and `-shm` companions (a file left
by an older version, created under the umask, is tightened the next time it is opened).
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import IO, Any, TextIO

DIR_MODE = 0o700
FILE_MODE = 0o600
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def private_dir(path: Path) -> Path:
    """`path` as a directory, creating it and any missing parents 0700 (existing directories
    are left as they are: they may be the user's own, such as a `--data .`)."""
    path = Path(path)
    missing: list[Path] = []
    for candidate in (path, *path.parents):
        if candidate.exists():
            break
        missing.append(candidate)
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another process
            directory.mkdir(mode=DIR_MODE)
            os.chmod(directory, DIR_MODE)  # mkdir's mode is filtered by the umask
    if not path.is_dir():
        path.mkdir()  # raises what the caller reports: a file is in the way
    return path


# What payscope keeps in its data and config dirs: a dir holding only these (and payscope's
# temporary files, which start with "."), or named "payscope" (the platform's), is its own.
OWN_NAMES = frozenset(
    {"sandbox", "listener", "listeners", "cache", "exports", "profiles.toml", "themes"}
)


def secure_own_dir(path: Path, what: str) -> str | None:
    """Make payscope's own `what` dir (the data or the config dir) 0700 when its group or
    others may read or enter it; what to tell the user (None: nothing to tell).

    Only a dir that is payscope's own is changed: a real directory (not a symlink) of this
    user, named "payscope" or holding nothing but payscope's files (`OWN_NAMES`). Any other
    (a `--data .`, a home directory, another user's) is left as it is, and said."""
    path = Path(path)
    try:
        own = os.lstat(path)
    except OSError:
        return None  # not made yet: payscope makes it 0700 (`private_dir`)
    mode = own.st_mode & 0o777
    if not mode & 0o077 or not os.path.isdir(path):
        return None
    reason = ""
    if os.path.islink(path):
        reason = "it is a symlink"
    elif own.st_uid != os.geteuid():
        reason = "it belongs to another user"
    elif path.name != "payscope":
        try:
            foreign = sorted(
                n for n in os.listdir(path) if not n.startswith(".") and n not in OWN_NAMES
            )
        except OSError:
            foreign = ["?"]
        if foreign:
            reason = f"it holds files that are not payscope's ({', '.join(foreign[:3])})"
    if reason:
        return (
            f"The {what} dir {path} can be read by other users (mode {mode:04o}); payscope keeps "
            f"its own files in it private but leaves the dir as it is: {reason}. "
            f"Consider chmod 700 {path}."
        )
    try:
        os.chmod(path, DIR_MODE)
    except OSError as exc:
        return (
            f"The {what} dir {path} can be read by other users, and could not be made "
            f"private: {exc.strerror}."
        )
    return (
        f"The {what} dir {path} could be read by other users (mode {mode:04o}): it is now 0700 "
        "(yours alone)."
    )


def create_private(path: Path) -> None:
    """Create `path` empty and 0600 unless it exists; tighten a file that does to 0600 (what
    is in the way otherwise, a directory say, is left for the caller's open to report)."""
    path = Path(path)
    private_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC, FILE_MODE)
    except FileExistsError:
        if path.is_file():
            with contextlib.suppress(OSError):  # not ours to change (another owner): leave it
                os.chmod(path, FILE_MODE)
        return
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)


def tighten_sqlite(path: Path) -> None:
    """0600 on the database `path` and whichever of its companion files exist now."""
    for name in (str(path), *(str(path) + suffix for suffix in SQLITE_COMPANIONS)):
        with contextlib.suppress(FileNotFoundError):
            os.chmod(name, FILE_MODE)


def open_private(path: Path, mode: str = "w") -> IO[Any]:
    """`open(path, mode)` for writing ("w", "a", "wb" or "ab"; text is UTF-8), the file 0600
    whether new or not, and its directory created 0700."""
    path = Path(path)
    private_dir(path.parent)
    flags = os.O_WRONLY | os.O_CREAT | _CLOEXEC
    flags |= os.O_APPEND if mode.startswith("a") else os.O_TRUNC
    fd = os.open(path, flags, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
        if "b" in mode:
            return os.fdopen(fd, mode)
        return os.fdopen(fd, mode, encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def write_private(path: Path, text: str) -> None:
    """Replace `path` with `text` atomically (a temporary file renamed over it), 0600."""
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    with open_private(temporary) as out:
        out.write(text)
    os.replace(temporary, path)


class SecretFileError(ValueError):
    """A secret file that cannot be read or holds nothing usable (the message never holds the
    file's content)."""


def read_secret_lines(source: str, flag: str, stdin: TextIO | None = None) -> list[str]:
    """The non-blank lines of the file `source` (`-`: standard input), stripped.

    For `--api-key-file` and the like: a secret typed on the command line is visible to every
    local user in `ps` and stays in the shell history; a file or a pipe is not.
    """
    try:
        if source == "-":
            text = (stdin or sys.stdin).read()
        else:
            text = Path(source).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        where = "standard input" if source == "-" else source
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise SecretFileError(f"{flag}: cannot read {where}: {reason}") from None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        where = "standard input" if source == "-" else source
        raise SecretFileError(f"{flag}: {where} is empty; it should hold the secret")
    return lines


def read_secret(source: str, flag: str, stdin: TextIO | None = None) -> str:
    """The one secret in the file `source` (`-`: standard input); see `read_secret_lines`."""
    lines = read_secret_lines(source, flag, stdin)
    if len(lines) > 1:
        where = "standard input" if source == "-" else source
        raise SecretFileError(f"{flag}: {where} holds {len(lines)} lines; give it one secret")
    return lines[0]
