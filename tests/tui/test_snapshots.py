"""Snapshots of every screen at 120x40 and 80x24, in two themes (plus the demo themes once).

Each snapshot runs the real app on a copy of the seeded sandbox with a frozen clock; what
still moves (ports, receive times, latencies) is hidden by the test config.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.tui.area_snapshots import screens_in_every_look
from tests.tui.pilot import run_command, type_text
from tests.tui.snapshot_app import build, ready

Drive = Callable[[Any], Awaitable[None]]


async def _payments(pilot: Any) -> None:
    await ready(pilot)


async def _detail(pilot: Any) -> None:
    """A declined payment: the decline explained, with retry advice."""
    await _open_first(pilot, "failed")


async def _open_first(pilot: Any, status: str) -> None:
    await ready(pilot)
    from payscope.areas.payments.view import PaymentsView

    view = pilot.app.screen.query_one(PaymentsView)
    payment = next(p for p in view.rows.values() if p.status == status)
    view.open_record(payment.payment_id)
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def _detail_capture(pilot: Any) -> None:
    """A held payment (manual capture): the footer offers capture and cancel."""
    await ready(pilot)
    from payscope.areas.payments.view import PaymentsView
    from tests.tui.pilot import create_payment, until

    await create_payment(
        pilot.app.runtime.client, capture_method="manual", payment_id="pay_snapshot_held"
    )
    # Its row comes with its webhook, or with a reload: either way before the shot.
    view = pilot.app.screen.query_one(PaymentsView)
    view.action_reload()
    await until(lambda: "pay_snapshot_held" in view.rows)
    await _open_first(pilot, "requires_capture")


async def _detail_raw(pilot: Any) -> None:
    await _detail(pilot)
    await pilot.press("v")
    await pilot.pause()


async def _new_payment(pilot: Any) -> None:
    await ready(pilot)
    await pilot.press("n")
    await pilot.pause()


async def _new_payment_errors(pilot: Any) -> None:
    await _new_payment(pilot)
    pilot.app.screen.query_one("#field-amount").value = "12.345"
    pilot.app.screen.query_one("#field-currency").value = "XXQ"
    await pilot.press("ctrl+s")
    await pilot.pause()


async def _area(name: str, pilot: Any) -> None:
    await ready(pilot)
    await run_command(pilot, name)
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def _events(pilot: Any) -> None:
    await _area("events", pilot)


async def _requests(pilot: Any) -> None:
    await _area("requests", pilot)


async def _settings(pilot: Any) -> None:
    await _area("settings", pilot)


async def _profile_add(pilot: Any) -> None:
    await _settings(pilot)
    await pilot.press("a")
    await pilot.pause()


async def _command(pilot: Any) -> None:
    await ready(pilot)
    await pilot.press("colon", "e", "v")
    await pilot.pause()


async def _keys(pilot: Any) -> None:
    await ready(pilot)
    await pilot.press("question_mark")
    await pilot.pause()


async def _filter(pilot: Any, query: str = "status:failed") -> None:
    await ready(pilot)
    await pilot.press("slash")
    await type_text(pilot, query)
    await pilot.press("enter")
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


SCREENS: dict[str, Drive] = {
    "payments": _payments,
    "payment_detail": _detail,
    "payment_detail_raw": _detail_raw,
    "payment_detail_capture": _detail_capture,
    "new_payment": _new_payment,
    "new_payment_errors": _new_payment_errors,
    "payments_filtered": _filter,
    "events": _events,
    "requests": _requests,
    "settings": _settings,
    "profile_add": _profile_add,
    "command_mode": _command,
    "key_help": _keys,
}


test_screen = screens_in_every_look(SCREENS)


@pytest.mark.parametrize("theme", ["payscope-high-contrast", "payscope-presentation"])
def test_demo_themes(theme: str, dirs: tuple[Path, Path], snap_compare: Any) -> None:
    assert snap_compare(build(*dirs, theme=theme), terminal_size=(120, 40), run_before=_detail)


@pytest.mark.parametrize("theme", ["dracula", "catppuccin-latte", "ansi-light"])
def test_textual_themes(theme: str, dirs: tuple[Path, Path], snap_compare: Any) -> None:
    """Textual's own themes set none of payscope's colours: statuses follow their palette."""
    assert snap_compare(build(*dirs, theme=theme), terminal_size=(120, 40), run_before=_payments)
