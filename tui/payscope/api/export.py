"""Export every record a list's filter matches (all pages, not the one shown) to CSV or JSON
Lines: the writer shared by a list's export in the TUI and `payscope export`.

    result = await export_records(fetch, Path("failed.csv"), "csv", matches=flt.matches)

- **All pages:** `fetch(offset, limit)` is read page after page until the list ends; records
  matched in the view (a filter the service cannot apply) are kept by `matches`. A record seen
  twice (the list moved while it was read) is written once.
- **Nothing half-written:** the records go to a temporary file beside the chosen one, which
  takes the chosen name only once complete; a cancelled or failed export removes its temporary
  file, and a file already at the chosen name is left as it was.
- **Only regular files:** a FIFO, a device, a socket, a directory, or a symlink to anything but
  a regular file is refused before a page is read (`ExportError`), never opened or replaced. A
  regular file already there is replaced only when asked (`force`; the TUI asks first); a
  symlink to one replaces the file it names, the link kept. Without `force` the finished file
  is linked in under the name (`os.link`), which fails rather than replace what appeared
  meanwhile. `out` (a text stream, `--output -`) takes the records instead of a file.
- **No secrets:** a field named like a secret (`client_secret`, `*_password`, ...:
  tui/payscope/api/secret_fields.py) is left out, at any depth.
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
import stat
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from payscope.api.models._iso import format_minor_units
from payscope.api.secret_fields import is_secret_field

__all__ = [
    "FORMATS",
    "ExportError",
    "ExportExists",
    "ExportResult",
    "check_target",
    "export_records",
    "flatten",
    "neutralise",
    "without_secrets",
]

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


class ExportExists(ExportError):
    """A regular file is already at the path, and replacing it was not asked for (`force`)."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path} already exists: nothing was written (replace it with --force, or choose "
            "another name)"
        )
        self.path = path


@dataclass(frozen=True)
class ExportResult:
    path: Path  # absolute, as given (a stream's: its name, as given)
    count: int
    read: int  # records read from the service (more than `count` when the view matched some)


_KINDS = (
    (stat.S_ISDIR, "a directory: give a file's name"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    for test, said in _KINDS:
        if test(mode):
            return said
    return "not a regular file"


def check_target(path: Path, *, force: bool = False) -> Path:
    """The regular file the export at `path` will take the place of, or `path` when nothing is
    there yet; `ExportError` for anything else (see the module's docstring), `ExportExists`
    for a regular file when not `force`. Nothing is opened or changed."""
    path = Path(path)
    refused = "export writes only regular files: nothing was written"
    try:
        own = os.lstat(path)
    except FileNotFoundError:
        own = None
    except OSError as exc:
        raise ExportError(f"cannot use {path}: {exc.strerror or exc}") from None
    target = path
    if own is not None and stat.S_ISLNK(own.st_mode):
        try:
            pointed = os.stat(path)
        except FileNotFoundError:
            raise ExportError(
                f"{path} is a symlink to nothing ({os.readlink(path)}): {refused}"
            ) from None
        except OSError as exc:
            raise ExportError(
                f"{path} is a symlink that cannot be followed: {exc.strerror}"
            ) from None
        if not stat.S_ISREG(pointed.st_mode):
            raise ExportError(
                f"{path} is a symlink to {_kind(pointed.st_mode).split(':')[0]} "
                f"({os.path.realpath(path)}): {refused}"
            )
        target = Path(os.path.realpath(path))
        own = pointed
    if own is None:
        folder = path.parent if str(path.parent) else Path(".")
        if not folder.is_dir():
            raise ExportError(f"{folder} is not a directory: nothing was written")
        return path
    if not stat.S_ISREG(own.st_mode):
        raise ExportError(f"{path} is {_kind(own.st_mode)}: {refused}")
    if not force:
        raise ExportExists(path)
    return target


def without_secrets(value: Any) -> Any:
    """`value` (decoded JSON) without its secret-like fields, at any depth."""
    if isinstance(value, dict):
        return {k: without_secrets(v) for k, v in value.items() if not is_secret_field(str(k))}
    if isinstance(value, list):
        return [without_secrets(v) for v in value]
    return value


def neutralise(text: str) -> str:
    """`text` as a CSV cell no spreadsheet runs: a leading =, +, -, @, tab or CR gets a `'`
    (a plain number, such as -12.50, stays as it is)."""
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def _as_dict(record: Any) -> dict[str, Any]:
    """The record as JSON data, its secret-like fields left out."""
    data: dict[str, Any]
    if isinstance(record, dict):
        data = record
    elif (dump := getattr(record, "model_dump", None)) is not None:
        data = dump(mode="json", exclude_none=False)
    elif dataclasses.is_dataclass(record) and not isinstance(record, type):
        # A journal's event (slots: no __dict__), a code explained (its info nested).
        data = dataclasses.asdict(record)
    else:
        data = dict(vars(record))
    cleaned: dict[str, Any] = without_secrets(data)
    return cleaned


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
    force: bool = False,
    out: TextIO | None = None,
) -> ExportResult:
    """Write every record `fetch` gives (that `matches`, when given) to `path` as `fmt`
    ("csv" or "jsonl"), or to the stream `out` when given (`path` then only names it). A
    regular file at `path` is replaced only with `force`. See the module's docstring for the
    guarantees."""
    if fmt not in FORMATS:
        raise ExportError(f"the format is csv or jsonl, not {fmt!r}")
    count = 0
    read_box = [0]

    def counted(done: int, total: int | None) -> None:
        read_box[0] = done
        if progress is not None:
            progress(done, total)

    async def write(stream: TextIO, spool_dir: Path | None) -> int:
        records = _records(fetch, matches, key, counted, page_size)
        if fmt == "csv":
            return await _write_csv(stream, records, spool_dir)
        written = 0
        async for record in records:
            data = with_decimals(_as_dict(record))
            stream.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
            stream.write("\n")
            written += 1
        return written

    if out is not None:
        count = await write(out, None)
        out.flush()
        return ExportResult(Path(path), count, read_box[0])
    path = Path(path).absolute()
    target = check_target(path, force=force)
    folder = target.parent
    try:
        handle, temp_name = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".partial", dir=folder
        )
    except OSError as exc:
        raise ExportError(f"cannot write in {folder}: {exc.strerror or exc}") from None
    temp = Path(temp_name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            count = await write(stream, folder)
            stream.flush()
            os.fsync(stream.fileno())
        _put(temp, target, force=force)
    except BaseException:
        # Cancelled (the user, Ctrl+C) or failed: the temporary file is this export's own.
        temp.unlink(missing_ok=True)
        raise
    return ExportResult(path, count, read_box[0])


def _put(temp: Path, target: Path, *, force: bool) -> None:
    """The finished `temp` under the name `target`: a new name by a link (it fails, rather
    than replace, when something appeared there meanwhile), a regular file (with `force`) by a
    rename after it is checked again."""
    if not force or not os.path.lexists(target):
        try:
            os.link(temp, target)
        except FileExistsError:
            check_target(target, force=force)  # says what is there now
            if not force:
                raise ExportExists(target) from None
        except OSError:  # a file system without hard links: the rename, checked just before
            if os.path.lexists(target):
                raise ExportExists(target) from None
            os.replace(temp, target)
            return
        else:
            temp.unlink()
            return
    check_target(target, force=True)
    os.replace(temp, target)


async def _write_csv(out: Any, records: Any, spool_dir: Path | None) -> int:
    """CSV rows; the header is every column of every row, so the rows are first kept in a
    spool file beside the export (one row of memory at a time), then copied under it."""
    columns: dict[str, None] = {}
    count = 0
    with tempfile.TemporaryFile("w+", encoding="utf-8", dir=spool_dir) as spool:
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


# -- how `payscope export` reads an area's list (each area's `AREA.export` names its own) --------


@dataclass(frozen=True)
class ListSource:
    """How one area's list is read headless: a page of it, and a record's id.

    `read(reader, filters, offset, limit)` gives a page and the total (None: unknown); its
    reader is the `ApiClient`, or, when `journal`, this profile's webhook journal (the events
    the listener received, which the service does not list)."""

    read: Callable[[Any, dict[str, Any], int, int], Awaitable[tuple[list[Any], int | None]]]
    key: Callable[[Any], str]
    journal: bool = False
