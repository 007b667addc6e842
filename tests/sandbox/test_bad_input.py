"""Hostile and unusual input (issue #3): every answer is the envelope with the spec's code, never
a 500, a hang or a reply the sandbox's own /openapi.json does not declare."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import API_KEY, envelope, payment_body

HUGE = 10**30
BEYOND_I64 = 2**63


async def post(raw: httpx.AsyncClient, path: str, body: Any) -> httpx.Response:
    return await raw.post(
        path, content=json.dumps(body), headers={"content-type": "application/json"}
    )


def analytics_query(**extra: Any) -> list[dict[str, Any]]:
    return [
        {
            "timeRange": {"startTime": "0001-01-01T00:00:00Z", "endTime": "9999-12-31T23:59:59Z"},
            "metrics": ["payment_count"],
            "source": "BATCH",
            **extra,
        }
    ]


@pytest.mark.parametrize(
    ("path", "body", "needle"),
    [
        ("/payments", payment_body(amount=HUGE), "amount must be at most 9007199254740991"),
        ("/payments", payment_body(amount=BEYOND_I64), "amount must be at most"),
        ("/payments", payment_body(amount=2**63 - 1), "amount must be at most"),
        ("/payouts/create", {"amount": HUGE, "currency": "USD"}, "amount must be at most"),
        ("/payment_link", {"amount": BEYOND_I64, "currency": "USD"}, "amount must be at most"),
        ("/refunds", {"payment_id": "pay_x", "amount": HUGE}, "amount must be at most"),
        ("/payments/list", {"offset": HUGE}, "offset must be a whole number"),
        ("/payments/list", {"offset": BEYOND_I64}, "at most 9223372036854775807"),
        ("/refunds/list", {"offset": HUGE}, "offset"),
        ("/payouts/list", {"offset": HUGE}, "offset"),
        ("/disputes/list", {"offset": HUGE}, "offset"),
        ("/payment_link/list", {"offset": HUGE}, "offset"),
        ("/payments", payment_body(metadata={"order": HUGE}), "metadata.order"),
        ("/customers", {"name": "Jo", "metadata": {"n": -HUGE}}, "metadata.n"),
        (
            "/payments",
            payment_body(order_details=[{"name": "x", "quantity": HUGE, "amount": 1}]),
            "order_details[0].quantity",
        ),
        (
            "/payouts/create",
            {"amount": 100, "currency": "USD", "payout_link": True, "session_expiry": HUGE},
            "session_expiry",
        ),
    ],
)
async def test_numbers_beyond_storage_are_400_naming_the_field(
    raw: httpx.AsyncClient, path: str, body: Any, needle: str
) -> None:
    # Before: SQLite or the JSON writer overflowed and the sandbox answered 500 HE_00.
    response = await post(raw, path, body)
    assert response.status_code == 400, response.text
    error = envelope(response)
    assert error["code"] == "IR_04"
    assert needle in error["message"]


async def test_largest_amount_is_still_accepted(raw: httpx.AsyncClient) -> None:
    response = await post(raw, "/payments", payment_body(amount=2**53 - 1))
    assert response.status_code == 200, response.text
    assert response.json()["amount"] == 2**53 - 1


@pytest.mark.parametrize("query", ["offset=99999999999999999999999", f"offset={BEYOND_I64}"])
@pytest.mark.parametrize("path", ["/payments/list", "/customers/list", "/payouts/list"])
async def test_query_offset_beyond_64_bits_is_400(
    raw: httpx.AsyncClient, path: str, query: str
) -> None:
    response = await raw.get(f"{path}?{query}")
    assert response.status_code == 400, response.text
    assert "offset" in envelope(response)["message"]


async def test_largest_offset_gives_an_empty_page(raw: httpx.AsyncClient) -> None:
    response = await raw.get(f"/payments/list?offset={2**63 - 1}")
    assert response.status_code == 200, response.text
    assert response.json()["data"] == []


@pytest.mark.parametrize(
    "seconds", [b"NaN", b"Infinity", b"-Infinity", b"1e308", str(HUGE).encode(), b"true"]
)
async def test_clock_advance_refuses_what_the_clock_cannot_reach(
    raw: httpx.AsyncClient, seconds: bytes
) -> None:
    # Before: NaN and infinities passed the `< 0` test and crashed; huge values overflowed.
    response = await raw.post(
        "/_sandbox/clock/advance",
        content=b'{"seconds": ' + seconds + b"}",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400, response.text
    error = envelope(response)
    assert error["code"] == "IR_04"
    assert "Allowed: a number of seconds from 0 to" in error["message"]
    health = await raw.get("/health")
    assert health.status_code == 200  # the clock was left where it was


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"timeSeries": {"granularity": "G_ONE_HOUR"}}, "timeSeries.granularity"),
        ({"timeSeries": {"granularity": "G_ONE_MONTH"}}, "timeSeries.granularity"),
        ({"delta": True}, "delta"),
    ],
)
async def test_analytics_refuses_windows_it_cannot_compute(
    raw: httpx.AsyncClient, extra: dict[str, Any], field: str
) -> None:
    # Before: an hourly series from year 1 to 9999 built 87 million buckets and held the
    # sandbox's event loop; a delta window before year 1 crashed.
    response = await post(raw, "/analytics/v1/merchant/metrics/payments", analytics_query(**extra))
    assert response.status_code == 400, response.text
    error = envelope(response)
    assert error["code"] == "IR_04"
    assert error["message"].startswith(f"Invalid value for {field}")


async def test_analytics_long_window_without_series_still_answers(raw: httpx.AsyncClient) -> None:
    response = await post(raw, "/analytics/v1/merchant/metrics/payments", analytics_query())
    assert response.status_code == 200, response.text
    assert response.json()["metaData"][0]["total_payment_count"] == 0


async def test_wrong_method_names_the_allowed_ones(raw: httpx.AsyncClient) -> None:
    response = await raw.request("TRACE", "/_sandbox/clock")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET"
    error = envelope(response)
    assert error["code"] == "IR_03"
    assert "GET" in error["message"]


def _operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, op)
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if method in ("get", "post", "put", "delete", "patch")
    ]


async def test_openapi_declares_the_error_envelope_not_422(raw: httpx.AsyncClient) -> None:
    # Before: every operation declared FastAPI's 422 (never sent) and no 400/401/404.
    doc = (await raw.get("/openapi.json")).json()
    assert doc["components"]["securitySchemes"]["api-key"]["name"] == "api-key"
    ops = _operations(doc)
    assert ops
    for method, path, op in ops:
        responses = op["responses"]
        assert "422" not in responses, (method, path)
        for status in ("400", "401", "404", "405", "429", "default"):
            schema = responses[status]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/Error"}, (method, path, status)
    subscription = doc["paths"]["/subscriptions/{subscription_id}"]["get"]
    assert any(p["name"] == "X-Profile-Id" for p in subscription["parameters"])
    advance = doc["paths"]["/_sandbox/clock/advance"]["post"]
    assert advance["requestBody"]["content"]["application/json"]["schema"]["required"] == [
        "seconds"
    ]


async def test_error_statuses_sent_are_declared_in_openapi(
    raw: httpx.AsyncClient, sandbox: Sandbox
) -> None:
    doc = (await raw.get("/openapi.json")).json()
    cases = [
        ("GET", "/payments/pay_missing", "/payments/{payment_id}", None),
        ("POST", "/payments", "/payments", b"{}"),
        ("POST", "/payments/list", "/payments/list", b'{"offset": -1}'),
    ]
    for method, url, template, content in cases:
        response = await raw.request(
            method, url, content=content, headers={"content-type": "application/json"}
        )
        assert str(response.status_code) in doc["paths"][template][method.lower()]["responses"]
        envelope(response)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sandbox.app), base_url="http://sandbox.test"
    ) as anonymous:
        response = await anonymous.get("/payments/list")
    assert response.status_code == 401
    assert "401" in doc["paths"]["/payments/list"]["get"]["responses"]
    assert API_KEY not in response.text
