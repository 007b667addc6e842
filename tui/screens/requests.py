"""Request log: every call of the shared client, redacted; copy as curl; export to a file."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static
from textual.widgets.data_table import ColumnKey

from tui.views.area import AreaView
from tui.widgets.format import theme_colour

# The path last: on a narrow terminal it is the one cut short (the detail shows it whole),
# never the status or the latency.
COLUMNS = (
    ("time", "Time", 8),
    ("method", "Method", 6),
    ("status", "Status", 6),
    ("latency", "Latency", 9),
    ("path", "Path", 40),
)


def _status_style(status: int | None, variables: dict[str, str]) -> str:
    if status is None or status >= 500:
        return theme_colour(variables, "status-failed")
    if status >= 400:
        return theme_colour(variables, "status-requires-action")
    return theme_colour(variables, "status-succeeded")


def export_entries(entries: Iterable[Any], directory: Path) -> Path:
    """Write the (already redacted) entries as JSON lines plus their curl commands; the path."""
    directory.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = directory / f"requests-{stamp}.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for e in entries:
            out.write(
                json.dumps(
                    {
                        "id": e.id,
                        "method": e.method,
                        "url": e.url,
                        "status": e.status,
                        "latency_ms": round(e.latency_ms, 1),
                        "started_at": e.started_at,
                        "request_headers": dict(e.request_headers),
                        "request_body": e.request_body,
                        "response_headers": dict(e.response_headers),
                        "response_body": e.response_body,
                        "error": e.error,
                        "curl": e.to_curl(),
                    }
                )
                + "\n"
            )
    return path


class RequestsView(AreaView):
    """The request journal as a table, with the selected request below it."""

    DEFAULT_CSS = """
    RequestsView > #requests-header { height: 1; padding: 0 1; background: $surface; }
    RequestsView > DataTable { height: 1fr; }
    RequestsView > #requests-detail {
        height: 1fr; border: round $foreground 25%; padding: 0 1;
        border-title-color: $accent; border-title-style: bold;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "copy_curl", "Copy curl", id="requests.curl", tooltip="Copy as curl (OSC 52)"),
        Binding("s", "export", "Export", id="requests.export", tooltip="Export the log to a file"),
    ]

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self._unsubscribe: Any = None
        self.entries: dict[str, Any] = {}

    def compose(self) -> ComposeResult:
        yield Static("[b]Requests[/b]", id="requests-header")
        table: DataTable[Any] = DataTable(
            cursor_type="row", zebra_stripes=True, id="requests-table"
        )
        _add_columns(table)
        yield table
        with VerticalScroll(id="requests-detail") as detail:
            detail.border_title = "Request"
            yield Static("Select a request to see it here.", id="requests-body")

    def focus_main(self) -> None:
        self.query_one(DataTable).focus()

    def runtime_ready(self) -> None:
        client = self.runtime.client
        if client is None or self._unsubscribe is not None:
            return
        for entry in client.journal.entries():
            self._add(entry)
        self._unsubscribe = client.journal.subscribe(self._add)

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _add(self, entry: Any) -> None:
        key = str(entry.id)
        if key in self.entries:
            return
        self.entries[key] = entry
        table = self.query_one(DataTable)
        follow = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        table.add_row(*self._cells(entry), key=key)
        if follow:
            table.move_cursor(row=table.row_count - 1)
        self.query_one("#requests-header", Static).update(
            f"[b]Requests[/b]  {len(self.entries):,}  [dim]y copy as curl · s export[/dim]"
        )

    def _cells(self, entry: Any) -> list[Any]:
        stable = self.runtime.options.stable_display  # snapshots: no wall clock, no timings
        status = Text(
            str(entry.status) if entry.status is not None else "—",
            style=_status_style(entry.status, self.app.theme_variables),
        )
        return [
            "··:··:··"
            if stable
            else datetime.fromtimestamp(entry.started_at, UTC).strftime("%H:%M:%S"),
            entry.method,
            status,
            Text("·· ms" if stable else f"{entry.latency_ms:.0f} ms", justify="right"),
            entry.path,
        ]

    def on_resize(self) -> None:
        """The path column takes the width the others leave (a table has no flexible column)."""
        table = self.query_one(DataTable)
        fixed = sum(width + 2 for key, _, width in COLUMNS if key != "path")
        wanted = max(12, min(60, self.size.width - fixed - 3))
        if table.columns[ColumnKey("path")].width == wanted:
            return
        selected = table.cursor_row
        table.clear(columns=True)
        _add_columns(table, path_width=wanted)
        for key, entry in self.entries.items():
            table.add_row(*self._cells(entry), key=key)
        if table.row_count:
            table.move_cursor(row=min(selected, table.row_count - 1), animate=False)

    def selected(self) -> Any:
        """The journal entry under the cursor, if any."""
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.entries.get(str(key))

    @on(DataTable.RowHighlighted, "#requests-table")
    def _show(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        stable = self.runtime.options.stable_display
        self.query_one("#requests-body", Static).update(render_entry(entry, stable))

    def action_copy_curl(self) -> None:
        entry = self.selected()
        if entry is None:
            self.notify("No request selected.", severity="warning")
            return
        curl = entry.to_curl()
        self.app.copy_to_clipboard(curl)
        self.app.push_screen(CurlScreen(curl))

    def action_export(self) -> None:
        if not self.entries:
            self.notify("No requests to export yet.", severity="warning")
            return
        path = export_entries(self.entries.values(), self.runtime.options.data_dir / "exports")
        self.notify(f"{len(self.entries)} requests written to {path}", title="Exported")

    def context_commands(self) -> Iterable[SystemCommand]:
        if self.selected() is not None:
            yield SystemCommand("Copy this request as curl", "OSC 52", self.action_copy_curl)
        yield SystemCommand("Export the request log", "JSON lines file", self.action_export)


_MOVING_HEADERS = frozenset({"date", "host", "x-ratelimit-remaining", "x-ratelimit-reset"})


def _add_columns(table: DataTable[Any], path_width: int | None = None) -> None:
    """The log's columns; `path_width` overrides the path's default width."""
    for key, label, width in COLUMNS:
        if key == "path" and path_width:
            width = path_width
        table.add_column(label, width=width, key=key)


def render_entry(entry: Any, stable: bool = False) -> Group:
    """Request and response of one entry (redacted by the client's journal).

    `stable` hides what changes between runs (port, latency, dates) for snapshots.
    """
    url = re.sub(r":\d+/", ":PORT/", entry.url) if stable else entry.url
    head = Text.assemble(
        (f"{entry.method} ", "bold"),
        url,
        "  ",
        (f"{entry.status if entry.status is not None else 'no answer'}", "bold"),
        "  ·· ms" if stable else f"  {entry.latency_ms:.0f} ms",
    )
    parts: list[Any] = [head]
    if entry.error:
        parts.append(Text(entry.error, style="bold red"))
    for title, headers, body in (
        ("Request", entry.request_headers, entry.request_body),
        ("Response", entry.response_headers, entry.response_body),
    ):
        parts.append(Text(f"\n{title}", style="bold underline"))
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="dim", no_wrap=True)
        grid.add_column()
        for name, value in headers.items():
            grid.add_row(name, "··" if stable and name.lower() in _MOVING_HEADERS else value)
        parts.append(grid)
        if body:
            parts.append(Text(_pretty(body)))
    return Group(*parts)


def _pretty(body: str) -> str:
    try:
        return json.dumps(json.loads(body), indent=2)
    except ValueError:
        return body


class CurlScreen(ModalScreen[None]):
    """The curl command on screen (for terminals without OSC 52 clipboard support)."""

    DEFAULT_CSS = """
    CurlScreen { align: center middle; }
    CurlScreen > VerticalScroll {
        width: 90%; height: auto; max-height: 80%; border: round $primary;
        background: $surface; padding: 0 1;
    }
    CurlScreen #curl-hint { color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "close", "Close", id="curl.close", tooltip="Close"),
    ]

    def __init__(self, curl: str) -> None:
        super().__init__()
        self.curl = curl

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = "Copied as curl"
            yield Static(Text(self.curl), id="curl-text")
            yield Static(
                "Sent to the clipboard with OSC 52 (if your terminal allows it). The key is read "
                "from $PAYSCOPE_API_KEY; redacted fields read [REDACTED].",
                id="curl-hint",
            )

    def action_close(self) -> None:
        self.dismiss(None)
