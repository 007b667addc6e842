"""The TUI runs someone else's fixture with what the user allows (issue 38): an event to a
host off this machine is asked about first (no: nothing is sent, nothing is run), and an
environment variable the profile does not list is refused, naming it and how to allow it."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Input, Static

from payscope.views.ask import AskScreen
from payscope.views.fixture_run import FixtureScreen
from payscope.webhooks import compose
from tests.tui.pilot import shown_text, until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen


def write(path: Path, steps: list[dict[str, object]]) -> Path:
    path.write_text(json.dumps({"name": "shared", "steps": steps}), encoding="utf-8")
    return path


async def test_an_event_off_this_machine_is_asked_about_and_a_no_sends_nothing(
    dirs: tuple[Path, Path], tmp_path: Path, monkeypatch: object
) -> None:
    payment = {"name": "payment", "method": "POST", "path": "/payments",
               "body": {"amount": 900, "currency": "USD", "confirm": False}}  # fmt: skip
    off = "http://192.0.2.1:9/collect"  # TEST-NET-1: off this machine
    remote = write(
        tmp_path / "remote.json",
        [payment, {"name": "tell", "event": compose.template("payment_succeeded"), "to": off}],
    )
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI-EXAMPLE")  # type: ignore[attr-defined]
    env = write(
        tmp_path / "env.json",
        [{**payment, "body": {"amount": 900, "currency": "USD",
                              "description": "${env.AWS_SECRET_ACCESS_KEY}"}}],
    )  # fmt: skip
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        before = (await app.runtime.api.payments.list()).total_count
        app.call_later(app.action_run_fixture)
        await until(lambda: on_screen(app, FixtureScreen))
        screen = app.screen
        assert isinstance(screen, FixtureScreen)
        screen.query_one(Input).value = str(remote)
        await pilot.press("enter")
        await until(lambda: on_screen(app, AskScreen))
        question = shown_text(app.screen.query_one("#ask-question", Static))
        assert off in question and "neither this machine" in question
        await pilot.press("enter")  # the focused answer is "Don't send"
        await until(lambda: app.screen is screen and not screen.running and bool(screen.error))
        assert f"the event would go to {off}" in screen.error and "Nothing was run" in screen.error
        assert screen.results == []

        screen.query_one(Input).value = str(env)
        await pilot.press("enter")
        await until(lambda: not screen.running and "AWS_SECRET_ACCESS_KEY" in screen.error)
        assert "allow_env" in screen.error and "wJalr" not in screen.error
        assert (await app.runtime.api.payments.list()).total_count == before

        # Allowed in the file ([local] for the local sandbox), the next run reads it.
        config_dir, _ = dirs
        (config_dir / "profiles.toml").write_text(
            '[local]\nallow_env = ["AWS_SECRET_ACCESS_KEY"]\n'
        )
        await pilot.press("enter")
        await until(lambda: not screen.running and len(screen.results) == 1, 20)
        assert screen.results[0].answer["description"] == "wJalrXUtnFEMI-EXAMPLE"
