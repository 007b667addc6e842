"""A warm start against a real background sandbox: the first frame shows the page cached by the
last run while the client starts; the live page comes through the client as soon as it is up,
before the listener, and is read once; a key pressed meanwhile runs once the client is up, and
the webhooks of what it made reach the listener once that is up."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from payscope.app import PayscopeApp, make_app
from payscope.app.runtime.stacks import client_stack, listener_stack
from payscope.areas.payments.cache import cache_path, load_page
from payscope.areas.payments.forms import NewPaymentScreen
from payscope.areas.payments.view import PaymentsView
from payscope.sandbox import daemon
from tests.daemons import wait_ready
from tests.tui.pilot import until
from tests.waits import on_screen


@pytest.fixture
def data(tmp_path: Path) -> Iterator[Path]:
    """A data dir whose background sandbox is up, with 12 seeded payments."""
    path = tmp_path / "data"
    daemon.spawn(path / "sandbox", seed=12)
    wait_ready(path / "sandbox")
    yield path
    daemon.stop(path / "sandbox")


def _held_start(
    config: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[PayscopeApp, asyncio.Event, asyncio.Event]:
    """An app started as `payscope` starts it, whose client's and listener's modules "load"
    until the test sets their gates (returned: the app, the client's gate, the listener's)."""
    app = make_app(config_dir=config, data_dir=data, seed=12, daemon=True)
    runtime = app.runtime
    gates: dict[object, asyncio.Event] = {
        client_stack: asyncio.Event(),
        listener_stack: asyncio.Event(),
    }
    loading = runtime.load

    async def held(loader: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if loader in gates:
            await gates[loader].wait()
        return await loading(loader, *args, **kwargs)

    monkeypatch.setattr(runtime, "load", held)
    runtime.spawn_early()  # as `payscope` does before the app runs
    return app, gates[client_stack], gates[listener_stack]


def _list_reads(runtime: Any) -> int:
    return [(e.method, e.path) for e in runtime.api.journal.entries()].count(
        ("POST", "/payments/list")
    )


async def _last_run(tmp_path: Path, data: Path, made: int = 0) -> Path:
    """The run before (its config dir returned): it loads the first page, which it leaves as
    the start-up cache, then makes `made` payments."""
    from tests.tui.pilot import create_payment

    config = tmp_path / "config"
    config.mkdir(mode=0o700)  # payscope's own: private (else it is made so, and said)
    first = make_app(config_dir=config, data_dir=data, seed=12, daemon=True)
    async with first.run_test(size=(120, 40)):
        view = first.query_one(PaymentsView)
        await until(lambda: view.loaded)
        for _ in range(made):
            await create_payment(first.runtime.api)
    return config


async def test_the_cached_page_shows_until_the_client_reads_the_live_one_before_the_listener(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = await _last_run(tmp_path, data)
    assert len(load_page(cache_path(data, "local"))) == 12  # the last run left its page

    app, client, listener = _held_start(config, data, monkeypatch)
    runtime = app.runtime
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(PaymentsView)
        await pilot.pause()
        assert view.cached and not view.loaded and len(view.rows) == 12
        assert "cached · refreshing" in view.header_text().plain
        assert not runtime.client_ready.is_set()

        client.set()
        await until(lambda: view.loaded)
        assert runtime.listener is None and not runtime.ready.is_set()  # before the listener
        header = view.header_text().plain
        assert "page 1/1" in header and "cached" not in header and "1-12 of 12" in header
        assert not view.cached and len(view.rows) == 12

        listener.set()
        await until(runtime.ready.is_set)
        # Every worker but the watch on the background sandbox, which runs as long as the app.
        await until(lambda: not [w for w in app.workers if w.is_running and w.group != "health"])
        await pilot.pause()
        assert _list_reads(runtime) == 1  # the live page was read once, not again once all is up
        await pilot.press("ctrl+r")  # a reload still reads it
        await until(lambda: _list_reads(runtime) == 2)


async def test_a_key_waits_for_the_client_only_and_events_reach_the_listener_once_up(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm start brings the client up before the listener (about a third of the imports):
    an action runs as soon as the client is up, and the webhooks of a payment made before the
    listener is up are held by the sandbox, then delivered to it."""
    from payscope.widgets.status_bar import StatusBar
    from tests.tui.pilot import create_payment, open_detail, shown_text

    config = tmp_path / "config"
    config.mkdir(mode=0o700)  # payscope's own: private (else it is made so, and said)
    app, client, listener = _held_start(config, data, monkeypatch)
    runtime = app.runtime
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n")  # new payment, pressed while the client is still loading
        await pilot.pause()
        assert not isinstance(app.screen, NewPaymentScreen)
        client.set()
        await until(lambda: on_screen(app, NewPaymentScreen))
        assert runtime.listener is None and not runtime.ready.is_set()
        assert app.get_screen_main() is not None
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.query_one(StatusBar).state == ""  # no longer "starting"
        made = await create_payment(runtime.api)
        assert made.status == "succeeded"
        detail = await open_detail(pilot, made.payment_id)
        # The story reads the service's own delivery history: it needs no listener.
        story = detail.related_section("story")
        await until(
            lambda: "Reading the story" not in shown_text(story.query_one("#related-story-note"))
        )

        listener.set()
        await until(runtime.ready.is_set)
        started = runtime.listener
        assert started is not None
        await until(lambda: started.journal.recent(20, 0, None, made.payment_id))
        await until(
            lambda: any(
                row.record.kind == "webhook" and row.record.what == "payment_succeeded"
                for row in story.table.records.values()
            ),
        )
        main = app.get_screen_main()
        assert main is not None
        assert main.query_one(StatusBar).listener_url.startswith("http://127.0.0.1:")


def _counted(header: str) -> int | None:
    """How many rows a Payments header says are shown (None: it says no count)."""
    import re

    if found := re.search(r"(\d[\d,]*) shown last time", header):
        return int(found.group(1).replace(",", ""))
    if found := re.search(r"(\d[\d,]*)-(\d[\d,]*) of", header):
        first, last = (int(g.replace(",", "")) for g in found.groups())
        return last - first + 1
    if "no payments" in header:
        return 0
    return None


async def test_the_header_counts_the_rows_shown_at_every_frame_of_a_warm_start(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33.18: "Payments 0-0 of 313" showed over the cached rows for about half a second
    on a warm start. From the first frame to the live page (another page than the cached one:
    payments were made since), the header's count is the number of rows the table holds,
    checked at every turn of the event loop (each frame is drawn in one)."""
    config = await _last_run(tmp_path, data, made=3)  # the live page is not the cached one

    app, client, listener = _held_start(config, data, monkeypatch)
    runtime = app.runtime
    seen: list[tuple[str, int]] = []
    async with app.run_test(size=(80, 24)):
        view = app.query_one(PaymentsView)
        header = app.query_one("#payments-header")

        async def watch(until_done: Any, turns: int = 200_000) -> None:
            for _ in range(turns):
                said = str(header.render())
                if not seen or seen[-1] != (said, view.table.row_count):
                    seen.append((said, view.table.row_count))
                counted = _counted(said)
                if counted is not None:
                    assert counted == view.table.row_count, (said, view.table.row_count)
                if until_done():
                    return
                await asyncio.sleep(0)
            raise AssertionError(f"not done; seen {seen}")

        await watch(lambda: view.cached and view.table.row_count == 12, 2000)
        client.set()
        await watch(lambda: view.loaded)
        listener.set()
        await watch(runtime.ready.is_set)
    counts = [count for _said, count in seen]
    assert counts[0] == 12 and counts[-1] == 15, seen
    assert any("shown last time" in said for said, _ in seen)
    assert any("1-15 of 15" in said for said, _ in seen)


async def test_a_first_run_shows_the_seeding_on_a_bar_that_goes_once_the_sandbox_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bar's module is imported only for a seeding (not on a warm start): a first run still
    gets its bar, moving, and the status bar says "starting" until the client is up."""
    from textual.widgets import ProgressBar

    from payscope.shell.main import MainScreen, StartupProgress
    from payscope.widgets.status_bar import StatusBar

    # What the screen showed after each word of progress the runtime gave it: each is seen as
    # it happens (a quick seeding can end between two looks at the screen).
    told: list[tuple[float | None, bool, str]] = []
    show = MainScreen.show_progress

    def recorded(screen: MainScreen, text: str, fraction: float | None) -> None:
        show(screen, text, fraction)
        box = screen.query_one(StartupProgress)
        told.append((fraction, box.has_class("-shown"), screen.query_one(StatusBar).state))

    monkeypatch.setattr(MainScreen, "show_progress", recorded)
    config, data = tmp_path / "config", tmp_path / "data"
    config.mkdir(mode=0o700)  # payscope's own: private (else it is made so, and said)
    app = make_app(config_dir=config, data_dir=data, seed=20_000, daemon=True)
    app.runtime.spawn_early()
    pid = app.runtime.spawned_daemon
    assert pid is not None
    held = False
    try:
        # The daemon this test spawned is held in the middle of its seeding until the screen
        # has been told of it: on a loaded machine the app took longer to start than a
        # daemon to seed, and a seeding already over has no bar to show.
        def seeding() -> bool:
            state = daemon.read_state(data / "sandbox")
            return state is not None and state.phase == "seeding" and 0 < state.done < state.total

        await until(seeding)
        os.kill(pid, signal.SIGSTOP)
        held = True
        held_at = daemon.read_state(data / "sandbox")
        assert held_at is not None and held_at.phase == "seeding", held_at  # mid-seeding
        async with app.run_test(size=(120, 40)) as pilot:
            box = app.query_one(StartupProgress)

            def bar() -> ProgressBar | None:
                return next(box.query("#progress-bar").results(ProgressBar), None)

            # The seeding was said with its fraction, on a shown box, while "starting".
            await until(
                lambda: any(
                    fraction is not None and fraction > 0 and shown and state == "starting"
                    for fraction, shown, state in told
                ),
                detail=lambda: told,
            )
            os.kill(pid, signal.SIGCONT)
            held = False
            await until(app.runtime.client_ready.is_set)
            await pilot.pause()
            found = bar()
            assert found is not None and (found.progress or 0) > 0  # it moved
            assert not box.has_class("-shown") and app.query_one(StatusBar).state == ""
            assert len(box.query("#progress-bar")) == 1  # the bar moved; no second one came
    finally:
        if held:
            os.kill(pid, signal.SIGCONT)
        daemon.stop(data / "sandbox")
