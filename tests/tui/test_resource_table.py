"""`ResourceTable` (tui/payscope/views/table.py) with records shown before its columns are laid out:
an area built and given its data in the same refresh (`:sandbox` opened by a Trigger command as
the client answers) shows them once it lays its columns out, instead of failing there."""

from __future__ import annotations

from textual.app import App, ComposeResult

from payscope.views.columns import CellContext, Column
from payscope.views.table import ResourceTable

COLUMNS = [
    Column[str]("name", "Name", 12, lambda record, _context: record),
    Column[str]("size", "Size", 6, lambda record, _context: str(len(record))),
]


class Table(App[None]):
    def compose(self) -> ComposeResult:
        yield ResourceTable(COLUMNS, lambda record: record, lambda: CellContext({}))


async def test_records_shown_before_the_columns_are_laid_out_appear_with_them() -> None:
    app = Table()
    async with app.run_test(size=(60, 10)) as pilot:
        table = app.query_one(ResourceTable)
        table.show(["alpha", "beta"])  # no columns yet: rows without cells
        assert table.selected_id() is None  # nothing under the cursor, no CellDoesNotExist
        assert table.fit_to(40)
        await pilot.pause()
        assert len(table.columns) == 2 and table.row_count == 2
        assert table.selected_id() == "alpha"
        assert [str(cell) for cell in table.get_row("beta")] == ["beta", "4"]


async def test_a_value_longer_than_its_column_ends_in_an_ellipsis() -> None:
    """Issue 33.2: two ids that differ past the column's edge never look the same."""
    app = Table()
    async with app.run_test(size=(60, 10)) as pilot:
        table = app.query_one(ResourceTable)
        table.fit_to(40)
        table.show(["pay_RealShape0000000001", "pay_RealShape0000000002", "short"])
        await pilot.pause()
        lines = [table.render_line(y).text for y in range(1, 4)]
        assert lines[0].split()[0] == "pay_RealSha…" and lines[1].split()[0] == "pay_RealSha…"
        assert lines[2].split()[0] == "short"  # what fits is not marked
        assert str(table.get_row("short")[0]) == "short"
