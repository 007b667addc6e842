"""Text that comes from a service is data: never markup, never terminal control sequences.

A payment description `[b]x[/b]\x1b[5m` must be shown as those characters. Rich would read the
brackets as markup, and a raw ESC would reach the terminal. Every cell and field renderer goes
through `safe` (a `Text`, for tables and grids) or `safe_markup` (a string to splice into markup).
"""

from __future__ import annotations

import re
from typing import Any

from rich.markup import escape
from rich.text import Text

# C0 and C1 control characters and DEL; tab and newline are kept only where asked.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROLS_ALL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Bidirectional overrides and isolates can reorder what the rest of a line says.
_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␛ for ESC, ␀ for NUL
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"\\x{code:02x}"


def visible(value: Any, *, multiline: bool = False) -> str:
    """`value` as a string whose control characters are shown, not obeyed (ESC -> ␛)."""
    text = "" if value is None else str(value)
    pattern = _CONTROLS if multiline else _CONTROLS_ALL
    text = pattern.sub(_visible, text)
    return _BIDI.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


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
