"""The payouts resource's state changes: create, update, confirm, fulfill, cancel, reverse,
and what a request's fields and test accounts do to a payout. No HTTP here: the routes
(`routes.py`) hand over the validated body. The flow is drawn in the package docstring.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any, Final

from payscope.api.models.payout_methods import ACCOUNT_NUMBER_FIELDS
from payscope.api.models.payouts import PayoutCreateRequest, PayoutUpdateRequest
from payscope.api.models.real_payouts import real_payout_method_type
from payscope.sandbox import cards, ids
from payscope.sandbox.clock import iso, parse_iso
from payscope.sandbox.errors import SandboxError, bad_state, invalid, missing
from payscope.sandbox.outbox import emit
from payscope.sandbox.resources.payouts import store
from payscope.sandbox.state import SandboxState

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


def move(
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
    found = store.find_customer(conn, customer_id)
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
        store.insert_customer(conn, record)
    else:
        record = found
    data["customer_id"] = customer_id
    data["customer"] = {
        "id": customer_id,
        **{
            k: customer.get(k) if customer.get(k) is not None else record.get(k)
            for k in ("name", "email", "phone", "phone_country_code")
        },
    }


def apply(
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
        store.insert_method(
            conn, method_id, data.get("payout_type"), rule, data["payout_method_data"]
        )
    elif body.payout_method_id is not None:
        payout_type, rule, shown = store.find_method(conn, body.payout_method_id)
        data["payout_method_id"] = body.payout_method_id
        data["payout_method_data"] = shown
        data["payout_type"] = data.get("payout_type") or payout_type
    _attach_customer(conn, _fold_customer(body), data, iso(now))
    store.claim_method(
        conn, data.get("payout_method_id"), data["customer_id"], data.get("payout_type")
    )
    has_method = data.get("payout_method_data") is not None or data.get("payout_token")
    if data["status"] in UPDATABLE:
        data["status"] = "requires_confirmation" if has_method else "requires_payout_method_data"
    return rule


def confirm_payout(
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
        move(conn, state, data, "ineligible", now)
        return None
    if data.get("auto_fulfill"):
        move(conn, state, data, "requires_fulfillment", now)
        return fulfill_payout(conn, state, data, now)
    move(conn, state, data, "requires_fulfillment", now)
    return None


def fulfill_payout(
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
    move(conn, state, data, "initiated", now)
    return now + SETTLE_SECONDS.get(str(data.get("priority") or "regular"), 3600)


def new_record(state: SandboxState, payout_id: str, now: float) -> dict[str, Any]:
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


def create(state: SandboxState, body: PayoutCreateRequest) -> dict[str, Any]:
    """A new payout from `body` (confirmed at once with `confirm: true`)."""
    now = state.clock.now()
    if body.session_expiry is not None and body.session_expiry > MAX_SESSION_EXPIRY:
        raise invalid(
            "session_expiry", body.session_expiry, f"1 to {MAX_SESSION_EXPIRY} seconds (a year)"
        )
    payout_id = ids.new_id("payout")
    data = new_record(state, payout_id, now)
    due_at: float | None = None
    expiry = body.session_expiry or DEFAULT_SESSION_EXPIRY
    if body.payout_link:
        data["payout_link"] = {
            "payout_link_id": ids.new_id("payout_link"),
            "status": "initiated",
            "expiry": iso(now + expiry),
        }
    with state.db.transaction() as conn:
        rule = apply(conn, state, data, None, body, now)
        if body.payout_link and data["status"] == "requires_payout_method_data":
            due_at = now + expiry
        store.insert(conn, data, rule, due_at)
        if body.confirm:
            due_at = confirm_payout(conn, state, data, rule, now)
            store.save(conn, data, rule, due_at)
    return data


def update(state: SandboxState, payout_id: str, body: PayoutUpdateRequest) -> dict[str, Any]:
    """Change any creation field before confirmation; `confirm: true` confirms too."""
    now = state.clock.now()
    with state.db.transaction() as conn:
        data, rule = store.load(conn, payout_id)
        if data["status"] not in UPDATABLE:
            raise bad_state("update", "payout", str(data["status"]), UPDATABLE)
        rule = apply(conn, state, data, rule, body, now)
        due_at = None
        if data.get("payout_link") and data["status"] == "requires_payout_method_data":
            due_at = parse_iso(str(data["payout_link"]["expiry"]))
        if body.confirm:
            due_at = confirm_payout(conn, state, data, rule, now)
        store.save(conn, data, rule, due_at)
    return data


def confirm(
    state: SandboxState, payout_id: str, body: PayoutUpdateRequest | None
) -> dict[str, Any]:
    """Needs payout_type and a method (`body`'s fields are applied first)."""
    now = state.clock.now()
    with state.db.transaction() as conn:
        data, rule = store.load(conn, payout_id)
        if body is not None:
            if data["status"] not in UPDATABLE:
                raise bad_state("confirm", "payout", str(data["status"]), ["requires_confirmation"])
            rule = apply(conn, state, data, rule, body, now)
        due_at = confirm_payout(conn, state, data, rule, now)
        store.save(conn, data, rule, due_at)
    return data


def fulfill(state: SandboxState, payout_id: str) -> dict[str, Any]:
    """requires_fulfillment -> initiated; it settles on the sandbox clock."""
    now = state.clock.now()
    with state.db.transaction() as conn:
        data, rule = store.load(conn, payout_id)
        due_at = fulfill_payout(conn, state, data, now)
        store.save(conn, data, rule, due_at)
    return data


def cancel(state: SandboxState, payout_id: str) -> dict[str, Any]:
    """Any non-terminal payout -> cancelled."""
    now = state.clock.now()
    with state.db.transaction() as conn:
        data, rule = store.load(conn, payout_id)
        if data["status"] in TERMINAL:
            cancellable = sorted(s for s in EDGES if "cancelled" in EDGES[s])
            raise bad_state("cancel", "payout", str(data["status"]), cancellable)
        move(conn, state, data, "cancelled", now)
        store.save(conn, data, rule, None)
    return data


def reverse(state: SandboxState, payout_id: str) -> dict[str, Any]:
    """success -> reversed (the bank sends it back)."""
    with state.db.transaction() as conn:
        data, rule = store.load(conn, payout_id)
        move(conn, state, data, "reversed", state.clock.now())
        store.save(conn, data, rule, None)
    return data
