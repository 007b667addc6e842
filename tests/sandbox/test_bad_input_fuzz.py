"""Regressions from the second fuzzing pass: filter values, non-ASCII digits, lone surrogate
escapes, undeclared request bodies and analytics sums beyond 64 bits. Each answer is the
envelope with a message naming the field, never a 200 on a malformed query or a 500."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from payscope.api.models.common import MAX_AMOUNT
from payscope.sandbox.db import dumps
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import payment_body
from tests.sandbox.test_bad_input import analytics_query, envelope, post

METRICS = "/analytics/v1/merchant/metrics/payments"


@pytest.mark.parametrize(
    ("filters", "field", "got"),
    [
        ({"currency": {"a": 1}}, "filters.currency", "got an object"),
        ({"currency": ["USD", 1]}, "filters.currency", "got an array holding a number"),
        ({"status": [None]}, "filters.status", "got an array holding null"),
        ({"payment_method": 7}, "filters.payment_method", "got a number"),
        ({"currency": [["USD"]]}, "filters.currency", "got an array holding an array"),
    ],
)
async def test_analytics_filter_values_must_be_arrays_of_strings(
    raw: httpx.AsyncClient, filters: dict[str, Any], field: str, got: str
) -> None:
    # Before: 200 with an empty result (the object was compared as the text "{'a': 1}").
    response = await post(raw, METRICS, analytics_query(filters=filters))
    assert response.status_code == 400, response.text
    error = envelope(response)
    assert error["code"] == "IR_04"
    assert error["message"].startswith(f"{field} must be an array of strings"), error
    assert got in error["message"]


async def test_analytics_filters_must_be_an_object(raw: httpx.AsyncClient) -> None:
    response = await post(raw, METRICS, analytics_query(filters=["USD"]))
    assert response.status_code == 400, response.text
    error = envelope(response)
    assert error["code"] == "IR_04"
    assert (
        "filters must be an object mapping a dimension to an array of strings" in (error["message"])
    )


async def test_analytics_string_filters_still_apply(raw: httpx.AsyncClient) -> None:
    for currency in ("USD", "EUR", "EUR"):
        response = await post(raw, "/payments", payment_body(currency=currency))
        assert response.status_code == 200, response.text
    for filters, count in (({"currency": ["EUR"]}, 2), ({"currency": "USD"}, 1)):
        response = await post(raw, METRICS, analytics_query(filters=filters))
        assert response.status_code == 200, response.text
        assert response.json()["metaData"][0]["total_payment_count"] == count


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("card_exp_month", "١٢"),
        ("card_exp_year", "٢٠٤٠"),
        ("card_exp_month", "²"),
        ("card_cvc", "١٢٣"),
    ],
)
async def test_card_fields_refuse_other_scripts_digits(
    raw: httpx.AsyncClient, field: str, value: str
) -> None:
    # Before: "١٢" passed str.isdigit() and was read as month 12 (200, payment succeeded).
    body = payment_body()
    body["payment_method_data"]["card"][field] = value
    response = await post(raw, "/payments", body)
    assert response.status_code == 400, response.text
    error = envelope(response)
    assert error["code"] == "IR_04"
    assert field in error["message"]
    assert "ASCII digits 0-9" in error["message"]


@pytest.mark.parametrize("query", ["offset=١٢", "limit=١٢"])
async def test_list_paging_refuses_other_scripts_digits(raw: httpx.AsyncClient, query: str) -> None:
    response = await raw.get(f"/payments/list?{query}")
    assert response.status_code == 400, response.text
    error = envelope(response)
    assert error["code"] == "IR_04"
    assert query.split("=")[0] in error["message"]
    assert "ASCII digits 0-9" in error["message"]


LONE = b'"\\ud800"'  # the six characters \ud800 in JSON text, not a Python surrogate


@pytest.mark.parametrize(
    ("path", "body", "where"),
    [
        (
            "/payments",
            b'{"amount": 100, "currency": "USD", "description": ' + LONE + b"}",
            "description",
        ),
        ("/customers", b'{"name": "Jo", "metadata": {"a": ["x", "\\udfff"]}}', "metadata.a[1]"),
        ("/payments", b'{"amount": 100, ' + LONE + b": 1}", "a field name of the body"),
        ("/payments/list", b'{"customer_id": "ab\\udc00"}', "customer_id"),
        # bodies parsed with the json module: these were 500s (SQLite could not encode them)
        ("/payouts/list", b'{"currency": ' + LONE + b"}", "currency"),
        (METRICS, b'[{"filters": {"currency": [' + LONE + b"]}}]", "[0].filters.currency[0]"),
    ],
)
async def test_lone_surrogate_escape_is_named_not_a_parser_message(
    raw: httpx.AsyncClient, path: str, body: bytes, where: str
) -> None:
    # Before: "The request body is not valid JSON (unexpected end of hex escape at line 1 ...)"
    response = await raw.post(path, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    error = envelope(response)
    assert error["code"] == "IR_04"
    assert error["message"].startswith(f"Invalid value for {where}: "), error
    assert "unpaired UTF-16 surrogate escape" in error["message"]
    assert "hex escape" not in error["message"]


async def test_paired_surrogate_escapes_are_text(raw: httpx.AsyncClient) -> None:
    body = b'{"amount": 100, "currency": "USD", "description": "tea \\ud83c\\udf75"}'
    response = await raw.post(
        "/payments", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 200, response.text
    assert response.json()["description"] == "tea \N{TEACUP WITHOUT HANDLE}"


async def test_other_bad_escapes_keep_the_parser_message(raw: httpx.AsyncClient) -> None:
    body = b'{"amount": 100, "currency": "USD", "description": "\\u12"}'
    response = await raw.post(
        "/payments", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400, response.text
    assert "not valid JSON" in envelope(response)["message"]


def _max_amount_payments(sandbox: Sandbox, per_day: dict[str, int]) -> None:
    """Succeeded payments at the largest amount, `per_day[day]` of them on each day."""
    merchant = sandbox.credentials.merchant_id
    rows = []
    for day, count in per_day.items():
        for i in range(count):
            created = f"{day}T{i % 24:02d}:{i % 60:02d}:00.000Z"
            data = {"payment_id": f"pay_{day}_{i}", "amount": MAX_AMOUNT, "currency": "USD"}
            rows.append((data["payment_id"], merchant, MAX_AMOUNT, created, dumps(data)))
    with sandbox.state.db.transaction() as conn:
        conn.executemany(
            "INSERT INTO payments(payment_id, merchant_id, status, amount, currency, customer_id,"
            " payment_method, created, client_secret, card_rule, expires_at, data) "
            "VALUES (?, ?, 'succeeded', ?, 'USD', NULL, 'card', ?, 'x', NULL, NULL, ?)",
            rows,
        )


async def test_analytics_sums_beyond_64_bits_are_exact(
    sandbox: Sandbox, raw: httpx.AsyncClient
) -> None:
    # Before: SQLite's SUM raised "integer overflow" past 2**63 and the sandbox answered 500.
    _max_amount_payments(sandbox, {"2024-03-02": 1500, "2024-03-03": 600, "2024-02-25": 1100})
    body = analytics_query(
        timeRange={"startTime": "2024-03-01T00:00:00Z", "endTime": "2024-03-07T23:59:59Z"},
        metrics=["payment_count", "payment_processed_amount", "avg_ticket_size"],
        timeSeries={"granularity": "G_ONE_DAY"},
        groupByNames=["currency"],
        delta=True,
    )
    response = await post(raw, METRICS, body)
    assert response.status_code == 200, response.text
    answer = response.json()
    days = {row["time_bucket"][:10]: row for row in answer["queryData"]}
    assert days["2024-03-02"]["payment_processed_amount"] == 1500 * MAX_AMOUNT  # past 2**63
    assert days["2024-03-03"]["payment_processed_amount"] == 600 * MAX_AMOUNT
    assert days["2024-03-02"]["avg_ticket_size"] == MAX_AMOUNT
    meta = answer["metaData"][0]
    assert meta["total_payment_processed_amount"] == 2100 * MAX_AMOUNT  # past 2**64
    assert meta["total_payment_count"] == 2100
    # the previous week holds 1100 of them: the delta query overflowed as well
    assert meta["total_payment_processed_amount_delta"] == 1000 * MAX_AMOUNT


async def test_analytics_ordinary_sums_are_unchanged(
    sandbox: Sandbox, raw: httpx.AsyncClient
) -> None:
    _max_amount_payments(sandbox, {"2024-03-02": 3})
    body = analytics_query(metrics=["payment_processed_amount"])
    response = await post(raw, METRICS, body)
    assert response.status_code == 200, response.text
    assert response.json()["queryData"][0]["payment_processed_amount"] == 3 * MAX_AMOUNT
