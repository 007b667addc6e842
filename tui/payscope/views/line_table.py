"""`LineTable`: payscope's own table of records, drawn a line at a time.

The same public surface as `ResourceTable` (columns fitted to a width, `show`, `update`, the live
feed's `put_on_top`, the cursor kept on its record, Enter and a click on the selected row posting
`Open`: the `RowKeeping` they share), on a `ScrollView` whose `render_line` draws one row from
its cells and keeps the line it drew: a frame after a cursor move or a new row on top draws only
the lines not drawn before, and nothing of the table is re-indexed when rows come and go (the
rows are a list of ids). It looks as `ResourceTable` does (the header, zebra rows, the cursor
focused or not, the hover), through component classes of its own that the theme's variables
style.

Rows are one line each: a table of wrapping rows (`wrap=True`) stays a `ResourceTable`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, TypeVar

from rich.console import RenderableType
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from payscope.views.columns import CellContext, Column, fit
from payscope.views.rows import RowKeeping, cut, same_cell

T = TypeVar("T")

# The kinds of line a row is drawn as (each cached on its own).
_EVEN, _ODD, _CURSOR, _HOVER, _CURSOR_HOVER = range(5)
# What a row's drawing takes from the styles (with the table's own): a look is these.
_LOOK_COMPONENTS = (
    "line-table--header",
    "line-table--cursor",
    "line-table--hover",
    "line-table--even-row",
    "line-table--odd-row",
)
_LOOKS_KEPT = 3  # looks kept besides the one shown (focused, not, and a theme before)


class LineTable(RowKeeping[T], ScrollView, can_focus=True):
    """Rows of records (`key_of` gives each its id), one line each; cells from the columns."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "line-table--header",
        "line-table--cursor",
        "line-table--hover",
        "line-table--even-row",
        "line-table--odd-row",
    }

    # The look of payscope's DataTables (Textual's defaults, with the app's muted header).
    DEFAULT_CSS = """
    LineTable {
        background: $surface;
        color: $foreground;
        height: auto;
        max-height: 100%;
        &:focus {
            background-tint: $foreground 5%;
            & > .line-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .line-table--header { background-tint: $foreground 5%; }
        }
        &:dark > .line-table--even-row { background: $surface-darken-1 40%; }
        & > .line-table--header { text-style: bold; background: $panel; color: $text-muted; }
        &:ansi > .line-table--header { background: ansi_bright_blue; color: ansi_default; }
        & > .line-table--even-row { background: $surface-lighten-1 50%; }
        & > .line-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .line-table--hover { background: $block-hover-background; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="table.open", tooltip="Open the selected record"),
        Binding("up", "cursor_up", "Cursor up", show=False, id="table.up", tooltip="The row above"),
        Binding(
            "down",
            "cursor_down",
            "Cursor down",
            show=False,
            id="table.down",
            tooltip="The row below",
        ),
        Binding(
            "pageup", "page_up", "Page up", show=False, id="table.page_up", tooltip="A page up"
        ),
        Binding(
            "pagedown",
            "page_down",
            "Page down",
            show=False,
            id="table.page_down",
            tooltip="A page down",
        ),
        Binding(
            "ctrl+home,home",
            "scroll_top",
            "Top",
            show=False,
            id="table.top",
            tooltip="The first row (the newest)",
        ),
        Binding(
            "ctrl+end,end",
            "scroll_bottom",
            "Bottom",
            show=False,
            id="table.bottom",
            tooltip="The last row",
        ),
    ]

    # The keys every table has (as DataTable's own, which carry no id): the key help leaves
    # them out, as it does a text box's, to show the screen's own keys.
    NAVIGATION_IDS: ClassVar[frozenset[str]] = frozenset(
        b.id for b in BINDINGS if isinstance(b, Binding) and not b.show and b.id is not None
    )

    class RowHighlighted(Message):
        """The cursor came to a row (moved, or the rows moved under it)."""

        def __init__(self, table: LineTable[Any], cursor_row: int, record_id: str | None) -> None:
            super().__init__()
            self.table = table
            self.cursor_row = cursor_row
            self.record_id = record_id

        @property
        def control(self) -> LineTable[Any]:
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
        super().__init__(id=id)
        if wrap:
            raise ValueError("a LineTable's rows are one line each (use ResourceTable to wrap)")
        # `rows_touched` counts rows made or moved (nothing is re-indexed as rows come and go).
        self._start_rows(columns, key_of, context, wrap=False)
        self.cursor_row = 0
        self._order: list[str] = []  # the ids, in the rows' order
        self._index: dict[str, int] | None = {}  # id -> row, made again when asked after a move
        self._cells: dict[str, list[RenderableType]] = {}
        self._header: list[RenderableType] = []
        self._lines: dict[tuple[str, int], Strip] = {}  # (id, kind) -> the row drawn
        # id -> each cell drawn once, unstyled by the row: a row drawn as another kind (the
        # cursor came to it, or it moved from an odd line to an even one) only restyles these.
        self._drawn_cells: dict[str, list[list[Segment]]] = {}
        self._header_line: Strip | None = None
        # The rows drawn in each look the table had lately (its styles: focused or not, the
        # theme), so focus going away and coming back draws no row again: the table's tint
        # and the cursor's colour change with the focus, which `:`, `/` and every form take.
        self._looks: dict[tuple[Style, ...], tuple[dict[tuple[str, int], Strip], Strip | None]] = {}
        self._look: tuple[Style, ...] | None = None  # the look `_lines` is drawn in
        self._restyled = True  # the styles changed since `_look` was taken
        self._hover: int | None = None
        self._highlighted: tuple[int, bool] = (0, False)  # the cursor's row, and a row there

    # -- layout ------------------------------------------------------------------------------

    def fit_to(self, width: int) -> bool:
        """Lay the columns out for a table `width` cells wide; True if that changed them."""
        layout = fit(self.spec, width)
        if layout == self.fitted:
            return False
        self.fitted = layout
        by_key = {c.key: c for c in self.spec}
        self._renderers = [by_key[key].render for key, _ in layout]
        self._header = [Text(by_key[key].label) for key, _ in layout]
        context = self.context()
        self._cells = {rid: self._row_cells(rec, context) for rid, rec in self.records.items()}
        self._changed(structure=True)
        return True

    def _row_cells(self, record: T, context: CellContext | None = None) -> list[RenderableType]:
        # One context for a batch of rows: the theme and the clock do not change within it.
        context = context or self.context()
        return [
            cut(render(record, context), width)
            for render, (_key, width) in zip(self._renderers, self.fitted, strict=True)
        ]

    @property
    def row_count(self) -> int:
        return len(self._order)

    def get_row_index(self, record_id: str) -> int:
        """The row `record_id` is on (as `DataTable.get_row_index`)."""
        return self._row_of(record_id)

    def get_cell(self, record_id: str, column: str) -> RenderableType:
        """What the row `record_id` shows in `column` (a key of the fitted columns), as drawn
        (as `DataTable.get_cell`)."""
        keys = [key for key, _width in self.fitted]
        return self._cells[record_id][keys.index(column)]

    def get_row(self, record_id: str) -> list[RenderableType]:
        """What the row `record_id` shows, a cell per fitted column, as drawn (as
        `DataTable.get_row`)."""
        return list(self._cells[record_id])

    def _row_of(self, record_id: str) -> int:
        if self._index is None:
            self._index = {rid: n for n, rid in enumerate(self._order)}
        return self._index[record_id]

    def _changed(self, *, structure: bool = False) -> None:
        """After rows were added, moved or taken away: the size, the cursor, a redraw."""
        if structure:
            self._forget_lines()
            self._drawn_cells.clear()
        self._index = None
        width = sum(w + 2 for _k, w in self.fitted)
        self.virtual_size = Size(width, len(self._order) + 1)
        self.cursor_row = max(0, min(self.cursor_row, len(self._order) - 1))
        self.refresh()
        self._announce()

    def _announce(self) -> None:
        """`RowHighlighted` when the cursor moved to another row, or came to the first: as a
        DataTable says it (rows put above the cursor's, the live feed's, say nothing: a view
        listening, its footer for one, is not asked to do its work again on every frame)."""
        record_id = self.selected_id()
        now = (self.cursor_row, record_id is not None)
        if now != self._highlighted:
            self._highlighted = now
            if record_id is not None:
                self.post_message(self.RowHighlighted(self, self.cursor_row, record_id))

    # -- rows --------------------------------------------------------------------------------

    def _set_rows(self, records: Iterable[T], context: CellContext) -> None:
        self.records = {}
        self._cells = {}
        for record in records:
            record_id = self.key_of(record)
            self.records[record_id] = record
            self._cells[record_id] = self._row_cells(record, context)
        self._order = list(self.records)
        self._forget_lines()
        self._drawn_cells.clear()

    def _show_rows(self, fresh: dict[str, T], context: CellContext) -> None:
        self._set_rows(fresh.values(), context)
        self._changed()

    def append(self, records: Iterable[T]) -> None:
        """Add records below the rows shown (the next batch of a long list)."""
        context = self.context()
        added = False
        for record in records:
            record_id = self.key_of(record)
            if record_id not in self.records:
                self.records[record_id] = record
                self._cells[record_id] = self._row_cells(record, context)
                self._order.append(record_id)
                self.rows_touched += 1
                added = True
        if added:
            self._changed()

    def update(self, record: T, context: CellContext | None = None) -> bool:
        """Redraw the row of `record` if it is shown; False if it is not."""
        record_id = self.key_of(record)
        if record_id not in self.records:
            return False
        self.records[record_id] = record
        cells = self._row_cells(record, context)
        if not all(same_cell(a, b) for a, b in zip(self._cells[record_id], cells, strict=True)):
            self._cells[record_id] = cells
            self._drawn_cells.pop(record_id, None)
            self._forget_line(record_id)
            self._refresh_row(self._row_of(record_id))
        return True

    def _rows_on_top(self, fresh: Sequence[T], context: CellContext) -> None:
        on_top = []
        for record in fresh:
            record_id = self.key_of(record)
            self.records[record_id] = record
            self._cells[record_id] = self._row_cells(record, context)
            on_top.append(record_id)
        self.rows_touched += len(fresh)
        self._order = on_top + self._order
        self.records = {rid: self.records[rid] for rid in self._order}
        self._changed()

    def _rows_replaced(self, fresh: Sequence[T], kept: Sequence[str], context: CellContext) -> None:
        self._forget(self._order[len(kept) :])
        self._order = list(kept)
        self._rows_on_top(fresh, context)

    def _forget(self, ids: Iterable[str]) -> None:
        for record_id in ids:
            self.records.pop(record_id, None)
            self._cells.pop(record_id, None)
            self._drawn_cells.pop(record_id, None)
            self._forget_line(record_id)

    def _take_away(self, gone: Sequence[str], kept: Sequence[str]) -> None:
        self._order = list(kept)
        self._forget(gone)
        self.rows_touched += len(self._order) if len(gone) > 1 else 1
        self._changed()

    def _new_row(self, record_id: str, record: T) -> None:
        self._cells[record_id] = self._row_cells(record)

    def _rows_sorted(self) -> None:
        self._order = list(self.records)
        self.rows_touched += len(self._order)
        self._changed()

    def drop(self, record_id: str) -> None:
        """Take a record's row away (e.g. a deleted customer)."""
        if record_id in self.records:
            selected = self.selected_id()
            self._order.remove(record_id)
            self._forget([record_id])
            self.rows_touched += 1
            self._changed()
            if selected != record_id:
                self._select(selected)

    # -- selection ---------------------------------------------------------------------------

    def selected_id(self) -> str | None:
        """The id of the record under the cursor, if any."""
        if not self._order or not self.fitted:
            return None
        return self._order[self.cursor_row]

    def _cursor_at(self) -> int:
        return self.cursor_row

    def _cursor_to(self, row: int) -> None:
        self.move_cursor(row=row)

    def move_cursor(self, *, row: int, animate: bool = False, scroll: bool = True) -> None:
        """Put the cursor on `row` (kept within the rows), in sight when `scroll`."""
        row = max(0, min(row, len(self._order) - 1))
        if row != self.cursor_row:
            self._refresh_row(self.cursor_row)
            self.cursor_row = row
            self._refresh_row(row)
        if scroll:
            self._in_sight(row, animate)
        self._announce()

    def _in_sight(self, row: int, animate: bool = False) -> None:
        rows_seen = max(1, self.scrollable_content_region.height - 1)
        top = round(self.scroll_offset.y)
        if row < top:
            self.scroll_to(y=row, animate=animate, force=True)
        elif row >= top + rows_seen:
            self.scroll_to(y=row - rows_seen + 1, animate=animate, force=True)

    def _refresh_row(self, row: int) -> None:
        y = row + 1 - round(self.scroll_offset.y)
        if 1 <= y < self.size.height:
            self.refresh_line(y)

    def action_cursor_up(self) -> None:
        self.move_cursor(row=self.cursor_row - 1)

    def action_cursor_down(self) -> None:
        self.move_cursor(row=self.cursor_row + 1)

    def action_page_up(self) -> None:
        page = max(1, self.scrollable_content_region.height - 1)
        self.scroll_to(y=round(self.scroll_offset.y) - page, animate=False, force=True)
        self.move_cursor(row=self.cursor_row - page)

    def action_page_down(self) -> None:
        page = max(1, self.scrollable_content_region.height - 1)
        self.scroll_to(y=round(self.scroll_offset.y) + page, animate=False, force=True)
        self.move_cursor(row=self.cursor_row + page)

    def action_scroll_top(self) -> None:
        self.move_cursor(row=0)
        # A view that shows a window of its records (Events) goes on to the newest of them all.
        self.post_message(self.Top(self))

    def action_scroll_bottom(self) -> None:
        self.move_cursor(row=len(self._order) - 1)

    # -- the mouse ---------------------------------------------------------------------------

    def _row_at(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return None
        row = offset.y - 1 + round(self.scroll_offset.y)
        return row if row < len(self._order) else None

    def on_click(self, event: events.Click) -> None:
        row = self._row_at(event)
        if row is None:
            return
        event.stop()
        if row == self.cursor_row:  # a click on the selected row: the same as Enter
            self.action_open()
        else:
            self.move_cursor(row=row)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self._row_at(event))

    def on_leave(self, event: events.Leave) -> None:
        self._set_hover(None)

    def _set_hover(self, row: int | None) -> None:
        if row != self._hover:
            for old in (self._hover, row):
                if old is not None:
                    self._refresh_row(old)
            self._hover = row

    # -- drawing -----------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        # Focus, the theme or the look changed the component styles: the rows are drawn in
        # the new look, or taken from when the table last had it.
        self._restyled = True

    def on_resize(self) -> None:
        self._forget_lines()  # each line is as wide as the table

    def _forget_lines(self) -> None:
        """Every row drawn, in every look, is drawn again when next shown."""
        self._looks.clear()
        self._lines = {}
        self._header_line = None
        self._look = None
        self._restyled = True

    def _forget_line(self, record_id: str) -> None:
        for lines in (self._lines, *(kept for kept, _header in self._looks.values())):
            for kind in (_EVEN, _ODD, _CURSOR, _HOVER, _CURSOR_HOVER):
                lines.pop((record_id, kind), None)

    def _in_look(self) -> None:
        """`_lines` and `_header_line` for the styles the table has now."""
        self._restyled = False
        look = (
            self.rich_style,
            *(self.get_component_rich_style(name) for name in _LOOK_COMPONENTS),
        )
        if look == self._look:
            return
        if self._look is not None:
            self._looks[self._look] = (self._lines, self._header_line)
        self._lines, self._header_line = self._looks.pop(look, ({}, None))
        self._look = look
        while len(self._looks) > _LOOKS_KEPT:
            del self._looks[next(iter(self._looks))]  # the look had longest ago

    def on_focus(self) -> None:
        self.notify_style_update()
        self.refresh()

    def on_blur(self) -> None:
        self.notify_style_update()
        self.refresh()

    def render_line(self, y: int) -> Strip:
        if self._restyled:
            self._in_look()
        width = self.size.width
        scroll_x = round(self.scroll_offset.x)
        base = self.rich_style
        if y == 0:
            if self._header_line is None:
                header = self.get_component_styles("line-table--header").rich_style
                self._header_line = self._draw(self._draw_cells(self._header), header, Style())
            line = self._header_line
        else:
            row = y - 1 + round(self.scroll_offset.y)
            if row >= len(self._order):
                return Strip.blank(width, base)
            record_id = self._order[row]
            cursor = row == self.cursor_row
            hover = row == self._hover
            kind = (_CURSOR_HOVER if hover else _CURSOR) if cursor else _HOVER if hover else row % 2
            key = (record_id, kind)
            line_or_none = self._lines.get(key)
            if line_or_none is None:
                zebra = "line-table--odd-row" if row % 2 else "line-table--even-row"
                row_style = self.get_component_styles(zebra).rich_style
                over = Style()
                if hover:
                    over += self.get_component_rich_style("line-table--hover")
                if cursor:
                    over += self.get_component_rich_style("line-table--cursor")
                line_or_none = self._lines[key] = self._draw(
                    self._unstyled(record_id), row_style, over
                )
            line = line_or_none
        if scroll_x:
            line = line.crop(scroll_x, scroll_x + width)
        return line.adjust_cell_length(width, base)

    def _unstyled(self, record_id: str) -> list[list[Segment]]:
        """A record's cells drawn (each padded by a cell each side), before the row's style."""
        drawn = self._drawn_cells.get(record_id)
        if drawn is None:
            drawn = self._drawn_cells[record_id] = self._draw_cells(self._cells[record_id])
        return drawn

    def _draw_cells(self, cells: Sequence[RenderableType]) -> list[list[Segment]]:
        console = self.app.console
        options = self.app.console_options.update(height=1, no_wrap=True)
        return [
            console.render_lines(Padding(cell, (0, 1)), options.update_width(width + 2))[0]
            for cell, (_key, width) in zip(cells, self.fitted, strict=True)
        ]

    def _draw(self, cells: Sequence[list[Segment]], row_style: Style, over: Style) -> Strip:
        """One row from its cells drawn: each in the row's style with `over` (the cursor's) on
        top; the cursor's colour wins over the cell's own, its background does not; the rest
        of the width in the row's style."""
        post = Style.from_color(color=over.color)
        segments: list[Segment] = []
        for column, cell in enumerate(cells):
            # Each cell's segments carry its column: neither drawing nor a simplified
            # screenshot merges them with the next cell's, as in a DataTable. Within a cell
            # they are merged (each cell one run of text, as a DataTable draws it).
            pre = row_style + Style.from_meta({"column": column}) + over
            segments.extend(Segment.simplify(Segment.apply_style(cell, pre, post)))
        used = sum(w + 2 for _k, w in self.fitted)
        rest = max(0, self.size.width - used)
        meta = Style.from_meta({"column": len(self.fitted)})
        segments.append(Segment(" " * rest, row_style + over + meta))
        return Strip(segments)
