"""A yes-or-no question over the screen (`y`/Enter yes, `n`/Esc no): for what needs the user's
word before it happens (a fixture's event to another host)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class AskScreen(ModalScreen[bool]):
    """`title`, then `question` (plain text, shown as it is), then yes and no."""

    DEFAULT_CSS = """
    AskScreen { align: center middle; }
    AskScreen > Vertical {
        width: 80; max-width: 96%; height: auto;
        border: round $warning; background: $surface; padding: 0 1;
    }
    AskScreen #ask-title { text-style: bold; padding: 0 0 1 0; }
    AskScreen Horizontal { height: auto; padding: 1 0 0 0; }
    AskScreen Button { margin: 0 1 0 0; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="ask.yes", tooltip="Yes: go ahead"),
        Binding("n,escape", "answer(False)", "No", id="ask.no", tooltip="No: nothing happens"),
    ]

    def __init__(self, title: str, question: str, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.title_text = title
        self.question = question
        self.yes, self.no = yes, no

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text), id="ask-title")
            yield Static(Text(self.question), id="ask-question")
            with Horizontal():
                yield Button(self.yes, variant="warning", id="ask-yes")
                yield Button(self.no, variant="primary", id="ask-no")

    def on_mount(self) -> None:
        self.query_one("#ask-no", Button).focus()  # the safe answer is the one Enter gives

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "ask-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
