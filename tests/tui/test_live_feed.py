"""The live feed at speed (issue 30, section 6): a new row's cost does not grow with the events
received, a live list holds a bounded window (the rest paged back from the journal), a burst is
shown exactly once, the listener answers while the UI's loop is busy, and Payments says that
payments were made elsewhere."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from payscope.areas.events import view as events_module
from payscope.areas.events.view import EventsView
from payscope.areas.payments.view import PaymentsView
from payscope.views.columns import CellContext, Column
from payscope.views.table import ResourceTable
from payscope.webhooks.signing import SIGNATURE_HEADER, sign
from tests.tui.pilot import create_payment, run_command, until
from tests.tui.snapshot_app import build, ready
from tests.waits import HANG, REQUEST_TIMEOUT

WINDOW = 30


def _event(n: int) -> bytes:
    return json.dumps(
        {
            "merchant_id": "m",
            "event_id": f"evt_feed_{n:05d}",
            "event_type": "dispute_opened",
            "content": {
                "type": "dispute_details",
                "object": {"dispute_id": f"dp_feed_{n:05d}", "status": "dispute_opened"},
            },
            "timestamp": "2024-05-01T12:00:00Z",
        }
    ).encode()


def _burst_on_top(view: Any, numbers: range) -> bool:
    """The events of a burst are the window's top rows, the newest the journal holds first (a
    burst's events are stored in the order they arrive, not in their numbers' order)."""
    burst = {f"evt_feed_{n:05d}" for n in numbers}
    newest = view.runtime.listener.journal.recent(1)[0].event_id
    top = list(view.rows)[: len(burst)]
    return set(top) == burst and top[0] == newest


async def _post_all(app: Any, numbers: range, *, at_once: bool = True) -> None:
    """Signed webhooks to the app's listener: all in flight together (a burst), or in turn."""
    url, secret = app.runtime.listener.url, app.runtime.listener.secrets[0]
    limits = httpx.Limits(max_connections=32)
    async with httpx.AsyncClient(limits=limits, timeout=REQUEST_TIMEOUT) as client:

        async def post(n: int) -> None:
            body = _event(n)
            headers = {"content-type": "application/json", SIGNATURE_HEADER: sign(body, secret)}
            assert (await client.post(url, content=body, headers=headers)).status_code == 200

        if at_once:
            await asyncio.gather(*(post(n) for n in numbers))
        else:
            for n in numbers:
                await post(n)


def _small_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Events with a window of WINDOW rows paged 15 at a time (small enough to page in a test)."""
    monkeypatch.setattr(events_module, "WINDOW", WINDOW)
    monkeypatch.setattr(events_module, "BATCH", 15)
    monkeypatch.setattr(EventsView, "page_size", 15)


async def _events_after(pilot: Any, count: int) -> Any:
    """Start, post `count` events one after the other, open Events and focus its table."""
    app = pilot.app
    await ready(pilot)
    await _post_all(app, range(count), at_once=False)
    await run_command(pilot, "events")
    view = app.screen.query_one(EventsView)
    await until(lambda: view.loaded and len(view.rows) >= 15)
    view.table.focus()
    return view


def _header(view: Any) -> str:
    return str(view.query_one(f"#{view.scope}-header", Static).render())


# -- the cost of a row ---------------------------------------------------------------------------

COLUMNS = [
    Column[int]("n", "N", 8, lambda record, _context: str(record)),
    Column[int]("half", "Half", 8, lambda record, _context: str(record // 2)),
]


class Table(App[None]):
    def compose(self) -> ComposeResult:
        yield ResourceTable(COLUMNS, str, lambda: CellContext({}))


async def test_a_live_row_costs_the_same_after_ten_times_more_rows() -> None:
    """Rows touched (added, re-ordered, re-indexed) per live row, one row at a time: bounded
    by the window, the same after 100 rows as after 1,000; the table never holds more."""
    app = Table()
    async with app.run_test(size=(60, 20)):
        table = app.query_one(ResourceTable)
        table.fit_to(40)
        costs: dict[int, int] = {}
        for n in range(1, 1001):
            before = table.rows_touched
            table.put_on_top([n], WINDOW)
            costs[n] = table.rows_touched - before
            assert table.row_count <= WINDOW
        early = max(costs[n] for n in range(WINDOW + 1, 101))
        late = max(costs[n] for n in range(901, 1001))
        assert late <= early <= 2 * WINDOW + 1
        # Newest on top, the oldest kept at the bottom of the window.
        assert list(table.records) == [str(n) for n in range(1000, 1000 - WINDOW, -1)]
        assert table.coordinate_to_cell_key((0, 0)).row_key.value == "1000"
        # A batch of a frame costs one re-order for all its rows.
        before = table.rows_touched
        table.put_on_top(list(range(1010, 1000, -1)), WINDOW)
        assert table.rows_touched - before <= 2 * WINDOW + 10
        assert table.coordinate_to_cell_key((0, 0)).row_key.value == "1010"


# -- Events: a bounded window, exactly once ----------------------------------------------------


async def test_a_burst_is_shown_exactly_once_and_the_window_stays_bounded(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(events_module, "WINDOW", WINDOW)
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await run_command(pilot, "events")
        await pilot.pause()
        view = app.screen.query_one(EventsView)
        await until(lambda: view.loaded)
        seen: dict[str, int] = {}
        shown: set[str] = set()

        def sample() -> None:
            nonlocal shown
            now = set(view.rows)
            for event_id in now - shown:
                seen[event_id] = seen.get(event_id, 0) + 1
            shown = now
            assert view.table.row_count == len(now) <= WINDOW + WINDOW // 4

        # 120 in 4 bursts: each burst fits the window, the whole does not.
        for burst in range(4):
            await _post_all(app, range(burst * 30, burst * 30 + 30))
            await until(lambda b=burst: f"evt_feed_{b * 30 + 29:05d}" in view.rows or sample())
            sample()
        sent = {f"evt_feed_{n:05d}" for n in range(120)}
        assert set(seen) == sent  # none missed
        assert all(count == 1 for count in seen.values())  # none twice
        # Newest on top in the journal's order (a burst's requests commit in any order).
        assert next(iter(view.rows)) == app.runtime.journal.recent(1)[0].event_id
        assert f"1-{len(view.rows)} of 120" in _header(view)


async def test_paging_down_and_back_keeps_the_window_bounded(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _small_window(monkeypatch)
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _events_after(pilot, 100)
        # Down to the oldest event: older pages come in, the newest leave the window.
        for _ in range(120):
            await pilot.press("down")
        await until(lambda: "evt_feed_00000" in view.rows)
        assert view.table.row_count <= WINDOW
        assert view.page_offset > 0 and "evt_feed_00099" not in view.rows
        assert view.table.selected_id() == "evt_feed_00000"
        # Back up to the newest: paged back from the journal, the oldest leave.
        for _ in range(120):
            await pilot.press("up")
        await until(lambda: "evt_feed_00099" in view.rows)
        assert view.table.row_count <= WINDOW and view.page_offset == 0
        assert view.table.selected_id() == "evt_feed_00099"
        # Live again from the top: a new event lands on it, exactly once.
        await _post_all(app, range(100, 101))
        await until(lambda: list(view.rows)[:1] == ["evt_feed_00100"])
        assert len(view.rows) == len(set(view.rows)) <= WINDOW + WINDOW // 4


async def test_events_further_down_are_counted_as_new_and_r_shows_them(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _small_window(monkeypatch)
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _events_after(pilot, 60)
        await pilot.press("]")  # the second page: not following the newest
        await until(lambda: view.page_offset >= 15 and "evt_feed_00044" in view.rows)
        assert "evt_feed_00059" not in view.rows
        await _post_all(app, range(60, 65))
        await until(lambda: "5 new · r" in _header(view))
        assert not any(f"evt_feed_{n:05d}" in view.rows for n in range(60, 65))
        await pilot.press("r")
        await until(lambda: _burst_on_top(view, range(60, 65)))
        assert "new" not in _header(view)


async def test_ctrl_home_goes_to_the_newest_event_not_only_to_the_top_of_the_window(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _small_window(monkeypatch)
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _events_after(pilot, 60)
        await pilot.press("]", "]")  # two pages down: the window holds older events only
        await until(lambda: view.page_offset >= 30 and "evt_feed_00059" not in view.rows)
        await _post_all(app, range(60, 63))
        await until(lambda: "3 new" in _header(view))
        await pilot.press("ctrl+home")
        await until(lambda: _burst_on_top(view, range(60, 63)))
        assert view.page_offset == 0 and view.table.cursor_row == 0
        assert "new" not in _header(view)
        await _post_all(app, range(63, 65))  # live again from there
        await until(lambda: _burst_on_top(view, range(63, 65)))


# -- acknowledgements never wait on drawing -----------------------------------------------------


async def test_the_listener_answers_while_the_ui_loop_is_busy(dirs: tuple[Path, Path]) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        url, secret = app.runtime.listener.url, app.runtime.listener.secrets[0]
        answered: list[int] = []
        done = threading.Event()

        def sender() -> None:
            body = _event(1)
            headers = {"content-type": "application/json", SIGNATURE_HEADER: sign(body, secret)}
            answer = httpx.post(url, content=body, headers=headers, timeout=REQUEST_TIMEOUT)
            answered.append(answer.status_code)
            done.set()

        thread = threading.Thread(target=sender)
        thread.start()
        # The UI's loop does not turn until the listener has answered, as if a frame took that
        # long to draw: an answer that waited for the loop would never come.
        assert done.wait(HANG), f"no answer in {HANG:g} s while the UI's loop did not turn"
        await asyncio.to_thread(thread.join)
        assert answered == [200]
        # And the event reaches the screen once the loop turns again.
        await run_command(pilot, "events")
        view = app.screen.query_one(EventsView)
        await until(lambda: "evt_feed_00001" in view.rows)


# -- Payments made elsewhere ----------------------------------------------------------------------


async def test_payments_made_elsewhere_while_on_another_page_are_said_in_the_header(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PaymentsView, "page_size", 10)
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        view = app.screen.query_one(PaymentsView)
        await until(lambda: view.loaded and len(view.rows) == 10)
        view.table.focus()
        await pilot.press("]")
        await until(lambda: view.page_offset == 10 and len(view.rows) == 10)
        await app.workers.wait_for_complete()
        made = await create_payment(app.runtime.client, payment_id="pay_made_elsewhere_01")
        await until(lambda: "1 new · r" in _header(view))
        assert made.payment_id not in view.rows
        await pilot.press("r")
        await until(lambda: view.page_offset == 0 and made.payment_id in view.rows)
        assert next(iter(view.rows)) == made.payment_id
        assert "new" not in _header(view)


async def test_a_burst_of_payments_made_elsewhere_keeps_the_page_bounded(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PaymentsView, "page_size", 10)
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        view = app.screen.query_one(PaymentsView)
        await until(lambda: view.loaded and len(view.rows) == 10)
        client = app.runtime.client
        made = await asyncio.gather(
            *(create_payment(client, payment_id=f"pay_burst_{n:02d}") for n in range(8))
        )
        ids = {p.payment_id for p in made}

        def all_said() -> bool:
            shown = ids & set(view.rows)
            return len(shown) + view.new_count >= len(ids)

        await until(all_said)
        await app.workers.wait_for_complete()
        assert len(view.rows) <= 10  # the page keeps its size
        await pilot.press("r")
        await until(lambda: ids <= set(view.rows))
        assert len(view.rows) == 10
