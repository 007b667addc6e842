"""`client.sandbox`: the `/_sandbox/` controls of the local sandbox (never the real service).

They stand in for what the real service does on its own: the card network opening and deciding
disputes, the processor deciding a refund held for review, the customer's browser finishing
3-D Secure, an invited user accepting, and time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from payscope.api.models.disputes import Dispute
from payscope.api.models.payments import Payment
from payscope.api.models.refunds import Refund
from payscope.api.resources import CLOCK_ADVANCE
from payscope.api.resources._base import Resource, seg
from payscope.api.retry import Replay

# Imported by the calls that use them: a start's first call here (pointing the webhooks at the
# listener) loaded them all before, about 0.1 s, for controls most runs never use. Payments'
# models (with their disputes and refunds) are loaded by Payments' first page anyway.
if TYPE_CHECKING:
    from payscope.api.models.payouts import Payout
    from payscope.api.models.subscriptions import (
        InvoiceListRequest,
        InvoiceListResponse,
        SubscriptionListRequest,
        SubscriptionListResponse,
    )
    from payscope.api.models.users import AcceptedInvite

ThreeDsResult = Literal["authorize", "fail", "abandon"]
DisputeOutcome = Literal["won", "lost"]
ReviewOutcome = Literal["succeeded", "failed"]


class SandboxResource(Resource):
    """Controls of the local sandbox (secret key required)."""

    async def test_cards(self) -> list[dict[str, Any]]:
        """GET /_sandbox/test-cards: number, outcome and unified code of each test card."""
        data = await self._client.request("GET", "/_sandbox/test-cards")
        rows = data.get("data") if isinstance(data, dict) else data
        if not isinstance(rows, list):
            return []
        return [row for row in rows if isinstance(row, dict)]

    async def test_methods(self) -> list[dict[str, Any]]:
        """GET /_sandbox/test-methods: each method besides cards, its flow, an example of its
        `payment_method_data`, its test field and the outcome of each test value."""
        data = await self._client.request("GET", "/_sandbox/test-methods")
        rows = data.get("data") if isinstance(data, dict) else data
        if not isinstance(rows, list):
            return []
        return [row for row in rows if isinstance(row, dict)]

    async def clock(self) -> dict[str, Any]:
        """GET /_sandbox/clock: the sandbox's current time."""
        return await self._client.call_json("GET", "/_sandbox/clock")

    async def advance_clock(self, seconds: float) -> dict[str, Any]:
        """POST /_sandbox/clock/advance: move time on and run what fell due (expiries, webhook
        retries, renewals)."""
        if seconds <= 0:
            raise ValueError(f"the clock only moves forward: give seconds > 0, got {seconds}")
        return await self._client.call_json("POST", CLOCK_ADVANCE, body={"seconds": seconds})

    async def reset(self) -> dict[str, Any]:
        """POST /_sandbox/reset: every record goes, the seeded demo data comes back and the clock
        returns to real time (keys and webhook settings stay): `{now, offset_seconds,
        seeded_payments, clock_offset_seconds}` (the last: how far ahead it was)."""
        return await self._client.call_json("POST", "/_sandbox/reset", body={})

    async def upcoming(
        self, *, seconds: float | None = None, until: str | None = None
    ) -> dict[str, Any]:
        """GET /_sandbox/clock/upcoming: what advancing the clock by `seconds` (or to the ISO
        time `until`) would set off, without running it: `{now, until, items[{at, kind,
        object_id, text}], total}`."""
        if (seconds is None) == (until is None):
            raise ValueError("give either seconds or until")
        params = {"seconds": repr(float(seconds))} if seconds is not None else {"until": until}
        return await self._client.call_json("GET", "/_sandbox/clock/upcoming", params=params)

    async def subscriptions(
        self, request: SubscriptionListRequest | None = None
    ) -> SubscriptionListResponse:
        """GET /_sandbox/subscriptions: the profile's subscriptions, newest first (the service
        itself has no such list; its dashboard does)."""
        from payscope.api.models.subscriptions import (
            SubscriptionListRequest,
            SubscriptionListResponse,
        )

        query = (request or SubscriptionListRequest()).to_body()
        if "status" in query:
            query["status"] = ",".join(query["status"])
        return await self._client.call(
            "GET", "/_sandbox/subscriptions", SubscriptionListResponse, params=query
        )

    async def subscription_invoices(
        self, subscription_id: str, request: InvoiceListRequest | None = None
    ) -> InvoiceListResponse:
        """GET /_sandbox/subscriptions/{subscription_id}/invoices: its renewal history, newest
        first, each invoice with its payment."""
        from payscope.api.models.subscriptions import InvoiceListRequest, InvoiceListResponse

        return await self._client.call(
            "GET",
            f"/_sandbox/subscriptions/{seg(subscription_id)}/invoices",
            InvoiceListResponse,
            params=(request or InvoiceListRequest()).to_body(),
        )

    async def set_webhook(self, url: str | None, *, if_url: str | None = None) -> dict[str, Any]:
        """POST /_sandbox/webhook: deliver webhooks to `url` from now on (None holds them); with
        `if_url`, only while they still go there."""
        body: dict[str, Any] = {"url": url}
        if if_url is not None:
            body["if_url"] = if_url
        return await self._client.call_json("POST", "/_sandbox/webhook", body=body)

    async def attach_webhook(self, url: str) -> dict[str, Any]:
        """POST /_sandbox/webhook {attach}: deliver every webhook to `url` too (this payscope's
        listener), beside the profile's URL and the other attached listeners."""
        return await self._client.call_json("POST", "/_sandbox/webhook", body={"attach": url})

    async def detach_webhook(self, url: str) -> dict[str, Any]:
        """POST /_sandbox/webhook {detach}: stop delivering to `url` (a payscope that quits)."""
        return await self._client.call_json("POST", "/_sandbox/webhook", body={"detach": url})

    async def complete_3ds(self, payment_id: str, result: ThreeDsResult = "authorize") -> Payment:
        """POST /_sandbox/payments/{payment_id}/3ds: finish the customer's challenge."""
        if result not in ("authorize", "fail", "abandon"):
            raise ValueError(f"result must be authorize, fail or abandon, got {result!r}")
        return await self._client.call(
            "POST", f"/_sandbox/payments/{seg(payment_id)}/3ds", Payment, body={"result": result}
        )

    async def complete_redirect(
        self, payment_id: str, result: ThreeDsResult = "authorize"
    ) -> Payment:
        """POST /_sandbox/payments/{payment_id}/redirect: the customer's answer on a method's
        page (a bank or wallet redirect, a QR code, transfer or voucher instructions)."""
        if result not in ("authorize", "fail", "abandon"):
            raise ValueError(f"result must be authorize, fail or abandon, got {result!r}")
        return await self._client.call(
            "POST",
            f"/_sandbox/payments/{seg(payment_id)}/redirect",
            Payment,
            body={"result": result},
        )

    async def open_dispute(
        self,
        payment_id: str,
        *,
        reason: str = "fraudulent",
        stage: str = "dispute",
        amount: int | None = None,
    ) -> Dispute:
        """POST /_sandbox/disputes: the card network opens a dispute on a payment."""
        body: dict[str, Any] = {"payment_id": payment_id, "reason": reason, "stage": stage}
        if amount is not None:
            body["amount"] = amount
        return await self._client.call(
            "POST", "/_sandbox/disputes", Dispute, body=body, replay=Replay.UNSAFE
        )

    async def resolve_dispute(self, dispute_id: str, outcome: DisputeOutcome) -> Dispute:
        """POST /_sandbox/disputes/{dispute_id}/resolve: the network decides."""
        if outcome not in ("won", "lost"):
            raise ValueError(f"outcome must be won or lost, got {outcome!r}")
        return await self._client.call(
            "POST",
            f"/_sandbox/disputes/{seg(dispute_id)}/resolve",
            Dispute,
            body={"outcome": outcome},
        )

    async def review_refund(self, refund_id: str, outcome: ReviewOutcome) -> Refund:
        """POST /_sandbox/refunds/{refund_id}/review: the processor decides a refund held in
        `review` (made for a payment with the refund-review test card)."""
        if outcome not in ("succeeded", "failed"):
            raise ValueError(f"outcome must be succeeded or failed, got {outcome!r}")
        return await self._client.call(
            "POST",
            f"/_sandbox/refunds/{seg(refund_id)}/review",
            Refund,
            body={"outcome": outcome},
        )

    async def reverse_payout(self, payout_id: str) -> Payout:
        """POST /_sandbox/payouts/{payout_id}/reverse: the recipient's bank sends a paid-out
        payout back (success -> reversed)."""
        from payscope.api.models.payouts import Payout

        return await self._client.call(
            "POST", f"/_sandbox/payouts/{seg(payout_id)}/reverse", Payout, body={}
        )

    async def payout_test_accounts(self) -> list[dict[str, Any]]:
        """GET /_sandbox/payout-test-accounts: the account numbers that make a payout fail or
        be ineligible ({rule, example, outcome} each)."""
        data = await self._client.request("GET", "/_sandbox/payout-test-accounts")
        rows = data.get("data") if isinstance(data, dict) else data
        if not isinstance(rows, list):
            return []
        return [row for row in rows if isinstance(row, dict)]

    async def accept_invite(
        self, email: str, password: str, totp: bool | str | None = None
    ) -> AcceptedInvite:
        """POST /_sandbox/users/accept: an invited user accepts and sets a password.

        `totp=True` has the sandbox make a TOTP secret, a base32 string sets that secret; the
        answer then carries `totp_secret` and `otpauth_url`.
        """
        from payscope.api.models.users import AcceptedInvite

        body: dict[str, Any] = {"email": email, "password": password}
        if totp is not None and totp is not False:
            body["totp"] = totp
        return await self._client.call("POST", "/_sandbox/users/accept", AcceptedInvite, body=body)
