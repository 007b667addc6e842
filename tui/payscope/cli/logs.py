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
import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from payscope.cli.options import Formatter, examples_epilog, text
from payscope.cli.output import fail, neutralise, pipe_closed, wants_colour

if TYPE_CHECKING:
    from payscope.api.request_log import LoggedRequest
    from payscope.cli.options import Subparsers

StatusTest = Callable[[int | None], bool]


# The subcommands this module parses and runs.
COMMANDS = ("logs",)
EXAMPLES = ["payscope logs tail --status 4xx --method POST --path /payments"]


def _status_filter(text: str) -> str:
    try:
        parse_status(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


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


def _under(path: str, prefix: str) -> bool:
    bare = path.split("?", 1)[0]
    prefix = "/" + prefix.strip("/") if prefix.strip("/") else "/"
    return prefix == "/" or bare == prefix or bare.startswith(prefix + "/")


def matcher(args: argparse.Namespace) -> Callable[[LoggedRequest], bool]:
    """What `--status`, `--method` and `--path` let through (each repeatable: any of them)."""
    statuses = [parse_status(s) for s in args.status or []]
    methods = {m.strip().upper() for m in args.method or [] for m in m.split(",")}
    paths = list(args.path or [])

    def matches(record: LoggedRequest) -> bool:
        if statuses and not any(test(record.status) for test in statuses):
            return False
        if methods and record.method.upper() not in methods:
            return False
        return not paths or any(_under(record.path, p) for p in paths)

    return matches


_GREEN, _YELLOW, _RED, _DIM, _RESET = "\x1b[32m", "\x1b[33m", "\x1b[31m", "\x1b[2m", "\x1b[0m"


def line_of(record: LoggedRequest, *, colour: bool = False) -> str:
    """One record as one terminal line, everything from outside neutralised."""
    at = (
        time.strftime("%H:%M:%S", time.localtime(record.at))
        + f".{int(record.at * 1000) % 1000:03d}"
    )
    status = str(record.status) if record.status is not None else "---"
    text = (
        f"{at}  {record.method:<6} {status}  {record.path}  {record.latency_ms:.0f} ms  "
        f"[{record.source} {record.pid}]"
    )
    if record.attempt > 1:
        text += f" attempt {record.attempt}"
    said = ": ".join(part for part in (record.code, record.message) if part)
    if record.error:
        said = record.error
    if said:
        text += f"  {said}"
    text = neutralise(text)
    if not colour:
        return text
    hue = (
        _RED
        if record.status is None or record.status >= 500
        else _YELLOW
        if record.status >= 400
        else _GREEN
    )
    return text.replace(f"  {status}  ", f"  {hue}{status}{_RESET}  ", 1)


def run(args: argparse.Namespace) -> int:
    from payscope.api.request_log import RequestLogFollower, request_log_path
    from payscope.app.runtime.options import OptionsError
    from payscope.cli.headless import runtime_options
    from payscope.core import gc_pause

    gc_pause.resume(freeze=True)  # a tail runs for as long as it is wanted
    try:
        options = runtime_options(args)
    except (OptionsError, ValueError) as exc:
        return fail("logs", str(exc), 2)
    path = request_log_path(options.data_dir, options.profile)
    matches = matcher(args)
    out = sys.stdout
    colour = args.format == "text" and wants_colour(out)
    who = f"profile {options.profile}" if options.profile else "the local sandbox"
    follower = RequestLogFollower(path)  # from here on, every line written is shown
    print(
        f"payscope logs: following the requests on {neutralise(who)} ({path}); Ctrl+C ends it",
        file=sys.stderr,
        flush=True,
    )
    try:
        for record in follower.follow():
            if not matches(record):
                continue
            if args.format == "json":
                print(json.dumps(record.to_json(), ensure_ascii=True), file=out, flush=True)
            else:
                print(line_of(record, colour=colour), file=out, flush=True)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return pipe_closed()
    finally:
        follower.close()
    return 0
