"""Subscriptions on a remote profile: the service has no route that lists them.

What payscope knows instead: the subscriptions named by the `invoice_paid` webhooks its listener
received (they carry the subscription object), and those its own requests made or read this
session (the request journal). Each is read again with `GET /subscriptions/{id}`. The renewal
history of one comes from the same webhooks. Kept small on purpose: the local sandbox has real
lists (`/_sandbox/subscriptions`), which is what most users see.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from payscope.api.errors import NotFoundError

if TYPE_CHECKING:
    from payscope.app.runtime import Runtime

# The newest this many ids are read (each is one GET).
MOST = 100
EVENTS_LOOKED_AT = 500
READS_AT_ONCE = 6
_PATH_ID = re.compile(r"^/subscriptions/(sub_[A-Za-z0-9_-]+)")
_BODY_ID = re.compile(r'"id"\s*:\s*"(sub_[A-Za-z0-9_-]+)"')

SOURCE_NOTE = (
    "the service has no list of subscriptions: these are the ones payscope has seen, in "
    "invoice_paid webhooks and in its own requests"
)


@dataclass(frozen=True)
class Renewal:
    """One invoice of a subscription's renewal history, with the payment that settled it."""

    invoice_id: str
    status: str | None
    amount: int | None
    currency: str | None
    when: str | None  # ISO 8601
    payment_id: str | None
    payment_status: str | None
    code: str | None


def _object(body: bytes) -> tuple[dict[str, Any], str | None]:
    """(content.object, timestamp) of a webhook body ({} when it is not one)."""
    try:
        payload = json.loads(body)
    except ValueError:
        return {}, None
    if not isinstance(payload, dict):
        return {}, None
    content = payload.get("content")
    obj = content.get("object") if isinstance(content, dict) else None
    stamp = payload.get("timestamp")
    return (obj if isinstance(obj, dict) else {}), (stamp if isinstance(stamp, str) else None)


def _part(obj: dict[str, Any], key: str) -> dict[str, Any]:
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def _subscription_id(obj: dict[str, Any]) -> str | None:
    for key in ("subscription_id", "id"):
        value = obj.get(key)
        if isinstance(value, str) and value.startswith("sub_"):
            return value
    invoice = obj.get("invoice")
    if isinstance(invoice, dict) and isinstance(invoice.get("subscription_id"), str):
        return str(invoice["subscription_id"])
    return None


def seen_ids(runtime: Runtime) -> list[str]:
    """Subscription ids payscope has seen, the most recently seen first (MOST at most)."""
    found: dict[str, None] = {}
    for entry in reversed(runtime.api.journal.entries()):
        if not entry.ok:
            continue
        match = _PATH_ID.match(entry.path)
        if match:
            found.setdefault(match.group(1))
        elif entry.method == "POST" and entry.path == "/subscriptions" and entry.response_body:
            # The answer's id (a long answer is stored cut: not parsed as JSON).
            made = _BODY_ID.search(entry.response_body)
            if made:
                found.setdefault(made.group(1))
    listener = runtime.listener
    if listener is not None:
        journal = listener.journal
        for event in journal.recent(EVENTS_LOOKED_AT, 0, "invoice_paid"):
            sub_id = event.object_id if (event.object_id or "").startswith("sub_") else None
            if sub_id is None:
                detail = journal.get(event.event_id)
                sub_id = _subscription_id(_object(detail.delivery.body)[0]) if detail else None
            if sub_id:
                found.setdefault(sub_id)
    return list(found)[:MOST]


def _matches(sub: Any, filters: dict[str, Any]) -> bool:
    statuses = filters.get("status")
    if statuses and sub.status not in statuses:
        return False
    for field in ("customer_id", "plan_id"):
        if filters.get(field) is not None and getattr(sub, field) != filters[field]:
            return False
    return True


async def page(
    runtime: Runtime, filters: dict[str, Any], offset: int, limit: int
) -> tuple[list[Any], int]:
    """The subscriptions seen, read again, filtered as the sandbox's list would: newest first."""
    api = runtime.api
    gate = asyncio.Semaphore(READS_AT_ONCE)

    async def read(sub_id: str) -> Any:
        async with gate:
            try:
                return await api.subscriptions.retrieve(sub_id)
            except NotFoundError:
                return None  # another profile's, or gone

    read_all = await asyncio.gather(*(read(i) for i in seen_ids(runtime)))
    subs = [s for s in read_all if s is not None and _matches(s, filters)]
    subs.sort(key=lambda s: s.created_at or "", reverse=True)
    return subs[offset : offset + limit], len(subs)


def renewals(runtime: Runtime, subscription_id: str, most: int) -> list[Renewal]:
    """The subscription's invoices from the `invoice_paid` webhooks received, newest first."""
    listener = runtime.listener
    if listener is None:
        return []
    journal = listener.journal
    found: dict[str, Renewal] = {}
    for event in journal.recent(EVENTS_LOOKED_AT, 0, "invoice_paid"):
        detail = journal.get(event.event_id)
        if detail is None:
            continue
        obj, stamp = _object(detail.delivery.body)
        if _subscription_id(obj) != subscription_id:
            continue
        invoice = _part(obj, "invoice")
        payment = _part(obj, "payment")
        invoice_id = str(invoice.get("id") or event.event_id)
        found.setdefault(
            invoice_id,
            Renewal(
                invoice_id=invoice_id,
                status=invoice.get("status") or "invoice_paid",
                amount=invoice.get("amount"),
                currency=invoice.get("currency"),
                when=stamp,
                payment_id=invoice.get("payment_intent_id") or payment.get("payment_id"),
                payment_status=payment.get("status"),
                code=payment.get("unified_code") or payment.get("error_code"),
            ),
        )
        if len(found) >= most:
            break
    return list(found.values())
