"""Issue 38: a sandbox that hangs (SIGSTOP of the background sandbox this test's run started,
proven to be that daemon first) is said on the list and on a detail screen within the client's
timeout, with how to retry, and the retry works once it answers again. Real processes: a real
daemon, stopped for real (and always continued, then stopped, after the test)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.tui.pilot import until
from tui.app import make_app
from tui.sandbox import daemon, files
from tui.views.area import TitleBar
from tui.views.detail import DetailScreen

# The client's timeout for this test: short, so the test does not wait 30 s, and set only once
# the views have loaded (a busy machine's first answers may be slower than that).
TIMEOUT = 1.0


def _bar(screen: object, selector: str) -> str:
    return str(screen.query_one(selector, TitleBar).render())  # type: ignore[attr-defined]


@pytest.mark.slow
async def test_a_hung_sandbox_is_said_on_each_screen_and_a_retry_works(tmp_path: Path) -> None:
    config, data = tmp_path / "config", tmp_path / "data"
    config.mkdir()
    directory = data / "sandbox"
    stopped: int | None = None
    try:
        app = make_app(config_dir=config, data_dir=data, seed=3, daemon=True)
        async with app.run_test(size=(140, 40)) as pilot:
            runtime = app.runtime
            await runtime.ready.wait()
            main = app.screen
            view = main.current_view()  # type: ignore[attr-defined]
            await until(lambda: view.loaded and len(view.rows) >= 3, 20)
            state = daemon.read_state(directory)
            assert state is not None
            # Ours: this directory's daemon, the one this run started (never another's).
            assert not files.identity_problem(state.pid, directory, state.started)
            runtime.api.timeout = TIMEOUT
            os.kill(state.pid, signal.SIGSTOP)
            stopped = state.pid

            # The list: a reload that gets no answer says so, the rows it had stay.
            await pilot.press("r")
            said = "no answer from the local sandbox in 1 s (stopped or hung?) · Ctrl+R retries"
            await until(lambda: said in _bar(main, f"#{view.scope}-header"), 10)
            assert len(view.rows) >= 3

            # A detail screen opened now: its title says it, and how to retry (r).
            await pilot.press("enter")
            await until(lambda: isinstance(app.screen, DetailScreen), 10)
            detail = app.screen
            await until(
                lambda: (
                    "no answer from the local sandbox in 1 s" in _bar(detail, "#detail-title")
                    and "r retries" in _bar(detail, "#detail-title")
                ),
                10,
            )

            # It answers again: r on the detail reads it, the note goes.
            os.kill(state.pid, signal.SIGCONT)
            stopped = None
            await pilot.press("r")
            await until(lambda: detail.record is not None and not detail.busy, 20)  # type: ignore[attr-defined]
            assert "no answer" not in _bar(detail, "#detail-title")
            await pilot.press("escape")
            await until(lambda: app.screen is main, 10)
            await pilot.press("ctrl+r")
            await until(lambda: "no answer" not in _bar(main, f"#{view.scope}-header"), 20)
    finally:
        if stopped is not None:
            os.kill(stopped, signal.SIGCONT)  # the daemon proven ours above
        daemon.stop(directory)  # proven to be this directory's daemon first
