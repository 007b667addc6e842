"""The service's own delivery history (events API): what it sent, each attempt, manual retry.

The listener shows what reached this machine; this screen shows what the service says it sent,
which is what a remote profile needs when deliveries go to a tunnel or another host.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

PAGE = 100
COLUMNS = (
    ("event_id", "Event id", 26),
    ("event_type", "Event", 22),
    ("object_id", "Object", 26),
    ("delivered", "Delivered", 10),
)


class ServiceEventsScreen(Screen[None]):
    """Events the service sent to the merchant's webhook, with their attempts; `r` retries."""

    DEFAULT_CSS = """
    ServiceEventsScreen > #service-title { height: 1; padding: 0 1; background: $surface; }
    ServiceEventsScreen > DataTable { height: 1fr; }
    ServiceEventsScreen > #service-attempts {
        height: auto; max-height: 12; padding: 0 1;
        border: round $panel-lighten-2; border-title-color: $accent; border-title-style: bold;
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

    def compose(self) -> ComposeResult:
        yield Static("[b]Service delivery history[/b]  [dim]loading…[/dim]", id="service-title")
        table: DataTable[Any] = DataTable(cursor_type="row", zebra_stripes=True)
        for key, label, width in COLUMNS:
            table.add_column(label, width=width, key=key)
        yield table
        attempts = Static("Select an event to see its delivery attempts.", id="service-attempts")
        attempts.border_title = "Attempts"
        yield attempts
        yield Footer(show_command_palette=False)  # Ctrl+P is already an app binding

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self.load()

    @property
    def client(self) -> Any:
        return self.app.runtime.client  # type: ignore[attr-defined]

    @work(exclusive=True, group="service-events", exit_on_error=False, description="History")
    async def load(self) -> None:
        """Fetch the newest page of the service's events."""
        from tui.api.models.events import EventListRequest

        answer = await self.client.events.list(EventListRequest(limit=PAGE))
        table = self.query_one(DataTable)
        table.clear()
        self.events = {}
        variables = self.app.theme_variables
        for event in answer.events:
            self.events[event.event_id] = event
            ok = event.is_delivery_successful
            delivered = (
                Text("✓ yes", style=variables.get("event-verified", "green"))
                if ok
                else Text("✗ no" if ok is False else "pending", style="bold")
            )
            table.add_row(
                event.event_id,
                event.event_type,
                event.object_id or "-",
                delivered,
                key=event.event_id,
            )
        total = answer.total_count if answer.total_count is not None else len(answer.events)
        self.query_one("#service-title", Static).update(
            f"[b]Service delivery history[/b]  {len(self.events)} of {total}  "
            "[dim]r retry · Esc back[/dim]"
        )
        if self.events:
            self.show_attempts(next(iter(self.events)))

    def selected(self) -> str | None:
        """The event id under the cursor."""
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return str(key) if key is not None else None

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
        panel.border_title = f"Attempts of {event_id}"
        if not attempts:
            panel.update(Text("No delivery attempts yet.", style="dim"))
            return
        grid = Table(box=None, header_style="bold", pad_edge=False)
        for column in ("#", "When", "Delivered", "Answer"):
            grid.add_column(column, no_wrap=True)
        stable = self.app.runtime.options.stable_display  # type: ignore[attr-defined]
        for number, attempt in enumerate(attempts, 1):
            answer = attempt.response
            code = f"HTTP {answer.status_code}" if answer.status_code else "no answer"
            grid.add_row(
                str(number),
                "··" if stable else (attempt.created or ""),
                "✓" if attempt.is_delivery_successful or attempt.delivered else "✗",
                code,
            )
        panel.update(grid)

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
        outcome = f"answered HTTP {code}" if code else "got no answer"
        self.notify(f"{event_id}: the endpoint {outcome}.", title="Delivery retried")
        self.show_attempts(event_id)

    def action_reload(self) -> None:
        self.load()

    def action_back(self) -> None:
        self.app.pop_screen()

    def on_worker_state_changed(self, event: Any) -> None:
        # Worker messages do not bubble: hand them to the app's one handler.
        self.app.on_worker_state_changed(event)  # type: ignore[attr-defined]
