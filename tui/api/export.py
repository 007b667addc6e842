"""Export every record a list's filter matches (all pages, not the one shown) to CSV or JSON
Lines: the writer shared by a list's export in the TUI and `payscope export`.

    result = await export_records(fetch, Path("failed.csv"), "csv", matches=flt.matches)

- **All pages:** `fetch(offset, limit)` is read page after page until the list ends; records
  matched in the view (a filter the service cannot apply) are kept by `matches`. A record seen
  twice (the list moved while it was read) is written once.
- **Nothing half-written:** the records go to a temporary file beside the chosen one, which
  takes the chosen name only once complete (`os.replace`); a cancelled or failed export removes
  its temporary file, and a file already at the chosen name is left as it was.
- **Money:** each amount stays in minor units (`amount`), with its decimal beside it
  (`amount_decimal`, in the record's `currency`'s exponent).
- **Hostile text stays text:** in CSV, a cell that starts with `=`, `+`, `-`, `@`, a tab or a
  carriage return is prefixed with `'`, so no spreadsheet reads it as a formula.

Memory is one page and the ids seen, whatever the export's size. No Textual here.
"""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import io
import json
import os
import re
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui.api.models._iso import format_minor_units

__all__ = ["FORMATS", "ExportError", "ExportResult", "export_records", "flatten", "neutralise"]

FORMATS = ("csv", "jsonl")
PAGE = 100
# A page that brings nothing new this many times in a row ends the export (a list whose
# offsets do not move would otherwise be read for ever).
_STALE_PAGES = 3
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")

Fetch = Callable[[int, int], Awaitable[tuple[list[Any], int | None]]]
Progress = Callable[[int, int | None], None]


class ExportError(Exception):
    """An export that cannot be written, said for a person (nothing was left at the path)."""


@dataclass(frozen=True)
class ExportResult:
    path: Path
    count: int
    read: int  # records read from the service (more than `count` when the view matched some)


def neutralise(text: str) -> str:
    """`text` as a CSV cell no spreadsheet runs: a leading =, +, -, @, tab or CR gets a `'`
    (a plain number, such as -12.50, stays as it is)."""
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def _as_dict(record: Any) -> dict[str, Any]:
    if isinstance(record, dict):
        return record
    dump = getattr(record, "model_dump", None)
    if dump is not None:
        data: dict[str, Any] = dump(mode="json", exclude_none=False)
        return data
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        # A journal's event (slots: no __dict__), a code explained (its info nested).
        return dataclasses.asdict(record)
    return dict(vars(record))


def _is_money(key: str, value: Any) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and (key == "amount" or key.startswith("amount_") or key.endswith("_amount"))
    )


def with_decimals(data: dict[str, Any]) -> dict[str, Any]:
    """The record with `<amount>_decimal` after each top-level amount (minor units), read in
    its `currency`; nothing added without a currency."""
    currency = data.get("currency")
    if not isinstance(currency, str) or not currency:
        return data
    out: dict[str, Any] = {}
    for key, value in data.items():
        out[key] = value
        if _is_money(key, value) and f"{key}_decimal" not in data:
            out[f"{key}_decimal"] = format_minor_units(value, currency, code=False)
    return out


def flatten(data: dict[str, Any]) -> dict[str, str]:
    """One CSV row: scalars as text, nested objects and lists as compact JSON, every text
    cell neutralised (`neutralise`)."""
    row: dict[str, str] = {}
    for key, value in data.items():
        if value is None:
            cell = ""
        elif isinstance(value, bool):
            cell = "true" if value else "false"
        elif isinstance(value, int | float):
            cell = str(value)
        elif isinstance(value, str):
            cell = value
        else:
            cell = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        row[key] = neutralise(cell)
    return row


async def _records(
    fetch: Fetch,
    matches: Callable[[Any], bool] | None,
    key: Callable[[Any], str] | None,
    progress: Progress | None,
    page_size: int,
) -> Any:
    """Every record, page after page; the next page is asked for while this one is written
    (the service's time and this side's overlap)."""
    seen: set[str] = set()
    offset = read = stale = 0
    pending: asyncio.Future[tuple[list[Any], int | None]] | None = asyncio.ensure_future(
        fetch(0, page_size)
    )
    try:
        while pending is not None:
            records, total = await pending
            pending = None
            if not records:
                break
            offset += len(records)
            read += len(records)
            more = offset < total if total is not None else len(records) >= page_size
            if more:
                pending = asyncio.ensure_future(fetch(offset, page_size))
            fresh = 0
            for record in records:
                if key is not None:
                    record_id = key(record)
                    if record_id in seen:
                        continue
                    seen.add(record_id)
                fresh += 1
                if matches is None or matches(record):
                    yield record
            if progress is not None:
                progress(read, total)
            stale = 0 if fresh else stale + 1
            if stale >= _STALE_PAGES:
                break
    finally:
        if pending is not None:  # stopped early, cancelled or failed: the read ahead too
            pending.cancel()


async def export_records(
    fetch: Fetch,
    path: Path,
    fmt: str,
    *,
    matches: Callable[[Any], bool] | None = None,
    key: Callable[[Any], str] | None = None,
    progress: Progress | None = None,
    page_size: int = PAGE,
) -> ExportResult:
    """Write every record `fetch` gives (that `matches`, when given) to `path` as `fmt`
    ("csv" or "jsonl"). See the module's docstring for the guarantees."""
    if fmt not in FORMATS:
        raise ExportError(f"the format is csv or jsonl, not {fmt!r}")
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise ExportError(f"{folder} is not a directory: nothing was written")
    if path.is_dir():
        raise ExportError(f"{path} is a directory: give a file name")
    try:
        handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=folder)
    except OSError as exc:
        raise ExportError(f"cannot write in {folder}: {exc.strerror or exc}") from None
    temp = Path(temp_name)
    count = 0
    read_box = [0]

    def counted(done: int, total: int | None) -> None:
        read_box[0] = done
        if progress is not None:
            progress(done, total)

    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            if fmt == "jsonl":
                async for record in _records(fetch, matches, key, counted, page_size):
                    data = with_decimals(_as_dict(record))
                    out.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
                    out.write("\n")
                    count += 1
            else:
                count = await _write_csv(
                    out, _records(fetch, matches, key, counted, page_size), temp
                )
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        # Cancelled (the user, Ctrl+C) or failed: the temporary file is this export's own.
        temp.unlink(missing_ok=True)
        raise
    return ExportResult(path, count, read_box[0])


async def _write_csv(out: Any, records: Any, temp: Path) -> int:
    """CSV rows; the header is every column of every row, so the rows are first kept in a
    spool file beside the export (one row of memory at a time), then copied under it."""
    columns: dict[str, None] = {}
    count = 0
    with tempfile.TemporaryFile("w+", encoding="utf-8", dir=temp.parent) as spool:
        async for record in records:
            row = flatten(with_decimals(_as_dict(record)))
            for column in row:
                columns.setdefault(column, None)
            spool.write(json.dumps(row, ensure_ascii=False))
            spool.write("\n")
            count += 1
        writer = csv.DictWriter(out, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        spool.seek(0)
        for line in _lines(spool):
            writer.writerow(json.loads(line))
    return count


def _lines(spool: io.TextIOBase) -> Iterator[str]:
    for line in spool:
        if line.strip():
            yield line


# -- the lists `payscope export` reads (the TUI reads each list through its own view) ----------


@dataclass(frozen=True)
class ListSource:
    """How one area's list is read headless: a page of it, and a record's id."""

    read: Callable[[Any, dict[str, Any], int, int], Awaitable[tuple[list[Any], int | None]]]
    key: Callable[[Any], str]


async def _payments(client: Any, filters: dict[str, Any], offset: int, limit: int) -> Any:
    from tui.api.models.payments import PaymentListRequest

    page = await client.payments.list(PaymentListRequest(limit=limit, offset=offset, **filters))
    return list(page.data), page.total_count


async def _refunds(client: Any, filters: dict[str, Any], offset: int, limit: int) -> Any:
    from tui.api.models.refunds import RefundListRequest

    page = await client.refunds.list(RefundListRequest(limit=limit, offset=offset, **filters))
    return list(page.data), page.total_count


async def _disputes(client: Any, filters: dict[str, Any], offset: int, limit: int) -> Any:
    from tui.api.models.disputes import DisputeListRequest

    page = await client.disputes.list(DisputeListRequest(limit=limit, offset=offset, **filters))
    return list(page.data), page.total_count


async def _customers(client: Any, filters: dict[str, Any], offset: int, limit: int) -> Any:
    from tui.api.errors import NotFoundError
    from tui.api.models.customers import CustomerListRequest

    wanted = filters.get("customer_id")
    if wanted is not None:  # the list route cannot filter: a whole id is read on its own
        if offset:
            return [], 1
        try:
            return [await client.customers.retrieve(wanted)], 1
        except NotFoundError:
            return [], 0
    page = await client.customers.list(CustomerListRequest(limit=limit, offset=offset))
    return list(page.data), page.total_count


LISTS: dict[str, ListSource] = {
    "payments": ListSource(_payments, lambda r: str(r.payment_id)),
    "refunds": ListSource(_refunds, lambda r: str(r.refund_id)),
    "disputes": ListSource(_disputes, lambda r: str(r.dispute_id)),
    "customers": ListSource(_customers, lambda r: str(r.customer_id)),
}
