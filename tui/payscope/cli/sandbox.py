"""`payscope sandbox`: the local service alone, in the foreground, until Ctrl+C."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from payscope.cli.options import Formatter, port, positive_int, rate
from payscope.core.docs import see

if TYPE_CHECKING:
    from payscope.cli.options import Subparsers


# The subcommands this module parses and runs.
COMMANDS = ("sandbox",)


def add_parser(subparsers: Subparsers) -> None:
    sandbox = subparsers.add_parser(
        "sandbox",
        epilog=see("sandbox"),
        help="run the local sandbox of the service alone",
        description="Run the local, stateful sandbox of the payment service. It prints the base "
        "URL, ids, keys and webhook secret you need; Ctrl+C stops it cleanly.",
        formatter_class=Formatter,
    )
    sandbox.add_argument(
        "action",
        nargs="?",
        choices=("status", "stop", "reset"),
        help="status: the background sandbox the TUI keeps (URL, pid, state); stop: stop it; "
        "reset: bring back the seeded demo data and the clock (keys stay). "
        "Without one, run a sandbox in this terminal",
    )
    sandbox.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    sandbox.add_argument("--port", type=port, default=8080, help="port (default 8080; 0 = free)")
    sandbox.add_argument("--data", metavar="DIR", help="state directory (default: the data dir)")
    sandbox.add_argument(
        "--seed", type=positive_int, metavar="N", default=0, help="write N demo payments first"
    )
    sandbox.add_argument(
        "--api-key",
        metavar="snd_...",
        help="fix the secret key; other local users see it in `ps`, so prefer --api-key-file "
        "or PAYSCOPE_SANDBOX_API_KEY",
    )
    sandbox.add_argument(
        "--api-key-file",
        metavar="PATH",
        help="read the secret key from PATH (- = standard input); or set PAYSCOPE_SANDBOX_API_KEY",
    )
    sandbox.add_argument("--merchant-id", metavar="ID", help="fix the merchant id")
    sandbox.add_argument("--profile-id", metavar="ID", help="fix the business profile id")
    sandbox.add_argument("--webhook-url", metavar="URL", help="where webhooks are delivered")
    sandbox.add_argument(
        "--webhook-secret",
        metavar="S",
        help="fix the webhook signing secret; visible in `ps` too, so prefer "
        "--webhook-secret-file or PAYSCOPE_SANDBOX_WEBHOOK_SECRET",
    )
    sandbox.add_argument(
        "--webhook-secret-file",
        metavar="PATH",
        help="read the signing secret from PATH (- = standard input); or set "
        "PAYSCOPE_SANDBOX_WEBHOOK_SECRET",
    )
    sandbox.add_argument(
        "--rate-limit",
        type=positive_int,
        metavar="N",
        default=None,
        help="requests per minute per key (default 6000; 0 = unlimited)",
    )
    sandbox.add_argument(
        "--fault-rate",
        type=rate,
        metavar="R",
        default=0.0,
        help="share of requests answered 500/502/503/429 or with a dropped connection, before "
        "or after the request is committed (0-1)",
    )
    sandbox.add_argument(
        "--latency",
        type=positive_int,
        metavar="MS",
        default=0,
        help="simulated processor latency on confirm/capture, in milliseconds",
    )


def run(args: argparse.Namespace) -> int:
    """Entry point of `payscope sandbox` (returns the exit code)."""
    from payscope.cli import sandbox_run  # the sandbox's stack, once the subcommand runs

    return sandbox_run.run(args)
