"""`payscope demo` at work: a story checked whole, then played in the TUI on a demo sandbox
of its own. Imported only when the subcommand runs (`payscope.cli.demo` parses it)."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from payscope.api.terminal import say
from payscope.core import gc_pause
from payscope.core.private_files import private_dir
from payscope.demo.story import StoryError, load_story


def run(args: argparse.Namespace) -> int:
    """Check the story whole, then play it on a fresh demo sandbox; removed afterwards."""
    try:
        story = load_story(args.story)
    except StoryError as exc:
        say(f"payscope demo: {exc}", file=sys.stderr)
        return 2
    shots = None
    if args.screenshots:
        shots = Path(args.screenshots).expanduser()
        try:
            private_dir(shots)
        except OSError as exc:
            say(f"payscope demo: --screenshots {shots}: {exc.strerror}", file=sys.stderr)
            return 2
    # The TUI itself, once the story is known to be good: a mistake in it is said at once.
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
