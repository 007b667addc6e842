"""Find anything (`:find TEXT`, the palette's Find): a whole or partial id of any object, an
email or a card's last 4, matched across areas; Enter opens what is selected.

`:pay 01JX` comes here too when the id is not whole: one match opens at once, several are
listed. The service is searched by `payscope.api.search.find`; events, which live in the
listener's journal, are searched here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import Worker

from payscope.api.search import find
from payscope.api.vocabulary import counted
from payscope.areas import AREA_BY_KEY, REGISTRY
from payscope.views.access import AppAccess
from payscope.views.area import TitleBar
from payscope.views.columns import CellContext, Column
from payscope.views.table import ResourceTable
from payscope.widgets.errors import describe_error
from payscope.widgets.footer import KeyFooter
from payscope.widgets.text import safe

if TYPE_CHECKING:
    pass


def and_list(parts: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


# Search kinds and the areas that show them (each area's `AREA.kind`).
AREA_OF_KIND = REGISTRY.area_of_kind
KIND_OF_AREA = REGISTRY.kind_of_area
EVENTS_SCANNED = 1000
# Matches shown at a time; `]` and `[` page through the rest.
PAGE_SIZE = 100


@dataclass(frozen=True)
class Found:
    """One row of the results."""

    kind: str
    object_id: str
    summary: str
    matched_on: str


COLUMNS: tuple[Column[Found], ...] = (
    Column("kind", "Kind", 9, lambda f, c: Text(f.kind.replace("_", " "))),
    Column("object_id", "Id", 26, lambda f, c: safe(f.object_id)),
    Column("matched_on", "Matched", 9, lambda f, c: Text(f.matched_on, style="dim"), 70),
    Column("summary", "Summary", 40, lambda f, c: safe(f.summary), flex=(10, 80)),
)


def whole_id(text: str, prefix: str | None) -> bool:
    """True when `text` looks like a whole id of the area (its prefix and 20 characters)."""
    return prefix is not None and text.startswith(prefix) and len(text) - len(prefix) >= 20


class FindScreen(AppAccess, Screen[None]):  # type: ignore[misc]
    """What matched, across areas; Enter opens it."""

    DEFAULT_CSS = """
    FindScreen { background: $background; }
    FindScreen > ResourceTable { height: 1fr; }
    FindScreen > #find-notes { height: auto; padding: 0 1; color: $text-muted; }
    FindScreen > #find-empty { display: none; padding: 1 2; color: $text-muted; }
    FindScreen.-empty > #find-empty { display: block; }
    FindScreen.-empty > ResourceTable { display: none; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="find.back", tooltip="Back"),
        Binding(
            "right_square_bracket",
            "next_page",
            "Page",
            id="find.next-page",
            tooltip="Next page of matches ([ goes back)",
            key_display="]",
        ),
        Binding(
            "left_square_bracket",
            "previous_page",
            "Prev page",
            id="find.previous-page",
            tooltip="Previous page of matches",
            key_display="[",
            show=False,
        ),
    ]

    def __init__(self, text: str, *, area: str | None = None, open_single: bool = False) -> None:
        super().__init__()
        self.text = text.strip()
        self.area = area
        self.open_single = open_single
        self.found: list[Found] = []
        self.page_offset = 0
        # What was looked at, per kind ("313 payments"), as the notes say it.
        self.looked_at: list[str] = []
        self.done = False

    def compose(self) -> ComposeResult:
        where = f" in {self.area}" if self.area else ""
        yield TitleBar(
            Text.assemble(("Find ", "bold"), safe(self.text), where, ("  searching…", "dim")),
            id="find-title",
        )
        yield ResourceTable(COLUMNS, lambda f: f"{f.kind}:{f.object_id}", self._cells_context)
        yield Static(id="find-notes")
        yield Static(id="find-empty")
        yield KeyFooter(show_command_palette=False)

    def _cells_context(self) -> CellContext:
        return CellContext(self.app.theme_variables, self.app.runtime.display)

    def on_mount(self) -> None:
        self.query_one(ResourceTable).fit_to(self.app.size.width - 1)
        self.query_one(ResourceTable).focus()
        self.search()

    def on_resize(self) -> None:
        self.query_one(ResourceTable).fit_to(self.size.width - 1)

    @work(exclusive=True, group="find", exit_on_error=False, description="Find")
    async def search(self) -> None:
        """Search the service (and the listener's journal) for the text."""
        kinds = {KIND_OF_AREA[self.area]} if self.area in KIND_OF_AREA else None
        notes: list[str] = []
        found: list[Found] = []
        if kinds is None or "event" in kinds:
            found.extend(self._events())
        service_kinds = None if kinds is None else kinds - {"event"}
        looked_at: list[str] = []
        if service_kinds is None or service_kinds:
            try:
                # Every match of what is read (paged here), not the first few of each kind.
                result = await find(
                    self.app.runtime.api, self.text, kinds=service_kinds, limit_per_kind=None
                )
            except ValueError as exc:
                self._show([], [str(exc)])
                return
            found[:0] = [Found(h.kind, h.object_id, h.summary, h.matched_on) for h in result.hits]
            for scan in result.scans:
                noun = counted(scan.scanned, scan.kind.replace("_", " "))
                if scan.capped:
                    total = f" of {scan.total:,}" if scan.total is not None else ""
                    looked_at.append(f"the newest {noun}{total}")
                else:
                    looked_at.append(noun)
            for kind, error in result.errors.items():
                title, _message = describe_error(error)
                notes.append(f"{kind}s could not be searched: {title}.")
        if self.events_looked_at is not None:
            looked_at.append(counted(self.events_looked_at, "event"))
        self.looked_at = looked_at
        if looked_at:
            notes.insert(0, f"Looked at {and_list(looked_at)}.")
        self._show(found, notes)

    events_looked_at: int | None = None

    def _events(self) -> list[Found]:
        """Events in the listener's journal whose id or object contains the text."""
        listener = self.app.runtime.listener
        if listener is None or len(self.text) < 4:
            return []
        exact = listener.journal.get(self.text)
        if exact is not None:
            event = exact.event
            summary = f"{event.event_type or '?'} {event.object_id or ''}".strip()
            return [Found("event", event.event_id, summary, "id")]
        wanted = self.text.lower()
        hits = []
        recent = listener.journal.recent(EVENTS_SCANNED, 0, None, None)
        self.events_looked_at = len(recent)
        for record in recent:
            if wanted in record.event_id.lower():
                matched = "id" if record.event_id.lower() == wanted else "id part"
                summary = f"{record.event_type or '?'} {record.object_id or ''}".strip()
                hits.append(Found("event", record.event_id, summary, matched))
        return hits

    def _show(self, found: list[Found], notes: list[str]) -> None:
        self.found = found
        self.page_offset = 0
        self.done = True
        if self.open_single and len(found) == 1:
            self.app.pop_screen()
            self.open(found[0])
            return
        self._show_page()
        self.query_one("#find-notes", Static).update(Text("  ".join(notes)))
        self.set_class(not found, "-empty")
        self.query_one("#find-empty", Static).update(
            Text.assemble(
                "Nothing matches ",
                safe(self.text),
                ". Find takes a whole or partial id (4 characters or more), an email or the "
                "last 4 digits of a card. Esc goes back.",
            )
        )

    def _show_page(self) -> None:
        """The page of matches at `page_offset`, and the title that counts them."""
        found = self.found
        shown = found[self.page_offset : self.page_offset + PAGE_SIZE]
        table = self.query_one(ResourceTable)
        table.show(shown)
        if shown:
            table.move_cursor(row=0, animate=False)
        where = f" in {self.area}" if self.area else ""
        title = Text.assemble(("Find ", "bold"), safe(self.text), where, "  ")
        title.append(counted(len(found), "match", "matches"))
        if len(found) > PAGE_SIZE:
            pages = (len(found) + PAGE_SIZE - 1) // PAGE_SIZE
            page = self.page_offset // PAGE_SIZE + 1
            first, last = self.page_offset + 1, self.page_offset + len(shown)
            title.append(f"  {first:,}-{last:,}", style="bold")
            title.append(f"  page {page}/{pages}", style="dim")
        self.query_one("#find-title", TitleBar).update(title)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # `]` is offered when there is more than one page of matches.
        if action in ("next_page", "previous_page"):
            return len(self.found) > PAGE_SIZE
        return True

    def action_next_page(self) -> None:
        if self.page_offset + PAGE_SIZE < len(self.found):
            self.page_offset += PAGE_SIZE
            self._show_page()

    def action_previous_page(self) -> None:
        if self.page_offset > 0:
            self.page_offset = max(0, self.page_offset - PAGE_SIZE)
            self._show_page()

    @on(ResourceTable.Open)
    def _open(self, event: ResourceTable.Open) -> None:
        event.stop()
        row = event.table.records.get(event.record_id)
        if isinstance(row, Found):
            self.open(row)

    def open(self, row: Found) -> None:
        """Open a match in its area."""
        area = AREA_BY_KEY[AREA_OF_KIND[row.kind]]
        self.app.goto(area.key, row.object_id)

    def action_back(self) -> None:
        self.app.pop_screen()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.app.on_worker_state_changed(event)
