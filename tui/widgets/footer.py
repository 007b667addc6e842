"""The key footer, rebuilt only when the keys it shows change."""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeyFooter(Footer):
    """Textual's `Footer`, without its rebuilds that change nothing.

    `Footer` throws its keys away and builds them anew each time the screen's bindings are
    refreshed: on every focus change, every row the cursor moves to and every record that
    changes state, although the keys on offer stay the same most of the time. Each rebuild
    mounts and styles a dozen widgets (about 4 ms here). This one compares what it would show
    (each key, its label, whether it is enabled, its tooltip) with what it shows, and rebuilds
    only when they differ; the shown footer is then the same as `Footer`'s.
    """

    _shown: Hashable | None = None

    def _keys_shown(self) -> Hashable | None:
        """What `compose` would show now (None: not known yet, so always rebuild)."""
        if not self._bindings_ready or not self.is_attached:
            return None
        app = self.app
        keys = tuple(
            (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                binding.action,
                enabled,
                tooltip,
                binding.tooltip,
                id(binding.group),
            )
            for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show
        )
        return (keys, self.show_command_palette, self.combine_groups)

    def compose(self) -> ComposeResult:
        # Each key is born compact and bound to the footer's `compact`, which a mounted key
        # then takes: two class changes, each restyling the key. Given the footer's value up
        # front, the key is styled once, as it stays.
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(self.compact, "-compact")
            yield widget

    async def recompose(self) -> None:
        shown = self._keys_shown()
        if shown is not None and shown == self._shown:
            return
        self._shown = shown
        await super().recompose()
