"""The command line's twins of what Stripe's CLI users reach for (issue 42): `get`, `post`
and `delete` on any path, `trigger`, `logs tail` and `completion`. `tui/payscope/cli.py` only
registers
them (`add_parsers`) and hands them over (`run`).

Standard library only at the top of every module of this package: `payscope --help` and shell
completion import it; each command imports the client and the rest when it runs. No Textual
anywhere here (the import-linter contract says so).
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable

from payscope.core.docs import see

COMMANDS = frozenset({"get", "post", "delete", "trigger", "logs", "completion", "__complete"})
# What `payscope __complete KIND` lists (the completion scripts ask it).
COMPLETION_KINDS = ("profiles", "scenarios", "areas", "commands")

Formatter = Callable[[str], argparse.HelpFormatter]

EXAMPLES = {
    "get": [
        "payscope get /payments/list -d limit=5",
        "payscope get /payments/pay_… --profile staging",
    ],
    "post": [
        "payscope post /payments -d amount=1000 -d currency=USD -d 'metadata[order]=42'",
        "payscope post /customers --json @customer.json",
    ],
    "delete": ["payscope delete /customers/cus_…"],
    "trigger": ["payscope trigger --list", "payscope trigger dispute --format json"],
    "logs": ["payscope logs tail --status 4xx --method POST --path /payments"],
    "completion": ["source <(payscope completion bash)"],
}


def _text(paragraph: str) -> str:
    """A description wrapped as the other commands' help is (the formatter keeps it as is)."""
    return textwrap.fill(paragraph, width=100)


def _epilog(command: str, section: str) -> str:
    lines = ["examples:", *(f"  {line}" for line in EXAMPLES[command]), "", see("cli", section)]
    return "\n".join(lines)


def _status_filter(text: str) -> str:
    from payscope.commands.logs import parse_status

    try:
        parse_status(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    formatter: type[argparse.HelpFormatter],
) -> None:
    """The commands of this package, on `payscope`'s subcommands."""
    from payscope.headless import add_connection_options

    for method, says in (
        ("get", "read any path of the service and print its JSON answer"),
        ("post", "send a body to any path of the service and print its JSON answer"),
        ("delete", "delete at any path of the service and print its JSON answer"),
    ):
        parser = sub.add_parser(
            method,
            epilog=_epilog(method, "get-post-delete"),
            help=says,
            description=_text(
                f"{method.upper()} PATH on the profile's service (the local sandbox by "
                "default, started when it is not running) with the profile's key, through "
                "payscope's client: its retries, rate-limit waits and request log. The answer's "
                "JSON is printed pretty and coloured on a terminal, compact when piped; an error "
                "answer exits 1 with the service's code and message."
            ),
            formatter_class=formatter,
        )
        parser.add_argument("path", metavar="PATH", help="e.g. /payments/list or /payments/pay_…")
        parser.add_argument(
            "-d",
            "--data",
            metavar="KEY=VALUE",
            action="append",
            default=[],
            help="a field (repeatable): nested as a[b]=c, a list item as a[]=c, a JSON value as "
            "key:=1000 or key:=true; on get and delete, the query instead",
        )
        parser.add_argument(
            "--json",
            metavar="BODY|@FILE",
            help="the whole body as JSON, or @FILE to read it from FILE (@- = standard input)",
        )
        add_connection_options(parser)

    trigger = sub.add_parser(
        "trigger",
        epilog=_epilog("trigger", "trigger"),
        help="run one of the TUI's Trigger scenarios headless",
        description=_text(
            "Run a Trigger scenario of the Sandbox area (a payment in a given flow, a "
            "refund that fails, a dispute, a payout, a renewal, a paid link) without the TUI: each "
            "request it makes, its status and the ids it made, then what it made."
        ),
        formatter_class=formatter,
    )
    trigger.add_argument("scenario", nargs="?", metavar="SCENARIO", help="e.g. one_step, dispute")
    trigger.add_argument(
        "--list", action="store_true", help="name each scenario with what it does, and exit"
    )
    trigger.add_argument(
        "--format", choices=["text", "json"], default="text", help="json: one object per step"
    )
    add_connection_options(trigger)

    logs = sub.add_parser(
        "logs",
        epilog=_epilog("logs", "logs-tail"),
        help="every request any payscope makes on the profile, as it happens",
        description=_text(
            "tail: follow the profile's request log, one line per request any payscope "
            "makes against it (the TUI, these commands, fixtures, export), as it happens, keys "
            "redacted. Ctrl+C ends it."
        ),
        formatter_class=formatter,
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

    completion = sub.add_parser(
        "completion",
        epilog=_epilog("completion", "completion"),
        help="print a shell completion script (bash, zsh, fish)",
        description=_text(
            "Print the completion script of SHELL: subcommands, options, profile "
            "names, areas and scenario names. Install: `payscope completion bash > "
            "~/.local/share/bash-completion/completions/payscope` (see docs/cli.md for zsh and "
            "fish)."
        ),
        formatter_class=formatter,
    )
    completion.add_argument("shell", choices=["bash", "zsh", "fish"])

    hidden = sub.add_parser("__complete", formatter_class=formatter)
    hidden.add_argument("kind", choices=COMPLETION_KINDS)


def run(args: argparse.Namespace) -> int:
    """Run the command of this package `args` names."""
    command = args.command
    if command in ("get", "post", "delete"):
        from payscope.commands.http import run as run_http

        return run_http(args)
    if command == "trigger":
        from payscope.commands.trigger import run as run_trigger

        return run_trigger(args)
    if command == "logs":
        from payscope.commands.logs import run as run_logs

        return run_logs(args)
    from payscope.commands.completion import run as run_completion

    return run_completion(args)
