"""The payments list by contract: `POST /payments/list` with a filter body and offset paging to a
service following the spec (the local sandbox), `GET /payments/list` with the real service's
query and cursor paging (`starting_after`) to the real one, whose answer has no total.

The service is a scripted one on a real loopback port, standing in for the remote host; the real
route is `tests.real_payments_list` (only GET: a POST gets the fallback, 404 `HE_02`), and each
request is read as it arrived there."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

import pytest

from payscope.api.errors import ClientError
from payscope.api.models.payments import PaymentListRequest
from payscope.api.resources import payments as payments_resource
from payscope.api.resources.payments import PageOutOfReachError, UnsupportedFilterError
from tests.api.conftest import ClientFactory, Recorded, Reply, ScriptedApp, envelope
from tests.real_payments_list import payments_list

PROBE = "/payments/pay_payscope_contract_probe"
NOT_A_ROUTE = envelope(404, "HE_02", "Unrecognized request URL")


def _payment(n: int, customer: str = "cus_a") -> dict[str, Any]:
    return {
        "payment_id": f"pay_list{n:04d}",
        "status": "succeeded",
        "amount": 1000 + n,
        "currency": "USD",
        "customer_id": customer,
        # newest first: payment 1 is the newest
        "created": f"2024-04-{30 - n // 100:02d}T{23 - n % 24:02d}:00:{59 - n % 60:02d}Z",
    }


def _real(scripted: ScriptedApp, payments: list[dict[str, Any]]) -> None:
    scripted.fallback = NOT_A_ROUTE
    scripted.route("GET", "/payments/list", lambda asked: payments_list(payments, asked))


def _query(request: Recorded) -> dict[str, str]:
    return dict(parse_qsl(request.query))


def _ids(page: Any) -> list[str]:
    return [p.payment_id for p in page.data]


async def test_the_spec_contract_posts_the_filter_body(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script(
        "POST", "/payments/list", Reply(200, {"count": 1, "total_count": 41, "data": [_payment(1)]})
    )
    client = make_client(url, contract="spec")
    page = await client.payments.list(
        PaymentListRequest(limit=20, offset=40, status=["failed"], customer_id="cus_a")
    )
    assert page.total_count == 41 and _ids(page) == ["pay_list0001"]
    (request,) = scripted.requests
    assert (request.method, request.path, request.query) == ("POST", "/payments/list", "")
    assert request.json == {"limit": 20, "offset": 40, "status": ["failed"], "customer_id": "cus_a"}


async def test_the_real_contract_gets_the_query_and_pages_by_cursor(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    payments = [_payment(n) for n in range(1, 9)] + [_payment(9, "cus_b")]
    _real(scripted, payments)
    client = make_client(url, contract="real")
    ids = [p["payment_id"] for p in payments]

    first = await client.payments.list(PaymentListRequest(limit=3))
    assert _ids(first) == ids[:3] and first.total_count is None
    second = await client.payments.list(PaymentListRequest(limit=3, offset=3))
    assert _ids(second) == ids[3:6]
    third = await client.payments.list(PaymentListRequest(limit=3, offset=6))
    assert _ids(third) == ids[6:9]
    back = await client.payments.list(PaymentListRequest(limit=3, offset=3))
    assert _ids(back) == ids[3:6]
    assert [_query(r) for r in scripted.requests] == [
        {"limit": "3"},
        {"limit": "3", "starting_after": ids[2]},
        {"limit": "3", "starting_after": ids[5]},
        {"limit": "3", "starting_after": ids[2]},  # the cursor remembered, nothing re-read
    ]
    assert {(r.method, r.path) for r in scripted.requests} == {("GET", "/payments/list")}


async def test_the_real_contract_sends_customer_and_created_range_as_query(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    payments = [_payment(n, "cus_a" if n % 2 else "cus_b") for n in range(1, 7)]
    _real(scripted, payments)
    client = make_client(url, contract="real")
    request = PaymentListRequest(
        limit=2,
        customer_id="cus_a",
        created_gte="2024-04-30T20:00:00Z",
        created_lte="2024-04-30T23:00:00Z",
    )
    page = await client.payments.list(request)
    # payments 1, 3 (cus_a, 22:00 and 20:00); 5 is at 18:00
    assert _ids(page) == ["pay_list0001", "pay_list0003"]
    nxt = await client.payments.list(request.model_copy(update={"offset": 2}))
    assert _ids(nxt) == []
    window = {
        "customer_id": "cus_a",
        "created_gte": "2024-04-30T20:00:00Z",
        "created_lte": "2024-04-30T23:00:00Z",
    }
    assert [_query(r) for r in scripted.requests] == [
        {"limit": "2", **window},
        {"limit": "2", **window, "starting_after": "pay_list0003"},
    ]


async def test_a_page_whose_predecessor_was_not_read_is_reached_by_reading_forward(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    payments = [_payment(n) for n in range(1, 261)]
    _real(scripted, payments)
    client = make_client(url, contract="real")
    page = await client.payments.list(PaymentListRequest(limit=100, offset=200))
    assert _ids(page) == [p["payment_id"] for p in payments[200:]]
    assert [_query(r) for r in scripted.requests] == [
        {"limit": "100"},
        {"limit": "100", "starting_after": "pay_list0100"},
        {"limit": "100", "starting_after": "pay_list0200"},
    ]
    # past the last payment: an empty page, found by reading forward from what was read
    scripted.requests.clear()
    beyond = await client.payments.list(PaymentListRequest(limit=100, offset=300))
    assert beyond.data == [] and beyond.total_count is None
    assert [_query(r) for r in scripted.requests] == [
        {"limit": "100", "starting_after": "pay_list0260"}
    ]


async def test_a_page_too_far_ahead_is_said_out_of_reach(
    app: tuple[ScriptedApp, str], make_client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    scripted, url = app
    monkeypatch.setattr(payments_resource, "WALK_PAGES", 2)
    _real(scripted, [_payment(n) for n in range(1, 301)])
    client = make_client(url, contract="real")
    with pytest.raises(PageOutOfReachError) as raised:
        await client.payments.list(PaymentListRequest(limit=50, offset=250))
    said = str(raised.value)
    assert "by cursor" in said and "payment 251" in said and "200 payments" in said
    assert len(scripted.requests) == 2  # two pages read ahead, then it stopped


@pytest.mark.parametrize(
    ("request_fields", "named"),
    [
        ({"status": ["failed"]}, "status"),
        ({"currency": ["EUR"], "amount_filter": {"start_amount": 10}}, "amount_filter, currency"),
    ],
)
async def test_a_filter_the_real_route_does_not_take_is_refused_before_sending(
    app: tuple[ScriptedApp, str],
    make_client: ClientFactory,
    request_fields: dict[str, Any],
    named: str,
) -> None:
    scripted, url = app
    _real(scripted, [_payment(1)])
    client = make_client(url, contract="real")
    with pytest.raises(UnsupportedFilterError) as raised:
        await client.payments.list(PaymentListRequest(**request_fields))
    assert f"cannot filter by {named};" in str(raised.value)
    assert isinstance(raised.value, ClientError)
    assert not scripted.requests


async def test_a_whole_payment_id_is_read_by_id_on_the_real_contract(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    _real(scripted, [])
    scripted.script("GET", "/payments/pay_list0001", Reply(200, _payment(1)))
    client = make_client(url, contract="real")
    found = await client.payments.list(PaymentListRequest(payment_id="pay_list0001"))
    assert _ids(found) == ["pay_list0001"]
    other = await client.payments.list(
        PaymentListRequest(payment_id="pay_list0001", customer_id="cus_other")
    )
    assert other.data == []
    missing = await client.payments.list(PaymentListRequest(payment_id="pay_list0404"))
    assert missing.data == []  # the fallback: 404 HE_02
    assert not scripted.seen("GET", "/payments/list")


async def test_the_real_documents_array_of_lists_is_read(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("GET", "/payments/list", Reply(200, [{"size": 1, "data": [_payment(1)]}]))
    page = await make_client(url, contract="real").payments.list()
    assert _ids(page) == ["pay_list0001"]


@pytest.mark.parametrize(
    ("probe_answer", "route"),
    [
        (envelope(404, "HE_02", "Payment does not exist"), ("GET", "/payments/list")),
        (envelope(404, "IR_05", "Payment does not exist"), ("POST", "/payments/list")),
    ],
    ids=["real", "spec"],
)
async def test_an_auto_client_asks_once_and_lists_by_the_contract_found(
    app: tuple[ScriptedApp, str],
    make_client: ClientFactory,
    probe_answer: Reply,
    route: tuple[str, str],
) -> None:
    scripted, url = app
    scripted.script("GET", PROBE, probe_answer)
    scripted.route("GET", "/payments/list", lambda asked: payments_list([_payment(1)], asked))
    scripted.script(
        "POST", "/payments/list", Reply(200, {"count": 1, "total_count": 1, "data": [_payment(1)]})
    )
    client = make_client(url, contract="auto")
    for offset in (0, 1):
        await client.payments.list(PaymentListRequest(limit=1, offset=offset))
    assert len(scripted.seen("GET", PROBE)) == 1
    assert [(r.method, r.path) for r in scripted.requests if r.path != PROBE] == [route, route]


async def test_an_auto_client_in_doubt_asks_once(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.route("GET", "/payments/list", lambda asked: payments_list([_payment(1)], asked))
    # an answer neither contract is known by: still in doubt, read as the real service
    scripted.script("GET", PROBE, envelope(404, "XX_99", "gone"))
    doubtful = make_client(url, contract="auto")
    for _ in range(3):
        await doubtful.payments.list()
    assert doubtful.detected_contract is None and doubtful.contract == "real"
    assert len(scripted.seen("GET", PROBE)) == 1


async def test_an_auto_client_whose_probe_had_no_answer_asks_again(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.route("GET", "/payments/list", lambda asked: payments_list([_payment(1)], asked))
    # the service failing at first (a bare 503 says no contract): asked again, then known
    scripted.script("GET", PROBE, Reply(503, body=b""), NOT_A_ROUTE)
    recovering = make_client(url, contract="auto", max_attempts=1)
    for _ in range(3):
        await recovering.payments.list()
    assert recovering.detected_contract == "real"
    assert len(scripted.seen("GET", PROBE)) == 2
