"""Snapshots of the action forms (capture, refund, cancel) and the test-card picker, at 120x40
and 80x24, in a dark and a light theme, on seeded payments (frozen clock, fixed ids)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from tests.tui.area_snapshots import screens_in_every_look
from tests.tui.pilot import create_payment, until
from tests.tui.snapshot_app import ready
from tests.waits import on_screen

Drive = Callable[[Any], Awaitable[None]]

# Each form opens on a payment with a fixed id made for it (the clock is frozen, so its times are
# too): manual capture for capture and cancel, captured for refund.
CAPTURE = {"capture": "manual", "cancel": "manual", "refund": "automatic"}


def _form(action: str) -> Drive:
    async def drive(pilot: Any) -> None:
        from payscope.areas.payments.actions import ROW_ACTIONS
        from payscope.areas.payments.view import PaymentsView
        from payscope.views.actions import find
        from payscope.views.forms import FormScreen

        await ready(pilot)
        app = pilot.app
        payment = await create_payment(
            app.runtime.client,
            amount=123456,
            capture_method=CAPTURE[action],
            payment_id=f"pay_snapshot_{action}",
        )
        # The new payment's webhook adds its row: wait for it, so nothing moves after the shot.
        view = app.screen.query_one(PaymentsView)
        await until(lambda: payment.payment_id in view.rows)
        await app.workers.wait_for_complete()
        app.clear_notifications()
        chosen = find(ROW_ACTIONS, action)
        assert chosen is not None
        chosen.run(view, payment.payment_id, None)
        await until(lambda: on_screen(app, FormScreen))
        await pilot.pause()

    return drive


async def _picker(pilot: Any) -> None:
    from textual.widgets import DataTable

    from payscope.widgets.card_picker import TestCardPicker

    await ready(pilot)
    app = pilot.app
    await pilot.press("n")
    await pilot.pause()
    await pilot.press("ctrl+t")
    await until(lambda: on_screen(app, TestCardPicker))
    await until(lambda: app.screen.query_one(DataTable).row_count > 0)
    await pilot.pause()


SCREENS: dict[str, Drive] = {
    "capture": _form("capture"),
    "refund": _form("refund"),
    "cancel": _form("cancel"),
    "test_cards": _picker,
}


test_form = screens_in_every_look(SCREENS, seeded=False)
