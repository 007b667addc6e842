"""`payscope send-event`: compose (from a file or the type's template), sign and send one
webhook event to a URL, and print the answer (tui/payscope/webhooks/compose.py)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from payscope.cli.options import Formatter, duration
from payscope.core.docs import see

if TYPE_CHECKING:
    from payscope.cli.options import Subparsers


# The subcommands this module parses and runs.
COMMANDS = ("send-event",)


def add_parser(subparsers: Subparsers) -> None:
    send = subparsers.add_parser(
        "send-event",
        epilog=see("tools", "send-event"),
        help="compose, sign and send one webhook event to a URL",
        description="Send one webhook event, signed as the service signs "
        "(X-Webhook-Signature-512), to your handler or to payscope listen, and print its "
        "answer: status, headers, body "
        "(up to 64 KiB) and latency. Exit status 0 when it answered 2xx.",
        formatter_class=Formatter,
    )
    send.add_argument("--type", metavar="EVENT_TYPE", help="e.g. payment_succeeded (template)")
    send.add_argument("--file", metavar="PATH", help="the whole body, sent byte for byte")
    send.add_argument(
        "--to",
        metavar="URL",
        default="http://127.0.0.1:8787/webhooks",
        help="where (default payscope listen's http://127.0.0.1:8787/webhooks)",
    )
    send.add_argument(
        "--secret-file",
        metavar="PATH",
        help="the signing secret (- = standard input); or PAYSCOPE_WEBHOOK_SECRET",
    )
    send.add_argument("--timeout", type=duration, default=10.0, metavar="S", help="(default 10s)")
    send.add_argument("--format", choices=["text", "json"], default="text", help="output format")


def run(args: argparse.Namespace) -> int:
    """Entry point of `payscope send-event` (returns the exit code)."""
    from payscope.cli import send_event_run  # the signing and the HTTP client, once it runs

    return send_event_run.run(args)
