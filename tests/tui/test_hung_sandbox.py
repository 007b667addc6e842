"""Issue 38: a sandbox that hangs (SIGSTOP of the background sandbox this test's run started,
proven to be that daemon first) is said on the list and on a detail screen within the client's
timeout, with how to retry, and the retry works once it answers again. Real processes: a real
daemon, stopped for real (and always continued, then stopped, after the test)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from payscope.app import make_app
from payscope.areas.payments.forms import RefundForm
from payscope.sandbox import daemon, files
from payscope.views.area import TitleBar
from payscope.views.detail import DetailScreen
from tests.tui.pilot import create_payment, until
from tests.waits import REQUEST_TIMEOUT

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

            # A form sent while it hangs: the form says so (and that it may still be applied).
            payment = await create_payment(runtime.api)
            app.goto("payments", payment.payment_id)
            await until(lambda: isinstance(app.screen, DetailScreen), 10)
            await until(lambda: app.screen.record is not None, 20)  # type: ignore[attr-defined]
            await pilot.press("f")
            await until(lambda: isinstance(app.screen, RefundForm), 20)
            form = app.screen
            os.kill(state.pid, signal.SIGSTOP)
            stopped = state.pid
            form.action_submit()  # type: ignore[attr-defined]

            # Said at the client's timeout: by the form's StallWatch ("Sent; no answer ...") or,
            # for a request the client does not retry (a refund), by the client's own timeout
            # error, whichever comes first; both say it may have been applied.
            def said_on_form() -> str:
                return str(form.query_one("#form-error").render()).lower()

            await until(lambda: "no answer" in said_on_form(), 10)
            said = said_on_form()
            assert "may still be applied" in said or "may have processed" in said, said
            os.kill(state.pid, signal.SIGCONT)
            stopped = None
            await pilot.press("escape")
            await until(lambda: app.screen is not form, 20)
    finally:
        if stopped is not None:
            os.kill(stopped, signal.SIGCONT)  # the daemon proven ours above
        daemon.stop(directory)  # proven to be this directory's daemon first


@pytest.mark.slow
async def test_a_hung_remote_is_said_on_the_list_and_a_retry_works(
    dirs: tuple[Path, Path], tmp_path: Path
) -> None:
    """A remote profile on a service that hangs: `payscope sandbox` in a process this test
    starts (its Popen), stopped with SIGSTOP once the list has loaded."""
    import re
    import subprocess
    import sys

    import httpx

    from payscope.core import config, secrets
    from tests.sandbox.conftest import API_KEY, payment_body

    config_dir, data = dirs
    command = [sys.executable, "-m", "payscope", "sandbox", "--port", "0", "--api-key", API_KEY]
    service = subprocess.Popen(
        [*command, "--data", str(tmp_path / "svc")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    stopped = False
    try:
        assert service.stdout is not None
        url = None
        for _ in range(200):
            line = service.stdout.readline()
            found = re.search(r"listening on (http://\S+)", line)
            if found or not line:
                url = found.group(1) if found else None
                break
        assert url, "payscope sandbox did not start"
        async with httpx.AsyncClient(
            timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
        ) as http:
            for _ in range(3):
                made = await http.post("/payments", json=payment_body())
                assert made.status_code == 200, made.text
        profile = config.Profile(name="remote", base_url=url, listener_port=0)
        config.save_settings(config.add_profile(config.load_settings(), profile))
        secrets.set_secret("remote", API_KEY)
        app = make_app(profile="remote", config_dir=config_dir, data_dir=data)
        async with app.run_test(size=(140, 40)) as pilot:
            await app.runtime.ready.wait()
            main = app.screen
            view = main.current_view()  # type: ignore[attr-defined]
            await until(lambda: view.loaded and len(view.rows) >= 3, 20)
            app.runtime.api.timeout = TIMEOUT
            service.send_signal(signal.SIGSTOP)  # the process this test started
            stopped = True
            await pilot.press("r")
            said = "no answer from the service in 1 s (stopped or hung?) · Ctrl+R retries"
            await until(lambda: said in _bar(main, f"#{view.scope}-header"), 10)
            service.send_signal(signal.SIGCONT)
            stopped = False
            await pilot.press("ctrl+r")
            await until(lambda: "no answer" not in _bar(main, f"#{view.scope}-header"), 20)
            await until(lambda: view.loaded and len(view.rows) >= 3, 20)
    finally:
        if stopped:
            service.send_signal(signal.SIGCONT)
        service.terminate()  # the process this test started
        try:
            service.wait(15)
        except subprocess.TimeoutExpired:
            service.kill()
            service.wait()
