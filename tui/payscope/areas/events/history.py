"""The service's own delivery history (events API): what it sent, each attempt, manual retry.

The listener shows what reached this machine; this screen shows what the service says it sent,
which is what a remote profile needs when deliveries go to a tunnel or another host.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Static
from textual.worker import WorkerState

from payscope.api.models.events import EventListRequest
from payscope.views.access import AppAccess
from payscope.views.area import TitleBar
from payscope.views.columns import CellContext, Column
from payscope.views.stall import StallWatch
from payscope.views.table import ResourceTable
from payscope.widgets.errors import describe_error
from payscope.widgets.footer import KeyFooter
from payscope.widgets.format import theme_colour
from payscope.widgets.text import safe, safe_markup

PAGE = 100
# Seconds after a retry the service left under way before its attempts are read again: the
# local sandbox gives an endpoint 10 s.
PENDING_ATTEMPT_WAIT = 11.0


def delivered_cell(ok: bool | None, variables: Mapping[str, str]) -> Text:
    """Whether the service got a 2xx from the merchant's endpoint for an event."""
    if ok:
        return Text("✓ yes", style=theme_colour(variables, "event-verified"))
    if ok is False:
        return Text("✗ no", style=f"bold {theme_colour(variables, 'event-rejected')}")
    return Text("pending", style="dim")


# The outcome first, so it stays in sight at any width; below 90 cells the event id is left
# out (the attempts panel's title names it).
COLUMNS: tuple[Column[Any], ...] = (
    Column("delivered", "Delivered", 9, lambda e, c: delivered_cell(e.delivered, c.variables)),
    Column("event_type", "Event", 18, lambda e, c: safe(e.event_type)),
    Column("object_id", "Object", 24, lambda e, c: safe(e.object_id)),
    Column("event_id", "Event id", 24, lambda e, c: safe(e.event_id), 90),
)


class SentTable(ResourceTable["Sent"]):
    """The events the service sent; the attempts of the selected one show below (no Enter)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter",
            "open",
            "Attempts",
            id="service.open",
            tooltip="The attempts of the selected event show below",
            show=False,
        ),
    ]


@dataclass(frozen=True)
class Sent:
    """One event as the service lists it, with what is known of its delivery."""

    event_id: str
    event_type: str | None
    object_id: str | None
    delivered: bool | None


KINDS = {
    "initial_attempt": "first",
    "automatic_retry": "automatic retry",
    "manual_retry": "manual retry",
}


class ServiceEventsScreen(AppAccess, Screen[None]):  # type: ignore[misc]
    """Events the service sent to the merchant's webhook, with their attempts; `r` retries."""

    DEFAULT_CSS = """
    ServiceEventsScreen > ResourceTable { height: auto; max-height: 60%; }
    ServiceEventsScreen > #service-attempts {
        height: 1fr; min-height: 6; padding: 0 1;
        border: round $foreground 25%; border-title-color: $accent; border-title-style: bold;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="service.back", tooltip="Back to the live events"),
        Binding("r", "retry", "Retry", id="service.retry", tooltip="Ask the service to resend"),
        Binding("ctrl+r", "reload", "Reload", id="service.reload", tooltip="Fetch the history"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.events: dict[str, Any] = {}
        self.attempts: dict[str, list[Any]] = {}
        self.total: int | None = None

    def compose(self) -> ComposeResult:
        yield TitleBar(self._title("loading…"), id="service-title")
        yield SentTable(COLUMNS, lambda sent: sent.event_id, self._cells_context)
        attempts = Static("Select an event to see its delivery attempts.", id="service-attempts")
        attempts.border_title = "Attempts"
        yield attempts
        yield KeyFooter(show_command_palette=False)  # Ctrl+P is already an app binding

    @staticmethod
    def _title(status: str) -> Text:
        return Text.assemble(
            ("Service delivery history", "bold"), "  ", status, ("  r retry · Esc back", "dim")
        )

    def _cells_context(self) -> CellContext:
        return CellContext(self.app.theme_variables, self.app.runtime.display)

    @property
    def table(self) -> ResourceTable[Sent]:
        table: ResourceTable[Sent] = self.query_one(ResourceTable)
        return table

    def on_mount(self) -> None:
        self.table.fit_to(self.app.size.width - 1)
        self.table.focus()
        self.load()

    def on_resize(self) -> None:
        self.table.fit_to(self.size.width - 1)

    @property
    def client(self) -> Any:
        return self.app.runtime.client

    @functools.cached_property
    def _stall(self) -> StallWatch:
        """Says a load with no answer for the client's timeout (tui/payscope/views/stall.py)."""

        def said(note: str | None) -> None:
            if note is not None:  # the answer, when it comes, sets the title
                self.query_one("#service-title", Static).update(self._title(note))

        return StallWatch(self, said, "Ctrl+R reloads")

    @work(exclusive=True, group="service-events", exit_on_error=False, description="History")
    async def load(self) -> None:
        """Fetch the newest page of the service's events."""
        with self._stall.watching():
            answer = await self.client.events.list(EventListRequest(limit=PAGE))
        self.events = {event.event_id: event for event in answer.events}
        self.total = answer.total_count if answer.total_count is not None else len(self.events)
        self.table.show(
            Sent(e.event_id, e.event_type, e.object_id, e.is_delivery_successful)
            for e in self.events.values()
        )
        self.query_one("#service-title", Static).update(
            self._title(f"{len(self.events)} of {self.total}")
        )
        if self.events:
            self.show_attempts(self.selected() or next(iter(self.events)))

    def selected(self) -> str | None:
        """The event id under the cursor."""
        return self.table.selected_id()

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self.show_attempts(str(event.row_key.value))

    @work(exclusive=True, group="service-attempts", exit_on_error=False, description="Attempts")
    async def show_attempts(self, event_id: str) -> None:
        """Each attempt the service made for `event_id`: when, the answer it got."""
        attempts = await self.client.events.attempts(event_id)
        self.attempts[event_id] = attempts
        panel = self.query_one("#service-attempts", Static)
        panel.border_title = f"Attempts of {safe_markup(event_id)}"
        if not attempts:
            panel.update(Text("No delivery attempts yet.", style="dim"))
            return
        grid = Table(box=None, header_style="bold", pad_edge=False, expand=True)
        for column in ("#", "When", "Kind", "Delivered"):
            grid.add_column(column, no_wrap=True)
        # The local sandbox sends each event to every attached payscope: which one, per row.
        endpoints = any(attempt.request.url for attempt in attempts)
        if endpoints:
            # Sharing the room left with the answer: neither crowds the other out at 80 columns.
            grid.add_column("To", no_wrap=True, overflow="ellipsis", ratio=1, min_width=8)
        grid.add_column("Answer", no_wrap=True, overflow="ellipsis", ratio=1, min_width=12)
        for number, attempt in enumerate(attempts, 1):
            ok = bool(attempt.is_delivery_successful or attempt.delivered)
            cells: list[str | Text] = [
                str(number),
                safe(_when(attempt.created)),
                safe(KINDS.get(attempt.delivery_attempt or "", attempt.delivery_attempt)),
                delivered_cell(ok, self.app.theme_variables),
            ]
            if endpoints:
                cells.append(safe(_endpoint(self.runtime.shown_url(attempt.request.url or ""))))
            grid.add_row(*cells, _answer(attempt.response))
        panel.update(grid)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # A resend writes: a read-only profile offers none.
        return not (action == "retry" and self.runtime.options.read_only)

    def action_retry(self) -> None:
        event_id = self.selected()
        if event_id is None:
            self.notify("No event selected.", severity="warning")
            return
        self.retry(event_id)

    @work(group="service-retry", exit_on_error=False, description="Retry")
    async def retry(self, event_id: str) -> None:
        """Ask the service to deliver `event_id` again, then show the new attempt."""
        attempt = await self.client.events.retry(event_id)
        code = attempt.response.status_code
        if attempt.attempt_id is None and not code:
            # The service answers at once and lets the attempt finish on its own (the local
            # sandbox after a quarter of a second): it is listed once the endpoint answers.
            self.notify(
                f"{event_id}: sent; the endpoint has not answered yet. The attempt is listed "
                f"here once it does (at most {PENDING_ATTEMPT_WAIT:.0f} s).",
                title="Delivery retried",
            )
            self.set_timer(PENDING_ATTEMPT_WAIT, lambda: self.show_attempts(event_id))
            return
        outcome = f"answered HTTP {code}" if code else "got no answer"
        self.notify(f"{event_id}: the endpoint {outcome}.", title="Delivery retried")
        shown = self.table.records.get(event_id)
        if shown is not None and (attempt.is_delivery_successful or attempt.delivered):
            self.table.update(replace(shown, delivered=True))
        self.show_attempts(event_id)

    def action_reload(self) -> None:
        self.load()

    def action_back(self) -> None:
        self.app.pop_screen()

    def on_worker_state_changed(self, event: Any) -> None:
        if event.worker.group == "service-events" and event.state == WorkerState.ERROR:
            # The title says it failed (not "loading…" forever); the app's toast says why.
            problem = describe_error(event.worker.error)[0]
            self.query_one("#service-title", Static).update(
                self._title(f"could not load ({problem}) · Ctrl+R reloads")
            )
        # Worker messages do not bubble: hand them to the app's one handler.
        self.app.on_worker_state_changed(event)


def _when(created: str | None) -> str:
    # The service's ISO time (UTC), to the second: `2024-05-01T12:00:00.000Z` -> `... 12:00:00`.
    return created.replace("T", " ")[:19] if created else "-"


def _endpoint(url: str | None) -> str:
    """Where an attempt went, short: host:port and path (every local listener is http)."""
    if not url:
        return "—"
    return url.split("://", 1)[-1]


def _answer(response: Any) -> Text:
    if not response.status_code:
        return Text("no answer", style="dim")
    body = " ".join((response.body or "").split())
    return Text.assemble(f"HTTP {response.status_code}  ", safe(body, "dim", empty=""))
