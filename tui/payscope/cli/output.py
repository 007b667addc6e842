"""What the command line's new commands print: text from outside made safe for a terminal
(`neutralise`, through payscope's one neutraliser), and JSON answers, pretty and coloured on a
terminal, compact when piped.

Standard library only (and `payscope.api.terminal`, which is too): this is on the path of
`payscope --help` and of shell completion.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any, TextIO

from payscope.api.terminal import safe_json, safe_text


def neutralise(text: str) -> str:
    """`text` safe for one terminal line: payscope's one neutraliser (`payscope.api.terminal`),
    newlines and tabs escaped too."""
    return safe_text(text, one_line=True)


def wants_colour(stream: TextIO) -> bool:
    """Colour on a terminal, unless NO_COLOR is set (https://no-color.org) or TERM is dumb."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


_RESET = "\x1b[0m"
_KEY, _STRING, _NUMBER, _LITERAL = "\x1b[34;1m", "\x1b[32m", "\x1b[36m", "\x1b[35m"
# A JSON text's tokens: a string (then a key when a colon follows), a number, a literal.
_TOKEN = re.compile(
    r'(?P<string>"(?:[^"\\]|\\.)*")(?P<colon>\s*:)?'
    r"|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
    r"|(?P<literal>true|false|null)"
)


def _colour(text: str) -> str:
    def paint(match: re.Match[str]) -> str:
        if match.group("string") is not None:
            colour = _KEY if match.group("colon") else _STRING
            return f"{colour}{match.group('string')}{_RESET}{match.group('colon') or ''}"
        colour = _NUMBER if match.group("number") is not None else _LITERAL
        return f"{colour}{match.group(0)}{_RESET}"

    return _TOKEN.sub(paint, text)


def json_text(value: Any, *, pretty: bool, colour: bool = False) -> str:
    """`value` as JSON for a terminal or a pipe: pretty (indented, optionally coloured) or
    compact, neutralised either way (`safe_json`: the escapes read back as the same value)."""
    if pretty:
        text = safe_json(value, indent=2)
        return "\n".join(_colour(line) if colour else line for line in text.split("\n"))
    return safe_json(value, separators=(",", ":"))


def print_json(value: Any, stream: TextIO | None = None) -> None:
    """`value` on `stream` (standard output): pretty and coloured on a terminal, else compact."""
    out = stream or sys.stdout
    tty = bool(getattr(out, "isatty", None) and out.isatty())
    print(json_text(value, pretty=tty, colour=tty and wants_colour(out)), file=out, flush=True)


def fail(command: str, message: str, status: int = 1) -> int:
    """Say `message` on standard error as `payscope COMMAND: ...`, each of its lines
    neutralised (an error quotes the service); returns `status`."""
    text = "\n".join(neutralise(line) for line in message.split("\n"))
    print(f"payscope {command}: {text}", file=sys.stderr, flush=True)
    return status


def pipe_closed() -> int:
    """After a `BrokenPipeError` (the reader went, e.g. `| head`): standard output goes to
    /dev/null, so that Python's last flush says nothing either; exit status 0."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 0


class StartProgress:
    """What a command says while its client starts (the local sandbox starting, a first run's
    seeding) on standard error, when that is a terminal: a line a step, a progress kept up to
    date on one line; `finish()` ends that line once the client is up."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.shown = sys.stderr.isatty()
        self._open = False
        self._last = ""

    def __call__(self, text: str, fraction: float | None) -> None:
        if not self.shown or text == self._last:
            return
        self._last = text
        err = sys.stderr
        if fraction is not None and text:
            err.write(f"\rpayscope {self.command}: {neutralise(text)}\x1b[K")
            self._open = True
        else:
            self.finish()
            if text:
                err.write(f"payscope {self.command}: {neutralise(text)}\n")
        err.flush()

    def finish(self) -> None:
        if self._open:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self._open = False
