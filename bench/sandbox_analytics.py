"""Benchmark: the analytics query of the dashboard over 1,000,000 stored payments.

Fills a fresh sandbox database with a million payments spread over 90 days (bulk
`executemany`, oldest first), starts the sandbox on a free loopback port, and runs
`POST /analytics/v1/merchant/metrics/payments` (90 days, G_ONE_DAY, grouped by currency and
status) over HTTP several times. Prints p50 and max; exits 1 when p50 is above 300 ms.

    .venv/bin/python bench/sandbox_analytics.py [--payments N] [--runs R]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from results import Figure, record  # bench/ is on the path when run as a script

from payscope.sandbox.clock import iso
from payscope.sandbox.server import Sandbox, SandboxConfig

TARGET_MS = 300.0
DAYS = 90
CHUNK = 50_000
STATUSES = ("succeeded",) * 6 + ("failed", "failed", "requires_capture", "cancelled")
CURRENCIES = ("USD", "USD", "USD", "EUR", "EUR", "GBP", "JPY", "INR")


def fill(sandbox: Sandbox, n: int) -> float:
    """Write `n` payments straight into the database; returns the seconds it took."""
    state = sandbox.state
    conn = state.db.conn
    merchant = state.credentials.merchant_id
    now = state.clock.now()
    rng = random.Random(1)
    started = time.perf_counter()
    offsets = sorted((rng.random() * DAYS * 86400 for _ in range(n)), reverse=True)
    conn.execute("BEGIN IMMEDIATE")
    rows: list[tuple[object, ...]] = []
    for i, offset in enumerate(offsets):
        status = STATUSES[rng.randrange(len(STATUSES))]
        currency = CURRENCIES[rng.randrange(len(CURRENCIES))]
        amount = rng.randrange(100, 50_000)
        payment_id = f"pay_bench{i:011d}"
        data = (
            f'{{"payment_id":"{payment_id}","status":"{status}","amount":{amount},'
            f'"currency":"{currency}","payment_method":"card"}}'
        )
        rows.append((payment_id, merchant, status, amount, currency, iso(now - offset - 60), data))
        if len(rows) >= CHUNK:
            _insert(conn, rows)
    _insert(conn, rows)
    conn.execute("COMMIT")
    # A sandbox that has run a while has its WAL checkpointed into the main file.
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return time.perf_counter() - started


def _insert(conn: sqlite3.Connection, rows: list[tuple[object, ...]]) -> None:
    conn.executemany(
        "INSERT INTO payments(payment_id, merchant_id, status, amount, currency, customer_id, "
        "payment_method, created, client_secret, card_rule, expires_at, data) "
        "VALUES (?, ?, ?, ?, ?, NULL, 'card', ?, 'x', NULL, NULL, ?)",
        rows,
    )
    rows.clear()


async def measure(sandbox: Sandbox, runs: int) -> list[float]:
    """Milliseconds per analytics request over real HTTP."""
    url = await sandbox.start()
    now = sandbox.state.clock.now()
    body = [
        {
            "timeRange": {"startTime": iso(now - DAYS * 86400), "endTime": iso(now)},
            "metrics": ["payment_count", "payment_success_rate", "payment_processed_amount"],
            "timeSeries": {"granularity": "G_ONE_DAY"},
            "groupByNames": ["currency", "status"],
            "source": "BATCH",
        }
    ]
    timings: list[float] = []
    try:
        async with httpx.AsyncClient(
            base_url=url, headers={"api-key": sandbox.credentials.api_key}, timeout=60
        ) as http:
            for _ in range(runs):
                started = time.perf_counter()
                response = await http.post("/analytics/v1/merchant/metrics/payments", json=body)
                timings.append((time.perf_counter() - started) * 1000)
                response.raise_for_status()
            rows = response.json()["queryData"]
            total = sum(r["payment_count"] for r in rows)
            print(f"  {len(rows)} rows, {total} payments counted")
    finally:
        await sandbox.stop()
    return timings


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; 0 when p50 is within the target, 1 when above it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--payments", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="payscope-bench-") as tmp:
        sandbox = Sandbox(SandboxConfig(data_dir=Path(tmp), rate_limit=0))
        seconds = fill(sandbox, args.payments)
        print(
            f"analytics: stored {args.payments:,} payments in {seconds:.1f} s "
            f"({args.payments / seconds:,.0f}/s)"
        )
        timings = asyncio.run(measure(sandbox, args.runs))
    p50 = statistics.median(timings)
    print(
        f"analytics: 90 days, G_ONE_DAY, by currency and status: p50 {p50:.0f} ms, "
        f"max {max(timings):.0f} ms over {len(timings)} runs (target p50 < {TARGET_MS:.0f} ms)"
    )
    record(
        "sandbox_analytics",
        [
            Figure("query p50", p50, "ms", "<", TARGET_MS),
            Figure("query max", max(timings), "ms"),
            Figure("payments stored per second", args.payments / seconds, "payments/s"),
        ],
        what=f"analytics over {args.payments:,} payments: 90 days, G_ONE_DAY, by currency and "
        "status",
    )
    return 0 if p50 <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
