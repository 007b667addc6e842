"""Text that comes from a service is data: never markup, never terminal control sequences.

A payment description `[b]x[/b]\x1b[5m` must be shown as those characters. Rich would read the
brackets as markup, and a raw ESC would reach the terminal (it is shown as `\\x1b`). Every cell
and field renderer goes through `safe` (a `Text`, for tables and grids) or `safe_markup` (a
string to splice into markup).
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.text import Text

from payscope.api.terminal import safe_text


def visible(value: Any, *, multiline: bool = False) -> str:
    """`value` as a string whose control and bidi characters are shown escaped, not obeyed
    (ESC -> `\\x1b`, U+202E -> `\\u202e`): `payscope.api.terminal.safe_text`, the one neutraliser
    for text from outside. Newline and tab stay only with `multiline`."""
    return safe_text(value, one_line=not multiline)


def safe(value: Any, style: str = "", *, multiline: bool = False, empty: str = "-") -> Text:
    """A `Text` of service data: shown literally (no markup, no emoji codes, no escapes)."""
    if value is None or value == "":
        return Text(empty, style=style or "dim", end="")
    text = visible(value, multiline=multiline)
    if multiline:
        return Text(text, style=style, end="")
    # On one line, a value cut by its column or box ends in "…", never cut without a mark.
    return Text(text, style=style, no_wrap=True, overflow="ellipsis", end="")


def safe_markup(value: Any, *, multiline: bool = False) -> str:
    """Service data to splice into a markup string: escaped and made visible."""
    return escape(visible(value, multiline=multiline))
