"""Mandates in a payment request: `setup_future_usage`, the customer's acceptance and
`mandate_data` (the real service's shapes, OpenAPI v1)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BeforeValidator, model_validator

from payscope.api.models._base import RequestModel, field_error, raise_field_errors
from payscope.api.models.common import Amount, Currency, Metadata, choice

__all__ = [
    "AcceptanceType",
    "CustomerAcceptance",
    "FutureUsage",
    "FutureUsageField",
    "MandateAmount",
    "MandateData",
    "MandateType",
    "OnlineAcceptance",
]


class FutureUsage(StrEnum):
    """`setup_future_usage`: keep the method for payments with the customer present, or not."""

    ON_SESSION = "on_session"
    OFF_SESSION = "off_session"


FutureUsageField = Annotated[FutureUsage, BeforeValidator(choice(FutureUsage, "future usage"))]


class AcceptanceType(StrEnum):
    """How the customer accepted the mandate."""

    ONLINE = "online"
    OFFLINE = "offline"


class OnlineAcceptance(RequestModel):
    """Where an online acceptance came from."""

    ip_address: str | None = None
    user_agent: str | None = None


class CustomerAcceptance(RequestModel):
    """The customer's agreement to be charged later (`acceptance_type` online or offline)."""

    acceptance_type: Annotated[
        AcceptanceType, BeforeValidator(choice(AcceptanceType, "acceptance type"))
    ]
    accepted_at: str | None = None
    online: OnlineAcceptance | None = None


class MandateAmount(RequestModel):
    """The most a mandate may charge at once, in its currency, between optional dates."""

    amount: Amount
    currency: Currency
    start_date: str | None = None
    end_date: str | None = None
    metadata: Metadata | None = None


class MandateType(RequestModel):
    """`single_use` (one later charge) or `multi_use` (any number), each with its limit."""

    single_use: MandateAmount | None = None
    multi_use: MandateAmount | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> MandateType:
        if self.single_use is not None and self.multi_use is not None:
            raise_field_errors(
                type(self),
                [
                    field_error(
                        "multi_use",
                        "mandate_type",
                        "a mandate is single_use or multi_use, not both: send one of them",
                    )
                ],
            )
        return self

    @property
    def limit(self) -> MandateAmount | None:
        """The amount limit, whichever kind it is."""
        return self.single_use or self.multi_use


class MandateData(RequestModel):
    """`mandate_data` of a payment: the acceptance and the kind of mandate."""

    customer_acceptance: CustomerAcceptance | None = None
    mandate_type: MandateType | None = None
    update_mandate_id: str | None = None
