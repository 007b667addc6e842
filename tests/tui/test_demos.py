"""Demos that stay good: the clock's preview says which demo records a move changes, and
Reset in `:sandbox` (behind a confirmation) brings back the seeded data and the clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Select, Static

from payscope.areas.payments.view import PaymentsView
from payscope.areas.sandbox.view import SandboxView
from payscope.views.clock import ClockScreen
from payscope.views.forms import ConfirmScreen
from tests.tui.conftest import FROZEN_TIME
from tests.tui.pilot import create_payment, open_list, run_command, shown_text, until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]
DAY = 86400.0


async def _sandbox(pilot: Any) -> SandboxView:
    await run_command(pilot, "sandbox")
    view = pilot.app.screen.query_one(SandboxView)
    await until(lambda: bool(view.values_table.records))
    await pilot.pause()
    return view


async def test_the_clock_preview_says_which_demo_records_change(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await _sandbox(pilot)
        await pilot.press("t")
        await until(lambda: on_screen(app, ClockScreen))
        form = app.screen
        form.query_one("#clock-preset", Select).value = "month"
        preview = form.query_one("#clock-preview", Static)
        await until(lambda: "renew" in shown_text(preview))
        first = shown_text(preview).splitlines()[0]
        # What the service says falls due, counted by kind: the line names each kind.
        found = await app.runtime.api.sandbox.upcoming(seconds=31 * DAY)
        kinds = {item["kind"] for item in found["items"]}
        assert first.startswith("Advance 31d: "), first
        assert "subscription_renews" in kinds and "subscriptions renew" in first
        renewals = sum(1 for item in found["items"] if item["kind"] == "subscription_renews")
        assert f"{renewals} subscriptions renew" in first
        if "dispute_expires" in kinds:
            expiring = sum(1 for item in found["items"] if item["kind"] == "dispute_expires")
            assert f"{expiring} dispute" in first
        assert "R (Reset) in :sandbox" in shown_text(preview)
        assert app.runtime.now() == FROZEN_TIME  # nothing moved


async def test_reset_behind_a_confirmation_brings_back_the_demo(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        view = await open_list(pilot, "payments", PaymentsView, start=False)
        seeded = set(view.rows)
        api = app.runtime.api
        await api.sandbox.advance_clock(31 * DAY)
        app.runtime.forget_clock()
        made = await create_payment(api, amount=777)
        await _sandbox(pilot)

        # Asked first; Esc leaves everything as it was.
        await pilot.press("R")
        await until(lambda: on_screen(app, ConfirmScreen))
        intro = " ".join(shown_text(app.screen.query_one("#form-intro", Static)).split())
        assert "the clock returns to real time (it is 31d ahead)" in intro
        assert "keys, the profile and the webhook settings stay" in intro.lower()
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, ConfirmScreen))
        assert (await api.payments.retrieve(made.payment_id)).amount == 777

        await pilot.press("R")
        await until(lambda: on_screen(app, ConfirmScreen))
        await pilot.press("ctrl+s")
        await until(lambda: not isinstance(app.screen, ConfirmScreen), 60)
        await until(lambda: any(t.title == "Sandbox reset" for t in app.told))
        told = next(t for t in app.told if t.title == "Sandbox reset")
        assert "seeded demo data is back" in told.message
        assert app.runtime.now() == FROZEN_TIME
        clock = shown_text(app.screen.query_one("#sandbox-clock", Static))
        assert "2024-05-01 12:00:00 UTC" in clock

        await run_command(pilot, "payments")
        await until(lambda: view.loaded and made.payment_id not in view.rows)
        await app.workers.wait_for_complete()
        assert set(view.rows) == seeded
