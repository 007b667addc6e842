"""Closing a screen never raises (issue 43): work of a payscope screen or view (a worker waiting
for an answer, a timer, a callback, its own `on_mount`) that runs once the screen has gone does
nothing; while the screen is open, an error in it is raised as before."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App, ComposeResult
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import WorkerState

from payscope.views.access import AppAccess
from payscope.views.lifetime import gone
from tests.tui.pilot import create_payment, until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen


class Working(AppAccess, Screen[None]):  # type: ignore[misc]
    """A screen whose work waits for `answer`, then fills its `#value`."""

    def __init__(self) -> None:
        super().__init__()
        self.answer = asyncio.Event()
        self.started = asyncio.Event()
        self.resumed: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static(id="value")

    async def fetch(self) -> str:
        self.started.set()
        await self.answer.wait()
        self.resumed.append("worker")
        # What a screen's worker does with its answer: put it in a widget of the screen.
        self.query_one("#value", Static).update("the answer")
        self.query_one("#gone-by-now", Static)  # the widget it wants has gone with the screen
        return "done"


class Host(App[None]):
    pass


async def test_a_worker_whose_screen_closed_while_it_waited_does_nothing() -> None:
    app = Host()
    async with app.run_test() as pilot:
        screen = Working()
        await app.push_screen(screen)
        worker = screen.run_worker(screen.fetch, exit_on_error=True)
        await screen.started.wait()
        # The answer comes as the person closes the screen: the worker goes on in between.
        app.pop_screen()
        screen.answer.set()
        await worker.wait()  # ended (or was cancelled), and did not take the app down
        assert gone(screen)
        assert worker.state in (WorkerState.SUCCESS, WorkerState.CANCELLED)
        assert worker.error is None
        await pilot.pause()
        assert app.is_running and app.return_code is None


async def test_work_started_on_a_closed_screen_is_not_run() -> None:
    app = Host()
    async with app.run_test() as pilot:
        screen = Working()
        await app.push_screen(screen)
        app.pop_screen()
        assert gone(screen)
        ran: list[str] = []
        screen.run_worker(lambda: ran.append("worker"), thread=True)
        screen.set_timer(0.01, lambda: ran.append("timer"))
        screen.call_after_refresh(lambda: ran.append("after refresh"))
        screen.call_later(lambda: ran.append("later"))
        await app.workers.wait_for_complete()
        await asyncio.sleep(0.05)  # the timer's time has passed
        await pilot.pause()
        assert ran == []
        assert app.is_running and app.return_code is None


async def test_an_error_while_the_screen_is_open_is_raised_as_ever() -> None:
    """The guard hides nothing of a screen still shown: its worker's error is the worker's."""
    app = Host()
    async with app.run_test():
        screen = Working()
        await app.push_screen(screen)
        worker = screen.run_worker(screen.fetch, exit_on_error=False)
        await screen.started.wait()
        screen.answer.set()
        await until(lambda: worker.is_finished, "the worker ended")
        assert not gone(screen)
        assert worker.state == WorkerState.ERROR and isinstance(worker.error, NoMatches)
        assert screen.resumed == ["worker"]


async def test_a_screen_under_another_is_not_gone() -> None:
    app = Host()
    async with app.run_test():
        under, over = Working(), Working()
        await app.push_screen(under)
        await app.push_screen(over)
        assert not gone(under) and not gone(over)
        assert not gone(under.query_one("#value"))
        app.pop_screen()
        assert gone(over) and not gone(under)


async def test_payscope_screens_closed_as_they_load_do_not_raise(dirs: Any) -> None:
    """The real screens: each area opened and left at once, a detail closed while it loads,
    the sandbox area (whose `on_mount` fits its tables) shown and closed in one go."""
    from payscope.areas.payments.detail import PaymentDetailScreen
    from payscope.shell.main import MainScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        for area in ("sandbox", "payments", "events", "customers", "analytics", "sandbox"):
            app.goto(area)  # each area mounts, and is left before it has loaded
            app.goto("payments")
        payment = await create_payment(app.runtime.client)
        payment_id = payment.payment_id
        for _ in range(3):
            app.goto("payments", payment_id)  # a detail screen starts loading ...
            await until(lambda: on_screen(app, PaymentDetailScreen))
            app.screen.dismiss()  # ... and is closed before its answer is in
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is main
        assert app.is_running and app.return_code is None
