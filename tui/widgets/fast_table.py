"""`FastTable`: a DataTable that draws its ordinary cells without Rich's layout pipeline.

Textual's DataTable renders every cell through `Console.render_lines(Styled(Padding(cell)))`:
two line-splitting passes, three generator layers and a console render per cell. A table
drawing a screen of rows spent two thirds of the app's first frame there (measured: 56 ms of
76 ms for 37 rows of 5 cells on the Payments page).

For the cells every table here holds, a one-line `Text` in a row one line high, the same segments
are built directly: the text is wrapped (not wrapped: one line) and justified by Rich itself,
cropped or padded to the column, the padding added either side and the cell's styles applied
around it, exactly as the pipeline does. Any other cell (another renderable, several lines, a
tab, a taller or auto-height row, a row label) goes through Textual's own code. The two paths
are compared segment by segment in `tests/tui/test_fast_table.py`.

Each line also looked up the header's and its stripe's style afresh, walking the widget's
ancestors every time; they are kept in the widget's style cache, which Textual clears whenever
the widget is restyled or repainted. The widget's own style, its background and its width,
which every line asked for (the same walk, for the first two), are taken once per drawing pass:
a quarter of a line's time went to them (the header's style alone 16%).

New rows are measured only when a measure is read: Textual measures every cell of every new
row (a Rich measure each) to widen auto-width columns, even when every column has its width
set, as they all do here; then nothing reads them. Such rows now only update the table's size
(4 ms before the first frame for a screen of rows; 10 ms more for the rest of the page).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual._types import SegmentLines
from textual.color import Color
from textual.coordinate import Coordinate
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widgets import DataTable
from textual.widgets._data_table import CellCacheKey, CellType, ColumnKey, RowKey

_NULL = Style.null()
_SEPARATOR = Text("\n")
# Keys of the component styles kept in Textual's per-widget style cache (which holds
# `get_component_rich_style`'s tuples of names; no component is named with a NUL).
_CACHED = "\x00rich_style"


class FastTable(DataTable[CellType]):
    """A DataTable whose one-line text cells are drawn directly (same segments, less work)."""

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """Textual's, without measuring cells nothing will read: when every column has its
        width set and no new row has a label or an auto height, the measures (read only by
        auto-width columns and the label column) change nothing but the table's size."""
        if any(column.auto_width for column in self.columns.values()):
            super()._update_dimensions(new_rows)
            return
        new_rows = list(new_rows)
        rows = self.rows
        for row_key in new_rows:
            row = rows.get(row_key)
            if row is not None and (row.label is not None or row.auto_height):
                super()._update_dimensions(new_rows)
                return
        # The end of Textual's method, as it is.
        data_cells_width = sum(column.get_render_width(self) for column in self.columns.values())
        total_width = data_cells_width + self._row_label_column_width
        header_height = self.header_height if self.show_header else 0
        self.virtual_size = Size(total_width, self._total_row_height + header_height)

    def _component_style(self, name: str) -> Style:
        """`get_component_styles(name).rich_style`, kept until the widget is restyled."""
        key = (_CACHED, name)
        cached = self._rich_style_cache.get(key)
        if cached is None:
            style = self.get_component_styles(name).rich_style
            self._rich_style_cache[key] = (style, style)
            return style
        return cached[0]

    def render_lines(self, crop: Region) -> list[Strip]:
        # The widget's own style, once for the lines of one pass: DataTable.render_line asked
        # for it on every line, each time walking the widget's ancestors to combine theirs.
        # Its background and width likewise (`_render_line_in_row`).
        self._pass_style: Style | None = self.rich_style
        self._pass_background: Color | None = self.background_colors[1]
        self._pass_width = self.size.width
        try:
            return super().render_lines(crop)
        finally:
            self._pass_style = None
            self._pass_background = None

    def render_line(self, y: int) -> Strip:
        style = getattr(self, "_pass_style", None)
        if style is None:  # a line drawn alone, outside `render_lines`
            return super().render_line(y)
        # DataTable.render_line, with the pass's style.
        scroll_x, scroll_y = self.scroll_offset
        fixed_rows_height = 0
        for row_index in range(self.fixed_rows):
            fixed_rows_height += self.get_row_height(
                cast(RowKey, self._row_locations.get_key(row_index))
            )
        if self.show_header:
            fixed_rows_height += self.get_row_height(self._header_row_key)
        if y >= fixed_rows_height:
            y += scroll_y
        return self._render_line(y, scroll_x, scroll_x + self.size.width, style)

    def _get_row_style(self, row_index: int, base_style: Style) -> Style:
        if row_index == -1:
            return self._component_style("datatable--header")
        if row_index < self.fixed_rows:
            return self._component_style("datatable--fixed")
        if self.zebra_stripes:
            return self._component_style(
                "datatable--odd-row" if row_index % 2 else "datatable--even-row"
            )
        return base_style

    def _render_line_in_row(
        self,
        row_key: RowKey,
        line_no: int,
        base_style: Style,
        cursor_location: Coordinate,
        hover_location: Coordinate,
    ) -> tuple[SegmentLines, SegmentLines]:
        """DataTable's, with the header's style from the style cache and the widget's
        background and width taken once per pass (outside a pass: DataTable's own)."""
        background_color = getattr(self, "_pass_background", None)
        if background_color is None:
            return super()._render_line_in_row(
                row_key, line_no, base_style, cursor_location, hover_location
            )
        cursor_type = self.cursor_type
        show_cursor = self.show_cursor
        cache_key = (
            row_key,
            line_no,
            base_style,
            cursor_location,
            hover_location,
            cursor_type,
            show_cursor,
            self._show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        cached = self._row_render_cache.get(cache_key)
        if cached is not None:
            return cached

        should_highlight = self._should_highlight
        header_style = self._component_style("datatable--header")
        located = self._row_locations.get(row_key) if row_key in self._row_locations else None
        row_index = -1 if located is None else located

        def cell(column_index: int, style: Style, width: int) -> list[Segment]:
            location = Coordinate(row_index, column_index)
            return self._render_cell(
                row_index,
                column_index,
                style,
                width,
                cursor=should_highlight(cursor_location, location, cursor_type),
                hover=should_highlight(hover_location, location, cursor_type),
            )[line_no]

        fixed_row = []
        if self._labelled_row_exists and self.show_row_labels:
            fixed_row.append(cell(-1, header_style, self._row_label_column_width))
        if self.fixed_columns:
            if row_key is self._header_row_key:
                fixed_style = header_style
            else:
                fixed_style = self._component_style("datatable--fixed")
                fixed_style += Style.from_meta({"fixed": True})
            for column_index, column in enumerate(self.ordered_columns[: self.fixed_columns]):
                fixed_row.append(cell(column_index, fixed_style, column.get_render_width(self)))

        row_style = self._get_row_style(row_index, base_style)
        scrollable_row = [
            cell(column_index, row_style, column.get_render_width(self))
            for column_index, column in enumerate(self.ordered_columns)
        ]

        # The styling extended out horizontally to fill the widget.
        table_width = (
            sum(
                column.get_render_width(self)
                for column in self.ordered_columns[self.fixed_columns :]
            )
            + self._row_label_column_width
        )
        remaining_space = max(0, self._pass_width - table_width)
        if cursor_type == "row":
            extend_style, _ = self._get_styles_to_render_cell(
                row_index == -1,
                False,
                False,
                should_highlight(hover_location, Coordinate(row_index or 0, 0), cursor_type),
                row_index == cursor_location.row,
                show_cursor,
                self._show_hover_cursor,
                False,
                False,
            )
            extend_style = row_style + extend_style
        elif row_style.bgcolor is not None:
            faded_color = Color.from_rich_color(row_style.bgcolor).blend(
                background_color, factor=0.25
            )
            extend_style = Style.from_color(color=row_style.color, bgcolor=faded_color.rich_color)
        else:
            extend_style = Style.from_color(row_style.color, row_style.bgcolor)
        extend_style += Style.from_meta({"row": row_index, "column": 0, "out_of_bounds": True})
        scrollable_row.append([Segment(" " * remaining_space, extend_style)])

        row_pair = (fixed_row, scrollable_row)
        self._row_render_cache[cache_key] = row_pair
        return row_pair

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> SegmentLines:
        if column_index < 0:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        is_header = row_index == -1
        # Both keys exist for a cell being drawn (Textual's own code makes the same assumption).
        row_key = cast(
            RowKey, self._header_row_key if is_header else self._row_locations.get_key(row_index)
        )
        cache_key: CellCacheKey = (
            row_key,
            cast(ColumnKey, self._column_locations.get_key(column_index)),
            base_style,
            cursor,
            hover,
            self._show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        cached = self._cell_render_cache.get(cache_key)
        if cached is not None:
            return cached
        if is_header:
            height = self.header_height
        else:
            row = self.rows[row_key]
            height = 0 if row.auto_height and row.height == 0 else row.height
        cell = self._get_row_renderables(row_index).cells[column_index]
        padding = self.cell_padding
        inner = width - 2 * padding
        if (
            height != 1
            or type(cell) is not Text
            or cell.no_wrap is False
            or cell.end not in ("", "\n")
            or inner <= 0
            or "\n" in cell.plain
            or "\t" in cell.plain
        ):
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        component_style, post_style = self._get_styles_to_render_cell(
            is_header,
            False,
            not is_header and (row_index < self.fixed_rows or column_index < self.fixed_columns),
            hover,
            cursor,
            self.show_cursor,
            self._show_hover_cursor,
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
        )
        pre_style = (
            base_style + Style.from_meta({"row": row_index, "column": column_index})
        ) + component_style
        # The app's console options set no justify nor overflow: the text's own, or Rich's.
        console = self.app.console
        justify = cell.justify or "default"
        # Text.__rich_console__ with the cell's column as its width, not wrapping; with nothing
        # to justify or trim, wrapping would only copy the text. (Joined, as Rich does: that
        # turns the text's own style into a span, which `render` alone would leave out.)
        lines = (
            [cell]
            if justify == "default" and cell.cell_len <= inner
            else cell.wrap(
                console,
                inner,
                justify=justify,
                overflow=cell.overflow or "fold",
                tab_size=(console.tab_size if cell.tab_size is None else cell.tab_size) or 8,
                no_wrap=True,
            )
        )
        if lines[0] is cell and not cell.spans:
            text_line = _plain_segments(cell, console)
        else:
            text_line = list(_SEPARATOR.join(lines).render(console))
        # Padding: the text cropped or padded to the column, its padding either side.
        line = Segment.adjust_line_length(text_line, inner, style=_NULL, pad=True)
        if padding:
            space = Segment(" " * padding, _NULL)
            line = [space, *line, space]
        # Styled: the cell's styles around the text's own.
        styled = [Segment(text, pre_style + style) for text, style, _ in line]
        if post_style:
            styled = [
                Segment(text, style + post_style if style else post_style)
                for text, style, _ in styled
            ]
        rendered: SegmentLines = [styled]
        self._cell_render_cache[cache_key] = rendered
        return rendered


def _plain_segments(cell: Text, console: Console) -> list[Segment]:
    """`_SEPARATOR.join([cell]).render(console)` for a text without spans, without building the
    joined copy: its text in its own style (Rich's `Text.render` of the cell alone would drop
    the style; joining turns it into the one span)."""
    style = cell.style
    if not style:
        return [Segment(cell.plain)]
    if not cell.plain:
        return []
    return [Segment(cell.plain, console.get_style(style, default=_NULL))]
