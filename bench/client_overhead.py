"""What the shared client costs on top of bare httpx.

2,000 small requests against a local server (uvicorn via EmbeddedServer, one trivial JSON
endpoint) through `ApiClient` (headers, retry bookkeeping, redacted journal entry, JSON
decoding) and through a bare `httpx.AsyncClient` (JSON decoding only) on the same transport
(the client's own for a local service, `tui/api/local_transport.py`), in alternating batches of
the same run so both see the same machine load. Prints both rates and the ratio of their times;
exits 1 when the ratio is above the target (1.15). Also printed, not judged: bare httpx on its
own transport (httpcore), which the client used before and remote profiles still use.

    .venv/bin/python bench/client_overhead.py [--requests 2000] [--batch 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from results import Figure, record  # bench/ is on the path when run as a script

from tui.api import ApiClient
from tui.api.local_transport import LocalTransport
from tui.asgi_server import EmbeddedServer

TARGET = 1.15
KEY = "snd_BenchKey0123456789abcdef"
BODY = json.dumps({"status": "ok"}).encode()


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A trivial JSON endpoint (answers every path the same)."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": BODY})


async def _timed(batch: int, one: Callable[[], Awaitable[Any]]) -> float:
    start = time.perf_counter()
    for _ in range(batch):
        await one()
    return time.perf_counter() - start


async def run(total: int, batch: int) -> float:
    server = EmbeddedServer(app, "127.0.0.1", 0)
    url = await server.start()
    client = ApiClient(url, KEY)
    bare = httpx.AsyncClient(base_url=url, headers={"api-key": KEY}, transport=LocalTransport())
    httpcore = httpx.AsyncClient(base_url=url, headers={"api-key": KEY})

    async def through_client() -> Any:
        return await client.request("GET", "/health")

    async def through_httpx() -> Any:
        response = await bare.get("/health")
        response.raise_for_status()
        return response.json()

    async def through_httpcore() -> Any:
        response = await httpcore.get("/health")
        response.raise_for_status()
        return response.json()

    try:
        await _timed(100, through_client)  # warm both: connections, adapters, caches
        await _timed(100, through_httpx)
        await _timed(100, through_httpcore)
        times = {"ApiClient": 0.0, "httpx": 0.0, "httpcore": 0.0}
        pair_ratios: list[float] = []
        rounds = total // batch
        for n in range(rounds):
            # alternate which goes first, so neither always runs on a warmer loop
            order = [
                ("ApiClient", through_client),
                ("httpx", through_httpx),
                ("httpcore", through_httpcore),
            ]
            pair: dict[str, float] = {}
            for name, one in order if n % 2 == 0 else reversed(order):
                pair[name] = await _timed(batch, one)
                times[name] += pair[name]
            pair_ratios.append(pair["ApiClient"] / pair["httpx"])
        done = rounds * batch
    finally:
        await client.aclose()
        await bare.aclose()
        await httpcore.aclose()
        await server.stop()
    labels = {
        "httpcore": "bare httpx, its own transport (httpcore; not judged)",
        "httpx": "bare httpx, the client's transport",
        "ApiClient": "ApiClient",
    }
    for name, label in labels.items():
        print(
            f"{label:>52}: {done} requests in {times[name]:.3f} s = {done / times[name]:,.0f} req/s"
        )
    overall = times["ApiClient"] / times["httpx"]
    # The median of the per-batch ratios is what is judged: a burst of load from another
    # process lands in one batch instead of skewing the totals.
    ratio = statistics.median(pair_ratios)
    print(f"    ratio: {ratio:.3f} median of {len(pair_ratios)} batch pairs, {overall:.3f} overall")
    print(f"           (ApiClient time / bare httpx time, same transport; target <= {TARGET})")
    record(
        "client_overhead",
        [
            Figure("ApiClient / bare httpx (median of batch pairs)", ratio, "x", "<=", TARGET),
            Figure("ApiClient / bare httpx (overall)", overall, "x"),
            *(Figure(f"{label}", done / times[name], "req/s") for name, label in labels.items()),
        ],
        what=f"{done:,} small requests through ApiClient and bare httpx, same transport",
    )
    return ratio


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; 0 when the target is met."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="requests per client")
    parser.add_argument("--batch", type=int, default=50, help="requests per alternating batch")
    args = parser.parse_args(argv)
    ratio = asyncio.run(run(args.requests, args.batch))
    if ratio > TARGET:
        print(
            f"FAILED: the client adds {100 * (ratio - 1):.1f}%"
            f" (target <= {100 * (TARGET - 1):.0f}%)"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
