"""`payscope export AREA`: every record of an area's list that a filter matches, to CSV or JSON
Lines (tui/api/export.py writes it; the filter is the TUI's own grammar for that area).

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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.api.terminal import safe_text, say

if TYPE_CHECKING:
    from tui.api.client import ApiClient
    from tui.api.export import ListSource
    from tui.views.filters import Grammar


@dataclass(frozen=True)
class Area:
    """One exportable list: its filter grammar, how a page of it is read, a record's id."""

    grammar: Callable[[], Grammar]
    # How the service's list is read (None: the events, read from the webhook journal).
    source: Callable[[], ListSource] | None


def _api_list(name: str) -> Callable[[], ListSource]:
    def source() -> ListSource:
        from tui.api.export import LISTS

        return LISTS[name]

    return source


def _payments_grammar() -> Grammar:
    from tui.areas.payments.spec import payment_grammar

    return payment_grammar()


def _refunds_grammar() -> Grammar:
    from tui.areas.refunds.spec import refund_grammar

    return refund_grammar()


def _disputes_grammar() -> Grammar:
    from tui.areas.disputes.spec import dispute_grammar

    return dispute_grammar()


def _customers_grammar() -> Grammar:
    from tui.areas.customers.spec import customer_grammar

    return customer_grammar()


def _payouts() -> ListSource:
    from tui.api.export import ListSource
    from tui.areas.payouts.spec import read_page

    return ListSource(read_page, lambda r: str(r.payout_id))


def _payouts_grammar() -> Grammar:
    from tui.areas.payouts.spec import payout_grammar

    return payout_grammar()


def _subscriptions() -> ListSource:
    from tui.api.export import ListSource
    from tui.areas.subscriptions.spec import read_sandbox_page

    return ListSource(read_sandbox_page, lambda r: str(r.id))


def _subscriptions_grammar() -> Grammar:
    from tui.areas.subscriptions.spec import subscription_grammar

    return subscription_grammar()


def _links() -> ListSource:
    from tui.api.export import ListSource
    from tui.areas.links.spec import read_page

    return ListSource(read_page, lambda r: str(r.payment_link_id))


def _links_grammar() -> Grammar:
    from tui.areas.links.spec import link_grammar

    return link_grammar()


def _users() -> ListSource:
    from tui.api.export import ListSource
    from tui.areas.users.actions import users_page

    async def read(api: Any, _filters: dict[str, Any], offset: int, limit: int) -> Any:
        return await users_page(api, offset, limit)

    return ListSource(read, lambda r: str(r.email))


def _users_grammar() -> Grammar:
    from tui.areas.users.spec import user_grammar

    return user_grammar()


def _codes() -> ListSource:
    from tui.api.export import ListSource
    from tui.areas.codes.view import code_rows

    async def read(api: Any, _filters: dict[str, Any], offset: int, limit: int) -> Any:
        rows = code_rows({})
        return rows[offset : offset + limit], len(rows)

    return ListSource(read, lambda r: str(r.code))


def _codes_grammar() -> Grammar:
    from tui.areas.codes.view import code_grammar

    return code_grammar()


def _events_grammar() -> Grammar:
    from tui.areas.events.spec import EVENT_GRAMMAR

    return EVENT_GRAMMAR


AREAS: dict[str, Area] = {
    "payments": Area(_payments_grammar, _api_list("payments")),
    "refunds": Area(_refunds_grammar, _api_list("refunds")),
    "disputes": Area(_disputes_grammar, _api_list("disputes")),
    "customers": Area(_customers_grammar, _api_list("customers")),
    "payouts": Area(_payouts_grammar, _payouts),
    "subscriptions": Area(_subscriptions_grammar, _subscriptions),
    "links": Area(_links_grammar, _links),
    "users": Area(_users_grammar, _users),
    "codes": Area(_codes_grammar, _codes),
    # Read from this profile's webhook journal, not the service (`_events_fetch`).
    "events": Area(_events_grammar, None),
}


def _events_fetch(
    args: argparse.Namespace, server: dict[str, Any]
) -> Callable[[int, int], Awaitable[tuple[list[Any], int | None]]]:
    """Pages of the events this profile's listener journaled (the TUI's Events list); exits 2
    when the profile's options are wrong or no listener has journaled anything yet."""
    from tui.areas.events.spec import journal_page
    from tui.headless import runtime_options
    from tui.runtime import OptionsError, listener_dir_for
    from tui.webhooks.journal import JOURNAL_FILE, Journal

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
        records, total = journal_page(journal, server, offset, limit)
        return records, total

    return fetch


def run(args: argparse.Namespace) -> int:
    import asyncio

    from tui.api.errors import ClientError
    from tui.api.export import ExportError, check_target, export_records
    from tui.headless import run_with_client
    from tui.widgets.errors import describe_error

    area = AREAS[args.area]
    try:
        parsed = area.grammar().parse(args.filter or "")
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

    async def work(client: ApiClient) -> int:
        assert area.source is not None
        source = area.source()

        async def fetch(offset: int, limit: int) -> tuple[list[Any], int | None]:
            return await source.read(client, parsed.server, offset, limit)

        return await write(fetch, source.key)

    try:
        if area.source is None:
            return asyncio.run(write(_events_fetch(args, parsed.server), lambda r: r.event_id))
        return run_with_client(args, work)
    except KeyboardInterrupt:
        say(f"\npayscope export: cancelled; nothing was written to {where}", file=sys.stderr)
        return 130
