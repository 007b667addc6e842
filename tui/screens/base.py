"""What every area view offers the shell: focus, filter, back, records by id, palette commands."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.app import SystemCommand
from textual.containers import Vertical
from textual.widget import Widget
from textual.worker import Worker

# The navigation rail's width (its border included): views size their tables by what is left.
NAV_WIDTH = 16
# Below this terminal width the rail hides itself (Ctrl+B shows it): the areas need the room,
# and command mode (:) reaches every area anyway.
NAV_MIN_TERMINAL = 72


def nav_shown_at(width: int) -> bool:
    """Whether the rail shows by itself in a terminal `width` cells wide."""
    return width >= NAV_MIN_TERMINAL


def flex_width(
    width: int,
    columns: tuple[tuple[str, str, int], ...],
    keys: tuple[str, ...],
    flex: str,
    bounds: tuple[int, int],
) -> int:
    """The width of the `flex` column in a table `width` cells wide showing the `keys` of
    `columns` ((key, label, width) each, plus two cells of padding): what is spare or short
    goes to or comes from it, within `bounds` (minimum, maximum)."""
    used = sum(w + 2 for key, _label, w in columns if key in keys)
    base = next(w for key, _label, w in columns if key == flex)
    low, high = bounds
    return max(low, min(high, base + width - used))


def area_width(terminal_width: int) -> int:
    """The width left to an area in a terminal this wide, before the first layout."""
    return terminal_width - (NAV_WIDTH if nav_shown_at(terminal_width) else 0)


class AreaView(Vertical):
    """Base of the views in the main screen's switcher."""

    DEFAULT_CSS = """
    AreaView { height: 1fr; width: 1fr; }
    AreaView > .view-title {
        height: 1; padding: 0 1; background: $surface; color: $text; text-style: bold;
    }
    """

    def focus_main(self) -> None:
        """Give focus to the widget people use first in this area."""
        self.focus()

    def show_empty(self, empty: bool, main: Widget) -> None:
        """Toggle the `-empty` state, in which the view hides `main` (its table) and says why.

        A hidden widget cannot hold focus, and without focus inside the view its keys (n on
        Payments, h on Events) would do nothing right when the empty state suggests them: so
        while empty, the view itself takes the focus `main` had.
        """
        if empty == self.has_class("-empty"):
            return
        had_focus = self.has_focus or main.has_focus
        self.set_class(empty, "-empty")
        self.can_focus = empty
        if had_focus:
            (self if empty else main).focus()
        self.refresh_bindings()  # keys that act on a row may depend on there being rows

    def focus_table(self, main: Widget) -> None:
        """`focus_main` for a view whose main widget is `main`: the view itself while empty."""
        (self if self.has_class("-empty") else main).focus()

    def runtime_ready(self) -> None:
        """The client, sandbox and listener are up: load data."""

    def back(self) -> None:
        """Esc in this area: clear a filter or leave an edit."""

    def context_commands(self) -> Iterable[SystemCommand]:
        """Palette commands for what is selected here."""
        return ()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # Worker messages do not bubble: hand them to the app's one handler.
        self.app.on_worker_state_changed(event)  # type: ignore[attr-defined]

    @property
    def runtime(self) -> Any:
        return self.app.runtime  # type: ignore[attr-defined]
