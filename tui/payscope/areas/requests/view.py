"""Request log: every call of the shared client, redacted; copy as curl; export to a file."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from payscope.api.journal import JournalEntry
from payscope.api.vocabulary import counted
from payscope.core.display import USER, DisplayPolicy, hidden_time
from payscope.core.private_files import open_private
from payscope.views.access import Guarded, refused
from payscope.views.actions import Action
from payscope.views.clipboard import copy_text
from payscope.views.columns import CellContext, Column
from payscope.views.detail import DetailScreen, Missing
from payscope.views.filters import Filter, Grammar, Term
from payscope.views.json_view import json_view
from payscope.views.line_table import LineTable
from payscope.views.listing import ResourceListView
from payscope.views.live import watch_requests
from payscope.widgets.format import theme_colour
from payscope.widgets.text import safe

if TYPE_CHECKING:
    from payscope.views.actions import ActionHost


def _status_style(status: int | None, variables: Mapping[str, str]) -> str:
    if status is None or status >= 500:
        return theme_colour(variables, "status-failed")
    if status >= 400:
        return theme_colour(variables, "status-requires-action")
    return theme_colour(variables, "status-succeeded")


def export_entries(entries: Iterable[JournalEntry], directory: Path) -> Path:
    """Write the (already redacted) entries as JSON lines plus their curl commands; the path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = directory / f"requests-{stamp}.jsonl"
    # 0600 in a 0700 directory: redacted, but still the account's traffic.
    with open_private(path) as out:
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


def _clock(entry: JournalEntry, context: CellContext) -> Text:
    shown = context.display.wall_time(entry.started_at)
    return Text(hidden_time() if shown is None else shown)


def _status(entry: JournalEntry, context: CellContext) -> Text:
    shown = str(entry.status) if entry.status is not None else "—"
    return Text(shown, style=_status_style(entry.status, context.variables))


def _latency(entry: JournalEntry, context: CellContext) -> Text:
    shown = context.display.measured(f"{entry.latency_ms:.0f} ms")
    return Text(shown or "·· ms", justify="right")


# The path last and flexible: on a narrow terminal it is the one cut short (the panel below
# shows it whole), never the status or the latency.
COLUMNS: tuple[Column[JournalEntry], ...] = (
    Column("time", "Time", 8, _clock),
    Column("method", "Method", 6, lambda e, c: safe(e.method)),
    Column("status", "Status", 6, _status),
    Column("latency", "Latency", 9, _latency),
    Column("path", "Path", 40, lambda e, c: safe(e.path), flex=(12, 60)),
)


def _status_words(value: str, result: Filter) -> None:
    """`status:404`, `status:4xx`, `status:error` (no answer or 5xx)."""
    wanted = value.lower()
    if wanted in ("error", "errors", "failed"):
        result.local.append(lambda e: e.status is None or e.status >= 400)
    elif re.fullmatch(r"[1-5]xx", wanted):
        low = int(wanted[0]) * 100
        result.local.append(lambda e: e.status is not None and low <= e.status < low + 100)
    elif wanted.isdigit() and len(wanted) == 3:
        result.local.append(lambda e: e.status == int(wanted))
    else:
        raise ValueError(f"`status:{value}`: use a code (404), a class (4xx) or `error`.")


def _method(value: str, result: Filter) -> None:
    methods = {m.strip().upper() for m in value.split(",")}
    unknown = methods - {"GET", "POST", "PUT", "PATCH", "DELETE"}
    if unknown:
        raise ValueError(f"`{', '.join(sorted(unknown))}` is not an HTTP method (GET, POST...).")
    result.local.append(lambda e: e.method.upper() in methods)


def _path(value: str, result: Filter) -> None:
    fragment = value.lower()
    result.local.append(lambda e: fragment in e.path.lower())


REQUEST_GRAMMAR = Grammar(
    [
        Term(("status", "s"), "status:4xx", _status_words),
        Term(("method", "m"), "method:POST", _method),
        Term(("path", "p"), "path:/refunds", _path),
    ],
    bare=_path,
    bare_example="pay_… (any part of the path)",
)


def _copy_curl(host: ActionHost, entry_id: str | None, entry: Any) -> None:
    if entry is None:
        host.app.notify("No request selected.", severity="warning")
        return
    runtime = getattr(host.app, "runtime", None)
    where = (
        " On this local sandbox, :sandbox then x copies the export lines that set it."
        if runtime is not None and runtime.options.is_local
        else ""
    )
    copy_text(
        host.app,
        entry.to_curl(),
        "as curl",
        show=True,
        note="The key is read from $PAYSCOPE_API_KEY; a public test card is kept, any other "
        f"card number and its CVC are shell variables set at the top.{where}",
    )


def _export(host: ActionHost, _id: str | None, _entry: Any) -> None:
    view = host
    assert isinstance(view, RequestsView)
    view.export()


REQUEST_ACTIONS: tuple[Action[Any], ...] = (
    Action(
        "curl",
        "y",
        "Copy curl",
        "Copy as curl (clipboard, tmux, or on screen)",
        _copy_curl,
        palette="Copy this request as curl",
        writes=False,
    ),
    Action(
        "export",
        "s",
        "Export",
        "Export the log to a JSON lines file",
        _export,
        needs_record=False,
        palette="Export the request log",
        writes=False,
    ),
)


class RequestsView(ResourceListView[JournalEntry]):
    """The request journal as a table, newest on top, with the selected request below it."""

    DEFAULT_CSS = """
    RequestsView > ResourceTable { height: 1fr; }
    RequestsView > #requests-detail {
        height: 1fr; border: round $foreground 25%; padding: 0 1;
        border-title-color: $accent; border-title-style: bold;
    }
    """

    # The log's own export (`s`: JSON lines with each call's curl) is the one its footer
    # shows; the lists' `E` (CSV or JSON Lines of the rows) still works here, unshown.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "E",
            "export",
            "Export rows",
            id="list.export",
            tooltip="Export every row the filter matches to CSV or JSON Lines",
            show=False,
        ),
    ]

    title = "Requests"
    noun = "requests"
    scope = "requests"
    columns = COLUMNS
    actions = REQUEST_ACTIONS
    page_size = 1000  # the journal keeps the last 1,000 calls: one page

    def compose(self) -> ComposeResult:
        yield from super().compose()
        with VerticalScroll(id="requests-detail") as detail:
            detail.border_title = "Request"
            yield Static("Select a request to see it here.", id="requests-body")

    def on_mount(self) -> None:
        # The base's on_mount runs after this one by itself (Textual calls each class's).
        watch_requests(self, self.on_entry)

    def key_of(self, record: JournalEntry) -> str:
        return str(record.id)

    def order(self, record: JournalEntry) -> int:
        return record.id

    def filter_grammar(self) -> Grammar:
        return REQUEST_GRAMMAR

    def empty_text(self) -> str:
        if self.filter:
            return super().empty_text()
        return "No requests yet: every call payscope makes to the service appears here."

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[JournalEntry], int]:
        client = self.runtime.client
        entries = list(reversed(client.journal.entries())) if client is not None else []
        return entries[offset : offset + limit], len(entries)

    async def fetch_one(self, record_id: str) -> Any:
        return None

    def on_change(self, change: Any) -> None:
        """Requests arrive through `on_entry`, not as changes to re-read."""

    def on_entry(self, entry: JournalEntry) -> None:
        """Live: the client journaled a call."""
        if not self.loaded or str(entry.id) in self.rows or not self.filter.matches(entry):
            return
        self.total += 1
        self.table.insert(entry, self.order)
        self.update_header()
        if self.table.cursor_row == 0:
            self._show()

    @on(LineTable.RowHighlighted)
    def _show(self) -> None:
        entry = self.table.selected()
        if entry is None:
            return
        self.query_one("#requests-body", Static).update(render_entry(entry, self.runtime.display))

    def page_loaded(self, records: list[JournalEntry]) -> None:
        self._show()

    def export(self) -> None:
        """Write every journaled request (redacted) to a file; say where."""
        if refused(self, Guarded.WRITE_FILES):
            return
        entries = list(self.rows.values())
        if not entries:
            self.notify("No requests to export yet.", severity="warning")
            return
        path = export_entries(reversed(entries), self.runtime.options.data_dir / "exports")
        self.notify(
            f"{counted(len(entries), 'request')} written to {path}", title="Exported", markup=False
        )


# The headers whose value moves between runs, and what the display policy shows of each.
_MOVING_HEADERS: dict[str, Callable[[DisplayPolicy, str], str | None]] = {
    "date": DisplayPolicy.wall_text,
    "host": DisplayPolicy.address,
    "x-ratelimit-remaining": DisplayPolicy.measured,
    "x-ratelimit-reset": DisplayPolicy.measured,
}


def _header_value(display: DisplayPolicy, name: str, value: str) -> Text:
    moving = _MOVING_HEADERS.get(name.lower())
    shown = value if moving is None else moving(display, value)
    return Text("··") if shown is None else safe(shown)


def render_entry(entry: JournalEntry, display: DisplayPolicy = USER) -> Group:
    """Request and response of one entry (redacted by the client's journal), its port,
    latency and dates as the display policy shows them."""
    latency = display.measured(f"{entry.latency_ms:.0f} ms")
    head = Text.assemble(
        safe(f"{entry.method} ", "bold"),
        safe(display.url(entry.url)),
        "  ",
        (f"{entry.status if entry.status is not None else 'no answer'}", "bold"),
        f"  {latency or '·· ms'}",
    )
    parts: list[Any] = [head]
    if entry.error:
        parts.append(safe(entry.error, "bold red", multiline=True))
    for title, headers, body in (
        ("Request", entry.request_headers, entry.request_body),
        ("Response", entry.response_headers, entry.response_body),
    ):
        parts.append(Text(f"\n{title}", style="bold underline"))
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="dim", no_wrap=True)
        grid.add_column()
        for name, value in headers.items():
            grid.add_row(safe(name), _header_value(display, name, value))
        parts.append(grid)
        if body:
            parts.append(json_view(body))
    return Group(*parts)


# -- one request on a screen of its own (what a payment's story opens) ------------------------


class RequestDetailScreen(DetailScreen[JournalEntry]):
    """A request payscope made and the answer it got (redacted by the client's journal)."""

    noun = "Request"
    scope = "request"
    actions = tuple(a for a in REQUEST_ACTIONS if a.needs_record)
    sections: ClassVar[tuple[tuple[str, str], ...]] = (("request", "Request and answer"),)

    async def fetch(self) -> JournalEntry:
        entry = (
            self.runtime.api.journal.get(int(self.record_id)) if self.record_id.isdigit() else None
        )
        if entry is None:
            raise Missing(self.record_id)
        return entry

    def not_found_text(self) -> str:
        return (
            "The request journal no longer holds this request (it keeps the last "
            f"{self.runtime.api.journal.maxlen}); Esc goes back."
        )

    def watched_ids(self, record: JournalEntry) -> set[str]:
        return set()  # a journaled request does not change

    def title_text(self, entry: JournalEntry) -> Text:
        answer = str(entry.status) if entry.status is not None else "no answer"
        return Text.assemble(
            ("Request ", "bold"),
            safe(f"{entry.method} {entry.path.split('?', 1)[0]}", "bold"),
            "  ",
            (answer, "bold"),
        )

    def render_record(self, entry: JournalEntry) -> None:
        self.section("request").update(render_entry(entry, self.runtime.display))

    def raw(self, record: JournalEntry) -> RenderableType:
        return render_entry(record, self.runtime.display)
