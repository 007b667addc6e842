"""Events: webhooks as the listener accepts them, newest first, loaded lazily from the journal.

Built on the resource list: the journal stands in for a service (pages of 200 as the cursor
nears the end), refused deliveries show in a panel of their own, and each accepted delivery
lands on top at once, verified.

The actions are in `actions`, the detail in `detail`, the replay form in `forms`.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, ClassVar

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.timer import Timer
from textual.widgets import DataTable, Static

from payscope.areas.events.actions import EVENT_ACTIONS
from payscope.areas.events.detail import EventDetailScreen
from payscope.areas.events.history import ServiceEventsScreen
from payscope.areas.events.spec import (
    BATCH,
    COLUMNS,
    EVENT_GRAMMAR,
    REJECTED_SHOWN,
    clock,
    journal_page,
    remote_empty_text,
)
from payscope.views.filters import Grammar
from payscope.views.line_table import LineTable
from payscope.views.listing import ResourceListView
from payscope.views.live import watch_deliveries
from payscope.views.table import ResourceTable
from payscope.webhooks.records import EventRecord
from payscope.widgets.format import theme_colour
from payscope.widgets.text import safe

# The rows a live feed holds at most: the rest stay in the journal, paged in as the cursor
# nears either end (keyset pages on the journal's seq), so neither memory nor the cost of a
# new row grows with the events received.
WINDOW = 2 * BATCH
# Deliveries arriving within this long are shown together: one journal read and one re-order
# of the window for all of them, at most this often (the screen stays well within 1 s); the
# frames are shorter while few come (FAST_FRAME an event: within 100 ms of arriving). Each
# costs a drawing of the table's visible rows (about 1 ms a row): at 100 events a second, a
# fifth of a second between them took 15% of a core more than a third does.
LIVE_FRAME = 0.33
# The shortest frame: one event's (see `_schedule_live`).
FAST_FRAME = 0.03
# The least wait of that timer (a delivery is announced once its row is committed).
MIN_WAIT = 0.005


class EventsView(ResourceListView[EventRecord]):
    """The live feed of webhook deliveries."""

    DEFAULT_CSS = """
    EventsView > #events-rejected {
        display: none; height: auto; max-height: 7; padding: 0 1;
        border: round $error; border-title-color: $error; border-title-style: bold;
    }
    EventsView > #events-rejected.-shown { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "h",
            "service_history",
            "Service history",
            id="events.service_history",
            tooltip="What the service says it sent (events API), with manual retry",
        ),
    ]

    title = "Events"
    noun = "events"
    scope = "events"
    id_prefix = ""  # new events arrive from the listener itself, not by id
    columns = COLUMNS
    page_size = BATCH
    actions = EVENT_ACTIONS
    table_class = LineTable  # drawn a line at a time: the feed redraws only what changed

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.rejected: list[Any] = []
        self.head_seq = 0  # the newest event known (shown, or counted in `unseen`)
        self.unseen = 0  # events newer than the window, not shown (the cursor is further down)
        self._live_timer: Timer | None = None
        self._last_live = 0.0  # when the live rows were last taken from the journal
        self._last_count = 0  # how many they were
        self._rejected_dirty = False
        self._last_cursor: int | None = None  # where the cursor was at its last move

    def compose(self) -> ComposeResult:
        yield from super().compose()
        rejected = Static(id="events-rejected")
        rejected.border_title = "Rejected deliveries"
        yield rejected

    def on_mount(self) -> None:
        # The base's on_mount runs after this one by itself (Textual calls each class's).
        watch_deliveries(self, self.on_delivery)

    def _repaint(self) -> None:
        super()._repaint()
        self._show_rejected()  # the refusals' codes take the theme's colour too

    def key_of(self, record: EventRecord) -> str:
        return str(record.event_id)

    def order(self, record: EventRecord) -> int:
        return record.seq  # the journal's order, which its pages follow

    def filter_grammar(self) -> Grammar:
        return EVENT_GRAMMAR

    def loading_text(self) -> str:
        return "waiting for the listener…"

    def header_extra(self, header: Text) -> None:
        if self.unseen:
            header.append(f"  {self.unseen:,} new · r", style="bold")

    def header_text(self) -> Text:
        header = super().header_text()
        if self.runtime.listener_url:
            header.append(f"  {self.runtime.listener_url}", style="dim")
        return header

    def empty_text(self) -> str:
        if self.filter:
            return super().empty_text()
        if not self.runtime.options.is_local:
            return remote_empty_text(self.runtime)
        return (
            "[b]No webhooks yet[/b]\n\n"
            "Create or change a payment ([b]n[/b] on Payments):\n"
            "its events appear here as they arrive, verified."
        )

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[EventRecord], int]:
        listener = self.runtime.listener
        if listener is None:
            return [], 0
        journal = listener.journal
        if offset == 0:
            self.rejected = journal.deliveries(REJECTED_SHOWN, rejected_only=True)
            self._show_rejected()
        return journal_page(journal, filters, offset, limit)

    async def fetch_one(self, record_id: str) -> Any:  # None: no longer journaled
        detail = self.runtime.journal.get(record_id)
        return detail.event if detail is not None else None

    def detail(self, record_id: str) -> EventDetailScreen | None:
        if self.runtime.listener is None:
            return None
        return EventDetailScreen(record_id)

    def runtime_ready(self) -> None:
        # With another payscope listening for this profile, the empty list says so.
        if self.runtime.listener is not None or self.runtime.listener_elsewhere:
            self.load()

    def page_loaded(self, records: list[EventRecord]) -> None:
        # What is newer than this page comes live from here on (exactly once: the window holds
        # events up to `head_seq`, every later one is read after it).
        self.unseen = 0
        self._last_cursor = None
        # Deliveries that came while the page loaded were not followed (nothing is, until it
        # is shown): one look at the journal after it, for any newer than the page.
        self._schedule_live()
        if self.page_offset == 0 and not self.filter.local:
            self.head_seq = max((r.seq for r in records), default=0)
            return
        kind, obj = self._filter_args()
        newest = self.runtime.journal.recent(1, 0, kind, obj)
        self.head_seq = newest[0].seq if newest else 0

    def action_reload(self) -> None:
        # With new events waiting above the window, `r` goes to them.
        self.load(offset=0 if self.unseen else None)

    @on(ResourceTable.Top)
    def _to_newest(self, event: ResourceTable.Top) -> None:
        """Ctrl+Home goes to the newest event, not only to the top of the window held: the
        window is loaded again from the newest (live from there) when it does not start there."""
        if event.table is self.table and self.page_offset > 0 and self.scanned is None:
            self.load(offset=0)

    def _filter_args(self) -> tuple[str | None, str | None]:
        return self.filter.server.get("event_type"), self.filter.server.get("object_id")

    # -- live --------------------------------------------------------------------------------

    def on_change(self, change: Any) -> None:
        """Events arrive through `on_delivery` (refusals too), not as changes to re-read."""

    def on_delivery(self, delivery: Any) -> None:
        """Live: a delivery reached the listener. Nothing is drawn here: the deliveries of one
        frame are read from the journal together (`_show_live`), so a burst costs one re-order
        of the window, and what the listener dropped for a slow screen is read all the same."""
        if not delivery.accepted:
            self.rejected = [delivery, *self.rejected][:REJECTED_SHOWN]
            self._rejected_dirty = True
            if not self.is_on_screen:  # on screen, the panel of rejections says it
                self.notify(
                    f"A delivery was refused ({delivery.status}): {safe(delivery.reason)}.",
                    title="Webhook rejected",
                    severity="warning",
                    markup=False,
                )
        elif not delivery.event_id or not self.loaded:
            return
        elif delivery.duplicate:
            known = self.rows.get(delivery.event_id)
            if known is not None:  # the count of its duplicates, in place
                self.table.update(replace(known, duplicates=delivery.duplicate_count))
            return
        self._schedule_live()

    def _schedule_live(self) -> None:
        """Show what arrived at once when nothing was shown for a frame (one event is on screen
        within milliseconds), else at the end of the frame: a burst costs one re-order of the
        window per frame, however fast it comes."""
        if self._live_timer is not None:
            return
        # A frame as long as what the last one carried needs (FAST_FRAME an event): a webhook
        # now and then is on screen within FAST_FRAME; a burst is taken in frames of LIVE_FRAME.
        frame = min(LIVE_FRAME, max(FAST_FRAME, FAST_FRAME * self._last_count))
        wait = self._last_live + frame - time.monotonic()
        self._live_timer = self.set_timer(max(wait, MIN_WAIT), self._show_live)

    def _show_live(self) -> None:
        """Show what the journal stored since `head_seq`: on top of the window while it starts
        at the newest event and the cursor is in its upper half (the oldest rows leave from the
        bottom); otherwise counted as new in the header (`r` shows them)."""
        self._live_timer = None
        self._last_live = time.monotonic()
        self._last_count = 0
        if self._rejected_dirty:
            self._rejected_dirty = False
            self._show_rejected()
        listener = self.runtime.listener
        if listener is None or not self.loaded or self.scanned is not None:
            return
        journal = listener.journal
        kind, obj = self._filter_args()
        following = self.page_offset == 0 and self.table.cursor_row < WINDOW // 2
        if following:
            fresh = journal.newer(self.head_seq, WINDOW, kind, obj)
            if not fresh:
                return
            count = len(fresh)
            if count == WINDOW:  # more came than the window holds: the rest are paged
                count = journal.count_newer(self.head_seq, kind, obj)
            self.head_seq = fresh[0].seq
            self._last_count = count
            self.total += count
            self.table.put_on_top(fresh, WINDOW, slack=WINDOW // 4)
        else:
            newest = journal.newer(self.head_seq, 1, kind, obj)
            if not newest:
                return
            count = journal.count_newer(self.head_seq, kind, obj)
            self.head_seq = newest[0].seq
            self._last_count = count
            self.unseen += count
            self.page_offset += count  # the window is that much further from the newest
            self.total += count
        self.update_header()

    # -- lazy loading: a bounded window paged on as the cursor nears either end ----------------

    @on(LineTable.RowHighlighted)
    def _maybe_more(self, event: LineTable.RowHighlighted) -> None:
        if event.table is self.table:
            self._near_an_end(event.cursor_row)

    @on(DataTable.RowHighlighted)
    def _maybe_more_datatable(self, event: DataTable.RowHighlighted) -> None:
        # Events in a ResourceTable (the baseline bench/live_feed.py measures against).
        if event.data_table is self.table:
            self._near_an_end(event.cursor_row)

    def _near_an_end(self, cursor_row: int) -> None:
        if self.scanned is not None:
            return
        if cursor_row != self.table.cursor_row:
            return  # a move since, or one the window's rebuild made and undid
        rows = self.table.row_count
        margin = min(20, max(rows // 4, 1))  # the zones never overlap, whatever the window
        # Newer pages come back only as the cursor goes up: a page just shown (`]`) starts
        # with its cursor on top, and stays.
        went_up = self._last_cursor is not None and cursor_row < self._last_cursor
        if cursor_row < margin and self.page_offset > 0 and went_up:
            self._newer()
        elif cursor_row >= rows - margin and self.page_offset + rows < self.total:
            self._older()
        self._last_cursor = self.table.cursor_row

    def _older(self) -> None:
        listener = self.runtime.listener
        if listener is None or not self.rows:
            return
        last = next(reversed(self.rows.values()))
        batch = listener.journal.older(last.seq, BATCH, *self._filter_args())
        self.table.append(batch)
        self.page_offset += len(self.table.trim(WINDOW, from_top=True))
        self._last_cursor = self.table.cursor_row
        self.update_header()

    def _newer(self) -> None:
        listener = self.runtime.listener
        if listener is None or not self.rows:
            return
        first = next(iter(self.rows.values()))
        batch = listener.journal.newer(first.seq, BATCH, *self._filter_args(), nearest=True)
        self.table.put_above(batch)
        self.table.trim(WINDOW, from_top=False)
        self._last_cursor = self.table.cursor_row
        if len(batch) < BATCH or batch[0].seq >= self.head_seq:
            # The newest is in the window again: live from here.
            self.page_offset = self.unseen = 0
            if batch:
                self.head_seq = max(self.head_seq, batch[0].seq)
        else:
            self.page_offset = max(self.page_offset - len(batch), 1)
        self.update_header()

    def _show_rejected(self) -> None:
        """The newest refused deliveries, each with the reason the listener gave the sender."""
        panel = self.query_one("#events-rejected", Static)
        panel.set_class(bool(self.rejected), "-shown")
        if not self.rejected:
            return
        display = self.runtime.display
        error = theme_colour(self.app.theme_variables, "event-rejected")
        lines = []
        for item in self.rejected:
            line = clock(getattr(item, "received_at", 0.0), display)
            line.append(f" {item.status} ", style=f"bold {error}")
            line.append_text(safe(item.reason, empty=""))
            line.no_wrap = True
            line.overflow = "ellipsis"
            lines.append(line)
        panel.update(Group(*lines))

    def action_service_history(self) -> None:
        if self.runtime.client is None:
            self.notify("Not connected yet: the history loads once the service answers.")
            return

        self.app.push_screen(ServiceEventsScreen())
