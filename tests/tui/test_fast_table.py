"""`FastTable` draws exactly what Textual's DataTable draws, segment by segment.

Two tables hold the same cells, one Textual's and one `FastTable`; every cell and every line of
both are rendered and compared, for cells of every kind the fast path takes or must leave to
Textual (styles and spans, every justify and overflow, text longer than its column, wide
characters, markup strings, numbers, empty cells, several lines, tabs, wrapping asked for) and
for the table's settings that change a cell (padding, zebra stripes, fixed rows and columns,
row labels, cursor kinds, the cursor and the hover on a cell).
"""

from __future__ import annotations

from typing import Any

import pytest
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.coordinate import Coordinate
from textual.geometry import Region
from textual.widgets import DataTable

from tui.widgets.fast_table import FastTable


def _cells() -> list[list[Any]]:
    spans = Text("pay_") + Text("abc", style="bold") + Text("123", style="italic red")
    return [
        [Text("pay_1"), Text("succeeded", style="green"), Text("416.86 GBP", justify="right")],
        [spans, Text("centred", justify="center"), Text("left", justify="left")],
        [Text("a" * 40), Text("b " * 20, overflow="ellipsis"), Text("c" * 30, justify="right")],
        [Text("wide 漢字漢字漢字漢字", justify="full"), Text("crop me", overflow="crop"), ""],
        ["[bold]markup[/] plain", 12345, 3.14159],
        [None, Text(""), Text("", style="on red")],
        [Text("trailing spaces      "), Text("ends", end=""), Text("x", style="link https://e")],
        [Text("two\nlines"), Text("tab\there"), Text("wraps please", no_wrap=False)],
        [Text("emoji 🎉🎉🎉🎉🎉🎉🎉🎉"), Text.from_markup("[reverse]rev[/] x"), Text("  lead")],
        [
            Text("e\u0301" * 7 + "    ", style="underline"),
            Text("n\u0303" * 9 + "  "),
            Text("x\u0301 "),
        ],
        [
            Text("漢字" * 5, overflow="ellipsis"),
            Text("漢" * 20, style="bold"),
            Text("字" * 9, overflow="crop"),
        ],
    ]


class Table(App[None]):
    """One table, Textual's or `FastTable`, alone on the screen: the two are drawn in the same
    place with the same focus."""

    def __init__(self, kind: type[DataTable[Any]], **settings: Any) -> None:
        super().__init__()
        self.kind = kind
        self.settings = settings

    def compose(self) -> ComposeResult:
        yield self.kind(**self.settings)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column(Text("Payment", style="bold"), width=14)
        table.add_column("Status")
        table.add_column(Text("Amount", justify="right"), width=9)
        for index, row in enumerate(_cells()):
            table.add_row(*row, label=f"r{index}" if index % 3 == 0 else None)
        table.cursor_coordinate = Coordinate(2, 1)
        table.hover_coordinate = Coordinate(4, 2)


def _lines(table: DataTable[Any]) -> list[list[Segment]]:
    table._line_cache.clear()
    table._row_render_cache.clear()
    table._cell_render_cache.clear()
    return [list(strip) for strip in table.render_lines(Region(0, 0, *table.size))]


def _cell(table: DataTable[Any], row: int, column: int, **flags: bool) -> Any:
    width = table.ordered_columns[column].get_render_width(table)
    return table._render_cell(row, column, Style(color="blue"), width, **flags)


def _cells_of(table: DataTable[Any]) -> dict[tuple[int, int, str], Any]:
    return {
        (row, column, ",".join(flags)): _cell(table, row, column, **flags)
        for row in range(-1, len(_cells()))
        for column in range(3)
        for flags in ({}, {"cursor": True}, {"hover": True})
    }


async def _drawn(
    kind: type[DataTable[Any]],
    *,
    size: tuple[int, int] = (70, 20),
    scroll: int = 0,
    **settings: Any,
) -> tuple[Any, Any]:
    app = Table(kind, **settings)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        table = app.query_one(DataTable)
        assert type(table) is kind
        if scroll:
            table.scroll_to(y=scroll, animate=False, immediate=True)
            await pilot.pause()
            assert table.scroll_offset.y == scroll
        return _lines(table), _cells_of(table)


SETTINGS = [
    {},
    {"zebra_stripes": True, "cursor_type": "row"},
    {"cell_padding": 0},
    {"cell_padding": 2, "cursor_type": "column"},
    {"fixed_rows": 1, "fixed_columns": 1, "zebra_stripes": True},
    {"show_cursor": False, "show_header": False},
    {"cursor_foreground_priority": "renderable", "cursor_background_priority": "css"},
    # Scrolled, under fixed rows and the header (the lines a pass draws at once).
    {"fixed_rows": 1, "zebra_stripes": True, "size": (70, 8), "scroll": 3},
    {"show_header": False, "size": (70, 6), "scroll": 4},
]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(s) or "defaults")
async def test_every_cell_and_line_is_drawn_as_textual_draws_it(settings: dict[str, Any]) -> None:
    fast_lines, fast_cells = await _drawn(FastTable, **settings)
    lines, cells = await _drawn(DataTable, **settings)
    assert fast_lines == lines
    for key, drawn in cells.items():
        assert fast_cells[key] == drawn, key


async def test_the_fast_path_is_taken_for_one_line_text_and_not_for_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The comparison above would pass if every cell went through Textual's code: this proves
    the ordinary cells do not, and the others do."""
    taken: list[tuple[int, int]] = []
    original = DataTable._render_cell

    def textuals(self: Any, row: int, column: int, *args: Any, **kwargs: Any) -> Any:
        taken.append((row, column))
        return original(self, row, column, *args, **kwargs)

    monkeypatch.setattr(DataTable, "_render_cell", textuals)
    await _drawn(FastTable)
    # Two lines, a tab, wrapping asked for (row 7); row labels (column -1).
    assert sorted({cell for cell in taken if cell[1] >= 0}) == [(7, 0), (7, 1), (7, 2)]
    assert (0, -1) in taken
    assert (0, 0) not in taken and (-1, 0) not in taken


async def test_a_restyled_table_draws_its_new_stripes() -> None:
    """The stripes' styles are kept between lines, and dropped when the table is restyled."""
    for kind in (FastTable, DataTable):
        app = Table(kind, zebra_stripes=True)
        async with app.run_test(size=(70, 20)) as pilot:
            await pilot.pause()
            table = app.query_one(DataTable)
            before = _lines(table)
            app.theme = "textual-light"
            await pilot.pause()
            after = _lines(table)
            assert after != before
            if kind is FastTable:
                fast = after
    assert fast == after


def test_every_table_is_a_fast_table() -> None:
    """No screen builds Textual's DataTable itself (its cells take Rich's whole pipeline)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "tui"
    built = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = node.func if isinstance(node, ast.Call) else None
            if isinstance(called, ast.Name) and called.id == "DataTable":
                built.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.ClassDef) and path.name != "fast_table.py":
                bases = [b.value if isinstance(b, ast.Subscript) else b for b in node.bases]
                built += [
                    f"{path.name}: class {node.name}"
                    for b in bases
                    if isinstance(b, ast.Name) and b.id == "DataTable"
                ]
    assert built == []


class Fixed(App[None]):
    """Columns that all have their width set and rows without labels, as every table here."""

    def __init__(self, kind: type[DataTable[Any]], auto: bool = False) -> None:
        super().__init__()
        self.kind = kind
        self.auto = auto

    def compose(self) -> ComposeResult:
        yield self.kind(zebra_stripes=True, cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column(Text("Payment", style="bold"), width=14, key="id")
        table.add_column("Status", width=None if self.auto else 6, key="status")
        table.add_column(Text("Amount", justify="right"), width=9, key="amount")
        for index, row in enumerate(_cells()):
            if index != 7:  # one line high: the rows every table here holds
                table.add_row(*row, key=f"r{index}")


@pytest.mark.parametrize("auto", [False, True], ids=["widths-set", "an-auto-width-column"])
async def test_rows_are_measured_only_when_a_measure_is_read(
    auto: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every width set, Textual measures each new cell and nothing reads the measures:
    `FastTable` skips them and sizes and draws the table the same; an auto-width column (or a
    row label, or an auto height) still has its cells measured, as Textual does."""
    import textual.widgets._data_table as data_table

    drawn: dict[type[DataTable[Any]], tuple[Any, ...]] = {}
    for kind in (FastTable, DataTable):
        measured: list[object] = []
        original = data_table.measure

        def counting(
            console: Any, renderable: Any, *args: Any, _o: Any = original, _m: Any = measured
        ) -> int:
            _m.append(renderable)
            return int(_o(console, renderable, *args))

        app = Fixed(kind, auto)
        async with app.run_test(size=(60, 16)) as pilot:
            monkeypatch.setattr(data_table, "measure", counting)
            await pilot.pause()
            table = app.query_one(DataTable)
            table.add_row(Text("pay_late"), Text("failed"), Text("1.00 EUR"), key="late")
            await pilot.pause()
            monkeypatch.setattr(data_table, "measure", original)
            widths = [column.get_render_width(table) for column in table.ordered_columns]
            drawn[kind] = (table.virtual_size, widths, _lines(table), len(measured))
    fast, textual = drawn[FastTable], drawn[DataTable]
    assert fast[:3] == textual[:3]
    assert textual[3] >= 3  # Textual measured the late row's cells...
    assert fast[3] == (textual[3] if auto else 0)  # ...FastTable only when one is read
