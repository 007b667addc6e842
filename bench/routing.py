"""Per-request cost of the sandbox's routing: plain Starlette routes against FastAPI's own.

The sandbox serves each request-only handler by a plain `starlette.routing.Route`
(`payscope.sandbox.routing.served`), skipping FastAPI's per-request parameter machinery; the
OpenAPI document still comes from the routers' `APIRoute`s. This script measures, in one run,
in alternated rounds, on the same app (same middleware, same database):

- `Route`: the app as built (request-only handlers on plain Starlette routes);
- `APIRoute`: every one of those served by its router's FastAPI `APIRoute` instead (what the
  app would cost without `served`).

Each request goes through the app's ASGI callable in-process (no sockets), so the figure is the
server's own CPU per request: middleware, routing, handler, response. Three requests:
`GET /health` (the first resource's route), `GET /payments/{id}` (a payment's retrieve,
mid-table) and `GET /_sandbox/payout-test-accounts` (late in the table, so most routes are
tried first).

    .venv/bin/python bench/routing.py [--rounds 6] [--requests 3000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from results import Figure, record  # bench/ is on the path when run as a script

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

API_KEY = "snd_bench_key_0123456789"


def _fastapi_routes(sandbox: Any) -> int:
    """Serve every plain route of the app by its router's own `APIRoute` (same place); returns
    how many were replaced."""
    from fastapi.routing import APIRoute

    documented = {
        (r.path, r.name): r
        for resource in sandbox.state.resources
        if resource.router is not None
        for r in resource.router.routes
        if isinstance(r, APIRoute)
    }
    replaced = 0
    routes = sandbox.app.router.routes
    for i, route in enumerate(routes):
        own = documented.get((getattr(route, "path", None), getattr(route, "name", None)))
        if own is not None and route is not own:
            routes[i] = own
            replaced += 1
    return replaced


def _scope(method: str, path: str) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"host", b"127.0.0.1:8080"),
            (b"api-key", API_KEY.encode()),
            (b"accept", b"application/json"),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8080),
        "state": {},
    }


async def _call(app: Any, method: str, path: str) -> int:
    status = 0

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(_scope(method, path), receive, send)
    return status


async def _per_request(app: Any, path: str, n: int) -> float:
    """Microseconds per request over `n` sequential requests (CPU time of this process)."""
    status = await _call(app, "GET", path)
    if status != 200:
        raise SystemExit(f"GET {path} answered {status}")
    started = time.process_time()
    for _ in range(n):
        await _call(app, "GET", path)
    return (time.process_time() - started) / n * 1e6


def _build(data_dir: Path, variant: str) -> tuple[Any, Any, str]:
    from payscope.sandbox.server import Sandbox, SandboxConfig

    # No rate limit: the rounds send far more than a minute's allowance.
    sandbox = Sandbox(SandboxConfig(data_dir=data_dir, api_key=API_KEY, rate_limit=0))
    sandbox.seed(20)
    if variant == "APIRoute":
        _fastapi_routes(sandbox)
    payment = sandbox.state.db.conn.execute("SELECT payment_id FROM payments LIMIT 1").fetchone()
    return sandbox, sandbox.app, str(payment[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=6, help="alternated rounds per variant")
    parser.add_argument("--requests", type=int, default=3000, help="requests per path per round")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        built = {name: _build(Path(tmp) / name, name) for name in ("Route", "APIRoute")}
        payment_id = built["Route"][2]
        paths = {
            "GET /health": "/health",
            "GET /payments/{id}": f"/payments/{payment_id}",
            "GET /_sandbox/payout-test-accounts": "/_sandbox/payout-test-accounts",
        }
        # Each variant's own payment: the two stores are seeded alike but ids are random.
        own: dict[str, Callable[[str], str]] = {
            name: (lambda p, pid=b[2]: p.replace(payment_id, pid)) for name, b in built.items()
        }
        samples: dict[tuple[str, str], list[float]] = {}

        async def run() -> None:
            for name, (_, app, _) in built.items():  # warm-up
                for path in paths.values():
                    await _per_request(app, own[name](path), 200)
            for _ in range(args.rounds):
                for name, (_, app, _) in built.items():
                    for label, path in paths.items():
                        cost = await _per_request(app, own[name](path), args.requests)
                        samples.setdefault((name, label), []).append(cost)

        asyncio.run(run())
        for sandbox, _, _ in built.values():
            asyncio.run(sandbox.state.aclose())
    figures: list[Figure] = []
    print(f"{'request':36} {'Route':>8} {'APIRoute':>9} {'ratio':>6}   (µs/request, median)")
    for label in paths:
        plain = statistics.median(samples[("Route", label)])
        api = statistics.median(samples[("APIRoute", label)])
        print(f"{label:36} {plain:8.1f} {api:9.1f} {api / plain:6.2f}")
        figures += [
            Figure(f"{label}, starlette Route (as served)", plain, "µs"),
            Figure(f"{label}, fastapi APIRoute", api, "µs"),
            # Why `served` exists: FastAPI's machinery costs more than the plain route.
            Figure(f"{label}, APIRoute / Route", api / plain, "x", ">=", 1.0),
        ]
    record(
        "routing",
        figures,
        what="the sandbox's per-request cost in-process: request-only handlers on plain "
        "starlette Routes (as served) against FastAPI's APIRoute for the same handlers",
    )
    print(json.dumps({"rounds": args.rounds, "requests": args.requests}))
    return 0 if all(f.met is not False for f in figures) else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.exit(main())
