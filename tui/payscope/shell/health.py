"""A remote service's health, checked periodically, with backoff while it is down.

No Textual here: the main screen passes callbacks that show or hide its banner, so the loop is
testable on its own and the screen stays about layout.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from payscope.core.waiting import wait_or_wake  # the loop's only clock (tests freeze it here)

HEALTHY_INTERVAL = 30.0  # while up: a cheap GET /health now and then
FIRST_RETRY = 1.0  # while down: 1, 2, 4, ... seconds, up to MAX_RETRY
MAX_RETRY = 60.0


def next_delay(previous: float) -> float:
    """The wait before the next check of a service that is still down (doubling, capped)."""
    return min(MAX_RETRY, previous * 2)


async def watch_health(
    check: Callable[[], Awaitable[object]],
    on_down: Callable[[BaseException, float], None],
    on_up: Callable[[], None],
    wake: asyncio.Event,
    *,
    healthy_interval: float = HEALTHY_INTERVAL,
) -> None:
    """Check forever: `on_down(error, next wait)` on each failure, `on_up()` once it answers again.

    Setting `wake` checks at once (the user's "retry now").
    """
    down = False
    delay = FIRST_RETRY
    while True:
        try:
            await check()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # any failure means "not usable now"; told on the banner
            on_down(exc, delay)
            down = True
            wait = delay
            delay = next_delay(delay)
        else:
            if down:
                on_up()
                down = False
            delay = FIRST_RETRY
            wait = healthy_interval
        wake.clear()
        await wait_or_wake(wake, wait)
