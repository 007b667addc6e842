"""Benchmark of the local sandbox, over loopback, all in one run.

1. Throughput: 16 concurrent keep-alive clients send `GET /health` (a trivial JSON endpoint
   on the same server stack: uvicorn + the sandbox app, auth and rate-limit middleware
   included) and one-step create+confirm payments (`POST /payments` with `confirm: true` and
   a test card), in alternated rounds after a warm-up of both. Target: create+confirm req/s
   >= 0.5 x health req/s. The server's CPU per request is printed too (Linux): it does not
   move with the machine's load the way requests per second do.
2. Seeding: 100,000 demo payments into a fresh data dir. Target: >= 5,000 payments/s.
3. Lists: `POST /payments/list` against those 100,000 payments with a mix of filters.
   Target: p99 < 25 ms.

The server runs in a subprocess (`payscope sandbox --port 0`), so client and server do not
share a core; the client is a minimal HTTP/1.1 client on asyncio streams, so its own cost
stays small next to the server's. Prints the figures; exits 1 when a target is missed.

    .venv/bin/python bench/sandbox.py [--seconds 4] [--throughput-rounds 4] [--payments 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results import Figure, record  # bench/ is on the path when run as a script

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

API_KEY = "snd_bench_key_0123456789"
CONCURRENCY = 16
CARD = {
    "card_number": "4242424242424242",
    "card_exp_month": "12",
    "card_exp_year": "2035",
    "card_cvc": "123",
}


def start_server(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """`payscope sandbox` on a free port; returns the process and its base URL."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "payscope",
            "sandbox",
            "--port",
            "0",
            "--data",
            str(data_dir),
            "--api-key",
            API_KEY,
            "--rate-limit",
            "0",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        match = re.search(r"listening on (http://\S+)", line)
        if match:
            return proc, match.group(1)
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise SystemExit("the sandbox did not start")


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


class Conn:
    """One keep-alive HTTP/1.1 connection."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        assert self.reader is not None and self.writer is not None
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\napi-key: {API_KEY}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(body or b'')}\r\n\r\n"
        ).encode()
        self.writer.write(head + (body or b""))
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        data = await self.reader.readexactly(length)
        return status, data

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def _host_port(base_url: str) -> tuple[str, int]:
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


async def throughput(base_url: str, seconds: float, make: object) -> tuple[int, float, int]:
    """CONCURRENCY clients for `seconds`; (requests done, elapsed seconds, errors)."""
    host, port = _host_port(base_url)
    conns = [Conn(host, port) for _ in range(CONCURRENCY)]
    await asyncio.gather(*(c.open() for c in conns))
    done = 0
    errors = 0
    stop_at = time.perf_counter() + seconds

    async def worker(conn: Conn, index: int) -> None:
        nonlocal done, errors
        n = 0
        while time.perf_counter() < stop_at:
            method, path, body = make(index, n)  # type: ignore[operator]
            status, _ = await conn.request(method, path, body)
            n += 1
            done += 1
            if status != 200:
                errors += 1

    started = time.perf_counter()
    await asyncio.gather(*(worker(c, i) for i, c in enumerate(conns)))
    elapsed = time.perf_counter() - started
    for c in conns:
        c.close()
    return done, elapsed, errors


def server_cpu_seconds(pid: int) -> float | None:
    """User + system CPU the server process has used (Linux), for a load-independent figure."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def compare(url: str, pid: int, seconds: float, rounds: int) -> dict[str, tuple[float, int, float]]:
    """Alternate health and create rounds (the machine's load drifts); per target the overall
    (req/s, errors, server CPU µs per request)."""
    targets = {"health": health_request, "create": payment_request}
    totals = {name: [0, 0.0, 0, 0.0] for name in targets}
    for _ in range(rounds):
        for name, make in targets.items():
            cpu_before = server_cpu_seconds(pid)
            done, elapsed, errors = asyncio.run(throughput(url, seconds / rounds, make))
            cpu_after = server_cpu_seconds(pid)
            total = totals[name]
            total[0] += done
            total[1] += elapsed
            total[2] += errors
            if cpu_before is not None and cpu_after is not None:
                total[3] += cpu_after - cpu_before
    return {
        name: (done / elapsed, int(errors), cpu / done * 1e6 if done else 0.0)
        for name, (done, elapsed, errors, cpu) in totals.items()
    }


def health_request(index: int, n: int) -> tuple[str, str, bytes | None]:
    return "GET", "/health", None


def payment_request(index: int, n: int) -> tuple[str, str, bytes | None]:
    body = {
        "amount": 1000 + n,
        "currency": "USD",
        "confirm": True,
        "payment_method": "card",
        "payment_method_data": {"card": CARD},
        "billing": {"address": {"country": "US", "city": "Berlin"}},
        "description": f"bench {index}-{n}",
    }
    return "POST", "/payments", json.dumps(body).encode()


LIST_BODIES = [
    {},
    {"limit": 100},
    {"status": "succeeded"},
    {"currency": "EUR", "limit": 50},
    {"status": ["failed", "requires_capture"], "limit": 20},
    {"offset": 5000, "limit": 10},
    {"created_gte": "2000-01-01T00:00:00Z", "limit": 25},
    {"amount_filter": {"start_amount": 1000, "end_amount": 5000}},
]


async def list_latency(base_url: str, rounds: int) -> list[float]:
    host, port = _host_port(base_url)
    conn = Conn(host, port)
    await conn.open()
    timings: list[float] = []
    for i in range(rounds):
        body = json.dumps(LIST_BODIES[i % len(LIST_BODIES)]).encode()
        started = time.perf_counter()
        status, data = await conn.request("POST", "/payments/list", body)
        timings.append((time.perf_counter() - started) * 1000)
        if status != 200:
            raise SystemExit(f"list failed: {status} {data[:200]!r}")
    conn.close()
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="per target, in all rounds")
    parser.add_argument("--throughput-rounds", type=int, default=4, help="alternated rounds")
    parser.add_argument("--payments", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=800)
    parser.add_argument(
        "--analytics-payments",
        type=int,
        default=1_000_000,
        help="payments stored for the analytics query (0 skips it)",
    )
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        # 1. throughput
        proc, url = start_server(Path(tmp) / "throughput")
        try:
            # Warm both routes (imports, statement cache, SQLite pages) before measuring.
            asyncio.run(throughput(url, 0.5, health_request))
            asyncio.run(throughput(url, 0.5, payment_request))
            figures = compare(url, proc.pid, args.seconds, args.throughput_rounds)
        finally:
            stop_server(proc)
        health_rps, health_err, health_cpu = figures["health"]
        pay_rps, pay_err, pay_cpu = figures["create"]
        ratio = pay_rps / health_rps
        print(
            f"GET /health (trivial)         {health_rps:8.0f} req/s  ({health_err} errors)  "
            f"server CPU {health_cpu:5.0f} us/req"
        )
        print(
            f"POST /payments create+confirm {pay_rps:8.0f} req/s  ({pay_err} errors)  "
            f"server CPU {pay_cpu:5.0f} us/req"
        )
        print(
            f"ratio                         {ratio:8.2f}   (target >= 0.50; "
            f"by server CPU {health_cpu / pay_cpu if pay_cpu else 0.0:.2f})"
        )
        ok &= ratio >= 0.5 and health_err == 0 and pay_err == 0

        # 2. seeding
        from payscope.sandbox.server import Sandbox, SandboxConfig

        data_dir = Path(tmp) / "seeded"
        sandbox = Sandbox(SandboxConfig(data_dir=data_dir, api_key=API_KEY))
        started = time.perf_counter()
        written = sandbox.seed(args.payments)
        seed_seconds = time.perf_counter() - started
        asyncio.run(sandbox.state.aclose())
        rate = written / seed_seconds
        print(f"seeding {written} payments        {rate:8.0f} payments/s  (target >= 5000)")
        ok &= rate >= 5000

        # 3. list latency over the seeded store
        proc, url = start_server(data_dir)
        try:
            asyncio.run(list_latency(url, 50))  # warm-up: page cache, prepared statements
            timings = asyncio.run(list_latency(url, args.rounds))
        finally:
            stop_server(proc)
        timings.sort()
        p50 = statistics.median(timings)
        p99 = timings[int(len(timings) * 0.99) - 1]
        print(
            f"POST /payments/list ({args.payments} stored) p50 {p50:6.2f} ms  "
            f"p99 {p99:6.2f} ms  (target p99 < 25)"
        )
        ok &= p99 < 25.0
    record(
        "sandbox",
        [
            Figure("create+confirm / GET /health, req/s", ratio, "x", ">=", 0.5),
            Figure("POST /payments create+confirm", pay_rps, "req/s"),
            Figure("GET /health", health_rps, "req/s"),
            Figure("server CPU per create+confirm", pay_cpu, "µs"),
            Figure("server CPU per GET /health", health_cpu, "µs"),
            Figure("errors under load", health_err + pay_err, "", "==", 0),
            Figure("seeding", rate, "payments/s", ">=", 5000),
            Figure(f"POST /payments/list with {args.payments:,} stored, p50", p50, "ms"),
            Figure(f"POST /payments/list with {args.payments:,} stored, p99", p99, "ms", "<", 25),
        ],
        what="the local sandbox over HTTP: create+confirm with 16 clients against GET /health, "
        "seeding, and listing a large store (analytics: sandbox_analytics)",
    )

    # 4. analytics over a large store (issue: 90 days, G_ONE_DAY, by currency and status)
    if args.analytics_payments:
        import sandbox_analytics  # a sibling script: bench/ is on sys.path when run directly

        ok &= sandbox_analytics.main(["--payments", str(args.analytics_payments)]) == 0
    print("all targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.exit(main())
