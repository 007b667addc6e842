"""The key footer, rebuilt only when the keys it shows change, and then in place."""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

# One key as the footer shows it: key, its display, description, action, enabled, tooltip.
Shown = tuple[str, str, str, str, bool, str]
# What the footer would show: each shown binding (a `Shown`, the binding's own tooltip and
# whether it is in no group), whether the palette's key shows, whether groups are combined.
Showing = tuple[tuple[tuple[str, str, str, str, bool, str, str | None, bool], ...], bool, bool]


class KeyFooter(Footer):
    """Textual's `Footer`, without its rebuilds that change nothing, and changing in place.

    `Footer` throws its keys away and builds them anew each time the screen's bindings are
    refreshed: on every focus change, every row the cursor moves to and every record that
    changes state, although the keys on offer stay the same most of the time. Each rebuild
    mounts and styles a dozen widgets (about 4 ms here). This one compares what it would show
    (each key, its label, whether it is enabled, its tooltip) with what it shows, and does
    nothing when they are the same. When they differ (another area, a record that can now be
    captured), the keys already mounted take the new labels and states, and only the extra
    keys are mounted or removed; the footer shown is the same as `Footer`'s. Binding groups
    and the command palette's key, which `Footer` lays out differently, are rebuilt as
    `Footer` does.
    """

    _shown: Showing | None = None

    def _keys_shown(self) -> Showing | None:
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
                binding.group is None,
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
                self._born_as_footer(widget)
            yield widget

    def _born_as_footer(self, key: FooterKey) -> None:
        key.set_reactive(FooterKey.compact, self.compact)
        key.set_class(self.compact, "-compact")

    async def recompose(self) -> None:
        shown = self._keys_shown()
        if shown is not None and shown == self._shown:
            return
        self._shown = shown
        if shown is not None and await self._changed_in_place(shown):
            return
        await super().recompose()

    async def _changed_in_place(self, shown: Showing) -> bool:
        """Give the mounted keys what `compose` would build now; False if it cannot be done
        in place (a binding group, the palette's key, anything but plain keys mounted)."""
        keys, show_palette, _ = shown
        mounted = [widget for widget in self.children if type(widget) is FooterKey]
        if (
            show_palette
            or len(mounted) != len(self.children)
            or not all(ungrouped for *_, ungrouped in keys)
        ):
            return False
        wanted: dict[str, Shown] = {}
        for key, display, description, action, enabled, tooltip, _, _ in keys:
            # `Footer` shows the first binding of each action.
            wanted.setdefault(action, (key, display, description, action, enabled, tooltip))
        targets = list(wanted.values())
        for widget, target in zip(mounted, targets, strict=False):
            _become(widget, target)
        self.styles.grid_size_columns = len(targets)
        if len(mounted) > len(targets):
            await self.remove_children(mounted[len(targets) :])
        elif len(targets) > len(mounted):
            added = [self._new_key(target) for target in targets[len(mounted) :]]
            await self.mount_all(added)
        return True

    def _new_key(self, target: Shown) -> FooterKey:
        key, display, description, action, enabled, tooltip = target
        widget = FooterKey(key, display, description, action, not enabled, tooltip)
        widget.data_bind(compact=Footer.compact)
        self._born_as_footer(widget)
        return widget


def _become(widget: FooterKey, target: Shown) -> None:
    """`widget` shows `target` as a `FooterKey` built for it would."""
    *texts, enabled, tooltip = target
    if [widget.key, widget.key_display, widget.description, widget.action] != texts:
        widget.key, widget.key_display, widget.description, widget.action = texts
        widget.refresh(layout=True)  # another label: another width
    widget._disabled = not enabled
    widget.set_class(not enabled, "-disabled")
    widget.tooltip = tooltip or None


def key_width(key: FooterKey, container: Size, viewport: Size) -> int:
    """`Widget.get_content_width` of a footer key, from its texts and paddings.

    Textual measures a key by building and styling its whole label (`FooterKey.render`: two
    component styles and the key's own, each combining its ancestors'), and the width is asked
    again on every layout after the key was refreshed: 15% of the layout time of the TUI's
    tests. The label is its key and description padded as the component styles say, on one
    line, so its width is their cells' count; `tests/tui/test_footer.py` compares it with
    Textual's in every theme, compact or not, for each key the areas show.
    """
    cache_key = container.width
    cached_key, cached_width = key._content_width_cache
    if cached_key == cache_key:
        return cached_width
    plain = key.key_display
    if key.description:
        key_padding = key.get_component_styles("footer-key--key").padding
        description_padding = key.get_component_styles("footer-key--description").padding
        plain = (
            f"{' ' * key_padding.left}{plain}{' ' * key_padding.right}"
            f"{' ' * description_padding.left}{key.description}{' ' * description_padding.right}"
        )
    width = max(cell_len(line) for line in plain.split("\n"))
    line_pad: int = key.styles.get_rule("line_pad", 0)  # type: ignore[assignment]
    width += line_pad * 2
    if key.expand:
        width = max(container.width, width)
    if key.shrink:
        width = min(width, container.width)
    key._content_width_cache = (cache_key, width)
    return width


TEXTUAL_KEY_WIDTH = Widget.get_content_width
FooterKey.get_content_width = key_width  # type: ignore[method-assign,assignment]
