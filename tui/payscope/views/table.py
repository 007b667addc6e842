"""`ResourceTable`: a DataTable of records keyed by id that keeps its cursor on the same record
across re-layout, reload and live updates; Enter opens the record under the cursor."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from payscope.views.columns import CellContext, Column, fit
from payscope.views.rows import RowKeeping, cut, same_cell

T = TypeVar("T")


class ResourceTable(RowKeeping[T], DataTable[RenderableType]):
    """Rows of records (`key_of` gives each its id); cells come from the typed columns. Which
    record goes where is `RowKeeping`'s; this says how DataTable's rows follow."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="table.open", tooltip="Open the selected record"),
    ]

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
        # `wrap`: rows as tall as their cells (a value a user copies, shown whole) rather than
        # one line with what does not fit cut off and marked `…`. `rows_touched` counts rows
        # added, moved by a re-order, or shifted by a removal in DataTable's index.
        self._start_rows(columns, key_of, context, wrap=wrap)

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

    def _show_rows(self, fresh: dict[str, T], context: CellContext) -> None:
        self.clear()
        self.records = fresh
        for record_id, record in fresh.items():
            self._add(record_id, record, context)

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
            if not same_cell(self.get_cell(record_id, key), cell):
                self.update_cell(record_id, key, cell)
        return True

    def _rows_on_top(self, fresh: Sequence[T], context: CellContext) -> None:
        # One re-order of the rows for the whole batch (DataTable's public `sort`: it has no
        # insert at an index).
        on_top: dict[str, T] = {}
        for record in fresh:
            record_id = self.key_of(record)
            on_top[record_id] = record
            self.add_row(*self._cells(record, context), key=record_id)
        self.rows_touched += len(fresh)
        self.records = {**on_top, **self.records}
        self._set_order(list(self.records))

    def _rows_replaced(self, fresh: Sequence[T], kept: Sequence[str], context: CellContext) -> None:
        # One rebuild of the window from the cells it already has: DataTable re-indexes every
        # row on each `remove_row`, so removing them one by one would cost a window per row.
        self._rebuild(fresh, kept, context)

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

    def _take_away(self, gone: Sequence[str], kept: Sequence[str]) -> None:
        if len(gone) == 1:
            self.drop(gone[0])
        else:
            self._rebuild([], kept, self.context())

    def _new_row(self, record_id: str, record: T) -> None:
        self._add(record_id, record)

    def _rows_sorted(self) -> None:
        self._set_order(list(self.records))

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

    def _cursor_at(self) -> int:
        return self.cursor_row

    def _cursor_to(self, row: int) -> None:
        self.move_cursor(row=row, animate=False)

    def _row_of(self, record_id: str) -> int:
        return self.get_row_index(record_id)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # A click on the selected row: the same as Enter.
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Open(self, str(event.row_key.value)))


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
