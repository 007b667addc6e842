"""`payscope listen`: the webhook listener in the foreground, one line per delivery.

Text format (stdout): a header (URL, journal, masked secret), then a readable line per attempt,
and with --forward-to a line per forward attempt (its status or error, and time).
JSON format: stdout carries exactly one JSON object per line, flushed each time, so scripts
can follow it (a forward attempt is an object with a "forward" key); the header and warnings go
to stderr.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from payscope.cli.options import Formatter, bind_options, duration
from payscope.core.docs import see

if TYPE_CHECKING:
    from payscope.cli.options import Subparsers


# The subcommands this module parses and runs.
COMMANDS = ("listen",)


def add_parser(subparsers: Subparsers) -> None:
    listen = subparsers.add_parser(
        "listen",
        epilog=see("listener"),
        help="run the webhook listener alone",
        description="Take POST /webhooks on 127.0.0.1, verify X-Webhook-Signature-512, dedupe on "
        "event_id, journal every event before answering, and print one line per event.",
        formatter_class=Formatter,
    )
    bind_options(listen, 8787)
    listen.add_argument(
        "--secret",
        metavar="S",
        action="append",
        help="signing secret (repeat to accept several during rotation); shown to other local "
        "users by `ps`: prefer --secret-file or PAYSCOPE_WEBHOOK_SECRET",
    )
    listen.add_argument(
        "--secret-file",
        metavar="PATH",
        help="read the signing secrets from PATH, one per line (- = standard input)",
    )
    listen.add_argument(
        "--forward-to",
        metavar="URL",
        help="re-POST each accepted event here, durably: owed from the moment it is journaled, "
        "retried after a failure (any answer but 2xx) in 1 s, 5 s, 30 s, 2 min, 10 min, 30 min, "
        "then hourly, across restarts too; marked failed 24 h after the event arrived. Every "
        "attempt is recorded and printed",
    )
    listen.add_argument(
        "--max-age",
        type=duration,
        metavar="AGE",
        default=None,
        help='refuse (400, reason "stale") events whose timestamp is older than AGE: 90s, '
        "30m, 12h, 7d (default 7d)",
    )
    listen.add_argument(
        "--no-freshness",
        action="store_true",
        help="accept events however old their timestamp (no --max-age check)",
    )
    listen.add_argument("--format", choices=["text", "json"], default="text", help="output format")
    listen.add_argument("--data", metavar="DIR", help="journal directory (default: the data dir)")
    listen.add_argument(
        "--print-secret", action="store_true", help="print the signing secret and exit"
    )


def run(args: argparse.Namespace) -> int:
    """Entry point for `payscope listen` (arguments parsed by payscope.cli)."""
    from payscope.cli import listen_run  # the listener's stack, once the subcommand runs

    return listen_run.run(args)
