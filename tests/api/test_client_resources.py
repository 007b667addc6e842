"""Every namespace call goes to the route of the spec (or the reference where the spec is
silent) with the right method, body and headers, and comes back as its model."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from payscope.api import ApiClient
from payscope.api import errors as e
from payscope.api.models.analytics import AnalyticsQuery
from payscope.api.models.api_keys import ApiKeyCreateRequest
from payscope.api.models.customers import CustomerCreateRequest, CustomerUpdateRequest
from payscope.api.models.disputes import DisputeEvidenceSubmit, DisputeListRequest
from payscope.api.models.events import EventListRequest
from payscope.api.models.links import PaymentLinkCreateRequest
from payscope.api.models.payments import PaymentCancelRequest, PaymentListRequest
from payscope.api.models.payouts import PayoutCreateRequest, PayoutListRequest, PayoutUpdateRequest
from payscope.api.models.profiles import BusinessProfileUpdate, WebhookDetails
from payscope.api.models.refunds import RefundUpdateRequest
from payscope.api.models.subscriptions import SubscriptionUpdateRequest
from payscope.api.models.users import (
    DeleteUserRequest,
    ResendInviteRequest,
    SignInRequest,
    UpdateRoleRequest,
    UserInvite,
)
from tests.api.conftest import ClientFactory, Reply, ScriptedApp

Served = tuple[ScriptedApp, str]
Call = Callable[[ApiClient], Awaitable[Any]]


# Routes, bodies and headers are what these tests check, and test_client.py already covers the
# real socket: here the scripted app is called in-process through httpx's ASGI transport, which
# keeps the sixty-odd cases from each starting a server.
@pytest.fixture
def app() -> Served:
    return ScriptedApp(), "http://service.test"


@pytest.fixture
def make_client(app: Served, make_client: ClientFactory) -> ClientFactory:
    scripted, _ = app

    def factory(base_url: str, **kwargs: Any) -> ApiClient:
        return make_client(base_url, transport=httpx.ASGITransport(app=scripted), **kwargs)

    return factory


PAY = {"payment_id": "pay_1", "status": "succeeded", "amount": 100, "currency": "USD"}
CUS = {"customer_id": "cus_1"}
REF = {"refund_id": "ref_1", "payment_id": "pay_1", "amount": 1, "currency": "USD", "status": "x"}
DP = {"dispute_id": "dp_1"}
SUB = {"id": "sub_1", "status": "active"}
PO = {"payout_id": "po_1", "status": "success", "amount": 5, "currency": "EUR"}
LINK = {"payment_link_id": "plink_1"}
LIST: dict[str, Any] = {"count": 0, "total_count": 0, "data": []}
QUERY = AnalyticsQuery.model_validate(
    {
        "timeRange": {"startTime": "2030-01-01T00:00:00Z", "endTime": "2030-01-31T00:00:00Z"},
        "metrics": ["payment_count"],
        "source": "BATCH",
    }
)

# (id, call, method, path, query, body sent, answer)
CASES: list[tuple[str, Call, str, str, str, Any, Any]] = [
    ("pay-list", lambda c: c.payments.list(PaymentListRequest(limit=5)), "POST",
     "/payments/list", "", {"limit": 5, "offset": 0}, LIST),
    ("pay-cancel", lambda c: c.payments.cancel("pay_1", PaymentCancelRequest(
        cancellation_reason="dup")), "POST", "/payments/pay_1/cancel", "",
     {"cancellation_reason": "dup"}, PAY),
    ("pay-approve", lambda c: c.payments.approve("pay_1"), "POST", "/payments/pay_1/approve",
     "", None, PAY),
    ("pay-reject", lambda c: c.payments.reject("pay_1"), "POST", "/payments/pay_1/reject", "",
     None, PAY),
    ("pay-confirm", lambda c: c.payments.confirm("pay_1"), "POST", "/payments/pay_1/confirm", "",
     {}, PAY),
    ("cus-create", lambda c: c.customers.create(CustomerCreateRequest(name="Ada")), "POST",
     "/customers", "", {"name": "Ada"}, CUS),
    ("cus-list", lambda c: c.customers.list(), "GET", "/customers/list", "limit=10&offset=0",
     None, [CUS]),
    ("cus-update", lambda c: c.customers.update("cus_1", CustomerUpdateRequest(name="B")),
     "POST", "/customers/cus_1", "", {"name": "B"}, CUS),
    ("cus-delete", lambda c: c.customers.delete("cus_1"), "DELETE", "/customers/cus_1", "", None,
     {"customer_id": "cus_1", "customer_deleted": True}),
    ("ref-list", lambda c: c.refunds.list(), "POST", "/refunds/list", "",
     {"limit": 10, "offset": 0}, LIST),
    ("ref-get", lambda c: c.refunds.retrieve("ref_1"), "GET", "/refunds/ref_1", "", None, REF),
    ("ref-update", lambda c: c.refunds.update("ref_1", RefundUpdateRequest(reason="r")), "POST",
     "/refunds/ref_1", "", {"reason": "r"}, REF),
    ("dp-list", lambda c: c.disputes.list(DisputeListRequest(limit=3)), "GET", "/disputes/list",
     "limit=3&offset=0", None, LIST),
    ("dp-get", lambda c: c.disputes.retrieve("dp_1"), "GET", "/disputes/dp_1", "", None, DP),
    ("dp-accept", lambda c: c.disputes.accept("dp_1"), "POST", "/disputes/accept/dp_1", "", None,
     DP),
    ("dp-evidence-submit", lambda c: c.disputes.submit_evidence(DisputeEvidenceSubmit(
        dispute_id="dp_1", receipt="file_1")), "POST", "/disputes/evidence", "",
     {"dispute_id": "dp_1", "receipt": "file_1"}, DP),
    ("dp-evidence", lambda c: c.disputes.evidence("dp_1"), "GET", "/disputes/evidence/dp_1", "",
     None, {"dispute_id": "dp_1", "evidence": {}}),
    ("sub-plans", lambda c: c.subscriptions.plans(), "GET", "/subscriptions/plans", "", None,
     [{"plan_id": "plan_1"}]),
    ("sub-get", lambda c: c.subscriptions.retrieve("sub_1"), "GET", "/subscriptions/sub_1", "",
     None, SUB),
    ("sub-update", lambda c: c.subscriptions.update("sub_1", SubscriptionUpdateRequest(
        plan_id="p", item_price_id="i")), "PUT", "/subscriptions/sub_1/update", "",
     {"plan_id": "p", "item_price_id": "i"}, SUB),
    ("sub-pause", lambda c: c.subscriptions.pause("sub_1"), "POST", "/subscriptions/sub_1/pause",
     "", {}, SUB),
    ("sub-resume", lambda c: c.subscriptions.resume("sub_1"), "POST",
     "/subscriptions/sub_1/resume", "", {}, SUB),
    ("sub-cancel", lambda c: c.subscriptions.cancel("sub_1"), "POST",
     "/subscriptions/sub_1/cancel", "", {}, SUB),
    ("po-create", lambda c: c.payouts.create(PayoutCreateRequest(amount=5, currency="EUR")),
     "POST", "/payouts/create", "", {"amount": 5, "currency": "EUR"}, PO),
    ("po-get", lambda c: c.payouts.retrieve("po_1"), "GET", "/payouts/po_1", "", None, PO),
    ("po-confirm", lambda c: c.payouts.confirm("po_1"), "POST", "/payouts/po_1/confirm", "", {},
     PO),
    ("po-fulfill", lambda c: c.payouts.fulfill("po_1"), "POST", "/payouts/po_1/fulfill", "", {},
     PO),
    ("po-cancel", lambda c: c.payouts.cancel("po_1"), "POST", "/payouts/po_1/cancel", "", {}, PO),
    ("link-create", lambda c: c.payment_links.create(PaymentLinkCreateRequest(
        amount=100, currency="USD")), "POST", "/payment_link", "",
     {"amount": 100, "currency": "USD"}, LINK),
    ("link-get", lambda c: c.payment_links.retrieve("plink_1"), "GET", "/payment_link/plink_1",
     "", None, LINK),
    ("link-list", lambda c: c.payment_links.list(), "POST", "/payment_link/list", "",
     {"limit": 10, "offset": 0}, LIST),
    ("an-payments", lambda c: c.analytics.payments(QUERY), "POST",
     "/analytics/v1/merchant/metrics/payments", "", [QUERY.to_body()],
     {"queryData": [{"payment_count": 3}], "metaData": []}),
    ("an-disputes", lambda c: c.analytics.disputes([QUERY]), "POST",
     "/analytics/v1/merchant/metrics/disputes", "", [QUERY.to_body()], {}),
    ("users-list", lambda c: c.users.list(), "GET", "/user/user/list", "", None,
     [{"email": "a@example.com", "status": "active"}]),
    ("users-roles", lambda c: c.users.roles(), "GET", "/user/role/list/invite", "", None,
     [{"role_id": "merchant_admin"}]),
    ("users-invite", lambda c: c.users.invite(UserInvite(
        email="b@example.com", name="B", role_id="merchant_view_only")), "POST",
     "/user/user/invite_multiple", "",
     [{"email": "b@example.com", "name": "B", "role_id": "merchant_view_only"}],
     [{"email": "b@example.com", "is_email_sent": True}]),
    ("users-role", lambda c: c.users.update_role(UpdateRoleRequest(
        email="b@example.com", role_id="merchant_admin")), "POST", "/user/user/update_role", "",
     {"email": "b@example.com", "role_id": "merchant_admin"}, {}),
    ("users-resend", lambda c: c.users.resend_invite(ResendInviteRequest(email="b@example.com")),
     "POST", "/user/user/resend_invite", "", {"email": "b@example.com"}, {}),
    ("po-update", lambda c: c.payouts.update("po_1", PayoutUpdateRequest(amount=7)), "PUT",
     "/payouts/po_1", "", {"amount": 7}, PO),
    ("po-list", lambda c: c.payouts.list(), "POST", "/payouts/list", "",
     PayoutListRequest().to_body(), LIST),
    ("sb-clock", lambda c: c.sandbox.clock(), "GET", "/_sandbox/clock", "", None,
     {"now": "2030-01-01T00:00:00Z"}),
    ("keys-get", lambda c: c.api_keys.retrieve("k1"), "GET", "/api_keys/mer_1/k1", "", None,
     {"key_id": "k1"}),
    ("cus-get", lambda c: c.customers.retrieve("cus_1"), "GET", "/customers/cus_1", "", None, CUS),
    ("users-delete", lambda c: c.users.delete(DeleteUserRequest(email="b@example.com")),
     "DELETE", "/user/user/delete", "", {"email": "b@example.com"}, {}),
    ("users-signin", lambda c: c.users.signin(SignInRequest(
        email="a@example.com", password="pw-123456")), "POST", "/user/signin", "",
     {"email": "a@example.com", "password": "pw-123456"}, {"token": "t"}),
    ("events-list", lambda c: c.events.list(EventListRequest(limit=2)), "POST", "/events/mer_1",
     "", {"limit": 2, "offset": 0}, {"events": [], "total_count": 0}),
    ("events-attempts", lambda c: c.events.attempts("evt_1"), "GET",
     "/events/mer_1/evt_1/attempts", "", None, [{"event_id": "evt_1"}]),
    ("events-retry", lambda c: c.events.retry("evt_1"), "POST", "/events/mer_1/evt_1/retry", "",
     None, {"event_id": "evt_1"}),
    ("profile-get", lambda c: c.profiles.retrieve(), "GET",
     "/account/mer_1/business_profile/pro_1", "", None,
     {"profile_id": "pro_1", "merchant_id": "mer_1"}),
    ("profile-update", lambda c: c.profiles.update(BusinessProfileUpdate(
        webhook_details=WebhookDetails(webhook_url="http://127.0.0.1:8787/webhooks"))), "POST",
     "/account/mer_1/business_profile/pro_1", "",
     {"webhook_details": {"webhook_url": "http://127.0.0.1:8787/webhooks"}},
     {"profile_id": "pro_1", "merchant_id": "mer_1"}),
    ("keys-create", lambda c: c.api_keys.create(ApiKeyCreateRequest(name="ci")), "POST",
     "/api_keys/mer_1", "", {"name": "ci", "expiration": "never"},
     {"key_id": "k1", "api_key": "snd_x"}),
    ("keys-list", lambda c: c.api_keys.list(), "GET", "/api_keys/mer_1/list", "", None,
     [{"key_id": "k1"}]),
    ("keys-revoke", lambda c: c.api_keys.revoke("k1"), "DELETE", "/api_keys/mer_1/k1", "", None,
     {"key_id": "k1", "revoked": True}),
    ("sb-cards", lambda c: c.sandbox.test_cards(), "GET", "/_sandbox/test-cards", "", None,
     [{"card_number": "4242424242424242"}]),
    ("sb-advance", lambda c: c.sandbox.advance_clock(3600), "POST", "/_sandbox/clock/advance",
     "", {"seconds": 3600}, {"now": "2030-01-01T01:00:00Z"}),
    ("sb-3ds", lambda c: c.sandbox.complete_3ds("pay_1", "fail"), "POST",
     "/_sandbox/payments/pay_1/3ds", "", {"result": "fail"}, PAY),
    ("sb-dispute", lambda c: c.sandbox.open_dispute("pay_1", amount=50), "POST",
     "/_sandbox/disputes", "",
     {"payment_id": "pay_1", "reason": "fraudulent", "stage": "dispute", "amount": 50}, DP),
    ("sb-resolve", lambda c: c.sandbox.resolve_dispute("dp_1", "won"), "POST",
     "/_sandbox/disputes/dp_1/resolve", "", {"outcome": "won"}, DP),
    ("sb-accept", lambda c: c.sandbox.accept_invite("b@example.com", "pw", totp="123456"),
     "POST", "/_sandbox/users/accept", "",
     {"email": "b@example.com", "password": "pw", "totp": "123456"}, {"status": "active"}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "method", "path", "query", "body", "answer"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
async def test_each_call_uses_its_route(
    app: Served,
    make_client: ClientFactory,
    call: Call,
    method: str,
    path: str,
    query: str,
    body: Any,
    answer: Any,
) -> None:
    scripted, url = app
    scripted.script(method, path, Reply(200, answer))
    client = make_client(url, merchant_id="mer_1", profile_id="pro_1")
    await call(client)
    assert [(r.method, r.path) for r in scripted.requests] == [(method, path)]
    (seen,) = scripted.requests
    assert seen.query == query
    assert seen.json == body


async def test_subscription_calls_carry_the_profile_id(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("GET", "/subscriptions/sub_1", Reply(200, SUB))
    sub = await make_client(url, profile_id="pro_9").subscriptions.retrieve("sub_1")
    assert sub.status == "active"
    assert scripted.requests[0].headers["x-profile-id"] == "pro_9"


async def test_without_a_profile_id_subscriptions_fail_before_sending(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    client = make_client(url)
    with pytest.raises(e.MissingProfileIdError) as caught:
        await client.subscriptions.pause("sub_1")
    assert "Pausing a subscription needs a business profile id" in str(caught.value)
    assert "profile_id=" in str(caught.value)
    with pytest.raises(e.MissingProfileIdError):
        await client.subscriptions.plans()
    assert scripted.requests == []


async def test_without_a_merchant_id_events_and_keys_fail_before_sending(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    client = make_client(url, profile_id="pro_1")
    for call in (client.events.list(), client.api_keys.list(), client.profiles.retrieve()):
        with pytest.raises(e.MissingMerchantIdError, match="needs the merchant id"):
            await call
    assert scripted.requests == []


async def test_payment_creation_fills_in_the_clients_profile_id(
    app: Served, make_client: ClientFactory
) -> None:
    from payscope.api.models.payments import PaymentCreateRequest

    scripted, url = app
    scripted.script("POST", "/payments", Reply(200, PAY))
    client = make_client(url, profile_id="pro_7")
    await client.payments.create(PaymentCreateRequest(amount=100, currency="USD"))
    assert scripted.requests[0].json["profile_id"] == "pro_7"


async def test_sandbox_controls_refuse_nonsense_before_sending(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    client = make_client(url)
    with pytest.raises(ValueError, match="only moves forward"):
        await client.sandbox.advance_clock(-5)
    with pytest.raises(ValueError, match="won or lost"):
        await client.sandbox.resolve_dispute("dp_1", "draw")  # type: ignore[arg-type]
    assert scripted.requests == []
