"""Waiting for an event with a time limit, in a loop that is stopped by cancelling it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def within(awaitable: Awaitable[T], seconds: float | None) -> T:
    """What `awaitable` gives, or `TimeoutError` once `seconds` have passed (None: no limit).

    Payscope's one time-limited await, in place of `asyncio.wait_for`: on Python 3.11 that
    swallows a cancellation arriving as what it awaits completes (python/cpython#86296). Ctrl+C
    during `payscope export` was then lost whenever it came with a page's answer, and the export
    ran on to its end and wrote its file (seen on a loaded machine). Awaited in the caller's
    own task under `asyncio.timeout`, the cancellation is always delivered.
    """
    async with asyncio.timeout(seconds):
        return await awaitable


async def wait_or_wake(wake: asyncio.Event, seconds: float) -> bool:
    """Wait `seconds`, less if `wake` is set; True if it was.

    Through `within`, so a cancellation arriving as the event is set is never lost: a loop
    stopped by cancelling it stops. (Through `asyncio.wait_for`, `payscope listen --forward-to`
    hung on Ctrl+C about one time in eight, its forwarder waiting a minute per turn of a loop
    that was never stopped.)
    """
    with contextlib.suppress(TimeoutError):
        await within(wake.wait(), max(0.0, seconds))
        return True
    return False
