"""Payments' live first page, asked for while Textual loads (standard library only).

A warm start paints the page cached by the last run at once, but the live page used to wait for
the API client: httpx, pydantic and the payment models cost more than the whole first paint, and
they load only once the app is drawing. When the local sandbox is the background service kept
between runs, its URL is in its state file and its key in its database, so one
`POST /payments/list` can go out before the app is even built, over a plain socket. Its rows
(only the table's columns) replace the cached ones as live data; the client reads the page
again, whole, once it is up, and the exchange goes into the request journal like any other
request.

Where it runs: the command line starts it before Textual is imported, while the process has no
other thread, so on Linux it is read by a forked child on the other core (`start(fork=True)`)
and handed back through a pipe: read in a thread, its work (the database, the socket, the JSON:
about 22 ms of CPU) would take the GIL from the imports and the first paint. Anywhere else, or
once threads run, a thread reads it.

Any problem (no daemon, an old database, an error answer, a row that does not look right) leaves
no page: the normal path follows, and nothing is said. The key is only ever in memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

from tui import __version__
from tui.screens.payments_cache import PAGE_SIZE, CachedPayment, row_of

PATH = "/payments/list"
TIMEOUT = 2.0  # seconds: past that the client's own first read is as quick


# A NamedTuple: made at import, before the first frame (why: docs/architecture.md).
class Exchange(NamedTuple):
    """The request and its answer, for the request journal (not yet redacted: the client's
    redactor does that when it records it)."""

    method: str
    url: str
    path: str
    request_headers: list[tuple[str, str]]
    request_body: bytes
    status: int
    response_headers: list[tuple[str, str]]
    response_body: bytes
    started_at: float
    latency_ms: float


class LivePage(NamedTuple):
    """The first page of payments, newest first, as the service answered it at launch."""

    base_url: str
    rows: list[CachedPayment]
    total: int
    exchange: Exchange


class Prefetch:
    """One request in a daemon thread; `page` is set (or stays None) before `done` is."""

    def __init__(self, directory: Path, limit: int) -> None:
        self.directory = directory
        self.limit = limit
        self.page: LivePage | None = None
        self.exchange: Exchange | None = None  # kept after the page is taken, for the journal
        self._done = False
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []
        self.child_pid: int | None = None  # the forked child that reads it, if one does

    def start(self, *, fork: bool = False) -> Prefetch:
        """Read in a daemon thread; with `fork`, in a forked child when that is safe (Linux, and
        no other thread in this process: a fork copies only the calling thread, so a lock held
        by another one would stay held in the child), the thread only collecting its page."""
        forked = None
        if fork and sys.platform == "linux" and threading.active_count() == 1:
            forked = self._fork()
        target: Callable[..., None] = self._run
        args: tuple[int, ...] = ()
        if forked is not None:
            self.child_pid, reader = forked
            target, args = self._collect, (self.child_pid, reader)
        threading.Thread(target=target, args=args, name="payscope-prefetch", daemon=True).start()
        return self

    def _fork(self) -> tuple[int, int] | None:
        """A child that reads the page into a pipe: (its pid, the pipe's end to read), or None
        when the pipe or the fork cannot be made (a thread reads it then)."""
        try:
            reader, writer = os.pipe()
        except OSError:
            return None
        try:
            pid = os.fork()
        except OSError:
            os.close(reader)
            os.close(writer)
            return None
        if pid == 0:  # the child: read, hand the page over, leave (never returns)
            os.close(reader)
            _read_in_child(writer, self.directory, self.limit)
        os.close(writer)
        return pid, reader

    @property
    def done(self) -> bool:
        return self._done

    def when_done(self, callback: Callable[[], None]) -> bool:
        """True when the request has ended already (the caller goes on at once); else
        `callback` is called from the prefetch thread when it ends."""
        with self._lock:
            if self._done:
                return True
            self._callbacks.append(callback)
            return False

    def take(self) -> LivePage | None:
        """The page, once: whoever shows it first owns it."""
        with self._lock:
            page, self.page = self.page, None
            return page

    def _run(self) -> None:
        page: LivePage | None = None
        try:
            page = fetch_first_page(self.directory, self.limit)
        except Exception:  # a head start only: the normal path says what is wrong
            page = None
        self._finish(page)

    def _collect(self, pid: int, reader: int) -> None:
        """The forked child's page, from the pipe (blocking reads: the GIL is free meanwhile)."""
        page: LivePage | None = None
        try:
            with open(reader, "rb") as source:
                data = source.read()
            if data:
                import pickle

                loaded = pickle.loads(data)  # from our own child, through our own pipe
                page = loaded if isinstance(loaded, LivePage) else None
        except Exception:
            page = None
        finally:
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)  # no zombie left behind
        self._finish(page)

    def _finish(self, page: LivePage | None) -> None:
        with self._lock:
            self.page = page
            self.exchange = page.exchange if page is not None else None
            self._done = True
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            with contextlib.suppress(Exception):  # the app may be gone already
                callback()


# The read the command line starts before importing Textual (see `start_early`).
_early: Prefetch | None = None


def start_early(profile: str | None, sandbox_mode: str) -> None:
    """Start the read at the very beginning of `payscope` (the TUI), before Textual is
    imported: the thread's waits (the sandbox's answer) overlap the imports. Only for the local
    profile on the background sandbox; `Runtime.spawn_early` adopts it, or starts its own."""
    global _early
    if profile is not None or sandbox_mode == "in-process":
        return
    from tui.paths import data_dir

    _early = Prefetch(data_dir() / "sandbox", PAGE_SIZE).start(fork=True)


def adopt(directory: Path) -> Prefetch | None:
    """The read `start_early` started, when it is for `directory` (once)."""
    global _early
    early, _early = _early, None
    return early if early is not None and early.directory == directory else None


def _read_in_child(writer: int, directory: Path, limit: int) -> NoReturn:
    """The forked child's whole life: the page, pickled into the pipe, then `os._exit` (no
    cleanup of the parent's state: its buffers, files and handlers are the parent's)."""
    code = 1
    try:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is for the app, which reaps us
        page = fetch_first_page(directory, limit)
        if page is not None:
            import pickle

            data = pickle.dumps(page, protocol=pickle.HIGHEST_PROTOCOL)
            view = memoryview(data)
            while view:
                view = view[os.write(writer, view) :]
        code = 0
    except BaseException:  # nothing to say: the parent sees no page and goes the normal way
        pass
    finally:
        os._exit(code)


def fetch_first_page(directory: Path, limit: int) -> LivePage | None:
    """Ask the background sandbox in `directory` for its newest `limit` payments."""
    from tui.sandbox import daemon

    state = daemon.read_state(directory)
    if state is None or state.phase != "ready" or not state.url.startswith("http://"):
        return None
    credentials = daemon.read_credentials(directory)
    if credentials is None:
        return None
    from urllib.parse import urlsplit

    where = urlsplit(state.url)
    body = json.dumps({"limit": limit, "offset": 0}).encode()
    headers = [
        ("api-key", credentials.api_key),
        ("Content-Type", "application/json"),
        ("Accept", "application/json"),
        ("User-Agent", f"payscope/{__version__} (+python, start-up)"),
    ]
    started_at = time.time()
    t0 = time.perf_counter()
    status, response_headers, raw = _post(
        where.hostname or "", where.port or 80, PATH, headers, body, TIMEOUT
    )
    latency_ms = (time.perf_counter() - t0) * 1000.0
    if status != 200:
        return None
    rows, total = _rows(json.loads(raw))
    if rows is None:
        return None
    exchange = Exchange(
        "POST",
        state.url.rstrip("/") + PATH,
        PATH,
        [*headers, ("Content-Length", str(len(body)))],
        body,
        status,
        response_headers,
        raw,
        started_at,
        latency_ms,
    )
    return LivePage(state.url, rows, total, exchange)


def _post(
    host: str, port: int, path: str, headers: list[tuple[str, str]], body: bytes, timeout: float
) -> tuple[int, list[tuple[str, str]], bytes]:
    """One HTTP/1.1 POST on its own connection: (status, headers, body); ValueError for an
    answer that is not a whole HTTP/1.x response with a `Content-Length` body.

    A plain socket, not `http.client`: this runs beside Textual's import, and `http.client`
    with the `email` package it parses headers with costs about 25 ms of CPU, taken from the
    first paint by the GIL. The local sandbox (uvicorn) answers JSON with its length; anything
    else (chunked, cut short) is refused and the normal path follows.
    """
    import socket

    deadline = time.monotonic() + timeout
    head = "".join(
        [
            f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n",
            *(f"{name}: {value}\r\n" for name, value in headers),
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n",
        ]
    )
    chunks: list[bytes] = []
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(head.encode("latin-1") + body)
        while chunk := sock.recv(65536):
            chunks.append(chunk)
            if time.monotonic() > deadline:
                raise TimeoutError("the start-up read took too long")
    answer_head, blank, answer = b"".join(chunks).partition(b"\r\n\r\n")
    lines = answer_head.decode("latin-1").split("\r\n")
    version, _, rest = lines[0].partition(" ")
    if not blank or not version.startswith("HTTP/1."):
        raise ValueError("not an HTTP/1.x answer")
    status = int(rest.partition(" ")[0])
    answer_headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon:
            raise ValueError(f"not a header line: {line!r}")
        answer_headers.append((name.strip(), value.strip()))
    fields = {name.lower(): value for name, value in answer_headers}
    if "transfer-encoding" in fields or int(fields.get("content-length", "-1")) != len(answer):
        raise ValueError("the answer's body is not the length it says")
    return status, answer_headers, answer


def _rows(data: Any) -> tuple[list[CachedPayment] | None, int]:
    """The table's rows and the total from the spec's list shape (None: not that shape)."""
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        return None, 0
    rows: list[CachedPayment] = []
    for item in data["data"]:
        row = row_of(item)
        if row is None:
            return None, 0
        rows.append(row)
    total = data.get("total_count")
    if not isinstance(total, int) or isinstance(total, bool) or total < len(rows):
        return None, 0
    return rows, total
