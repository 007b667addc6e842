"""Events: webhooks as the listener accepts them, newest first, loaded lazily from the journal.

Built on the resource list: the journal stands in for a service (pages of 200 as the cursor
nears the end), refused deliveries show in a panel of their own, and each accepted delivery
lands on top at once, verified.

The actions are in `actions`, the detail in `detail`, the replay form in `forms`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from tui.areas.events.actions import EVENT_ACTIONS
from tui.areas.events.detail import EventDetailScreen
from tui.areas.events.spec import (
    BATCH,
    COLUMNS,
    EVENT_GRAMMAR,
    REJECTED_SHOWN,
    clock,
    remote_empty_text,
)
from tui.views.filters import Grammar
from tui.views.listing import ResourceListView
from tui.views.live import watch_deliveries
from tui.widgets.format import theme_colour
from tui.widgets.text import safe


class EventsView(ResourceListView[Any]):
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

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.rejected: list[Any] = []

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

    def key_of(self, record: Any) -> str:
        return str(record.event_id)

    def order(self, record: Any) -> Any:
        return record.first_seen

    def filter_grammar(self) -> Grammar:
        return EVENT_GRAMMAR

    def loading_text(self) -> str:
        return "waiting for the listener…"

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
    ) -> tuple[list[Any], int]:
        listener = self.runtime.listener
        if listener is None:
            return [], 0
        journal = listener.journal
        kind, obj = filters.get("event_type"), filters.get("object_id")
        if offset == 0:
            self.rejected = journal.deliveries(REJECTED_SHOWN, rejected_only=True)
            self._show_rejected()
        return journal.recent(limit, offset, kind, obj), journal.count(kind, obj)

    async def fetch_one(self, record_id: str) -> Any:
        detail = self.runtime.journal.get(record_id)
        return detail.event if detail is not None else None

    def detail(self, record_id: str) -> Any:
        if self.runtime.listener is None:
            return None
        return EventDetailScreen(record_id)

    def runtime_ready(self) -> None:
        if self.runtime.listener is not None:
            self.load()

    # -- live --------------------------------------------------------------------------------

    def on_change(self, change: Any) -> None:
        """Events arrive through `on_delivery` (refusals too), not as changes to re-read."""

    def on_delivery(self, delivery: Any) -> None:
        """Live: a delivery reached the listener; shown at once, no read needed."""
        if not delivery.accepted:
            self.rejected = [delivery, *self.rejected][:REJECTED_SHOWN]
            self._show_rejected()
            if not self.is_on_screen:  # on screen, the panel of rejections says it
                self.notify(
                    f"A delivery was refused ({delivery.status}): {safe(delivery.reason)}.",
                    title="Webhook rejected",
                    severity="warning",
                    markup=False,
                )
            return
        if not delivery.event_id or not self.loaded or not self._matches(delivery):
            return
        from tui.webhooks.journal import EventRecord

        known = self.rows.get(delivery.event_id)
        record = EventRecord(
            seq=delivery.delivery_id,
            event_id=delivery.event_id,
            event_type=delivery.event_type,
            object_id=delivery.object_id,
            object_status=delivery.object_status,
            first_seen=known.first_seen if known else delivery.received_at,
            duplicates=delivery.duplicate_count if known else 0,
            delivery_id=delivery.delivery_id,
        )
        if known is None:
            self.total += 1
        self.table.insert(record, self.order)
        self.update_header()

    def _matches(self, delivery: Any) -> bool:
        wanted = self.filter.server
        if wanted.get("event_type") and delivery.event_type != wanted["event_type"]:
            return False
        return not (wanted.get("object_id") and delivery.object_id != wanted["object_id"])

    # -- lazy loading ------------------------------------------------------------------------

    @on(DataTable.RowHighlighted)
    def _maybe_more(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row >= event.data_table.row_count - 20 and len(self.rows) < self.total:
            self._more()

    def _more(self) -> None:
        listener = self.runtime.listener
        if listener is None:
            return
        kind, obj = self.filter.server.get("event_type"), self.filter.server.get("object_id")
        batch = listener.journal.recent(BATCH, len(self.rows), kind, obj)
        self.table.append(batch)
        self.update_header()

    def _show_rejected(self) -> None:
        """The newest refused deliveries, each with the reason the listener gave the sender."""
        panel = self.query_one("#events-rejected", Static)
        panel.set_class(bool(self.rejected), "-shown")
        if not self.rejected:
            return
        stable = self.runtime.options.stable_display
        error = theme_colour(self.app.theme_variables, "event-rejected")
        lines = []
        for item in self.rejected:
            line = clock(getattr(item, "received_at", 0.0), stable)
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
        from tui.areas.events.history import ServiceEventsScreen

        self.app.push_screen(ServiceEventsScreen())
