"""`ResourceTable`: a DataTable of records keyed by id that keeps its cursor on the same record
across re-layout, reload and live updates; Enter opens the record under the cursor."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeAlias, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable

from payscope.views.columns import CellContext, Column, fit

if TYPE_CHECKING:
    from payscope.views.line_table import LineTable

# The tables that post `Open` and `Top`: this one, and payscope's line-drawn `LineTable`.
AnyTable: TypeAlias = "ResourceTable[Any] | LineTable[Any]"

T = TypeVar("T")


class ResourceTable(DataTable[RenderableType], Generic[T]):
    """Rows of records (`key_of` gives each its id); cells come from the typed columns."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="table.open", tooltip="Open the selected record"),
    ]

    class Open(Message):
        """Enter (or a click on the selected row) on a record (of this table or a `LineTable`)."""

        def __init__(self, table: AnyTable, record_id: str) -> None:
            super().__init__()
            self.table = table
            self.record_id = record_id

        @property
        def control(self) -> AnyTable:
            return self.table

    class Top(Message):
        """Ctrl+Home reached the first row shown: a view that shows a window of its records
        (Events) goes on to the newest of them all."""

        def __init__(self, table: AnyTable) -> None:
            super().__init__()
            self.table = table

        @property
        def control(self) -> AnyTable:
            return self.table

    def action_scroll_top(self) -> None:
        super().action_scroll_top()
        self.post_message(self.Top(self))

    def __init__(
        self,
        columns: Sequence[Column[T]],
        key_of: Callable[[T], str],
        context: Callable[[], CellContext],
        *,
        id: str | None = None,
        wrap: bool = False,
    ) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, id=id)
        self.spec = tuple(columns)
        # Rows as tall as their cells (a value a user copies, shown whole) rather than one line
        # with what does not fit cut off and marked `…`.
        self.wrap = wrap
        self.key_of = key_of
        self.context = context
        self.records: dict[str, T] = {}
        self.fitted: tuple[tuple[str, int], ...] = ()
        self._renderers: list[Callable[[T, CellContext], RenderableType]] = []
        self.select_next: str | None = None  # a record to put the cursor on once it is shown
        # The work rows cost, counted (rows added, moved by a re-order, or shifted by a removal
        # in DataTable's index): what a live feed's bound is checked on, not a timing.
        self.rows_touched = 0

    # -- layout ------------------------------------------------------------------------------

    def fit_to(self, width: int) -> bool:
        """Lay the columns out for a table `width` cells wide; True if that changed them."""
        layout = fit(self.spec, width)
        if layout == self.fitted:
            return False
        selected = self.selected_id()
        self.fitted = layout
        self.clear(columns=True)
        for key, shown in layout:
            label = next(c.label for c in self.spec if c.key == key)
            self.add_column(Text(label), width=shown, key=key)
        self._renderers = [next(c.render for c in self.spec if c.key == key) for key, _ in layout]
        context = self.context()
        for record_id, record in self.records.items():
            self._add(record_id, record, context)
        self._select(selected)
        return True

    def _cells(self, record: T, context: CellContext | None = None) -> list[RenderableType]:
        # One context for a batch of rows: the theme and the clock do not change within it.
        context = context or self.context()
        if self.wrap:
            return [folded(render(record, context)) for render in self._renderers]
        return [
            cut(render(record, context), width)
            for render, (_key, width) in zip(self._renderers, self.fitted, strict=True)
        ]

    def _add(self, record_id: str, record: T, context: CellContext | None = None) -> None:
        self.add_row(*self._cells(record, context), key=record_id, height=None if self.wrap else 1)

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
        self.clear()
        self.records = fresh
        context = self.context()
        for record_id, record in fresh.items():
            self._add(record_id, record, context)
        self.rows_touched += len(fresh)
        self._select(selected)

    def append(self, records: Iterable[T]) -> None:
        """Add records below the rows shown (the next batch of a long list)."""
        context = self.context()
        for record in records:
            record_id = self.key_of(record)
            if record_id not in self.records:
                self.records[record_id] = record
                self._add(record_id, record, context)
                self.rows_touched += 1

    def update(self, record: T, context: CellContext | None = None) -> bool:
        """Redraw the row of `record` if it is shown; False if it is not."""
        record_id = self.key_of(record)
        if record_id not in self.records:
            return False
        self.records[record_id] = record
        for (key, _width), cell in zip(self.fitted, self._cells(record, context), strict=True):
            # Only what changed: each `update_cell` makes DataTable draw every row anew (its
            # render caches are keyed by an update count), so a live page that says what the
            # cached one said (the usual warm start) costs no drawing at all.
            if not _same(self.get_cell(record_id, key), cell):
                self.update_cell(record_id, key, cell)
        return True

    def put_on_top(self, records: Sequence[T], limit: int, slack: int = 0) -> list[str]:
        """Show `records` (newest first, each newer than every row shown) above the rows.
        Rows already shown are updated in place instead. Past `limit + slack` rows, the oldest
        leave from the bottom, down to `limit`, all at once. Returns the ids that left.

        The cost is bounded by `limit + slack`, never by how many records came before: one
        re-order of the rows for the whole batch (DataTable's public `sort`: it has no insert
        at an index), or, when rows leave, one rebuild of the window from the cells it already
        has (DataTable re-indexes every row on each `remove_row`, so removing them one by one
        would cost a window per row). A live feed calls it once per frame with what arrived
        meanwhile, and a slack of a quarter of the window makes the rebuilds rare.
        """
        context = self.context()
        fresh = [r for r in records if not self.update(r, context)][:limit]
        if not fresh:
            return []
        selected = self.selected_id()
        at_top = self.cursor_row <= 0
        dropped: list[str] = []
        if len(self.records) + len(fresh) > limit + slack:
            ids = list(self.records)
            keep = limit - len(fresh)
            dropped = ids[keep:]
            self._rebuild(fresh, ids[:keep], context)
        else:
            on_top: dict[str, T] = {}
            for record in fresh:
                record_id = self.key_of(record)
                on_top[record_id] = record
                self.add_row(*self._cells(record, context), key=record_id)
            self.rows_touched += len(fresh)
            self.records = {**on_top, **self.records}
            self._set_order(list(self.records))
        if at_top or selected not in self.records:
            self.move_cursor(row=0, animate=False)
        else:
            self._select(selected)
        return dropped

    def _rebuild(self, fresh: Sequence[T], kept: Sequence[str], context: CellContext) -> None:
        """The rows `fresh` (rendered now) then `kept` (with the cells they have)."""
        old = self.records
        cells = {record_id: self.get_row(record_id) for record_id in kept}
        self.clear()
        self.records = {}
        for record in fresh:
            record_id = self.key_of(record)
            self.records[record_id] = record
            self.add_row(*self._cells(record, context), key=record_id)
        for record_id in kept:
            self.records[record_id] = old[record_id]
            self.add_row(*cells[record_id], key=record_id)
        self.rows_touched += len(self.records)

    def trim(self, keep: int, *, from_top: bool) -> list[str]:
        """Keep `keep` rows, taking the others away from the top or the bottom (a bounded
        window paged on), in one rebuild; returns the ids that left."""
        ids = list(self.records)
        if len(ids) <= keep:
            return []
        gone = ids[: len(ids) - keep] if from_top else ids[keep:]
        selected = self.selected_id()
        if len(gone) == 1:
            self.drop(gone[0])
        else:
            self._rebuild([], ids[len(gone) :] if from_top else ids[:keep], self.context())
        self._select(selected)
        return gone

    def put_above(self, records: Sequence[T]) -> None:
        """Show `records` (newest first, all newer than the rows shown) above the rows, the
        cursor staying on its record (paging back towards the newest)."""
        context = self.context()
        fresh = [r for r in records if not self.update(r, context)]
        if not fresh:
            return
        selected = self.selected_id()
        on_top: dict[str, T] = {}
        for record in fresh:
            record_id = self.key_of(record)
            on_top[record_id] = record
            self.add_row(*self._cells(record, context), key=record_id)
        self.rows_touched += len(fresh)
        self.records = {**on_top, **self.records}
        self._set_order(list(self.records))
        self._select(selected)

    def insert(self, record: T, order: Callable[[T], Any]) -> None:
        """Add `record` and keep the rows sorted by `order`, largest first (newest on top)."""
        if self.update(record):
            return
        at_top = self.cursor_row <= 0
        selected = self.selected_id()
        record_id = self.key_of(record)
        self.records[record_id] = record
        self._add(record_id, record)
        ordered = sorted(self.records.values(), key=order, reverse=True)
        self.records = {self.key_of(r): r for r in ordered}
        self._set_order(list(self.records))
        if at_top:
            self.move_cursor(row=0, animate=False)
        else:
            self._select(selected)

    def _set_order(self, keys: list[str]) -> None:
        # `DataTable.sort` with the order of the records rather than of cell texts (a short
        # "Nov 20 19:47" does not sort by date; narrow layouts drop the time column). Its key
        # function is given a row's cells, not its key: each row is known by its cells' identity
        # (the objects this table made for it; their ids, in any order).
        position = {_identity(self.get_row(key)): index for index, key in enumerate(keys)}
        self.rows_touched += len(keys)
        self.sort(key=lambda cells: position[_identity(cells)])

    def drop(self, record_id: str) -> None:
        """Take a record's row away (e.g. a deleted customer)."""
        if record_id in self.records:
            del self.records[record_id]
            # DataTable re-indexes every row after a removal.
            self.rows_touched += len(self.records)
            self.remove_row(record_id)

    # -- selection ---------------------------------------------------------------------------

    def selected_id(self) -> str | None:
        """The id of the record under the cursor, if any."""
        # No row, or rows shown before the columns were laid out (`fit_to` on mount): nothing
        # is under the cursor.
        if self.row_count == 0 or not self.is_valid_coordinate(self.cursor_coordinate):
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return str(key) if key is not None else None

    def selected(self) -> T | None:
        """The record under the cursor, if any."""
        record_id = self.selected_id()
        return None if record_id is None else self.records.get(record_id)

    def _select(self, record_id: str | None) -> None:
        if record_id is not None and record_id in self.records:
            self.move_cursor(row=self.get_row_index(record_id), animate=False)

    def action_open(self) -> None:
        record_id = self.selected_id()
        if record_id is not None:
            self.post_message(self.Open(self, record_id))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # A click on the selected row: the same as Enter.
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Open(self, str(event.row_key.value)))


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


def folded(cell: RenderableType) -> RenderableType:
    """A cell's text free to wrap, a long word (a key) folded over lines rather than cut."""
    if not isinstance(cell, Text) or not cell.no_wrap:
        return cell
    shown = cell.copy()
    shown.no_wrap = False
    shown.overflow = "fold"
    return shown


def _identity(cells: Iterable[object]) -> tuple[int, ...]:
    """A row known by its cells' identity, whatever their order."""
    return tuple(sorted(map(id, cells)))


def _same(shown: object, cell: object) -> bool:
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
