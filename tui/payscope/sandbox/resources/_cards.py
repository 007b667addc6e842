"""Test cards as every resource that takes one reads them (payments, saved payment methods,
subscriptions): what the card will do, decided when it arrives (the number itself is never
kept), how it is shown, and the expiry check the real service makes before any attempt.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from payscope.api.models.card_fields import CardData
from payscope.sandbox import cards
from payscope.sandbox.errors import SandboxError
from payscope.sandbox.state import SandboxState


def card_rule(state: SandboxState, card: CardData) -> dict[str, Any]:
    """What this card will do, decided now (the number itself is not kept)."""
    outcome, code = cards.outcome_for(
        card.card_number,
        card.card_cvc,
        card.card_exp_month,
        card.card_exp_year,
        this_month(state),
    )
    rule: dict[str, Any] = {
        "outcome": outcome,
        "code": code,
        "brand": cards.brand_of(card.card_number),
    }
    known = cards.BY_NUMBER.get(card.card_number)
    if known is not None and known.issuer is not None and code == known.unified_code:
        rule["issuer"] = list(known.issuer)
    if card.card_number == cards.RENEWAL_FAILS_CARD:
        rule["fails_later"] = True  # its recurring charges on a mandate decline
    return rule


def this_month(state: SandboxState) -> tuple[int, int]:
    """(year, month) on the sandbox clock."""
    today = datetime.fromtimestamp(state.clock.now(), UTC)
    return today.year, today.month


def refuse_expired_expiry(state: SandboxState, month: Any, year: Any, what: str) -> None:
    """400 PE_03 "Card Expired" when `month`/`year` is before this month on the sandbox clock:
    like the real service, refused before any attempt (create, update and confirm alike)."""
    today = this_month(state)
    if cards.expired(month, year, today):
        # The spec's code for an expired card; the type is the real service's (an API
        # rejection of the request, not a processing outcome). A year already over is, in the
        # real service's words, "Invalid Expiry Year" (it checks the year before the date).
        if cards.year_over(year, today):
            raise SandboxError(400, "invalid_request", "PE_03", "Invalid Expiry Year")
        raise SandboxError(
            400,
            "invalid_request",
            "PE_03",
            f"Card Expired: {what} expired at the end of {month}/{year}; nothing was "
            "attempted. Send a card whose expiry is this month or later.",
        )


def refuse_expired(state: SandboxState, card: CardData) -> None:
    """`refuse_expired_expiry` for a card in a request."""
    refuse_expired_expiry(
        state, card.card_exp_month, card.card_exp_year, f"the card ending {card.last4}"
    )


def card_view(card: CardData) -> dict[str, Any]:
    """`payment_method_data.card` as the payment shows it (never the full number)."""
    return {
        "last4": card.last4,
        "brand": cards.brand_of(card.card_number),
        "exp_month": card.card_exp_month,
        "exp_year": card.card_exp_year,
        "card_holder_name": card.card_holder_name,
    }
