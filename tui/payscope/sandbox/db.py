"""One SQLite connection in WAL mode, shared by every handler on the event loop thread.

Handlers are `async def` and call SQLite directly: a statement takes microseconds, far less
than a hop to a thread pool. Rule for every resource module: never `await` inside
`with db.transaction()`, so no other handler can interleave with a half-done change.

Group commit: on the event loop, `transaction()` is a SAVEPOINT inside one shared write
transaction that is committed once the handlers that are ready to run have run (one COMMIT for
many requests under load, which is most of a write's cost). Each change is still all or
nothing (the savepoint), and the middleware holds every response until `committed()`, so
nothing is acknowledged before it is on disk. Off the loop, `transaction()` commits at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from payscope.core.disk import is_disk_full
from payscope.core.private_files import create_private, tighten_sqlite
from payscope.sandbox.errors import INVALID, SandboxError

log = logging.getLogger("payscope.sandbox")
CORE_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating) the database file with the sandbox's pragmas.

    The file holds the sandbox's keys and webhook secret: it is created 0600 in a 0700
    directory whatever the umask, and SQLite gives its `-wal` and `-shm` the same mode.
    """
    create_private(path)
    conn = sqlite3.connect(
        path, isolation_level=None, check_same_thread=False, cached_statements=512
    )
    conn.execute("PRAGMA journal_mode=WAL")
    tighten_sqlite(path)  # companions an older version left under the umask
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA busy_timeout=10000")
    conn.execute("PRAGMA foreign_keys=OFF")
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute("PRAGMA cache_size=-32000")
    conn.execute("PRAGMA wal_autocheckpoint=10000")
    return conn


class DatabaseUnusable(RuntimeError):
    """The sandbox's database file cannot be used; the message names it and what to do."""


def unusable(path: Path, exc: sqlite3.Error) -> DatabaseUnusable:
    """The error to report for `exc`, raised while opening the database at `path`."""
    text = str(exc)
    if any(sign in text for sign in ("not a database", "malformed", "encrypted", "corrupt")):
        aside = shlex.quote(f"{path}.damaged")
        return DatabaseUnusable(
            f"The sandbox's database {path} is damaged ({text}). Move it aside "
            f"(mv {shlex.quote(str(path))} {aside}) and payscope starts a fresh sandbox, with "
            "new keys and a new merchant id; or put back a copy you kept."
        )
    return DatabaseUnusable(
        f"The sandbox's database {path} cannot be opened ({text}). Check that no other program "
        "holds it and that its directory is writable."
    )


class Database:
    """The sandbox's SQLite file: schema, `meta` key-value pairs and transactions."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # A file that is there but empty (0 bytes) opens as a new database: the sandbox then
        # starts afresh, with new keys, and says so (`SandboxState.started_afresh`).
        try:
            self.was_empty = path.stat().st_size == 0
        except OSError:
            self.was_empty = False
        self.conn = connect(path)
        self.conn.executescript(CORE_SCHEMA)
        self._batch: asyncio.Future[None] | None = None
        # Why writes fail now (a full disk), said once in the log until a commit succeeds.
        self.disk_full: str | None = None
        # Turned on when the sandbox starts serving (`SandboxState.ensure_worker`).
        self.group_commit = False

    def apply_schema(self, ddl: str) -> None:
        """Run a resource's `CREATE TABLE/INDEX IF NOT EXISTS` script."""
        if ddl.strip():
            self.conn.executescript(ddl)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One all-or-nothing change (rolled back on any exception); see the module docstring."""
        conn = self.conn
        try:
            loop = asyncio.get_running_loop() if self.group_commit else None
        except RuntimeError:
            loop = None
        if loop is None:
            self.flush()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return
        if self._batch is not None and not conn.in_transaction:
            # SQLite rolled the shared transaction back itself (SQLITE_FULL can): the changes
            # its waiters made are gone, so they are told, and a new one begins.
            lost, self._batch = self._batch, None
            if not lost.done():
                lost.set_exception(sqlite3.OperationalError("the write transaction was lost"))
        if self._batch is None:
            conn.execute("BEGIN IMMEDIATE")
            self._batch = loop.create_future()
            loop.call_soon(self.flush)
        conn.execute("SAVEPOINT change")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK TO change")
            conn.execute("RELEASE change")
            raise
        conn.execute("RELEASE change")

    def flush(self) -> None:
        """Commit the shared write transaction, if one is open, and wake its waiters."""
        batch, self._batch = self._batch, None
        if batch is None:
            return
        try:
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")
            self.note_failure(exc)
            if not batch.done():
                batch.set_exception(exc)
            return
        self.note_success()
        if not batch.done():
            batch.set_result(None)

    def note_failure(self, exc: BaseException) -> bool:
        """Record a failed write; True when it is a full disk. The first one since the last
        good commit is logged (one line, no traceback); the ones after it are not."""
        if not is_disk_full(exc) and self.disk_full is None:
            return False
        if self.disk_full is None:
            self.disk_full = (
                f"The sandbox's disk is full: it cannot write {self.path}. Nothing of this "
                "request was stored; free some space on that disk and retry."
            )
            log.error(
                "disk full: cannot write %s (%s); writes are answered 503 until there is room",
                self.path,
                exc,
            )
        return True

    def note_success(self) -> None:
        if self.disk_full is not None:
            self.disk_full = None
            log.warning("disk has room again: %s is written again", self.path)

    async def committed(self) -> None:
        """Wait until every change made so far is committed."""
        batch = self._batch
        if batch is not None:
            await asyncio.shield(batch)

    def get_meta(self, key: str) -> str | None:
        """A value from the `meta` table, or None."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str, conn: sqlite3.Connection | None = None) -> None:
        """Write a `meta` value (inside the caller's transaction when `conn` is given)."""
        (conn or self.conn).execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def close(self) -> None:
        """Commit what is pending and close the connection (checkpoints the WAL)."""
        self.flush()
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()


def dumps(obj: Any) -> str:
    """Compact JSON, as stored in JSON columns and sent on the wire.

    orjson writes the same text as `json.dumps(obj, separators=(",", ":"),
    ensure_ascii=False)` for the sandbox's objects, about ten times faster: every write and
    every answer goes through here.
    """
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        # Only an integer beyond 64 bits gets here from a request (free-form metadata, a
        # quantity): found on this failure path only, so the hot path pays nothing.
        path = _first_wide_int(obj, "")
        if path is None:
            raise
        raise SandboxError(
            400,
            INVALID,
            "IR_04",
            f"Invalid value for {path or 'body'}: the number is too large to store. "
            f"Allowed: a whole number from {_INT_MIN} to {_INT_MAX}.",
        ) from None


_INT_MIN = -(2**63)
_INT_MAX = 2**64 - 1


def _first_wide_int(obj: Any, path: str) -> str | None:
    """The dotted path of the first int orjson cannot write (beyond 64 bits), or None."""
    if isinstance(obj, int) and not isinstance(obj, bool):
        return path if not _INT_MIN <= obj <= _INT_MAX else None
    if isinstance(obj, dict):
        for key, value in obj.items():
            found = _first_wide_int(value, f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
    elif isinstance(obj, list | tuple):
        for i, value in enumerate(obj):
            found = _first_wide_int(value, f"{path}[{i}]")
            if found is not None:
                return found
    return None
