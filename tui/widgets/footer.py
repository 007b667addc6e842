"""The key footer, rebuilt only when the keys it shows change (Textual's public API only)."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

# What the footer would show: each shown binding (key, its display, description, action,
# enabled, tooltip, the binding's own tooltip, its group's description), whether the palette's
# key shows, whether groups are combined, and the palette's own binding when it shows.
Showing = tuple[Any, ...]

HELP_ACTION = "help"  # the app's `?`


class KeyFooter(Footer):
    """Textual's `Footer`, without its rebuilds that change nothing.

    `Footer` throws its keys away and builds them anew each time the screen's bindings are
    refreshed: on every focus change, every row the cursor moves to and every record that
    changes state, although the keys on offer stay the same most of the time. Each rebuild
    mounts and styles a dozen widgets. This one compares what it would show (each key, its
    label, whether it is enabled, its tooltip; from the screen's public `active_bindings`) with
    what it shows, and rebuilds through `Footer.recompose` only when they differ.
    """

    # `?` (every key of the screen) stays in sight at the right end, as Textual's footer keeps
    # its palette key: on a screen with many keys the keys after it were cut at the edge.
    DEFAULT_CSS = """
    KeyFooter FooterKey.-help { dock: right; }
    """

    _keys_ready = False  # the screen said its bindings once (before that, `Footer` shows none)

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if getattr(widget, "action", None) == HELP_ACTION:
                widget.add_class("-help")
            yield widget

    _shown: Showing | None = None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._keys_ready = True
        super().bindings_changed(screen)

    def _keys_shown(self) -> Showing | None:
        """What `compose` would show now (None: not known yet, so always rebuild)."""
        if not self._keys_ready or not self.is_attached:
            return None
        app = self.app
        active = self.screen.active_bindings
        keys = tuple(
            (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                binding.action,
                enabled,
                tooltip,
                binding.tooltip,
                None if binding.group is None else binding.group.description,
            )
            for (_, binding, enabled, tooltip) in active.values()
            if binding.show
        )
        palette = None
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            found = active.get(app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, tooltip = found
                palette = (binding.key, binding.description, enabled, tooltip, binding.tooltip)
        return (keys, palette, self.combine_groups)

    async def recompose(self) -> None:
        shown = self._keys_shown()
        if shown is not None and shown == self._shown:
            return
        self._shown = shown
        await super().recompose()
