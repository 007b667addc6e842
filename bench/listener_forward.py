"""Benchmark: the listener's durable forwarding (`--forward-to`).

    python bench/listener_forward.py [--events 5000] [--senders 64]

Three measurements, the merchant's server (the forward target) always in its own process:

1. throughput: N signed events to a listener without forwarding, then to one forwarding to a
   target that answers 200 at once (acknowledgements per second, and how long until every
   forward was delivered);
2. target down, then up (the issue's case: 50 events while the target is down): how many are
   forwarded once it is back, and how long after, on the default retry schedule;
3. `kill -9` with a slow target (the issue's case: 100 events, a target taking 2 s per
   request): `payscope listen` is killed once all are acknowledged, then started again on the
   same journal with the target fast: how many were owed at the kill, how many reach the target.

Exits non-zero when a forward is lost (2 or 3 not all delivered) or the journal misses an event.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import listener as listener_bench  # noqa: E402 - bench/listener.py, beside this file
from results import Figure, record  # noqa: E402

SECRET = listener_bench.SECRET


# -- the target process ------------------------------------------------------------------------


async def _serve_target(port: int) -> None:
    """A merchant server: 200 after `delay` seconds; GET /stats counts what it was sent."""
    from payscope.core.asgi_server import EmbeddedServer

    seen: set[str] = set()
    state = {"delay": 0.0, "received": 0}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        answer = b"{}"
        if scope["path"] == "/stats":
            answer = json.dumps({"received": state["received"], "distinct": len(seen)}).encode()
        elif scope["path"] == "/delay":
            state["delay"] = float(json.loads(body)["seconds"])
        else:
            state["received"] += 1
            seen.add(json.loads(body)["event_id"])
            if state["delay"]:
                await asyncio.sleep(state["delay"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": answer})

    server = EmbeddedServer(app, "127.0.0.1", port)
    await server.start()
    print("ready", flush=True)
    await asyncio.Event().wait()


class Target:
    """The target process: started, stopped (to be down) and started again on one port."""

    def __init__(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}/hooks"
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--target", str(self.port)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            raise SystemExit("the target process did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None

    def call(self, path: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        import httpx

        url = f"http://127.0.0.1:{self.port}{path}"
        response = httpx.post(url, json=payload or {}, timeout=10)
        result: dict[str, Any] = response.json()
        return result


def _signed(event_id: str) -> tuple[bytes, dict[str, str]]:
    body = json.dumps(
        {
            "merchant_id": "merchant_bench",
            "event_id": event_id,
            "event_type": "payment_succeeded",
            "content": {"type": "payment_details", "object": {"payment_id": "pay_" + event_id}},
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
        }
    ).encode()
    signature = hmac.new(SECRET.encode(), body, hashlib.sha512).hexdigest()
    return body, {"Content-Type": "application/json", "X-Webhook-Signature-512": signature}


async def _post_all(url: str, ids: list[str], concurrency: int = 20) -> int:
    import httpx

    acked = 0
    async with httpx.AsyncClient(timeout=10) as client:

        async def one(event_id: str) -> None:
            nonlocal acked
            body, headers = _signed(event_id)
            if (await client.post(url, content=body, headers=headers)).status_code == 200:
                acked += 1

        for start in range(0, len(ids), concurrency):
            await asyncio.gather(*(one(e) for e in ids[start : start + concurrency]))
    return acked


async def _until(predicate: Any, timeout: float) -> float | None:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        if predicate():
            return time.perf_counter() - started
        await asyncio.sleep(0.02)
    return None


async def _until_reached(target: Target, count: int, timeout: float) -> float | None:
    """Seconds until the target has seen `count` distinct events (None: not within timeout)."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        stats = await asyncio.to_thread(target.call, "/stats")
        if stats["distinct"] >= count:
            return time.perf_counter() - started
        await asyncio.sleep(0.05)
    return None


# -- 1: throughput -----------------------------------------------------------------------------


async def _throughput(events: int, senders: int, target: Target) -> tuple[str, bool, list[Figure]]:
    from payscope.webhooks.listener import Listener

    results = {}
    ok = True
    with tempfile.TemporaryDirectory(prefix="payscope-bench-") as tmp:
        for name, forward_to in (("no forwarding", None), ("forwarding", target.url)):
            listener = Listener(Path(tmp) / name, [SECRET], forward_to=forward_to)
            url = await listener.start(port=0)
            try:
                await listener_bench._run_senders(url, 300, senders, "warm")
                result = await listener_bench._run_senders(url, events, senders, "run")
                stored = listener.journal.count()
                done = None
                if forward_to is not None:
                    done = await _until_reached(target, stored, timeout=120)
            finally:
                await listener.stop()
            ok = ok and stored == events + 300
            results[name] = (result, done, stored)
    lines = []
    for name, (result, done, stored) in results.items():
        line = f"{name:>14}: {result['eps']:8.0f} events/s   p99 {result['p99_ms']:6.2f} ms"
        if name == "forwarding":
            line += (
                f"   all {stored} events at the target {done:.1f} s after the last ack"
                if done is not None
                else "   NOT all forwarded"
            )
            ok = ok and done is not None
        lines.append(line)
    plain, forwarding = results["no forwarding"][0], results["forwarding"][0]
    done = results["forwarding"][1]
    figures = [
        Figure("acks while forwarding every event", forwarding["eps"], "events/s"),
        Figure("acks without forwarding", plain["eps"], "events/s"),
        Figure("all forwarded, after the last ack", done if done is not None else -1, "s"),
        Figure("throughput run: events lost", 0 if ok else 1, "", "==", 0),
    ]
    return "\n".join(lines), ok, figures


# -- 2: target down, then up -------------------------------------------------------------------


async def _down_then_up(target: Target, down_for: float) -> tuple[str, bool, list[Figure]]:
    from payscope.webhooks.listener import Listener

    with tempfile.TemporaryDirectory(prefix="payscope-bench-") as tmp:
        listener = Listener(Path(tmp), [SECRET], forward_to=target.url)
        url = await listener.start(port=0)
        try:
            ids = [f"evt_down_{i:02d}" for i in range(50)]
            acked = await _post_all(url, ids)
            await asyncio.sleep(down_for)
            owed = listener.journal.forward_counts()["pending"]
            target.start()
            back = time.perf_counter()
            took = await _until(
                lambda: listener.journal.forward_counts()["delivered"] == len(ids), timeout=60
            )
            delivered = listener.journal.forward_counts()["delivered"]
            attempts = sum(len(d.forwards) for e in ids if (d := listener.journal.get(e)))
        finally:
            await listener.stop()
            target.stop()
    waited = time.perf_counter() - back
    after = f"{took:.1f} s" if took is not None else f"not within {waited:.0f} s"
    text = (
        f"acked {acked}/50 while the target was down ({down_for:g} s), {owed} owed; "
        f"forwarded {delivered}/50, the last {after} after it came back "
        f"({attempts} attempts recorded, default schedule 1 s, 5 s, 30 s, ...)"
    )
    figures = [
        Figure("target down then up: forwarded of 50", delivered, "", "==", len(ids)),
        Figure("the last forwarded, after the target came back", took if took else -1, "s"),
    ]
    return text, delivered == len(ids), figures


# -- 3: kill -9 with a slow target -------------------------------------------------------------


def _listen(data: str, target: Target) -> tuple[subprocess.Popen[str], str, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "payscope", "listen", "--port", "0", "--data", data, "--secret",
         SECRET, "--format", "json", "--forward-to", target.url],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert proc.stderr is not None
    header = ""
    while "Ctrl+C stops." not in header:
        line = proc.stderr.readline()
        if not line:
            raise SystemExit(f"payscope listen did not start: {header}")
        header += line
    found = re.search(r"(http://\S+/webhooks)", header)
    assert found is not None
    return proc, found.group(1), header


def _kill_9(target: Target) -> tuple[str, bool, list[Figure]]:
    target.start()
    target.call("/delay", {"seconds": 2.0})
    with tempfile.TemporaryDirectory(prefix="payscope-bench-") as data:
        proc, url, _ = _listen(data, target)
        ids = [f"evt_k9_{i:03d}" for i in range(100)]
        acked = asyncio.run(_post_all(url, ids))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        with sqlite3.connect(Path(data) / "journal.sqlite3") as db:
            stored = db.execute("SELECT count(*) FROM events").fetchone()[0]
            owed = db.execute(
                "SELECT count(*) FROM forward_queue WHERE state = 'pending'"
            ).fetchone()[0]
        reached_before = target.call("/stats")["distinct"]
        target.call("/delay", {"seconds": 0})
        proc, _url, _header = _listen(data, target)
        started = time.perf_counter()
        took = None
        while time.perf_counter() - started < 60:
            if target.call("/stats")["distinct"] == len(ids):
                took = time.perf_counter() - started
                break
            time.sleep(0.05)
        reached = target.call("/stats")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    target.stop()
    summary = err.strip().splitlines()[-1] if err.strip() else ""
    text = (
        f"acked {acked}/100, journaled {stored}; at the kill {reached_before} had reached the "
        f"target and {owed} forwards were owed (on record). After the restart: "
        f"{reached['distinct']}/100 distinct events reached the target"
        + (f" ({took:.1f} s after start)" if took is not None else "")
        + f", {reached['received']} requests in all (at least once)\n"
        f"    listener on stop: {summary}"
    )
    figures = [
        Figure("kill -9: forwards owed on record at the kill", owed, ""),
        Figure(
            "kill -9: events at the target after the restart, of 100",
            reached["distinct"],
            "",
            "==",
            len(ids),
        ),
        Figure("kill -9: events journaled, of 100 acked", stored, "", "==", len(ids)),
    ]
    return text, reached["distinct"] == len(ids) and stored == len(ids), figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=5000, help="events for 1 (5000)")
    parser.add_argument("--senders", type=int, default=64, help="connections for 1 (64)")
    parser.add_argument("--only-throughput", action="store_true", help="measurement 1 only")
    parser.add_argument("--target", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.target:
        asyncio.run(_serve_target(args.target))
        return 0
    target = Target()
    target.start()
    try:
        text1, ok1, figures = asyncio.run(_throughput(args.events, args.senders, target))
    finally:
        target.stop()
    print(f"1. throughput, {args.events} events, {args.senders} senders:\n{text1}")
    what = f"durable forwarding: {args.events:,} events with and without --forward-to"
    if args.only_throughput:
        record("listener_forward", figures, what=what + " (throughput only)")
        return 0 if ok1 else 1
    text2, ok2, more = asyncio.run(_down_then_up(target, down_for=2.0))
    figures += more
    print(f"2. target down, then up: {text2}")
    text3, ok3, more = _kill_9(target)
    figures += more
    print(f"3. kill -9 with a slow target (2 s a request), restart: {text3}")
    failures = [name for name, ok in (("1", ok1), ("2", ok2), ("3", ok3)) if not ok]
    for name in failures:
        print(f"MISSED: measurement {name} lost a forward or an event")
    record(
        "listener_forward",
        figures,
        what=what + "; 50 events while the target is down, then up; `payscope listen` "
        "killed with 100 forwards owed to a slow target, then restarted",
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
