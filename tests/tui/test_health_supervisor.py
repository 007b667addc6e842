"""The health supervisor on its own: no screen, no widget. It says what it watches and posts
what it sees; the main screen only draws that (test_sandbox_revived and test_remote_health run
it inside the app against a real sandbox and a real service that stops answering)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from payscope.shell import health
from payscope.shell.health import (
    HealthNews,
    HealthSupervisor,
    SandboxBack,
    SandboxDown,
    SandboxFailed,
    SandboxStarting,
    ServiceDown,
    ServiceUp,
)
from tests.waits import until


def _runtime(*, local: bool, daemon_dir: Any = None, **more: Any) -> Any:
    """What the supervisor reads of a runtime (a stand-in: a real one starts a sandbox)."""
    return SimpleNamespace(options=SimpleNamespace(is_local=local), daemon_dir=daemon_dir, **more)


def test_it_watches_the_service_the_background_sandbox_or_nothing() -> None:
    def watches(runtime: Any) -> str | None:
        return HealthSupervisor(runtime, lambda _news: None).watches

    assert watches(_runtime(local=False)) == "service"
    assert watches(_runtime(local=True, daemon_dir="/data/sandbox")) == "sandbox"
    assert watches(_runtime(local=True)) is None  # the embedded sandbox ends with the app


async def test_a_service_that_stops_answering_is_posted_down_then_up() -> None:
    answers: list[BaseException | None] = [ConnectionError("refused"), None]

    async def check() -> None:
        answer = answers.pop(0) if answers else None
        if answer is not None:
            raise answer

    news: list[HealthNews] = []
    runtime = _runtime(local=False, api=SimpleNamespace(health=check))
    supervisor = HealthSupervisor(runtime, news.append)
    task = asyncio.create_task(supervisor.run())
    try:
        await until(lambda: len(news) >= 1)
        assert isinstance(news[0], ServiceDown) and news[0].retry_in == health.FIRST_RETRY
        supervisor.wake()  # the user's Ctrl+R: checked again at once
        await until(lambda: len(news) >= 2)
        assert isinstance(news[1], ServiceUp)
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_a_stopped_sandbox_is_posted_down_starting_and_back() -> None:
    gone = ["it is not running", "it is not running"]  # still gone when tried again
    revivals: list[BaseException | str] = [RuntimeError("port taken"), "http://127.0.0.1:8042"]

    async def revive(report: Callable[[str, float | None], None]) -> str:
        report("Starting the local sandbox again on port 8042…", None)
        outcome = revivals.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    news: list[HealthNews] = []
    runtime = _runtime(
        local=True,
        daemon_dir="/data/sandbox",
        sandbox_gone=lambda: gone.pop(0) if gone else "",
        revive=revive,
    )
    supervisor = HealthSupervisor(runtime, news.append)
    task = asyncio.create_task(supervisor.run())
    try:
        supervisor.wake()
        await until(lambda: len(news) >= 3)
        assert news[0] == SandboxDown("it is not running")
        assert news[1] == SandboxStarting("Starting the local sandbox again on port 8042…", None)
        assert isinstance(news[2], SandboxFailed) and str(news[2].error) == "port taken"
        supervisor.wake()  # Ctrl+R after a failure: tried again at once
        await until(lambda: len(news) >= 6)
        assert news[3:] == [
            SandboxDown("it is not running"),
            SandboxStarting("Starting the local sandbox again on port 8042…", None),
            SandboxBack("http://127.0.0.1:8042"),
        ]
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
