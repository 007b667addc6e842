"""Refunds: create (full or partial, `refund_id` idempotent), list, retrieve, update.

A refund settles at once: it is answered `succeeded` and emits `refund_succeeded`, as the real
service's own sandbox processor does. The asynchronous path is the test cards': a refund of a
payment made with the refund-pending card (4000000000007726), the refund-fails card
(4000000000005126) or the refund-review card (4000000000000168) is answered `pending` and
settles on the sandbox clock, `instant` refunds 10 seconds later, `scheduled` ones an hour later
(advance the clock to skip the wait): `succeeded`, `failed`, or `review`, where it stays until
`POST /_sandbox/refunds/{id}/review` decides it. Only decided refunds emit events
(`refund_succeeded`, `refund_failed`).

What may be refunded is the amount received less the refunds that did not fail and what lost
disputes charged back (the cardholder has that already); more is refused, 400 IR_04.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from payscope.api.models.refunds import RefundCreateRequest, RefundListRequest, RefundUpdateRequest
from payscope.sandbox import cards, ids
from payscope.sandbox.clock import iso
from payscope.sandbox.db import dumps
from payscope.sandbox.errors import (
    INVALID,
    SandboxError,
    bad_state,
    conflict,
    invalid,
    missing,
    not_found,
)
from payscope.sandbox.filters import Where
from payscope.sandbox.outbox import emit
from payscope.sandbox.resource import Due, Job, Resource, SeedContext, due_rows
from payscope.sandbox.resources import disputes
from payscope.sandbox.resources.payments.store import load as load_payment
from payscope.sandbox.responses import (
    json_body,
    read_body,
    read_object,
    respond,
    respond_list,
    schema_body,
)
from payscope.sandbox.state import SandboxState, state_of

SCHEMA = """
CREATE TABLE IF NOT EXISTS refunds (
    refund_id TEXT PRIMARY KEY,
    payment_id TEXT NOT NULL,
    status TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount INTEGER NOT NULL,
    created TEXT NOT NULL,
    settle_at REAL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS refunds_payment ON refunds(payment_id);
CREATE INDEX IF NOT EXISTS refunds_created ON refunds(created);
CREATE INDEX IF NOT EXISTS refunds_settle ON refunds(settle_at) WHERE settle_at IS NOT NULL;
"""

SETTLE_SECONDS = {"instant": 10, "scheduled": 3600}
# The test cards whose refunds start `pending` and settle on the clock (what each settles to is
# decided then, by `_settle`); every other refund settles at once.
ASYNC_REFUNDS = frozenset({cards.REFUND_PENDING, cards.REFUND_FAILS, cards.REFUND_REVIEW})
MAX_REFUNDS_PER_PAYMENT = 10
REFUNDABLE = ("succeeded", "partially_captured", "partially_captured_and_capturable")

router = APIRouter(tags=["refunds"])


# What the real service answers a refund of more than is left to refund.
REFUND_EXCEEDS = "The refund amount exceeds the amount captured"


def _load(conn: sqlite3.Connection, refund_id: str) -> dict[str, Any]:
    found = conn.execute("SELECT data FROM refunds WHERE refund_id = ?", (refund_id,)).fetchone()
    if found is None:
        raise not_found("Refund", refund_id)
    data: dict[str, Any] = json.loads(found[0])
    return data


def refunded_so_far(conn: sqlite3.Connection, payment_id: str) -> tuple[int, int]:
    """(amount held by refunds that did not fail, number of refunds) for a payment."""
    found = conn.execute(
        "SELECT COALESCE(SUM(CASE WHEN status != 'failed' THEN amount ELSE 0 END), 0), COUNT(*) "
        "FROM refunds WHERE payment_id = ?",
        (payment_id,),
    ).fetchone()
    return int(found[0]), int(found[1])


@router.post(
    "/refunds",
    summary="Refund a payment (full by default, or partial)",
    openapi_extra=json_body(RefundCreateRequest),
)
async def create_refund(request: Request) -> Response:
    """Create a refund: `succeeded` at once, or `pending` for the asynchronous test cards."""
    body = await read_body(request, RefundCreateRequest)
    state = state_of(request)
    now = state.clock.now()
    refund_id = body.refund_id or ids.new_id("ref")
    refund_type = str(body.refund_type.value) if body.refund_type else "instant"
    with state.db.transaction() as conn:
        if conn.execute("SELECT 1 FROM refunds WHERE refund_id = ?", (refund_id,)).fetchone():
            raise conflict(
                "HE_01",
                f"A refund with refund_id {refund_id!r} already exists: the original request was "
                f"received. Read it with GET /refunds/{refund_id}; nothing was changed.",
            )
        payment = load_payment(conn, body.payment_id)
        if payment.status not in REFUNDABLE:
            raise bad_state("refund", "payment", payment.status, REFUNDABLE)
        received = int(payment.data.get("amount_received") or 0)
        held, count = refunded_so_far(conn, body.payment_id)
        if count >= MAX_REFUNDS_PER_PAYMENT:
            raise SandboxError(
                400,
                INVALID,
                "IR_04",
                f"Payment {body.payment_id!r} already has {count} refunds, the most allowed.",
            )
        # What lost disputes charged back went to the cardholder already: not refundable.
        lost = disputes.charged_back(conn, body.payment_id)
        left = received - held - lost
        amount = body.amount if body.amount is not None else left
        if left <= 0:
            raise SandboxError(
                400,
                INVALID,
                "IR_04",
                (
                    f"Payment {body.payment_id!r} has nothing left to refund: of {received} "
                    f"{payment.data['currency']} received, {held} is refunded and {lost} was "
                    "charged back by lost disputes."
                )
                if lost
                else f"Payment {body.payment_id!r} is already fully refunded "
                f"({held} of {received} {payment.data['currency']}).",
            )
        if amount > left and lost:
            raise invalid(
                "amount",
                amount,
                f"at most {left} (amount received {received} minus {held} already refunded "
                f"minus {lost} charged back by lost disputes)",
            )
        if amount > left:
            # The real service's words for it (the spec gives none); what is left to refund is
            # on the payment (amount_received less its refunds).
            raise SandboxError(400, INVALID, "IR_04", REFUND_EXCEEDS)
        created = iso(now)
        data = {
            "refund_id": refund_id,
            "payment_id": body.payment_id,
            "merchant_id": state.credentials.merchant_id,
            "amount": amount,
            "currency": payment.data["currency"],
            "status": "pending",
            "reason": body.reason,
            "refund_type": refund_type,
            "metadata": body.metadata,
            "created": created,
            "modified_at": created,
            "error_code": None,
            "error_message": None,
            "unified_code": None,
            "unified_message": None,
            "profile_id": state.credentials.profile_id,
            "connector": "sandbox",
        }
        conn.execute(
            "INSERT INTO refunds(refund_id, payment_id, status, currency, amount, created, "
            "settle_at, data) VALUES (?, ?, 'pending', ?, ?, ?, ?, ?)",
            (
                refund_id,
                body.payment_id,
                data["currency"],
                amount,
                created,
                now + SETTLE_SECONDS[refund_type],
                dumps(data),
            ),
        )
        if (payment.card_rule or {}).get("outcome") not in ASYNC_REFUNDS:
            _decide(conn, state, data, "succeeded", now)
        disputes.refresh_already_refunded(conn, body.payment_id)
    return respond(data)


@router.post(
    "/refunds/list",
    summary="List refunds (filters in the body), newest first",
    openapi_extra=json_body(RefundListRequest, required=False),
)
async def list_refunds(request: Request) -> Response:
    """Filters: payment_id, refund_id, refund_status[], currency[], created_gte/lte."""
    q = await read_body(request, RefundListRequest, required=False)
    where = Where()
    where.equal("payment_id", q.payment_id)
    where.equal("refund_id", q.refund_id)
    where.among("status", (str(s.value) for s in q.refund_status or ()))
    where.among("currency", q.currency)
    where.created(q.created_gte, q.created_lte)
    rows, total = where.page(state_of(request).db.conn, "refunds", q.limit, q.offset)
    return respond_list([r[0] for r in rows], total)


@router.get("/refunds/{refund_id}", summary="Retrieve a refund")
async def retrieve_refund(request: Request, refund_id: str) -> Response:
    """The refund, or 404 IR_05."""
    return respond(_load(state_of(request).db.conn, refund_id))


@router.post(
    "/refunds/{refund_id}",
    summary="Update a refund's reason or metadata",
    openapi_extra=json_body(RefundUpdateRequest),
)
async def update_refund(request: Request, refund_id: str) -> Response:
    """Only `reason` and `metadata` change."""
    body = await read_body(request, RefundUpdateRequest)
    state = state_of(request)
    with state.db.transaction() as conn:
        data = _load(conn, refund_id)
        if body.reason is not None:
            data["reason"] = body.reason
        if body.metadata is not None:
            data["metadata"] = body.metadata
        data["modified_at"] = state.clock.now_iso()
        conn.execute("UPDATE refunds SET data = ? WHERE refund_id = ?", (dumps(data), refund_id))
    return respond(data)


# -- clock job: pending refunds (of the asynchronous test cards) settle --------------------------


def _next_settle(conn: sqlite3.Connection) -> float | None:
    value = conn.execute(
        "SELECT MIN(settle_at) FROM refunds WHERE settle_at IS NOT NULL"
    ).fetchone()[0]
    return None if value is None else float(value)


def _settle(state: SandboxState, now: float) -> int:
    conn = state.db.conn
    due = conn.execute(
        "SELECT refund_id FROM refunds WHERE settle_at IS NOT NULL AND settle_at <= ?", (now,)
    ).fetchall()
    for (refund_id,) in due:
        with state.db.transaction() as tx:
            data = _load(tx, refund_id)
            payment = load_payment(tx, data["payment_id"])
            outcome = (payment.card_rule or {}).get("outcome")
            if outcome == cards.REFUND_REVIEW:
                _decide(tx, state, data, "review", now)
            else:
                _decide(
                    tx, state, data, "failed" if outcome == cards.REFUND_FAILS else "succeeded", now
                )
    return len(due)


def _decide(
    conn: sqlite3.Connection, state: SandboxState, data: dict[str, Any], status: str, now: float
) -> None:
    """Settle a refund as `status` (succeeded, failed or review), save it, and emit the event
    of a decided one (review has none)."""
    if status == "failed":
        data.update(
            {
                "error_code": "refund_failed",
                "error_message": "The issuer refused the refund: the card account is closed.",
                "unified_code": "UE_1016",
                "unified_message": cards.UNIFIED["UE_1016"][0],
            }
        )
    data["status"] = status
    data["modified_at"] = iso(now)
    conn.execute(
        "UPDATE refunds SET status = ?, settle_at = NULL, data = ? WHERE refund_id = ?",
        (status, dumps(data), data["refund_id"]),
    )
    if status == "failed":  # no longer paid back
        disputes.refresh_already_refunded(conn, str(data["payment_id"]))
    if status != "review":
        emit(
            conn,
            state,
            event_type=f"refund_{status}",
            event_class="refunds",
            object_id=str(data["refund_id"]),
            obj=data,
        )


@router.post(
    "/_sandbox/refunds/{refund_id}/review",
    summary="Decide a refund held for review (succeeded or failed)",
    tags=["sandbox controls"],
    openapi_extra=schema_body(
        {
            "type": "object",
            "properties": {"outcome": {"type": "string", "enum": ["succeeded", "failed"]}},
            "required": ["outcome"],
        }
    ),
)
async def review_refund(request: Request, refund_id: str) -> Response:
    """Body `{outcome: succeeded | failed}`: the processor's review of a refund in `review`."""
    body = await read_object(request, '{"outcome": "succeeded"}')
    outcome = body.get("outcome")
    if outcome is None:
        raise missing("outcome", 'Say how the review ended: {"outcome": "succeeded"} or "failed".')
    if outcome not in ("succeeded", "failed"):
        raise invalid("outcome", outcome, "'succeeded' or 'failed'")
    state = state_of(request)
    with state.db.transaction() as conn:
        data = _load(conn, refund_id)
        if data["status"] != "review":
            raise bad_state("decide the review of", "refund", str(data["status"]), ["review"])
        _decide(conn, state, data, str(outcome), state.clock.now())
    return respond(data)


REFUND_SHARE = 0.12
REASONS = ("requested_by_customer", "duplicate", "product_not_received", "damaged_item")


def seed_refunds(ctx: SeedContext) -> None:
    """Settled refunds (full or partial) on about 12% of the seeded captured payments."""
    rng = ctx.rng
    rows: list[tuple[Any, ...]] = []
    for p in ctx.shared.get("payments", []):
        if p.amount_received <= 0 or rng.random() >= REFUND_SHARE:
            continue
        refund_id = ids.new_id("ref", rng)
        amount = p.amount_received if rng.random() < 0.6 else max(1, p.amount_received // 2)
        created = iso(min(ctx.now - 1, p.created + rng.uniform(3600, 10 * 86400)))
        data = {
            "refund_id": refund_id,
            "payment_id": p.payment_id,
            "merchant_id": ctx.merchant_id,
            "amount": amount,
            "currency": p.currency,
            "status": "succeeded",
            "reason": rng.choice(REASONS),
            "refund_type": "instant",
            "metadata": None,
            "created": created,
            "modified_at": created,
            "error_code": None,
            "error_message": None,
            "unified_code": None,
            "unified_message": None,
            "profile_id": ctx.profile_id,
            "connector": "sandbox",
        }
        rows.append((refund_id, p.payment_id, p.currency, amount, created, dumps(data)))
    ctx.conn.executemany(
        "INSERT OR IGNORE INTO refunds(refund_id, payment_id, status, currency, amount, created,"
        " data) VALUES (?, ?, 'succeeded', ?, ?, ?, ?)",
        rows,
    )


def _due_settle(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    """What `_settle` would do between `start` and `end` (the clock's upcoming preview)."""
    rows = due_rows(
        conn,
        "SELECT settle_at, refund_id, amount, currency FROM refunds WHERE settle_at IS NOT NULL",
        "settle_at",
        start,
        end,
    )
    out = []
    for at, rid, amount, cur in rows:
        try:
            money = f"{int(amount) / 100:,.2f} {cur}"
        except (TypeError, ValueError):
            money = f"{amount} {cur}"
        out.append(Due(float(at), "refund_settles", rid, f"refund {rid} of {money} settles"))
    return out


RESOURCE = Resource(
    name="refunds",
    router=router,
    schema=SCHEMA,
    jobs=(Job("settled_refunds", _next_settle, _settle, _due_settle),),
    seed=seed_refunds,
)
