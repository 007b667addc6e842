"""`LineTable` (tui/payscope/views/line_table.py): payscope's own table, drawn a line at a time,
with the public surface of `ResourceTable` and its look, cell for cell."""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.strip import Strip

from payscope.views.columns import CellContext, Column
from payscope.views.line_table import LineTable
from payscope.views.table import ResourceTable

STATES = ("ok", "failed", "held")
COLOURS = ("green", "red", "yellow")

COLUMNS = [
    Column[str]("name", "Name", 12, lambda record, _context: Text(record)),
    Column[str](
        "state",
        "State",
        9,
        lambda record, _context: Text(STATES[len(record) % 3], style=COLOURS[len(record) % 3]),
    ),
    Column[str](
        "size", "Size", 6, lambda record, _context: Text(str(len(record)), justify="right")
    ),
]


def _context() -> CellContext:
    return CellContext({})


class Tables(App[None]):
    """A LineTable, and beside it (hidden unless asked) the DataTable-based table it replaces."""

    # As the app styles its DataTables' header (tui/payscope/app/app.py).
    CSS = """
    ResourceTable, LineTable { height: 1fr; }
    DataTable > .datatable--header { text-style: bold; color: $text-muted; }
    """

    def __init__(self, *, both: bool = False) -> None:
        super().__init__()
        self.both = both
        self.opened: list[str] = []
        self.highlighted: list[str | None] = []
        self.tops = 0

    def compose(self) -> ComposeResult:
        yield LineTable(COLUMNS, lambda record: record, _context, id="line")
        if self.both:
            yield ResourceTable(COLUMNS, lambda record: record, _context, id="data")

    @on(ResourceTable.Open)
    def _open(self, event: ResourceTable.Open) -> None:
        self.opened.append(event.record_id)

    @on(ResourceTable.Top)
    def _top(self) -> None:
        self.tops += 1

    @on(LineTable.RowHighlighted)
    def _highlighted(self, event: LineTable.RowHighlighted) -> None:
        self.highlighted.append(event.record_id)


def _names(count: int) -> list[str]:
    return [f"rec_{n:03d}" + "x" * (n % 3) for n in range(count)]


def _look(strip: Strip) -> list[Segment]:
    """A line as it looks: its text and styles, without the segments' metadata."""
    plain = [Segment(s.text, s.style.clear_meta_and_links() if s.style else Style()) for s in strip]
    return list(Segment.simplify(plain))


async def test_it_looks_as_the_datatable_it_replaces_focused_and_not() -> None:
    app = Tables(both=True)
    async with app.run_test(size=(60, 30)) as pilot:
        line = app.query_one(LineTable)
        data = app.query_one(ResourceTable)
        for table in (line, data):
            table.fit_to(40)
            table.show(_names(10))
            table.move_cursor(row=2)
        # The header, ten rows (the cursor on the third) and a blank line, of each table
        # focused, then of both without focus.
        looks: dict[str, list[list[Segment]]] = {}
        for name, table in (("line", line), ("data", data)):
            table.focus()
            await pilot.pause()
            looks[f"{name} focused"] = [_look(table.render_line(y)) for y in range(12)]
        app.set_focus(None)
        await pilot.pause()
        for name, table in (("line", line), ("data", data)):
            looks[name] = [_look(table.render_line(y)) for y in range(12)]
        assert looks["line focused"] == looks["data focused"]
        assert looks["line"] == looks["data"]
        assert looks["line focused"][3] != looks["line"][3]  # the cursor follows focus
        assert line.render_line(3).text.split() == ["rec_002xx", "ok", "9"]


async def test_the_keys_move_the_cursor_and_keep_it_in_sight() -> None:
    app = Tables()
    async with app.run_test(size=(40, 12)) as pilot:  # the header and 11 rows in sight
        table = app.query_one(LineTable)
        table.fit_to(38)
        table.show(_names(100))
        table.focus()
        await pilot.pause()
        assert table.selected_id() == "rec_000"
        await pilot.press("down", "down")
        assert table.cursor_row == 2 and table.selected_id() == "rec_002xx"
        await pilot.press("up")
        assert table.cursor_row == 1
        await pilot.press("pagedown")
        assert table.cursor_row == 12
        await pilot.pause()
        assert table.scroll_offset.y <= 12 < table.scroll_offset.y + 11
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == 99 and table.scroll_offset.y == table.max_scroll_y
        # The last row is drawn on the last line.
        assert table.render_line(11).text.split()[0] == "rec_099"
        await pilot.press("pageup")
        assert table.cursor_row == 88
        await pilot.press("home")
        await pilot.pause()
        assert table.cursor_row == 0 and table.scroll_offset.y == 0 and app.tops == 1
        await pilot.press("up")  # nowhere above the first row
        assert table.cursor_row == 0
        assert "rec_002xx" in app.highlighted and app.highlighted[-1] == "rec_000"


async def test_enter_and_a_click_on_the_selected_row_open_its_record() -> None:
    app = Tables()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(LineTable)
        table.fit_to(38)
        table.show(_names(5))
        table.focus()
        await pilot.press("down", "enter")
        assert app.opened == ["rec_001x"]
        await pilot.click(LineTable, offset=(3, 4))  # the fourth row: selected, not opened
        assert table.selected_id() == "rec_003" and app.opened == ["rec_001x"]
        await pilot.click(LineTable, offset=(3, 4))  # again: opened
        assert app.opened == ["rec_001x", "rec_003"]
        await pilot.click(LineTable, offset=(3, 0))  # the header: nothing
        await pilot.click(LineTable, offset=(3, 9))  # below the rows: nothing
        assert table.selected_id() == "rec_003" and app.opened == ["rec_001x", "rec_003"]


async def test_live_rows_on_top_keep_the_cursor_on_its_record_within_a_bounded_window() -> None:
    app = Tables()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(LineTable)
        table.fit_to(38)
        table.show([str(n) for n in range(100, 80, -1)])
        table.move_cursor(row=3)
        before = table.rows_touched
        dropped = table.put_on_top([str(n) for n in range(110, 100, -1)], limit=25, slack=0)
        assert table.rows_touched - before == 10  # the new rows, not the window
        assert dropped == [str(n) for n in range(85, 80, -1)]
        assert table.row_count == 25 and next(iter(table.records)) == "110"
        assert table.selected_id() == "97"  # the cursor stayed on its record
        table.move_cursor(row=0)
        table.put_on_top(["111"], limit=25, slack=0)
        assert table.selected_id() == "111"  # at the top, it follows the newest
        await pilot.pause()
        assert table.render_line(1).text.split()[0] == "111"
        # Rows already shown are updated in place, not added again.
        table.put_on_top(["111"], limit=25)
        assert table.row_count == 25
        assert table.trim(20, from_top=False) == [str(n) for n in range(91, 86, -1)]
        table.drop("111")
        assert table.selected_id() == "110" and "111" not in table.records


def _named(app: Tables, names: list[str]) -> tuple[LineTable[str], dict[str, Any]]:
    """The app's table showing `names` in one column, each name followed by `state["suffix"]`
    (changed by the test to change how the records draw)."""
    state: dict[str, Any] = {"suffix": ""}
    columns = [Column[str]("name", "Name", 12, lambda r, _c: Text(r + state["suffix"]))]
    table: LineTable[str] = app.query_one(LineTable)
    table.spec = tuple(columns)
    table.fit_to(38)
    table.show(names)
    return table, state


async def test_a_changed_record_is_drawn_again_and_an_unchanged_one_is_not() -> None:
    app = Tables()
    async with app.run_test(size=(40, 12)) as pilot:
        table, state = _named(app, ["a", "b"])
        await pilot.pause()
        assert table.update("a") and table.render_line(1).text.split() == ["a"]
        state["suffix"] = "!"
        assert table.update("b") and not table.update("zzz")
        await pilot.pause()
        assert [table.render_line(y).text.split() for y in (1, 2)] == [["a"], ["b!"]]
        table.show(["b", "a"])  # the order changes: each row drawn where it now is
        await pilot.pause()
        assert [table.render_line(y).text.split() for y in (1, 2)] == [["b!"], ["a!"]]


async def test_focus_going_and_back_draws_no_row_again_but_a_change_meanwhile_shows() -> None:
    app = Tables()
    async with app.run_test(size=(40, 12)) as pilot:
        table, state = _named(app, ["a", "b", "c"])
        table.focus()
        await pilot.pause()
        focused = [table.render_line(y) for y in range(4)]
        app.set_focus(None)
        await pilot.pause()
        blurred = [table.render_line(y) for y in range(4)]
        assert [_look(s) for s in blurred] != [_look(s) for s in focused]  # the tint, the cursor
        state["suffix"] = "!"
        assert table.update("b")  # changed while the table has no focus
        table.focus()
        await pilot.pause()
        again = [table.render_line(y) for y in range(4)]
        # The header and the unchanged rows are the very lines drawn when it had the focus...
        assert [again[y] is focused[y] for y in (0, 1, 3)] == [True, True, True]
        # ...the changed one is drawn anew, in the focused look.
        assert again[2].text.split() == ["b!"]
        assert _look(again[2])[0].style == _look(focused[2])[0].style
        # Another theme is another look: every line drawn in it.
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        themed = [table.render_line(y) for y in range(4)]
        assert [_look(s) for s in themed] != [_look(s) for s in again]
        assert [s.text.split() for s in themed[1:]] == [["a"], ["b!"], ["c"]]


async def test_the_columns_fit_the_width_and_a_long_value_ends_in_an_ellipsis() -> None:
    app = Tables()
    async with app.run_test(size=(60, 10)) as pilot:
        table = app.query_one(LineTable)
        table.show(["pay_RealShape0000000001"])
        assert table.selected_id() is None  # no columns yet: nothing under the cursor
        assert table.fit_to(40) and not table.fit_to(40)
        await pilot.pause()
        assert table.render_line(0).text.split() == ["Name", "State", "Size"]
        assert table.render_line(1).text.split()[0] == "pay_RealSha…"
        assert table.selected_id() == "pay_RealShape0000000001"
