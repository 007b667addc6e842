"""`RowKeeping`: what payscope's two tables of records share.

Which record goes where (a page shown, a live batch on top, a window trimmed, a record put in
order) and the cursor kept on its record through it, the messages they post, and how a cell is
cut to its column. `ResourceTable` (a DataTable) and `LineTable` (drawn a line at a time) each
say how their rows are made, moved and taken away: the methods below that raise
`NotImplementedError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual.message import Message

if TYPE_CHECKING:
    from textual.widget import Widget as _Table

    from payscope.views.columns import CellContext, Column
else:

    class _Table:
        """Nothing at run time: to the type checker, the widget `RowKeeping` is mixed into
        (before it) and keeps the rows of."""


T = TypeVar("T")


class RowKeeping(_Table, Generic[T]):
    """Rows of records (`key_of` gives each its id) in `records`, in the rows' order."""

    spec: tuple[Column[T], ...]  # the columns a layout is fitted from
    fitted: tuple[tuple[str, int], ...]  # the columns shown: (key, width)
    _renderers: list[Callable[[T, CellContext], RenderableType]]  # the shown columns' cells
    records: dict[str, T]
    key_of: Callable[[T], str]
    context: Callable[[], CellContext]
    wrap: bool
    select_next: str | None  # a record to put the cursor on once it is shown
    # The work rows cost, counted (rows made, moved or shifted): what a live feed's bound is
    # checked on, not a timing.
    rows_touched: int

    def _start_rows(
        self,
        columns: Sequence[Column[T]],
        key_of: Callable[[T], str],
        context: Callable[[], CellContext],
        *,
        wrap: bool,
    ) -> None:
        """No rows yet, and no layout: what a table starts with (from its `__init__`)."""
        self.spec = tuple(columns)
        self.wrap = wrap
        self.key_of = key_of
        self.context = context
        self.records = {}
        self.fitted = ()
        self._renderers = []
        self.select_next = None
        self.rows_touched = 0

    # The two tables post the same messages; by name their handlers are
    # `on_resource_table_open` and `on_resource_table_top`, whichever table it is.
    class Open(Message, namespace="resource_table"):
        """Enter (or a click on the selected row) on a record."""

        def __init__(self, table: RowKeeping[Any], record_id: str) -> None:
            super().__init__()
            self.table = table
            self.record_id = record_id

        @property
        def control(self) -> RowKeeping[Any]:
            return self.table

    class Top(Message, namespace="resource_table"):
        """Ctrl+Home reached the first row shown: a view that shows a window of its records
        (Events) goes on to the newest of them all."""

        def __init__(self, table: RowKeeping[Any]) -> None:
            super().__init__()
            self.table = table

        @property
        def control(self) -> RowKeeping[Any]:
            return self.table

    # -- what each table does its own way ----------------------------------------------------

    def update(self, record: T, context: CellContext | None = None) -> bool:
        """Redraw the row of `record` if it is shown; False if it is not."""
        raise NotImplementedError

    def selected_id(self) -> str | None:
        """The id of the record under the cursor, if any."""
        raise NotImplementedError

    def _cursor_at(self) -> int:
        """The row the cursor is on."""
        raise NotImplementedError

    def _cursor_to(self, row: int) -> None:
        """Put the cursor on `row`, without animation."""
        raise NotImplementedError

    def _row_of(self, record_id: str) -> int:
        """The row a shown record is on."""
        raise NotImplementedError

    def _show_rows(self, fresh: dict[str, T], context: CellContext) -> None:
        """Make the rows exactly `fresh`, in its order (and `records` it)."""
        raise NotImplementedError

    def _rows_on_top(self, fresh: Sequence[T], context: CellContext) -> None:
        """Add rows of `fresh` (none of them shown) above the rows, in this order."""
        raise NotImplementedError

    def _rows_replaced(self, fresh: Sequence[T], kept: Sequence[str], context: CellContext) -> None:
        """Make the rows `fresh` (none of them shown) then `kept` (shown ones, in this order);
        the others leave."""
        raise NotImplementedError

    def _new_row(self, record_id: str, record: T) -> None:
        """A row for `record`, put in `records` already; `_rows_sorted` places it."""
        raise NotImplementedError

    def _rows_sorted(self) -> None:
        """The rows take the order `records` has now."""
        raise NotImplementedError

    def _take_away(self, gone: Sequence[str], kept: Sequence[str]) -> None:
        """The rows `gone` leave, `kept` stay (in their order)."""
        raise NotImplementedError

    # -- rows --------------------------------------------------------------------------------

    def show(self, records: Iterable[T]) -> None:
        """Show exactly these records, in this order; rows already shown update in place."""
        fresh = {self.key_of(r): r for r in records}
        # Rows of a wrapping table are rebuilt: a row's height is measured as it is added.
        if list(fresh) == list(self.records) and not self.wrap:
            context = self.context()
            for record in fresh.values():
                self.update(record, context)
            return
        selected = self.select_next or self.selected_id()
        self.select_next = None
        self._show_rows(fresh, self.context())
        self.rows_touched += len(fresh)
        self._select(selected)

    def put_on_top(self, records: Sequence[T], limit: int, slack: int = 0) -> list[str]:
        """Show `records` (newest first, each newer than every row shown) above the rows.
        Rows already shown are updated in place instead. Past `limit + slack` rows, the oldest
        leave from the bottom, down to `limit`, all at once. Returns the ids that left.

        The cost is bounded by `limit + slack`, never by how many records came before; a live
        feed calls it once per frame with what arrived meanwhile, and a slack of a quarter of
        the window makes the times rows leave rare.
        """
        context = self.context()
        fresh = [r for r in records if not self.update(r, context)][:limit]
        if not fresh:
            return []
        selected = self.selected_id()
        at_top = self._cursor_at() <= 0
        dropped: list[str] = []
        if len(self.records) + len(fresh) > limit + slack:
            ids = list(self.records)
            keep = limit - len(fresh)
            dropped = ids[keep:]
            self._rows_replaced(fresh, ids[:keep], context)
        else:
            self._rows_on_top(fresh, context)
        if at_top or selected not in self.records:
            self._cursor_to(0)
        else:
            self._select(selected)
        return dropped

    def put_above(self, records: Sequence[T]) -> None:
        """Show `records` (newest first, all newer than the rows shown) above the rows, the
        cursor staying on its record (paging back towards the newest)."""
        context = self.context()
        fresh = [r for r in records if not self.update(r, context)]
        if not fresh:
            return
        selected = self.selected_id()
        self._rows_on_top(fresh, context)
        self._select(selected)

    def trim(self, keep: int, *, from_top: bool) -> list[str]:
        """Keep `keep` rows, taking the others away from the top or the bottom (a bounded
        window paged on); returns the ids that left."""
        ids = list(self.records)
        if len(ids) <= keep:
            return []
        gone = ids[: len(ids) - keep] if from_top else ids[keep:]
        selected = self.selected_id()
        self._take_away(gone, ids[len(gone) :] if from_top else ids[:keep])
        self._select(selected)
        return gone

    def insert(self, record: T, order: Callable[[T], Any]) -> None:
        """Add `record` and keep the rows sorted by `order`, largest first (newest on top)."""
        if self.update(record):
            return
        at_top = self._cursor_at() <= 0
        selected = self.selected_id()
        record_id = self.key_of(record)
        self.records[record_id] = record
        self._new_row(record_id, record)
        ordered = sorted(self.records.values(), key=order, reverse=True)
        self.records = {self.key_of(r): r for r in ordered}
        self._rows_sorted()
        if at_top:
            self._cursor_to(0)
        else:
            self._select(selected)

    def column_labels(self) -> list[str]:
        """The headers of the columns shown, left to right."""
        labels = {column.key: column.label for column in self.spec}
        return [labels[key] for key, _width in self.fitted]

    def column_width(self, key: str) -> int:
        """How wide the column `key` is drawn, in cells (its text; each cell has one cell of
        padding either side too)."""
        return dict(self.fitted)[key]

    # -- selection ---------------------------------------------------------------------------

    def selected(self) -> T | None:
        """The record under the cursor, if any."""
        record_id = self.selected_id()
        return None if record_id is None else self.records.get(record_id)

    def _select(self, record_id: str | None) -> None:
        if record_id is not None and record_id in self.records:
            self._cursor_to(self._row_of(record_id))

    def action_open(self) -> None:
        record_id = self.selected_id()
        if record_id is not None:
            self.post_message(self.Open(self, record_id))


def cut(cell: RenderableType, width: int) -> RenderableType:
    """A cell's text cut to `width` cells, ending in `…` when something was cut: two ids that
    differ only past the column's edge never look the same. Other renderables are left as they
    are (they size themselves)."""
    if isinstance(cell, str):
        cell = Text(cell)
    if not isinstance(cell, Text) or "\n" in cell.plain or cell.cell_len <= width:
        return cell
    shown = cell.copy()
    shown.truncate(width, overflow="ellipsis")
    return shown


def same_cell(shown: object, cell: object) -> bool:
    """`cell` would draw as `shown` does (a Text: its text, spans, style and layout)."""
    if isinstance(shown, Text) and isinstance(cell, Text):
        return (
            shown.plain == cell.plain
            and shown.spans == cell.spans
            and shown.style == cell.style
            and (shown.justify, shown.overflow, shown.no_wrap, shown.end)
            == (cell.justify, cell.overflow, cell.no_wrap, cell.end)
        )
    return type(shown) is type(cell) and shown == cell
