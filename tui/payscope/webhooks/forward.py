"""Forwarding: re-POST accepted events, byte for byte, to the merchant's own local server.

The route table maps event-type patterns (`fnmatch` style: `payment_*`, `refund_succeeded`,
`*`) to URLs; the first matching pattern wins, and `forward_to` catches the rest.

Forwarding is durable, like the sandbox's outbox. The forward an event is owed is a row of the
journal's `forward_queue`, written in the same commit as the event itself, so once the listener
has answered 200 the forward is owed even if the process dies the next instant. A worker task
sends due forwards after the answer (at most `concurrency` at a time, so a slow or absent
merchant server never delays an acknowledgement), records every attempt (status or error,
latency, time) together with the row's new state, and retries failures (any answer but a 2xx)
after `RETRY_DELAYS` (1 s, 5 s, 30 s, 2 min, 10 min, 30 min, then hourly). A forward still
failing `GIVE_UP_AFTER` (24 h) after its event arrived is marked failed (it can still be
replayed). Pending rows survive a restart: the next start resumes them, so every journaled
event is forwarded at least once (an attempt cut short by a crash is sent again).
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import logging
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from payscope.core.forward_urls import ForwardTargetError, check_url
from payscope.core.waiting import wait_or_wake
from payscope.webhooks.journal import Journal
from payscope.webhooks.records import (
    FORWARD_DELIVERED,
    FORWARD_FAILED,
    FORWARD_PENDING,
    ForwardOutcome,
    ForwardRecord,
    JournalError,
    OwedForward,
)
from payscope.webhooks.signing import SIGNATURE_HEADER

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("payscope.listener")

# Seconds to wait after the 1st, 2nd, ... failed attempt; the last one repeats.
RETRY_DELAYS: tuple[float, ...] = (1, 5, 30, 120, 600, 1800, 3600)
# A forward still failing this long after its event arrived is given up (marked failed).
GIVE_UP_AFTER = 24 * 3600.0
# Forwards in flight at once.
CONCURRENCY = 8
# The answer's body is kept this far (bytes): what a handler says, not an unbounded page.
_BODY_KEEP = 64 * 1024
# Due forwards read from the journal at once (so not one query per forward).
_READ_AHEAD = 16
# The worker looks at the queue at least this often even when told nothing (seconds).
_IDLE_CHECK = 60.0
# After the journal failed to store an outcome, the forward waits this long before its next try.
_JOURNAL_PAUSE = 5.0


class NoForwardTarget(ForwardTargetError):
    """A replay was asked without a URL, and no forward URL or route covers the event."""

    def __init__(self, event_id: str) -> None:
        self.event_id = event_id
        super().__init__(
            f"{event_id} was not replayed: there is no forward URL to send it to. Set a forward "
            "URL (in the TUI's settings, or start `payscope listen` with --forward-to URL), "
            "or give the URL to replay it to."
        )


class Forwarder:
    """Sends owed forwards from the journal's queue, retries them, records every attempt."""

    def __init__(
        self,
        journal: Journal,
        forward_to: str | None = None,
        routes: Mapping[str, str] | None = None,
        *,
        timeout: float = 10.0,
        concurrency: int = CONCURRENCY,
        retry_delays: Sequence[float] = RETRY_DELAYS,
        give_up_after: float = GIVE_UP_AFTER,
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
        self.concurrency = max(1, concurrency)
        self.retry_delays = tuple(retry_delays) or RETRY_DELAYS
        self.give_up_after = give_up_after
        # One client for plain HTTP targets and one for HTTPS: building the TLS context (the CA
        # bundle loaded) is slow on the loop, and for nothing when no target uses TLS.
        self._clients: dict[bool, httpx.AsyncClient] = {}
        self._runner: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None
        self._inflight: dict[str, asyncio.Task[None]] = {}
        self._ready: deque[OwedForward] = deque()  # due, read ahead, not yet started
        self._held: dict[str, float] = {}  # event_id -> not before (the journal failed)
        self._watchers: list[Callable[[ForwardOutcome], object]] = []

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

    def delay_after(self, attempts: int) -> float:
        """Seconds from the `attempts`-th failed attempt to the next one."""
        return float(self.retry_delays[min(max(attempts, 1), len(self.retry_delays)) - 1])

    def watch(self, callback: Callable[[ForwardOutcome], object]) -> Callable[[], None]:
        """Call `callback(outcome)` after each automatic attempt is stored; returns unwatch."""
        self._watchers.append(callback)
        return lambda: self._watchers.remove(callback) if callback in self._watchers else None

    # -- the worker --------------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker in the running loop (when forwarding is on): it resumes the forwards
        left pending by an earlier run, then sends each new one as it is owed."""
        if not self.enabled or (self._runner is not None and not self._runner.done()):
            return
        self._wake = asyncio.Event()
        self._runner = asyncio.get_running_loop().create_task(self._run())

    def wake(self) -> None:
        """A forward was just committed: look at the queue now."""
        if self._wake is None or self._runner is None or self._runner.done():
            self.start()
        if self._wake is not None:
            self._wake.set()

    async def _run(self) -> None:
        assert self._wake is not None
        wake = self._wake
        while True:
            wake.clear()
            timeout = _IDLE_CHECK
            try:
                timeout = self._dispatch()
            except Exception:  # a read failed (file gone, locked): try again later
                log.exception("could not read the forward queue")
            await wait_or_wake(wake, min(timeout, _IDLE_CHECK))

    def _dispatch(self) -> float:
        """Start the due forwards there is room for; seconds until the next one is due.

        Due rows are read `_READ_AHEAD` at a time into `_ready` (one query per batch, not per
        forward: this runs on the loop that answers the webhooks)."""
        inflight = self._inflight
        ready = self._ready
        now = time.time()
        wait = _IDLE_CHECK
        if not ready and len(inflight) < self.concurrency:
            limit = _READ_AHEAD + len(inflight) + len(self._held)
            for item in self.journal.pending_forwards(limit):
                if item.event_id in inflight:
                    continue
                held = self._held.get(item.event_id)
                if held is not None and held > now:
                    wait = min(wait, held - now)
                    continue
                if item.next_at > now:
                    wait = min(wait, item.next_at - now)
                    break
                ready.append(item)
                if len(ready) >= _READ_AHEAD:
                    break
        while ready and len(inflight) < self.concurrency:
            item = ready.popleft()
            self._held.pop(item.event_id, None)
            inflight[item.event_id] = asyncio.get_running_loop().create_task(self._attempt(item))
        # Rows still ready, or every slot taken: a finishing attempt wakes the worker.
        return _IDLE_CHECK if ready or len(inflight) >= self.concurrency else wait

    async def _attempt(self, owed: OwedForward) -> None:
        try:
            url = self.target_for(owed.event_type) or owed.url
            record = await self._post(owed.event_id, url, owed.body, owed.signature)
            attempts = owed.attempts + 1
            next_at: float | None = None
            if record.delivered:
                state = FORWARD_DELIVERED
            else:
                next_at = time.time() + self.delay_after(attempts)
                state = FORWARD_PENDING
                if next_at > owed.accepted_at + self.give_up_after:
                    state, next_at = FORWARD_FAILED, None
            outcome = ForwardOutcome(record, state, attempts, next_at)
            try:
                await self.journal.record_forward_outcome(outcome)
            except JournalError as exc:
                log.warning("could not record the forward of %s: %s", owed.event_id, exc)
                self._held[owed.event_id] = time.time() + _JOURNAL_PAUSE
                return
            for watcher in list(self._watchers):
                try:
                    watcher(outcome)
                except Exception:
                    log.exception("a forward watcher failed on %s", owed.event_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("forwarding %s failed", owed.event_id)
            self._held[owed.event_id] = time.time() + _JOURNAL_PAUSE
        finally:
            self._inflight.pop(owed.event_id, None)
            if self._wake is not None:
                self._wake.set()

    # -- sending -----------------------------------------------------------------------------

    async def send(
        self, event_id: str, url: str, body: bytes, signature: str | None
    ) -> ForwardRecord:
        """POST `body` with its original signature to `url`, record and return the outcome
        (a replay: the automatic forward's queue is left as it is).

        Every outcome is recorded: an answer, a refusal, a timeout (the whole exchange is
        bounded by `timeout`), a URL that cannot be used, and a send cut short by `close`.
        """
        record = await self._post(event_id, url, body, signature)
        await self.journal.record_forward(record)
        return record

    async def _post(
        self, event_id: str, url: str, body: bytes, signature: str | None
    ) -> ForwardRecord:
        """POST once and return the outcome, unrecorded (one cut short is recorded here)."""
        import httpx

        tls = not url.lower().startswith("http://")
        client = self._clients.get(tls)
        if client is None:
            client = self._clients[tls] = httpx.AsyncClient(timeout=self.timeout, verify=tls)
        headers = {"Content-Type": "application/json", "User-Agent": "payscope-listener"}
        if signature is not None:
            headers[SIGNATURE_HEADER] = signature
        sent_at = time.time()
        started = time.perf_counter()
        status: int | None = None
        text: str | None = None
        error: str | None = None
        answered: dict[str, str] = {}
        try:
            async with asyncio.timeout(self.timeout):
                response = await client.post(
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
            # An automatic forward stays pending: the next start sends it again.
            latency = (time.perf_counter() - started) * 1000
            error = f"not finished: the listener stopped before {url} answered"
            record = ForwardRecord(event_id, url, sent_at, None, None, latency, error)
            with contextlib.suppress(JournalError):
                self.journal.record_forward(record).add_done_callback(_log_failure)
            raise
        else:
            status = response.status_code
            text = response.content[:_BODY_KEEP].decode("utf-8", "replace")
            answered = {name.lower(): value for name, value in response.headers.items()}
        latency = (time.perf_counter() - started) * 1000
        return ForwardRecord(
            event_id, url, sent_at, status, text, latency, error, answered if status else None
        )

    # -- stopping ----------------------------------------------------------------------------

    def settled(self) -> bool:
        """True when nothing is being sent and no forward is due now (retries may be later)."""
        if self._inflight or self._ready:
            return False
        if not self.enabled:
            return True
        now = time.time()
        return all(
            max(o.next_at, self._held.get(o.event_id, 0.0)) > now
            for o in self.journal.pending_forwards(len(self._held) + 1)
        )

    async def drain(self, timeout: float) -> None:
        """Wait up to `timeout` seconds until every forward due now has had its attempt."""
        if self._runner is None:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.settled():
                    return
            except Exception:  # the journal cannot be read: nothing to wait for
                return
            await asyncio.sleep(0.01)

    async def close(self) -> None:
        """Stop the worker and the HTTP client; forwards not finished stay owed in the journal
        (an attempt cut short is recorded as such) and the next start resumes them."""
        tasks = [t for t in (self._runner, *self._inflight.values()) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._runner = None
        self._wake = None
        self._inflight.clear()
        self._ready.clear()
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.aclose()


def _log_failure(future: asyncio.Future[None]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("could not record a forward's outcome: %s", future.exception())
