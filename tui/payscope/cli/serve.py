"""`payscope serve`: the TUI in a browser, with textual-serve (issue 34).

Each browser tab runs its own payscope (a process textual-serve starts for it) on the same
background sandbox; every one's listener is attached, so each tab gets the webhooks live. It binds
to loopback unless told otherwise: whoever reaches the port drives the TUI with its keys, so a
host that is not loopback needs `--public`, and is said plainly. Copy (`y`) reaches the browser's
clipboard and links open in the browser through textual-serve's own driver. Ctrl+C stops it.
`--demo STORY` serves `payscope demo STORY` instead (each tab plays it on its own demo sandbox).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from payscope.cli.options import Formatter, bind_options, pace, positive_int

if TYPE_CHECKING:
    from payscope.cli.options import Subparsers

# The subcommands this module parses and runs.
COMMANDS = ("serve",)


def add_parser(subparsers: Subparsers) -> None:
    serve = subparsers.add_parser(
        "serve",
        help="the TUI in a browser (textual-serve); each tab is its own payscope",
        description="Serve payscope to a browser with textual-serve: each tab is its own "
        "payscope, on the same background sandbox, and every one gets the webhooks live. "
        "Binds to loopback; a host that is not loopback needs --public. Only the URL it "
        "prints opens it: that URL holds a random token (then kept in a cookie), and the "
        "page's Host and its WebSocket's Origin must be the address served on. Ctrl+C stops it.",
        formatter_class=Formatter,
    )
    bind_options(serve, 8000)
    serve.add_argument(
        "--public",
        action="store_true",
        help="allow a host that is not loopback (whoever reaches it with the printed URL's "
        "token drives the TUI: pass that URL on only to them)",
    )
    serve.add_argument(
        "--max-tabs",
        type=positive_int,
        default=4,
        metavar="N",
        help="the most browser tabs open at once (each is a payscope process; default 4)",
    )
    serve.add_argument(
        "--demo",
        metavar="STORY|FILE",
        help="serve a demo instead: each tab plays this story (developer, support, tour, or "
        "your own story file) on a demo sandbox of its own",
    )
    serve.add_argument(
        "--pace",
        type=pace,
        default=1.0,
        metavar="X",
        help="with --demo: its speed (default 1.0)",
    )


def run(args: argparse.Namespace) -> int:
    """Entry point of `payscope serve` (returns the exit code)."""
    from payscope.cli import serve_run  # textual-serve and its guard, once the subcommand runs

    return serve_run.run(args)
