"""What runs the trigger scenarios (`payscope.api.scenarios`): the requests each makes through
the shared `ApiClient`, and, with `on_step`, each one reported as it is made. Loaded only when a
scenario runs: the catalogue costs nothing to import."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, Final

import httpx

from payscope.api.client import ApiClient
from payscope.api.journal import JournalEntry
from payscope.api.models.common import parse_timestamp
from payscope.api.models.customers import CustomerCreateRequest
from payscope.api.models.links import PaymentLinkCreateRequest
from payscope.api.models.payments import Payment, PaymentConfirmRequest, PaymentCreateRequest
from payscope.api.models.payouts import PayoutCreateRequest
from payscope.api.models.refunds import RefundCreateRequest
from payscope.api.models.subscriptions import SubscriptionCreateRequest
from payscope.api.scenarios import Made, Scenario, Step

__all__ = ["Trigger"]

SUCCEEDS: Final = "4242424242424242"
CHALLENGE: Final = "4000003800000446"
REVIEW: Final = "4000000000009235"
REFUND_FAILS: Final = "4000000000005126"
RENEWAL_FAILS: Final = "4000000000000341"
_CARD: Final = {
    "card_exp_month": "12",
    "card_exp_year": "2034",
    "card_cvc": "123",
    "card_holder_name": "Trigger Test",
}
_BILLING: Final = {"address": {"line1": "1 Trigger Street", "city": "Testville", "country": "US"}}
_RETURN_URL: Final = "https://example.com/return"


# Ids an answer carries that name who asks or the processor's side of it, not what was made
# (merchant_id, profile_id, connector_transaction_id, attempt_id...).
_NOT_MADE: Final = ("merchant", "profile", "connector", "processor", "attempt")


def _ids(value: Any) -> list[tuple[str, str]]:
    """(key, id) of the top-level `id` and `*_id` string fields of a JSON object."""
    if not isinstance(value, dict):
        return []
    return [
        (key, item)
        for key, item in value.items()
        if isinstance(item, str) and item and (key == "id" or key.endswith("_id"))
    ]


def _decoded(body: str | None) -> Any:
    if not body or body[:1] not in "{[":
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


class Trigger:
    """Runs scenarios against the local sandbox with `client` (secret key) and, for the hosted
    checkout, `publishable_key`. With `on_step`, `run` reports each request the scenario makes
    (read from the client's journal: give it a client nothing else uses meanwhile)."""

    def __init__(
        self,
        client: ApiClient,
        publishable_key: str | None = None,
        *,
        on_step: Callable[[Step], None] | None = None,
    ) -> None:
        self.client = client
        self.publishable_key = publishable_key
        self.on_step = on_step
        self._steps = 0
        self._seen: set[str] = set()

    async def run(self, scenario: Scenario) -> Made:
        """Run `scenario`, reporting its steps to `on_step` (when given) as they happen."""
        if self.on_step is None:
            return await scenario.run(self)
        stop = self.client.journal.subscribe(self._journaled)
        try:
            return await scenario.run(self)
        finally:
            stop()

    async def play(self, name: str) -> Made:
        """The scenario called `name` (a `Scenario.name`: one of the methods below) played."""
        scenario: Callable[[], Awaitable[Made]] = getattr(self, name)
        return await scenario()

    def _journaled(self, entry: JournalEntry) -> None:
        made: list[str] = []
        if entry.method not in ("GET", "HEAD") and entry.status is not None and entry.ok:
            request = {item for _key, item in _ids(_decoded(entry.request_body))}
            for key, item in _ids(_decoded(entry.response_body)):
                if any(word in key for word in _NOT_MADE) or item in self._seen or item in request:
                    continue
                if item in entry.path:
                    continue
                made.append(item)
        for body in (entry.request_body, entry.response_body):
            self._seen.update(item for _key, item in _ids(_decoded(body)))
        self._report(
            entry.method, entry.path, entry.status, tuple(made), entry.attempt, entry.error
        )

    def _report(
        self,
        method: str,
        path: str,
        status: int | None,
        made: tuple[str, ...] = (),
        attempt: int = 1,
        error: str | None = None,
    ) -> None:
        if self.on_step is None:
            return
        self._steps += 1
        self.on_step(Step(self._steps, method, path, status, made, attempt, error))

    # -- building blocks ------------------------------------------------------------------------

    def _card(self, number: str) -> dict[str, Any]:
        return {
            "payment_method": "card",
            "payment_method_type": "credit",
            "payment_method_data": {"card": {"card_number": number, **_CARD}},
            "billing": _BILLING,
        }

    async def payment(
        self,
        card: str = SUCCEEDS,
        *,
        confirm: bool = True,
        amount: int = 4200,
        description: str,
        **fields: Any,
    ) -> Payment:
        body: dict[str, Any] = {
            "amount": amount,
            "currency": "USD",
            "confirm": confirm,
            "return_url": _RETURN_URL,
            "description": description,
            **fields,
        }
        if confirm:
            body |= self._card(card)
        return await self.client.payments.create(PaymentCreateRequest.model_validate(body))

    async def _subscription(self, card: str, label: str) -> Made:

        customer = await self.client.customers.create(
            CustomerCreateRequest.model_validate(
                {"name": "Trigger Renewal", "email": "renewal@example.com"}
            )
        )
        request = SubscriptionCreateRequest.model_validate(
            {
                "customer_id": customer.customer_id,
                "item_price_id": "price_basic_monthly",
                "plan_id": "plan_basic",
                "payment_details": {
                    "payment_method": "card",
                    "payment_method_data": {"card": {"card_number": card, **_CARD}},
                },
            }
        )
        sub = await self.client.subscriptions.create(request)
        due = getattr(sub, "next_billing_at", None)
        if not due:
            return Made("subscriptions", sub.id, f"Subscription {sub.id} is {sub.status}.")
        clock = await self.client.sandbox.clock()
        now = parse_timestamp(str(clock["now"]))
        seconds = (parse_timestamp(str(due)) - now).total_seconds() + 1
        await self.client.sandbox.advance_clock(max(1.0, seconds))
        renewed = await self.client.subscriptions.retrieve(sub.id)
        return Made(
            "subscriptions",
            sub.id,
            f"Subscription {sub.id}: the clock moved to its renewal, which {label} "
            f"(now {renewed.status}).",
        )

    # -- the scenarios --------------------------------------------------------------------------

    async def one_step(self) -> Made:
        made = await self.payment(description="Trigger: one-step payment")
        return Made("payments", made.payment_id, f"Payment {made.payment_id} is {made.status}.")

    async def two_step(self) -> Made:
        created = await self.payment(confirm=False, description="Trigger: two-step payment")
        confirmed = await self.client.payments.confirm(
            created.payment_id, PaymentConfirmRequest.model_validate(self._card(SUCCEEDS))
        )
        return Made(
            "payments",
            confirmed.payment_id,
            f"Payment {confirmed.payment_id} was created, then confirmed: {confirmed.status}.",
        )

    async def manual_capture(self) -> Made:
        made = await self.payment(capture_method="manual", description="Trigger: manual capture")
        return Made(
            "payments",
            made.payment_id,
            f"Payment {made.payment_id} is {made.status}: capture or cancel it.",
        )

    async def three_ds(self) -> Made:
        made = await self.payment(
            CHALLENGE, authentication_type="three_ds", description="Trigger: 3-D Secure"
        )
        return Made(
            "payments",
            made.payment_id,
            f"Payment {made.payment_id} is {made.status}: the customer's challenge waits.",
        )

    async def manual_review(self) -> Made:
        made = await self.payment(REVIEW, description="Trigger: manual review")
        return Made(
            "payments",
            made.payment_id,
            f"Payment {made.payment_id} is {made.status}: approve or reject it.",
        )

    async def refund_fails(self) -> Made:
        paid = await self.payment(REFUND_FAILS, description="Trigger: refund that fails")
        refund = await self.client.refunds.create(
            RefundCreateRequest.model_validate(
                {"payment_id": paid.payment_id, "reason": "Trigger: refund that fails"}
            )
        )
        return Made(
            "refunds",
            refund.refund_id,
            f"Refund {refund.refund_id} of payment {paid.payment_id} is {refund.status}; "
            "it ends failed.",
        )

    async def dispute(self) -> Made:
        paid = await self.payment(description="Trigger: disputed payment")
        dispute = await self.client.sandbox.open_dispute(paid.payment_id)
        return Made(
            "disputes",
            dispute.dispute_id,
            f"Dispute {dispute.dispute_id} opened on payment {paid.payment_id}.",
        )

    async def payout(self) -> Made:
        request = PayoutCreateRequest.model_validate(
            {
                "amount": 2500,
                "currency": "USD",
                "payout_type": "card",
                "payout_method_data": {
                    "card": {
                        "card_number": SUCCEEDS,
                        "expiry_month": "12",
                        "expiry_year": "2034",
                        "card_holder_name": "Trigger Test",
                    }
                },
                "description": "Trigger: payout",
                "confirm": True,
                "auto_fulfill": True,
            }
        )
        made = await self.client.payouts.create(request)
        return Made("payouts", made.payout_id, f"Payout {made.payout_id} is {made.status}.")

    async def renewal(self) -> Made:
        return await self._subscription(SUCCEEDS, "succeeded")

    async def renewal_fails(self) -> Made:
        return await self._subscription(RENEWAL_FAILS, "was declined")

    async def link_paid(self) -> Made:
        link = await self.client.payment_links.create(
            PaymentLinkCreateRequest.model_validate(
                {"amount": 1500, "currency": "USD", "description": "Trigger: paid link"}
            )
        )
        if not link.payment_id:
            raise ValueError("this link has no payment to pay (the local sandbox's links do)")
        if not self.publishable_key:
            raise ValueError(
                "its checkout pays with the publishable key, and this profile has none "
                "(payscope keys set --kind publishable)"
            )
        payment = await self.client.payments.retrieve(link.payment_id)
        body = {
            "client_secret": payment.client_secret,
            **self._card(SUCCEEDS),
        }
        # What the hosted checkout page does in the customer's browser: no secret key.
        base = self.client.base_url.rstrip("/")
        # Plain HTTP (the local sandbox) builds no TLS context: ~45 ms on the app's loop.
        async with httpx.AsyncClient(timeout=10, verify=not base.startswith("http://")) as http:
            answer = await http.post(
                f"{base}/payments/{link.payment_id}/confirm",
                json=body,
                headers={"api-key": self.publishable_key},
            )
        self._report("POST", f"/payments/{link.payment_id}/confirm (checkout)", answer.status_code)
        if answer.status_code >= 400:
            raise ValueError(f"the checkout's payment was refused ({answer.status_code})")
        return Made(
            "links",
            link.payment_link_id,
            f"Payment link {link.payment_link_id} was paid through its checkout "
            f"(payment {link.payment_id}).",
        )
