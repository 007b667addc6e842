"""`payscope logs tail`: every request any payscope makes against the profile (the TUI, these
commands, fixtures, export), as it happens, from the profile's shared request log
(tui/payscope/api/request_log.py: every runtime's client appends to it). Lines, or `--format json`
one
object a line; `--status`, `--method` and `--path` filter; Ctrl+C ends it (exit 130).

The log holds what the client's journal kept, keys and card numbers already masked; what came
from the service (its messages) and the paths are neutralised before they are printed.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from payscope.cli.options import Formatter, examples_epilog, text

if TYPE_CHECKING:
    from payscope.cli.options import Subparsers

StatusTest = Callable[[int | None], bool]


# The subcommands this module parses and runs.
COMMANDS = ("logs",)
EXAMPLES = ["payscope logs tail --status 4xx --method POST --path /payments"]


def _status_filter(text: str) -> StatusTest:
    """`--status`'s value as the test it names (`matcher` uses them as they are)."""
    try:
        return parse_status(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parser(subparsers: Subparsers) -> None:
    logs = subparsers.add_parser(
        "logs",
        epilog=examples_epilog(EXAMPLES, "logs-tail"),
        help="every request any payscope makes on the profile, as it happens",
        description=text(
            "tail: follow the profile's request log, one line per request any payscope "
            "makes against it (the TUI, these commands, fixtures, export), as it happens, keys "
            "redacted. Ctrl+C ends it."
        ),
        formatter_class=Formatter,
    )
    logs.add_argument("action", choices=["tail"], help="tail: follow the log")
    logs.add_argument(
        "--format", choices=["text", "json"], default="text", help="json: one object a line"
    )
    logs.add_argument(
        "--status",
        metavar="S",
        action="append",
        type=_status_filter,
        help="only these statuses: 404, 4xx, 5xx, 2xx,3xx, or none (no answer); repeatable",
    )
    logs.add_argument(
        "--method", metavar="M", action="append", help="only this method, e.g. POST; repeatable"
    )
    logs.add_argument(
        "--path",
        metavar="P",
        action="append",
        help="only paths under P, e.g. /payments (also /payments/list, /payments/pay_…); "
        "repeatable",
    )
    logs.add_argument(
        "--profile",
        metavar="NAME",
        default=argparse.SUPPRESS,
        help="a configured profile (default: the local sandbox's log)",
    )


def _in_class(low: int) -> StatusTest:
    return lambda status: status is not None and low <= status < low + 100


def _exactly(wanted: int) -> StatusTest:
    return lambda status: status == wanted


def parse_status(text: str) -> StatusTest:
    """`404`, `4xx`, `none` (no answer came), or several of them with commas."""
    tests: list[StatusTest] = []
    for part in (p.strip().lower() for p in text.split(",")):
        if part == "none":
            tests.append(lambda status: status is None)
        elif len(part) == 3 and part[0] in "12345" and part[1:] == "xx":
            tests.append(_in_class(int(part[0]) * 100))
        elif part.isdigit() and len(part) == 3 and 100 <= int(part) <= 599:
            tests.append(_exactly(int(part)))
        else:
            raise ValueError(f"{part!r} is not a status: give 404, 4xx, 2xx,3xx or none")
    return lambda status: any(test(status) for test in tests)


def run(args: argparse.Namespace) -> int:
    """Entry point of `payscope logs` (returns the exit code)."""
    from payscope.cli import logs_run  # the request log's reader, once the subcommand runs

    return logs_run.run(args)
