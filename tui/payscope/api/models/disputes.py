"""Disputes and their evidence.

The spec abbreviates some statuses (`won`, `lost`, `challenged`) where the reference service
writes `dispute_won`, ...; both spellings are read, and `canonical_dispute_status` maps either
to the long form.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Annotated, Any, Final

from pydantic import BeforeValidator, model_validator
from pydantic_core import PydanticCustomError

from payscope.api.models._base import RequestModel, ResponseModel, field_error, raise_field_errors
from payscope.api.models.common import (
    Limit,
    ListResponse,
    Offset,
    PaymentIdStr,
    Timestamp,
    ascii_digits,
    choice,
    enum_or_none,
)

__all__ = [
    "EVIDENCE_CATEGORIES",
    "EVIDENCE_FIELDS",
    "Dispute",
    "DisputeEvidence",
    "DisputeEvidenceSubmit",
    "DisputeListRequest",
    "DisputeListResponse",
    "DisputeStage",
    "DisputeStatus",
    "canonical_dispute_status",
]


class DisputeStatus(StrEnum):
    """Dispute statuses in the reference service's spelling."""

    # In the order a dispute lives them (filters and messages list them so).
    OPENED = "dispute_opened"
    CHALLENGED = "dispute_challenged"
    ACCEPTED = "dispute_accepted"
    EXPIRED = "dispute_expired"
    CANCELLED = "dispute_cancelled"
    WON = "dispute_won"
    LOST = "dispute_lost"


class DisputeStage(StrEnum):
    """How far the dispute has gone."""

    PRE_DISPUTE = "pre_dispute"
    DISPUTE = "dispute"
    PRE_ARBITRATION = "pre_arbitration"
    ARBITRATION = "arbitration"
    DISPUTE_REVERSAL = "dispute_reversal"


# The reasons the card network opens a dispute with, each with its network reason code, and the
# stages a dispute can open at (the sandbox's network control takes these; the UI offers them).
NETWORK_REASONS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "fraudulent": "10.4",
        "product_not_received": "13.1",
        "product_unacceptable": "13.3",
        "duplicate": "12.6.1",
        "subscription_canceled": "13.2",
        "credit_not_processed": "13.6",
        "general": "13.7",
    }
)
OPENING_STAGES: Final[tuple[str, ...]] = (
    DisputeStage.PRE_DISPUTE.value,
    DisputeStage.DISPUTE.value,
    DisputeStage.PRE_ARBITRATION.value,
)


def canonical_dispute_status(value: str) -> str:
    """`won` -> `dispute_won` (any case); a long or unknown value comes back lower-cased."""
    lowered = value.strip().lower()
    if lowered in DisputeStatus._value2member_map_:
        return lowered
    prefixed = f"dispute_{lowered}"
    return prefixed if prefixed in DisputeStatus._value2member_map_ else lowered


def _status_filter(value: Any) -> Any:
    if isinstance(value, str):
        canonical = canonical_dispute_status(value)
        if canonical not in DisputeStatus._value2member_map_:
            allowed = ", ".join(s.value for s in DisputeStatus)
            raise PydanticCustomError(
                "dispute_status",
                "status '{value}' is not a dispute status; use one of {allowed} "
                "(the short forms won, lost, challenged... work too)",
                {"value": value, "allowed": allowed},
            )
        return canonical
    return value


class Dispute(ResponseModel):
    """A dispute record; list items carry the first seven fields."""

    dispute_id: str
    payment_id: str | None = None
    amount: int | None = None
    currency: str | None = None
    status: str | None = None
    reason: str | None = None
    created: str | None = None
    attempt_id: str | None = None
    dispute_stage: str | None = None
    dispute_status: str | None = None
    connector_reason: str | None = None
    connector_reason_code: str | None = None
    challenge_required_by: str | None = None
    created_at: str | None = None
    profile_id: str | None = None
    # Always sent by the real service: the processor's own status word and id for the
    # dispute, and whether a lost dispute plus refunds exceed what was captured.
    connector_status: str | None = None
    connector_dispute_id: str | None = None
    is_already_refunded: bool | None = None

    @model_validator(mode="before")
    @classmethod
    def _amount_as_text(cls, data: Any) -> Any:
        # the reference service sends the dispute amount as a string of digits
        if isinstance(data, dict) and isinstance(data.get("amount"), str):
            text = data["amount"].strip()
            if ascii_digits(text):
                return {**data, "amount": int(text)}
        return data

    @property
    def status_enum(self) -> DisputeStatus | None:
        """The status (from `status` or `dispute_status`, either spelling) as an enum."""
        raw = self.status or self.dispute_status
        return enum_or_none(DisputeStatus, canonical_dispute_status(raw)) if raw else None


class DisputeListRequest(RequestModel):
    """GET /disputes/list query (or the POST body of the spec's example)."""

    limit: Limit = 10
    offset: Offset = 0
    status: Annotated[DisputeStatus | None, BeforeValidator(_status_filter)] = None
    payment_id: PaymentIdStr | None = None
    dispute_stage: (
        Annotated[DisputeStage, BeforeValidator(choice(DisputeStage, "dispute stage"))] | None
    ) = None
    created_gte: Timestamp | None = None
    created_lte: Timestamp | None = None


class DisputeListResponse(ListResponse[Dispute]):
    """`{count, total_count, data[]}` of disputes."""


# flat evidence field -> the category the evidence record groups it under
EVIDENCE_CATEGORIES: Final[dict[str, str]] = {
    "customer_name": "customer_information",
    "customer_email_address": "customer_information",
    "customer_purchase_ip": "customer_information",
    "customer_signature": "customer_information",
    "customer_communication": "customer_information",
    "billing_address": "customer_information",
    "access_activity_log": "customer_information",
    "product_description": "product_information",
    "service_date": "product_information",
    "receipt": "product_information",
    "service_documentation": "product_information",
    "invoice_showing_distinct_transactions": "product_information",
    "recurring_transaction_agreement": "product_information",
    "shipping_carrier": "shipping_information",
    "shipping_date": "shipping_information",
    "shipping_tracking_number": "shipping_information",
    "shipping_address": "shipping_information",
    "shipping_documentation": "shipping_information",
    "refund_policy": "refund_policy_information",
    "refund_policy_disclosure": "refund_policy_information",
    "refund_refusal_explanation": "refund_policy_information",
    "cancellation_policy": "cancellation_policy_information",
    "cancellation_policy_disclosure": "cancellation_policy_information",
    "cancellation_rebuttal": "cancellation_policy_information",
    "uncategorized_text": "uncategorized_information",
    "uncategorized_file": "uncategorized_information",
}
EVIDENCE_FIELDS: Final[tuple[str, ...]] = tuple(EVIDENCE_CATEGORIES)


class DisputeEvidenceSubmit(RequestModel):
    """POST /disputes/evidence: `dispute_id` and flat evidence fields (file fields take file ids).

    At least one evidence field must be given. Submitting moves an open dispute to
    `dispute_challenged`.
    """

    dispute_id: str
    customer_name: str | None = None
    customer_email_address: str | None = None
    customer_purchase_ip: str | None = None
    customer_signature: str | None = None
    customer_communication: str | None = None
    billing_address: str | None = None
    access_activity_log: str | None = None
    product_description: str | None = None
    service_date: str | None = None
    receipt: str | None = None
    service_documentation: str | None = None
    invoice_showing_distinct_transactions: str | None = None
    recurring_transaction_agreement: str | None = None
    shipping_carrier: str | None = None
    shipping_date: str | None = None
    shipping_tracking_number: str | None = None
    shipping_address: str | None = None
    shipping_documentation: str | None = None
    refund_policy: str | None = None
    refund_policy_disclosure: str | None = None
    refund_refusal_explanation: str | None = None
    cancellation_policy: str | None = None
    cancellation_policy_disclosure: str | None = None
    cancellation_rebuttal: str | None = None
    uncategorized_text: str | None = None
    uncategorized_file: str | None = None

    @model_validator(mode="after")
    def _some_evidence(self) -> DisputeEvidenceSubmit:
        if not self.grouped():
            raise_field_errors(
                type(self),
                [
                    field_error(
                        (),
                        "missing",
                        "no evidence given: fill at least one evidence field, such as "
                        "product_description, receipt or shipping_tracking_number",
                    )
                ],
            )
        return self

    def grouped(self) -> dict[str, dict[str, str]]:
        """The evidence grouped by category as the evidence record shows it; empty ones left out."""
        groups: dict[str, dict[str, str]] = {}
        for name, category in EVIDENCE_CATEGORIES.items():
            value = getattr(self, name)
            if value not in (None, ""):
                groups.setdefault(category, {})[name] = value
        return groups


class DisputeEvidence(ResponseModel):
    """GET /disputes/evidence/{dispute_id}: what was submitted, grouped by category."""

    dispute_id: str
    evidence_submitted_at: str | None = None
    evidence: dict[str, dict[str, Any]] = {}

    @model_validator(mode="after")
    def _drop_empty_categories(self) -> DisputeEvidence:
        self.evidence = {name: fields for name, fields in self.evidence.items() if fields}
        return self

    @classmethod
    def from_submission(
        cls, submitted: DisputeEvidenceSubmit, submitted_at: str
    ) -> DisputeEvidence:
        """The evidence record that a submission produces."""
        return cls(
            dispute_id=submitted.dispute_id,
            evidence_submitted_at=submitted_at,
            evidence=submitted.grouped(),
        )

    def flat(self) -> dict[str, Any]:
        """The evidence fields without their categories, as they were submitted."""
        return {name: value for fields in self.evidence.values() for name, value in fields.items()}
