"""Events: webhooks as the listener accepts them, newest first, loaded lazily from the journal."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, ClassVar

from rich.console import Group
from rich.json import JSON
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from tui.screens.base import AreaView, area_width, flex_width
from tui.widgets.format import status_text, theme_colour

BATCH = 200
REJECTED_SHOWN = 5  # the newest refusals: enough to see what is wrong, not a second feed
COLUMNS = (
    ("time", "Time", 8),
    ("event_type", "Event", 22),
    ("object_id", "Object", 26),
    ("status", "Status", 18),
    ("verified", "Sig", 3),
    ("dups", "Dup", 3),
)
# The columns shown at a given table width (each column also takes two cells of padding).
# The receive time goes first; then the object's status, which the event type mostly implies
# (payment_succeeded -> succeeded) and the detail shows. Verification and duplicates stay.
LAYOUTS = (
    (92, ("time", "event_type", "object_id", "status", "verified", "dups")),
    (82, ("event_type", "object_id", "status", "verified", "dups")),
    (0, ("event_type", "object_id", "verified", "dups")),
)


def columns_for(width: int) -> tuple[str, ...]:
    """The keys of the event columns that fit a table `width` cells wide."""
    return next(keys for minimum, keys in LAYOUTS if width >= minimum)


def layout_for(width: int) -> tuple[tuple[str, ...], int]:
    """(the columns, the event type's width) for a table `width` cells wide: in a narrow one
    the event type gives up cells (down to 12) so the verification and duplicates stay seen."""
    keys = columns_for(width)
    return keys, flex_width(width, COLUMNS, keys, "event_type", (12, 22))


class Stamp:
    """A receive time shown as HH:MM:SS that sorts by the full timestamp."""

    __slots__ = ("hidden", "timestamp")

    def __init__(self, timestamp: float, hidden: bool = False) -> None:
        self.timestamp = timestamp
        self.hidden = hidden

    def __rich__(self) -> Text:
        if self.hidden:  # snapshots: the receive time is the wall clock's
            return Text("··:··:··", style="dim")
        return Text(datetime.fromtimestamp(self.timestamp, UTC).strftime("%H:%M:%S"))


class EventName:
    """The event type cell; it also carries the receive time, so the newest-first order can be
    kept with a column every layout shows (narrow layouts drop Time)."""

    __slots__ = ("name", "timestamp")

    def __init__(self, name: str, timestamp: float) -> None:
        self.name = name
        self.timestamp = timestamp

    def __rich__(self) -> Text:
        return Text(self.name)


def parse_event_filter(text: str) -> tuple[str | None, str | None]:
    """`type:payment_failed pay_123` -> (event type, object id); ValueError says what is wrong."""
    event_type = object_id = None
    for word in text.split():
        key, sep, value = word.partition(":")
        if sep and key in ("type", "event", "t"):
            event_type = value
        elif sep and key in ("object", "obj", "id"):
            object_id = value
        elif (
            not sep
            and "_" in word
            and word.split("_")[0]
            in (
                "pay",
                "ref",
                "dp",
                "payout",
                "sub",
                "inv",
                "cus",
                "plink",
            )
        ):
            object_id = word
        elif not sep:
            event_type = word
        else:
            raise ValueError(f"Unknown filter `{key}`: use type:<event_type> or object:<id>.")
    return event_type, object_id


def remote_empty_text(runtime: Any) -> str:
    """The empty Events area on a remote profile: webhooks only come once the service is told
    where to send them, which payscope cannot do for a service on another machine."""
    url = runtime.listener_url or "this machine's listener"
    return (
        "[b]No webhooks yet[/b]\n\n"
        f"This listener is at {url}.\n"
        "The service sends webhooks to its business profile's webhook_url: point it here\n"
        "(through a tunnel when the service runs elsewhere), and give the listener the\n"
        "profile's signing key:  "
        f"[b]payscope keys set --profile {runtime.profile_name} --kind webhook[/b]\n\n"
        "[b]h[/b] shows what the service says it sent, with manual retry."
    )


class EventTable(DataTable[Any]):
    """The journal's events, newest first. Enter opens one (shown in the footer, as on
    Payments: the table's own Enter binding is hidden)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="events.open", tooltip="Headers, body, verification"),
    ]

    def action_open(self) -> None:
        self.action_select_cursor()


class EventsView(AreaView):
    """The live feed of webhook deliveries."""

    DEFAULT_CSS = """
    EventsView > #events-header { height: 1; padding: 0 1; background: $surface; }
    EventsView > #events-filter { display: none; border: round $accent; height: 3; }
    EventsView > #events-filter.-shown { display: block; }
    EventsView > DataTable { height: 1fr; }
    EventsView > #events-empty {
        display: none; height: 1fr; width: 1fr; padding: 0 4;
        content-align: center middle; text-align: center; color: $text-muted;
    }
    EventsView.-empty > #events-empty { display: block; }
    EventsView.-empty > DataTable { display: none; }
    EventsView > #events-rejected {
        display: none; height: auto; max-height: 7; padding: 0 1;
        border: round $error; border-title-color: $error; border-title-style: bold;
    }
    EventsView > #events-rejected.-shown { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g", "goto_object", "Go to object", id="events.goto", tooltip="Open its object"),
        Binding("p", "replay", "Replay", id="events.replay", tooltip="Re-POST to the forward URL"),
        Binding("r", "reload", "Reload", id="events.reload", tooltip="Reload from the journal"),
        Binding(
            "h",
            "service_history",
            "Service history",
            id="events.service_history",
            tooltip="What the service says it sent (events API), with manual retry",
        ),
    ]

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.loaded = 0
        self.total = 0
        self.event_type: str | None = None
        self.object_id: str | None = None
        self.filter_text = ""
        self.records: dict[str, Any] = {}
        self.rejected: list[Any] = []
        self._unsubscribe: Any = None
        self._loading = False

    def compose(self) -> ComposeResult:
        yield Static("[b]Events[/b]  [dim]waiting for the listener…[/dim]", id="events-header")
        yield Input(placeholder="type:payment_failed  object:pay_…", id="events-filter")
        table = EventTable(cursor_type="row", zebra_stripes=True, id="events-table")
        # The size is known before layout: guess the columns now (on_resize corrects it).
        self.shown_columns, self._type_width = layout_for(area_width(self.app.size.width) - 1)
        self._add_columns(table)
        yield table
        yield Static(
            "[b]No webhooks yet[/b]\n\n"
            "Create or change a payment ([b]n[/b] on Payments):\n"
            "its events appear here as they arrive, verified.",
            id="events-empty",
        )
        rejected = Static(id="events-rejected")
        rejected.border_title = "Rejected deliveries"
        yield rejected

    def _add_columns(self, table: DataTable[Any]) -> None:
        for key, label, width in COLUMNS:
            if key in self.shown_columns:
                shown = self._type_width if key == "event_type" else width
                table.add_column(label, width=shown, key=key)

    def on_resize(self) -> None:
        # One cell for the vertical scrollbar a long journal brings.
        wanted, type_width = layout_for(self.size.width - 1)
        if (wanted, type_width) == (self.shown_columns, self._type_width):
            return
        self.shown_columns, self._type_width = wanted, type_width
        table = self.query_one("#events-table", DataTable)
        table.clear(columns=True)
        self._add_columns(table)
        for event_id, record in self.records.items():
            table.add_row(*self._cells(record), key=event_id)

    def focus_main(self) -> None:
        self.focus_table(self.query_one(DataTable))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # With no event shown, the keys that act on one leave the footer.
        if action in ("goto_object", "replay") and not self.records:
            return False
        return super().check_action(action, parameters)

    def runtime_ready(self) -> None:
        listener = self.runtime.listener
        if listener is None:
            return
        if self._unsubscribe is None:
            self._unsubscribe = listener.add_subscriber(self._on_delivery)
        if not self.runtime.options.is_local:
            self.query_one("#events-empty", Static).update(remote_empty_text(self.runtime))
        self.reload()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def reload(self) -> None:
        """Start again from the newest event (filters applied)."""
        self.query_one(DataTable).clear()
        self.records = {}
        self.loaded = 0
        journal = self.runtime.listener.journal
        self.total = journal.count(self.event_type, self.object_id)
        self.rejected = journal.deliveries(REJECTED_SHOWN, rejected_only=True)
        self._show_rejected()
        self.load_more()

    def load_more(self) -> None:
        """The next batch of older events (the journal may hold 100,000: never all at once)."""
        if self._loading or self.loaded >= self.total:
            self._update_header()
            return
        self._loading = True
        try:
            journal = self.runtime.listener.journal
            batch = journal.recent(BATCH, self.loaded, self.event_type, self.object_id)
            table = self.query_one(DataTable)
            for record in batch:
                if record.event_id in self.records:
                    continue
                self.records[record.event_id] = record
                table.add_row(*self._cells(record), key=record.event_id)
            self.loaded += len(batch)
        finally:
            self._loading = False
        self._update_header()

    def _cells(self, record: Any) -> list[Any]:
        variables = self.app.theme_variables
        cells = {
            "time": Stamp(record.first_seen, self.runtime.options.stable_display),
            "event_type": EventName(record.event_type or "?", record.first_seen),
            "object_id": record.object_id or "-",
            "status": status_text(record.object_status, variables),
            "verified": Text("✓", style=theme_colour(variables, "event-verified")),
            "dups": str(record.duplicates) if record.duplicates else "",
        }
        return [cells[key] for key in self.shown_columns]

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
            line = Stamp(getattr(item, "received_at", 0.0), stable).__rich__()
            line.append(f" {item.status} ", style=f"bold {error}")
            line.append(item.reason or "")
            line.no_wrap = True
            line.overflow = "ellipsis"
            lines.append(line)
        panel.update(Group(*lines))

    def _update_header(self) -> None:
        where = f"  [dim]{self.runtime.listener_url}[/dim]" if self.runtime.listener_url else ""
        filt = f"  [b]filter[/b] {self.filter_text}" if self.filter_text else ""
        shown = f"{len(self.records):,} of {self.total:,}" if self.total else "none yet"
        self.show_empty(not self.records, self.query_one(DataTable))
        self.query_one("#events-header", Static).update(f"[b]Events[/b]  {shown}{filt}{where}")

    def _matches(self, delivery: Any) -> bool:
        if self.event_type and delivery.event_type != self.event_type:
            return False
        return not (self.object_id and delivery.object_id != self.object_id)

    def _on_delivery(self, delivery: Any) -> None:
        """Live: a delivery reached the listener. Runs on the app's loop, so it shows at once."""
        if not delivery.accepted:
            self.rejected = [delivery, *self.rejected][:REJECTED_SHOWN]
            self._show_rejected()
            if not self.is_on_screen:  # on screen, the panel of rejections says it
                self.notify(
                    f"A delivery was refused ({delivery.status}): {delivery.reason}.",
                    title="Webhook rejected",
                    severity="warning",
                )
            return
        if not delivery.event_id or not self._matches(delivery):
            return
        table = self.query_one(DataTable)
        if delivery.event_id in self.records:
            table.update_cell(delivery.event_id, "dups", str(delivery.duplicate_count))
            return
        from tui.webhooks.journal import EventRecord

        record = EventRecord(
            seq=delivery.delivery_id,
            event_id=delivery.event_id,
            event_type=delivery.event_type,
            object_id=delivery.object_id,
            object_status=delivery.object_status,
            first_seen=delivery.received_at,
            duplicates=0,
            delivery_id=delivery.delivery_id,
        )
        self.records[delivery.event_id] = record
        self.total += 1
        self.loaded += 1
        at_top = table.cursor_row == 0
        table.add_row(*self._cells(record), key=delivery.event_id)
        # Newest first: a near-sorted list, so this sort is linear in practice.
        table.sort("event_type", key=lambda cell: cell.timestamp, reverse=True)
        if at_top:
            table.move_cursor(row=0)
        self._update_header()

    @on(DataTable.RowHighlighted, "#events-table")
    def _maybe_load(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row >= event.data_table.row_count - 20:
            self.load_more()

    def selected_event(self) -> str | None:
        """The event id under the cursor."""
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return str(key) if key is not None else None

    @on(DataTable.RowSelected, "#events-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.open_record(str(event.row_key.value))

    def open_record(self, event_id: str) -> None:
        """Open an event's detail (`:evt <id>` lands here)."""
        detail = self.runtime.listener.journal.get(event_id) if self.runtime.listener else None
        if detail is None:
            self.notify(f"No event {event_id} in the listener's journal.", severity="warning")
            return
        self.app.push_screen(EventDetailScreen(detail))

    def action_goto_object(self) -> None:
        event_id = self.selected_event()
        record = self.records.get(event_id or "")
        goto_object(self.app, getattr(record, "object_id", None))

    def action_replay(self) -> None:
        event_id = self.selected_event()
        if event_id is not None:
            replay(self.app, event_id)

    def action_reload(self) -> None:
        self.reload()

    def action_service_history(self) -> None:
        if self.runtime.client is None:
            self.notify("Not connected yet: the history loads once the service answers.")
            return
        from tui.screens.service_events import ServiceEventsScreen

        self.app.push_screen(ServiceEventsScreen())

    def start_filter(self) -> None:
        box = self.query_one("#events-filter", Input)
        box.add_class("-shown")
        box.value = self.filter_text
        box.focus()

    @on(Input.Submitted, "#events-filter")
    def _apply_filter(self, event: Input.Submitted) -> None:
        try:
            self.event_type, self.object_id = parse_event_filter(event.value)
        except ValueError as exc:
            self.notify(str(exc), title="Filter not understood", severity="warning")
            return
        self.filter_text = event.value.strip()
        event.input.remove_class("-shown")
        self.focus_main()
        self.reload()

    def back(self) -> None:
        box = self.query_one("#events-filter", Input)
        if box.has_class("-shown"):
            box.remove_class("-shown")
            self.focus_main()
        elif self.filter_text:
            self.event_type = self.object_id = None
            self.filter_text = ""
            self.reload()

    def context_commands(self) -> Iterable[SystemCommand]:
        event_id = self.selected_event()
        if event_id is None:
            return
        yield SystemCommand("Replay this event", event_id, self.action_replay)
        yield SystemCommand("Open this event's object", event_id, self.action_goto_object)


def goto_object(app: Any, object_id: str | None) -> None:
    """Open the object an event is about (payments have a screen; others say so)."""
    if not object_id:
        app.notify("This event names no object.", severity="warning")
        return
    main = app.get_screen_main()
    from tui.screens.areas import area_for_id

    area = area_for_id(object_id)
    if area is None or not area.built:
        app.notify(f"{object_id}: its screen is not built yet.", severity="information")
        return
    app._goto(area.key)
    view = main.current_view()
    if hasattr(view, "open_record"):
        view.open_record(object_id)


def replay(app: Any, event_id: str) -> None:
    """Re-POST a journaled event to the listener's forward URL (said when there is none)."""
    listener = app.runtime.listener
    if listener.forwarder is None or not getattr(listener.forwarder, "default_url", True):
        app.notify("Set a forward URL in Settings first.", severity="warning")
        return

    async def run() -> None:
        record = await listener.replay(event_id)
        outcome = f"HTTP {record.status}" if record.status else (record.error or "no answer")
        app.notify(f"{event_id} -> {record.url}: {outcome}", title="Replayed")

    app.run_worker(run(), group="replay", exit_on_error=False, description="Replay")


class EventDetailScreen(Screen[None]):
    """One event: verification, headers, raw body, pretty JSON, forwards."""

    DEFAULT_CSS = """
    EventDetailScreen > #event-title { height: 1; padding: 0 1; background: $surface; }
    EventDetailScreen > VerticalScroll { padding: 0 1; }
    EventDetailScreen .section {
        border: round $foreground 25%; border-title-color: $accent; border-title-style: bold;
        padding: 0 1; height: auto;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="event.back", tooltip="Back to the events"),
        Binding("g", "goto_object", "Go to object", id="event.goto", tooltip="Open its object"),
        Binding("p", "replay", "Replay", id="event.replay", tooltip="Re-POST to the forward URL"),
    ]

    def __init__(self, detail: Any) -> None:
        super().__init__()
        self.detail = detail

    def compose(self) -> ComposeResult:
        d = self.detail
        variables = self.app.theme_variables
        ok = d.verified
        yield Static(
            Text.assemble(
                ("Event ", "bold"),
                (d.event.event_id, "bold"),
                "  ",
                d.event.event_type or "",
                "  ",
                (
                    "✓ signature verified" if ok else "✗ signature not verified",
                    theme_colour(variables, "event-verified" if ok else "event-rejected"),
                ),
            ),
            id="event-title",
        )
        with VerticalScroll():
            yield self._section("Verification", self._verification(ok, variables))
            stable = self.app.runtime.options.stable_display  # type: ignore[attr-defined]
            headers = Table.grid(padding=(0, 2))
            headers.add_column(style="bold", no_wrap=True)
            headers.add_column()
            for name, value in sorted(d.headers.items()):
                if stable and name == "host":  # snapshots: the listener's port changes
                    value = re.sub(r":\d+$", ":PORT", value)
                headers.add_row(name, value)
            yield self._section("Headers", headers)
            raw = d.body.decode("utf-8", "replace")
            yield self._section("Raw body (exactly as signed)", Text(raw))
            try:
                pretty: Any = JSON(json.dumps(json.loads(raw)))
            except ValueError:
                pretty = Text("The body is not JSON.", style="dim")
            yield self._section("JSON", pretty)
            forwards: Any = Text("Not forwarded.", style="dim")
            if d.forwards:
                table = Table(box=None, header_style="bold")
                for col in ("URL", "Status", "Latency"):
                    table.add_column(col)
                for f in d.forwards:
                    table.add_row(
                        f.url,
                        str(f.status or f.error or ""),
                        f"{f.latency_ms:.0f} ms" if f.latency_ms is not None else "",
                    )
                forwards = table
            yield self._section("Forwards", Group(forwards))

    def _verification(self, ok: bool, variables: dict[str, str]) -> Text:
        from tui.webhooks.signing import SIGNATURE_HEADER

        d = self.detail
        if ok:
            verdict = Text("✓ verified", style=f"bold {theme_colour(variables, 'event-verified')}")
            why = f": {SIGNATURE_HEADER} is the HMAC of the raw body below under a known secret."
        else:
            verdict = Text(
                "✗ not verified", style=f"bold {theme_colour(variables, 'event-rejected')}"
            )
            why = f": {d.delivery.reason or 'the signature does not match'}."
        seen = d.event.duplicates
        again = (
            f"\nDelivered again {seen} time{'s' if seen != 1 else ''} (duplicates)." if seen else ""
        )
        return Text.assemble(verdict, why, f"\nAnswered HTTP {d.delivery.status}.", again)

    def _section(self, title: str, content: Any) -> Static:
        section = Static(content, classes="section")
        section.border_title = title
        return section

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_goto_object(self) -> None:
        self.app.pop_screen()
        goto_object(self.app, self.detail.event.object_id)

    def action_replay(self) -> None:
        replay(self.app, self.detail.event.event_id)
