"""The `{merchant_id}` path segment must name this sandbox's merchant."""

from __future__ import annotations

from payscope.sandbox.errors import not_found
from payscope.sandbox.state import SandboxState


def check_merchant(state: SandboxState, merchant_id: str) -> None:
    """404 IR_05 for any merchant id other than this sandbox's."""
    if merchant_id != state.credentials.merchant_id:
        raise not_found("Merchant account", merchant_id)
