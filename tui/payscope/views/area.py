"""`AreaView`: what every view in the main screen's switcher offers the shell.

The contract is declared here, so the main screen calls it directly (never by `getattr`):
focus, runtime ready, filter, back, open a record by id, palette commands. `app` and `runtime`
are typed for the views built on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from textual.app import SystemCommand
from textual.containers import Vertical
from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import Worker

from payscope.views.access import AppAccess

# The navigation rail's width (its border included): views size their tables by what is left.
NAV_WIDTH = 16
# Below this terminal width the rail hides itself (Ctrl+N shows it): the areas need the room,
# and command mode (:) reaches every area anyway. At 80 columns the rail's 16 were the
# Created column of Payments and the Time and Status of Events.
NAV_MIN_TERMINAL = 90


def nav_shown_at(width: int) -> bool:
    """Whether the rail shows by itself in a terminal `width` cells wide."""
    return width >= NAV_MIN_TERMINAL


def area_width(terminal_width: int) -> int:
    """The width left to an area in a terminal this wide, before the first layout."""
    return terminal_width - (NAV_WIDTH if nav_shown_at(terminal_width) else 0)


class TitleBar(Static):
    """The one-line bar on top of an area or a detail: title, counts, state."""

    DEFAULT_CSS = """
    TitleBar { height: 1; width: 1fr; padding: 0 1; background: $surface; color: $text; }
    """

    def update(self, content: VisualType = "", *, layout: bool = False) -> None:
        """Its size never depends on what it says (one line, the width it is given), so an
        update redraws the bar alone, without a layout of the screen (a live count changes
        several times a second)."""
        super().update(content, layout=layout)


class AreaView(AppAccess, Vertical):  # type: ignore[misc]
    """Base of the views in the main screen's switcher."""

    DEFAULT_CSS = """
    AreaView { height: 1fr; width: 1fr; }
    """

    # Whether `/` filters this area (the footer shows it only where it does).
    filterable: ClassVar[bool] = False

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
        elif empty:
            # Focus is given on the next turn: a view just shown may have asked it for `main`,
            # which is now hidden and so loses it.
            self.call_after_refresh(self._take_lost_focus)
        self.refresh_bindings()  # keys that act on a row may depend on there being rows

    def _take_lost_focus(self) -> None:
        if not (self.display and self.has_class("-empty")):
            return
        # Lost: nothing focused, or a widget no longer on screen (the hidden table, the last
        # area's table). A widget the user is on elsewhere (the rail, the prompt) keeps it.
        focused = self.screen.focused
        if focused is None or not focused.is_on_screen or self in focused.ancestors_with_self:
            self.focus()

    def focus_table(self, main: Widget) -> None:
        """`focus_main` for a view whose main widget is `main`: the view itself while empty."""
        (self if self.has_class("-empty") else main).focus()

    def runtime_ready(self) -> None:
        """The client, sandbox and listener are up: load data."""

    async def start_filter(self) -> None:
        """`/` in this area (only called where `filterable`)."""

    def back(self) -> None:
        """Esc in this area: clear a filter or leave an edit."""

    def open_record(self, record_id: str) -> None:
        """Open the record `record_id` of this area (`:pay <id>` and Enter land here)."""
        self.notify(f"{self.id} has no records to open.", severity="warning")

    def key_help_rows(self) -> Iterable[tuple[str, str, str]]:
        """Keys the area handles beyond its bindings, for `?`: (key, action, what it does)."""
        return ()

    def context_commands(self) -> Iterable[SystemCommand]:
        """Palette commands for what is selected here."""
        return ()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # Worker messages do not bubble: hand them to the app's one handler.
        self.app.on_worker_state_changed(event)
