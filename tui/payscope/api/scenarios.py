"""Trigger scenarios for the local sandbox, the way `stripe trigger` does: one call makes a
payment in a given flow, a refund that fails, a dispute, a payout, a subscription renewal or a
paid payment link, and says what it made.

Each scenario goes through the public API as a merchant would (the shared `ApiClient`, so every
request shows in the Requests log); the sandbox controls stand in only for what the outside
world does (the card network opening a dispute, time passing). A paid link is paid the way its
hosted checkout page pays it: with the publishable key and the payment's client secret.
This module is the catalogue (`SCENARIOS`), and costs nothing to import: what plays them,
`payscope.api.trigger.Trigger`, loads the client and the models, so `payscope trigger --list`
and shell completion stay instant. `payscope trigger` (tui/payscope/cli/trigger.py) runs the
same scenarios headless, and reports each request a scenario makes as a `Step`
(`Trigger(on_step=...)`).
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Final, Protocol

__all__ = ["SCENARIOS", "Made", "Player", "Scenario", "Step"]


@dataclass(frozen=True)
class Made:
    """What a scenario made: the area and id to open, and a sentence for the user."""

    area: str
    record_id: str
    summary: str


class Player(Protocol):
    """What plays a scenario by its name (`payscope.api.trigger.Trigger`)."""

    def play(self, name: str) -> Awaitable[Made]: ...


@dataclass(frozen=True)
class Scenario:
    """One trigger: a key in the list, a title, and what it does; `run` plays it (its `name`
    is the `Trigger` method that makes it)."""

    key: str
    name: str
    title: str
    help: str

    async def run(self, player: Player) -> Made:
        return await player.play(self.name)


@dataclass(frozen=True)
class Step:
    """One request a scenario made (each attempt of it: a retry is a step of its own), and the
    ids of what it made: the answer's ids that neither this request nor an earlier step named."""

    number: int
    method: str
    path: str
    status: int | None
    made: tuple[str, ...] = ()
    attempt: int = 1
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.number,
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "made": list(self.made),
            "attempt": self.attempt,
            "error": self.error,
        }


SCENARIOS: Final[tuple[Scenario, ...]] = (
    Scenario(
        "1",
        "one_step",
        "Payment, one step",
        "created and confirmed at once: succeeds",
    ),
    Scenario(
        "2",
        "two_step",
        "Payment, two steps",
        "created, then confirmed with a card",
    ),
    Scenario(
        "3",
        "manual_capture",
        "Payment, manual capture",
        "authorised and held: capture or cancel it",
    ),
    Scenario(
        "4",
        "three_ds",
        "Payment, 3-D Secure",
        "waits for the customer's challenge",
    ),
    Scenario(
        "5",
        "manual_review",
        "Payment, manual review",
        "held for review: approve or reject it",
    ),
    Scenario(
        "6",
        "refund_fails",
        "Refund that fails",
        "a paid payment refunded on a card whose refunds fail",
    ),
    Scenario(
        "7",
        "dispute",
        "Dispute opened",
        "the card network opens a dispute on a paid payment",
    ),
    Scenario("8", "payout", "Payout", "a card payout, confirmed and sent"),
    Scenario(
        "9",
        "renewal",
        "Subscription renewal",
        "a new subscription, the clock moved to its renewal",
    ),
    Scenario(
        "0",
        "renewal_fails",
        "Subscription renewal that fails",
        "as 9, on a card that declines renewals",
    ),
    Scenario(
        "l",
        "link_paid",
        "Payment link paid",
        "a link, paid through its hosted checkout",
    ),
)
