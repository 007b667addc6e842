"""What the subcommands' parsers share: the help formatter, the option types (their messages are
the command line's contract), the connection options of the commands that use the service
without the TUI, and the help's examples epilog. Standard library only."""

from __future__ import annotations

import argparse
import textwrap
from typing import TYPE_CHECKING

from payscope.core.docs import see

if TYPE_CHECKING:
    from typing import TypeAlias

    Subparsers: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]


class Formatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=34, width=100)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more, got {value}")
    return value


def duration(text: str) -> float:
    """Seconds from "90", "90s", "30m", "12h" or "7d" (more than zero)."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    number, unit = (text[:-1], text[-1]) if text[-1:].lower() in units else (text, "s")
    try:
        value = float(number) * units[unit.lower()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a duration like 90s, 30m, 12h or 7d, got {text!r}"
        ) from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a duration above zero, got {text!r}")
    return value


def port(text: str) -> int:
    value = positive_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535, got {value}")
    return value


def _bounded(text: str, low: float, high: float, expected: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {value}")
    return value


def rate(text: str) -> float:
    return _bounded(text, 0.0, 1.0, "a number between 0 and 1")


def pace(text: str) -> float:
    return _bounded(
        text, 0.05, 100.0, "a pace from 0.05 to 100 (1.0 is as written, 2 is twice as fast)"
    )


def bind_options(parser: argparse.ArgumentParser, default_port: int) -> None:
    """--host (loopback by default) and --port of a command that serves."""
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=port, default=default_port, help=f"port (default {default_port})"
    )


def text(paragraph: str) -> str:
    """A description wrapped as the other commands' help is (the formatter keeps it as is)."""
    return textwrap.fill(paragraph, width=100)


def examples_epilog(examples: list[str], section: str) -> str:
    """The examples of a command's help, then where its docs are (docs/cli.md's `section`)."""
    lines = ["examples:", *(f"  {line}" for line in examples), "", see("cli", section)]
    return "\n".join(lines)


def add_connection_options(parser: argparse.ArgumentParser) -> None:
    """--profile, --read-only, --seed and --allow-production on a subcommand (they may also come
    before it: the defaults are suppressed so the main parser's values stay)."""
    parser.add_argument(
        "--profile",
        metavar="NAME",
        default=argparse.SUPPRESS,
        help="a configured profile (default: the local sandbox, started when it is not running)",
    )
    parser.add_argument(
        "--read-only",
        action="store_true",
        default=argparse.SUPPRESS,
        help="refuse every call that writes (a profile's read_only = true does the same)",
    )
    parser.add_argument(
        "--allow-production",
        action="store_true",
        default=argparse.SUPPRESS,
        help="accept a production (prd_) key",
    )
