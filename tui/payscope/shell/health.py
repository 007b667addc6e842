"""The health of what a run depends on: a remote service's, checked periodically with backoff
while it is down, and the background local sandbox's, started again when it stops.

No Textual here: `HealthSupervisor` posts what changed to the main screen, which shows or hides
its banner; the loops are testable on their own and the screen stays about layout.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from payscope.core.waiting import wait_or_wake  # the loops' only clock (tests freeze it here)

if TYPE_CHECKING:
    from payscope.app.runtime import Runtime

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


# -- the supervisor: what this run depends on, watched; news posted to the shell ---------------

# How often the background sandbox is checked (a state file, a lock, /proc): a dead one is
# noticed within two of these.
SANDBOX_CHECK_INTERVAL = 1.0


@dataclass(frozen=True)
class ServiceDown:
    """The remote service does not answer; it is checked again in `retry_in` seconds."""

    error: BaseException
    retry_in: float


@dataclass(frozen=True)
class ServiceUp:
    """The remote service answers again."""


@dataclass(frozen=True)
class SandboxDown:
    """The background sandbox no longer serves this run (`why`, said for a person)."""

    why: str


@dataclass(frozen=True)
class SandboxStarting:
    """The background sandbox is being started again: how far (as start-up reports it)."""

    text: str
    fraction: float | None


@dataclass(frozen=True)
class SandboxFailed:
    """It could not be started again; the user's retry (`wake`) tries once more."""

    error: BaseException


@dataclass(frozen=True)
class SandboxBack:
    """It serves again, on `url`."""

    url: str


HealthNews: TypeAlias = (
    ServiceDown | ServiceUp | SandboxDown | SandboxStarting | SandboxFailed | SandboxBack
)


class HealthSupervisor:
    """Watches what this run's screens depend on: a remote profile's service (a cheap health
    check, backing off while it is down) or the background local sandbox (started again when
    it stops). Draws nothing: each change is posted as news to the shell through `post`."""

    def __init__(self, runtime: Runtime, post: Callable[[HealthNews], None]) -> None:
        self.runtime = runtime
        self.post = post
        self._wake = asyncio.Event()

    @property
    def watches(self) -> str | None:
        """What there is to watch on this run: "service", "sandbox" or None (the embedded
        sandbox lives and dies with the app)."""
        if not self.runtime.options.is_local:
            return "service"
        if self.runtime.daemon_dir is not None:
            return "sandbox"
        return None

    def wake(self) -> None:
        """Check at once (the user's "retry now")."""
        self._wake.set()

    async def run(self) -> None:
        """Watch until cancelled."""
        watched = self.watches
        if watched == "service":
            await self._watch_service()
        elif watched == "sandbox":
            await self._watch_sandbox()

    async def _watch_service(self) -> None:
        client = self.runtime.api
        await watch_health(
            client.health,
            lambda error, retry_in: self.post(ServiceDown(error, retry_in)),
            lambda: self.post(ServiceUp()),
            self._wake,
        )

    async def _watch_sandbox(self) -> None:
        """Checked every second (its state file, its lock; no request). Gone (killed, stopped,
        its data moved), it is said at once and started again on its port and data; a wake
        tries again at once after a failure."""
        runtime, wake = self.runtime, self._wake
        while True:
            await wait_or_wake(wake, SANDBOX_CHECK_INTERVAL)
            wake.clear()
            why = runtime.sandbox_gone()
            if not why:
                continue
            self.post(SandboxDown(why))
            try:
                url = await runtime.revive(
                    lambda text, fraction: self.post(SandboxStarting(text, fraction))
                )
            except Exception as exc:  # said on the banner; a wake tries again
                self.post(SandboxFailed(exc))
                await wake.wait()
                continue
            self.post(SandboxBack(url))
