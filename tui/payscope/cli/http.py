"""`payscope get|post|delete PATH`: one call on any path of the profile's service, through the
shared client (its key, retries, rate-limit waits and request log), and its JSON answer.

The body is `-d key=value` fields (nested `a[b]=c`, list items `a[]=c`, JSON values `k:=1`) or
`--json BODY|@FILE`; on a route with a request model (tui/payscope/api/bodies.py) it goes through
that
model first, so a mistake is said before anything is sent. On get and delete, `-d` is the query.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from payscope.cli.options import Formatter, add_connection_options, examples_epilog, text

if TYPE_CHECKING:
    from payscope.cli.options import Subparsers


# The subcommands this module parses and runs.
COMMANDS = ("get", "post", "delete")
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
}


def add_parser(subparsers: Subparsers) -> None:
    for method, says in (
        ("get", "read any path of the service and print its JSON answer"),
        ("post", "send a body to any path of the service and print its JSON answer"),
        ("delete", "delete at any path of the service and print its JSON answer"),
    ):
        parser = subparsers.add_parser(
            method,
            epilog=examples_epilog(EXAMPLES[method], "get-post-delete"),
            help=says,
            description=text(
                f"{method.upper()} PATH on the profile's service (the local sandbox by "
                "default, started when it is not running) with the profile's key, through "
                "payscope's client: its retries, rate-limit waits and request log. The answer's "
                "JSON is printed pretty and coloured on a terminal, compact when piped; an error "
                "answer exits 1 with the service's code and message."
            ),
            formatter_class=Formatter,
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


def run(args: argparse.Namespace) -> int:
    """Entry point of `payscope get|post|delete` (returns the exit code)."""
    from payscope.cli import http_run  # the request models and a client, once it runs

    return http_run.run(args)
