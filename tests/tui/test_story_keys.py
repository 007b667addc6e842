"""Command mode and keys on every screen (issue 41): keys typed while a form opens reach it,
`:area` works from a detail, the suggestion is what Enter does, `?` lists an area's own keys."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.widgets import Input

from payscope.areas.payments.forms import NewPaymentScreen
from payscope.widgets.keys import key_name
from tests.tui.pilot import until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]


def _post_keys(app: object, text: str) -> None:
    """Keys as a fast typist's terminal sends them: all queued at once, no wait between."""
    for character in text:
        event = events.Key(key_name(character), character)
        event.set_sender(app)  # type: ignore[arg-type]
        app.post_message(event)  # type: ignore[attr-defined]


async def test_keys_typed_at_once_after_n_reach_the_form(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        # `n` and the amount in one go: they are all on their way before the form exists.
        _post_keys(app, "n33.00")
        await until(lambda: on_screen(app, NewPaymentScreen))
        form = app.screen
        await until(lambda: form.is_mounted and isinstance(app.focused, Input))
        amount = form.query_one("#field-amount", Input)
        await until(lambda: amount.value != "25.00")
        await pilot.pause()
        assert amount.value == "33.00"
        assert app.focused is amount


async def test_key_help_in_sandbox_lists_the_trigger_keys_not_textuals_own(dirs: Dirs) -> None:
    from payscope.api.scenarios import SCENARIOS
    from payscope.shell.help import KeyHelpScreen
    from tests.tui.pilot import run_command, screen_text

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await run_command(pilot, "sandbox")
        await pilot.pause()
        await pilot.press("question_mark")
        await until(lambda: on_screen(app, KeyHelpScreen))
        await pilot.pause()
        table = app.screen.query_one("#help-table")
        rows = [
            (str(table.get_row_at(i)[0]), str(table.get_row_at(i)[1]))
            for i in range(table.row_count)
        ]
        keys = [key for key, _ in rows]
        for scenario in SCENARIOS:
            assert scenario.key in keys, scenario.key
        assert "l" in keys and "0" in keys and "1" in keys
        actions = " ".join(action for _, action in rows)
        for textuals in ("Cursor left", "Page Left", "Copy selected text"):
            assert textuals not in actions
        assert "super+c" not in " ".join(keys)
        assert "pgup" not in " ".join(keys)
        assert "Trigger: " in screen_text(app)


async def test_an_area_command_works_from_a_detail_screen(dirs: Dirs) -> None:
    from payscope.areas.refunds.view import RefundsView
    from payscope.shell.main import MainScreen
    from tests.tui.pilot import create_payment, open_detail, run_command

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        payment = await create_payment(app.runtime.client)
        await open_detail(pilot, payment.payment_id)
        await run_command(pilot, "refunds")
        await until(lambda: on_screen(app, MainScreen))
        main = app.screen
        await until(lambda: isinstance(main.current_view(), RefundsView))


async def test_the_inline_suggestion_is_what_enter_does(dirs: Dirs) -> None:
    from payscope.shell.command_prompt import complete, parse_command

    # `pay` is Payments' own word: Enter opens Payments, so the suggestion is not `payouts`.
    assert parse_command("pay").area == "payments"
    assert complete("pay") == "payments"
    assert complete("payo") == "payouts"
    assert complete("cus") == "customers"
    assert complete("dp") is None  # Enter opens Disputes; `dp` does not start `disputes`
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("colon", "p", "a", "y")
        prompt = app.screen.query_one("#command-prompt", Input)
        assert prompt.value == "pay"
        assert prompt.suggester is not None
        assert await prompt.suggester.get_suggestion("pay") == "payments"
        # Tab takes the suggestion shown: Payments, what Enter would have opened.
        await pilot.press("tab")
        assert prompt.value == "payments "
