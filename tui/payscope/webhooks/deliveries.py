"""What a listener hands on: each attempt as it was answered (`Delivery`), to every subscriber
through a bounded queue of its own (`Subscription`), by a `Publisher`: the listener itself, or
the TUI's end of a listener serving from a process of its own; and its counters (`ListenerStats`).

Publishing never waits: when a subscriber falls `maxsize` deliveries behind, its oldest
undelivered one is dropped and counted in `Subscription.dropped` (the journal still has it), so
a slow screen can never hold up an acknowledgement.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from payscope.webhooks.records import Attempt, Recorded

log = logging.getLogger("payscope.listener")

SUBSCRIBER_QUEUE_SIZE = 1000


@dataclass
class ListenerStats:
    """Counters since this listener started (the journal holds the full history)."""

    accepted: int = 0
    rejected: int = 0
    duplicates: int = 0
    failed: int = 0  # valid events answered 503 because the journal could not store them


@dataclass(frozen=True, slots=True)
class Delivery:
    """One attempt as the listener answered it: what subscribers receive."""

    delivery_id: int
    received_at: float
    status: int
    verified: bool
    reason: str | None
    event_id: str | None
    event_type: str | None
    object_id: str | None
    object_status: str | None
    duplicate: bool
    duplicate_count: int
    headers: dict[str, str] = field(repr=False)
    body: bytes = field(repr=False)

    @property
    def accepted(self) -> bool:
        """True when answered 2xx (a new event or a duplicate of one)."""
        return 200 <= self.status < 300

    @classmethod
    def of(cls, attempt: Attempt, recorded: Recorded) -> Delivery:
        """The delivery of `attempt`, with what the journal decided about it."""
        return cls(
            delivery_id=recorded.delivery_id,
            received_at=attempt.received_at,
            status=attempt.status,
            verified=attempt.verified,
            reason=attempt.reason,
            event_id=attempt.event_id,
            event_type=attempt.event_type,
            object_id=attempt.object_id,
            object_status=attempt.object_status,
            duplicate=recorded.duplicate,
            duplicate_count=recorded.duplicate_count,
            headers=attempt.headers,
            body=attempt.body,
        )


class Subscription:
    """An async iterator of deliveries with a bounded queue (see the module docstring)."""

    def __init__(self, listener: Publisher, maxsize: int) -> None:
        self._listener = listener
        # Unbounded underneath: `offer` enforces the bound so the end marker always fits.
        self._queue: asyncio.Queue[Delivery | None] = asyncio.Queue()
        self._maxsize = max(1, maxsize)
        # The loop it is read on: a listener serving from its own thread hands deliveries over.
        try:
            self.loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None
        self.dropped = 0
        self._closed = False
        self._closing = False

    def __aiter__(self) -> AsyncIterator[Delivery]:
        return self

    async def __anext__(self) -> Delivery:
        if self._closed and self._queue.empty():
            raise StopAsyncIteration
        item = await self._queue.get()
        if item is None:
            self._closed = True
            raise StopAsyncIteration
        return item

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    def empty(self) -> bool:
        """True when nothing is waiting to be read."""
        return self._queue.empty()

    def get_nowait(self) -> Delivery | None:
        """The next queued delivery without waiting (None at the end of the stream).

        Raises asyncio.QueueEmpty when nothing is queued.
        """
        item = self._queue.get_nowait()
        if item is None:
            self._closed = True
        return item

    def offer(self, delivery: Delivery) -> None:
        """Queue without waiting; on overflow drop the oldest and count it."""
        if self._closing:
            return
        if self._queue.qsize() >= self._maxsize:
            self._queue.get_nowait()
            self.dropped += 1
        self._queue.put_nowait(delivery)

    def close(self) -> None:
        """Stop receiving; iteration ends after what is already queued."""
        if self._closing:
            return
        self._closing = True
        self._listener._subscriptions.discard(self)
        self._queue.put_nowait(None)  # the end marker never counts against the bound


class Publisher:
    """What hands deliveries to subscribers: the listener itself, or the TUI's end of a listener
    serving from a process of its own (`payscope.webhooks.process.ListenerProcess`)."""

    def __init__(self) -> None:
        self._subscriptions: set[Subscription] = set()
        self._callback_tasks: set[asyncio.Task[None]] = set()

    # -- subscribers -------------------------------------------------------------------------

    def subscribe(self, maxsize: int = SUBSCRIBER_QUEUE_SIZE) -> Subscription:
        """A new stream of every delivery from now on; `close()` it (or use `async with`)."""
        sub = Subscription(self, maxsize)
        self._subscriptions.add(sub)
        return sub

    def add_subscriber(
        self,
        callback: Callable[[Delivery], object],
        maxsize: int = SUBSCRIBER_QUEUE_SIZE,
    ) -> Callable[[], None]:
        """Call `callback(delivery)` for every delivery (sync or async); returns unsubscribe.

        The callback runs in its own task fed by a bounded queue, so it never delays an
        acknowledgement; an exception in it is logged and the stream goes on.
        """
        sub = self.subscribe(maxsize)

        async def pump() -> None:
            async for delivery in sub:
                try:
                    result = callback(delivery)
                    if inspect.isawaitable(result):
                        await result
                except Exception:
                    log.exception("a listener subscriber failed on %s", delivery.event_id)

        task = asyncio.get_running_loop().create_task(pump())
        self._callback_tasks.add(task)
        task.add_done_callback(self._callback_tasks.discard)
        return sub.close

    async def _end_subscriptions(self) -> None:
        """Close every subscription; give the callbacks' tasks a second to finish."""
        for sub in list(self._subscriptions):
            sub.close()
        if self._callback_tasks:
            await asyncio.wait(list(self._callback_tasks), timeout=1.0)
        for task in list(self._callback_tasks):
            task.cancel()
