"""Related records a detail shows in a section (a payment's refunds, disputes and events): a
table whose rows can be focused (Tab) and opened with Enter, over the detail (Esc comes back).

Areas never import each other: a row names its area (`payscope.views.areas.registry()`), whose
detail screen opens it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from rich.console import RenderableType
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from payscope.views.areas import registry
from payscope.views.columns import CellContext, Column
from payscope.views.table import ResourceTable


class RelatedRow(NamedTuple):
    """One related record: the area it belongs to, its id, and the record for the columns;
    `key` names the row when several rows open one record (a story's lines about one event)."""

    area: str
    record_id: str
    record: Any
    key: str = ""

    @property
    def row_key(self) -> str:
        """The row's key in its table: `key`, else the record's id."""
        return self.key or self.record_id


class RelatedSection(Vertical):
    """A detail's section of related records: a note (what it holds, or why it is empty) and
    a table of them, Enter opens one."""

    DEFAULT_CSS = """
    RelatedSection > ResourceTable { height: auto; max-height: 12; overflow-x: hidden; }
    RelatedSection > ResourceTable.-none { display: none; }
    RelatedSection > ResourceTable:focus { background-tint: $foreground 5%; }
    """

    def __init__(
        self,
        key: str,
        title: str,
        columns: Sequence[Column[RelatedRow]],
        context: Callable[[], CellContext],
    ) -> None:
        super().__init__(classes="section", id=f"section-{key}")
        self.border_title = title
        self.related_key = key
        self.related_columns = tuple(columns)
        self.related_context = context

    def compose(self) -> ComposeResult:
        yield Static(id=f"related-{self.related_key}-note")
        table: ResourceTable[RelatedRow] = ResourceTable(
            self.related_columns,
            lambda row: row.row_key,
            self.related_context,
            id=f"related-{self.related_key}",
        )
        table.add_class("-none")
        yield table

    @property
    def table(self) -> ResourceTable[RelatedRow]:
        table: ResourceTable[RelatedRow] = self.query_one(ResourceTable)
        return table

    def on_resize(self) -> None:
        self.table.fit_to(self.content_size.width)

    def show(self, rows: Sequence[RelatedRow], note: RenderableType) -> None:
        """Show these rows (none: the note alone says why) under `note`."""
        self.query_one(Static).update(note)
        self.table.set_class(not rows, "-none")
        self.table.show(rows)

    @on(ResourceTable.Open)
    def _open_related(self, event: ResourceTable.Open) -> None:
        event.stop()
        row = self.table.records.get(event.record_id)
        if row is None:
            return

        area = registry().by_key.get(row.area)
        if not row.area:  # a line about the record shown (a payment's own status)
            self.notify(f"{row.record_id} is the record shown here.")
            return
        if area is None or area.detail is None:
            self.notify(f"{row.record_id} cannot be opened from here.", severity="warning")
            return
        self.app.push_screen(area.detail_screen(row.record_id))
