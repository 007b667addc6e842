"""Which table for payscope's lists: Textual's `DataTable` (public API), a `ScrollView` line
renderer of payscope's own (as toolong draws its log), or `textual-fastdatatable` (harlequin's).

A Payments page as the list holds it (100 rows of five cells: id, coloured status, amount
justified right, date, customer; every column's width set) is put into a fresh table, which is
mounted in a 120x40 headless app; then the cursor goes down 20 rows, one at a time. Timed, per
kind, in alternated rounds of the same run (so each sees the same machine load):

- fill: making the table and adding its columns and rows (before it is mounted);
- first: the table's first drawing, every visible line (its `render_lines`, timed around the
  call), the part of a first frame the table itself costs;
- cursor: the drawing after each cursor move (median of the 20 moves).

The line renderer is a sketch sized for the measurement (header, zebra rows, the cursor's row,
cells cropped or padded to their column): what owning the table could save at most, before the
keys, mouse, scrolling and messages a real one would need. `textual-fastdatatable` is measured
only when it is installed (with pyarrow, which it needs: its import is timed too, in a fresh
interpreter).

    .venv/bin/python bench/table_render.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable

ROWS = 100
SIZE = (120, 40)
MOVES = 20
COLUMNS = (("Payment", 24), ("Status", 18), ("Amount", 14), ("Created", 12), ("Customer", 24))
STATUS = ("succeeded", "failed", "requires_capture", "processing", "cancelled")
COLOURS = ("green", "red", "yellow", "cyan", "bright_black")


def page() -> list[list[Text]]:
    """A page of payments' cells, as the Payments list makes them."""
    rows = []
    for n in range(ROWS):
        rows.append(
            [
                Text(f"pay_{n:020d}"),
                Text(STATUS[n % 5], style=COLOURS[n % 5]),
                Text(f"{(n * 7919) % 100000 / 100:,.2f} GBP", justify="right"),
                Text(f"Nov {1 + n % 28:2d} 19:47"),
                Text(f"cus_{n % 37:020d}"),
            ]
        )
    return rows


Timings = dict[str, list[float]]


class Timed:
    """Mixed into each table: the time of every `render_lines` call, into `drawn`."""

    drawn: list[float]

    def render_lines(self, crop: Region) -> list[Strip]:
        start = time.perf_counter()
        lines: list[Strip] = super().render_lines(crop)  # type: ignore[misc]
        self.drawn.append(time.perf_counter() - start)
        return lines


class StockTable(Timed, DataTable[Any]):
    def __init__(self) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True)
        self.drawn = []


def fill_stock(rows: list[list[Text]]) -> Widget:
    table = StockTable()
    for label, width in COLUMNS:
        table.add_column(Text(label), width=width)
    for n, row in enumerate(rows):
        table.add_row(*row, key=str(n))
    return table


class LineTable(Timed, ScrollView, can_focus=True):
    """The sketch of a table of payscope's own: one line per row, drawn from its cells."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "table--header",
        "table--cursor",
        "table--even-row",
        "table--odd-row",
    }
    DEFAULT_CSS = """
    LineTable { height: 1fr; }
    LineTable > .table--header { text-style: bold; background: $panel; }
    LineTable > .table--cursor { background: $block-cursor-background; }
    LineTable > .table--even-row { background: $surface; }
    LineTable > .table--odd-row { background: $surface-lighten-1; }
    """

    def __init__(self, rows: list[list[Text]]) -> None:
        super().__init__()
        self.drawn = []
        self.rows = rows
        self.cursor = 0
        self.widths = [width for _, width in COLUMNS]
        self.header = [Text(label) for label, _ in COLUMNS]
        self.virtual_size = Size(sum(w + 2 for w in self.widths), len(rows) + 1)
        self._lines: dict[tuple[int, bool], Strip] = {}

    def move_cursor(self, row: int) -> None:
        previous, self.cursor = self.cursor, row
        self.refresh_lines(previous + 1 - int(self.scroll_offset.y))
        self.refresh_lines(row + 1 - int(self.scroll_offset.y))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines.clear()

    def _cells(self, cells: list[Text], style: Style) -> Strip:
        segments: list[Segment] = []
        console = self.app.console
        for cell, width in zip(cells, self.widths, strict=True):
            text = cell.copy()
            text.truncate(width, overflow="ellipsis", pad=True)
            if cell.justify == "right":
                text = Text(" " * (width - cell.cell_len)) + cell if cell.cell_len < width else text
            segments.append(Segment(" ", style))
            segments.extend(
                Segment(s.text, style + s.style if s.style else style) for s in text.render(console)
            )
            segments.append(Segment(" ", style))
        return Strip(segments)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y == 0:
            key = (-1, False)
            style = self.get_component_rich_style("table--header")
            cells = self.header
        else:
            index = y - 1 + int(self.scroll_offset.y)
            if index >= len(self.rows):
                return Strip.blank(width, self.rich_style)
            key = (index, index == self.cursor)
            name = (
                "table--cursor"
                if key[1]
                else ("table--odd-row" if index % 2 else "table--even-row")
            )
            style = self.get_component_rich_style(name)
            cells = self.rows[index]
        line = self._lines.get(key)
        if line is None:
            line = self._lines[key] = self._cells(cells, style)
        return line.extend_cell_length(width, style).crop(0, width)


def fill_line(rows: list[list[Text]]) -> Widget:
    return LineTable(rows)


def fill_fast(rows: list[list[Text]]) -> Widget:  # pragma: no cover - only when installed
    from textual_fastdatatable import ArrowBackend
    from textual_fastdatatable import DataTable as FastDataTable

    class Fast(Timed, FastDataTable):  # type: ignore[misc,unused-ignore]
        pass

    records = [tuple(cell.plain for cell in row) for row in rows]
    backend = ArrowBackend.from_records([tuple(label for label, _ in COLUMNS), *records])
    table = Fast(backend=backend, cursor_type="row", zebra_stripes=True)
    table.drawn = []
    return table


def move(table: Widget, row: int) -> None:
    if isinstance(table, LineTable):
        table.move_cursor(row)
    else:
        table.move_cursor(row=row, animate=False)  # type: ignore[attr-defined]


class Bench(App[None]):
    pass


async def measure(kinds: dict[str, Callable[[list[list[Text]]], Widget]], rounds: int) -> Timings:
    rows = page()
    times: Timings = {
        f"{name} {what}": [] for name in kinds for what in ("fill", "first", "cursor")
    }
    app = Bench()
    async with app.run_test(size=SIZE) as pilot:
        for n in range(rounds):
            order = list(kinds.items())
            for name, fill in order if n % 2 == 0 else reversed(order):
                start = time.perf_counter()
                table = fill(rows)
                times[f"{name} fill"].append(time.perf_counter() - start)
                drawn: list[float] = table.drawn  # type: ignore[attr-defined]
                await app.mount(table)
                table.focus()
                await pilot.pause()
                await pilot.pause()
                times[f"{name} first"].append(sum(drawn))
                moves = []
                for row in range(1, MOVES + 1):
                    drawn.clear()
                    move(table, row)
                    await pilot.pause()
                    moves.append(sum(drawn))
                times[f"{name} cursor"].append(statistics.median(moves))
                await table.remove()
    return times


def import_time(module: str) -> float:
    """Seconds to import `module` in a fresh interpreter (Textual already imported)."""
    code = (
        "import time, textual.widgets, textual.app; s = time.perf_counter(); "
        f"import {module}; print(time.perf_counter() - s)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="alternated rounds")
    args = parser.parse_args(argv)
    kinds: dict[str, Callable[[list[list[Text]]], Widget]] = {
        "DataTable": fill_stock,
        "LineTable": fill_line,
    }
    try:
        import textual_fastdatatable  # noqa: F401
    except ImportError:
        print("textual-fastdatatable: not installed, not measured")
    else:
        kinds["fastdatatable"] = fill_fast
    times = asyncio.run(measure(kinds, args.rounds))
    print(f"{ROWS} rows x {len(COLUMNS)} columns at {SIZE[0]}x{SIZE[1]}, {args.rounds} rounds")
    print(f"{'':<26}{'median ms':>10}{'min ms':>9}")
    for name, values in times.items():
        print(f"{name:<26}{1000 * statistics.median(values):>10.2f}{1000 * min(values):>9.2f}")
    if "fastdatatable" in kinds:
        imports = [import_time("textual_fastdatatable") for _ in range(5)]
        print(
            f"{'fastdatatable import':<26}{1000 * statistics.median(imports):>10.2f}"
            f"{1000 * min(imports):>9.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
