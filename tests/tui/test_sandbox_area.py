"""`:sandbox` against the embedded sandbox: the values a shell needs (masked, revealed, copied as
export lines that make a curl copied from Requests run as-is), the clock (preview, then advance),
Trigger (one key makes a record and opens it), and snapshots at two sizes in two themes."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Select, Static

from payscope.areas.sandbox.view import SandboxView
from payscope.views.clock import ClockScreen
from tests.tui.conftest import FROZEN_TIME
from tests.tui.pilot import LOOKS, run_command, shown_text, until
from tests.tui.snapshot_app import build, ready
from tests.waits import awaited, on_screen

Dirs = tuple[Path, Path]
DAY = 86400.0


async def _sandbox(pilot: Any) -> SandboxView:
    """Start and go to `:sandbox`."""
    app = pilot.app
    await ready(pilot)
    await run_command(pilot, "sandbox")
    view = app.screen.query_one(SandboxView)
    await until(lambda: bool(view.values_table.records))
    await pilot.pause()
    return view


def _cell(view: SandboxView, key: str) -> str:
    return str(view.values_table.get_row(key)[1])


async def test_values_are_masked_until_revealed_and_copied_in_full(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _sandbox(pilot)
        creds = app.runtime.sandbox.credentials
        assert _cell(view, "merchant_id") == creds.merchant_id
        assert _cell(view, "base_url").endswith(":PORT")  # snapshots never show the port
        secret_cell = _cell(view, "api_key")
        assert creds.api_key not in secret_cell and secret_cell.endswith(creds.api_key[-4:])
        assert creds.webhook_secret not in _cell(view, "webhook_secret")
        assert creds.api_key not in shown_text(view.query_one("#sandbox-exports", Static))

        view.values_table.focus()
        view.values_table.move_cursor(row=view.values_table.get_row_index("api_key"))
        await pilot.press("y")
        assert app.clipboard == creds.api_key  # copied in full though shown masked

        await pilot.press("s")
        await pilot.pause()
        assert _cell(view, "api_key") == creds.api_key
        await pilot.press("s")
        await pilot.pause()
        assert creds.api_key not in _cell(view, "api_key")


async def test_a_curl_copied_from_requests_runs_as_is_with_the_exports(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _sandbox(pilot)
        await pilot.press("x")
        exports = app.clipboard
        assert exports.startswith("export PAYSCOPE_BASE_URL=http://127.0.0.1:")
        assert ":PORT" not in exports.splitlines()[0]
        # The payments list payscope loaded at start, copied as curl from the Requests log.
        entry = next(
            e for e in app.runtime.api.journal.entries() if e.path.startswith("/payments/list")
        )
        curl = entry.to_curl()
        assert "$PAYSCOPE_API_KEY" in curl and app.runtime.sandbox.credentials.api_key not in curl
        # Another terminal: a clean environment, the exports pasted, then the curl.
        shell = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            f"{exports}\n{curl}",
            env={"PATH": "/usr/bin:/bin"},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await awaited(shell.communicate())
        assert shell.returncode == 0, err.decode()
        import json

        answer = json.loads(out)
        assert answer["data"] and answer["data"][0]["payment_id"].startswith("pay_")
        assert view.is_mounted


async def test_trigger_one_key_makes_a_payment_and_opens_it(dirs: Dirs) -> None:
    from payscope.areas.payments.detail import PaymentDetailScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _sandbox(pilot)
        assert view.values_table.has_focus  # the keys work from anywhere in the area
        await pilot.press("3")  # manual capture
        await until(lambda: on_screen(app, PaymentDetailScreen))
        screen = app.screen
        assert isinstance(screen, PaymentDetailScreen)
        await until(lambda: screen.record is not None)
        assert screen.record.status == "requires_capture"
        assert screen.record.description == "Trigger: manual capture"


async def test_trigger_from_the_list_with_enter_opens_a_dispute(dirs: Dirs) -> None:
    from payscope.areas.disputes.detail import DisputeDetailScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _sandbox(pilot)
        view.triggers.focus()
        view.triggers.move_cursor(row=view.triggers.get_row_index("7"))
        await pilot.press("enter")
        await until(lambda: on_screen(app, DisputeDetailScreen))


async def test_clock_previews_then_advances(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _sandbox(pilot)
        await pilot.press("t")
        await until(lambda: on_screen(app, ClockScreen))
        form = app.screen
        assert isinstance(form, ClockScreen)
        preview = form.query_one("#clock-preview", Static)
        await until(lambda: "due" in shown_text(preview) or "Nothing" in shown_text(preview))
        assert "Advance 1d (to 2024-05-02 12:00)" in str(form.query_one("#form-submit").label)

        # A month ahead: the seeded subscriptions renew, said before anything runs.
        form.query_one("#clock-preset", Select).value = "month"
        await until(lambda: "renews" in shown_text(preview))
        assert app.runtime.now() == FROZEN_TIME  # nothing moved yet
        assert "to 2024-06-01 12:00" in str(form.query_one("#form-submit").label)

        # A typed time wins over the preset; one in the past is refused under its field.
        typed = form.query_one("#clock-to", Input)
        typed.value = "2024-04-01"
        await pilot.pause()
        assert "only moves forward" in shown_text(preview)
        await pilot.press("ctrl+s")
        await pilot.pause()
        error = form.query_one("#error-to", Static)
        assert "only moves forward" in shown_text(error)
        typed.value = "+36h"
        await until(lambda: "Advance 1d 12h" in str(form.query_one("#form-submit").label))
        await pilot.press("ctrl+s")
        await until(lambda: not isinstance(app.screen, ClockScreen))
        assert app.runtime.now() == FROZEN_TIME + 1.5 * DAY
        await pilot.pause()
        assert "2024-05-03 00:00:00 UTC" in shown_text(view.query_one("#sandbox-clock", Static))


async def test_the_status_bar_shows_a_clock_moved_by_anyone_at_once(dirs: Dirs) -> None:
    """A scenario or a script on the app's client moves the clock: the status bar follows the
    request journal, not only its one-second poll (stopped here, so only the journal can)."""
    from payscope.widgets.status_bar import StatusBar

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        main = app.get_screen_main()
        assert main is not None
        assert main.status_poll is not None
        main.status_poll.pause()
        status = main.query_one(StatusBar)
        assert status.clock == "2024-05-01 12:00"
        await app.runtime.client.sandbox.advance_clock(13 * 86400)
        await until(lambda: status.clock == "2024-05-14 12:00")


async def test_clock_to_the_next_renewal(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        renewal = datetime.fromtimestamp(FROZEN_TIME + 3 * DAY + 60, UTC)
        app.push_screen(ClockScreen(renewal, label="sub_x's renewal"))
        await until(lambda: on_screen(app, ClockScreen))
        await pilot.pause()
        form = app.screen
        assert form.query_one("#clock-preset", Select).value == "renewal"
        assert "Advance 3d (to 2024-05-04 12:01)" in str(form.query_one("#form-submit").label)
        await pilot.press("ctrl+s")
        await until(lambda: not isinstance(app.screen, ClockScreen))
        assert app.runtime.now() == renewal.timestamp() + 1


async def _area(pilot: Any) -> None:
    await _sandbox(pilot)


async def _clock(pilot: Any) -> None:
    await _sandbox(pilot)
    await pilot.press("t")
    await until(lambda: on_screen(pilot.app, ClockScreen))
    form = pilot.app.screen
    form.query_one("#clock-preset", Select).value = "month"
    preview = form.query_one("#clock-preview", Static)
    await until(lambda: "renews" in shown_text(preview))
    await pilot.pause()


@pytest.mark.usefixtures("seeded_ids")
@pytest.mark.parametrize("look", LOOKS)
def test_sandbox_area(
    look: tuple[tuple[int, int], str],
    dirs: Dirs,
    snap_compare: Any,
) -> None:
    size, theme = look
    assert snap_compare(build(*dirs, theme=theme), terminal_size=size, run_before=_area)


@pytest.mark.parametrize("theme", ["payscope-dark", "payscope-light"])
def test_clock_form(theme: str, dirs: Dirs, snap_compare: Any) -> None:
    assert snap_compare(build(*dirs, theme=theme), terminal_size=(100, 34), run_before=_clock)


async def test_the_palette_offers_trigger_and_the_clock_from_any_area(dirs: Dirs) -> None:
    from payscope.areas.payments.detail import PaymentDetailScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Sandbox clock", "Trigger: Payment, one step", "Trigger: Dispute opened"} <= titles
        command = next(
            c for c in app.get_system_commands(app.screen) if c.title.endswith("one step")
        )
        command.callback()
        await until(lambda: on_screen(app, PaymentDetailScreen))
        screen = app.screen
        await until(lambda: screen.record is not None)
        assert screen.record.status == "succeeded"
        clock = next(c for c in app.get_system_commands(app.screen) if c.title == "Sandbox clock")
        clock.callback()
        await until(lambda: on_screen(app, ClockScreen))
        # The form gives its first field the focus once mounted (through the app's queue).
        await until(lambda: any(w.has_focus for w in app.screen.query("#clock-preset")))


def table_lines(table: Any) -> list[str]:
    """The lines a table shows, as text (public Line API: `render_line`)."""
    return [table.render_line(y).text for y in range(table.size.height)]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
async def test_revealed_secrets_are_shown_whole(dirs: Dirs, size: tuple[int, int]) -> None:
    """Issue 33.1: a revealed key or signing secret read off the screen is the whole value."""
    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        view = await _sandbox(pilot)
        creds = app.runtime.sandbox.credentials
        await pilot.press("s")
        await pilot.pause()
        table = view.values_table
        lines = table_lines(table)
        # What the value column shows, a row's lines joined (a long value wraps).
        column = next(i for i, (key, _w) in enumerate(table.fitted) if key == "value")
        start = sum(w + 2 for _key, w in table.fitted[:column])
        width = table.fitted[column][1] + 2
        shown = "".join(line[start : start + width].strip() for line in lines)
        for value in (creds.webhook_secret, creds.api_key, creds.publishable_key):
            assert value in shown
