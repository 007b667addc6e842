"""`payscope trigger SCENARIO`: one of the TUI's Trigger scenarios (tui/payscope/api/scenarios.py,
the
one catalogue), headless: each request it makes as it goes, the ids it made, then what it made.
`--list` names them; `--format json` prints one object per step (and one for the outcome)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from payscope.cli.options import Formatter, add_connection_options, examples_epilog, text

if TYPE_CHECKING:
    from payscope.cli.options import Subparsers


# The subcommands this module parses and runs.
COMMANDS = ("trigger",)
EXAMPLES = ["payscope trigger --list", "payscope trigger dispute --format json"]


def add_parser(subparsers: Subparsers) -> None:
    trigger = subparsers.add_parser(
        "trigger",
        epilog=examples_epilog(EXAMPLES, "trigger"),
        help="run one of the TUI's Trigger scenarios headless",
        description=text(
            "Run a Trigger scenario of the Sandbox area (a payment in a given flow, a "
            "refund that fails, a dispute, a payout, a renewal, a paid link) without the TUI: each "
            "request it makes, its status and the ids it made, then what it made."
        ),
        formatter_class=Formatter,
    )
    trigger.add_argument("scenario", nargs="?", metavar="SCENARIO", help="e.g. one_step, dispute")
    trigger.add_argument(
        "--list", action="store_true", help="name each scenario with what it does, and exit"
    )
    trigger.add_argument(
        "--format", choices=["text", "json"], default="text", help="json: one object per step"
    )
    add_connection_options(trigger)


def run(args: argparse.Namespace) -> int:
    """Entry point of `payscope trigger` (returns the exit code)."""
    from payscope.cli import trigger_run  # the scenarios and a client, once the subcommand runs

    return trigger_run.run(args)
