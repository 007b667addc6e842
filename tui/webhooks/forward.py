"""Forwarding: re-POST accepted events, byte for byte, to the merchant's own local server.

The route table maps event-type patterns (`fnmatch` style: `payment_*`, `refund_succeeded`,
`*`) to URLs; the first matching pattern wins, and `forward_to` catches the rest. Forwarding
happens after the listener has answered, on a bounded queue drained by a few worker tasks, so a
slow or absent merchant server never delays an acknowledgement. When the queue is full the
forward is recorded as skipped (the event itself is in the journal and can be replayed).
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from tui.webhooks.journal import ForwardRecord, Journal, JournalError
from tui.webhooks.signing import SIGNATURE_HEADER

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("payscope.listener")

FORWARD_QUEUE_SIZE = 10_000
_WORKERS = 4
# The answer's body is kept this far (bytes): enough to read an error, not a whole page.
_BODY_KEEP = 4096


class ForwardTargetError(ValueError):
    """There is no usable URL to forward or replay to; the message says what to do."""


class NoForwardTarget(ForwardTargetError):
    """A replay was asked without a URL, and no forward URL or route covers the event."""

    def __init__(self, event_id: str) -> None:
        self.event_id = event_id
        super().__init__(
            f"{event_id} was not replayed: there is no forward URL to send it to. Set a forward "
            "URL (in the TUI's settings, or start `payscope listen` with --forward-to URL), "
            "or give the URL to replay it to."
        )


class InvalidForwardUrl(ForwardTargetError):
    """A forward or replay URL that cannot be used (not http(s), no host, not a URL)."""

    def __init__(self, url: str, problem: str) -> None:
        self.url = url
        self.problem = problem
        super().__init__(problem)


def check_url(url: str) -> str:
    """`url` when it can be a forward target; else raise :class:`InvalidForwardUrl`."""
    problem = url_problem(url)
    if problem is not None:
        raise InvalidForwardUrl(url, problem)
    return url


def url_problem(url: str) -> str | None:
    """Why `url` cannot be a forward target (None when it can), written for a person."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsing the port is the check
    except ValueError as exc:
        return f"{url!r} is not a valid URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return f"forward targets need an http:// or https:// URL, got {url!r}"
    if not parts.hostname:
        return f"{url!r} names no host; use e.g. http://127.0.0.1:3000/webhooks"
    return None


class Forwarder:
    """Re-POSTs raw bodies with their signature and records each outcome in the journal."""

    def __init__(
        self,
        journal: Journal,
        forward_to: str | None = None,
        routes: Mapping[str, str] | None = None,
        *,
        timeout: float = 10.0,
        queue_size: int = FORWARD_QUEUE_SIZE,
    ) -> None:
        for url in (forward_to, *(routes or {}).values()):
            if url is not None:
                check_url(url)  # InvalidForwardUrl (a ValueError), saying why
        self.journal = journal
        self.forward_to = forward_to
        self.routes = dict(routes or {})
        # The whole exchange (connect, send, answer), not each step: a target that trickles
        # its answer must not hold a worker for longer than this.
        self.timeout = timeout
        self._queue: asyncio.Queue[tuple[str, bytes, str | None, str]] = asyncio.Queue(queue_size)
        self._workers: list[asyncio.Task[None]] = []
        self._client: httpx.AsyncClient | None = None

    @property
    def enabled(self) -> bool:
        """True when at least one target is configured."""
        return bool(self.forward_to or self.routes)

    def target_for(self, event_type: str | None) -> str | None:
        """The URL an event of this type goes to, or None."""
        if event_type is not None:
            for pattern, url in self.routes.items():
                if fnmatch.fnmatchcase(event_type, pattern):
                    return url
        return self.forward_to

    def enqueue(
        self, event_id: str, event_type: str | None, body: bytes, signature: str | None
    ) -> None:
        """Schedule a forward (never blocks; a full queue is recorded as a skipped forward)."""
        url = self.target_for(event_type)
        if url is None:
            return
        self._ensure_workers()
        try:
            self._queue.put_nowait((event_id, body, signature, url))
        except asyncio.QueueFull:
            log.warning("forward queue full; %s not forwarded (replay it later)", event_id)
            record = ForwardRecord(
                event_id, url, time.time(), None, None, None,
                "not forwarded: the forward queue was full (replay it from the journal)",
            )  # fmt: skip
            self.journal.record_forward(record).add_done_callback(_log_failure)

    async def send(
        self, event_id: str, url: str, body: bytes, signature: str | None
    ) -> ForwardRecord:
        """POST `body` with its original signature to `url`, record and return the outcome.

        Every outcome is recorded: an answer, a refusal, a timeout (the whole exchange is
        bounded by `timeout`), a URL that cannot be used, and a forward cut short by `close`.
        """
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout)
        headers = {"Content-Type": "application/json", "User-Agent": "payscope-listener"}
        if signature is not None:
            headers[SIGNATURE_HEADER] = signature
        sent_at = time.time()
        started = time.perf_counter()
        status: int | None = None
        text: str | None = None
        error: str | None = None
        try:
            async with asyncio.timeout(self.timeout):
                response = await self._client.post(
                    url, content=body, headers=headers, timeout=self.timeout
                )
        except (TimeoutError, httpx.TimeoutException) as exc:
            error = f"no answer from {url} within {self.timeout:g} s ({type(exc).__name__})"
        except httpx.InvalidURL as exc:
            error = f"cannot forward to {url!r}: {exc}"
        except httpx.HTTPError as exc:
            error = f"could not reach {url}: {str(exc) or type(exc).__name__}"
        except asyncio.CancelledError:
            # Stopping: record why there is no answer (the journal stores it while closing).
            latency = (time.perf_counter() - started) * 1000
            error = f"not finished: the listener stopped before {url} answered"
            record = ForwardRecord(event_id, url, sent_at, None, None, latency, error)
            with contextlib.suppress(JournalError):
                self.journal.record_forward(record).add_done_callback(_log_failure)
            raise
        else:
            status = response.status_code
            text = response.content[:_BODY_KEEP].decode("utf-8", "replace")
        latency = (time.perf_counter() - started) * 1000
        record = ForwardRecord(event_id, url, sent_at, status, text, latency, error)
        await self.journal.record_forward(record)
        return record

    def _ensure_workers(self) -> None:
        if not self._workers:
            self._workers = [asyncio.create_task(self._work()) for _ in range(_WORKERS)]

    async def _work(self) -> None:
        while True:
            event_id, body, signature, url = await self._queue.get()
            try:
                await self.send(event_id, url, body, signature)
            except Exception:
                log.exception("forwarding %s to %s failed", event_id, url)
            finally:
                self._queue.task_done()

    async def drain(self, timeout: float) -> None:
        """Wait up to `timeout` seconds for queued forwards to finish."""
        if self._workers:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._queue.join(), timeout)

    async def close(self) -> None:
        """Stop the workers and the HTTP client (queued forwards are dropped)."""
        for task in self._workers:
            task.cancel()
        for task in self._workers:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._workers = []
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _log_failure(future: asyncio.Future[None]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("could not record a forward's outcome: %s", future.exception())
