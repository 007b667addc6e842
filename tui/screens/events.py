"""Events: webhooks as the listener accepts them, newest first, loaded lazily from the journal.

Built on the resource list: the journal stands in for a service (pages of 200 as the cursor
nears the end), refused deliveries show in a panel of their own, and each accepted delivery
lands on top at once, verified.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.json import JSON
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Input, Static

from tui.views.actions import Action
from tui.views.columns import CellContext, Column
from tui.views.detail import DetailScreen, Missing, empty, grid
from tui.views.filters import Filter, Grammar, Term
from tui.views.forms import Field, FormScreen
from tui.views.listing import ResourceListView
from tui.views.live import watch_deliveries
from tui.views.text import safe
from tui.widgets.format import status_text, theme_colour

if TYPE_CHECKING:
    from tui.views.actions import ActionHost

BATCH = 200
# The rows a live feed holds at most: the rest stay in the journal, paged in as the cursor
# nears either end (keyset pages on the journal's seq), so neither memory nor the cost of a
# new row grows with the events received.
WINDOW = 2 * BATCH
# Deliveries arriving within this long are shown together: one journal read and one re-order
# of the window for all of them, at most this often (the screen stays well within 1 s).
LIVE_FRAME = 0.2
REJECTED_SHOWN = 5  # the newest refusals: enough to see what is wrong, not a second feed
# Object ids the filter takes as bare words.
OBJECT_PREFIXES = ("pay_", "ref_", "dp_", "payout_", "sub_", "inv_", "cus_", "plink_")


def clock(timestamp: float, hidden: bool) -> Text:
    """A receive time as HH:MM:SS (hidden in snapshots: it is the wall clock's)."""
    if hidden:
        return Text("··:··:··", style="dim")
    return Text(datetime.fromtimestamp(timestamp, UTC).strftime("%H:%M:%S"))


def _verified(record: Any, context: CellContext) -> Text:
    return Text("✓", style=theme_colour(context.variables, "event-verified"))


# The receive time goes first when narrow; then the object's status, which the event type
# mostly implies (payment_succeeded -> succeeded) and the detail shows. Sig and Dup stay, and
# the event type gives up cells (down to 12) so they stay in view.
COLUMNS: tuple[Column[Any], ...] = (
    Column("time", "Time", 8, lambda r, c: clock(r.first_seen, c.stable), 92),
    Column("event_type", "Event", 22, lambda r, c: safe(r.event_type, empty="?"), flex=(12, 22)),
    Column("object_id", "Object", 26, lambda r, c: safe(r.object_id)),
    Column("status", "Status", 18, lambda r, c: status_text(r.object_status, c.variables), 76),
    Column("verified", "Sig", 3, _verified),
    Column("dups", "Dup", 3, lambda r, c: Text(str(r.duplicates) if r.duplicates else "")),
)


def _type(value: str, result: Filter) -> None:
    result.server["event_type"] = value


def _object(value: str, result: Filter) -> None:
    result.server["object_id"] = value


def _bare(word: str, result: Filter) -> None:
    (_object if word.startswith(OBJECT_PREFIXES) else _type)(word, result)


EVENT_GRAMMAR = Grammar(
    [
        Term(("type", "event", "t"), "type:payment_failed", _type),
        Term(("object", "obj", "id"), "object:pay_…", _object),
    ],
    bare=_bare,
    bare_example="pay_…",
)


def parse_event_filter(text: str) -> tuple[str | None, str | None]:
    """`type:payment_failed pay_123` -> (event type, object id); ValueError says what is wrong."""
    parsed = EVENT_GRAMMAR.parse(text)
    return parsed.server.get("event_type"), parsed.server.get("object_id")


def remote_empty_text(runtime: Any) -> str:
    """The empty Events area on a remote profile: webhooks only come once the service is told
    where to send them, which payscope cannot do for a service on another machine."""
    from tui.views.text import safe_markup

    url = safe_markup(runtime.listener_url or "this machine's listener")
    return (
        "[b]No webhooks yet[/b]\n\n"
        f"This listener is at {url}.\n"
        "The service sends webhooks to its business profile's webhook_url: point it here\n"
        "(through a tunnel when the service runs elsewhere), and give the listener the\n"
        "profile's signing key:  "
        f"[b]payscope keys set --profile {safe_markup(runtime.profile_name)} --kind webhook[/b]"
        "\n\n[b]h[/b] shows what the service says it sent, with manual retry."
    )


# -- actions ---------------------------------------------------------------------------------------


def _goto(host: ActionHost, event_id: str | None, record: Any) -> None:
    event = getattr(record, "event", record)  # a journal row, or an event's detail
    object_id = getattr(event, "object_id", None)
    if not object_id:
        host.app.notify("This event names no object.", severity="warning")
        return
    from tui.views.areas import area_for_id

    area = area_for_id(object_id)
    if area is None:
        host.app.notify(f"{object_id}: no area of payscope shows it.", severity="information")
        return
    host.app.goto(area.key, object_id)


def _replay(host: ActionHost, event_id: str | None, record: Any) -> None:
    if event_id is not None:
        host.app.push_screen(ReplayForm(event_id), host.acted)


EVENT_ACTIONS: tuple[Action[Any], ...] = (
    Action("goto", "g", "Go to object", "Open the object it is about", _goto),
    Action(
        "replay",
        "p",
        "Replay",
        "Re-POST it, signed, to a forward URL (asked once, remembered)",
        _replay,
        palette="Replay this event",
    ),
)


class ReplayForm(FormScreen):
    """Replay an event to a URL: the forward target, or one typed here (remembered)."""

    title_text = "Replay event"
    submit_label = "Replay"

    def __init__(self, event_id: str) -> None:
        super().__init__()
        self.event_id = event_id
        self.intro = (
            f"Re-POST {event_id} exactly as it was signed to a URL of yours. The URL is "
            "remembered for this profile."
        )

    def _known_url(self) -> str:
        from tui import config

        listener = self.runtime.listener
        target = listener.forwarder.target_for(None) if listener is not None else None
        try:
            return target or config.get_forward_url(self.runtime.profile_name) or ""
        except Exception:  # an unreadable config: the field starts empty, nothing lost
            return ""

    def fields(self) -> list[Field]:
        return [
            Field(
                "url",
                "Forward URL",
                Input(
                    self._known_url(),
                    placeholder="http://127.0.0.1:3000/webhooks",
                    id="field-url",
                ),
                "Your server's webhook endpoint (http:// or https://).",
            )
        ]

    def submit_text(self) -> str | None:
        url = self.value("url")
        return f"Replay to {url}" if url else None

    def build(self) -> Any:
        from tui.views.forms import FormErrors
        from tui.webhooks.forward import url_problem

        url = self.value("url")
        problem = "Type the URL to send it to." if not url else url_problem(url)
        if problem:
            raise FormErrors({"url": problem})
        return url

    async def send(self, url: Any) -> Any:
        from tui import config
        from tui.runtime import NotStarted

        listener = self.runtime.listener
        if listener is None:
            raise NotStarted("The webhook listener is not running: nothing to replay from.")
        record = await listener.replay(self.event_id, url)
        try:
            config.set_forward_url(self.runtime.profile_name, url)
        except Exception as exc:  # the replay happened; only remembering the URL failed
            self.app.notify(f"The URL was not remembered: {exc}", severity="warning")
        outcome = f"HTTP {record.status}" if record.status else (record.error or "no answer")
        latency = f" in {record.latency_ms:.0f} ms" if record.latency_ms is not None else ""
        self.app.notify(f"{self.event_id} -> {record.url}: {outcome}{latency}", title="Replayed")
        return record


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
        self.head_seq = 0  # the newest event known (shown, or counted in `unseen`)
        self.unseen = 0  # events newer than the window, not shown (the cursor is further down)
        self._live_timer: Any = None
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

    def key_of(self, record: Any) -> str:
        return str(record.event_id)

    def order(self, record: Any) -> Any:
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

    def page_loaded(self, records: list[Any]) -> None:
        # What is newer than this page comes live from here on (exactly once: the window holds
        # events up to `head_seq`, every later one is read after it).
        self.unseen = 0
        self._last_cursor = None
        if self.page_offset == 0 and not self.filter.local:
            self.head_seq = max((r.seq for r in records), default=0)
            return
        kind, obj = self._filter_args()
        newest = self.runtime.journal.recent(1, 0, kind, obj)
        self.head_seq = newest[0].seq if newest else 0

    def action_reload(self) -> None:
        # With new events waiting above the window, `r` goes to them.
        self.load(offset=0 if self.unseen else None)

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
                from dataclasses import replace

                self.table.update(replace(known, duplicates=delivery.duplicate_count))
            return
        if self._live_timer is None:
            self._live_timer = self.set_timer(LIVE_FRAME, self._show_live)

    def _show_live(self) -> None:
        """Show what the journal stored since `head_seq`: on top of the window while it starts
        at the newest event and the cursor is in its upper half (the oldest rows leave from the
        bottom); otherwise counted as new in the header (`r` shows them)."""
        self._live_timer = None
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
            self.total += count
            self.table.put_on_top(fresh, WINDOW, slack=WINDOW // 4)
        else:
            newest = journal.newer(self.head_seq, 1, kind, obj)
            if not newest:
                return
            count = journal.count_newer(self.head_seq, kind, obj)
            self.head_seq = newest[0].seq
            self.unseen += count
            self.page_offset += count  # the window is that much further from the newest
            self.total += count
        self.update_header()

    # -- lazy loading: a bounded window paged on as the cursor nears either end ----------------

    @on(DataTable.RowHighlighted)
    def _maybe_more(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table is not self.table or self.scanned is not None:
            return
        if event.cursor_row != self.table.cursor_row:
            return  # a move the window's rebuild made and undid (clear, then the cursor back)
        rows = event.data_table.row_count
        margin = min(20, max(rows // 4, 1))  # the zones never overlap, whatever the window
        # Newer pages come back only as the cursor goes up: a page just shown (`]`) starts
        # with its cursor on top, and stays.
        went_up = self._last_cursor is not None and event.cursor_row < self._last_cursor
        if event.cursor_row < margin and self.page_offset > 0 and went_up:
            self._newer()
        elif event.cursor_row >= rows - margin and self.page_offset + rows < self.total:
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
        from tui.screens.service_events import ServiceEventsScreen

        self.app.push_screen(ServiceEventsScreen())


class EventDetailScreen(DetailScreen[Any]):
    """One event: verification, headers, raw body, pretty JSON, forwards and replays."""

    noun = "Event"
    scope = "event"
    actions = EVENT_ACTIONS
    sections: ClassVar[tuple[tuple[str, str], ...]] = (
        ("verification", "Verification"),
        ("headers", "Headers"),
        ("raw-body", "Raw body (exactly as signed)"),
        ("json", "JSON"),
        ("forwards", "Forwards and replays"),
    )

    async def fetch(self) -> Any:
        detail = self.runtime.journal.get(self.record_id)
        if detail is None:
            raise Missing(self.record_id)
        return detail

    def not_found_text(self) -> str:
        return "No event has this id in this profile's listener journal; Esc goes back."

    def watched_ids(self, record: Any) -> set[str]:
        return set()  # a journaled event does not change; replays reload it (acted)

    def acted(self, result: Any) -> None:
        self.load(now=True)

    def raw(self, record: Any) -> RenderableType:
        return self._pretty(record)

    def title_text(self, d: Any) -> Text:
        variables = self.app.theme_variables
        ok = d.verified
        return Text.assemble(
            ("Event ", "bold"),
            safe(d.event.event_id, "bold"),
            "  ",
            safe(d.event.event_type, empty=""),
            "  ",
            (
                "✓ signature verified" if ok else "✗ signature not verified",
                theme_colour(variables, "event-verified" if ok else "event-rejected"),
            ),
        )

    def render_record(self, d: Any) -> None:
        self.section("verification").update(self._verification(d))
        stable = self.runtime.options.stable_display
        headers = grid()
        for name, value in sorted(d.headers.items()):
            if stable and name == "host":  # snapshots: the listener's port changes
                value = re.sub(r":\d+$", ":PORT", value)
            headers.add_row(safe(name), safe(value))
        self.section("headers").update(headers)
        raw = d.body.decode("utf-8", "replace")
        self.section("raw-body").update(safe(raw, multiline=True))
        self.section("json").update(self._pretty(d))
        self.section("forwards").update(self._forwards(d))

    def _pretty(self, d: Any) -> RenderableType:
        try:
            return JSON(json.dumps(json.loads(d.body)))
        except ValueError:
            return empty("The body is not JSON.")

    def _forwards(self, d: Any) -> RenderableType:
        if not d.forwards:
            return empty("Not forwarded or replayed yet: p replays it to a URL of yours.")
        rows = Table(box=None, header_style="bold", padding=(0, 2))
        for col in ("Sent", "URL", "Status", "Latency"):
            rows.add_column(col, no_wrap=col != "URL")
        stable = self.runtime.options.stable_display
        for f in d.forwards:
            rows.add_row(
                clock(f.sent_at, stable),
                safe(f.url),
                Text(str(f.status)) if f.status else safe(f.error, "bold", empty="no answer"),
                f"{f.latency_ms:.0f} ms" if f.latency_ms is not None and not stable else "",
            )
        return rows

    def _verification(self, d: Any) -> Text:
        from tui.webhooks.signing import SIGNATURE_HEADER

        variables = self.app.theme_variables
        if d.verified:
            verdict = Text("✓ verified", style=f"bold {theme_colour(variables, 'event-verified')}")
            why: Text | str = (
                f": {SIGNATURE_HEADER} is the HMAC of the raw body below under a known secret."
            )
        else:
            verdict = Text(
                "✗ not verified", style=f"bold {theme_colour(variables, 'event-rejected')}"
            )
            why = Text.assemble(": ", safe(d.delivery.reason or "the signature does not match"))
        seen = d.event.duplicates
        again = (
            f"\nDelivered again {seen} time{'s' if seen != 1 else ''} (duplicates)." if seen else ""
        )
        return Text.assemble(verdict, why, f"\nAnswered HTTP {d.delivery.status}.", again)
