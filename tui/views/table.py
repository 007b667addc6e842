"""`ResourceTable`: a DataTable of records keyed by id that keeps its cursor on the same record
across re-layout, reload and live updates; Enter opens the record under the cursor."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable

from tui.views.columns import CellContext, Column, fit

T = TypeVar("T")


class ResourceTable(DataTable[RenderableType], Generic[T]):
    """Rows of records (`key_of` gives each its id); cells come from the typed columns."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="table.open", tooltip="Open the selected record"),
    ]

    class Open(Message):
        """Enter (or a click on the selected row) on a record."""

        def __init__(self, table: ResourceTable[Any], record_id: str) -> None:
            super().__init__()
            self.table = table
            self.record_id = record_id

        @property
        def control(self) -> ResourceTable[Any]:
            return self.table

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
        self._select(selected)

    def append(self, records: Iterable[T]) -> None:
        """Add records below the rows shown (the next batch of a long list)."""
        context = self.context()
        for record in records:
            record_id = self.key_of(record)
            if record_id not in self.records:
                self.records[record_id] = record
                self._add(record_id, record, context)

    def update(self, record: T, context: CellContext | None = None) -> bool:
        """Redraw the row of `record` if it is shown; False if it is not."""
        record_id = self.key_of(record)
        if record_id not in self.records:
            return False
        self.records[record_id] = record
        for (key, _width), cell in zip(self.fitted, self._cells(record, context), strict=True):
            self.update_cell(record_id, key, cell)
        return True

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
        self.sort(key=lambda cells: position[_identity(cells)])

    def drop(self, record_id: str) -> None:
        """Take a record's row away (e.g. a deleted customer)."""
        if record_id in self.records:
            del self.records[record_id]
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
