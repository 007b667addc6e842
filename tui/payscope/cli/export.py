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
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from payscope.api.terminal import safe_text, say
from payscope.areas import REGISTRY
from payscope.cli.headless import add_connection_options
from payscope.cli.options import Formatter
from payscope.core.docs import see

if TYPE_CHECKING:
    from payscope.api.client import ApiClient
    from payscope.api.export import ListSource
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


def _journal_fetch(
    args: argparse.Namespace, source: ListSource, server: dict[str, Any]
) -> Callable[[int, int], Awaitable[tuple[list[Any], int | None]]]:
    """Pages of the events this profile's listener journaled (the TUI's Events list); exits 2
    when the profile's options are wrong or no listener has journaled anything yet."""
    from payscope.app.runtime.listener_dirs import listener_dir_for
    from payscope.app.runtime.options import OptionsError
    from payscope.cli.headless import runtime_options
    from payscope.webhooks.journal import JOURNAL_FILE, Journal

    try:
        options = runtime_options(args)
    except (OptionsError, ValueError) as exc:
        say(f"payscope: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    folder = listener_dir_for(options.data_dir, options.profile)
    if not (folder / JOURNAL_FILE).is_file():
        say(
            f"payscope export: no webhook has been journaled for this profile yet ({folder} "
            "holds no journal): start payscope or payscope listen to receive events.",
            file=sys.stderr,
        )
        raise SystemExit(1)
    journal = Journal(folder)

    async def fetch(offset: int, limit: int) -> tuple[list[Any], int | None]:
        return await source.read(journal, server, offset, limit)

    return fetch


def run(args: argparse.Namespace) -> int:
    import asyncio

    from payscope.api.errors import ClientError
    from payscope.api.export import ExportError, check_target, export_records
    from payscope.cli.headless import run_with_client
    from payscope.widgets.errors import describe_error

    area = AREAS[args.area]
    try:
        parsed = area.filter_grammar().parse(args.filter or "")
    except ValueError as exc:
        say(f"payscope export: the filter is not understood: {exc}", file=sys.stderr)
        return 2
    to_stdout = args.output == "-"
    output = Path(args.output or f"{args.area}-{time.strftime('%Y%m%d-%H%M%S')}.{args.format}")
    if not to_stdout:
        try:  # before any page is read: a FIFO, a device, a file there without --force
            check_target(output.absolute(), force=args.force)
        except ExportError as exc:
            print(f"payscope export: {exc}", file=sys.stderr)
            return 1
        output = output.absolute()
    where = "standard output" if to_stdout else str(output)
    quiet = args.quiet

    def progress(done: int, total: int | None) -> None:
        if not quiet:
            of = f" of {total}" if total is not None else ""
            said = safe_text(f"read {done}{of} {args.area}…", one_line=True)
            print(f"\r{said}", end="", file=sys.stderr, flush=True)

    async def write(
        fetch: Callable[[int, int], Awaitable[tuple[list[Any], int | None]]], key: Any
    ) -> int:
        try:
            result = await export_records(
                fetch,
                output,
                args.format,
                matches=parsed.matches if parsed.local else None,
                key=key,
                progress=progress,
                force=args.force,
                out=sys.stdout if to_stdout else None,
            )
        except ExportError as exc:
            say(f"\npayscope export: {exc}", file=sys.stderr)
            return 1
        except ClientError as exc:
            title, message = describe_error(exc)
            say(
                f"\npayscope export: {title}: {message} Nothing was written to {where}.",
                file=sys.stderr,
            )
            return 1
        if not quiet:
            print(file=sys.stderr)
        said = f"{result.count} {args.area} written to {where}"
        say(said, file=sys.stderr if to_stdout else sys.stdout)
        return 0

    source = area.export_source()

    async def work(client: ApiClient) -> int:
        async def fetch(offset: int, limit: int) -> tuple[list[Any], int | None]:
            return await source.read(client, parsed.server, offset, limit)

        return await write(fetch, source.key)

    try:
        if source.journal:
            return asyncio.run(write(_journal_fetch(args, source, parsed.server), source.key))
        return run_with_client(args, work)
    except KeyboardInterrupt:
        say(f"\npayscope export: cancelled; nothing was written to {where}", file=sys.stderr)
        return 130
