"""The test values of one payment method (a row of `GET /_sandbox/test-methods`) as a picker:
value, outcome, unified code, what it does; Enter chooses one. The test-card picker's
counterpart for wallets, debits, gift cards, UPI and the other methods with a test field."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from payscope.widgets.format import status_colour
from payscope.widgets.row_picker import RowPicker
from payscope.widgets.text import safe


def test_values(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The usable test values of a test-methods row, in its order."""
    found = row.get("test_values")
    if not isinstance(found, list):
        return []
    return [v for v in found if isinstance(v, dict) and str(v.get("value") or "")]


class TestValuePicker(RowPicker):
    """A modal table of one method's test values; dismissed with the chosen value or None."""

    __test__ = False

    DEFAULT_CSS = """
    TestValuePicker { align: center middle; }
    TestValuePicker > Vertical {
        width: 100; max-width: 98%; height: auto; max-height: 96%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    TestValuePicker #values-intro { color: $text-muted; height: auto; }
    TestValuePicker DataTable { height: auto; max-height: 16; }
    TestValuePicker #picker-detail {
        height: auto; max-height: 4; border-top: hkey $panel; color: $text;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="values.close", tooltip="Close without choosing"),
        Binding("enter", "choose", "Choose", id="values.choose", tooltip="Use this value"),
    ]

    def __init__(self, title: str, row: dict[str, Any]) -> None:
        super().__init__()
        self.title_text = title
        self.row = row
        self.items = {str(v["value"]): v for v in test_values(row)}

    def compose(self) -> ComposeResult:
        field = str(self.row.get("test_field") or "")
        with Vertical() as box:
            box.border_title = f"Test values · {self.title_text}"
            yield Static(
                Text.assemble(
                    "Each value of ",
                    safe(field, "bold"),
                    " gives a documented outcome. Enter fills the field.",
                ),
                id="values-intro",
            )
            table: DataTable[Any] = DataTable(cursor_type="row", id="values-table")
            table.add_column("Value", width=28, key="value")
            table.add_column("Outcome", width=10, key="outcome")
            table.add_column("Code", width=7, key="code")
            table.add_column("What it does", key="description")
            yield table
            yield Static(id="picker-detail")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for value, item in self.items.items():
            outcome = str(item.get("outcome") or "")
            status = "failed" if outcome == "failed" else "succeeded"
            table.add_row(
                safe(value),
                safe(outcome, status_colour(status, self.app.theme_variables)),
                safe(item.get("unified_code"), empty=""),
                safe(item.get("description")),
                key=value,
            )
        table.focus()

    def described(self, item: Any) -> Text:
        return Text.assemble(
            safe(str(item["value"]), "bold"),
            (" · ", "dim"),
            safe(item.get("description"), multiline=True),
        )
