"""Text from outside, made safe for a terminal: the one neutraliser payscope prints through.

Anything payscope did not write itself (a remote's error message, a webhook's body, a fixture's
name, a header, a file's contents, an exception that quotes any of them) may hold bytes a
terminal obeys: ESC starts a sequence that can set the clipboard (`ESC ]52;c;…BEL`) or clear
the screen (`ESC [2J`), U+009B and U+009D are the same as one-character C1 controls, and a
bidirectional override (U+202E) reorders what the rest of a line says. Each is shown escaped
instead, as Python writes it (`\\x1b`, `\\x9b`, `\\u202e`), so the text still says what came:

    safe_text("boom \\x1b]52;c;aGk=\\x07")    # 'boom \\\\x1b]52;c;aGk=\\\\x07'
    safe_json({"m": "\\x9b2J"})               # '{"m": "\\\\u009b2J"}' (still valid JSON)
    say(f"payscope export: {exc}", file=sys.stderr)

The headless commands print through `say` (or `safe_text` / `safe_json`), the TUI's cells and
JSON views through `payscope.widgets.text` and `payscope.views.json_view`, which use these. No
Textual
here: the CLI and every layer can import it.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, TextIO

__all__ = ["UNSAFE", "UNSAFE_ONE_LINE", "safe_json", "safe_text", "say"]

# What a terminal would obey, or what hides or reorders a line: the C0 controls but tab and
# newline, DEL, the C1 controls (U+0080-U+009F), the bidirectional embeddings, overrides and
# isolates (and the marks), zero-width characters and the byte-order mark, the line and
# paragraph separators, the tag characters, and lone surrogates (which no terminal encoding
# can even write).
_HIDDEN = "\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff\U000e0000-\U000e007f"
UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_HIDDEN}]")
# On one line (a log line, a table cell) tab and newline are escaped too.
UNSAFE_ONE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_HIDDEN}]")
# In JSON text: what json.dumps(ensure_ascii=False) leaves raw (it escapes C0 itself).
_UNSAFE_IN_JSON = re.compile(f"[\x7f-\x9f{_HIDDEN}]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x09:
        return "\\t"
    if code == 0x0A:
        return "\\n"
    if code == 0x0D:
        return "\\r"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _json_escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # beyond the BMP, JSON's escape is the surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def safe_text(value: Any, *, one_line: bool = False) -> str:
    """`value` as text a terminal shows and never obeys: every unsafe character (`UNSAFE`)
    written as its escape (`\\x1b`, `\\u202e`). Newline and tab stay, unless `one_line`."""
    text = "" if value is None else str(value)
    pattern = UNSAFE_ONE_LINE if one_line else UNSAFE
    return pattern.sub(_escaped, text)


def safe_json(value: Any, **dumps: Any) -> str:
    """`json.dumps(value, **dumps)` (ensure_ascii off unless asked) with no raw unsafe
    character: C0 controls are JSON's own `\\u001b` escapes, and C1 controls, bidi controls and
    lone surrogates are written as `\\u009b`, `\\u202e` too. It reads back as the same value."""
    dumps.setdefault("ensure_ascii", False)
    text = json.dumps(value, **dumps)
    return _UNSAFE_IN_JSON.sub(_json_escaped, text)


def say(
    *values: Any,
    sep: str = " ",
    end: str = "\n",
    file: TextIO | None = None,
    flush: bool = False,
    one_line: bool = False,
) -> None:
    """`print`, with every value made safe (`safe_text`) first. `end` is payscope's own."""
    text = sep.join(safe_text(value, one_line=one_line) for value in values)
    print(text, end=end, file=sys.stdout if file is None else file, flush=flush)
