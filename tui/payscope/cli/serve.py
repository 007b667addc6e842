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
import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from payscope.cli.options import Formatter, bind_options, pace, positive_int
from payscope.core.hosts import is_loopback_host as is_loopback

if TYPE_CHECKING:
    from payscope.cli.options import Subparsers

# Set for each tab's payscope: the server's pid. The tab's process is the server's own child (its
# shell execs it), and quits once its parent is no longer the server (`served_by`).
ENV_SERVED_BY = "PAYSCOPE_SERVED_BY"


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


def served_by() -> int | None:
    """The pid of the `payscope serve` this payscope is a tab of, or None."""
    value = os.environ.get(ENV_SERVED_BY, "")
    return int(value) if value.isdigit() else None


def command_for(args: argparse.Namespace) -> str:
    """The command textual-serve runs for each browser tab: this payscope, same options (or,
    with `--demo`, `payscope demo STORY` on a demo sandbox of each tab's own)."""
    import shlex

    parts = [sys.executable, "-m", "payscope"]
    story = getattr(args, "demo", None)
    if story:
        from payscope.demo.story import STORIES

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
        from payscope.demo.story import StoryError, load_story

        try:  # checked whole here: a broken story is refused before anything is served
            load_story(args.demo)
        except StoryError as exc:
            print(f"payscope serve: {exc}", file=sys.stderr)
            return 2
    from payscope.app.serve_guard import Guard, served_name

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
