"""At 80x24: the rail hides itself (Ctrl+N shows it), Payments keeps the id, status, amount and
when, Events its time and status, and every footer shows its keys whole: a key that does not
fit is left out (the app's own first; `?` lists them all), never cut."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from payscope.areas.events.view import EventsView
from payscope.areas.payments.view import PaymentsView
from payscope.shell.main import NavRail
from payscope.widgets.footer import KeyFooter
from tests.tui.pilot import create_payment, open_list, run_command, until
from tests.tui.snapshot_app import build, ready

Dirs = tuple[Path, Path]


def _columns(view: Any) -> list[str]:
    return [key for key, _width in view.table.fitted]


def _footer_whole(app: Any) -> list[str]:
    """The footer's keys as shown; each must lie inside the footer, none over another."""
    footer = app.screen.query_one(KeyFooter)
    right = footer.region.right
    keys = sorted(footer.query("FooterKey"), key=lambda k: k.region.x)
    for before, after in itertools.pairwise(keys):
        assert before.region.right <= after.region.x, (before.description, after.description)
    for key in keys:
        assert key.region.right <= right and key.region.width >= len(key.description), key
    return [str(k.description) for k in keys]


async def test_at_80x24_the_lists_keep_what_a_user_needs(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        assert not app.screen.query_one(NavRail).display
        payments = await open_list(pilot, "payments", PaymentsView, start=False)
        assert _columns(payments)[:4] == ["payment_id", "status", "amount", "created"]
        shown = _footer_whole(app)
        assert {"Open", "New", "Keys"} <= set(shown)

        await create_payment(app.runtime.api)  # its webhooks fill Events
        events = await open_list(pilot, "events", EventsView, start=False)
        await until(lambda: bool(events.rows), 15)
        await pilot.pause()
        assert {"time", "event_type", "object_id", "status"} <= set(_columns(events))
        table = events.table
        assert (
            sum(width + 2 for _key, width in table.fitted) <= table.scrollable_content_region.width
        )
        _footer_whole(app)

        await run_command(pilot, "requests")
        # The footer takes the area's keys once the screen says its bindings changed.
        footer = app.screen.query_one(KeyFooter)
        await until(
            lambda: "Copy curl" in [str(k.description) for k in footer.query("FooterKey")],
            "the Requests keys in the footer",
        )
        await pilot.pause()
        shown = _footer_whole(app)
        assert "Copy curl" in shown and "Keys" in shown
        # Ctrl+N shows the rail when wanted; the areas make room.
        await pilot.press("ctrl+n")
        await until(lambda: app.screen.query_one(NavRail).display)

        # Wide, the rail is back by itself and Customer shows.
    wide = build(*dirs)
    async with wide.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert wide.screen.query_one(NavRail).display
        payments = await open_list(pilot, "payments", PaymentsView, start=False)
        assert "customer" in _columns(payments)
        assert {"Quit", "Palette", "Keys"} <= set(_footer_whole(wide))


async def test_a_detail_screens_footer_keeps_its_keys_whole_at_80x24(dirs: Dirs) -> None:
    from tests.tui.pilot import open_detail

    app = build(*dirs)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        payments = await open_list(pilot, "payments", PaymentsView, start=False)
        first = next(iter(payments.rows))
        await open_detail(pilot, first)
        shown = _footer_whole(app)
        assert shown[0] == "Back" and "Keys" in shown
