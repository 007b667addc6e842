"""Areas whose screens are not built yet say so plainly, and what to use meanwhile."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from tui.views.area import AreaView
from tui.views.areas import Area


class PlaceholderView(AreaView):
    """A calm, explicit 'not here yet' for an area."""

    DEFAULT_CSS = """
    PlaceholderView { align: center middle; }
    PlaceholderView > #placeholder-box {
        width: 64; height: auto; max-width: 90%; padding: 1 2;
        border: round $foreground 25%; background: $surface;
    }
    """

    can_focus = True

    def __init__(self, area: Area, *, id: str) -> None:
        super().__init__(id=id)
        self.area = area

    def compose(self) -> ComposeResult:
        yield Static(
            f"[b]{self.area.title}[/b]\n\n"
            f"{self.area.description}.\n\n"
            "This screen is not built yet: the second TUI release fills it. "
            "The sandbox already serves this area, so `payscope sandbox` and curl reach it, "
            "and its webhooks appear under [b]Events[/b].\n\n"
            "[dim]:payments  :events  :requests  :settings[/dim]",
            id="placeholder-box",
        )
