"""Replaying a journaled event: without a forward target, to an explicit URL, to a bad URL.

Real signed deliveries over HTTP to a real listener; a real local server stands in for the
merchant's own one.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from pathlib import Path

import httpx
import pytest

from payscope.core.asgi_server import EmbeddedServer
from payscope.core.forward_urls import ForwardTargetError, InvalidForwardUrl, url_problem
from payscope.webhooks.listener import Listener, NoForwardTarget
from tests.webhooks.conftest import (
    SECRET,
    SIGNATURE_HEADER,
    Receiver,
    event_body,
    hmac_sha512,
    post_signed,
)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_replay_without_any_target_says_so_and_sends_nothing(
    tmp_path: Path, client: httpx.AsyncClient
) -> None:
    listener = Listener(tmp_path / "l", [SECRET])  # no forward_to, no routes
    url = await listener.start(port=0)
    try:
        assert (await post_signed(client, url, event_body("evt_no_target"))).status_code == 200

        with pytest.raises(NoForwardTarget) as caught:
            await listener.replay("evt_no_target")

        error = caught.value
        assert isinstance(error, ForwardTargetError)
        assert error.event_id == "evt_no_target"
        text = str(error)
        # What happened, and what to do about it.
        assert "evt_no_target was not replayed" in text
        assert "no forward URL" in text and "--forward-to" in text
        detail = listener.journal.get("evt_no_target")
        assert detail is not None and detail.forwards == []
    finally:
        await listener.stop()


async def test_replay_to_an_explicit_url_works_without_forward_to_and_is_recorded(
    tmp_path: Path, receiver: Receiver, client: httpx.AsyncClient
) -> None:
    listener = Listener(tmp_path / "l", [SECRET])
    url = await listener.start(port=0)
    try:
        body = event_body("evt_explicit")
        await post_signed(client, url, body)
        before = time.time()

        record = await listener.replay("evt_explicit", receiver.url)

        assert (record.url, record.status, record.error) == (receiver.url, 202, None)
        [sent] = receiver.requests
        assert sent.body == body
        assert sent.headers[SIGNATURE_HEADER.lower()] == hmac_sha512(body, SECRET)
        detail = listener.journal.get("evt_explicit")
        assert detail is not None
        [stored] = detail.forwards
        assert stored == record
        assert stored.body == '{"ok":true}'
        assert stored.latency_ms is not None and stored.latency_ms >= 0
        assert before - 1 <= stored.sent_at <= time.time()
    finally:
        await listener.stop()


async def test_every_replay_is_recorded_whatever_its_outcome(
    tmp_path: Path, receiver: Receiver, client: httpx.AsyncClient
) -> None:
    # A forward target is configured; an explicit URL still wins over it, and the default
    # target is used without one. Refused, answered and unreachable replays all show.
    other = Receiver(status=500, reply=b'{"error":"boom"}')
    other_server = EmbeddedServer(other, "127.0.0.1", 0)
    other.url = await other_server.start() + "/other"
    listener = Listener(tmp_path / "l", [SECRET], forward_to=receiver.url)
    url = await listener.start(port=0)
    try:
        await post_signed(client, url, event_body("evt_many"))
        await listener.forwarder.drain(5)  # the automatic forward
        unreachable = f"http://127.0.0.1:{_closed_port()}/hooks"

        await listener.replay("evt_many")
        await listener.replay("evt_many", other.url)
        await listener.replay("evt_many", unreachable)

        detail = listener.journal.get("evt_many")
        assert detail is not None
        outcomes = [(f.url, f.status, f.error is None) for f in detail.forwards]
        assert outcomes == [
            (receiver.url, 202, True),  # forwarded on arrival
            (receiver.url, 202, True),  # replayed to the forward target
            (other.url, 500, True),  # replayed to an explicit URL, answered 500
            (unreachable, None, False),  # replayed to a closed port
        ]
        assert "could not reach" in (detail.forwards[-1].error or "")
        assert len(receiver.requests) == 2 and len(other.requests) == 1
    finally:
        await listener.stop()
        await other_server.stop()


@pytest.mark.parametrize(
    "target",
    ["ftp://127.0.0.1/hooks", "http:///nohost", "http://[::1/hooks", "127.0.0.1:3000/hooks", ""],
)
async def test_an_unusable_replay_url_is_refused_as_the_cli_refuses_it(
    tmp_path: Path, client: httpx.AsyncClient, target: str
) -> None:
    listener = Listener(tmp_path / "l", [SECRET])
    url = await listener.start(port=0)
    try:
        await post_signed(client, url, event_body("evt_bad_url"))

        with pytest.raises(InvalidForwardUrl) as caught:
            await listener.replay("evt_bad_url", target)

        # The same words `payscope listen --forward-to` uses for the same URL.
        assert str(caught.value) == url_problem(target)
        assert caught.value.url == target
        detail = listener.journal.get("evt_bad_url")
        assert detail is not None and detail.forwards == []
    finally:
        await listener.stop()


class _Hanging(Receiver):
    """A merchant server that takes the request and never answers."""

    async def __call__(self, scope: dict[str, object], receive: object, send: object) -> None:
        if scope["type"] == "lifespan":
            await super().__call__(scope, receive, send)
            return
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.Event().wait()


async def test_a_replay_to_a_url_that_never_answers_is_cut_off_and_recorded(
    tmp_path: Path, client: httpx.AsyncClient
) -> None:
    hanging = _Hanging()
    server = EmbeddedServer(hanging, "127.0.0.1", 0, timeout_graceful_shutdown=0.5)
    target = await server.start() + "/hooks"
    listener = Listener(tmp_path / "l", [SECRET])
    listener.forwarder.timeout = 0.3
    url = await listener.start(port=0)
    try:
        await post_signed(client, url, event_body("evt_slow"))
        started = time.perf_counter()

        record = await listener.replay("evt_slow", target)

        assert time.perf_counter() - started < 5
        assert record.status is None
        assert record.error is not None and "no answer from" in record.error
        detail = listener.journal.get("evt_slow")
        assert detail is not None and [f.error for f in detail.forwards] == [record.error]
    finally:
        await listener.stop()
        await server.stop()
