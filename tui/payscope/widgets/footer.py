"""The key footer, rebuilt only when the keys it shows change (Textual's public API only)."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.reactive import Reactive
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
        widgets = list(super().compose())
        for widget in widgets:
            if getattr(widget, "action", None) == HELP_ACTION:
                widget.add_class("-help")
            if not self.compact:
                # A key starts compact and is then bound to the footer's own setting: as it
                # mounts, its style is worked out three times (made, made compact, made not),
                # for every key of every rebuild. Given the footer's setting before it mounts,
                # neither later step changes anything, and its style is worked out once.
                compact = getattr(type(widget), "compact", None)
                if isinstance(compact, Reactive):
                    widget.set_reactive(compact, False)
        dropped = self._left_out(widgets)
        for widget in widgets:
            if id(widget) not in dropped:
                yield widget

    def _room(self) -> int:
        width = self.size.width if self.is_attached and self.size.width else 0
        return width or (self.app.size.width if self.is_attached else 0)

    def _left_out(self, widgets: list[Any]) -> set[int]:
        """The keys left out so the rest show whole in the footer's width: the app's own keys
        (Quit, the palette...) go first, the last of them first, then the screen's, from the
        last; `?` always stays (it lists every key). Nothing goes while all fit."""
        room = self._room()
        if not room:
            return set()
        keys = [w for w in widgets if w.has_class("-help") or hasattr(w, "key_display")]
        if len(keys) != len(widgets):
            return set()  # grouped keys: left as Textual lays them out
        owners = {(binding.key, binding.action): node for (node, binding, _e, _t) in self._active()}

        def width(widget: Any) -> int:
            description = str(getattr(widget, "description", "") or "")
            return cell_len(str(widget.key_display)) + cell_len(description) + 3

        used = sum(width(w) for w in keys)
        candidates = [w for w in keys if not w.has_class("-help")]
        # Least important first: the app's keys, then the screen's, each from the last.
        order = sorted(
            range(len(candidates)),
            key=lambda i: (
                owners.get((candidates[i].key, candidates[i].action)) is not self.app,
                -i,
            ),
        )
        dropped: set[int] = set()
        for index in order:
            if used <= room:
                break
            widget = candidates[index]
            dropped.add(id(widget))
            used -= width(widget)
        return dropped

    def _active(self) -> list[tuple[Any, Any, Any, Any]]:
        try:
            return list(self.screen.active_bindings.values())
        except Exception:  # not on a screen yet
            return []

    def on_resize(self) -> None:
        # Which keys fit depends on the width: compare again (rebuilt only if that changed).
        if self._keys_ready:
            self.call_later(self.recompose)

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
        return (keys, palette, self.combine_groups, self._room())

    async def recompose(self) -> None:
        shown = self._keys_shown()
        if shown is not None and shown == self._shown:
            return
        self._shown = shown
        await super().recompose()
