"""What advancing the sandbox clock would set off, said before it happens.

`GET /_sandbox/clock/upcoming?seconds=N` answers the timed work due between now and now + N:
payments whose authorisation or customer action expires (or that settle after processing),
refunds that settle, disputes that open or pass their evidence deadline, payment links that
expire, payouts that move on, subscriptions that renew or change as scheduled, and webhook
deliveries that are retried. Each reader below matches one clock job (`Job` in a resource
module) and reads the same columns that job reads.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Final

from tui.sandbox.clock import iso

# Enough to show in a preview; `total` still counts every item.
MAX_ITEMS: Final = 200


@dataclass(frozen=True)
class Due:
    """One thing that falls due: when, what kind, which object, and a sentence about it."""

    at: float
    kind: str
    object_id: str
    text: str

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["at"] = iso(self.at)
        return out


Reader = Callable[[sqlite3.Connection, float, float], list[Due]]


def _rows(conn: sqlite3.Connection, sql: str, start: float, end: float) -> list[tuple[Any, ...]]:
    return conn.execute(sql, (start, end, MAX_ITEMS)).fetchall()


def _money(amount: Any, currency: Any) -> str:
    try:
        return f"{int(amount) / 100:,.2f} {currency}"
    except (TypeError, ValueError):
        return f"{amount} {currency}"


def _payments(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    rows = _rows(
        conn,
        "SELECT expires_at, payment_id, status FROM payments WHERE expires_at IS NOT NULL "
        "AND expires_at > ? AND expires_at <= ? ORDER BY expires_at LIMIT ?",
        start,
        end,
    )
    return [
        Due(float(at), "payment_settles", pid, f"payment {pid} (processing) settles")
        if status == "processing"
        else Due(float(at), "payment_expiry", pid, f"payment {pid} ({status}) expires")
        for at, pid, status in rows
    ]


def _refunds(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    rows = _rows(
        conn,
        "SELECT settle_at, refund_id, amount, currency FROM refunds WHERE settle_at IS NOT NULL "
        "AND settle_at > ? AND settle_at <= ? ORDER BY settle_at LIMIT ?",
        start,
        end,
    )
    return [
        Due(float(at), "refund_settles", rid, f"refund {rid} of {_money(amount, cur)} settles")
        for at, rid, amount, cur in rows
    ]


def _disputes(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    opened = _rows(
        conn,
        "SELECT due_at, payment_id, reason FROM dispute_schedule WHERE opened_at IS NULL "
        "AND due_at > ? AND due_at <= ? ORDER BY due_at LIMIT ?",
        start,
        end,
    )
    expiring = _rows(
        conn,
        "SELECT expires_at, dispute_id, status FROM disputes WHERE expires_at IS NOT NULL "
        "AND expires_at > ? AND expires_at <= ? ORDER BY expires_at LIMIT ?",
        start,
        end,
    )
    return [
        Due(float(at), "dispute_opens", pid, f"a dispute ({reason}) opens on payment {pid}")
        for at, pid, reason in opened
    ] + [
        Due(float(at), "dispute_expires", did, f"dispute {did} ({status}) passes its deadline")
        for at, did, status in expiring
    ]


def _links(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    rows = _rows(
        conn,
        "SELECT expires_at, payment_link_id FROM payment_links WHERE status = 'active' "
        "AND expires_at > ? AND expires_at <= ? ORDER BY expires_at LIMIT ?",
        start,
        end,
    )
    return [Due(float(at), "link_expires", lid, f"payment link {lid} expires") for at, lid in rows]


def _payouts(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    rows = _rows(
        conn,
        "SELECT due_at, payout_id, status FROM payouts WHERE due_at IS NOT NULL "
        "AND due_at > ? AND due_at <= ? ORDER BY due_at LIMIT ?",
        start,
        end,
    )
    return [
        Due(float(at), "payout_moves", pid, f"payout {pid} moves on from {status}")
        for at, pid, status in rows
    ]


def _subscriptions(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    renewals = _rows(
        conn,
        "SELECT billing_at, id, data FROM subscriptions WHERE billing_at IS NOT NULL "
        "AND billing_at > ? AND billing_at <= ? ORDER BY billing_at LIMIT ?",
        start,
        end,
    )
    scheduled = _rows(
        conn,
        "SELECT scheduled_at, id, data FROM subscriptions WHERE scheduled_at IS NOT NULL "
        "AND scheduled_at > ? AND scheduled_at <= ? ORDER BY scheduled_at LIMIT ?",
        start,
        end,
    )
    out: list[Due] = []
    for at, sub_id, data in renewals:
        sub = json.loads(data)
        kind = "trial ends and it is charged" if sub.get("status") == "trial" else "renews"
        out.append(Due(float(at), "subscription_renews", sub_id, f"subscription {sub_id} {kind}"))
    for at, sub_id, data in scheduled:
        change = (json.loads(data).get("scheduled_change") or {}).get("action") or "change"
        out.append(
            Due(
                float(at),
                "subscription_change",
                sub_id,
                f"subscription {sub_id}: the scheduled {change} applies",
            )
        )
    return out


def _webhooks(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    rows = _rows(
        conn,
        "SELECT next_attempt_at, event_id, event_type, retries FROM events "
        "WHERE next_attempt_at IS NOT NULL AND next_attempt_at > ? AND next_attempt_at <= ? "
        "ORDER BY next_attempt_at LIMIT ?",
        start,
        end,
    )
    return [
        Due(
            float(at),
            "webhook_retry",
            eid,
            f"webhook {eid} ({etype}) is sent again (retry {int(retries) + 1})",
        )
        for at, eid, etype, retries in rows
    ]


READERS: Final[tuple[Reader, ...]] = (
    _payments,
    _refunds,
    _disputes,
    _links,
    _payouts,
    _subscriptions,
    _webhooks,
)


def upcoming(
    conn: sqlite3.Connection, start: float, end: float, *, webhooks: bool = True
) -> tuple[list[Due], int]:
    """Everything due after `start` up to and including `end`, soonest first (at most
    `MAX_ITEMS`), and how many there are in all (each reader counts up to `MAX_ITEMS`)."""
    found: list[Due] = []
    for reader in READERS:
        if reader is _webhooks and not webhooks:
            continue
        found.extend(reader(conn, start, end))
    found.sort(key=lambda due: (due.at, due.kind, due.object_id))
    return found[:MAX_ITEMS], len(found)
