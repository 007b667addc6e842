"""The `payscope` command line (the contract: docs/getting-started.md, the architecture card).

One module of this package per subcommand (`SUBCOMMANDS`): each says the subcommands it parses
(`COMMANDS`), adds their parsers (`add_parser`) and runs them (`run`). Only the standard library
and the parsers' shared pieces (`options`) are imported at their tops; `run` imports the
subcommand's handler, the sibling module `<name>_run` (`sandbox_run`, `listen_run`...), which
imports what it needs at its top. So `payscope --help`, shell completion and the TUI's start-up
(`tui_run`) do not pay for the server stack. The handlers share `headless` (a client without the
TUI) and `output`. No module here imports Textual itself (the import-linter contract says so).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from payscope import __version__
from payscope.cli import (
    completion,
    demo,
    export,
    fixtures,
    http,
    keys,
    listen,
    logs,
    sandbox,
    send_event,
    serve,
    trigger,
)
from payscope.cli.options import Formatter, positive_int
from payscope.core import gc_pause

if TYPE_CHECKING:
    from payscope.cli.options import Subparsers

DESCRIPTION = """\
payscope: explore a payment processor's sandbox from the terminal.

With no profile configured, payscope starts its own local sandbox of the service (seeded with
demo data) and its built-in webhook listener, so it works offline on a fresh machine.
"""

EPILOG = """\
environment:
  PAYSCOPE_CONFIG_DIR   where profiles.toml lives (default: the platform config dir)
  PAYSCOPE_DATA_DIR     where the sandbox and listener keep their SQLite files
  PAYSCOPE_API_KEY      the secret key for this run only, instead of the OS keyring
  PAYSCOPE_SANDBOX_API_KEY, PAYSCOPE_SANDBOX_WEBHOOK_SECRET
                        payscope sandbox's secret key and signing secret (not in `ps`)
  PAYSCOPE_WEBHOOK_SECRET   payscope listen's signing secret (not in `ps`)

commands:
  payscope sandbox --help   the local service alone (for curl or your own backend)
  payscope listen --help    the webhook listener alone
  payscope keys --help      keys in the OS keyring
  payscope fixtures --help  run your own scenario (a file of API calls)
  payscope export --help    every record a filter matches, to CSV or JSON Lines
  payscope send-event --help  a signed webhook event to any URL, and its answer
  payscope serve --help     the TUI in a browser (textual-serve)
  payscope demo --help      a guided tour that plays itself (developer, support, tour)
  payscope get|post|delete PATH   any path of the service, its JSON answer (-d a=b, --json)
  payscope trigger --list   the TUI's Trigger scenarios, headless
  payscope logs tail        every request any payscope makes on the profile, as it happens
  payscope completion bash|zsh|fish   a shell completion script

docs: docs/ in payscope's source (start with docs/getting-started.md; `make docs` builds the
site into site/)
"""


class Subcommand(Protocol):
    """A module of this package: the subcommands it parses, and how it runs them."""

    @property
    def COMMANDS(self) -> tuple[str, ...]: ...

    def add_parser(self, subparsers: Subparsers) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


# In the order `payscope --help` lists them. Standard library only at the top of each (besides
# `options`), so `--help` does not pay for what a subcommand runs: that is in its `_run` module.
SUBCOMMANDS: tuple[Subcommand, ...] = (
    sandbox,
    listen,
    keys,
    serve,
    demo,
    fixtures,
    export,
    send_event,
    http,
    trigger,
    logs,
    completion,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="payscope", description=DESCRIPTION, epilog=EPILOG, formatter_class=Formatter
    )
    parser.add_argument("--version", action="version", version=f"payscope {__version__}")
    parser.add_argument(
        "--profile", metavar="NAME", help="open a configured profile (a remote sandbox)"
    )
    parser.add_argument(
        "--seed",
        type=positive_int,
        metavar="N",
        default=None,
        help="demo payments written on the embedded sandbox's first run (default 300)",
    )
    parser.add_argument(
        "--theme", metavar="NAME", help="theme for this run (default: the profile's, or dark)"
    )
    parser.add_argument(
        "--allow-production",
        action="store_true",
        help="accept a production (prd_) key; refused otherwise",
    )
    parser.add_argument(
        "--read-only",
        action="store_true",
        help="offer no action that writes, and refuse every call that writes (browse, export)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in SUBCOMMANDS:
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if extras:
        if args.command == "keys" and args.value is None:
            # A key typed on the command line must be refused by `payscope.cli.keys`, never echoed
            # back in argparse's "unrecognized arguments" message.
            args.value = extras[0]
        elif args.command == "keys":
            parser.exit(
                2, "payscope keys: unexpected extra arguments (not shown: they may hold a key)\n"
            )
        else:
            parser.error(f"unrecognized arguments: {' '.join(extras)}")
    args.command_line = parser  # for a command that describes the command line (completion)
    try:
        if args.command != "keys":
            # Until the TUI's first frame, or until the server serves; imports included.
            gc_pause.pause()
        for module in SUBCOMMANDS:
            if args.command in module.COMMANDS:
                return module.run(args)
        from payscope.cli import tui_run  # the TUI's start: only when no subcommand is named

        tui_run.run(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
