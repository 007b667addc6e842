"""`payscope demo [STORY|FILE] [--pace X] [--screenshots DIR]`."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from payscope.api.terminal import say
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
