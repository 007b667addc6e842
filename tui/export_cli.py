"""`payscope export AREA`: every record of an area's list that a filter matches, to CSV or JSON
Lines (tui/api/export.py writes it; the filter is the TUI's own grammar for that area)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.api.client import ApiClient
    from tui.views.filters import Grammar

AREAS = ("payments", "refunds", "disputes", "customers")


def grammar_of(area: str) -> Grammar:
    """The area's filter grammar, as its list's `/` reads it."""
    if area == "payments":
        from tui.areas.payments.spec import payment_grammar

        return payment_grammar()
    if area == "refunds":
        from tui.areas.refunds.spec import refund_grammar

        return refund_grammar()
    if area == "disputes":
        from tui.areas.disputes.spec import dispute_grammar

        return dispute_grammar()
    from tui.areas.customers.spec import customer_grammar

    return customer_grammar()


def run(args: argparse.Namespace) -> int:
    from tui.api.export import LISTS, ExportError, export_records
    from tui.headless import run_with_client

    try:
        parsed = grammar_of(args.area).parse(args.filter or "")
    except ValueError as exc:
        print(f"payscope export: the filter is not understood: {exc}", file=sys.stderr)
        return 2
    output = Path(args.output or f"{args.area}-{time.strftime('%Y%m%d-%H%M%S')}.{args.format}")
    source = LISTS[args.area]
    quiet = args.quiet

    def progress(done: int, total: int | None) -> None:
        if not quiet:
            of = f" of {total}" if total is not None else ""
            print(f"\rread {done}{of} {args.area}…", end="", file=sys.stderr, flush=True)

    async def work(client: ApiClient) -> int:
        async def fetch(offset: int, limit: int) -> tuple[list[Any], int | None]:
            return await source.read(client, parsed.server, offset, limit)

        try:
            result = await export_records(
                fetch,
                output,
                args.format,
                matches=parsed.matches if parsed.local else None,
                key=source.key,
                progress=progress,
            )
        except ExportError as exc:
            print(f"\npayscope export: {exc}", file=sys.stderr)
            return 1
        if not quiet:
            print(file=sys.stderr)
        print(f"{result.count} {args.area} written to {result.path}")
        return 0

    try:
        return run_with_client(args, work)
    except KeyboardInterrupt:
        print(f"\npayscope export: cancelled; nothing was written to {output}", file=sys.stderr)
        return 130
