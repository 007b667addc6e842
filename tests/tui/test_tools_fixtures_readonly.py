"""Power tools in the TUI: a fixture run from the Sandbox area and from the palette (each step
shown, what it made opened; a mistake shown with its step and field), and a read-only run (the
status bar says READ-ONLY, no action that writes is offered, the client refuses them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static

from payscope.api import errors
from payscope.areas.sandbox.view import SandboxView
from payscope.views.fixture_run import FixtureScreen
from payscope.widgets.status_bar import StatusBar
from tests.tui.pilot import run_command, shown_text, type_text, until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]
ROOT = Path(__file__).resolve().parents[2]


async def _sandbox(pilot: Any) -> SandboxView:
    await ready(pilot)
    await run_command(pilot, "sandbox")
    view = pilot.app.screen.query_one(SandboxView)
    await until(lambda: bool(view.values_table.records))
    await pilot.pause()
    return view


async def test_f_in_sandbox_runs_a_fixture_and_opens_what_it_made(dirs: Dirs) -> None:
    from payscope.areas.refunds.view import RefundDetailScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _sandbox(pilot)
        await pilot.press("f")
        await until(lambda: on_screen(app, FixtureScreen))
        await type_text(pilot, str(ROOT / "fixtures" / "refund.toml"))
        await pilot.press("enter")
        await until(lambda: on_screen(app, RefundDetailScreen))
        screen = app.screen
        assert isinstance(screen, RefundDetailScreen)
        await until(lambda: screen.record is not None)
        assert screen.record.amount == 2000
        assert screen.record.reason == "Fixture: partial refund"
        payment = await app.runtime.api.payments.retrieve(screen.record.payment_id)
        assert payment.description == "Fixture: payment to refund"


async def test_the_palette_runs_a_fixture_and_a_mistake_names_step_field_and_made(
    dirs: Dirs, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text(
        '[[steps]]\nname = "p"\nmethod = "POST"\npath = "/payments"\n'
        'body = { amount = 700, currency = "USD", confirm = false }\n'
        '[[steps]]\nname = "cap"\nmethod = "POST"\npath = "/payments/${p.payment_id}/capture"\n'
    )
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        await pilot.pause()
        assert "Run a fixture" in titles
        app.call_later(app.action_run_fixture)  # what the palette entry runs
        await until(lambda: on_screen(app, FixtureScreen))
        screen = app.screen
        assert isinstance(screen, FixtureScreen)
        screen.query_one(Input).value = str(broken)
        await pilot.press("enter")
        await until(lambda: bool(screen.error))
        text = shown_text(screen.query_one("#fixture-steps", Static))
        made = screen.made[0].id
        assert 'step 2 "cap", field expect' in text
        assert f"Already made before it stopped: {made} (step p)" in text
        assert " 1. p  POST /payments  200  made " + made in text
        assert app.screen is screen  # it stays, so the mistake can be read
        await pilot.press("ctrl+o")  # opens what was made
        await until(lambda: type(app.screen).__name__ == "PaymentDetailScreen")


async def test_read_only_offers_no_write_and_the_status_bar_says_so(dirs: Dirs) -> None:
    from payscope.areas.payments.view import PaymentsView

    app = build(*dirs, read_only=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        bar = app.screen.query_one(StatusBar)
        assert "READ-ONLY" in shown_text(bar.query_one("#status-line", Static))
        view = app.screen.query_one(PaymentsView)
        await until(lambda: bool(view.table.records))
        view.table.focus()
        # Every row: no action that writes is offered by its key or in the palette.
        for row in range(min(len(view.table.records), 25)):
            view.table.move_cursor(row=row)
            for action in view.actions:
                offered = view.check_action("act", (action.name,))
                assert not (offered and action.writes), action.name
            commands = [c.title for c in app.get_system_commands(app.screen)]
            assert not any(t.startswith(("Capture", "Refund", "Cancel", "New")) for t in commands)
        commands = [c.title for c in app.get_system_commands(app.screen)]
        assert "Run a fixture" not in commands
        assert not any(t.startswith("Trigger:") for t in commands)
        assert "Sandbox clock" not in commands
        # The keys do nothing either: `n` would open the new-payment form.
        await pilot.press("n")
        await pilot.pause()
        assert app.screen.query(PaymentsView)
        # A payment's detail shows no button that writes.
        await pilot.press("enter")
        await until(lambda: type(app.screen).__name__ == "PaymentDetailScreen")
        detail: Any = app.screen
        await until(lambda: detail.record is not None)
        assert all(not a.writes for a in detail.allowed())
        # Sandbox: no Trigger, no clock, no fixture; a Trigger key makes nothing.
        before = (await app.runtime.api.payments.list()).total_count
        await pilot.press("escape")
        await until(lambda: bool(app.screen.query(PaymentsView)))
        await run_command(pilot, "sandbox")
        sandbox = app.screen.query_one(SandboxView)
        await until(lambda: bool(sandbox.values_table.records))
        assert not sandbox.query_one("#sandbox-triggers").display
        for name in ("clock", "fixture"):
            assert not sandbox.check_action(name, ())
        await pilot.press("1")
        await pilot.press("f")
        await pilot.pause()
        assert not isinstance(app.screen, FixtureScreen)
        assert (await app.runtime.api.payments.list()).total_count == before
        # And by any other path, the client refuses.
        with pytest.raises(errors.ReadOnlyError):
            await app.runtime.api.request("POST", "/customers", body={"name": "x"})


async def test_a_profile_is_marked_read_only_in_settings_and_unmarked_only_there(
    dirs: Dirs,
) -> None:
    from textual.widgets import Checkbox

    from payscope.areas.settings.view import ProfileForm
    from payscope.core import config
    from tests.tui.pilot import submit
    from tests.tui.test_settings import _open_edit, _staging

    _staging()
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await _open_edit(pilot, "staging")
        box = form.query_one("#field-read_only", Checkbox)
        assert not box.value
        box.value = True
        await submit(pilot, ProfileForm)
        saved = config.get_profile(config.load_settings(), "staging")
        assert saved.read_only and saved.forward_url == "http://127.0.0.1:3000/webhooks"
        assert "read_only = true" in config.config_path().read_text()
        # Editing something else keeps the mark; unticking it is what takes it off.
        form = await _open_edit(pilot, "staging")
        assert form.query_one("#field-read_only", Checkbox).value
        form.query_one("#field-listener_port", Input).value = "9001"
        await submit(pilot, ProfileForm)
        assert config.get_profile(config.load_settings(), "staging").read_only
        form = await _open_edit(pilot, "staging")
        form.query_one("#field-read_only", Checkbox).value = False
        await submit(pilot, ProfileForm)
        assert not config.get_profile(config.load_settings(), "staging").read_only
        assert "read_only" not in config.config_path().read_text()
