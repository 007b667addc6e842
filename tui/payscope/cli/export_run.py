"""`payscope export AREA` at work: every record of the area's list that the filter matches,
written whole or not at all. Imported only when the subcommand runs (`payscope.cli.export`
parses it)."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from payscope.api.errors import ClientError
from payscope.api.export import ExportError, check_target, export_records
from payscope.api.terminal import safe_text, say
from payscope.app.runtime.listener_dirs import listener_dir_for
from payscope.app.runtime.options import OptionsError
from payscope.cli.headless import run_with_client, runtime_options
from payscope.webhooks.journal import JOURNAL_FILE, Journal
from payscope.widgets.errors import describe_error

if TYPE_CHECKING:
    from payscope.api.client import ApiClient
    from payscope.api.export import ListSource
    from payscope.views.areas import Area


def _journal_fetch(
    args: argparse.Namespace, source: ListSource, server: dict[str, Any]
) -> Callable[[int, int], Awaitable[tuple[list[Any], int | None]]]:
    """Pages of the events this profile's listener journaled (the TUI's Events list); exits 2
    when the profile's options are wrong or no listener has journaled anything yet."""
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


def run(args: argparse.Namespace, area: Area) -> int:
    """Export `area` (the one `args.area` names) as `args` say; the exit code."""
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
