"""Saved payment methods and mandates: their tables and the state changes payments,
subscriptions and the payment_methods routes share (saving a method, finding it by token,
creating, charging and revoking mandates). Below every resource that uses it: it imports none.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from typing import Any, NamedTuple

from payscope.sandbox import ids
from payscope.sandbox.db import dumps
from payscope.sandbox.errors import INVALID, SandboxError, invalid, not_found
from payscope.sandbox.outbox import emit
from payscope.sandbox.state import SandboxState

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


# -- saved methods ------------------------------------------------------------------------------


def customer_must_exist(conn: sqlite3.Connection, customer_id: str) -> None:
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


def load_method(
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


def not_theirs(payment_method_id: str, customer_id: str, advice: str) -> SandboxError:
    return SandboxError(
        400,
        INVALID,
        "IR_04",
        f"Payment method {payment_method_id} was not saved for customer {customer_id!r}: {advice}",
    )


def method_record(conn: sqlite3.Connection, payment_method_id: str) -> dict[str, Any]:
    """A saved method's record, or 404 IR_05."""
    return load_method(conn, payment_method_id)[0]


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
        raise not_theirs(
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


def list_item(data: dict[str, Any], token: str, is_default: bool) -> dict[str, Any]:
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


def update_method(conn: sqlite3.Connection, payment_method_id: str, data: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE payment_methods SET data = ? WHERE payment_method_id = ?",
        (dumps(data), payment_method_id),
    )


def delete_method(conn: sqlite3.Connection, state: SandboxState, payment_method_id: str) -> None:
    """Delete a saved method; the mandates made on it are revoked."""
    for (mandate_id,) in conn.execute(
        "SELECT mandate_id FROM mandates WHERE payment_method_id = ?", (payment_method_id,)
    ).fetchall():
        revoke_if_live(conn, state, str(mandate_id))
    conn.execute("DELETE FROM payment_methods WHERE payment_method_id = ?", (payment_method_id,))


def customer_methods(conn: sqlite3.Connection, customer_id: str) -> list[dict[str, Any]]:
    """A customer's saved methods as list entries, newest first."""
    rows = conn.execute(
        "SELECT data, payment_token, is_default FROM payment_methods WHERE customer_id = ? "
        "ORDER BY created DESC, rowid DESC",
        (customer_id,),
    ).fetchall()
    return [list_item(json.loads(r[0]), str(r[1]), bool(r[2])) for r in rows]


def set_default(conn: sqlite3.Connection, customer_id: str, payment_method_id: str) -> None:
    conn.execute(
        "UPDATE payment_methods SET is_default = (payment_method_id = ?) WHERE customer_id = ?",
        (payment_method_id, customer_id),
    )


def customer_mandates(conn: sqlite3.Connection, customer_id: str) -> list[dict[str, Any]]:
    """A customer's mandates, newest first."""
    rows = conn.execute(
        "SELECT data FROM mandates WHERE customer_id = ? ORDER BY created DESC, rowid DESC",
        (customer_id,),
    ).fetchall()
    return [json.loads(r[0]) for r in rows]


def forget_customer(conn: sqlite3.Connection, state: SandboxState, customer_id: str) -> None:
    """A deleted customer's saved methods go and its mandates are revoked."""
    for (mandate_id,) in conn.execute(
        "SELECT mandate_id FROM mandates WHERE customer_id = ?", (customer_id,)
    ).fetchall():
        revoke_if_live(conn, state, str(mandate_id))
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


def load_mandate(
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


def revoke_if_live(conn: sqlite3.Connection, state: SandboxState, mandate_id: str) -> None:
    data, _customer, _terms = load_mandate(conn, mandate_id)
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
    data, owner, terms = load_mandate(conn, mandate_id)
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
    data, _owner, terms = load_mandate(conn, mandate_id)
    if (terms or {}).get("single_use") and data["status"] == ACTIVE:
        data["status"] = REVOKED
        _save_mandate(conn, data)
