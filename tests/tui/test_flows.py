"""Pilot tests: the app as a user drives it, on a real embedded sandbox and listener."""

from __future__ import annotations

import asyncio
from pathlib import Path

from payscope.areas.events.view import EventsView
from payscope.areas.payments.detail import PaymentDetailScreen
from payscope.areas.payments.forms import CaptureForm, NewPaymentScreen, RefundForm
from payscope.areas.payments.view import PaymentsView
from tests.tui.conftest import SEEDED_PAYMENTS
from tests.tui.pilot import run_command, type_text, until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]


async def test_start_up_shows_the_seeded_payments(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        view = app.screen.query_one(PaymentsView)
        table = view.table
        assert table.row_count == min(SEEDED_PAYMENTS, 100)
        assert view.total == SEEDED_PAYMENTS
        assert app.runtime.environment == "local"
        assert app.runtime.listener_url.endswith("/webhooks")


async def test_create_capture_refund_updates_row_and_events(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("n")
        assert isinstance(app.screen, NewPaymentScreen)
        form = app.screen
        form.query_one("#field-amount").value = "42.00"
        form.query_one("#field-capture_method").value = "manual"
        form.query_one("#field-payment_id").value = "pay_tui_flow_1"
        await pilot.press("ctrl+s")
        await until(lambda: not isinstance(app.screen, NewPaymentScreen))
        # The new payment opens at once; back on the list, the cursor is on its row.
        await until(
            lambda: isinstance(app.screen, PaymentDetailScreen) and app.screen.payment is not None
        )
        assert app.screen.payment_id == "pay_tui_flow_1"
        assert app.screen.payment.status == "requires_capture"
        await pilot.press("escape")
        view = app.screen.query_one(PaymentsView)
        await until(lambda: view.selected_id() == "pay_tui_flow_1")
        assert view.rows["pay_tui_flow_1"].status == "requires_capture"

        table = view.table
        await pilot.press("c")
        await until(lambda: on_screen(app, CaptureForm))
        await pilot.press("ctrl+s")
        await until(lambda: view.rows["pay_tui_flow_1"].status == "succeeded")
        assert str(table.get_cell("pay_tui_flow_1", "status")) == "succeeded"

        await pilot.press("f")
        await until(lambda: on_screen(app, RefundForm))
        app.screen.query_one("#field-amount").value = "10.00"
        await pilot.press("ctrl+s")
        await until(lambda: not isinstance(app.screen, RefundForm))

        journal = app.runtime.listener.journal
        await until(lambda: journal.count(object_id="pay_tui_flow_1") >= 2)
        await run_command(pilot, "events")
        events = app.screen.query_one(EventsView)
        await until(lambda: any(r.object_id == "pay_tui_flow_1" for r in events.rows.values()))
        types = {r.event_type for r in events.rows.values() if r.object_id == "pay_tui_flow_1"}
        assert {"payment_authorized", "payment_succeeded"} & types


async def test_command_mode_opens_a_payment_by_id(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        first = next(iter(app.screen.query_one(PaymentsView).rows))
        await run_command(pilot, f"pay {first}")
        await until(lambda: on_screen(app, PaymentDetailScreen))
        await app.workers.wait_for_complete()
        assert app.screen.payment.payment_id == first
        await pilot.press("escape")
        assert not isinstance(app.screen, PaymentDetailScreen)


async def test_unknown_command_is_a_notification_not_a_crash(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await run_command(pilot, "frobnicate")
        await pilot.pause()
        assert any("Unknown command" in n.message for n in app.told)


async def _no_wait(_seconds: float) -> None:
    await asyncio.sleep(0)


async def test_faulty_sandbox_errors_are_shown_not_crashed(dirs: Dirs) -> None:
    # Every answer is a fault; the client's retries need not sit through the 1 s Retry-After
    # of each injected 429 and 503 (they are made all the same).
    app = build(*dirs, fault_rate=1.0, retry_sleep=_no_wait)
    async with app.run_test(size=(120, 40)) as pilot:
        shown: list[str] = []
        notify = app.notify

        def recording(message: str, **kwargs):  # type: ignore[no-untyped-def]
            if kwargs.get("severity") == "error":
                shown.append(message)
            notify(message, **kwargs)

        app.notify = recording  # type: ignore[method-assign]
        await app.runtime.ready.wait()
        await until(lambda: bool(shown))
        assert "What to do" in shown[0]
        await pilot.press("r")  # reload while the service keeps failing: no crash
        await pilot.pause(0.2)
        assert app.is_running


async def test_broken_user_theme_falls_back_with_a_notification(dirs: Dirs) -> None:
    config, _data = dirs
    (config / "themes").mkdir()
    (config / "themes" / "mine.toml").write_text('name = "mine"\nprimary = "nope"\n')
    app = build(*dirs, theme="mine")
    async with app.run_test(size=(80, 24)):

        def said() -> str:
            return " ".join(n.message for n in app.told)

        # Said once the app is up: on a loaded machine that is more than one pause.
        await until(lambda: "mine.toml" in said())
        assert app.theme == "payscope-dark"
        assert "not found" in said()


async def test_keymap_from_settings_remaps_a_binding(dirs: Dirs) -> None:
    config, _data = dirs
    (config / "profiles.toml").write_text('keymap = { "payments.new" = "ctrl+n" }\n')
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+n")
        assert isinstance(app.screen, NewPaymentScreen)


async def test_ctrl_r_reloads_the_views_without_restarting(dirs: Dirs) -> None:
    """With everything up, Ctrl+R loads the views again; the sandbox and listener stay."""
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        runtime = app.runtime
        client, listener = runtime.client, runtime.listener

        def lists() -> int:
            return sum(1 for e in client.journal.entries() if e.url.endswith("/payments/list"))

        before = lists()
        await pilot.press("ctrl+r")
        await until(lambda: lists() == before + 1)
        await app.workers.wait_for_complete()
        assert runtime.client is client and runtime.listener is listener
        # One subscription counts deliveries: a new event adds exactly one.
        from payscope.widgets.status_bar import StatusBar

        status = app.screen.query_one(StatusBar)
        count = status.event_count
        from tests.tui.pilot import create_payment

        await create_payment(client, payment_id="pay_tui_ctrl_r")
        await until(lambda: status.event_count > count)
        await asyncio.sleep(0.2)
        assert status.event_count == count + 1


async def test_request_log_path_column_takes_the_room_left(dirs: Dirs) -> None:
    """No horizontal scrolling at 80 columns; the rows survive a resize."""

    from payscope.areas.requests.view import RequestsView

    app = build(*dirs)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await run_command(pilot, "requests")
        await pilot.pause()
        view = app.screen.query_one(RequestsView)
        table = view.table
        narrow = table.column_width("path")
        assert table.virtual_size.width <= table.size.width
        rows = table.row_count
        assert rows >= 1
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert table.column_width("path") > narrow
        assert table.row_count == rows


async def test_an_empty_result_keeps_the_keys_of_the_area(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        view = app.screen.query_one(PaymentsView)
        await pilot.press("slash")
        await type_text(pilot, "pay_matches_nothing")
        await pilot.press("enter")
        await until(lambda: view.has_class("-empty") and view.total == 0)
        # The table is hidden; the view holds the focus, so n still creates a payment.
        await until(lambda: app.focused is view)
        await pilot.press("n")
        await until(lambda: on_screen(app, NewPaymentScreen))
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, NewPaymentScreen))
        # Esc clears the filter: the rows come back and the table has the focus again.
        await pilot.press("escape")
        await until(lambda: not view.has_class("-empty") and view.total > 0)
        await until(lambda: app.focused is view.table)


async def test_the_rail_makes_room_in_a_narrow_terminal_unless_asked_back(dirs: Dirs) -> None:
    from payscope.shell.main import NavRail

    app = build(*dirs)
    async with app.run_test(size=(60, 20)) as pilot:
        await ready(pilot)
        nav = app.screen.query_one(NavRail)
        table = app.screen.query_one(PaymentsView).table
        assert not nav.display
        # The three columns fit, amount included, with the status cut shorter.
        assert table.column_labels() == ["Payment", "Status", "Amount"]
        assert sum(width + 2 for _key, width in table.fitted) <= 59
        await pilot.resize_terminal(120, 40)
        await until(lambda: bool(nav.display))
        await pilot.press("ctrl+b")  # hidden by hand: a resize no longer brings it back
        assert not nav.display
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert not nav.display


async def test_find_a_payment_by_the_amount_the_customer_quotes(dirs: Dirs) -> None:
    from tests.tui.pilot import create_payment

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        quoted = await create_payment(app.runtime.client, amount=123457)
        view = app.screen.query_one(PaymentsView)
        await pilot.press("slash")
        await type_text(pilot, "amount:1,234.57")
        await pilot.press("enter")
        await until(lambda: view.filter.server.get("amount_filter") is not None and view.loaded)
        await until(lambda: quoted.payment_id in view.rows)
        assert {p.amount for p in view.rows.values()} == {123457}
        header = str(view.query_one("#payments-header").render())
        assert "amount:1,234.57" in header
