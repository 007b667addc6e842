"""Benchmark: does webhook delivery keep up with a busy sandbox (issue 14)?

    .venv/bin/python bench/delivery.py [--seconds 25] [--clients 32]

1. Keeping pace: `payscope sandbox` and `payscope listen` (the real listener, which verifies,
   dedupes and journals every event before it answers) each in a subprocess, the sandbox
   delivering to the listener. `--clients` concurrent clients run a mixed load for `--seconds`:
   payments that succeed, are declined, are captured at once, in three partial captures or
   after a refund, and reads (retrieve, list payments, list events). Printed: events created/s
   (the sandbox's outbox) against first deliveries/s (the listener's journal) over the load,
   the first-attempt lag (listener receipt minus event creation, for every event created
   during the load; one not delivered when the load ends counts with its wait so far) p50 and
   p99, the backlog (events not yet acknowledged) when the load ends, and the time it takes
   to drain, and how long the writes took to answer meanwhile (the sandbox's own pace: a stall
   of the machine shows in both). Targets: delivered/s >= 0.95 x created/s, lag p99 < 1 s.
2. An endpoint that never answers (a socket that accepts and stays silent): ten events whose
   first attempts failed are due for their retry; the webhook URL is pointed at the silent
   endpoint, then the clock is advanced (the retries go to it) and the manual retry route is
   called, 20 times each (`--silent-calls`), while every delivery slot hangs. Printed: p50 and
   max of each, and of `POST /payments` meanwhile. Targets: clock advance max < 250 ms;
   retry max < 500 ms (by design it waits 250 ms for an endpoint's answer); create max
   < 250 ms.

Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import re
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from results import Figure, record  # bench/ is on the path when run as a script

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

API_KEY = "snd_bench_delivery_0123456789"
SECRET = "bench-delivery-" + "k" * 49
CARD = {"card_exp_month": "12", "card_exp_year": "2040", "card_cvc": "123"}

TARGET_PACE = 0.95
TARGET_LAG_P99 = 1.0
TARGET_ADVANCE_MAX = 0.25
TARGET_RETRY_MAX = 0.5
TARGET_CREATE_MAX = 0.25


def _payment(number: str = "4242424242424242", **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "amount": 1500,
        "currency": "USD",
        "confirm": True,
        "payment_method": "card",
        "payment_method_data": {"card": {"card_number": number, **CARD}},
        "billing": {"address": {"country": "US", "city": "Austin"}},
    }
    body.update(fields)
    return body


def _spawn(args: list[str], pattern: str, stream: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "payscope", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE if stream == "stdout" else subprocess.DEVNULL,
        stderr=subprocess.PIPE if stream == "stderr" else subprocess.DEVNULL,
        text=True,
    )
    pipe = proc.stdout if stream == "stdout" else proc.stderr
    assert pipe is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = pipe.readline()
        found = re.search(pattern, line)
        if found:
            return proc, found.group(1)
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise SystemExit(f"payscope {args[0]} did not start")


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


def _iso_ts(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


# -- 1. keeping pace ---------------------------------------------------------------------------


async def _client(
    http: httpx.AsyncClient,
    rng: random.Random,
    until: float,
    counts: dict[str, int],
    took: list[float],
) -> None:
    async def post(path: str, body: Any) -> dict[str, Any]:
        started = time.perf_counter()
        answer = await http.post(path, json=body)
        took.append(time.perf_counter() - started)
        counts["requests"] += 1
        if answer.status_code != 200:
            counts["errors"] += 1
            return {}
        made: dict[str, Any] = answer.json()
        return made

    while time.monotonic() < until:
        pick = rng.random()
        if pick < 0.35:
            await post("/payments", _payment())
        elif pick < 0.50:
            await post("/payments", _payment("4000000000000002"))
        elif pick < 0.62:
            made = await post("/payments", _payment(capture_method="manual"))
            if made:
                await post(f"/payments/{made['payment_id']}/capture", {})
        elif pick < 0.72:
            made = await post("/payments", _payment(capture_method="manual_multiple"))
            if made:
                for amount in (500, 500, None):
                    body = {} if amount is None else {"amount_to_capture": amount}
                    await post(f"/payments/{made['payment_id']}/capture", body)
        elif pick < 0.82:
            made = await post("/payments", _payment())
            if made:
                await post("/refunds", {"payment_id": made["payment_id"], "amount": 100})
        else:
            answer = await http.post("/payments/list", json={"limit": 10})
            counts["requests"] += 1
            for row in answer.json().get("data", [])[:1]:
                await http.get(f"/payments/{row['payment_id']}")
                counts["requests"] += 1


def _backlog(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM events WHERE delivered = 0").fetchone()[0])


async def pace(url: str, db: Path, journal: Path, seconds: float, clients: int) -> dict[str, Any]:
    counts = {"requests": 0, "errors": 0}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(
        base_url=url, headers={"api-key": API_KEY}, timeout=60, limits=limits
    ) as http:
        # Warm-up: imports, SQLite pages, connections on both sides.
        warm_until = time.monotonic() + 2
        await asyncio.gather(
            *(_client(http, random.Random(100 + i), warm_until, counts, []) for i in range(clients))
        )
        while _backlog(db):
            await asyncio.sleep(0.1)
        counts = {"requests": 0, "errors": 0}
        took: list[float] = []
        started = time.time()
        until = time.monotonic() + seconds
        await asyncio.gather(
            *(_client(http, random.Random(i), until, counts, took) for i in range(clients))
        )
        ended = time.time()
        backlog = _backlog(db)
        drained_in = 0.0
        while _backlog(db):
            await asyncio.sleep(0.05)
            drained_in = time.time() - ended
            if drained_in > 120:
                break
    await asyncio.sleep(1.0)  # the listener's journal writer catches up
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        created = [
            (str(e), _iso_ts(str(c)))
            for e, c in conn.execute("SELECT event_id, created FROM events")
            if started <= _iso_ts(str(c)) < ended
        ]
    with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as conn:
        first = dict(
            conn.execute(
                "SELECT event_id, MIN(received_at) FROM deliveries WHERE verified = 1 "
                "GROUP BY event_id"
            ).fetchall()
        )
    lags = []
    delivered_in_window = 0
    for event_id, at in created:
        got = first.get(event_id)
        if got is not None and got < ended:
            delivered_in_window += 1
        # never delivered (a miss in itself): its wait until the drain gave up
        lags.append(max(0.0, got - at) if got is not None else ended + drained_in - at)
    span = ended - started
    return {
        "seconds": span,
        "requests": counts["requests"],
        "errors": counts["errors"],
        "created": len(created),
        "created_per_s": len(created) / span,
        "delivered_per_s": delivered_in_window / span,
        "lag_p50": statistics.median(lags) if lags else float("nan"),
        "lag_p99": _pct(lags, 0.99),
        "lag_max": max(lags) if lags else float("nan"),
        "api_p50": statistics.median(took) if took else float("nan"),
        "api_p99": _pct(took, 0.99),
        "backlog": backlog,
        "drained_in": drained_in,
        "all_delivered": all(e in first for e, _ in created),
    }


# -- 2. an endpoint that never answers ---------------------------------------------------------


async def _timed(request: Awaitable[httpx.Response]) -> float:
    started = time.perf_counter()
    try:
        answer = await request
    except httpx.TimeoutException:  # counted as what it took: the client gave up
        return time.perf_counter() - started
    took = time.perf_counter() - started
    if answer.status_code != 200:
        raise SystemExit(f"unexpected answer {answer.status_code}: {answer.text[:200]}")
    return took


async def silent(url: str, db: Path, calls: int) -> dict[str, Any]:
    writers: list[asyncio.StreamWriter] = []

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            while await reader.read(65536):
                pass

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    silent_url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/webhooks"
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    refused_url = f"http://127.0.0.1:{probe.getsockname()[1]}/webhooks"
    probe.close()  # nothing listens there: connections are refused at once
    result: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=url, headers={"api-key": API_KEY}, timeout=120) as http:
        merchant = _merchant(db)
        await http.post("/_sandbox/webhook", json={"url": refused_url})
        for _ in range(10):
            await http.post("/payments", json=_payment())
        await asyncio.sleep(1.0)  # their first attempts fail; retries due in a minute
        await http.post("/_sandbox/webhook", json={"url": silent_url})
        listed = (await http.post(f"/events/{merchant}", json={"limit": 30})).json()
        event_ids = [e["event_id"] for e in listed["events"]]
        advance = [
            await _timed(http.post("/_sandbox/clock/advance", json={"seconds": 61}))
            for _ in range(calls)
        ]
        retry = []
        for i in range(calls):
            path = f"/events/{merchant}/{event_ids[i % len(event_ids)]}/retry"
            retry.append(await _timed(http.post(path)))
        create = [await _timed(http.post("/payments", json=_payment())) for _ in range(calls)]
        result = {
            "advance": advance,
            "retry": retry,
            "create": create,
            "connections": len(writers),
        }
        await http.post("/_sandbox/webhook", json={"url": None})
    server.close()
    for writer in writers:
        writer.close()
    await asyncio.sleep(0.2)  # the handlers see their connections closed
    return result


def _merchant(db: Path) -> str:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        row = conn.execute("SELECT merchant_id FROM events LIMIT 1").fetchone()
    return str(row[0])


def _print_pace(kept: dict[str, Any], clients: int) -> None:
    print(
        f"mixed load: {clients} clients for {kept['seconds']:.1f} s, {kept['requests']} "
        f"requests ({kept['requests'] / kept['seconds']:.0f}/s, {kept['errors']} errors); "
        f"their answers p50 {kept['api_p50'] * 1000:.0f} ms, p99 {kept['api_p99'] * 1000:.0f} ms"
    )
    print(
        f"  events created {kept['created_per_s']:7.1f}/s ({kept['created']})   "
        f"first deliveries {kept['delivered_per_s']:7.1f}/s   "
        f"ratio {kept['delivered_per_s'] / kept['created_per_s']:.3f}"
    )
    print(
        f"  first-attempt lag p50 {kept['lag_p50'] * 1000:.1f} ms   p99 "
        f"{kept['lag_p99'] * 1000:.1f} ms   max {kept['lag_max'] * 1000:.1f} ms"
    )
    print(
        f"  backlog when the load ended: {kept['backlog']} events, drained in "
        f"{kept['drained_in']:.2f} s; every event delivered: {kept['all_delivered']}",
        flush=True,
    )


# -- main --------------------------------------------------------------------------------------


async def _bench(seconds: float, clients: int, calls: int) -> int:
    with tempfile.TemporaryDirectory(prefix="payscope-bench-delivery-") as tmp:
        listener, listener_url = _spawn(
            ["listen", "--port", "0", "--secret", SECRET, "--format", "json",
             "--data", str(Path(tmp) / "listener")],
            r"listener on (http://\S+)", "stderr",
        )  # fmt: skip
        assert listener.stderr is not None
        journal = Path(listener.stderr.readline().split("journal", 1)[1].strip())
        data = Path(tmp) / "sandbox"
        sandbox, url = _spawn(
            ["sandbox", "--port", "0", "--data", str(data), "--api-key", API_KEY,
             "--rate-limit", "0", "--webhook-url", listener_url, "--webhook-secret", SECRET],
            r"listening on (http://\S+)", "stdout",
        )  # fmt: skip
        db = data / "sandbox.sqlite3"
        try:
            kept = await pace(url, db, journal, seconds, clients)
            _print_pace(kept, clients)
            hung = await silent(url, db, calls)
        finally:
            _stop(sandbox)
            _stop(listener)

    ms = {k: [v * 1000 for v in hung[k]] for k in ("advance", "retry", "create")}
    print(f"silent endpoint ({hung['connections']} connections accepted by it):")
    for key, label in (
        ("advance", "POST /_sandbox/clock/advance (retries due)"),
        ("retry", "POST /events/{merchant}/{event}/retry"),
        ("create", "POST /payments"),
    ):
        print(f"  {label:44} p50 {statistics.median(ms[key]):7.1f} ms   max {max(ms[key]):7.1f} ms")

    pace_ratio = kept["delivered_per_s"] / kept["created_per_s"]
    checks = [
        (f"delivered/s >= {TARGET_PACE} x created/s", pace_ratio >= TARGET_PACE),
        (f"first-attempt lag p99 < {TARGET_LAG_P99:g} s", kept["lag_p99"] < TARGET_LAG_P99),
        ("every event delivered", bool(kept["all_delivered"])),
        (
            f"clock advance max < {TARGET_ADVANCE_MAX * 1000:.0f} ms (silent endpoint)",
            max(hung["advance"]) < TARGET_ADVANCE_MAX,
        ),
        (
            f"retry route max < {TARGET_RETRY_MAX * 1000:.0f} ms (silent endpoint)",
            max(hung["retry"]) < TARGET_RETRY_MAX,
        ),
        (
            f"POST /payments max < {TARGET_CREATE_MAX * 1000:.0f} ms (silent endpoint)",
            max(hung["create"]) < TARGET_CREATE_MAX,
        ),
    ]
    for label, ok in checks:
        print(f"  {'✓' if ok else '✗'} {label}")
    record(
        "delivery",
        [
            Figure("events created", kept["created_per_s"], "events/s"),
            Figure("first deliveries / events created", pace_ratio, "x", ">=", TARGET_PACE),
            Figure("first-attempt lag p50", kept["lag_p50"] * 1000, "ms"),
            Figure(
                "first-attempt lag p99", kept["lag_p99"] * 1000, "ms", "<", TARGET_LAG_P99 * 1000
            ),
            Figure("backlog when the load ended", kept["backlog"], "events"),
            Figure("events never delivered", 0 if kept["all_delivered"] else 1, "", "==", 0),
            Figure(
                "clock advance max (silent endpoint)",
                max(ms["advance"]),
                "ms",
                "<",
                TARGET_ADVANCE_MAX * 1000,
            ),
            Figure(
                "retry route max (silent endpoint)",
                max(ms["retry"]),
                "ms",
                "<",
                TARGET_RETRY_MAX * 1000,
                note="it waits 0.25 s for the endpoint's answer by design",
            ),
            Figure(
                "POST /payments max (silent endpoint)",
                max(ms["create"]),
                "ms",
                "<",
                TARGET_CREATE_MAX * 1000,
            ),
        ],
        what=f"`payscope sandbox` delivering to `payscope listen`, {clients} clients of mixed "
        f"load for {seconds:g} s; then an endpoint that never answers",
    )
    return 0 if all(ok for _, ok in checks) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=25.0, help="length of the mixed load")
    parser.add_argument("--clients", type=int, default=32, help="concurrent clients")
    parser.add_argument(
        "--silent-calls", type=int, default=20, help="calls of each route, silent endpoint"
    )
    args = parser.parse_args()
    return asyncio.run(_bench(args.seconds, args.clients, args.silent_calls))


if __name__ == "__main__":
    sys.exit(main())
