"""Benchmark: what hostile traffic costs the listener's disk and the sandbox's memory (issue 14).

    .venv/bin/python bench/hardening.py [--posts 1000] [--keys 40000] [--oversized 100]

1. Listener disk: `--posts` unsigned 1 MiB POSTs (8 concurrent keep-alive senders) to a real
   listener; printed: the journal's growth on disk (database + WAL). Target: <= 64 MiB (the
   rejected history is capped at 32 MiB; every unsigned body keeps 4 KiB).
2. Sandbox memory from bad keys: `payscope sandbox` in a subprocess (default rate limit), then
   `--keys` requests each with a different made-up `api-key`; printed: the server's RSS before,
   right after, and after 2 s. Target: growth <= 32 MiB.
3. Sandbox memory under oversized requests: `--oversized` requests, half with a 256 MiB body
   announced (a 1 MiB part of it sent) and half with a 16 MiB header line, 4 at a time; the
   server's RSS is sampled every 10 ms meanwhile. Printed: RSS before and the peak. Target:
   peak <= RSS before + 64 MiB. Every answer must be 413 or 431.
4. Listener under slow clients: `--slow` connections (from a separate process) each sending
   one byte of a request head per second, reconnecting when cut off, while one legitimate
   client POSTs signed events one after another. Printed: that client's p50/p99 before and
   during the attack, and the attacker's cut-off count. Target: p99 during <= 100 ms.

Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from results import Figure, record  # bench/ is on the path when run as a script

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

API_KEY = "snd_bench_hardening_0123456789"
MIB = 1024 * 1024


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def _dir_bytes(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())


# -- 1. the listener's journal ----------------------------------------------------------------


async def listener_disk(posts: int) -> tuple[float, int]:
    import httpx

    from payscope.webhooks.listener import MAX_BODY_BYTES, Listener

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "listener"
        listener = Listener(data, ["bench-secret-" + "k" * 51])
        url = await listener.start(port=0)
        before = _dir_bytes(data)
        body = b'{"event_id":"evt_flood","pad":"' + b"x" * (MAX_BODY_BYTES - 33) + b'"}'
        assert len(body) == MAX_BODY_BYTES
        statuses: dict[int, int] = {}
        queue: asyncio.Queue[int] = asyncio.Queue()
        for i in range(posts):
            queue.put_nowait(i)

        async def sender(client: httpx.AsyncClient) -> None:
            while not queue.empty():
                queue.get_nowait()
                answer = await client.post(
                    url, content=body, headers={"content-type": "application/json"}
                )
                statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1

        started = time.perf_counter()
        async with httpx.AsyncClient(timeout=60) as client:
            await asyncio.gather(*(sender(client) for _ in range(8)))
        elapsed = time.perf_counter() - started
        await listener.stop()
        growth = _dir_bytes(data) - before
        kept = listener.journal.count_deliveries()
        listener.journal.close()
    print(
        f"listener: {posts} unsigned 1 MiB POSTs in {elapsed:.1f} s (answers {statuses}); "
        f"journal grew {growth / MIB:.1f} MiB ({growth / posts / 1024:.1f} KiB per POST), "
        f"{kept} rejected attempts kept"
    )
    return growth / MIB, kept


# -- the sandbox in a subprocess ----------------------------------------------------------------


def start_sandbox(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "payscope", "sandbox", "--port", "0", "--data", str(data_dir),
         "--api-key", API_KEY],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
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


def stop_sandbox(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


async def bad_keys(url: str, pid: int, count: int) -> tuple[float, float, float]:
    import httpx

    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        for _ in range(200):  # warm-up with the real key
            await client.get("/health", headers={"api-key": API_KEY})
        before = _rss_mib(pid)
        statuses: dict[int, int] = {}
        counter = iter(range(count))

        async def worker() -> None:
            for i in counter:
                answer = await client.get("/health", headers={"api-key": f"snd_bad_{i:08d}"})
                statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(16)))
        elapsed = time.perf_counter() - started
    after = _rss_mib(pid)
    await asyncio.sleep(2)
    later = _rss_mib(pid)
    print(
        f"sandbox: {count} distinct bad keys in {elapsed:.1f} s (answers {statuses}); RSS "
        f"{before:.0f} -> {after:.0f} MiB (+{after - before:.1f}), {later:.0f} MiB 2 s later"
    )
    return before, after, later


async def _oversized_one(host: str, port: int, kind: str) -> bytes:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        if kind == "body":
            writer.write(
                b"POST /payments HTTP/1.1\r\nHost: x\r\napi-key: " + API_KEY.encode()
                + b"\r\ncontent-type: application/json\r\ncontent-length: "
                + str(256 * MIB).encode() + b"\r\n\r\n" + b'{"description": "'
                + b"d" * MIB
            )  # fmt: skip
            await writer.drain()
        else:
            writer.write(b"GET /health HTTP/1.1\r\nHost: x\r\nx-big: ")
            chunk = b"h" * 65536
            for _ in range(16 * MIB // len(chunk)):
                writer.write(chunk)
                await writer.drain()
            writer.write(b"\r\n\r\n")
            await writer.drain()
    except ConnectionError:
        pass
    try:
        return await asyncio.wait_for(reader.readline(), 30)
    except ConnectionError:
        return b""
    finally:
        writer.close()


async def oversized(url: str, pid: int, count: int) -> tuple[float, float, dict[str, int]]:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    before = _rss_mib(pid)
    peak = before
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, _rss_mib(pid))
            time.sleep(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    answers: dict[str, int] = {}
    kinds = iter(["body" if i % 2 == 0 else "head" for i in range(count)])

    async def worker() -> None:
        for kind in kinds:
            line = await _oversized_one(host, port, kind)
            status = line.split(b" ")[1].decode() if line.count(b" ") >= 2 else "none"
            answers[f"{kind} {status}"] = answers.get(f"{kind} {status}", 0) + 1

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(4)))
    elapsed = time.perf_counter() - started
    stop.set()
    sampler.join()
    print(
        f"sandbox: {count} oversized requests in {elapsed:.1f} s (answers {answers}); "
        f"RSS {before:.0f} MiB before, peak {peak:.0f} MiB (+{peak - before:.1f})"
    )
    return before, peak, answers


# -- 4. slow clients against the listener ---------------------------------------------------------


async def _slowloris(url: str, count: int, seconds: float) -> None:
    """`count` connections trickling a head, one byte a second, reconnecting when cut off."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    end = time.monotonic() + seconds
    cut = 0

    async def one() -> None:
        nonlocal cut
        while time.monotonic() < end:
            try:
                _reader, writer = await asyncio.open_connection(host, port)
                for byte in b"POST /webhooks HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"s" * 1000:
                    if time.monotonic() >= end:
                        break
                    writer.write(bytes([byte]))
                    await writer.drain()
                    await asyncio.sleep(1)
                writer.close()
            except (ConnectionError, OSError):
                cut += 1
                await asyncio.sleep(0.1)

    await asyncio.gather(*(one() for _ in range(count)))
    print(f"  (attacker: {count} slow connections, cut off {cut} times)", flush=True)


async def _legit(url: str, seconds: float) -> list[float]:
    import hashlib
    import hmac

    import httpx

    latencies: list[float] = []
    end = time.monotonic() + seconds
    i = 0
    async with httpx.AsyncClient(timeout=30) as client:
        while time.monotonic() < end:
            body = b'{"event_id":"evt_legit_%d","event_type":"payment_succeeded"}' % i
            i += 1
            signature = hmac.new(_SLOW_SECRET.encode(), body, hashlib.sha512).hexdigest()
            started = time.perf_counter()
            answer = await client.post(
                url,
                content=body,
                headers={"content-type": "application/json", SIGNATURE: signature},
            )
            latencies.append((time.perf_counter() - started) * 1000)
            assert answer.status_code == 200, answer.text
            await asyncio.sleep(0.01)
    return latencies


_SLOW_SECRET = "bench-secret-" + "s" * 51
SIGNATURE = "X-Webhook-Signature-512"


def _quantiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def slow_clients(count: int, seconds: float) -> float:
    from payscope.webhooks.listener import Listener

    with tempfile.TemporaryDirectory() as tmp:
        listener = Listener(Path(tmp) / "listener", [_SLOW_SECRET])
        url = await listener.start(port=0)
        calm = await _legit(url, 3)
        attacker = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--slowloris", url, "--slow", str(count),
            "--seconds", str(seconds + 4),
        )  # fmt: skip
        await asyncio.sleep(4)  # let the attack build up
        during = await _legit(url, seconds)
        await attacker.wait()
        await listener.stop()
    p50, p99 = _quantiles(calm)
    a50, a99 = _quantiles(during)
    print(
        f"listener: legitimate client p50 {p50:.1f} ms, p99 {p99:.1f} ms alone; during {count} "
        f"slow connections p50 {a50:.1f} ms, p99 {a99:.1f} ms ({len(during)} requests)"
    )
    return a99


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--posts", type=int, default=1000)
    parser.add_argument("--keys", type=int, default=40_000)
    parser.add_argument("--oversized", type=int, default=100)
    parser.add_argument("--slow", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=15.0, help="of the slow-client attack")
    parser.add_argument("--only", choices=["disk", "sandbox", "slow"], help="run one part")
    parser.add_argument("--slowloris", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.slowloris:
        asyncio.run(_slowloris(args.slowloris, args.slow, args.seconds))
        return 0
    missed = []
    figures: list[Figure] = []
    if args.only in (None, "disk"):
        growth, _kept = asyncio.run(listener_disk(args.posts))
        figures.append(
            Figure(
                f"listener journal growth, {args.posts:,} unsigned 1 MiB POSTs",
                growth,
                "MiB",
                "<=",
                64,
            )
        )
        if growth > 64:
            missed.append("listener journal growth > 64 MiB")
    if args.only in (None, "slow"):
        p99 = asyncio.run(slow_clients(args.slow, args.seconds))
        figures.append(
            Figure(
                f"legitimate client p99 during {args.slow:,} slow connections", p99, "ms", "<=", 100
            )
        )
        if p99 > 100:
            missed.append("legitimate p99 during slow clients > 100 ms")
    if args.only in (None, "sandbox"):
        with tempfile.TemporaryDirectory() as tmp:
            proc, url = start_sandbox(Path(tmp) / "sandbox")
            try:
                before, after, _later = asyncio.run(bad_keys(url, proc.pid, args.keys))
                figures.append(
                    Figure(
                        f"sandbox RSS growth after {args.keys:,} bad keys",
                        after - before,
                        "MiB",
                        "<=",
                        32,
                    )
                )
                if after - before > 32:
                    missed.append("RSS growth from bad keys > 32 MiB")
                rss, peak, answers = asyncio.run(oversized(url, proc.pid, args.oversized))
                figures.append(
                    Figure(
                        f"sandbox RSS peak under {args.oversized} oversized requests",
                        peak - rss,
                        "MiB",
                        "<=",
                        64,
                    )
                )
                refused = not (set(answers) - {"body 413", "head 431"})
                figures.append(
                    Figure(
                        "oversized requests not refused with 413/431",
                        0 if refused else 1,
                        "",
                        "==",
                        0,
                    )
                )
                if not refused:
                    missed.append("an oversized request was not refused with 413/431")
            finally:
                stop_sandbox(proc)
    for miss in missed:
        print("MISSED:", miss)
    record(
        "hardening",
        figures,
        what="hostile traffic: unsigned 1 MiB POSTs and slow connections against the listener; "
        "distinct bad api-keys and oversized requests against the sandbox"
        + (f" (only the {args.only} part)" if args.only else ""),
    )
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
