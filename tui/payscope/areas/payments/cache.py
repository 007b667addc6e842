"""The last first page of Payments, kept on disk so a warm start shows real rows at once.

Only what the table shows is stored (id, status, amount, currency, created, customer): no card
data, no keys, no metadata. One small JSON file per profile under the data dir; the live page
replaces it as soon as the service answers. A cache that cannot be read is ignored (it is only
ever a head start), and one that cannot be written is skipped silently for the same reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

from payscope.core import bounded

CACHE_VERSION = 1
MAX_ROWS = 100
# Payments' page size: the cache and the list share it.
PAGE_SIZE = 100


# A NamedTuple: made at import, before the first frame (why: docs/architecture.md).
class CachedPayment(NamedTuple):
    """One table row as it was last seen (attribute names match `Payment`'s)."""

    payment_id: str
    status: str | None
    amount: int | None
    currency: str | None
    created: str | None
    customer_id: str | None


def cache_path(data_dir: Path, profile: str) -> Path:
    """Where the page of `profile` is kept (profile names are made file-safe)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", profile) or "local"
    return data_dir / "cache" / f"payments-{safe}.json"


def load_page(path: Path) -> list[CachedPayment]:
    """The cached rows, newest first; [] when there is no usable cache."""
    try:
        data = bounded.loads_json(bounded.read_text(path))
    except (OSError, ValueError):  # ValueError: not JSON, not UTF-8, too large or too deep
        return []
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
        return []
    rows = data.get("rows")
    if not isinstance(rows, list):
        return []
    page: list[CachedPayment] = []
    for row in rows[:MAX_ROWS]:
        cached = row_of(row)
        if cached is None:
            return []  # a file edited or cut short: trust none of it
        page.append(cached)
    return page


def row_of(row: Any) -> CachedPayment | None:
    if not isinstance(row, dict) or not isinstance(row.get("payment_id"), str):
        return None
    amount = row.get("amount")
    if amount is not None and (not isinstance(amount, int) or isinstance(amount, bool)):
        return None
    texts = ("status", "currency", "created", "customer_id")
    if any(row.get(key) is not None and not isinstance(row.get(key), str) for key in texts):
        return None
    return CachedPayment(
        payment_id=row["payment_id"],
        status=row.get("status"),
        amount=amount,
        currency=row.get("currency"),
        created=row.get("created"),
        customer_id=row.get("customer_id"),
    )


def to_cached(payment: Any) -> CachedPayment:
    """The shown fields of a live payment (a `Payment` model or anything with its attributes)."""
    created: Any = getattr(payment, "created", None)
    if hasattr(created, "isoformat"):
        created = created.isoformat()
    return CachedPayment(
        payment_id=str(payment.payment_id),
        status=_text(getattr(payment, "status", None)),
        amount=getattr(payment, "amount", None),
        currency=_text(getattr(payment, "currency", None)),
        created=_text(created),
        customer_id=_text(getattr(payment, "customer_id", None)),
    )


def _text(value: Any) -> str | None:
    if value is None:
        return None
    # Enums (status, currency) are stored by value so the cache reads back without the models.
    return str(getattr(value, "value", value))


def save_page(path: Path, payments: list[Any]) -> None:
    """Replace the cache with these payments (atomically: a reader never sees half a file)."""
    rows = [to_cached(p)._asdict() for p in payments[:MAX_ROWS]]
    text = json.dumps({"version": CACHE_VERSION, "rows": rows}, separators=(",", ":"))
    # The cache is a head start only: a read-only or full disk must not disturb the app.
    with contextlib.suppress(OSError):
        from payscope.core.private_files import private_dir

        private_dir(path.parent)  # 0700, as every dir payscope makes
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".payments-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
