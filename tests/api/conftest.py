"""Fixtures for the client tests: a small scripted ASGI service on a real loopback port, and a
fake clock whose sleep records delays instead of waiting."""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from payscope.api.client import ApiClient
from payscope.core.asgi_server import EmbeddedServer

KEY = "snd_Tst7Kq2VbN4xLr9PzW1cY8"
PUBLISHABLE = "pk_snd_Pub3Hj8KmQ2wEr5TyU7i"

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass
class Recorded:
    """One request as the server received it."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass
class Reply:
    """One scripted answer."""

    status: int = 200
    json: Any = None
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def encoded(self) -> tuple[bytes, dict[str, str]]:
        headers = dict(self.headers)
        if self.body is not None:
            return self.body, headers
        headers.setdefault("content-type", "application/json")
        return json.dumps(self.json if self.json is not None else {}).encode(), headers


def envelope(status: int, code: str, message: str, type_: str = "invalid_request") -> Reply:
    """A reply carrying the service's error envelope."""
    return Reply(status, {"error": {"type": type_, "code": code, "message": message}})


Handler = Callable[[Recorded], Reply]


class ScriptedApp:
    """An ASGI app that records every request and answers from per-route scripts.

    `script(method, path, *replies)` queues replies for a route (the last one repeats);
    `route(method, path, handler)` answers with `handler(recorded)`; anything else gets
    `fallback` (200 {} unless given: a stub of a whole service answers its unknown routes).
    """

    def __init__(self, fallback: Reply | None = None) -> None:
        self.fallback = fallback or Reply(200, {})
        self.requests: list[Recorded] = []
        self._scripts: dict[tuple[str, str], deque[Reply]] = defaultdict(deque)
        self._handlers: dict[tuple[str, str], Handler] = {}

    def script(self, method: str, path: str, *replies: Reply) -> None:
        self._scripts[(method, path)].extend(replies)

    def route(self, method: str, path: str, handler: Handler) -> None:
        self._handlers[(method, path)] = handler

    def seen(self, method: str, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.method == method and r.path == path]

    def _answer(self, recorded: Recorded) -> Reply:
        key = (recorded.method, recorded.path)
        if key in self._handlers:
            return self._handlers[key](recorded)
        queue = self._scripts.get(key)
        if queue:
            return queue.popleft() if len(queue) > 1 else queue[0]
        return self.fallback

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        recorded = Recorded(
            method=scope["method"],
            path=scope["path"],
            query=scope["query_string"].decode(),
            headers={k.decode().lower(): v.decode() for k, v in scope["headers"]},
            body=body,
        )
        self.requests.append(recorded)
        reply = self._answer(recorded)
        payload, headers = reply.encoded()
        await send(
            {
                "type": "http.response.start",
                "status": reply.status,
                "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
            }
        )
        await send({"type": "http.response.body", "body": payload})


class FakeTime:
    """Monotonic and wall clocks that only move when the client sleeps."""

    def __init__(self, wall: float = 1_700_000_000.0) -> None:
        self.mono = 1000.0
        self.wall = wall
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.mono

    def time(self) -> float:
        return self.wall

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.mono += seconds
        self.wall += seconds


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
async def app() -> AsyncIterator[tuple[ScriptedApp, str]]:
    """A scripted service listening on a free loopback port: (app, base_url)."""
    scripted = ScriptedApp()
    server = EmbeddedServer(scripted, "127.0.0.1", 0)
    url = await server.start()
    try:
        yield scripted, url
    finally:
        await server.stop()


ClientFactory = Callable[..., ApiClient]


@pytest.fixture
async def make_client(fake_time: FakeTime) -> AsyncIterator[ClientFactory]:
    """Build clients on the fake clock (jitter fixed at 1.0); all are closed afterwards."""
    made: list[ApiClient] = []

    def factory(base_url: str, api_key: str = KEY, **kwargs: Any) -> ApiClient:
        kwargs.setdefault("clock", fake_time.monotonic)
        kwargs.setdefault("sleep", fake_time.sleep)
        kwargs.setdefault("wall_clock", fake_time.time)
        kwargs.setdefault("rng", lambda: 1.0)
        client = ApiClient(base_url, api_key, **kwargs)
        made.append(client)
        return client

    yield factory
    for client in made:
        await client.aclose()
