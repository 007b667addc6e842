"""`payscope.api.search.find` against the real local sandbox over HTTP, seeded with demo data.

Every test starts a sandbox on a free loopback port (seeded with 300 payments, 38 customers,
refunds, disputes, payouts, links and subscriptions) and searches it through the shared
`ApiClient`, exactly as the UI will.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from payscope.api import ApiClient
from payscope.api.errors import MissingProfileIdError, PermissionDeniedError
from payscope.api.models.customers import Customer, CustomerCreateRequest
from payscope.api.models.disputes import Dispute
from payscope.api.models.links import PaymentLink, PaymentLinkListRequest
from payscope.api.models.payments import Payment, PaymentCreateRequest, PaymentListRequest
from payscope.api.models.payouts import Payout, PayoutListRequest
from payscope.api.models.refunds import Refund
from payscope.api.models.subscriptions import Subscription, SubscriptionCreateRequest
from payscope.api.search import TOO_SHORT, FindResult, find, id_kind
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import BILLING, api_client, card, make_sandbox

SEEDED_PAYMENTS = 300


@pytest.fixture
async def box(tmp_path: Path) -> AsyncIterator[tuple[Sandbox, str]]:
    """A seeded sandbox serving over HTTP: (sandbox, base_url)."""
    sandbox = make_sandbox(tmp_path / "sandbox")
    sandbox.seed(SEEDED_PAYMENTS)
    url = await sandbox.start()
    yield sandbox, url
    await sandbox.stop()


@pytest.fixture
async def client(box: tuple[Sandbox, str]) -> AsyncIterator[ApiClient]:
    sandbox, url = box
    async with api_client(sandbox, url) as api:
        yield api


async def pay(client: ApiClient, number: str = "4242424242424242", **fields: object) -> Payment:
    """A one-step card payment made through the client."""
    body = {
        "amount": 2599,
        "currency": "EUR",
        "confirm": True,
        "payment_method": "card",
        "payment_method_data": {"card": card(number)},
        "billing": BILLING,
        **fields,
    }
    return await client.payments.create(PaymentCreateRequest.model_validate(body))


async def a_subscription(client: ApiClient) -> Subscription:
    customer = await client.customers.create(CustomerCreateRequest(name="Sub Scriber"))
    request = SubscriptionCreateRequest.model_validate(
        {
            "customer_id": customer.customer_id,
            "item_price_id": "price_basic_monthly",
            "payment_details": {
                "payment_method": "card",
                "payment_method_data": {
                    "card": card("4242424242424242", card_holder_name="Sub Scriber")
                },
                "customer_acceptance": {
                    "acceptance_type": "online",
                    "online": {"ip_address": "127.0.0.1", "user_agent": "pytest"},
                },
            },
        }
    )
    return await client.subscriptions.create(request)


def ids(result: FindResult, kind: str | None = None) -> list[str]:
    return [hit.object_id for hit in result.hits if kind is None or hit.kind == kind]


def requested(client: ApiClient) -> list[str]:
    """`METHOD /path` of each request the client made (query strings left out)."""
    return [f"{entry.method} {entry.path.partition('?')[0]}" for entry in client.journal]


# -- classifying ---------------------------------------------------------------------------------


def test_id_kind_reads_the_prefix_longest_first() -> None:
    assert id_kind("pay_01JABCDEF") == "payment"
    assert id_kind("payout_abc") == "payout"
    assert id_kind("plink_abc") == "payment_link"
    assert id_kind("ref_x") == "refund"
    assert id_kind("dp_") == "dispute"
    assert id_kind("cus_x") == "customer"
    assert id_kind("sub_x") == "subscription"
    assert id_kind("evt_x") == "event"
    assert id_kind("  PAY_x ") == "payment"
    assert id_kind("pay") is None
    assert id_kind("pays_x") is None
    assert id_kind("ada@example.com") is None
    assert id_kind("") is None


@pytest.mark.parametrize("text", ["", "   ", "ab", "a b", "x_1", "@ab", "\t\n"])
async def test_too_short_or_empty_is_refused_in_words(client: ApiClient, text: str) -> None:
    with pytest.raises(ValueError) as caught:
        await find(client, text)
    assert str(caught.value) == TOO_SHORT
    assert requested(client) == []


async def test_limits_below_one_are_refused(client: ApiClient) -> None:
    with pytest.raises(ValueError, match="limit_per_kind"):
        await find(client, "pay_abc", limit_per_kind=0)
    with pytest.raises(ValueError, match="scan_pages"):
        await find(client, "pay_abc", scan_pages=0)


async def test_an_event_id_is_classified_not_fetched(client: ApiClient) -> None:
    result = await find(client, " evt_0123456789abcdefghij ")
    assert result.id_kind == "event"
    assert result.looked_for == ("event id",)
    assert result.text == "evt_0123456789abcdefghij"
    assert result.hits == () and not result.errors
    assert requested(client) == []


# -- whole ids ---------------------------------------------------------------------------------


async def test_a_whole_id_of_each_kind_is_retrieved_directly(client: ApiClient) -> None:
    payment = (await client.payments.list(PaymentListRequest(limit=1))).data[0]
    refund = (await client.refunds.list()).data[0]
    dispute = (await client.disputes.list()).data[0]
    customer = (await client.customers.list()).data[0]
    payout = (await client.payouts.list(PayoutListRequest(limit=1))).data[0]
    link = (await client.payment_links.list(PaymentLinkListRequest(limit=1))).data[0]
    subscription = await a_subscription(client)
    cases: list[tuple[str, str, type]] = [
        (payment.payment_id, "payment", Payment),
        (refund.refund_id, "refund", Refund),
        (dispute.dispute_id, "dispute", Dispute),
        (customer.customer_id, "customer", Customer),
        (payout.payout_id, "payout", Payout),
        (subscription.id, "subscription", Subscription),
        (link.payment_link_id, "payment_link", PaymentLink),
    ]
    for object_id, kind, model in cases:
        client.journal.clear()
        result = await find(client, object_id)
        assert result.id_kind == kind
        assert [(h.kind, h.object_id, h.matched_on) for h in result.hits] == [
            (kind, object_id, "id")
        ]
        hit = result.hits[0]
        assert isinstance(hit.model, model)
        assert hit.summary and "\n" not in hit.summary
        assert not result.errors and result.truncated_kinds == ()
        # found at once: one GET, no list scanned
        assert len(requested(client)) == 1 and requested(client)[0].startswith("GET ")
        assert result.scans == ()


async def test_payment_summary_says_status_amount_card_and_customer(client: ApiClient) -> None:
    payment = await pay(client, "4111111111111111", name="Ada Lovelace", description="Tea")
    [hit] = (await find(client, payment.payment_id)).hits
    assert hit.summary == "succeeded · 25.99 EUR · card ending 1111 · Ada Lovelace · Tea"


async def test_an_unknown_whole_id_is_no_match_not_an_error(client: ApiClient) -> None:
    for text in ("payout_NoSuchPayout0000000", "plink_NoSuchLink00000000", "pay_NoSuchThing"):
        result = await find(client, text)
        assert result.hits == () and not result.errors, text
    # a payment id that is not one: retrieved (404), then matched as a prefix over the list
    result = await find(client, "pay_NoSuchThing")
    assert result.looked_for == ("id", "id prefix")
    assert result.scan("payment") is not None and result.truncated_kinds == ()


async def test_a_merchant_chosen_id_is_an_exact_hit_first(client: ApiClient) -> None:
    customer = await client.customers.create(
        CustomerCreateRequest(customer_id="acme-zq7x", email="zq7x@example.com")
    )
    payment = await pay(client, payment_id="acme-zq7x-order-1")
    result = await find(client, "acme-zq7x")
    assert [(h.kind, h.object_id, h.matched_on) for h in result.hits] == [
        ("customer", customer.customer_id, "id"),
        ("payment", payment.payment_id, "id prefix"),
    ]


# -- partial ids -------------------------------------------------------------------------------


async def test_an_id_prefix_finds_the_ids_that_start_with_it(client: ApiClient) -> None:
    seeded = (await client.payments.list(PaymentListRequest(limit=5, offset=150))).data[0]
    prefix = seeded.payment_id[:9]
    result = await find(client, prefix)
    assert result.id_kind == "payment"
    assert seeded.payment_id in ids(result)
    assert all(h.kind == "payment" and h.matched_on == "id prefix" for h in result.hits)
    assert all(h.object_id.lower().startswith(prefix.lower()) for h in result.hits)
    assert [scan.kind for scan in result.scans] == ["payment"]  # only the kind it names
    # payments made now share their time-ordered start
    made = [await pay(client) for _ in range(3)]
    common = made[0].payment_id[:10]
    assert all(p.payment_id.startswith(common) for p in made)
    found = ids(await find(client, common))
    assert {p.payment_id for p in made} <= set(found)


async def test_the_last_characters_of_an_id_find_it_whatever_the_case(client: ApiClient) -> None:
    refund = (await client.refunds.list()).data[-1]
    tail = refund.refund_id[-7:]
    for typed in (tail, tail.lower(), tail.upper(), f" {tail[:3]} {tail[3:]} "):
        result = await find(client, typed)
        assert result.id_kind is None
        assert result.looked_for == ("id", "id prefix", "id part")
        [hit] = [h for h in result.hits if h.object_id == refund.refund_id]
        assert hit.kind == "refund" and hit.matched_on == "id part"
        assert isinstance(hit.model, Refund)
        assert all(tail.lower() in h.object_id.lower() for h in result.hits)
    assert {scan.kind for scan in result.scans} == {"payment", "refund", "dispute", "customer"}


async def test_the_start_of_an_id_without_its_prefix(client: ApiClient) -> None:
    customer = (await client.customers.list()).data[3]
    body = customer.customer_id.removeprefix("cus_")[:6]
    result = await find(client, body)
    [hit] = [h for h in result.hits if h.object_id == customer.customer_id]
    assert hit.matched_on == "id prefix" and hit.kind == "customer"


# -- emails and cards ----------------------------------------------------------------------------


async def test_an_email_finds_customers_and_payments(client: ApiClient) -> None:
    customer = await client.customers.create(
        CustomerCreateRequest(name="Grace Hopper", email="Grace.Hopper+find@example.com")
    )
    payment = await pay(client, email="grace.hopper+find@example.com")
    await pay(client, email="someone.else@example.com")
    result = await find(client, "GRACE.hopper+find@")
    assert result.looked_for == ("email",)
    assert [(h.kind, h.object_id, h.matched_on) for h in result.hits] == [
        ("payment", payment.payment_id, "email"),
        ("customer", customer.customer_id, "email"),
    ]
    assert result.hits[1].summary == "Grace Hopper · Grace.Hopper+find@example.com"
    assert {scan.kind for scan in result.scans} == {"payment", "customer"}
    # a seeded customer's whole email
    seeded = next(c for c in (await client.customers.list()).data if c.email and c.name)
    assert seeded.email is not None
    found = await find(client, seeded.email)
    assert seeded.customer_id in ids(found, "customer")


async def test_the_last_4_digits_of_a_card(client: ApiClient) -> None:
    made = await pay(client, "4111111111111111")
    other = await pay(client, "5555555555554444")
    result = await find(client, "1111")
    assert result.looked_for[0] == "last 4"
    assert made.payment_id in ids(result, "payment")
    assert other.payment_id not in ids(result)
    by_card = [h for h in result.hits if h.matched_on == "last 4"]
    assert by_card and all(h.kind == "payment" for h in by_card)
    for hit in by_card:
        assert isinstance(hit.model, Payment)
        data = hit.model.payment_method_data
        assert data is not None and data.card is not None and data.card.last4 == "1111"
    assert result.hits[0].object_id == made.payment_id  # newest first


# -- no match, failures, caps --------------------------------------------------------------------


async def test_no_match(client: ApiClient) -> None:
    result = await find(client, "zz9zz9zz9")
    assert result.hits == () and not result.errors
    assert result.truncated_kinds == () and result.limited_kinds == ()
    payments = result.scan("payment")
    assert payments is not None and payments.scanned == payments.total == SEEDED_PAYMENTS


class Through(httpx.AsyncBaseTransport):
    """Real HTTP to the sandbox, except that `refuse` paths are answered 403 here (as for a
    key without access to them); counts the requests in flight at once."""

    def __init__(self, refuse: frozenset[str] = frozenset(), delay: float = 0.0) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.refuse = refuse
        self.delay = delay
        self.in_flight = self.most_in_flight = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path in self.refuse:
            error = {"type": "invalid_request", "code": "AU_03", "message": "not allowed"}
            return httpx.Response(403, json={"error": error}, request=request)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
            return await self.inner.handle_async_request(request)
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        await self.inner.aclose()


def through(box: tuple[Sandbox, str], transport: Through) -> ApiClient:
    sandbox, url = box
    creds = sandbox.credentials
    return ApiClient(
        url, creds.api_key, profile_id=creds.profile_id, transport=transport, max_attempts=1
    )


async def test_a_kind_that_fails_does_not_lose_the_others(box: tuple[Sandbox, str]) -> None:
    async with through(box, Through(refuse=frozenset({"/disputes/list"}))) as client:
        payment = (await client.payments.list(PaymentListRequest(limit=1, offset=42))).data[0]
        tail = payment.payment_id[-6:]
        result = await find(client, tail)
    assert payment.payment_id in ids(result, "payment")
    assert set(result.errors) == {"dispute"}
    assert isinstance(result.errors["dispute"], PermissionDeniedError)
    assert {scan.kind for scan in result.scans} == {"payment", "refund", "customer"}


async def test_a_subscription_id_without_a_profile_id_is_an_error_not_a_raise(
    box: tuple[Sandbox, str], client: ApiClient
) -> None:
    sandbox, url = box
    subscription = await a_subscription(client)
    async with ApiClient(url, sandbox.credentials.api_key, max_attempts=1) as bare:
        result = await find(bare, subscription.id)
    assert result.hits == ()
    assert isinstance(result.errors["subscription"], MissingProfileIdError)


async def test_the_page_cap_is_reported(client: ApiClient) -> None:
    oldest = (await client.payments.list(PaymentListRequest(limit=1, offset=299))).data[0]
    tail = oldest.payment_id[-8:]
    capped = await find(client, tail, scan_pages=2)
    assert oldest.payment_id not in ids(capped)
    assert capped.truncated_kinds == ("payment",)
    scan = capped.scan("payment")
    assert scan is not None
    assert (scan.scanned, scan.total, scan.capped, scan.limited) == (200, 300, True, False)
    customers = capped.scan("customer")
    assert customers is not None and not customers.capped  # 38 fit in one page
    client.journal.clear()
    whole = await find(client, tail, scan_pages=3)
    assert oldest.payment_id in ids(whole, "payment")
    assert whole.truncated_kinds == ()
    pages = [r for r in requested(client) if r == "POST /payments/list"]
    assert len(pages) == 3


async def test_paging_stops_once_the_limit_is_reached(client: ApiClient) -> None:
    result = await find(client, "pay_", limit_per_kind=5)
    assert len(result.hits) == 5
    assert all(h.kind == "payment" and h.matched_on == "id prefix" for h in result.hits)
    assert result.limited_kinds == ("payment",) and result.truncated_kinds == ()
    scan = result.scan("payment")
    assert scan is not None and scan.scanned == 100
    newest = (await client.payments.list(PaymentListRequest(limit=5))).data
    assert ids(result) == [p.payment_id for p in newest]


async def test_the_kinds_are_looked_up_concurrently(box: tuple[Sandbox, str]) -> None:
    transport = Through(delay=0.05)
    async with through(box, transport) as client:
        result = await find(client, "zz9zz9zz9")
        assert not result.errors
        paths = {request.partition(" ")[2] for request in requested(client)}
    assert {"/payments/list", "/refunds/list", "/disputes/list", "/customers/list"} <= paths
    assert transport.most_in_flight >= 4  # the four kinds' first requests at once
