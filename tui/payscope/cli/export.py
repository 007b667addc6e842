"""`payscope export AREA`: every record of an area's list that a filter matches, to CSV or JSON
Lines (tui/payscope/api/export.py writes it; the filter is the TUI's own grammar for that area).

Every list the TUI's `E` exports, read the way that list reads it: payments, refunds,
disputes, customers, payouts, subscriptions (the local sandbox's list: the real service has
none), payment links, users, the unified codes, and the events this profile's listener
journaled. Not the request log: it is the calls of one TUI session, which a headless run has
not made.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from payscope.areas import REGISTRY
from payscope.cli.options import Formatter, add_connection_options
from payscope.core.docs import see

if TYPE_CHECKING:
    from payscope.cli.options import Subparsers
    from payscope.views.areas import Area


# The areas `payscope export` reads: those whose `AREA` names an export source.
AREAS: dict[str, Area] = {area.key: area for area in REGISTRY if area.export}


# The subcommands this module parses and runs.
COMMANDS = ("export",)


def add_parser(subparsers: Subparsers) -> None:
    export = subparsers.add_parser(
        "export",
        epilog=see("tools", "export"),
        help="export every record a filter matches to CSV or JSON Lines",
        description="Export every record of AREA's list that the filter matches (all pages) to "
        "CSV or JSON Lines. The filter is the TUI's (/ in the list): e.g. "
        '"status:failed from:2026-11-01". Amounts are in minor units with their decimal beside '
        "them; the file appears only once complete.",
        formatter_class=Formatter,
    )
    export.add_argument("area", choices=list(AREAS))
    export.add_argument("--filter", metavar="TEXT", default="", help="the list's filter")
    export.add_argument("--format", choices=["csv", "jsonl"], default="csv", help="(default csv)")
    export.add_argument(
        "--output",
        metavar="FILE",
        help="where (default AREA-YYYYmmdd-HHMMSS.FORMAT here; - = standard output); only a "
        "regular file, never a FIFO, a device or a directory",
    )
    export.add_argument("--force", action="store_true", help="replace a file already at --output")
    export.add_argument("--quiet", action="store_true", help="no progress on standard error")
    add_connection_options(export)


def run(args: argparse.Namespace) -> int:
    """Entry point of `payscope export` (returns the exit code)."""
    from payscope.cli import export_run  # the exporter and a client, once the subcommand runs

    return export_run.run(args, AREAS[args.area])
