"""`?`: every key that works on the screen below, with what it does."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Static

from payscope.views.line_table import LineTable


class KeyHelpScreen(ModalScreen[None]):
    """A table of the active bindings of the screen it was opened from."""

    DEFAULT_CSS = """
    KeyHelpScreen { align: center middle; }
    KeyHelpScreen > Vertical {
        width: 90; max-width: 95%; height: auto; max-height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    KeyHelpScreen DataTable { height: auto; max-height: 30; }
    KeyHelpScreen #help-hint { color: $text-muted; padding: 0 0 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close", id="help.close", tooltip="Close"),
    ]

    def __init__(self, below: Screen[Any]) -> None:
        super().__init__()
        self.below = below

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Keys"
            yield DataTable(cursor_type="row", zebra_stripes=True, id="help-table")
            yield Static(
                "Command mode (:) — payments · events · requests · settings · customers · refunds "
                "· disputes · pay <id> · cus <id> · ref <id> · dp <id> · evt <id> · theme <name> · "
                "quit.  Tab completes.",
                id="help-hint",
            )

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("Key", width=12, key="key")
        table.add_column("Action", width=16, key="action")
        # The last column takes the box's width left and long texts wrap (rows grow to fit), so
        # nothing hides behind a sideways scroll. Box: 90 or 95% of the screen, less its border
        # and padding (4), the table's scrollbar (2) and each column's cell padding (2 apiece).
        box = min(90, self.app.size.width * 95 // 100)
        table.add_column("What it does", width=max(20, box - 4 - 2 - 14 - 18 - 2), key="tooltip")
        seen: set[tuple[str, str]] = set()
        for key, active in self.below.active_bindings.items():
            binding = active.binding
            # payscope's own keys all have an id (they can be remapped); Textual's widgets'
            # (a table's "Cursor left", "Page Left", the app's "super+c") have none: they are
            # the keys every table and text box has, not this screen's.
            # LineTable's moves carry ids (they can be remapped) but are the same keys.
            if (
                binding.system
                or binding.id is None
                or binding.id in LineTable.NAVIGATION_IDS
                or (key, binding.action) in seen
            ):
                continue
            seen.add((key, binding.action))
            table.add_row(
                Text(self.app.get_key_display(binding), style="bold"),
                Text(binding.description or binding.action),
                Text(binding.tooltip or ""),
                height=None,
            )
        # Keys an area reads itself (Sandbox's Trigger keys 1…0 and l).
        rows = getattr(self.below, "key_help_rows", None)
        for key, action, what in rows() if rows is not None else ():
            table.add_row(Text(key, style="bold"), Text(action), Text(what), height=None)
        table.focus()

    def action_close(self) -> None:
        self.dismiss(None)
