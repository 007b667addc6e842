"""Analytics figures against sums computed here, in Python, from the rows the test wrote."""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from payscope.sandbox.clock import iso
from payscope.sandbox.db import dumps
from payscope.sandbox.server import Sandbox

START = datetime(2024, 3, 1, tzinfo=UTC).timestamp()
DAY = 86400
STATUSES = ("succeeded", "failed", "succeeded", "requires_customer_action", "cancelled")


def write_payments(sandbox: Sandbox, n: int = 400) -> list[dict[str, Any]]:
    """`n` payments over 20 days from START (plus 10 days before it, for deltas)."""
    rng = random.Random(7)
    rows: list[dict[str, Any]] = []
    for i in range(n):
        created = START - 10 * DAY + rng.uniform(0, 30 * DAY)
        status = rng.choice(STATUSES)
        rows.append(
            {
                "payment_id": f"pay_test{i:05d}",
                "status": status,
                "amount": rng.randrange(100, 10000),
                "currency": rng.choice(("USD", "EUR")),
                "created": iso(created),
            }
        )
    merchant = sandbox.credentials.merchant_id
    with sandbox.state.db.transaction() as conn:
        conn.executemany(
            "INSERT INTO payments(payment_id, merchant_id, status, amount, currency, customer_id,"
            " payment_method, created, client_secret, card_rule, expires_at, data) "
            "VALUES (?, ?, ?, ?, ?, NULL, 'card', ?, 'x', NULL, NULL, ?)",
            [
                (
                    r["payment_id"],
                    merchant,
                    r["status"],
                    r["amount"],
                    r["currency"],
                    r["created"],
                    dumps({**r, "profile_id": sandbox.credentials.profile_id}),
                )
                for r in rows
            ],
        )
    return rows


def query(**fields: Any) -> list[dict[str, Any]]:
    body = {
        "timeRange": {"startTime": "2024-03-01T00:00:00Z", "endTime": "2024-03-10T23:59:59Z"},
        "metrics": ["payment_count", "payment_success_count", "payment_processed_amount"],
        "source": "BATCH",
    }
    body.update(fields)
    return [body]


def in_window(rows: list[dict[str, Any]], start: str, end: str) -> list[dict[str, Any]]:
    return [r for r in rows if start <= r["created"] <= end]


def shown(status: str) -> str:
    return "requires_action" if status == "requires_customer_action" else status


async def test_grouped_daily_payments_match_python_sums(
    sandbox: Sandbox, raw: httpx.AsyncClient
) -> None:
    rows = write_payments(sandbox)
    window = in_window(rows, "2024-03-01T00:00:00.000Z", "2024-03-10T23:59:59.999Z")
    response = await raw.post(
        "/analytics/v1/merchant/metrics/payments",
        json=query(timeSeries={"granularity": "G_ONE_DAY"}, groupByNames=["currency", "status"]),
    )
    assert response.status_code == 200, response.text
    expected: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in window:
        key = (r["created"][:10], r["currency"], shown(r["status"]))
        expected[key][0] += 1
        if r["status"] == "succeeded":
            expected[key][1] += 1
            expected[key][2] += r["amount"]
    got = {
        (q["time_bucket"][:10], q["currency"], q["status"]): [
            q["payment_count"],
            q["payment_success_count"],
            q["payment_processed_amount"],
        ]
        for q in response.json()["queryData"]
    }
    assert got == dict(expected)
    first = response.json()["queryData"][0]
    assert first["time_range"]["start_time"] == first["time_bucket"]
    meta = response.json()["metaData"][0]
    assert meta["total_payment_processed_amount"] == sum(
        r["amount"] for r in window if r["status"] == "succeeded"
    )
    assert meta["total_payment_count"] == len(window)


async def test_rates_delta_filters_and_weeks(sandbox: Sandbox, raw: httpx.AsyncClient) -> None:
    rows = write_payments(sandbox)
    now = in_window(rows, "2024-03-01T00:00:00.000Z", "2024-03-10T23:59:59.999Z")
    before = in_window(rows, "2024-02-20T00:00:00.000Z", "2024-02-29T23:59:59.999Z")
    response = await raw.post(
        "/analytics/v1/merchant/metrics/payments",
        json=query(
            metrics=["payment_count", "payment_success_rate", "avg_ticket_size"],
            delta=True,
            filters={"currency": ["EUR"]},
        ),
    )
    (row,) = response.json()["queryData"]
    eur = [r for r in now if r["currency"] == "EUR"]
    ok = [r for r in eur if r["status"] == "succeeded"]
    assert row["payment_count"] == len(eur)
    assert row["payment_success_rate"] == pytest.approx(100 * len(ok) / len(eur))
    assert row["avg_ticket_size"] == pytest.approx(sum(r["amount"] for r in ok) / len(ok))
    old = [r for r in before if r["currency"] == "EUR"]
    assert row["payment_count_delta"] == len(eur) - len(old)
    weekly = await raw.post(
        "/analytics/v1/merchant/metrics/payments",
        json=query(metrics=["payment_count"], timeSeries={"granularity": "G_ONE_WEEK"}),
    )
    buckets = {q["time_bucket"][:10]: q["payment_count"] for q in weekly.json()["queryData"]}
    expected: dict[str, int] = defaultdict(int)
    for r in now:
        day = datetime.fromisoformat(r["created"][:10])
        monday = day.toordinal() - day.weekday()
        expected[datetime.fromordinal(monday).strftime("%Y-%m-%d")] += 1
    assert buckets == dict(expected)
    assert datetime.fromisoformat(min(buckets)).weekday() == 0


async def test_refund_and_dispute_metrics(sandbox: Sandbox, raw: httpx.AsyncClient) -> None:
    rows = write_payments(sandbox, 60)
    paid = [r for r in rows if r["status"] == "succeeded"]
    refunds = []
    with sandbox.state.db.transaction() as conn:
        for i, p in enumerate(paid):
            status = ("succeeded", "failed", "pending")[i % 3]
            refunds.append(
                (
                    f"ref_{i}",
                    p["payment_id"],
                    status,
                    p["currency"],
                    p["amount"] // 2,
                    p["created"],
                    dumps({"reason": "duplicate", "refund_type": "instant"}),
                )
            )
        conn.executemany(
            "INSERT INTO refunds(refund_id, payment_id, status, currency, amount, created, data) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            refunds,
        )
        disputes = []
        for i, p in enumerate(paid):
            status = ("dispute_won", "dispute_lost", "dispute_challenged")[i % 3]
            disputes.append(
                (
                    f"dp_{i}",
                    p["payment_id"],
                    status,
                    "dispute",
                    p["currency"],
                    p["amount"],
                    p["created"],
                    "pro_x",
                    "{}",
                )
            )
        conn.executemany(
            "INSERT INTO disputes(dispute_id, payment_id, status, stage, currency, amount, "
            "created, profile_id, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            disputes,
        )
    wide = {"startTime": "2024-01-01T00:00:00Z", "endTime": "2024-12-31T00:00:00Z"}
    refund_answer = await raw.post(
        "/analytics/v1/merchant/metrics/refunds",
        json=[
            {
                "timeRange": wide,
                "source": "LIVE",
                "groupByNames": ["refund_status"],
                "metrics": [
                    "refund_count",
                    "refund_success_rate",
                    "refund_processed_amount",
                    "refund_success_count",
                ],
            }
        ],
    )
    by_status = {q["refund_status"]: q for q in refund_answer.json()["queryData"]}
    for status in ("succeeded", "failed", "pending"):
        mine = [r for r in refunds if r[2] == status]
        assert by_status[status]["refund_count"] == len(mine)
        assert by_status[status]["refund_processed_amount"] == (
            sum(r[4] for r in mine) if status == "succeeded" else 0
        )
    meta = refund_answer.json()["metaData"][0]
    succeeded = [r for r in refunds if r[2] == "succeeded"]
    assert meta["total_refund_success_rate"] == pytest.approx(100 * len(succeeded) / len(refunds))
    dispute_answer = await raw.post(
        "/analytics/v1/merchant/metrics/disputes",
        json=[
            {
                "timeRange": wide,
                "source": "BATCH",
                "groupByNames": ["currency"],
                "metrics": [
                    "dispute_status_metric",
                    "total_amount_disputed",
                    "total_dispute_lost_amount",
                ],
            }
        ],
    )
    for row in dispute_answer.json()["queryData"]:
        mine = [d for d in disputes if d[4] == row["currency"]]
        assert row["total_dispute"] == len(mine)
        assert row["disputes_won"] == sum(d[2] == "dispute_won" for d in mine)
        assert row["dispute_status_metric"]["dispute_challenged"] == row["disputes_challenged"]
        assert row["total_amount_disputed"] == sum(d[5] for d in mine)
        assert row["dispute_lost_amount"] == sum(d[5] for d in mine if d[2] == "dispute_lost")
    meta = dispute_answer.json()["metaData"][0]
    assert meta["total_dispute_lost_amount_overall"] == sum(
        d[5] for d in disputes if d[2] == "dispute_lost"
    )


@pytest.mark.parametrize(
    ("path", "body", "status", "words"),
    [
        (
            "merchant/metrics/payments",
            query(metrics=["refund_count"]),
            400,
            ["refund_count", "payment_count"],
        ),
        (
            "merchant/metrics/payments",
            query(groupByNames=["colour"]),
            400,
            ["colour", "card_network"],
        ),
        (
            "merchant/metrics/payments",
            query(filters={"refund_status": ["x"]}),
            400,
            ["refund_status", "currency"],
        ),
        (
            "merchant/metrics/payments",
            query(timeSeries={"granularity": "G_ONE_YEAR"}),
            400,
            ["G_ONE_YEAR", "G_ONE_MONTH"],
        ),
        ("merchant/metrics/payments", query(source="CACHE"), 400, ["BATCH"]),
        (
            "merchant/metrics/payments",
            [{"metrics": ["payment_count"], "source": "BATCH"}],
            400,
            ["timeRange"],
        ),
        ("merchant/metrics/refunds", query(), 400, ["payment_count", "refund_count"]),
        ("merchant/metrics/orders", query(), 400, ["payments, refunds, disputes"]),
        ("org/metrics/payments", query(), 403, ["merchant"]),
        ("profile/metrics/payments", query(), 403, ["merchant"]),
    ],
)
async def test_refusals(
    raw: httpx.AsyncClient, path: str, body: Any, status: int, words: list[str]
) -> None:
    response = await raw.post(f"/analytics/v1/{path}", json=body)
    assert response.status_code == status, response.text
    message = response.json()["error"]["message"]
    for word in words:
        assert word in message
