"""The service's words that the UI needs before pydantic is loaded: the id rule and statuses.

Standard library only (the first frame imports it); the models in `payscope.api.models` take their
enums and patterns from here, so there is one copy of each.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Final

ID_MAX: Final = 64
ID_CHARACTERS: Final = "A-Za-z0-9_-"
ID_RE: Final = re.compile(rf"[{ID_CHARACTERS}]{{1,{ID_MAX}}}")
"""A merchant-supplied id (payment_id, refund_id, customer_id, ...): 1 to 64 of `A-Za-z0-9_-`."""
BAD_ID_CHARACTER: Final = re.compile(rf"[^{ID_CHARACTERS}]")


class PaymentStatus(StrEnum):
    """Every payment status of the reference service (a superset of the spec's list)."""

    REQUIRES_PAYMENT_METHOD = "requires_payment_method"
    REQUIRES_CONFIRMATION = "requires_confirmation"
    REQUIRES_ACTION = "requires_action"
    REQUIRES_CUSTOMER_ACTION = "requires_customer_action"
    REQUIRES_MERCHANT_ACTION = "requires_merchant_action"
    REQUIRES_CAPTURE = "requires_capture"
    PROCESSING = "processing"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    PARTIALLY_CAPTURED = "partially_captured"
    PARTIALLY_CAPTURED_AND_CAPTURABLE = "partially_captured_and_capturable"
    PARTIALLY_AUTHORIZED_AND_REQUIRES_CAPTURE = "partially_authorized_and_requires_capture"
    EXPIRED = "expired"


PAYMENT_STATUSES: Final[tuple[str, ...]] = tuple(status.value for status in PaymentStatus)


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 event`, `2 events`, `1,000 events`: a count with its noun agreeing (`plural` for a
    noun that does not just take an s: `counted(2, "match", "matches")`)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
