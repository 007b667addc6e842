"""`c` in Events: a composed event, signed with the profile's secret, sent to payscope's own
listener (which verifies it and shows it in Events), its answer shown; a body with a mistake is
said as it is typed and not sent; a wrong secret is refused by the listener, and shown so."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Input, Select, Static, TextArea

from tests.tui.pilot import open_list, shown_text, until
from tests.tui.snapshot_app import build
from tests.waits import on_screen

Dirs = tuple[Path, Path]


async def test_compose_sign_send_to_the_listener_and_read_the_answer(dirs: Dirs) -> None:
    from payscope.areas.events.composer import ComposerScreen
    from payscope.areas.events.view import EventsView

    app = build(*dirs)
    async with app.run_test(size=(130, 45)) as pilot:
        await open_list(pilot, "events", EventsView)
        await pilot.press("c")
        await until(lambda: on_screen(app, ComposerScreen))
        screen = app.screen
        assert isinstance(screen, ComposerScreen)
        problem = screen.query_one("#composer-problem", Static)
        area = screen.query_one(TextArea)
        body = json.loads(area.text)
        assert body["event_type"] == "payment_succeeded"
        assert body["content"]["type"] == "payment_details"
        assert "A valid event" in shown_text(problem)

        # The latest real payment, as the event's object.
        await pilot.press("ctrl+l")
        await until(
            lambda: (
                json.loads(area.text)["content"]["object"]["payment_id"]
                != body["content"]["object"]["payment_id"]
            )
        )
        latest = (await app.runtime.api.payments.list()).data[0]
        assert json.loads(area.text)["content"]["object"]["payment_id"] == latest.payment_id

        # A mistake is said as it is typed; Ctrl+S sends nothing.
        good = area.text
        area.load_text(good[:-3])
        await pilot.pause()
        assert "line" in shown_text(problem) and "column" in shown_text(problem)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert screen.answer is None

        area.load_text(good)
        await pilot.pause()
        event_id = json.loads(good)["event_id"]
        await pilot.press("ctrl+s")
        await until(lambda: screen.answer is not None)
        assert screen.answer.status == 200 and screen.answer.latency_ms > 0
        shown = shown_text(screen.query_one("#composer-answer-text", Static))
        assert "HTTP 200" in shown and "content-type" in shown
        # Verified and journaled by the listener.
        await until(lambda: app.runtime.journal.get(event_id) is not None)

        # A secret typed for this send that is not the listener's: refused, and said so.
        screen.query_one("#composer-secret", Input).value = "wrong-secret-0123456789abcdef"
        screen.query_one("#composer-type", Select).value = "refund_failed"
        await pilot.pause()
        assert json.loads(area.text)["content"]["type"] == "refund_details"
        await pilot.press("ctrl+s")
        await until(lambda: screen.answer.status == 401)
        assert "HTTP 401" in shown_text(screen.query_one("#composer-answer-text", Static))


async def test_a_composed_event_saved_as_a_fixture_step_is_sent_again(
    dirs: Dirs, tmp_path: Path
) -> None:
    from payscope.api.fixtures.files import load_fixture
    from payscope.areas.events.composer import ComposerScreen
    from payscope.areas.events.view import EventsView
    from payscope.views.fixture_run import FixtureScreen

    app = build(*dirs)
    async with app.run_test(size=(130, 45)) as pilot:
        await open_list(pilot, "events", EventsView)
        await pilot.press("c")
        await until(lambda: on_screen(app, ComposerScreen))
        screen = app.screen
        saved = tmp_path / "mine.json"
        screen.query_one("#composer-save", Input).value = str(saved)
        event_id = json.loads(screen.query_one(TextArea).text)["event_id"]
        await pilot.press("ctrl+f")
        await until(saved.exists)
        [step] = load_fixture(saved).steps
        assert step.name == "payment_succeeded" and step.path == ""  # "": the listener here
        assert app.runtime.journal.get(event_id) is None  # saved, not sent
        await pilot.press("escape")
        app.call_later(app.action_run_fixture)
        await until(lambda: on_screen(app, FixtureScreen))
        fixture_screen = app.screen
        fixture_screen.query_one(Input).value = str(saved)
        await pilot.press("enter")
        await until(lambda: app.runtime.journal.get(event_id) is not None)
        await until(lambda: not fixture_screen.running)
        assert not fixture_screen.error
        assert [r.status for r in fixture_screen.results] == [200]
