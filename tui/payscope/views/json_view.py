"""JSON on screen, one way everywhere (a detail's raw JSON, a webhook's raw body and its JSON,
a request's bodies): long lines wrap where JSON and URLs allow a break (after `,` `:` `{` `[`
`/` `&` `?` `=` and at spaces), never inside a word such as a key or an id; a line goes on
indented as it began. Only a run with no break in it wider than the screen (a 64-character id
in a narrow pane) is folded, as a last resort.

    json_view({"payment_id": "pay_1", ...})        # pretty-printed and highlighted
    json_view(raw_text, exact=True)                # the text as it is (a signed body)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.highlighter import JSONHighlighter
from rich.measure import Measurement
from rich.text import Text

from payscope.api.terminal import safe_json
from payscope.core import bounded
from payscope.widgets.text import safe

_HIGHLIGHT = JSONHighlighter()

# A break may follow one of these (or come at a space): JSON's punctuation and a URL's. A
# comma or colon only between JSON's items (not inside a time such as 12:00:10 or a number).
_BREAK_AFTER = re.compile(r"[,:](?=[\s\"{\[])|[;{}\[\]()/&?=|]|\s")
# Continuation lines are indented as their line began, up to this share of the width.
_INDENT_SHARE = 0.5


class WrappedText:
    """A `Text` whose long lines wrap at punctuation and spaces (see the module)."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(options.max_width, 1)
        lines: list[Text] = []
        for line in self.text.split("\n", allow_blank=True):
            lines.extend(wrap_line(line, width))
        shown = Text("\n").join(lines)
        shown.no_wrap = True
        shown.overflow = "fold"
        shown.end = "\n"
        yield shown

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max((line.cell_len for line in self.text.split("\n")), default=0)
        return Measurement(min(widest, 1), min(widest, options.max_width))


def wrap_line(line: Text, width: int) -> list[Text]:
    """One line as lines of at most `width` cells, broken after punctuation or at spaces."""
    if line.cell_len <= width:
        return [line]
    plain = line.plain
    offsets = [m.end() for m in _BREAK_AFTER.finditer(plain) if m.end() < len(plain)]
    pieces = list(line.divide(offsets))
    lead = len(plain) - len(plain.lstrip(" "))
    indent = min(lead, int(width * _INDENT_SHARE))
    out: list[Text] = []
    current = Text()
    for piece in pieces:
        if current.cell_len + piece.cell_len <= width:
            current.append_text(piece)
            continue
        if current.plain.strip():
            out.append(current)
            current = Text(" " * indent)
            piece = _lstrip(piece)
        for chunk in _fold(piece, width - current.cell_len, width - indent):
            if current.cell_len + chunk.cell_len > width and current.plain.strip():
                out.append(current)
                current = Text(" " * indent)
            current.append_text(chunk)
    if current.plain.strip() or not out:
        out.append(current)
    return out


def _lstrip(piece: Text) -> Text:
    """A piece without the spaces it starts with (they ended the line before)."""
    plain = piece.plain
    gone = len(plain) - len(plain.lstrip(" "))
    return piece[gone:] if gone else piece


def _fold(piece: Text, first: int, rest: int) -> Iterable[Text]:
    """A piece with no break in it cut into runs that fit: `first` cells, then `rest`."""
    start, room = 0, max(first, 1)
    plain = piece.plain
    while start < len(plain):
        end = start
        used = 0
        while end < len(plain) and used + cell_len(plain[end]) <= room:
            used += cell_len(plain[end])
            end += 1
        end = max(end, start + 1)
        yield piece[start:end]
        start, room = end, max(rest, 1)


def json_view(value: Any, *, exact: bool = False) -> WrappedText:
    """JSON for the screen: `value` (an object, or JSON text) pretty-printed and highlighted,
    or with `exact` the text as it is (a signed raw body: not one byte reformatted). Either way
    no control or bidi character reaches the terminal (`payscope.api.terminal`): in JSON they are
    its escapes (`\\u001b`, `\\u202e`), in exact text `\\x1b`. Text that is not JSON (or nests
    deeper than payscope reads) is shown as it is."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if exact:
        return WrappedText(safe(value, multiline=True))
    try:
        data = bounded.loads_json(value) if isinstance(value, str) else value
        text = safe_json(data, indent=2)
    except (ValueError, TypeError, RecursionError):
        return WrappedText(safe(value if isinstance(value, str) else repr(value), multiline=True))
    shown = _HIGHLIGHT(text)
    shown.no_wrap = True
    shown.overflow = None
    return WrappedText(shown)


def value_view(value: Any) -> Text | WrappedText:
    """One value of a record's metadata or settings: text as it is, anything else as compact
    JSON that wraps at its punctuation."""
    if isinstance(value, str):
        return safe(value, multiline=True)
    return WrappedText(safe(safe_json(value), multiline=True))
