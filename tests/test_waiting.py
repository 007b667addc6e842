"""`wait_or_wake`: a loop that waits with it stops when it is cancelled, even as it is woken."""

from __future__ import annotations

import asyncio

import pytest

from payscope.core.waiting import wait_or_wake
from tests.waits import HANG


async def test_woken_or_timed_out() -> None:
    wake = asyncio.Event()
    assert await wait_or_wake(wake, 0.01) is False
    wake.set()
    assert await wait_or_wake(wake, 10.0) is True


async def test_a_cancel_that_comes_with_the_wake_is_not_lost() -> None:
    """asyncio.wait_for on Python 3.11 loses it: the forwarder of `payscope listen` then ran
    on after Ctrl+C, and the listener hung."""
    wake = asyncio.Event()
    turns = 0

    async def loop() -> None:
        nonlocal turns
        while True:
            turns += 1
            wake.clear()
            await wait_or_wake(wake, 60.0)

    for _ in range(20):
        task = asyncio.create_task(loop())
        await asyncio.sleep(0)  # the loop waits
        wake.set()  # woken and cancelled in the same turn of the event loop
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, HANG)
