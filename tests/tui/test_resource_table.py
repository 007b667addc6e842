"""`ResourceTable` (tui/views/table.py) with records shown before its columns are laid out:
an area built and given its data in the same refresh (`:sandbox` opened by a Trigger command as
the client answers) shows them once it lays its columns out, instead of failing there."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tui.views.columns import CellContext, Column
from tui.views.table import ResourceTable

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
