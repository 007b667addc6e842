"""`payscope serve` at work: textual-serve serving a payscope (or a demo) per browser tab,
behind the token guard. Imported only when the subcommand runs (`payscope.cli.serve` parses
it)."""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
from pathlib import Path

from payscope.app.serve_guard import Guard, served_name
from payscope.app.served import ENV_SERVED_BY
from payscope.core.hosts import is_loopback_host as is_loopback
from payscope.demo.story import STORIES, StoryError, load_story


def command_for(args: argparse.Namespace) -> str:
    """The command textual-serve runs for each browser tab: this payscope, same options (or,
    with `--demo`, `payscope demo STORY` on a demo sandbox of each tab's own)."""
    parts = [sys.executable, "-m", "payscope"]
    story = getattr(args, "demo", None)
    if story:
        # A story file by its absolute path: the tab's process may start elsewhere.
        named = story if story in STORIES else str(Path(story).expanduser().resolve())
        parts += ["demo", named, "--pace", f"{args.pace:g}"]
        return "exec " + shlex.join(parts)
    if args.profile:
        parts += ["--profile", args.profile]
    if getattr(args, "read_only", False):
        parts.append("--read-only")
    # `exec`: textual-serve runs this through a shell; the tab's payscope replaces it, so it is
    # the server's own child (and sees when the server is gone).
    return "exec " + shlex.join(parts)


def run(args: argparse.Namespace) -> int:
    """Serve as `args` say, each tab's payscope told this server's pid in `ENV_SERVED_BY`
    (`payscope.app.served.served_by` reads it); the exit code."""
    host, port = args.host, args.port
    if not is_loopback(host) and not args.public:
        print(
            f"payscope serve: {host} is not a loopback address: anyone who reaches port "
            f"{port} there and holds the URL's token drives payscope with its keys "
            "(creates payments, refunds, reads the keys shown in :sandbox). Add --public "
            "if that is what you want.",
            file=sys.stderr,
        )
        return 2
    if getattr(args, "demo", None):
        try:  # checked whole here: a broken story is refused before anything is served
            load_story(args.demo)
        except StoryError as exc:
            print(f"payscope serve: {exc}", file=sys.stderr)
            return 2
    guard = Guard(host, port, max_tabs=args.max_tabs)
    url = f"http://{served_name(host, port)}/?token={guard.token}"
    os.environ[ENV_SERVED_BY] = str(os.getpid())  # each tab's payscope inherits it
    what = f"the demo {args.demo!r}" if getattr(args, "demo", None) else "its own payscope"
    if not is_loopback(host):
        print(
            f"payscope serve: WARNING: serving on {host}: anyone who reaches port {port} there "
            "and holds the token in the URL below drives payscope with its keys. Pass the whole "
            "URL on only to whom should drive it, over a channel you trust (a chat message, not "
            "a public page). The traffic is plain http: anyone on the network path can read the "
            "token and the screen. Without the token the page and its WebSocket are refused.",
            file=sys.stderr,
        )
    # The one place the token is said: this line (never a log, never an error message).
    print(
        f"payscope serve: open {url} in a browser (each tab is {what}; at most "
        f"{args.max_tabs} at once); Ctrl+C stops"
    )
    sys.stdout.flush()
    with contextlib.suppress(KeyboardInterrupt):
        guard.serve(command_for(args))
    # Each tab's payscope sees the server is gone within a second and quits on its own.
    print("payscope serve: stopped", flush=True)
    return 0
