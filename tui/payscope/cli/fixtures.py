"""`payscope fixtures run FILE`: a fixture's steps against the service, one line (or one JSON
object) per step, and what was made (tui/payscope/api/fixtures/ runs them)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from payscope.cli.options import Formatter, add_connection_options
from payscope.core.docs import see

if TYPE_CHECKING:
    from payscope.cli.options import Subparsers


# The subcommands this module parses and runs.
COMMANDS = ("fixtures",)


def add_parser(subparsers: Subparsers) -> None:
    fixtures = subparsers.add_parser(
        "fixtures",
        epilog=see("tools", "fixtures"),
        help="run a fixture: your own scenario of API calls",
        description="Run a fixture (a TOML or JSON file of named steps) against the service: "
        "each step's status and the ids it made. A step that fails stops the run, naming the "
        "step, the field and what was already made. Examples: fixtures/ in payscope's source.",
        formatter_class=Formatter,
    )
    fixtures.add_argument("action", choices=["run"], help="run: run FILE's steps in order")
    fixtures.add_argument("file", metavar="FILE", help="the fixture (.toml or .json)")
    fixtures.add_argument(
        "--format", choices=["text", "json"], default="text", help="json: one object per step"
    )
    fixtures.add_argument(
        "--secret-file",
        metavar="PATH",
        help="signing secret of the fixture's event steps (- = standard input); or "
        "PAYSCOPE_WEBHOOK_SECRET",
    )
    fixtures.add_argument(
        "--event-to", metavar="URL", help="where event steps without a `to` are sent"
    )
    fixtures.add_argument(
        "--allow-env",
        metavar="NAME",
        action="append",
        default=[],
        help="let the fixture read ${env.NAME} (repeatable; also a profile's allow_env): a "
        "fixture is someone else's code, and reads no variable unless allowed",
    )
    fixtures.add_argument(
        "--allow-remote",
        action="store_true",
        help="let event steps send to a `to` that is neither this machine nor the service",
    )
    add_connection_options(fixtures)


def run(args: argparse.Namespace) -> int:
    """Entry point of `payscope fixtures` (returns the exit code)."""
    from payscope.cli import fixtures_run  # the fixture runner and a client, once it runs

    return fixtures_run.run(args)
