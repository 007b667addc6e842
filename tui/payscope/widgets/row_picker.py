"""A modal table to pick one row from (the test-card picker, a method's test values): Enter or
a click chooses, Esc closes without choosing, and the highlighted row's whole text shows under
the table (a column shows its start, or nothing at all in a narrow terminal)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static


class RowPicker(ModalScreen[Any]):
    """Rows keyed by `items`' keys; dismissed with the chosen item, or None."""

    DETAIL_ID = "picker-detail"  # the Static under the table that `described` fills

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[str, Any] = {}

    def described(self, item: Any) -> Text:
        """The highlighted item, whole, under the table."""
        return Text(str(item))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_choose(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        self.dismiss(self.items.get(str(key)))

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        item = self.items.get(str(event.row_key.value))
        detail = self.query_one(f"#{self.DETAIL_ID}", Static)
        detail.update("" if item is None else self.described(item))

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.dismiss(self.items.get(str(event.row_key.value)))
