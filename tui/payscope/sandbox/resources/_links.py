"""Payment link records, shared by the payment links resource and `POST /payments` with
`payment_link: true` (the real service's way to make one): the record's shape, its row in
`payment_links` (the table is the payment links resource's), and the checkout page's URL.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Final
from urllib.parse import quote

from payscope.api.models.payments import PaymentCreateRequest
from payscope.sandbox import ids
from payscope.sandbox.clock import iso
from payscope.sandbox.db import dumps
from payscope.sandbox.public import PAY_PAGE
from payscope.sandbox.state import SandboxState

DEFAULT_EXPIRY: Final = 15 * 60


def page_url(base: str, link_id: str) -> str:
    """The checkout page of `link_id` on the sandbox's root URL `base`."""
    return base + PAY_PAGE.format(payment_link_id=quote(link_id, safe=""))


def link_record(
    state: SandboxState,
    link_id: str,
    payment: dict[str, Any],
    now: float,
    expires_at: float,
    **fields: Any,
) -> dict[str, Any]:
    """A link record for `payment` (the payment object), `fields` over the defaults."""
    data = {
        "payment_link_id": link_id,
        "payment_id": payment["payment_id"],
        "merchant_id": state.credentials.merchant_id,
        "link_to_pay": None,
        "secure_link": None,
        "amount": payment["amount"],
        "currency": payment["currency"],
        "description": payment.get("description"),
        "link_type": "one_time",
        "customer_id": payment.get("customer_id"),
        "email": payment.get("email"),
        "send_email": False,
        "require_customer_info": False,
        "payment_link_config": None,
        "created_at": iso(now),
        "expiry": iso(expires_at),
        "status": "active",
        "profile_id": state.credentials.profile_id,
    }
    data.update(fields)
    return data


def insert_link(conn: sqlite3.Connection, data: dict[str, Any], expires_at: float) -> None:
    conn.execute(
        "INSERT INTO payment_links(payment_link_id, payment_id, status, created, expires_at, "
        "data) VALUES (?, ?, 'active', ?, ?, ?)",
        (data["payment_link_id"], data["payment_id"], data["created_at"], expires_at, dumps(data)),
    )


def link_payment(
    conn: sqlite3.Connection,
    state: SandboxState,
    base: str,
    payment: dict[str, Any],
    body: PaymentCreateRequest,
    now: float,
) -> None:
    """`POST /payments` with `payment_link: true` (in its transaction): a link for the new
    payment (its object, `payment`), living `session_expiry` seconds (default 15 minutes),
    listed and retrieved like any other; the payment gets `payment_link` and `expires_on`."""
    expires_at = now + (body.session_expiry or DEFAULT_EXPIRY)
    link_id = ids.new_id("plink")
    data = link_record(
        state,
        link_id,
        payment,
        now,
        expires_at,
        payment_link_config=body.payment_link_config or None,
    )
    insert_link(conn, data, expires_at)
    payment["payment_link"] = {
        "link": page_url(base, link_id),
        "secure_link": None,
        "payment_link_id": link_id,
    }
    payment["expires_on"] = iso(expires_at)
