"""Disputes: opened by the card network only, answered by the merchant, decided by the network.

    (network) POST /_sandbox/disputes, or the dispute test card (4000000000000259) some
              sandbox-hours after its money was taken  ->  dispute_opened
    dispute_opened  -- POST /disputes/accept/{id}  -> dispute_accepted
                    -- POST /disputes/evidence     -> dispute_challenged
                    -- clock passes challenge_required_by -> dispute_expired
    dispute_opened | dispute_challenged -- POST /_sandbox/disputes/{id}/resolve -> won | lost

A lost dispute charges its amount back: a later dispute on the payment may take at most what
lost ones left (400 IR_04 beyond, and when nothing is left), and refunds may not take it again
(resources/refunds.py).

Every status change emits its event (`dispute_<status>`) through the outbox, in the same
transaction. Evidence is stored as submitted (flat) and returned grouped by category.

Beside the spec's fields, a dispute carries what the real service always sends: the sandbox
connector's own `connector_dispute_id` and `connector_status` (`CONNECTOR_STATUS`), and
`is_already_refunded`: true once a lost dispute plus the payment's refunds exceed what was
captured (the merchant paid the money back twice).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from payscope.api.models.disputes import (
    EVIDENCE_CATEGORIES,
    NETWORK_REASONS,
    OPENING_STAGES,
    DisputeEvidenceSubmit,
    DisputeListRequest,
)
from payscope.sandbox import ids
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
from payscope.sandbox.resource import Due, Job, Resource, SeedContext, due_list
from payscope.sandbox.resources._support import validate
from payscope.sandbox.resources.payments.store import load as load_payment
from payscope.sandbox.responses import (
    json_body,
    read_object,
    respond,
    respond_list,
    schema_body,
    validate_query,
)
from payscope.sandbox.state import SandboxState, state_of

SCHEMA = """
CREATE TABLE IF NOT EXISTS disputes (
    dispute_id TEXT PRIMARY KEY,
    payment_id TEXT NOT NULL,
    status TEXT NOT NULL,
    stage TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount INTEGER NOT NULL,
    created TEXT NOT NULL,
    profile_id TEXT NOT NULL,
    expires_at REAL,
    evidence TEXT,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS disputes_created ON disputes(created);
CREATE INDEX IF NOT EXISTS disputes_payment ON disputes(payment_id);
CREATE INDEX IF NOT EXISTS disputes_expiry ON disputes(expires_at) WHERE expires_at IS NOT NULL;
"""

# How long the merchant has to answer before the dispute expires (sandbox clock).
CHALLENGE_WINDOW: Final = 7 * 86400

OPENED: Final = "dispute_opened"
CHALLENGED: Final = "dispute_challenged"
OPEN_STATUSES: Final = (OPENED, CHALLENGED)

# Allowed status changes; every other one is refused (and property-tested).
EDGES: Final[dict[str, tuple[str, ...]]] = {
    OPENED: ("dispute_accepted", CHALLENGED, "dispute_expired", "dispute_won", "dispute_lost"),
    CHALLENGED: ("dispute_won", "dispute_lost"),
}

# The network's reason -> its reason code (Visa-style), shown as connector_reason_code.
# dispute_status -> the sandbox connector's own word for it (a pre-dispute is only a warning).
CONNECTOR_STATUS: Final[dict[str, str]] = {
    OPENED: "needs_response",
    CHALLENGED: "under_review",
    "dispute_accepted": "accepted",
    "dispute_expired": "expired",
    "dispute_won": "won",
    "dispute_lost": "lost",
    "dispute_cancelled": "cancelled",
}


def connector_status(status: str, stage: str) -> str:
    """What the sandbox connector calls a dispute in `status` at `stage`."""
    word = CONNECTOR_STATUS.get(status, status)
    return f"warning_{word}" if stage == "pre_dispute" and status == OPENED else word


def already_refunded(conn: sqlite3.Connection, data: dict[str, Any]) -> bool:
    """`is_already_refunded`: a lost dispute's amount plus the payment's refunds (those not
    failed) exceed the amount captured."""
    if data["dispute_status"] != "dispute_lost":
        return False
    found = conn.execute(
        "SELECT COALESCE(SUM(amount), 0) FROM refunds WHERE payment_id = ? AND status != 'failed'",
        (data["payment_id"],),
    ).fetchone()
    received = conn.execute(
        "SELECT json_extract(data, '$.amount_received') FROM payments WHERE payment_id = ?",
        (data["payment_id"],),
    ).fetchone()
    captured = int(received[0] or 0) if received else 0
    return int(found[0]) + int(data["amount"]) > captured


def charged_back(conn: sqlite3.Connection, payment_id: str) -> int:
    """What the payment's lost disputes took back (their amounts): the cardholder has it, so
    it is neither refunded nor disputed again."""
    found = conn.execute(
        "SELECT COALESCE(SUM(amount), 0) FROM disputes WHERE payment_id = ? AND status = ?",
        (payment_id, "dispute_lost"),
    ).fetchone()
    return int(found[0])


def refresh_already_refunded(conn: sqlite3.Connection, payment_id: str) -> None:
    """Recompute `is_already_refunded` on the payment's lost disputes (its refunds changed)."""
    for dispute_id, raw in conn.execute(
        "SELECT dispute_id, data FROM disputes WHERE payment_id = ? AND status = 'dispute_lost'",
        (payment_id,),
    ).fetchall():
        data = json.loads(raw)
        flag = already_refunded(conn, data)
        if data.get("is_already_refunded") != flag:
            data["is_already_refunded"] = flag
            conn.execute(
                "UPDATE disputes SET data = ? WHERE dispute_id = ?", (dumps(data), dispute_id)
            )


router = APIRouter(tags=["disputes"])


def _load(conn: sqlite3.Connection, dispute_id: str) -> dict[str, Any]:
    found = conn.execute("SELECT data FROM disputes WHERE dispute_id = ?", (dispute_id,)).fetchone()
    if found is None:
        raise not_found("Dispute", dispute_id)
    data: dict[str, Any] = json.loads(found[0])
    return data


def _save(conn: sqlite3.Connection, data: dict[str, Any], expires_at: float | None) -> None:
    conn.execute(
        "UPDATE disputes SET status = ?, stage = ?, expires_at = ?, data = ? WHERE dispute_id = ?",
        (
            data["dispute_status"],
            data["dispute_stage"],
            expires_at,
            dumps(data),
            data["dispute_id"],
        ),
    )


def _move(
    conn: sqlite3.Connection, state: SandboxState, data: dict[str, Any], to: str, now: float
) -> None:
    """Change status along an allowed edge, save, and emit the status's event."""
    current = str(data["dispute_status"])
    if to not in EDGES.get(current, ()):
        expected = [s for s, outs in EDGES.items() if to in outs]
        raise bad_state(_ACTIONS.get(to, "change"), "dispute", current, expected)
    data["dispute_status"] = data["status"] = to
    data["connector_status"] = connector_status(to, str(data["dispute_stage"]))
    data["is_already_refunded"] = already_refunded(conn, data)
    data["modified_at"] = iso(now)
    _save(conn, data, None)
    _emit(conn, state, data)


_ACTIONS = {
    "dispute_accepted": "accept",
    CHALLENGED: "submit evidence for",
    "dispute_won": "resolve",
    "dispute_lost": "resolve",
    "dispute_expired": "expire",
}


def _emit(conn: sqlite3.Connection, state: SandboxState, data: dict[str, Any]) -> None:
    emit(
        conn,
        state,
        event_type=str(data["dispute_status"]),
        event_class="disputes",
        object_id=str(data["dispute_id"]),
        obj=data,
    )


def open_dispute(
    conn: sqlite3.Connection,
    state: SandboxState,
    payment_id: str,
    *,
    amount: int | None,
    reason: str,
    stage: str,
    now: float,
) -> dict[str, Any]:
    """The network opens a dispute on a payment whose money was taken (in `conn`'s transaction)."""
    payment = load_payment(conn, payment_id)
    received = int(payment.data.get("amount_received") or 0)
    if received <= 0:
        raise bad_state("dispute", "payment", payment.status, ["succeeded", "partially_captured"])
    busy = conn.execute(
        f"SELECT dispute_id FROM disputes WHERE payment_id = ? AND status IN "
        f"({','.join('?' * len(OPEN_STATUSES))})",
        (payment_id, *OPEN_STATUSES),
    ).fetchone()
    if busy is not None:
        raise conflict(
            "IR_04",
            f"Payment {payment_id!r} already has an open dispute ({busy[0]}); resolve it first "
            f"with POST /_sandbox/disputes/{busy[0]}/resolve.",
        )
    lost = charged_back(conn, payment_id)
    left = received - lost
    if left <= 0:
        raise SandboxError(
            400,
            INVALID,
            "IR_04",
            f"Payment {payment_id!r} was charged back in full by lost disputes ({lost} of "
            f"{received} {payment.data['currency']}): nothing is left to dispute.",
        )
    amount = left if amount is None else amount
    if not 0 < amount <= left:
        if lost:
            raise invalid(
                "amount",
                amount,
                f"1 to {left} (amount received {received} minus {lost} charged back by lost "
                "disputes)",
            )
        raise invalid("amount", amount, f"1 to {received} (the amount received)")
    dispute_id = ids.new_id("dp")
    created = iso(now)
    data = _record(
        dispute_id,
        payment_id,
        amount,
        str(payment.data["currency"]),
        reason,
        stage,
        OPENED,
        created,
        iso(now + CHALLENGE_WINDOW),
        state.credentials.profile_id,
        state.credentials.merchant_id,
    )
    conn.execute(
        "INSERT INTO disputes(dispute_id, payment_id, status, stage, currency, amount, created, "
        "profile_id, expires_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            dispute_id,
            payment_id,
            OPENED,
            stage,
            data["currency"],
            amount,
            created,
            data["profile_id"],
            now + CHALLENGE_WINDOW,
            dumps(data),
        ),
    )
    _emit(conn, state, data)
    return data


def _record(
    dispute_id: str,
    payment_id: str,
    amount: int,
    currency: str,
    reason: str,
    stage: str,
    status: str,
    created: str,
    challenge_by: str,
    profile_id: str,
    merchant_id: str,
) -> dict[str, Any]:
    return {
        "dispute_id": dispute_id,
        "payment_id": payment_id,
        "attempt_id": f"{payment_id}_1",
        "merchant_id": merchant_id,
        "amount": amount,
        "currency": currency,
        "status": status,
        "dispute_status": status,
        "dispute_stage": stage,
        "reason": reason,
        "connector_reason": reason,
        "connector_reason_code": NETWORK_REASONS.get(reason, "13.7"),
        "connector_status": connector_status(status, stage),
        "connector_dispute_id": "sbx_" + dispute_id.removeprefix("dp_"),
        "is_already_refunded": False,
        "challenge_required_by": challenge_by,
        "created": created,
        "created_at": created,
        "modified_at": created,
        "profile_id": profile_id,
        "connector": "sandbox",
        "evidence_submitted_at": None,
    }


# -- merchant routes ---------------------------------------------------------------------------


@router.get("/disputes/list", summary="List disputes (filters in the query string), newest first")
async def list_disputes_get(request: Request) -> Response:
    """`?limit=` (default 10, max 100), `offset`, `status`, `payment_id`, `dispute_stage`."""
    return _list(state_of(request), validate_query(DisputeListRequest, request.query_params))


@router.post(
    "/disputes/list",
    summary="List disputes (filters in the body), newest first",
    openapi_extra=json_body(DisputeListRequest, required=False),
)
async def list_disputes_post(request: Request) -> Response:
    """The spec example's form: the same filters as a JSON body."""
    body = await read_object(request, '{"limit": 10, "status": "dispute_opened"}')
    return _list(state_of(request), validate(DisputeListRequest, body))


def _list(state: SandboxState, q: DisputeListRequest) -> Response:
    where = Where()
    where.equal("status", str(q.status.value) if q.status is not None else None)
    where.equal("payment_id", q.payment_id)
    where.equal("stage", str(q.dispute_stage.value) if q.dispute_stage is not None else None)
    where.created(q.created_gte, q.created_lte)
    rows, total = where.page(state.db.conn, "disputes", q.limit, q.offset)
    return respond_list([r[0] for r in rows], total)


@router.get("/disputes/evidence/{dispute_id}", summary="The evidence submitted for a dispute")
async def get_evidence(request: Request, dispute_id: str) -> Response:
    """Grouped by category, empty categories left out, exactly the fields submitted."""
    conn = state_of(request).db.conn
    found = conn.execute(
        "SELECT evidence, data FROM disputes WHERE dispute_id = ?", (dispute_id,)
    ).fetchone()
    if found is None:
        raise not_found("Dispute", dispute_id)
    flat: dict[str, str] = json.loads(found[0]) if found[0] else {}
    grouped: dict[str, dict[str, str]] = {}
    for name, value in flat.items():
        grouped.setdefault(EVIDENCE_CATEGORIES[name], {})[name] = value
    submitted_at = json.loads(found[1]).get("evidence_submitted_at")
    return respond(
        {"dispute_id": dispute_id, "evidence_submitted_at": submitted_at, "evidence": grouped}
    )


@router.post(
    "/disputes/evidence",
    summary="Submit evidence: challenges an open dispute",
    openapi_extra=json_body(DisputeEvidenceSubmit),
)
async def submit_evidence(request: Request) -> Response:
    """Flat evidence fields (file fields take file ids); the dispute becomes dispute_challenged.

    Evidence may be replaced while the dispute is challenged and undecided.
    """
    raw = await read_object(request, '{"dispute_id": "dp_...", "product_description": "..."}')
    unknown = sorted(k for k in raw if k != "dispute_id" and k not in EVIDENCE_CATEGORIES)
    if unknown:
        raise invalid(
            unknown[0],
            raw[unknown[0]],
            "one of the evidence fields " + ", ".join(EVIDENCE_CATEGORIES),
        )
    body = validate(DisputeEvidenceSubmit, raw)
    state = state_of(request)
    now = state.clock.now()
    flat = {k: v for fields in body.grouped().values() for k, v in fields.items()}
    with state.db.transaction() as conn:
        data = _load(conn, body.dispute_id)
        data["evidence_submitted_at"] = iso(now)
        if data["dispute_status"] == CHALLENGED:
            data["modified_at"] = iso(now)
            _save(conn, data, None)
        else:
            _move(conn, state, data, CHALLENGED, now)
        conn.execute(
            "UPDATE disputes SET evidence = ? WHERE dispute_id = ?", (dumps(flat), body.dispute_id)
        )
    return respond(data)


@router.post("/disputes/accept/{dispute_id}", summary="Accept (concede) an open dispute")
async def accept_dispute(request: Request, dispute_id: str) -> Response:
    """dispute_opened -> dispute_accepted: the merchant does not contest it."""
    state = state_of(request)
    with state.db.transaction() as conn:
        data = _load(conn, dispute_id)
        _move(conn, state, data, "dispute_accepted", state.clock.now())
    return respond(data)


@router.get("/disputes/{dispute_id}", summary="Retrieve a dispute")
async def retrieve_dispute(request: Request, dispute_id: str) -> Response:
    """The dispute record, or 404 IR_05."""
    return respond(_load(state_of(request).db.conn, dispute_id))


# -- the network's controls --------------------------------------------------------------------


@router.post(
    "/_sandbox/disputes",
    summary="The card network opens a dispute",
    tags=["sandbox controls"],
    openapi_extra=schema_body(
        {
            "type": "object",
            "properties": {
                "payment_id": {"type": "string"},
                "amount": {"type": "integer", "description": "default: the amount received"},
                "reason": {
                    "type": "string",
                    "enum": list(NETWORK_REASONS),
                    "default": "fraudulent",
                },
                "stage": {"type": "string", "enum": list(OPENING_STAGES), "default": "dispute"},
            },
            "required": ["payment_id"],
        }
    ),
)
async def network_opens(request: Request) -> Response:
    """Body `{payment_id, amount?, reason, stage}`; amount defaults to the amount received."""
    body = await read_object(
        request, '{"payment_id": "pay_...", "reason": "fraudulent", "stage": "dispute"}'
    )
    payment_id = body.get("payment_id")
    if not payment_id:
        raise missing("payment_id", "Name the payment the cardholder disputes.")
    if not isinstance(payment_id, str):
        raise invalid("payment_id", payment_id, "a payment id string")
    reason = body.get("reason", "fraudulent")
    if reason not in NETWORK_REASONS:
        raise invalid("reason", reason, ", ".join(NETWORK_REASONS))
    stage = body.get("stage", "dispute")
    if stage not in OPENING_STAGES:
        raise invalid("stage", stage, ", ".join(OPENING_STAGES))
    amount = body.get("amount")
    if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int)):
        raise invalid("amount", amount, "an integer amount in the lowest currency unit")
    state = state_of(request)
    with state.db.transaction() as conn:
        data = open_dispute(
            conn,
            state,
            payment_id,
            amount=amount,
            reason=reason,
            stage=stage,
            now=state.clock.now(),
        )
    return respond(data)


@router.post(
    "/_sandbox/disputes/{dispute_id}/resolve",
    summary="The card network decides a dispute (won or lost)",
    tags=["sandbox controls"],
    openapi_extra=schema_body(
        {
            "type": "object",
            "properties": {"outcome": {"type": "string", "enum": ["won", "lost"]}},
            "required": ["outcome"],
        }
    ),
)
async def network_resolves(request: Request, dispute_id: str) -> Response:
    """Body `{outcome: won | lost}`."""
    body = await read_object(request, '{"outcome": "won"}')
    outcome = body.get("outcome")
    if outcome is None:
        raise missing("outcome", 'Say how the network decided: {"outcome": "won"} or "lost".')
    if outcome not in ("won", "lost"):
        raise invalid("outcome", outcome, "'won' or 'lost'")
    state = state_of(request)
    with state.db.transaction() as conn:
        data = _load(conn, dispute_id)
        _move(conn, state, data, f"dispute_{outcome}", state.clock.now())
    return respond(data)


# -- clock jobs: the dispute card draws its dispute; unanswered disputes expire ----------------


def _next_scheduled(conn: sqlite3.Connection) -> float | None:
    value = conn.execute(
        "SELECT MIN(due_at) FROM dispute_schedule WHERE opened_at IS NULL"
    ).fetchone()[0]
    return None if value is None else float(value)


def _open_scheduled(state: SandboxState, now: float) -> int:
    due = state.db.conn.execute(
        "SELECT payment_id, due_at, reason FROM dispute_schedule "
        "WHERE opened_at IS NULL AND due_at <= ?",
        (now,),
    ).fetchall()
    for payment_id, _due_at, reason in due:
        with state.db.transaction() as conn:
            # refunded, already disputed or gone: the network has nothing left to dispute
            with contextlib.suppress(SandboxError):
                open_dispute(
                    conn,
                    state,
                    str(payment_id),
                    amount=None,
                    reason=str(reason),
                    stage="dispute",
                    now=now,
                )
            conn.execute(
                "UPDATE dispute_schedule SET opened_at = ? WHERE payment_id = ?", (now, payment_id)
            )
    return len(due)


def _next_expiry(conn: sqlite3.Connection) -> float | None:
    value = conn.execute(
        "SELECT MIN(expires_at) FROM disputes WHERE expires_at IS NOT NULL"
    ).fetchone()[0]
    return None if value is None else float(value)


def _expire(state: SandboxState, now: float) -> int:
    due = state.db.conn.execute(
        "SELECT dispute_id FROM disputes WHERE expires_at IS NOT NULL AND expires_at <= ?", (now,)
    ).fetchall()
    for (dispute_id,) in due:
        with state.db.transaction() as conn:
            data = _load(conn, dispute_id)
            if data["dispute_status"] == OPENED:
                _move(conn, state, data, "dispute_expired", now)
            else:
                _save(conn, data, None)
    return len(due)


# -- demo seed ---------------------------------------------------------------------------------

# (status, stage, weight): open ones late in the window, settled ones earlier.
SEED_MIX: Final = (
    (OPENED, "pre_dispute", 2),
    (OPENED, "dispute", 3),
    (CHALLENGED, "dispute", 3),
    (CHALLENGED, "pre_arbitration", 1),
    ("dispute_won", "dispute", 2),
    ("dispute_lost", "dispute", 2),
    ("dispute_lost", "pre_arbitration", 1),
    ("dispute_accepted", "dispute", 1),
    ("dispute_expired", "dispute", 1),
)


def seed_disputes(ctx: SeedContext) -> None:
    """Disputes in every stage and status on about 2% of the seeded succeeded payments.

    The dispute-card payments the payments seeder scheduled are opened here (and marked so the
    clock job does not open them again).
    """
    rng = ctx.rng
    conn = ctx.conn
    scheduled = {
        str(r[0])
        for r in conn.execute("SELECT payment_id FROM dispute_schedule WHERE opened_at IS NULL")
    }
    chosen = [
        p
        for p in ctx.shared.get("payments", [])
        if p.amount_received > 0 and (p.payment_id in scheduled or rng.random() < 0.02)
    ]
    if not chosen:
        return
    mix = [(s, st) for s, st, w in SEED_MIX for _ in range(w)]
    rows: list[tuple[Any, ...]] = []
    for i, p in enumerate(chosen):
        status, stage = mix[i % len(mix)] if i < len(mix) else rng.choice(mix)
        opened = min(ctx.now - 3600, p.created + rng.uniform(6 * 3600, 20 * 86400))
        if status in OPEN_STATUSES:
            opened = max(opened, ctx.now - CHALLENGE_WINDOW + 2 * 86400)  # not due at start
        reason = rng.choice(list(NETWORK_REASONS))
        dispute_id = ids.new_id("dp", rng)
        amount = p.amount_received if rng.random() < 0.8 else max(1, p.amount_received // 2)
        data = _record(
            dispute_id,
            p.payment_id,
            amount,
            p.currency,
            reason,
            stage,
            status,
            iso(opened),
            iso(opened + CHALLENGE_WINDOW),
            ctx.profile_id,
            ctx.merchant_id,
        )
        evidence = None
        if status in (CHALLENGED, "dispute_won", "dispute_lost"):
            submitted = min(ctx.now - 60, opened + rng.uniform(3600, 3 * 86400))
            data["evidence_submitted_at"] = iso(submitted)
            evidence = dumps(
                {
                    "product_description": "Demo order shipped as described",
                    "shipping_carrier": rng.choice(("UPS", "DHL", "FedEx")),
                    "shipping_tracking_number": f"1Z{rng.randint(10**9, 10**10 - 1)}",
                }
            )
        if status != OPENED:
            data["modified_at"] = iso(min(ctx.now - 1, opened + 4 * 86400))
        data["is_already_refunded"] = already_refunded(conn, data)
        expires = opened + CHALLENGE_WINDOW if status == OPENED else None
        rows.append(
            (
                dispute_id,
                p.payment_id,
                status,
                stage,
                p.currency,
                amount,
                iso(opened),
                ctx.profile_id,
                expires,
                evidence,
                dumps(data),
            )
        )
    conn.executemany(
        "INSERT OR IGNORE INTO disputes(dispute_id, payment_id, status, stage, currency, amount, "
        "created, profile_id, expires_at, evidence, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.execute("UPDATE dispute_schedule SET opened_at = ? WHERE opened_at IS NULL", (ctx.now,))


def _due_scheduled(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    sql = "SELECT due_at, payment_id, reason FROM dispute_schedule WHERE opened_at IS NULL"
    text = "a dispute ({1}) opens on payment {0}"
    return due_list(conn, sql, "due_at", start, end, "dispute_opens", text)


def _due_expiry(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    sql = "SELECT expires_at, dispute_id, status FROM disputes WHERE expires_at IS NOT NULL"
    text = "dispute {0} ({1}) passes its deadline"
    return due_list(conn, sql, "expires_at", start, end, "dispute_expires", text)


RESOURCE = Resource(
    name="disputes",
    router=router,
    schema=SCHEMA,
    jobs=(
        Job("scheduled_disputes", _next_scheduled, _open_scheduled, _due_scheduled),
        Job("expired_disputes", _next_expiry, _expire, _due_expiry),
    ),
    seed=seed_disputes,
)
