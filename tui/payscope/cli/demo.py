"""`payscope demo [STORY|FILE] [--pace X] [--screenshots DIR]`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from payscope.cli.options import Formatter, pace

if TYPE_CHECKING:
    from payscope.cli.options import Subparsers


# The subcommands this module parses and runs.
COMMANDS = ("demo",)


def add_parser(subparsers: Subparsers) -> None:
    demo = subparsers.add_parser(
        "demo",
        help="play a guided story in the TUI, on a demo sandbox of its own",
        description="Play a scripted story in the real TUI, with a caption line saying what "
        "happens and why, on a demo sandbox of its own (seeded the same way every time, never "
        "your data). Keys while it plays: Space pauses and resumes, right goes on to the next "
        "step, left shows the previous caption again, Esc hands the TUI over, q quits. "
        "Stories are TOML files (see docs/demo.md); a story with a mistake is refused before "
        "it starts, naming the step and the field.",
        formatter_class=Formatter,
    )
    demo.add_argument(
        "story",
        nargs="?",
        default="tour",
        metavar="STORY|FILE",
        help="developer, support, tour (default), or your own story file",
    )
    demo.add_argument(
        "--pace",
        type=pace,
        default=1.0,
        metavar="X",
        help="speed: 2 plays twice as fast, 0.5 half as fast (default 1.0)",
    )
    demo.add_argument(
        "--screenshots",
        metavar="DIR",
        help="save an SVG of every captioned step into DIR (for slides and docs)",
    )


def run(args: argparse.Namespace) -> int:
    """Check the story whole, then play it on a fresh demo sandbox; removed afterwards."""
    from payscope.cli import demo_run  # the story and the TUI, once the subcommand runs

    return demo_run.run(args)
