"""Every namespace of `ApiClient` driven against the real sandbox.

The client talks to the sandbox in-process through `httpx.ASGITransport` wrapped in a recorder
that keeps each raw JSON answer, so every typed result is also checked to hold everything the
sandbox sent ("without loss": no field dropped, no value changed). One test runs the same client
over real HTTP on a free loopback port.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import struct
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

import httpx
import pytest
from pydantic import BaseModel

from payscope.api import ApiClient
from payscope.api.errors import (
    AuthenticationError,
    ConflictError,
    InvalidRequestError,
    MissingProfileIdError,
    NotFoundError,
    PermissionDeniedError,
)
from payscope.api.models.analytics import AnalyticsQuery, AnalyticsResponse
from payscope.api.models.api_keys import ApiKeyCreateRequest
from payscope.api.models.customers import CustomerCreateRequest
from payscope.api.models.disputes import DisputeEvidenceSubmit, DisputeListRequest
from payscope.api.models.events import EventListRequest
from payscope.api.models.links import PaymentLinkCreateRequest, PaymentLinkListRequest
from payscope.api.models.payments import Payment, PaymentCreateRequest
from payscope.api.models.payouts import PayoutCreateRequest, PayoutListRequest, PayoutUpdateRequest
from payscope.api.models.profiles import BusinessProfileUpdate
from payscope.api.models.refunds import RefundCreateRequest
from payscope.api.models.subscriptions import (
    SubscriptionCancelRequest,
    SubscriptionCreateRequest,
    SubscriptionPauseRequest,
    SubscriptionResumeRequest,
    SubscriptionUpdateRequest,
)
from payscope.api.models.users import (
    DeleteUserRequest,
    ResendInviteRequest,
    SignInRequest,
    UpdateRoleRequest,
    UserInvite,
)
from payscope.sandbox.clock import parse_iso
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import BILLING, Receiver, api_client, card
from tests.waits import until

T = TypeVar("T")


# -- recording and the "without loss" check --------------------------------------------------


class Recorder(httpx.AsyncBaseTransport):
    """Passes requests to `inner` and keeps every answer's decoded JSON body, in order."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.answers: list[Any] = []
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        response = await self.inner.handle_async_request(request)
        content = await response.aread()
        self.answers.append(json.loads(content) if content.strip() else None)
        return httpx.Response(
            response.status_code, headers=response.headers, content=content, request=request
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


def _same_time(a: str, b: str) -> bool:
    try:
        return parse_iso(a) == parse_iso(b)
    except ValueError:
        return False


def assert_kept(dumped: Any, raw: Any, where: str = "$") -> None:
    """Every key and value of `raw` is in `dumped` (timestamps compared as instants)."""
    if isinstance(raw, dict):
        assert isinstance(dumped, dict), f"{where}: object became {type(dumped).__name__}"
        for key, value in raw.items():
            assert key in dumped, f"{where}.{key} was dropped by the model"
            assert_kept(dumped[key], value, f"{where}.{key}")
    elif isinstance(raw, list):
        assert isinstance(dumped, list) and len(dumped) == len(raw), f"{where}: list changed"
        for index, (got, value) in enumerate(zip(dumped, raw, strict=True)):
            assert_kept(got, value, f"{where}[{index}]")
    elif isinstance(raw, str) and isinstance(dumped, str) and raw != dumped:
        assert _same_time(raw, dumped), f"{where}: {raw!r} became {dumped!r}"
    else:
        assert dumped == raw and type(dumped) is type(raw), f"{where}: {raw!r} became {dumped!r}"


def dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, list):
        return [dump(item) for item in value]
    return value


@dataclass
class Env:
    """A client on the sandbox, the recorder under it, and the sandbox itself."""

    box: Sandbox
    client: ApiClient
    recorder: Recorder
    closers: list[ApiClient] = field(default_factory=list)

    async def ok(self, call: Awaitable[T]) -> T:
        """Await a client call and check its typed result kept the whole raw answer."""
        before = len(self.recorder.answers)
        result = await call
        assert len(self.recorder.answers) > before, "the call sent nothing"
        got, raw = dump(result), self.recorder.answers[-1]
        # a bare array is read into a list envelope's `data`, and a `{data: [...]}` answer
        # with nothing else is handed back as its list: compare what corresponds
        if isinstance(raw, list) and isinstance(got, dict) and "data" in got:
            got = got["data"]
        elif isinstance(got, list) and isinstance(raw, dict) and set(raw) == {"data"}:
            raw = raw["data"]
        assert_kept(got, raw)
        return result

    def other_client(self, **kwargs: Any) -> ApiClient:
        other = api_client(self.box, **kwargs)
        self.closers.append(other)
        return other


@pytest.fixture
async def env(sandbox: Sandbox) -> AsyncIterator[Env]:
    recorder = Recorder(httpx.ASGITransport(app=sandbox.app))
    creds = sandbox.credentials
    client = ApiClient(
        "http://sandbox.test",
        creds.api_key,
        profile_id=creds.profile_id,
        merchant_id=creds.merchant_id,
        transport=recorder,
        max_attempts=1,
    )
    box = Env(sandbox, client, recorder)
    yield box
    for other in box.closers:
        await other.aclose()
    await client.aclose()


# -- helpers ----------------------------------------------------------------------------------


async def pay(env: Env, number: str = "4242424242424242", **fields: Any) -> Payment:
    request = PaymentCreateRequest.model_validate(
        {
            "amount": 1500,
            "currency": "USD",
            "confirm": True,
            "payment_method": "card",
            "payment_method_data": {"card": card(number)},
            "billing": BILLING,
            **fields,
        }
    )
    return await env.ok(env.client.payments.create(request))


async def now(env: Env) -> datetime:
    return moment_of(str((await env.ok(env.client.sandbox.clock()))["now"]))


def moment_of(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def stamp(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def rfc6238(secret: str, at: float) -> str:
    """The 6-digit TOTP code for `secret` at Unix time `at` (30-second steps, SHA-1)."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    digest = hmac.new(key, struct.pack(">Q", int(at // 30)), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    code = (struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF) % 1_000_000
    return f"{code:06d}"


def payout(**fields: Any) -> PayoutCreateRequest:
    return PayoutCreateRequest.model_validate({"amount": 1000, "currency": "USD", **fields})


PAYOUT_CARD = {
    "card": {
        "card_number": "4111111111111111",
        "expiry_month": "10",
        "expiry_year": "2035",
        "card_holder_name": "Ada Lovelace",
    }
}
SECRET_VALUES = ("4111111111111111", "000123456789", "GB33BUKB20201555555555", "tok_psp_123456")


# -- payouts ----------------------------------------------------------------------------------


async def test_payouts_every_method_variant_masks_and_flows(env: Env) -> None:
    payouts = env.client.payouts
    variants: dict[str, dict[str, Any]] = {
        "card": {"payout_type": "card", "payout_method_data": PAYOUT_CARD},
        "ach": {
            "payout_type": "bank",
            "payout_method_data": {
                "bank_transfer": {
                    "bank_account_number": "000123456789",
                    "bank_routing_number": "110000000",
                }
            },
        },
        "sepa_source": {
            "payout_type": "bank",
            "currency": "EUR",
            "payout_method_data": {
                "bank_transfer": {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX"}
            },
            "source_bank_data": {
                "payout_method_type": "open_banking",
                "account_holder_name": "Payscope Ltd",
                "iban": "GB33BUKB20201555555555",
            },
        },
        "paypal": {
            "payout_type": "wallet",
            "payout_method_data": {
                "wallet": {
                    "paypal": {
                        "email": "payee@example.com",
                        "telephone_number": "5551234567",
                        "paypal_id": "PAYEE123",
                    }
                }
            },
        },
        "interac": {
            "payout_type": "bank_redirect",
            "currency": "CAD",
            "payout_method_data": {"bank_redirect": {"interac": {"email": "payee@example.ca"}}},
        },
        "passthrough": {
            "payout_method_data": {
                "passthrough": {
                    "psp_token": "tok_psp_123456",
                    "psp_customer_id": "cus_psp_1",
                    "token_type": "card",
                }
            }
        },
    }
    made = {}
    for name, fields in variants.items():
        created = await env.ok(payouts.create(payout(entity_type="individual", **fields)))
        made[name] = created
        assert created.payout_id.startswith("payout_") and created.customer_id
        wire = json.dumps(env.recorder.answers[-1])
        for secret in SECRET_VALUES:
            assert secret not in wire, f"{name}: {secret} came back unmasked"
        # fields without a value are present as null, not missing
        assert "error_code" in env.recorder.answers[-1]
        assert env.recorder.answers[-1]["error_code"] is None
    card_data = made["card"].payout_method_data or {}
    assert (card_data["card"]["last4"], card_data["card"]["card_exp_month"]) == ("1111", "10")
    assert "card_number" not in card_data["card"]  # the real service's card shape
    ach = (made["ach"].payout_method_data or {})["bank_transfer"]
    assert ach["bank_account_number"].endswith("6789") and ach["bank_routing_number"]
    assert made["card"].status == "requires_confirmation"

    # no method yet -> requires_payout_method_data; update supplies it; the flow runs on
    bare = await env.ok(
        payouts.create(
            payout(
                amount=2500,
                name="Grace Hopper",
                email="grace@example.com",
                metadata={"order": "o-1"},
            )
        )
    )
    assert bare.status == "requires_payout_method_data"
    assert bare.customer is not None and bare.customer.name == "Grace Hopper"
    updated = await env.ok(
        payouts.update(
            bare.payout_id,
            PayoutUpdateRequest.model_validate(
                {"payout_type": "card", "payout_method_data": PAYOUT_CARD, "priority": "instant"}
            ),
        )
    )
    assert updated.status == "requires_confirmation" and updated.priority == "instant"
    confirmed = await env.ok(payouts.confirm(bare.payout_id))
    assert confirmed.status == "requires_fulfillment"
    fulfilled = await env.ok(payouts.fulfill(bare.payout_id))
    assert fulfilled.status in {"success", "initiated", "pending"}
    assert (await env.ok(payouts.retrieve(bare.payout_id))).status == fulfilled.status

    auto = await env.ok(
        payouts.create(
            payout(
                confirm=True, auto_fulfill=True, payout_type="card", payout_method_data=PAYOUT_CARD
            )
        )
    )
    assert auto.auto_fulfill is True and auto.status in {"success", "initiated", "pending"}

    cancelled = await env.ok(payouts.cancel(made["paypal"].payout_id))
    assert cancelled.status == "cancelled"
    with pytest.raises(InvalidRequestError) as refused:
        await payouts.confirm(made["paypal"].payout_id)
    assert refused.value.status == 400 and "cancelled" in refused.value.message

    everything = await env.ok(payouts.list(PayoutListRequest(limit=100)))
    assert {p.payout_id for p in everything.data} >= {p.payout_id for p in made.values()}
    only_cancelled = await env.ok(payouts.list(PayoutListRequest(status=["cancelled"])))
    assert [p.payout_id for p in only_cancelled.data] == [made["paypal"].payout_id]
    in_cad = await env.ok(payouts.list(PayoutListRequest(currency=["CAD"])))
    assert [p.payout_id for p in in_cad.data] == [made["interac"].payout_id]
    wallets = await env.ok(payouts.list(PayoutListRequest(payout_method=["wallet"])))
    assert [p.payout_id for p in wallets.data] == [made["paypal"].payout_id]
    page = await env.ok(payouts.list(PayoutListRequest(limit=2)))
    assert len(page.data) == 2

    with pytest.raises(NotFoundError):
        await payouts.retrieve("payout_unknown0000000000000")


async def test_payout_validation_reaches_the_user(env: Env) -> None:
    """The sandbox's own validation (not the client's) answers a raw body the client passes on."""
    with pytest.raises(InvalidRequestError) as missing:
        await env.client.call_json(
            "POST",
            "/payouts/create",
            body={"amount": 100, "currency": "USD", "payout_method_data": {}},
        )
    assert missing.value.status == 400 and "exactly one" in missing.value.message


# -- payment links ----------------------------------------------------------------------------


async def test_payment_links_create_retrieve_list_and_expire(env: Env) -> None:
    links = env.client.payment_links
    start = await now(env)
    short = await env.ok(
        links.create(
            PaymentLinkCreateRequest.model_validate(
                {
                    "amount": 4200,
                    "currency": "EUR",
                    "description": "Workshop seat",
                    "link_type": "one_time",
                    "expiry": stamp(start + timedelta(hours=1)),
                    "payment_link_config": {"seller_name": "Payscope Demo Shop"},
                }
            )
        )
    )
    long = await env.ok(
        links.create(
            PaymentLinkCreateRequest.model_validate(
                {
                    "amount": 900,
                    "currency": "USD",
                    "description": "Poster",
                    "expiry": stamp(start + timedelta(days=1)),
                }
            )
        )
    )
    assert short.status == long.status == "active"
    assert short.link_to_pay and short.payment_link_id.startswith("plink_")
    got = await env.ok(links.retrieve(short.payment_link_id))
    assert got.amount == 4200 and got.currency == "EUR"
    listed = await env.ok(links.list(PaymentLinkListRequest(limit=10)))
    assert [link.payment_link_id for link in listed.data][:2] == [
        long.payment_link_id,
        short.payment_link_id,
    ]

    await env.ok(env.client.sandbox.advance_clock(2 * 3600))
    assert (await env.ok(links.retrieve(short.payment_link_id))).status == "expired"
    assert (await env.ok(links.retrieve(long.payment_link_id))).status == "active"
    after = await env.ok(links.list(PaymentLinkListRequest(created_gte=stamp(start))))
    assert {link.payment_link_id: link.status for link in after.data} == {
        short.payment_link_id: "expired",
        long.payment_link_id: "active",
    }
    with pytest.raises(NotFoundError):
        await links.retrieve("plink_unknown000000000000")


# -- analytics --------------------------------------------------------------------------------


def query(start: datetime, end: datetime, metrics: list[str], **fields: Any) -> AnalyticsQuery:
    return AnalyticsQuery.model_validate(
        {
            "timeRange": {"startTime": stamp(start), "endTime": stamp(end)},
            "metrics": metrics,
            "source": "BATCH",
            **fields,
        }
    )


async def test_analytics_payments_refunds_disputes(env: Env) -> None:
    start = await now(env)
    paid = [
        await pay(env, amount=1000, currency="USD"),
        await pay(env, amount=2500, currency="USD"),
        # its refund takes the asynchronous path (the refund-pending card)
        await pay(env, "4000000000007726", amount=700, currency="EUR"),
        await pay(env, "4000000000000002", amount=3000, currency="USD"),
    ]
    assert [p.status for p in paid] == ["succeeded", "succeeded", "succeeded", "failed"]
    settled = await env.ok(
        env.client.refunds.create(RefundCreateRequest(payment_id=paid[1].payment_id, amount=500))
    )
    assert settled.status == "succeeded"  # at once
    refund = await env.ok(
        env.client.refunds.create(RefundCreateRequest(payment_id=paid[2].payment_id, amount=200))
    )
    assert refund.status == "pending"
    await env.ok(env.client.sandbox.advance_clock(60))  # refunds settle on the clock
    assert (await env.ok(env.client.refunds.retrieve(refund.refund_id))).status == "succeeded"
    dispute = await env.ok(env.client.sandbox.open_dispute(paid[0].payment_id))
    await env.ok(env.client.sandbox.resolve_dispute(dispute.dispute_id, "lost"))
    end = await now(env) + timedelta(minutes=1)

    by_group = await env.ok(
        env.client.analytics.payments(
            query(
                start,
                end,
                ["payment_count", "payment_processed_amount", "payment_success_rate"],
                groupByNames=["currency", "status"],
            )
        )
    )
    rows = {(r["currency"], r["status"]): r for r in by_group.query_data}
    expected: dict[tuple[str, str], list[Payment]] = {}
    for p in paid:
        expected.setdefault((p.currency, p.status), []).append(p)
    assert set(rows) == set(expected)
    for key, group in expected.items():
        assert rows[key]["payment_count"] == len(group)
    succeeded = sum(p.amount for p in paid if p.status == "succeeded")
    assert by_group.meta_data[0]["total_payment_processed_amount"] == succeeded

    hourly = await env.ok(
        env.client.analytics.payments(
            query(
                start,
                end,
                ["payment_count"],
                timeSeries={"granularity": "G_ONE_HOUR"},
                filters={"currency": ["USD"]},
                delta=True,
            )
        )
    )
    assert sum(r["payment_count"] for r in hourly.query_data) == 3
    assert all("time_bucket" in r for r in hourly.query_data)
    # nothing happened in the previous window of equal length: each delta is the figure itself
    assert all(r["payment_count_delta"] == r["payment_count"] for r in hourly.query_data)
    assert "previous_time_range" in hourly.meta_data[0]

    refunds = await env.ok(
        env.client.analytics.refunds(
            query(start, end, ["refund_count", "refund_processed_amount", "refund_success_rate"])
        )
    )
    assert refunds.query_data[0]["refund_count"] == 2
    assert refunds.query_data[0]["refund_processed_amount"] == 700

    disputes = await env.ok(
        env.client.analytics.disputes(
            query(
                start,
                end,
                ["total_amount_disputed", "total_dispute_lost_amount"],
                groupByNames=["dispute_status"],
            )
        )
    )
    assert [r["dispute_status"] for r in disputes.query_data] == ["dispute_lost"]
    assert disputes.meta_data[0]["total_dispute_lost_amount_overall"] == 1000

    with pytest.raises(InvalidRequestError) as unknown:
        await env.client.analytics.payments(query(start, end, ["payment_vibes"]))
    assert unknown.value.status == 400 and "payment_vibes" in unknown.value.message
    with pytest.raises(InvalidRequestError):
        await env.client.analytics.refunds(
            query(start, end, ["refund_count"], groupByNames=["card_network"])
        )
    with pytest.raises(PermissionDeniedError) as scope:
        await env.client.call(
            "POST",
            "/analytics/v1/org/metrics/payments",
            AnalyticsResponse,
            body=[query(start, end, ["payment_count"]).to_body()],
        )
    assert scope.value.status == 403


# -- team users -------------------------------------------------------------------------------


async def test_team_users_invite_roles_accept_sign_in(env: Env) -> None:
    users = env.client.users
    roles = await env.ok(users.roles())
    role_ids = {role.role_id for role in roles}
    assert {"merchant_admin", "merchant_view_only", "merchant_developer"} <= role_ids

    results = await env.ok(
        users.invite(
            [
                UserInvite(email="ada@example.com", name="Ada", role_id="merchant_developer"),
                UserInvite(email="bob@example.com", name="Bob", role_id="merchant_view_only"),
                UserInvite(email="ada@example.com", name="Ada again", role_id="merchant_admin"),
            ]
        )
    )
    assert [(r.email, r.is_email_sent, bool(r.error)) for r in results] == [
        ("ada@example.com", True, False),
        ("bob@example.com", True, False),
        ("ada@example.com", False, True),
    ]
    listed = {u.email: u for u in (await env.ok(users.list())).data}
    assert listed["ada@example.com"].status == "invitation_sent"
    assert [r.role_id for r in listed["ada@example.com"].roles] == ["merchant_developer"]

    moved = await env.ok(
        users.update_role(UpdateRoleRequest(email="bob@example.com", role_id="merchant_operator"))
    )
    assert moved is not None and [r.role_id for r in moved.roles] == ["merchant_operator"]
    assert moved.status == "invitation_sent"
    resent = await env.ok(users.resend_invite(ResendInviteRequest(email="bob@example.com")))
    assert resent is not None and resent.is_email_sent
    listed = {u.email: u for u in (await env.ok(users.list())).data}
    assert [r.role_id for r in listed["bob@example.com"].roles] == ["merchant_operator"]

    accepted = await env.ok(
        env.client.sandbox.accept_invite("ada@example.com", "correct horse", totp=True)
    )
    assert accepted.status == "active"
    assert accepted.otpauth_url and accepted.totp_secret
    secret = accepted.totp_secret
    with pytest.raises(InvalidRequestError):
        await users.resend_invite(ResendInviteRequest(email="ada@example.com"))

    step = await env.ok(
        users.signin(SignInRequest(email="ada@example.com", password="correct horse"))
    )
    assert step.totp_required is True and step.token is None
    code = rfc6238(secret, env.box.state.clock.now())
    signed = await env.ok(
        users.signin(SignInRequest(email="ada@example.com", password="correct horse", totp=code))
    )
    assert signed.token and signed.totp_required is False
    with pytest.raises(AuthenticationError):
        await users.signin(SignInRequest(email="ada@example.com", password="wrong horse"))

    await env.ok(env.client.sandbox.accept_invite("bob@example.com", "battery staple"))
    plain = await env.ok(
        users.signin(SignInRequest(email="bob@example.com", password="battery staple"))
    )
    assert plain.token and plain.totp_required is False

    gone = await env.ok(users.delete(DeleteUserRequest(email="bob@example.com")))
    assert gone is not None and gone.email == "bob@example.com" and gone.deleted
    assert "bob@example.com" not in {u.email for u in (await env.ok(users.list())).data}
    with pytest.raises(NotFoundError):
        await users.delete(DeleteUserRequest(email="bob@example.com"))


# -- disputes ---------------------------------------------------------------------------------


async def test_disputes_list_evidence_accept_resolve(env: Env) -> None:
    disputes = env.client.disputes
    first, second = await pay(env, amount=4000), await pay(env, amount=1200)
    opened = await env.ok(env.client.sandbox.open_dispute(first.payment_id, reason="fraudulent"))
    other = await env.ok(
        env.client.sandbox.open_dispute(second.payment_id, stage="pre_dispute", amount=600)
    )
    assert opened.amount == 4000 and other.amount == 600

    listed = await env.ok(disputes.list())
    assert [d.dispute_id for d in listed.data] == [other.dispute_id, opened.dispute_id]
    assert listed.total_count == 2
    by_payment = await env.ok(disputes.list(DisputeListRequest(payment_id=first.payment_id)))
    assert [d.dispute_id for d in by_payment.data] == [opened.dispute_id]
    got = await env.ok(disputes.retrieve(opened.dispute_id))
    assert got.payment_id == first.payment_id and got.challenge_required_by

    challenged = await env.ok(
        disputes.submit_evidence(
            DisputeEvidenceSubmit(
                dispute_id=opened.dispute_id,
                customer_name="Ada Lovelace",
                customer_email_address="ada@example.com",
                shipping_carrier="DHL",
                shipping_tracking_number="JD0123",
            )
        )
    )
    assert "challenged" in str(challenged.status)
    evidence = await env.ok(disputes.evidence(opened.dispute_id))
    assert evidence.evidence == {
        "customer_information": {
            "customer_name": "Ada Lovelace",
            "customer_email_address": "ada@example.com",
        },
        "shipping_information": {"shipping_carrier": "DHL", "shipping_tracking_number": "JD0123"},
    }
    assert evidence.evidence_submitted_at
    challenged_only = await env.ok(disputes.list(DisputeListRequest(status="dispute_challenged")))
    assert [d.dispute_id for d in challenged_only.data] == [opened.dispute_id]

    won = await env.ok(env.client.sandbox.resolve_dispute(opened.dispute_id, "won"))
    assert "won" in str(won.status)
    accepted = await env.ok(disputes.accept(other.dispute_id))
    assert "accepted" in str(accepted.status)
    with pytest.raises((InvalidRequestError, ConflictError)):
        await disputes.accept(other.dispute_id)
    with pytest.raises(NotFoundError):
        await disputes.retrieve("dp_unknown00000000000000")
    with pytest.raises(NotFoundError):
        await disputes.evidence("dp_unknown00000000000000")


# -- subscriptions ----------------------------------------------------------------------------


async def test_subscriptions_whole_life(env: Env) -> None:
    subs = env.client.subscriptions
    plans = await env.ok(subs.plans())
    prices = {
        price.price_id: (plan.plan_id, price) for plan in plans.data for price in plan.price_id
    }
    monthly = next(pid for pid, (_, p) in prices.items() if p.interval == "Month")
    yearly = next(pid for pid, (_, p) in prices.items() if p.interval == "Year")
    customer = await env.ok(
        env.client.customers.create(CustomerCreateRequest(name="Ada", email="ada@example.com"))
    )
    request = SubscriptionCreateRequest.model_validate(
        {
            "customer_id": customer.customer_id,
            "item_price_id": monthly,
            "plan_id": prices[monthly][0],
            "merchant_reference_id": "order-77",
            "payment_details": {
                "payment_method": "card",
                "payment_method_data": {
                    "card": {
                        "card_number": "4242424242424242",
                        "card_exp_month": "12",
                        "card_exp_year": "2040",
                        "card_holder_name": "Ada Lovelace",
                        "card_cvc": "123",
                    }
                },
                "customer_acceptance": {
                    "acceptance_type": "online",
                    "online": {"ip_address": "127.0.0.1", "user_agent": "pytest"},
                },
            },
        }
    )
    sub = await env.ok(subs.create(request))
    assert sub.status == "active" and sub.merchant_reference_id == "order-77"
    assert sub.invoice is not None and sub.invoice.status == "invoice_paid"
    assert sub.payment is not None and sub.payment.status == "succeeded"
    assert all(
        r.headers["x-profile-id"] == env.box.credentials.profile_id
        for r in env.recorder.requests[-1:]
    )
    assert (await env.ok(subs.retrieve(sub.id))).status == "active"

    moved = await env.ok(
        subs.update(
            sub.id, SubscriptionUpdateRequest(plan_id=prices[yearly][0], item_price_id=yearly)
        )
    )
    assert moved.item_price_id == yearly and moved.status in {"active", "pending"}
    paused = await env.ok(subs.pause(sub.id, SubscriptionPauseRequest(pause_option="immediately")))
    assert paused.status == "paused"
    resumed = await env.ok(
        subs.resume(sub.id, SubscriptionResumeRequest(resume_option="immediately"))
    )
    assert resumed.status == "active" and resumed.next_billing_at
    cancelled = await env.ok(
        subs.cancel(sub.id, SubscriptionCancelRequest(cancel_option="immediately"))
    )
    assert cancelled.status == "cancelled"
    with pytest.raises(NotFoundError):
        await subs.retrieve("sub_unknown0000000000000")

    nobody = env.other_client()
    nobody.profile_id = None
    sent = len(env.recorder.requests)
    with pytest.raises(MissingProfileIdError) as missing:
        await nobody.subscriptions.plans()
    assert "profile" in str(missing.value).lower()
    assert len(nobody.journal) == 0 and len(env.recorder.requests) == sent


# -- events, profiles, api keys ---------------------------------------------------------------


async def test_events_list_attempts_retry(env: Env, receiver: Receiver) -> None:
    await env.ok(
        env.client.profiles.update(
            BusinessProfileUpdate.model_validate({"webhook_details": {"webhook_url": receiver.url}})
        )
    )
    profile = await env.ok(env.client.profiles.retrieve())
    assert profile.webhook_details is not None
    assert str(profile.webhook_details.webhook_url) == receiver.url
    paid = await pay(env)
    await until(lambda: receiver.received, "the delivery")  # sent as soon as it commits
    events = await env.ok(env.client.events.list(EventListRequest(object_id=paid.payment_id)))
    assert [e.event_type for e in events.events] == ["payment_succeeded"]
    event_id = events.events[0].event_id
    # The attempt is written once the receiver's answer is read, a moment after it got the
    # event (a loaded machine saw none yet at once).
    for _ in range(500):
        attempts = await env.ok(env.client.events.attempts(event_id))
        if attempts:
            break
        await asyncio.sleep(0.01)
    assert attempts and attempts[-1].response.status_code == 200
    retried = await env.ok(env.client.events.retry(event_id))
    assert retried.delivered and retried.response.status_code == 200
    assert len(await env.ok(env.client.events.attempts(event_id))) == len(attempts) + 1
    bodies = [json.loads(body) for body, _ in receiver.received]
    assert [b["event_id"] for b in bodies].count(event_id) == len(attempts) + 1


async def test_api_keys_create_list_retrieve_revoke(env: Env) -> None:
    keys = env.client.api_keys
    made = await env.ok(keys.create(ApiKeyCreateRequest(name="ci", description="for CI")))
    assert made.api_key.startswith("snd_") and made.key_id
    assert made.key_id in {k.key_id for k in await env.ok(keys.list())}
    assert (await env.ok(keys.retrieve(made.key_id))).name == "ci"
    fresh = env.other_client(api_key=made.api_key)
    assert await fresh.health()
    revoked = await env.ok(keys.revoke(made.key_id))
    assert revoked.revoked is True
    with pytest.raises(AuthenticationError) as refused:
        await fresh.health()
    assert refused.value.code == "AU_02" and made.api_key not in str(refused.value)


async def test_sandbox_controls(env: Env) -> None:
    cards = await env.ok(env.client.sandbox.test_cards())
    challenge = next(c for c in cards if c["card_number"] == "4000003800000446")
    assert challenge
    before = await now(env)
    moved = await env.ok(env.client.sandbox.advance_clock(90))
    assert moment_of(str(moved["now"])) >= before + timedelta(seconds=90)
    pending = await pay(env, "4000003800000446", authentication_type="three_ds")
    assert pending.status == "requires_customer_action" or pending.status == "requires_action"
    done = await env.ok(env.client.sandbox.complete_3ds(pending.payment_id))
    assert done.status == "succeeded"
    failed = await pay(env, "4000003800000446", authentication_type="three_ds")
    lost = await env.ok(env.client.sandbox.complete_3ds(failed.payment_id, "fail"))
    assert lost.status == "failed" and str(lost.unified_code).startswith("UE_5")
    with pytest.raises(ValueError):
        await env.client.sandbox.advance_clock(0)


# -- over real HTTP ---------------------------------------------------------------------------


async def test_every_namespace_over_real_http(sandbox: Sandbox) -> None:
    url = await sandbox.start()
    async with api_client(sandbox, url) as client:
        assert await client.health()
        created = await client.payouts.create(
            payout(payout_type="card", payout_method_data=PAYOUT_CARD)
        )
        assert (await client.payouts.retrieve(created.payout_id)).status == "requires_confirmation"
        link = await client.payment_links.create(
            PaymentLinkCreateRequest(amount=100, currency="USD")
        )
        assert link.link_to_pay and link.link_to_pay.startswith(url)
        page = await client.payment_links.list()
        assert [x.payment_link_id for x in page.data] == [link.payment_link_id]
        moment = moment_of(str((await client.sandbox.clock())["now"]))
        metrics = await client.analytics.payments(
            query(moment - timedelta(days=1), moment, ["payment_count"])
        )
        # the link's payment, waiting for the customer, is the only payment so far
        assert metrics.query_data[0]["payment_count"] == 1
        assert "merchant_admin" in {role.role_id for role in await client.users.roles()}
        assert (await client.users.list()).data == []
        assert (await client.disputes.list()).data == []
        assert (await client.subscriptions.plans()).data
        assert (await client.events.list()).total_count == 0
        assert (await client.profiles.retrieve()).profile_id == sandbox.credentials.profile_id
        made = await client.api_keys.create(ApiKeyCreateRequest(name="over-http"))
        assert made.key_id in {key.key_id for key in await client.api_keys.list()}
        assert await client.sandbox.test_cards()
