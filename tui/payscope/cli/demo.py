"""`payscope demo [STORY|FILE] [--pace X] [--screenshots DIR]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from payscope.api.terminal import say
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
    import shutil

    from payscope.demo.story import StoryError, load_story

    try:
        story = load_story(args.story)
    except StoryError as exc:
        say(f"payscope demo: {exc}", file=sys.stderr)
        return 2
    shots = None
    if args.screenshots:
        shots = Path(args.screenshots).expanduser()
        try:
            from payscope.core.private_files import private_dir

            private_dir(shots)
        except OSError as exc:
            say(f"payscope demo: --screenshots {shots}: {exc.strerror}", file=sys.stderr)
            return 2
    from payscope.core import gc_pause
    from payscope.demo.player import demo_dirs, make_demo_app

    directory = demo_dirs()  # made here, so ours to remove
    try:
        app = make_demo_app(story, pace=args.pace, screenshots=shots, directory=directory)
        try:
            result = app.run()
        finally:
            gc_pause.resume()
        if app.demo.failed:
            say(f"payscope demo: {app.demo.failed}", file=sys.stderr)
        if shots is not None:
            saved = sum(1 for p in app.demo.played if p.screenshot is not None)
            say(f"payscope demo: {saved} screenshots in {shots}")
        return int(result or 0) if not app.demo.failed else 1
    finally:
        shutil.rmtree(directory, ignore_errors=True)
