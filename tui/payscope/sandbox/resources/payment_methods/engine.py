"""What the payment methods resource reads of a payment: the one a browser names by its
`client_secret` (the SDK's list of methods for that payment)."""

from __future__ import annotations

from typing import Any

from payscope.sandbox.errors import missing
from payscope.sandbox.resources.payments.engine import check_secret
from payscope.sandbox.resources.payments.store import load
from payscope.sandbox.state import SandboxState


def payment_by_secret(state: SandboxState, secret: str | None) -> dict[str, Any]:
    """The payment whose `client_secret` this is (400 without one, 404 for no such payment,
    403 when the secret is not the payment's)."""
    payment_id = (secret or "").split("_secret_", 1)[0]
    if not payment_id:
        raise missing("client_secret", "The payment's client_secret, as POST /payments gave it.")
    row = load(state.db.conn, payment_id)
    check_secret(row, secret)
    return row.data
