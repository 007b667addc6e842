"""The request log every payscope on one profile shares: each attempt the client journals
(`payscope.api.journal`, already redacted) appended as one JSON line to the profile's file, so that
`payscope logs tail` in another terminal sees the TUI's, the command line's and the fixtures'
calls as they happen.

- One line per attempt, written with one `write` on a file opened `O_APPEND` for that write:
  lines from several processes never interleave and the request path takes no lock.
- A summary only: when, who (the command and its pid), method, path, status, latency, the
  error's code and message, the attempt. Never a header or a body: the journal's redaction has
  already masked keys and card numbers in the path and the message.
- Bounded: past `MAX_BYTES` the file is renamed to `<name>.1` (replacing the last one) under a
  lock, so a profile keeps at most about twice that. A follower notices the rename and goes on
  in the new file.
- A log that cannot be written (disk full, a read-only data dir) is said once in the log and
  left alone: the request itself never fails because of it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from payscope.api.journal import JournalEntry, RequestJournal
from payscope.core.private_files import private_dir

log = logging.getLogger(__name__)

MAX_BYTES = 8 * 1024 * 1024
# A line of ours is well under this (the message is cut to `_MESSAGE_CHARS`); a longer one is
# not ours and is skipped unread.
MAX_LINE = 16 * 1024
_MESSAGE_CHARS = 500
VERSION = 1
# How often a follower looks for new lines: soon after a line came, then less and less often
# while none does, up to `IDLE_POLL` (a `stat` and a `read`: no measurable CPU).
BUSY_POLL = 0.05
IDLE_POLL = 0.25


def request_log_path(data_dir: Path, profile: str | None) -> Path:
    """The log of `profile` (None: the embedded sandbox, the local profile)."""
    if profile is None:
        return data_dir / "requests" / "local.jsonl"
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", profile) or "_"
    return data_dir / "requests" / f"profile-{safe}.jsonl"


@dataclass(frozen=True)
class LoggedRequest:
    """One line of the log (see the module docstring)."""

    at: float
    source: str
    pid: int
    method: str
    path: str
    status: int | None
    latency_ms: float
    attempt: int = 1
    code: str | None = None
    message: str | None = None
    error: str | None = None
    request_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "v": VERSION,
            "at": round(self.at, 6),
            "source": self.source,
            "pid": self.pid,
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "latency_ms": round(self.latency_ms, 1),
            "attempt": self.attempt,
            "code": self.code,
            "message": self.message,
            "error": self.error,
            "request_id": self.request_id,
        }

    @classmethod
    def from_json(cls, data: Any) -> LoggedRequest | None:
        """The line's record, or None when it is not one of ours (wrong types, missing keys)."""
        if not isinstance(data, dict) or data.get("v") != VERSION:
            return None
        try:
            status = data["status"]
            if status is not None and (not isinstance(status, int) or isinstance(status, bool)):
                return None
            return cls(
                at=float(data["at"]),
                source=_text(data["source"]) or "?",
                pid=int(data["pid"]),
                method=_text(data["method"]) or "?",
                path=_text(data["path"]) or "",
                status=status,
                latency_ms=float(data["latency_ms"]),
                attempt=int(data.get("attempt") or 1),
                code=_text(data.get("code")),
                message=_text(data.get("message")),
                error=_text(data.get("error")),
                request_id=_text(data.get("request_id")),
            )
        except (KeyError, TypeError, ValueError, OverflowError):
            return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _error_of(body: str | None) -> tuple[str | None, str | None]:
    """The code and message of an error answer's body (either contract's envelope)."""
    if not body or body[:1] != "{":
        return None, None
    try:
        payload = json.loads(body)
    except ValueError:
        return None, None
    envelope = payload.get("error") if isinstance(payload, dict) else None
    if envelope is None and isinstance(payload, dict) and "error_type" in payload:
        envelope = payload
    if isinstance(envelope, str):
        return None, envelope[:_MESSAGE_CHARS]
    if not isinstance(envelope, dict):
        return None, None
    code, message = envelope.get("code"), envelope.get("message")
    return (
        code if isinstance(code, str) else None,
        message[:_MESSAGE_CHARS] if isinstance(message, str) else None,
    )


def summarise(entry: JournalEntry, source: str, pid: int | None = None) -> LoggedRequest:
    """The log's line for one journaled attempt."""
    code = message = None
    if entry.status is not None and entry.status >= 400:
        code, message = _error_of(entry.response_body)
    return LoggedRequest(
        at=entry.started_at,
        source=source,
        pid=os.getpid() if pid is None else pid,
        method=entry.method,
        path=entry.path,
        status=entry.status,
        latency_ms=entry.latency_ms,
        attempt=entry.attempt,
        code=code,
        message=message,
        error=entry.error,
        request_id=entry.response_headers.get("x-request-id"),
    )


class RequestLogWriter:
    """Appends each attempt a client journals to the profile's log (`attach`)."""

    def __init__(self, path: Path, source: str, *, max_bytes: int = MAX_BYTES) -> None:
        self.path = path
        self.source = source
        self.max_bytes = max_bytes
        self._pid = os.getpid()
        self._ready = False
        self.broken: str | None = None  # why nothing is written any more

    def attach(self, journal: RequestJournal) -> Callable[[], None]:
        """Log every entry `journal` records from now on; returns the function that stops it."""
        return journal.subscribe(self.write)

    def write(self, entry: JournalEntry) -> None:
        if self.broken is not None:
            return
        line = json.dumps(
            summarise(entry, self.source, self._pid).to_json(),
            ensure_ascii=False,
            separators=(",", ":"),
        )
        try:
            self._append((line + "\n").encode("utf-8", errors="replace"))
        except OSError as exc:
            self.broken = f"{self.path}: {exc.strerror or exc}"
            log.warning("the shared request log is not written any more (%s)", self.broken)

    def _append(self, data: bytes) -> None:
        if not self._ready:
            private_dir(self.path.parent)
            self._ready = True
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        fd = os.open(self.path, flags, 0o600)
        try:
            os.write(fd, data)
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size > self.max_bytes:
            self._rotate()

    def _rotate(self) -> None:
        lock = os.open(
            self.path.with_name(self.path.name + ".lock"),
            os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW,
            0o600,
        )
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            # Another writer may have rotated it meanwhile: only a file still too big goes.
            with contextlib.suppress(FileNotFoundError):
                if os.stat(self.path).st_size > self.max_bytes:
                    os.replace(self.path, self.path.with_name(self.path.name + ".1"))
        finally:
            os.close(lock)


class RequestLogFollower:
    """Reads the lines written to a log after it was opened (or all of them: `from_start`).

    `poll()` returns what is new without waiting; `follow()` yields records as they come,
    sleeping between looks (`BUSY_POLL` to `IDLE_POLL`). A rotated log is read to its end, then
    the new file from its start; a log that does not exist yet is waited for."""

    def __init__(self, path: Path, *, from_start: bool = False) -> None:
        self.path = path
        self._fd: int | None = None
        self._inode: tuple[int, int] | None = None
        self._buffer = b""
        self._skipping = False
        self._from_start = from_start
        self.skipped = 0  # lines that were not ours (too long, not JSON, wrong shape)
        self._open(at_end=not from_start)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RequestLogFollower:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _open(self, *, at_end: bool) -> bool:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except (FileNotFoundError, NotADirectoryError):
            return False
        stat = os.fstat(fd)
        self._fd, self._inode = fd, (stat.st_dev, stat.st_ino)
        self._buffer, self._skipping = b"", False
        if at_end:
            os.lseek(fd, 0, os.SEEK_END)
        return True

    def _replaced(self) -> bool:
        """True when the path names another file than the one read (rotated or made anew)."""
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return False
        return (stat.st_dev, stat.st_ino) != self._inode

    def poll(self) -> list[LoggedRequest]:
        records = self._drain()
        if self._fd is None:
            # Not there when we started: everything in it is new.
            if self._open(at_end=False):
                records += self._drain()
        elif self._replaced():
            records += self._drain()  # the rest of the old file first
            self.close()
            if self._open(at_end=False):
                records += self._drain()
        return records

    def _drain(self) -> list[LoggedRequest]:
        if self._fd is None:
            return []
        records: list[LoggedRequest] = []
        while True:
            chunk = os.read(self._fd, 64 * 1024)
            if not chunk:
                break
            records += self._lines(chunk)
        return records

    def _lines(self, chunk: bytes) -> list[LoggedRequest]:
        out: list[LoggedRequest] = []
        data = self._buffer + chunk
        *lines, rest = data.split(b"\n")
        for line in lines:
            if self._skipping:
                self._skipping = False  # the end of a line too long to be ours
                self.skipped += 1
                continue
            record = _parse(line)
            if record is None:
                self.skipped += bool(line.strip())
            else:
                out.append(record)
        if len(rest) > MAX_LINE:
            self._skipping, rest = True, b""
        self._buffer = rest
        return out

    def follow(self, *, sleep: Callable[[float], None] = time.sleep) -> Iterator[LoggedRequest]:
        """Every new record, as it is written; forever (end it with Ctrl+C or by closing)."""
        wait = BUSY_POLL
        while True:
            records = self.poll()
            yield from records
            wait = BUSY_POLL if records else min(IDLE_POLL, wait * 2)
            sleep(wait)


def _parse(line: bytes) -> LoggedRequest | None:
    if len(line) > MAX_LINE or not line.strip():
        return None
    try:
        return LoggedRequest.from_json(json.loads(line))
    except (ValueError, RecursionError):  # not JSON, or nested past what a parse takes
        return None
