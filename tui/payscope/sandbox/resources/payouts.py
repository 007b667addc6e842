"""Payouts: create, update, confirm, fulfill, cancel, retrieve, list (GET and POST).

The reference's flow, on the sandbox clock:

    create -> requires_payout_method_data (no method yet) | requires_confirmation
    confirm (needs payout_type and a method) -> requires_fulfillment
                                             -> initiated at once with auto_fulfill
                                             -> ineligible for an ineligible test account
    fulfill -> initiated -> (settles after the priority's delay) -> success | failed
    cancel from any non-terminal state -> cancelled
    a payout link left without method data past session_expiry -> expired
    success -> reversed (POST /_sandbox/payouts/{id}/reverse, the bank sends it back)

Request validation is the shared `PayoutCreateRequest`/`PayoutUpdateRequest` (same rules as the
client); this module adds what needs state (payout_type before confirmation, the customer,
saved methods). Account numbers are masked before anything is stored, so no response, event
or database row holds one; a card is answered in the real service's shape (`card {last4,
card_isin, card_network, card_exp_month, card_exp_year, card_holder_name, ...}`), a bank
account as the spec's `bank_transfer`. Answers carry the real schema's fields only (the
spec's `description` too): what a request sent that the real answer has no field for
(`source_bank_data`, `browser_info`, `session_expiry`, `payout_token`) is not echoed. Test
accounts are in `TEST_ACCOUNTS` (also at `GET /_sandbox/payout-test-accounts`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from payscope.api.models.payouts import (
    ACCOUNT_NUMBER_FIELDS,
    PayoutCreateRequest,
    PayoutListRequest,
    PayoutUpdateRequest,
    real_payout_method_type,
)
from payscope.sandbox import cards, ids
from payscope.sandbox.clock import iso, parse_iso
from payscope.sandbox.db import dumps
from payscope.sandbox.errors import SandboxError, bad_state, invalid, missing, not_found
from payscope.sandbox.outbox import emit
from payscope.sandbox.resource import Due, Job, Resource, SeedContext, due_list
from payscope.sandbox.resources._support import validate
from payscope.sandbox.responses import json_body, read_object, respond
from payscope.sandbox.state import SandboxState, state_of

SCHEMA = """
CREATE TABLE IF NOT EXISTS payouts (
    payout_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL,
    customer_id TEXT,
    payout_type TEXT,
    entity_type TEXT,
    created TEXT NOT NULL,
    due_at REAL,
    rule TEXT,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS payouts_created ON payouts(created);
CREATE INDEX IF NOT EXISTS payouts_due ON payouts(due_at) WHERE due_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS payout_methods (
    payout_method_id TEXT PRIMARY KEY,
    customer_id TEXT,
    payout_type TEXT,
    rule TEXT,
    data TEXT NOT NULL
);
"""

TERMINAL: Final = ("success", "failed", "cancelled", "expired", "reversed", "ineligible")
UPDATABLE: Final = ("requires_payout_method_data", "requires_confirmation")
EDGES: Final[dict[str, tuple[str, ...]]] = {
    "requires_payout_method_data": ("requires_confirmation", "cancelled", "expired"),
    "requires_confirmation": (
        "requires_payout_method_data",
        "requires_fulfillment",
        "initiated",
        "ineligible",
        "cancelled",
    ),
    "requires_fulfillment": ("initiated", "cancelled"),
    "initiated": ("success", "failed", "cancelled"),
    "success": ("reversed",),
}
EVENTS: Final = {
    "success": "payout_success",
    "failed": "payout_failed",
    "initiated": "payout_initiated",
    "cancelled": "payout_cancelled",
    "expired": "payout_expired",
    "reversed": "payout_reversed",
}
# Seconds from fulfilment to settlement, by priority (None: regular).
SETTLE_SECONDS: Final = {
    "instant": 10,
    "internal": 10,
    "fast": 60,
    "regular": 3600,
    "wire": 86400,
    "cross_border": 2 * 86400,
}
DEFAULT_SESSION_EXPIRY: Final = 900
# The real service's default when a payout names none (never null in its answers).
DEFAULT_ENTITY_TYPE: Final = "Individual"
# A payout link longer-lived than this is a mistake (and far-off expiries overflow the clock).
MAX_SESSION_EXPIRY: Final = 365 * 24 * 3600

# Fields holding an account number, card number or token: stored and shown masked.
MASKED: Final = ACCOUNT_NUMBER_FIELDS
# Fields whose value decides a test account's outcome.
_IDENTIFIERS: Final = (*sorted(MASKED), "paypal_id", "telephone_number", "email")

FAILS: Final = "fails"
INELIGIBLE: Final = "ineligible"
TEST_ACCOUNTS: Final = (
    {
        "rule": "an account, card or IBAN number (or wallet id or phone) ending in 0002",
        "example": "bank_account_number 000123450002; card 4000000000000002",
        "outcome": "failed when it settles: error_code account_closed",
    },
    {
        "rule": "an account, card or IBAN number (or wallet id or phone) ending in 0005",
        "example": "iban DE89370400440532010005",
        "outcome": "ineligible at confirmation (the account cannot receive payouts)",
    },
    {
        "rule": "an e-mail whose local part is 'fail' (PayPal, Interac)",
        "example": "fail@example.com",
        "outcome": "failed when it settles: error_code account_closed",
    },
    {"rule": "anything else", "example": "4242424242424242", "outcome": "success"},
)

router = APIRouter(tags=["payouts"])


# -- masking and test accounts ---------------------------------------------------------------


def mask(value: str) -> str:
    """All but the last four characters replaced by `*`."""
    return "*" * max(0, len(value) - 4) + value[-4:]


def masked(value: Any) -> Any:
    """A copy of a method object with every account number masked (recursively)."""
    if isinstance(value, Mapping):
        return {
            k: (mask(v) if k in MASKED and isinstance(v, str) else masked(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [masked(v) for v in value]
    return value


def card_shown(card: Mapping[str, Any]) -> dict[str, Any]:
    """A payout card as the real service answers it (CardAdditionalData): the last four
    digits and the BIN instead of the number."""
    number = str(card.get("card_number") or "")
    # the network sent (one of the real service's), else the one the number says, if any
    network = card.get("card_network") or cards.brand_of(number)
    return {
        "card_issuer": None,
        "card_network": network if card.get("card_network") or network in cards.NETWORKS else None,
        "card_type": None,
        "card_issuing_country": None,
        "bank_code": None,
        "last4": number[-4:] or None,
        "card_isin": number[:6] or None,
        "card_extended_bin": None,
        "card_exp_month": card.get("expiry_month"),
        "card_exp_year": card.get("expiry_year"),
        "card_holder_name": card.get("card_holder_name"),
    }


def shown_method(method: Mapping[str, Any]) -> dict[str, Any]:
    """A payout method as answered and stored: a card in the real shape, anything else with
    every account number masked."""
    card = method.get("card")
    if isinstance(card, Mapping):
        return {"card": card_shown(card)}
    shown: dict[str, Any] = masked(method)
    return shown


# Kept with a payout for the sandbox's own use, never answered (the real schema has no field).
_PRIVATE: Final = ("payout_token",)


def public(data: Mapping[str, Any]) -> dict[str, Any]:
    """The payout as answered: without what only the sandbox keeps."""
    return {k: v for k, v in data.items() if k not in _PRIVATE}


def _identifiers(value: Any) -> list[str]:
    found: list[str] = []
    if isinstance(value, Mapping):
        for k, v in value.items():
            if isinstance(v, str) and k in _IDENTIFIERS:
                found.append(v)
            else:
                found.extend(_identifiers(v))
    return found


def account_rule(method: Mapping[str, Any] | None) -> str | None:
    """What a test account does: `fails`, `ineligible`, or None (succeeds)."""
    for value in _identifiers(method or {}):
        if value.endswith("0002") or value.lower().startswith("fail@"):
            return FAILS
        if value.endswith("0005"):
            return INELIGIBLE
    return None


# -- storage ---------------------------------------------------------------------------------


def _load(conn: sqlite3.Connection, payout_id: str) -> tuple[dict[str, Any], str | None]:
    found = conn.execute("SELECT data, rule FROM payouts WHERE payout_id = ?", (payout_id,))
    row = found.fetchone()
    if row is None:
        raise not_found("Payout", payout_id)
    data: dict[str, Any] = json.loads(row[0])
    return data, row[1]


def _save(
    conn: sqlite3.Connection, data: dict[str, Any], rule: str | None, due_at: float | None
) -> None:
    conn.execute(
        "UPDATE payouts SET status = ?, amount = ?, currency = ?, customer_id = ?, "
        "payout_type = ?, entity_type = ?, due_at = ?, rule = ?, data = ? WHERE payout_id = ?",
        (
            data["status"],
            data["amount"],
            data["currency"],
            data["customer_id"],
            data["payout_type"],
            data["entity_type"],
            due_at,
            rule,
            dumps(data),
            data["payout_id"],
        ),
    )


def _move(
    conn: sqlite3.Connection,
    state: SandboxState,
    data: dict[str, Any],
    to: str,
    now: float,
) -> None:
    """Change status along an allowed edge (refusing others) and emit its event, if any."""
    current = str(data["status"])
    if to != current and to not in EDGES.get(current, ()):
        expected = sorted(s for s, outs in EDGES.items() if to in outs)
        raise bad_state(f"move to {to}", "payout", current, expected)
    data["status"] = to
    event = EVENTS.get(to)
    if event is not None and to != current:
        emit(
            conn,
            state,
            event_type=event,
            event_class="payouts",
            object_id=str(data["payout_id"]),
            obj={k: v for k, v in public(data).items() if k != "client_secret"},
        )


# -- applying a request ----------------------------------------------------------------------


def _fold_customer(body: PayoutCreateRequest | PayoutUpdateRequest) -> dict[str, Any] | None:
    """`customer` with the deprecated top-level fields folded in; None when neither is sent."""
    given = body.customer.to_body() if body.customer is not None else {}
    deprecated = {
        "id": body.customer_id,
        "email": body.email,
        "name": body.name,
        "phone": body.phone,
        "phone_country_code": body.phone_country_code,
    }
    for key, value in deprecated.items():
        if value is None:
            continue
        old = "customer_id" if key == "id" else key
        if key in given and given[key] != value:
            raise invalid(
                old,
                value,
                f"the same value as customer.{key} ({given[key]!r}) or leave {old} out: "
                f"{old} is deprecated in favour of customer.{key}",
            )
        given[key] = value
    return given or None


def _attach_customer(
    conn: sqlite3.Connection, customer: dict[str, Any] | None, data: dict[str, Any], now: str
) -> None:
    """Create the customer when new, attach it when known; the id is generated when absent."""
    if customer is None and data.get("customer_id"):
        return
    customer = dict(customer or {})
    customer_id = customer.get("id") or data.get("customer_id") or ids.new_id("cus")
    customer["id"] = customer_id
    found = conn.execute(
        "SELECT data FROM customers WHERE customer_id = ?", (customer_id,)
    ).fetchone()
    if found is None:
        record = {
            "customer_id": customer_id,
            "email": customer.get("email"),
            "name": customer.get("name"),
            "phone": customer.get("phone"),
            "phone_country_code": customer.get("phone_country_code"),
            "description": "created by a payout",
            "address": None,
            "metadata": None,
            "created": now,
            "modified_at": now,
        }
        conn.execute(
            "INSERT INTO customers(customer_id, created, data) VALUES (?, ?, ?)",
            (customer_id, now, dumps(record)),
        )
    else:
        record = json.loads(found[0])
    data["customer_id"] = customer_id
    data["customer"] = {
        "id": customer_id,
        **{
            k: customer.get(k) if customer.get(k) is not None else record.get(k)
            for k in ("name", "email", "phone", "phone_country_code")
        },
    }


def _apply(
    conn: sqlite3.Connection,
    state: SandboxState,
    data: dict[str, Any],
    rule: str | None,
    body: PayoutCreateRequest | PayoutUpdateRequest,
    now: float,
) -> str | None:
    """Copy the request's fields onto the payout; returns the (new) test-account rule."""
    sent = body.model_dump(mode="json", exclude_none=True, by_alias=True)
    for key in (
        "amount",
        "currency",
        "merchant_order_reference_id",
        "payout_type",
        "auto_fulfill",
        "recurring",
        "entity_type",
        "priority",
        "business_country",
        "description",
        "return_url",
        "metadata",
        "billing",
        "payout_token",
    ):
        if key in sent:
            data[key] = sent[key]
    if body.profile_id is not None and body.profile_id != state.credentials.profile_id:
        raise invalid(
            "profile_id",
            body.profile_id,
            f"this sandbox's profile {state.credentials.profile_id!r}",
        )
    if body.payout_method_data is not None:
        raw = body.payout_method_data.to_body()
        rule = account_rule(raw)
        data["payout_method_data"] = shown_method(raw)
        method_id = ids.new_id("pm")
        data["payout_method_id"] = method_id
        conn.execute(
            "INSERT INTO payout_methods(payout_method_id, customer_id, payout_type, rule, data) "
            "VALUES (?, ?, ?, ?, ?)",
            (method_id, None, data.get("payout_type"), rule, dumps(data["payout_method_data"])),
        )
    elif body.payout_method_id is not None:
        found = conn.execute(
            "SELECT payout_type, rule, data FROM payout_methods WHERE payout_method_id = ?",
            (body.payout_method_id,),
        ).fetchone()
        if found is None:
            raise not_found("Payout method", body.payout_method_id)
        data["payout_method_id"] = body.payout_method_id
        data["payout_method_data"] = json.loads(found[2])
        data["payout_type"] = data.get("payout_type") or found[0]
        rule = found[1]
    _attach_customer(conn, _fold_customer(body), data, iso(now))
    conn.execute(
        "UPDATE payout_methods SET customer_id = ?, payout_type = COALESCE(payout_type, ?) "
        "WHERE payout_method_id = ?",
        (data["customer_id"], data.get("payout_type"), data.get("payout_method_id")),
    )
    has_method = data.get("payout_method_data") is not None or data.get("payout_token")
    if data["status"] in UPDATABLE:
        data["status"] = "requires_confirmation" if has_method else "requires_payout_method_data"
    return rule


def _confirm(
    conn: sqlite3.Connection,
    state: SandboxState,
    data: dict[str, Any],
    rule: str | None,
    now: float,
) -> float | None:
    """requires_confirmation -> requires_fulfillment / initiated / ineligible; returns due_at."""
    if data["status"] == "requires_payout_method_data":
        raise SandboxError(
            400,
            "invalid_request",
            "IR_01",
            "Missing required field: payout_method_data. This payout has no payout method yet: "
            "send payout_method_data (or payout_method_id / payout_token) with PUT "
            f"/payouts/{data['payout_id']} before confirming it.",
        )
    if data["status"] != "requires_confirmation":
        raise bad_state("confirm", "payout", str(data["status"]), ["requires_confirmation"])
    if not data.get("payout_type"):
        raise missing(
            "payout_type",
            "A payout needs payout_type (card, bank, wallet or bank_redirect) before it is "
            f"confirmed: set it here or with PUT /payouts/{data['payout_id']}.",
        )
    if rule == INELIGIBLE:
        data.update(
            {
                "error_code": "account_ineligible",
                "error_message": "The recipient's account cannot receive payouts.",
            }
        )
        _move(conn, state, data, "ineligible", now)
        return None
    if data.get("auto_fulfill"):
        _move(conn, state, data, "requires_fulfillment", now)
        return _fulfill(conn, state, data, now)
    _move(conn, state, data, "requires_fulfillment", now)
    return None


def _fulfill(
    conn: sqlite3.Connection, state: SandboxState, data: dict[str, Any], now: float
) -> float:
    if data["status"] != "requires_fulfillment":
        raise bad_state("fulfill", "payout", str(data["status"]), ["requires_fulfillment"])
    data["connector_transaction_id"] = ids.new_id("po_txn")
    attempts = list(data.get("attempts") or [])
    attempts.append(
        {
            "attempt_id": f"{data['payout_id']}_{len(attempts) + 1}",
            "status": "initiated",
            "amount": data["amount"],
            "currency": data["currency"],
            "connector": "sandbox",
            "payment_method": data.get("payout_type"),
            "payout_method_type": real_payout_method_type(data.get("payout_method_data")),
            "error_code": None,
            "error_message": None,
            "created": iso(now),
        }
    )
    data["attempts"] = attempts
    _move(conn, state, data, "initiated", now)
    return now + SETTLE_SECONDS.get(str(data.get("priority") or "regular"), 3600)


def _new_record(state: SandboxState, payout_id: str, now: float) -> dict[str, Any]:
    creds = state.credentials
    created = iso(now)
    return {
        "payout_id": payout_id,
        "merchant_id": creds.merchant_id,
        "merchant_order_reference_id": None,
        "amount": 0,
        "currency": "",
        "payout_type": None,
        "payout_method_data": None,
        "billing": None,
        "auto_fulfill": False,
        "customer_id": None,
        "customer": None,
        "client_secret": f"{payout_id}_secret_{ids.random_part(20)}",
        "return_url": None,
        "business_country": None,
        "description": None,
        "entity_type": DEFAULT_ENTITY_TYPE,
        "recurring": False,
        "metadata": None,
        "status": "requires_payout_method_data",
        "error_message": None,
        "error_code": None,
        "profile_id": creds.profile_id,
        "created": created,
        "connector": "sandbox",
        "connector_transaction_id": None,
        "priority": None,
        "attempts": None,
        "payout_link": None,
        "unified_code": None,
        "unified_message": None,
        "payout_method_id": None,
    }


# -- routes ----------------------------------------------------------------------------------


@router.post("/payouts/create", summary="Create a payout (confirm: true to confirm at once)")
async def create_payout(request: Request, body: PayoutCreateRequest) -> Response:
    """Only amount and currency are mandatory; see the module docstring for the flow."""
    state = state_of(request)
    now = state.clock.now()
    if body.session_expiry is not None and body.session_expiry > MAX_SESSION_EXPIRY:
        raise invalid(
            "session_expiry", body.session_expiry, f"1 to {MAX_SESSION_EXPIRY} seconds (a year)"
        )
    payout_id = ids.new_id("payout")
    data = _new_record(state, payout_id, now)
    due_at: float | None = None
    expiry = body.session_expiry or DEFAULT_SESSION_EXPIRY
    if body.payout_link:
        data["payout_link"] = {
            "payout_link_id": ids.new_id("payout_link"),
            "status": "initiated",
            "expiry": iso(now + expiry),
        }
    with state.db.transaction() as conn:
        rule = _apply(conn, state, data, None, body, now)
        if body.payout_link and data["status"] == "requires_payout_method_data":
            due_at = now + expiry
        conn.execute(
            "INSERT INTO payouts(payout_id, status, amount, currency, customer_id, payout_type, "
            "entity_type, created, due_at, rule, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                payout_id,
                data["status"],
                data["amount"],
                data["currency"],
                data["customer_id"],
                data["payout_type"],
                data["entity_type"],
                data["created"],
                due_at,
                rule,
                dumps(data),
            ),
        )
        if body.confirm:
            due_at = _confirm(conn, state, data, rule, now)
            _save(conn, data, rule, due_at)
    return respond(public(data))


@router.get("/payouts/list", summary="List payouts (filters in the query string), newest first")
async def list_payouts_get(request: Request) -> Response:
    """`?limit&offset&payout_id&customer_id&status&currency&payout_method&entity_type`,
    `start_time`/`end_time` for the created-time range."""
    params = request.query_params
    data: dict[str, Any] = {}
    for key in params:
        base = key.removesuffix("[]")
        if base in ("status", "currency", "payout_method"):
            data[base] = [v for v in params.getlist(key) for v in v.split(",") if v]
        elif base in ("start_time", "end_time"):
            data.setdefault("time_range", {})[base] = params[key]
        else:
            data[base] = params[key]
    return _list(state_of(request), validate(PayoutListRequest, data))


@router.post(
    "/payouts/list",
    summary="List payouts (filters in the body), newest first",
    openapi_extra=json_body(PayoutListRequest, required=False),
)
async def list_payouts_post(request: Request) -> Response:
    """Filters: payout_id, customer_id, status[], currency[], payout_method[], entity_type,
    time_range {start_time, end_time}, limit, offset."""
    body = await read_object(request, '{"limit": 10, "status": ["success"]}')
    return _list(state_of(request), validate(PayoutListRequest, body))


def _list(state: SandboxState, q: PayoutListRequest) -> Response:
    where: list[str] = []
    args: list[Any] = []

    def any_of(column: str, values: list[str]) -> None:
        where.append(f"{column} IN ({','.join('?' * len(values))})")
        args.extend(values)

    if q.payout_id:
        any_of("payout_id", [q.payout_id])
    if q.customer_id:
        any_of("customer_id", [q.customer_id])
    if q.status:
        any_of("status", [str(s.value) for s in q.status])
    if q.currency:
        any_of("currency", [str(c) for c in q.currency])
    if q.payout_method:
        any_of("payout_type", [str(m) for m in q.payout_method])
    if q.entity_type is not None:
        any_of("entity_type", [str(q.entity_type.value)])
    if q.time_range is not None:
        where.append("created >= ?")
        args.append(iso(parse_iso(q.time_range.start_time)))
        if q.time_range.end_time:
            where.append("created <= ?")
            args.append(iso(parse_iso(q.time_range.end_time)))
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    conn = state.db.conn
    rows = conn.execute(
        f"SELECT data FROM payouts{clause} ORDER BY created DESC, rowid DESC LIMIT ? OFFSET ?",
        (*args, q.limit, q.offset),
    ).fetchall()
    total = int(conn.execute(f"SELECT COUNT(*) FROM payouts{clause}", args).fetchone()[0])
    return _respond_list([dumps(public(json.loads(r[0]))) for r in rows], total)


def _respond_list(rows: list[str], total: int) -> Response:
    """The spec's `{count, total_count, data[]}`, with the real service's `size` (the
    payouts on this page) too."""
    body = (
        f'{{"size":{len(rows)},"count":{len(rows)},"total_count":{total},'
        f'"data":[{",".join(rows)}]}}'
    )
    return Response(body.encode(), media_type="application/json")


@router.get("/payouts/{payout_id}", summary="Retrieve a payout")
async def retrieve_payout(request: Request, payout_id: str) -> Response:
    """The payout, or 404 IR_05."""
    return respond(public(_load(state_of(request).db.conn, payout_id)[0]))


async def _update(request: Request, payout_id: str) -> Response:
    raw = await read_object(request, '{"payout_type": "bank", "payout_method_data": {...}}')
    body = validate(PayoutUpdateRequest, raw)
    state = state_of(request)
    now = state.clock.now()
    with state.db.transaction() as conn:
        data, rule = _load(conn, payout_id)
        if data["status"] not in UPDATABLE:
            raise bad_state("update", "payout", str(data["status"]), UPDATABLE)
        rule = _apply(conn, state, data, rule, body, now)
        due_at = None
        if data.get("payout_link") and data["status"] == "requires_payout_method_data":
            due_at = parse_iso(str(data["payout_link"]["expiry"]))
        if body.confirm:
            due_at = _confirm(conn, state, data, rule, now)
        _save(conn, data, rule, due_at)
    return respond(public(data))


@router.put(
    "/payouts/{payout_id}",
    summary="Update a payout before confirmation",
    openapi_extra=json_body(PayoutUpdateRequest),
)
async def update_payout_put(request: Request, payout_id: str) -> Response:
    """Change any creation field except payout_link; `confirm: true` confirms too."""
    return await _update(request, payout_id)


@router.post(
    "/payouts/{payout_id}",
    summary="Update a payout (POST form)",
    openapi_extra=json_body(PayoutUpdateRequest),
)
async def update_payout_post(request: Request, payout_id: str) -> Response:
    """The same as PUT /payouts/{payout_id}."""
    return await _update(request, payout_id)


@router.post(
    "/payouts/{payout_id}/confirm",
    summary="Confirm a payout",
    openapi_extra=json_body(PayoutUpdateRequest, required=False),
)
async def confirm_payout(request: Request, payout_id: str) -> Response:
    """Needs payout_type and a method; with auto_fulfill it is fulfilled at once."""
    raw = await read_object(request, "{}")
    body = validate(PayoutUpdateRequest, raw) if raw else None
    state = state_of(request)
    now = state.clock.now()
    with state.db.transaction() as conn:
        data, rule = _load(conn, payout_id)
        if body is not None:
            if data["status"] not in UPDATABLE:
                raise bad_state("confirm", "payout", str(data["status"]), ["requires_confirmation"])
            rule = _apply(conn, state, data, rule, body, now)
        due_at = _confirm(conn, state, data, rule, now)
        _save(conn, data, rule, due_at)
    return respond(public(data))


@router.post("/payouts/{payout_id}/fulfill", summary="Fulfill a confirmed payout")
async def fulfill_payout(request: Request, payout_id: str) -> Response:
    """requires_fulfillment -> initiated; it settles on the sandbox clock."""
    state = state_of(request)
    now = state.clock.now()
    with state.db.transaction() as conn:
        data, rule = _load(conn, payout_id)
        due_at = _fulfill(conn, state, data, now)
        _save(conn, data, rule, due_at)
    return respond(public(data))


@router.post("/payouts/{payout_id}/cancel", summary="Cancel a payout")
async def cancel_payout(request: Request, payout_id: str) -> Response:
    """Any non-terminal payout -> cancelled."""
    state = state_of(request)
    now = state.clock.now()
    with state.db.transaction() as conn:
        data, rule = _load(conn, payout_id)
        if data["status"] in TERMINAL:
            cancellable = sorted(s for s in EDGES if "cancelled" in EDGES[s])
            raise bad_state("cancel", "payout", str(data["status"]), cancellable)
        _move(conn, state, data, "cancelled", now)
        _save(conn, data, rule, None)
    return respond(public(data))


@router.post(
    "/_sandbox/payouts/{payout_id}/reverse",
    summary="The bank returns a paid-out payout (success -> reversed)",
    tags=["sandbox controls"],
)
async def reverse_payout(request: Request, payout_id: str) -> Response:
    """success -> reversed."""
    state = state_of(request)
    with state.db.transaction() as conn:
        data, rule = _load(conn, payout_id)
        _move(conn, state, data, "reversed", state.clock.now())
        _save(conn, data, rule, None)
    return respond(public(data))


@router.get(
    "/_sandbox/payout-test-accounts",
    summary="Payout test accounts and what they do",
    tags=["sandbox controls"],
)
async def payout_test_accounts() -> Response:
    """The rules that make a payout fail or be ineligible."""
    return respond({"data": list(TEST_ACCOUNTS)})


# -- clock job: initiated payouts settle, unused payout links expire ---------------------------


def _next_due(conn: sqlite3.Connection) -> float | None:
    value = conn.execute("SELECT MIN(due_at) FROM payouts WHERE due_at IS NOT NULL").fetchone()[0]
    return None if value is None else float(value)


def _run_due(state: SandboxState, now: float) -> int:
    due = state.db.conn.execute(
        "SELECT payout_id FROM payouts WHERE due_at IS NOT NULL AND due_at <= ?", (now,)
    ).fetchall()
    for (payout_id,) in due:
        with state.db.transaction() as conn:
            data, rule = _load(conn, payout_id)
            if data["status"] == "initiated":
                if rule == FAILS:
                    data.update(
                        {
                            "error_code": "account_closed",
                            "error_message": "The recipient's bank refused the payout: "
                            "the account is closed.",
                        }
                    )
                to = "failed" if rule == FAILS else "success"
                # The attempt first: the event carries the payout as GET answers it after.
                if data.get("attempts"):
                    data["attempts"][-1]["status"] = to
                    data["attempts"][-1]["error_code"] = data["error_code"]
                    data["attempts"][-1]["error_message"] = data["error_message"]
                _move(conn, state, data, to, now)
            elif data["status"] == "requires_payout_method_data":
                _move(conn, state, data, "expired", now)
            _save(conn, data, rule, None)
    return len(due)


# -- demo seed -------------------------------------------------------------------------------

_SEED_METHODS: Final[tuple[tuple[str, dict[str, Any]], ...]] = (
    (
        "card",
        {
            "card": {
                "card_number": "4242424242424242",
                "expiry_month": "10",
                "expiry_year": "2030",
                "card_holder_name": "Ada Lovelace",
            }
        },
    ),
    (
        "bank",
        {
            "bank_transfer": {
                "bank_account_number": "000123456789",
                "bank_routing_number": "110000000",
                "bank_name": "Demo Bank",
            }
        },
    ),
    ("bank", {"bank_transfer": {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX"}}),
    ("bank", {"bank_transfer": {"bank_account_number": "55779911", "bank_sort_code": "200000"}}),
    (
        "wallet",
        {
            "wallet": {
                "paypal": {
                    "email": "payee@example.com",
                    "telephone_number": "5551234567",
                    "paypal_id": "PAYPAL123",
                }
            }
        },
    ),
    ("wallet", {"wallet": {"venmo": {"telephone_number": "5559876543"}}}),
    ("bank_redirect", {"bank_redirect": {"interac": {"email": "payee@example.ca"}}}),
    (
        "bank",
        {
            "bank_transfer": {
                "bank_account_number": "000123450002",
                "bank_routing_number": "110000000",
            }
        },
    ),
)
_SEED_STATUSES: Final = (
    ("success", 10),
    ("failed", 2),
    ("initiated", 2),
    ("requires_fulfillment", 2),
    ("requires_confirmation", 2),
    ("requires_payout_method_data", 1),
    ("cancelled", 1),
    ("reversed", 1),
)


def seed_payouts(ctx: SeedContext) -> None:
    """Payouts of every method and most statuses, one per 25 payments (at least 12)."""
    rng = ctx.rng
    customers: list[str] = ctx.shared.get("customers", [])
    names = [s for s, w in _SEED_STATUSES for _ in range(w)]
    rows: list[tuple[Any, ...]] = []
    for i in range(max(12, ctx.n // 25)):
        payout_id = ids.new_id("payout", rng)
        created = ctx.now - rng.uniform(600, 60 * 86400)
        payout_type, method = _SEED_METHODS[i % len(_SEED_METHODS)]
        rule = account_rule(method)
        status = (
            "failed"
            if rule == FAILS
            else names[i % len(names)]
            if i < len(names)
            else rng.choice(names)
        )
        if status == "failed" and rule != FAILS:
            status = "success"
        has_method = status != "requires_payout_method_data"
        customer_id = rng.choice(customers) if customers else None
        data: dict[str, Any] = {
            "payout_id": payout_id,
            "merchant_id": ctx.merchant_id,
            "merchant_order_reference_id": f"po_ref_{rng.randint(10000, 99999)}",
            "amount": rng.randrange(1000, 250000, 50),
            "currency": rng.choice(("USD", "USD", "EUR", "GBP")),
            "payout_type": payout_type if has_method else None,
            "payout_method_data": shown_method(method) if has_method else None,
            "billing": None,
            "auto_fulfill": rng.random() < 0.5,
            "customer_id": customer_id,
            "customer": {
                "id": customer_id,
                "name": None,
                "email": None,
                "phone": None,
                "phone_country_code": None,
            }
            if customer_id
            else None,
            "client_secret": f"{payout_id}_secret_{ids.random_part(20, rng)}",
            "return_url": None,
            "business_country": None,
            "description": rng.choice(("Seller settlement", "Refund to wallet", "Affiliate fee")),
            "entity_type": rng.choice(("Individual", "Company")),
            "recurring": False,
            "metadata": None,
            "status": status,
            "error_message": "The recipient's bank refused the payout: the account is closed."
            if status == "failed"
            else None,
            "error_code": "account_closed" if status == "failed" else None,
            "profile_id": ctx.profile_id,
            "created": iso(created),
            "connector": "sandbox",
            "connector_transaction_id": None,
            "priority": rng.choice(("instant", "fast", "regular")),
            "attempts": None,
            "payout_link": None,
            "unified_code": None,
            "unified_message": None,
            "payout_method_id": None,
        }
        if status == "initiated":
            data["priority"] = "cross_border"  # settles two days on: not due at start
        due_at = ctx.now + SETTLE_SECONDS["cross_border"] if status == "initiated" else None
        rows.append(
            (
                payout_id,
                status,
                data["amount"],
                data["currency"],
                customer_id,
                data["payout_type"],
                data["entity_type"],
                data["created"],
                due_at,
                rule,
                dumps(data),
            )
        )
    ctx.conn.executemany(
        "INSERT OR IGNORE INTO payouts(payout_id, status, amount, currency, customer_id, "
        "payout_type, entity_type, created, due_at, rule, data) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


def _due_between(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    """What `_run_due` would do between `start` and `end` (the clock's upcoming preview)."""
    sql = "SELECT due_at, payout_id, status FROM payouts WHERE due_at IS NOT NULL"
    text = "payout {0} moves on from {1}"
    return due_list(conn, sql, "due_at", start, end, "payout_moves", text)


RESOURCE = Resource(
    name="payouts",
    router=router,
    schema=SCHEMA,
    jobs=(Job("payouts_due", _next_due, _run_due, _due_between),),
    seed=seed_payouts,
)
