"""`payscope keys set|show|delete`: a profile's keys in the OS keyring.

A key is read from a hidden prompt or standard input, never from the command line: argv is
kept in shell history and shown to every user by `ps`. Exit codes: 0 done, 1 a user error
(one message on stderr), 2 a usage error.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from payscope.cli.options import Formatter
from payscope.core.docs import see

if TYPE_CHECKING:
    from payscope.cli.options import Subparsers


# The subcommands this module parses and runs.
COMMANDS = ("keys",)


def add_parser(subparsers: Subparsers) -> None:
    keys = subparsers.add_parser(
        "keys",
        epilog=see("config", "keys"),
        help="manage keys in the OS keyring",
        description="Store, show (masked) or delete a profile's keys in the OS keyring. Keys are "
        "read from a hidden prompt or standard input, never from the command line.",
        formatter_class=Formatter,
    )
    keys.add_argument("action", choices=["set", "show", "delete"], help="what to do")
    keys.add_argument("--profile", default="default", metavar="NAME", help="profile (default)")
    keys.add_argument(
        "--kind",
        choices=["secret", "publishable", "webhook"],
        default="secret",
        help="which key (default: the secret API key)",
    )
    keys.add_argument(
        "--allow-production", action="store_true", help="accept a production (prd_) key"
    )
    keys.add_argument("value", nargs="?", help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    """Run `payscope keys` with the arguments parsed by :mod:`payscope.cli`; return the exit
    code."""
    from payscope.cli import keys_run  # the keyring, once the subcommand runs

    return keys_run.run(args)
