"""Saved payment methods and mandates, in the real service's shapes and routes.

    POST   /payment_methods                          save a method for a customer
    GET    /payment_methods/{id}                     retrieve it
    POST   /payment_methods/{id}/update              change a card's expiry, holder, nickname
    DELETE /payment_methods/{id}                     delete it (its mandates are revoked)
    GET    /customers/{customer_id}/payment_methods  the customer's methods, each with a
                                                     `payment_token` a confirm may send
    POST   /{customer_id}/payment_methods/{id}/default   make it the customer's default
    GET    /mandates/{id}, POST /mandates/revoke/{id}, GET /customers/{customer_id}/mandates

A payment saves its method when it is authorised with `setup_future_usage` and a customer; with
`setup_future_usage: off_session` and the customer's acceptance (`customer_acceptance`, or
`mandate_data.customer_acceptance`) it also creates an `active` mandate (event
`mandate_active`). A later payment sends `mandate_id` with `off_session: true` (required, as
the real service) and no method data: it is charged on the saved method, and answers as that
method's test value decides. A `single_use` mandate is revoked by its first charge (as the real
service does, without an event); revoking one gives `mandate_revoked`.

The full card number is never stored: what the card will do is decided when it is saved and
kept in `rule` (as payments keep `card_rule`).
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from typing import Any, NamedTuple

from fastapi import APIRouter, Request
from starlette.responses import Response

from tui.api.models.payment_methods import PaymentMethodCreateRequest, PaymentMethodUpdateRequest
from tui.sandbox import ids
from tui.sandbox.db import dumps
from tui.sandbox.errors import INVALID, SandboxError, invalid, missing, not_found
from tui.sandbox.keys import PUBLISHABLE
from tui.sandbox.outbox import emit
from tui.sandbox.resource import Resource
from tui.sandbox.responses import json_body, read_body, read_object, respond, schema_body
from tui.sandbox.routing import DirectRoute
from tui.sandbox.state import SandboxState, principal_of, state_of

SCHEMA = """
CREATE TABLE IF NOT EXISTS payment_methods (
    payment_method_id TEXT PRIMARY KEY,
    customer_id TEXT,
    created TEXT NOT NULL,
    payment_token TEXT NOT NULL UNIQUE,
    fingerprint TEXT,
    is_default INTEGER NOT NULL DEFAULT 0,
    rule TEXT,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS payment_methods_customer ON payment_methods(customer_id, created);
CREATE TABLE IF NOT EXISTS mandates (
    mandate_id TEXT PRIMARY KEY,
    customer_id TEXT,
    payment_method_id TEXT NOT NULL,
    created TEXT NOT NULL,
    terms TEXT,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS mandates_customer ON mandates(customer_id, created);
CREATE INDEX IF NOT EXISTS mandates_method ON mandates(payment_method_id);
"""

ACTIVE, REVOKED = "active", "revoked"

router = APIRouter(tags=["payment methods"], route_class=DirectRoute)


# -- saved methods ------------------------------------------------------------------------------


def _customer_must_exist(conn: sqlite3.Connection, customer_id: str) -> None:
    if conn.execute("SELECT 1 FROM customers WHERE customer_id = ?", (customer_id,)).fetchone():
        return
    raise SandboxError(
        404,
        INVALID,
        "IR_05",
        f"Customer {customer_id!r} does not exist: create it with POST /customers first "
        "and send the customer_id it returns.",
    )


def saved_card(view: dict[str, Any]) -> dict[str, Any]:
    """A saved method's `card` (the real `CardDetailFromLocker`) from a payment's card view."""
    return {
        "scheme": view.get("brand"),
        "issuer_country": None,
        "last4_digits": view.get("last4"),
        "expiry_month": view.get("exp_month"),
        "expiry_year": view.get("exp_year"),
        "card_token": None,
        "card_holder_name": view.get("card_holder_name"),
        "card_fingerprint": None,
        "nick_name": view.get("nick_name"),
        "card_network": view.get("brand"),
        "card_isin": None,
        "card_issuer": None,
        "card_type": None,
        "saved_to_locker": True,
    }


def card_of(method: dict[str, Any]) -> dict[str, Any] | None:
    """A payment's `payment_method_data.card` from a saved method (to show on the payment)."""
    card = method.get("card")
    if not card:
        return None
    return {
        "last4": card.get("last4_digits"),
        "brand": card.get("card_network"),
        "exp_month": card.get("expiry_month"),
        "exp_year": card.get("expiry_year"),
        "card_holder_name": card.get("card_holder_name"),
    }


def _fingerprint(customer_id: str | None, method: str, details: dict[str, Any]) -> str:
    # What identifies the same method again for the same customer, without the full number.
    return dumps([customer_id, method, details])


def save_method(
    conn: sqlite3.Connection,
    state: SandboxState,
    *,
    customer_id: str | None,
    payment_method: str,
    payment_method_type: str | None,
    card: dict[str, Any] | None,
    details: dict[str, Any] | None,
    rule: dict[str, Any] | None,
    metadata: Any = None,
    billing: Any = None,
) -> dict[str, Any]:
    """Save a method (or find the same one this customer saved before). Returns its record.

    `card` is a payment's card view; `details` another family's data as sent (kept to show);
    `rule` what the method does when charged."""
    now_iso = state.clock.now_iso()
    key = _fingerprint(customer_id, payment_method, {"card": card, "details": details})
    found = conn.execute(
        "SELECT data FROM payment_methods WHERE fingerprint = ?", (key,)
    ).fetchone()
    if found is not None:
        data: dict[str, Any] = json.loads(found[0])
        data["last_used_at"] = now_iso
        conn.execute(
            "UPDATE payment_methods SET data = ?, rule = ? WHERE payment_method_id = ?",
            (dumps(data), dumps(rule) if rule else None, data["payment_method_id"]),
        )
        return data
    payment_method_id = ids.new_id("pm")
    data = {
        "merchant_id": state.credentials.merchant_id,
        "customer_id": customer_id,
        "payment_method_id": payment_method_id,
        "payment_method": payment_method,
        "payment_method_type": payment_method_type,
        "card": saved_card(card) if card else None,
        "recurring_enabled": True,
        "installment_payment_enabled": False,
        "payment_experience": ["redirect_to_url"],
        "metadata": metadata,
        "created": now_iso,
        "bank_transfer": details.get("bank_transfer") if details else None,
        "last_used_at": now_iso,
        "client_secret": None,
    }
    if details is not None:
        data["payment_method_data"] = details
    if billing is not None:
        data["billing"] = billing
    first = (
        customer_id is not None
        and not conn.execute(
            "SELECT 1 FROM payment_methods WHERE customer_id = ? LIMIT 1", (customer_id,)
        ).fetchone()
    )
    conn.execute(
        "INSERT INTO payment_methods(payment_method_id, customer_id, created, payment_token, "
        "fingerprint, is_default, rule, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            payment_method_id,
            customer_id,
            now_iso,
            str(uuid.uuid4()),
            key,
            1 if first else 0,  # a customer's first saved method is its default
            dumps(rule) if rule else None,
            dumps(data),
        ),
    )
    return data


def _load_method(
    conn: sqlite3.Connection, payment_method_id: str
) -> tuple[dict[str, Any], dict[str, Any] | None, str, bool]:
    """(record, rule, payment_token, is_default), or 404 IR_05."""
    found = conn.execute(
        "SELECT data, rule, payment_token, is_default FROM payment_methods "
        "WHERE payment_method_id = ?",
        (payment_method_id,),
    ).fetchone()
    if found is None:
        raise not_found("Payment method", payment_method_id)
    rule = json.loads(found[1]) if found[1] else None
    return json.loads(found[0]), rule, str(found[2]), bool(found[3])


def _not_theirs(payment_method_id: str, customer_id: str, advice: str) -> SandboxError:
    return SandboxError(
        400,
        INVALID,
        "IR_04",
        f"Payment method {payment_method_id} was not saved for customer {customer_id!r}: {advice}",
    )


def method_record(conn: sqlite3.Connection, payment_method_id: str) -> dict[str, Any]:
    """A saved method's record, or 404 IR_05."""
    return _load_method(conn, payment_method_id)[0]


def saved_for(
    conn: sqlite3.Connection, payment_method_id: str, customer_id: str
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(record, rule) of a method `customer_id` saved, when it holds something to charge;
    None when no saved method has this id. 400 when it is another customer's or holds
    nothing the sandbox can charge."""
    found = conn.execute(
        "SELECT data, rule FROM payment_methods WHERE payment_method_id = ?",
        (payment_method_id,),
    ).fetchone()
    if found is None:
        return None
    data: dict[str, Any] = json.loads(found[0])
    if data.get("customer_id") != customer_id:
        raise _not_theirs(
            payment_method_id,
            customer_id,
            "pay with one of that customer's own saved methods "
            "(GET /customers/{customer_id}/payment_methods).",
        )
    if not found[1]:
        raise SandboxError(
            400,
            INVALID,
            "IR_04",
            f"The saved method {payment_method_id} ({data['payment_method']}) holds nothing "
            "the sandbox can charge: pay with a saved card or wallet.",
        )
    return data, json.loads(found[1])


def by_token(
    conn: sqlite3.Connection, token: str, customer_id: str | None
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The saved method a `payment_token` names, for this payment's customer (400 otherwise)."""
    found = conn.execute(
        "SELECT data, rule FROM payment_methods WHERE payment_token = ?", (token,)
    ).fetchone()
    if found is None:
        raise SandboxError(
            400,
            INVALID,
            "IR_04",
            "Invalid value for payment_token (the value is not repeated here): no saved payment "
            "method has this token. Take it from GET /customers/{customer_id}/payment_methods.",
        )
    data: dict[str, Any] = json.loads(found[0])
    if not found[1]:
        raise SandboxError(
            400,
            INVALID,
            "IR_04",
            f"The saved method {data['payment_method_id']} ({data['payment_method']}) holds "
            "nothing the sandbox can charge: pay with a saved card or wallet, or send "
            "payment_method_data.",
        )
    if customer_id is None or data.get("customer_id") != customer_id:
        raise SandboxError(
            400,
            INVALID,
            "IR_04",
            "This payment_token belongs to another customer's saved method: a payment may only "
            "use a method its own customer saved (set the payment's customer_id to "
            f"{data.get('customer_id')!r}).",
        )
    return data, json.loads(found[1]) if found[1] else None


def _list_item(data: dict[str, Any], token: str, is_default: bool) -> dict[str, Any]:
    """One entry of `customer_payment_methods` (the real `CustomerPaymentMethod`)."""
    return {
        "payment_token": token,
        "payment_method_id": data["payment_method_id"],
        "customer_id": data.get("customer_id"),
        "payment_method": data["payment_method"],
        "payment_method_type": data.get("payment_method_type"),
        "payment_method_issuer": None,
        "payment_method_issuer_code": None,
        "recurring_enabled": data.get("recurring_enabled"),
        "installment_payment_enabled": data.get("installment_payment_enabled"),
        "payment_experience": data.get("payment_experience"),
        "card": data.get("card"),
        "metadata": data.get("metadata"),
        "created": data.get("created"),
        "bank_transfer": data.get("bank_transfer"),
        "bank": None,
        "surcharge_details": None,
        "requires_cvv": data["payment_method"] == "card",
        "last_used_at": data.get("last_used_at"),
        "default_payment_method_set": is_default,
        "billing": data.get("billing"),
    }


@router.post(
    "/payment_methods",
    summary="Save a payment method for a customer",
    openapi_extra=json_body(PaymentMethodCreateRequest),
)
async def create_payment_method(request: Request) -> Response:
    """A card (`card`) or another family's data, saved for `customer_id`."""
    body = await read_body(request, PaymentMethodCreateRequest)
    state = state_of(request)
    from tui.sandbox.resources.payments import card_rule, card_view, refuse_expired

    card_view_: dict[str, Any] | None = None
    rule: dict[str, Any] | None = None
    if body.card is not None:
        card = body.card.as_card()
        refuse_expired(state, card)
        card_view_ = card_view(card)
        card_view_["nick_name"] = body.card.nick_name
        rule = card_rule(state, card)
    details = {
        k: v
        for k, v in {"wallet": body.wallet, "bank_transfer": body.bank_transfer}.items()
        if v is not None
    }
    if body.wallet is not None:
        # A wallet in the payment's shape ({"google_pay": {...}}): charged by its test value.
        from tui.sandbox import methods
        from tui.sandbox.resources.payments import this_month

        chosen = methods.choose(
            body.payment_method, body.payment_method_type, {"wallet": body.wallet}
        )
        rule = methods.rule_for(chosen, "", this_month(state))
        details = methods.shown(chosen)
    with state.db.transaction() as conn:
        if body.customer_id is not None:
            _customer_must_exist(conn, body.customer_id)
        data = save_method(
            conn,
            state,
            customer_id=body.customer_id,
            payment_method=body.payment_method,
            payment_method_type=body.payment_method_type,
            card=card_view_,
            details=details or None,
            rule=rule,
            metadata=body.metadata,
            billing=body.billing.to_body() if body.billing else None,
        )
    return respond(data)


@router.get("/payment_methods/{payment_method_id}", summary="Retrieve a saved payment method")
async def retrieve_payment_method(request: Request, payment_method_id: str) -> Response:
    """The saved method, or 404 IR_05."""
    data, _rule, _token, _default = _load_method(state_of(request).db.conn, payment_method_id)
    return respond(data)


@router.post(
    "/payment_methods/{payment_method_id}/update",
    summary="Update a saved card (expiry, holder, nickname)",
    openapi_extra=json_body(PaymentMethodUpdateRequest),
)
async def update_payment_method(request: Request, payment_method_id: str) -> Response:
    """Change what may change on a saved card; the number never changes (save a new one)."""
    body = await read_body(request, PaymentMethodUpdateRequest)
    state = state_of(request)
    from tui.sandbox.resources.payments import refuse_expired_expiry

    with state.db.transaction() as conn:
        data, _rule, _token, _default = _load_method(conn, payment_method_id)
        if body.card is not None:
            card = data.get("card")
            if not card:
                raise SandboxError(
                    400,
                    INVALID,
                    "IR_04",
                    f"card was sent, but {payment_method_id} is not a saved card: only a "
                    "card's expiry, holder and nickname can be updated.",
                )
            sent = body.card.model_dump(exclude_none=True)
            for field, key in (
                ("card_exp_month", "expiry_month"),
                ("card_exp_year", "expiry_year"),
                ("card_holder_name", "card_holder_name"),
                ("nick_name", "nick_name"),
            ):
                if field in sent:
                    card[key] = sent[field]
            refuse_expired_expiry(
                state,
                card.get("expiry_month"),
                card.get("expiry_year"),
                f"the saved card {payment_method_id} (not changed)",
            )
        if body.wallet is not None:
            data.setdefault("payment_method_data", {})["wallet"] = body.wallet
        conn.execute(
            "UPDATE payment_methods SET data = ? WHERE payment_method_id = ?",
            (dumps(data), payment_method_id),
        )
    return respond(data)


@router.delete("/payment_methods/{payment_method_id}", summary="Delete a saved payment method")
async def delete_payment_method(request: Request, payment_method_id: str) -> Response:
    """Delete it; the mandates made on it are revoked (events `mandate_revoked`)."""
    state = state_of(request)
    with state.db.transaction() as conn:
        _load_method(conn, payment_method_id)
        for (mandate_id,) in conn.execute(
            "SELECT mandate_id FROM mandates WHERE payment_method_id = ?", (payment_method_id,)
        ).fetchall():
            _revoke_if_live(conn, state, str(mandate_id))
        conn.execute(
            "DELETE FROM payment_methods WHERE payment_method_id = ?", (payment_method_id,)
        )
    return respond({"payment_method_id": payment_method_id, "deleted": True})


@router.get(
    "/customers/{customer_id}/payment_methods",
    summary="List a customer's saved payment methods (with payment tokens)",
)
async def list_customer_payment_methods(request: Request, customer_id: str) -> Response:
    """`{customer_payment_methods: [...], is_guest_customer}`, newest first."""
    conn = state_of(request).db.conn
    _customer_must_exist(conn, customer_id)
    rows = conn.execute(
        "SELECT data, payment_token, is_default FROM payment_methods WHERE customer_id = ? "
        "ORDER BY created DESC, rowid DESC",
        (customer_id,),
    ).fetchall()
    items = [_list_item(json.loads(r[0]), str(r[1]), bool(r[2])) for r in rows]
    return respond({"customer_payment_methods": items, "is_guest_customer": False})


@router.post(
    "/{customer_id}/payment_methods/{payment_method_id}/default",
    summary="Set a customer's default payment method",
)
async def set_default_payment_method(
    request: Request, customer_id: str, payment_method_id: str
) -> Response:
    """The method must be one this customer saved."""
    state = state_of(request)
    with state.db.transaction() as conn:
        _customer_must_exist(conn, customer_id)
        data, _rule, _token, _default = _load_method(conn, payment_method_id)
        if data.get("customer_id") != customer_id:
            raise _not_theirs(
                payment_method_id,
                customer_id,
                "a customer's default must be one of its own saved methods.",
            )
        conn.execute(
            "UPDATE payment_methods SET is_default = (payment_method_id = ?) WHERE customer_id = ?",
            (payment_method_id, customer_id),
        )
    return respond(
        {
            "default_payment_method_id": payment_method_id,
            "customer_id": customer_id,
            "payment_method": data["payment_method"],
            "payment_method_type": data.get("payment_method_type"),
        }
    )


@router.get(
    "/account/payment_methods",
    summary="The payment methods a payment may use (the browser SDK's list)",
)
async def merchant_payment_methods(request: Request) -> Response:
    """Every family and type the sandbox takes; with `?client_secret=` (required with the
    publishable key) it is the list for that payment, in its currency."""
    from tui.sandbox import methods
    from tui.sandbox.resources.payments import check_client_secret, load

    state = state_of(request)
    secret = request.query_params.get("client_secret")
    currency = None
    redirect_url = None
    customer_id = None
    if secret is not None or principal_of(request).kind == PUBLISHABLE:
        payment_id = (secret or "").split("_secret_", 1)[0]
        if not payment_id:
            raise missing(
                "client_secret", "The payment's client_secret, as POST /payments gave it."
            )
        row = load(state.db.conn, payment_id)
        check_client_secret(request, row, secret, always=True)
        currency = row.data.get("currency")
        redirect_url = row.data.get("return_url")
        customer_id = row.data.get("customer_id")
    grouped: dict[str, list[dict[str, Any]]] = {"card": []}
    for net in ("credit", "debit"):
        grouped["card"].append(
            {
                "payment_method_type": net,
                "payment_experience": None,
                "card_networks": [
                    {
                        "card_network": n,
                        "surcharge_details": None,
                        "eligible_connectors": ["sandbox"],
                    }
                    for n in ("Visa", "Mastercard", "AmericanExpress", "Discover")
                ],
                "bank_names": None,
                "bank_debits": None,
                "bank_transfers": None,
                "required_fields": None,
                "surcharge_details": None,
                "pm_auth_connector": None,
            }
        )
    for method in methods.TYPES:
        types = grouped.setdefault(method.family, [])
        if any(t["payment_method_type"] == method.type for t in types):
            continue
        types.append(
            {
                "payment_method_type": method.type,
                "payment_experience": [
                    {
                        "payment_experience_type": "redirect_to_url",
                        "eligible_connectors": ["sandbox"],
                    }
                ]
                if method.flow in (methods.REDIRECT, methods.QR)
                else None,
                "card_networks": None,
                "bank_names": None,
                "bank_debits": None,
                "bank_transfers": None,
                "required_fields": None,
                "surcharge_details": None,
                "pm_auth_connector": None,
            }
        )
    return respond(
        {
            "redirect_url": redirect_url,
            "currency": currency,
            "payment_methods": [
                {"payment_method": family, "payment_method_types": types}
                for family, types in grouped.items()
            ],
            "mandate_payment": None,
            "merchant_name": state.credentials.merchant_id,
            "show_surcharge_breakup_screen": False,
            "payment_type": "normal" if secret else None,
            "request_external_three_ds_authentication": False,
            "collect_shipping_details_from_wallets": False,
            "collect_billing_details_from_wallets": False,
            "is_tax_calculation_enabled": False,
            "sdk_next_action": {"next_action": "confirm"},
            "is_guest_customer": customer_id is None,
        }
    )


@router.post(
    "/ephemeral_keys",
    summary="An ephemeral key for a customer (the browser SDK's)",
    openapi_extra=schema_body(
        {
            "type": "object",
            "required": ["customer_id"],
            "properties": {"customer_id": {"type": "string"}},
        }
    ),
)
async def create_ephemeral_key(request: Request) -> Response:
    """`{customer_id}` -> a key the SDK uses for that customer's saved methods, valid an hour."""
    body = await read_object(request, '{"customer_id": "cus_..."}')
    customer_id = body.get("customer_id")
    if not isinstance(customer_id, str) or not customer_id:
        raise missing("customer_id", "The customer this key is for.")
    state = state_of(request)
    _customer_must_exist(state.db.conn, customer_id)
    now = int(state.clock.now())
    return respond(
        {
            "id": ids.new_id("eki"),
            "merchant_id": state.credentials.merchant_id,
            "customer_id": customer_id,
            "created_at": now,
            "expires": now + 3600,
            "secret": ids.new_id("epk"),
        }
    )


def forget_customer(conn: sqlite3.Connection, state: SandboxState, customer_id: str) -> None:
    """A deleted customer's saved methods go and its mandates are revoked."""
    for (mandate_id,) in conn.execute(
        "SELECT mandate_id FROM mandates WHERE customer_id = ?", (customer_id,)
    ).fetchall():
        _revoke_if_live(conn, state, str(mandate_id))
    conn.execute("DELETE FROM payment_methods WHERE customer_id = ?", (customer_id,))


# -- mandates -------------------------------------------------------------------------------------


def create_mandate(
    conn: sqlite3.Connection,
    state: SandboxState,
    *,
    customer_id: str | None,
    method: dict[str, Any],
    acceptance: dict[str, Any] | None,
    mandate_type: dict[str, Any] | None,
) -> str:
    """An `active` mandate on a saved method (event `mandate_active`). Returns its id."""
    mandate_id = ids.new_id("man")
    now_iso = state.clock.now_iso()
    card = method.get("card")
    data = {
        "mandate_id": mandate_id,
        "status": ACTIVE,
        "payment_method_id": method["payment_method_id"],
        "payment_method": method["payment_method"],
        "payment_method_type": method.get("payment_method_type"),
        "card": None
        if not card
        else {
            "last4_digits": card.get("last4_digits"),
            "card_exp_month": card.get("expiry_month"),
            "card_exp_year": card.get("expiry_year"),
            "card_holder_name": card.get("card_holder_name"),
            "card_token": None,
            "scheme": card.get("scheme"),
            "issuer_country": None,
            "card_fingerprint": None,
            "card_isin": None,
            "card_issuer": None,
            "card_network": card.get("card_network"),
            "card_type": None,
            "nick_name": card.get("nick_name"),
        },
        "customer_acceptance": acceptance,
    }
    conn.execute(
        "INSERT INTO mandates(mandate_id, customer_id, payment_method_id, created, terms, data) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (
            mandate_id,
            customer_id,
            method["payment_method_id"],
            now_iso,
            dumps(mandate_type) if mandate_type else None,
            dumps(data),
        ),
    )
    _event(conn, state, data, "mandate_active")
    return mandate_id


def _event(conn: sqlite3.Connection, state: SandboxState, data: dict[str, Any], kind: str) -> None:
    emit(
        conn,
        state,
        event_type=kind,
        event_class="mandates",
        object_id=str(data["mandate_id"]),
        obj=data,
    )


def _load_mandate(
    conn: sqlite3.Connection, mandate_id: str
) -> tuple[dict[str, Any], str | None, dict[str, Any] | None]:
    """(record, customer_id, terms), or 404 IR_05."""
    found = conn.execute(
        "SELECT data, customer_id, terms FROM mandates WHERE mandate_id = ?", (mandate_id,)
    ).fetchone()
    if found is None:
        raise not_found("Mandate", mandate_id)
    terms = json.loads(found[2]) if found[2] else None
    return json.loads(found[0]), found[1], terms


def _save_mandate(conn: sqlite3.Connection, data: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE mandates SET data = ? WHERE mandate_id = ?", (dumps(data), data["mandate_id"])
    )


def _revoke_if_live(conn: sqlite3.Connection, state: SandboxState, mandate_id: str) -> None:
    data, _customer, _terms = _load_mandate(conn, mandate_id)
    if data["status"] != REVOKED:
        data["status"] = REVOKED
        _save_mandate(conn, data)
        _event(conn, state, data, "mandate_revoked")


class Recurring(NamedTuple):
    """What a recurring payment charges: the mandate, its saved method and that method's
    rule, the mandate's customer and its terms (`mandate_type`)."""

    mandate: dict[str, Any]
    method: dict[str, Any]
    rule: dict[str, Any] | None
    customer_id: str | None
    terms: dict[str, Any] | None


def for_payment(
    conn: sqlite3.Connection,
    mandate_id: str,
    customer_id: str | None,
    amount: int,
    currency: str,
) -> Recurring:
    """What a recurring payment with `mandate_id` charges.

    Refused (400, nothing created) when the mandate is revoked or used up, belongs to another
    customer, or the amount or currency is outside its terms."""
    data, owner, terms = _load_mandate(conn, mandate_id)
    if data["status"] != ACTIVE:
        why = f"is {data['status']}"
        if (terms or {}).get("single_use"):
            why += " (a single_use mandate is revoked by its first charge)"
        raise SandboxError(
            400,
            INVALID,
            "IR_04",
            f"Mandate {mandate_id} {why}: it cannot be charged. Ask the customer for a new one "
            "(a payment with setup_future_usage: off_session and customer_acceptance).",
        )
    if customer_id is not None and owner is not None and customer_id != owner:
        raise SandboxError(
            400,
            INVALID,
            "IR_04",
            f"Mandate {mandate_id} belongs to customer {owner!r}, not {customer_id!r}: send that "
            "customer_id (or leave it out).",
        )
    limit = (terms or {}).get("single_use") or (terms or {}).get("multi_use")
    if limit:
        if str(limit.get("currency")) != currency:
            raise invalid("currency", currency, f"the mandate's currency {limit.get('currency')}")
        if amount > int(limit.get("amount") or 0):
            raise invalid(
                "amount",
                amount,
                f"at most the mandate's limit of {limit.get('amount')} {limit.get('currency')} "
                "(the request amount is greater than the mandate amount)",
            )
    found = conn.execute(
        "SELECT data, rule FROM payment_methods WHERE payment_method_id = ?",
        (data["payment_method_id"],),
    ).fetchone()
    if found is None:  # the method was deleted: its mandates were revoked with it
        raise not_found("Payment method", str(data["payment_method_id"]))
    rule = json.loads(found[1]) if found[1] else None
    return Recurring(data, json.loads(found[0]), rule, owner, terms)


def mandate_charged(conn: sqlite3.Connection, mandate_id: str) -> None:
    """A recurring charge went through: a single_use mandate is used up. The real service
    marks it revoked then (with no event: nobody revoked it)."""
    data, _owner, terms = _load_mandate(conn, mandate_id)
    if (terms or {}).get("single_use") and data["status"] == ACTIVE:
        data["status"] = REVOKED
        _save_mandate(conn, data)


@router.get("/mandates/{mandate_id}", summary="Retrieve a mandate")
async def retrieve_mandate(request: Request, mandate_id: str) -> Response:
    """The mandate, or 404 IR_05."""
    data, _owner, _terms = _load_mandate(state_of(request).db.conn, mandate_id)
    return respond(data)


@router.post("/mandates/revoke/{mandate_id}", summary="Revoke a mandate")
async def revoke_mandate(request: Request, mandate_id: str) -> Response:
    """`active` (or used up) -> `revoked`; revoking twice is refused."""
    state = state_of(request)
    with state.db.transaction() as conn:
        data, _owner, _terms = _load_mandate(conn, mandate_id)
        if data["status"] == REVOKED:
            raise SandboxError(
                400,
                INVALID,
                "IR_04",
                f"Mandate {mandate_id} is already revoked: there is nothing left to revoke.",
            )
        _revoke_if_live(conn, state, mandate_id)
    return respond(
        {"mandate_id": mandate_id, "status": REVOKED, "error_code": None, "error_message": None}
    )


@router.get("/customers/{customer_id}/mandates", summary="List a customer's mandates")
async def list_customer_mandates(request: Request, customer_id: str) -> Response:
    """A bare array, newest first (as the real service answers)."""
    conn = state_of(request).db.conn
    _customer_must_exist(conn, customer_id)
    rows = conn.execute(
        "SELECT data FROM mandates WHERE customer_id = ? ORDER BY created DESC, rowid DESC",
        (customer_id,),
    ).fetchall()
    return respond([json.loads(r[0]) for r in rows])


RESOURCE = Resource(name="payment_methods", router=router, schema=SCHEMA)
