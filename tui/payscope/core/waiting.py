"""Waiting for an event with a time limit, in a loop that is stopped by cancelling it."""

from __future__ import annotations

import asyncio
import contextlib


async def wait_or_wake(wake: asyncio.Event, seconds: float) -> bool:
    """Wait `seconds`, less if `wake` is set; True if it was.

    Not `asyncio.wait_for(wake.wait(), seconds)`: on Python 3.11 that can swallow a
    cancellation arriving as the event is set (python/cpython#86296), and a loop stopped by
    cancelling it then runs on. `payscope listen --forward-to` hung on Ctrl+C about one time in
    eight that way, its forwarder waiting a minute per turn of a loop that was never stopped.
    """
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(max(0.0, seconds)):
            await wake.wait()
            return True
    return False
