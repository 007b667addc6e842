"""Forwarding to the merchant's own server, route tables, and replay from the journal."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest

from payscope.webhooks.listener import Listener, NoForwardTarget
from tests.webhooks.conftest import (
    SECRET,
    SIGNATURE_HEADER,
    Receiver,
    event_body,
    hmac_sha512,
    post_signed,
)


async def test_an_accepted_event_is_forwarded_byte_for_byte_and_recorded(
    tmp_path: Path, receiver: Receiver, client: httpx.AsyncClient
) -> None:
    receiver.reply = b"r" * 10_000
    listener = Listener(tmp_path / "l", [SECRET], forward_to=receiver.url)
    url = await listener.start(port=0)
    try:
        body = event_body("evt_fwd")
        assert (await post_signed(client, url, body)).status_code == 200
        await listener.forwarder.drain(5)

        [sent] = receiver.requests
        assert sent.body == body
        assert sent.headers[SIGNATURE_HEADER.lower()] == hmac_sha512(body, SECRET)
        detail = listener.journal.get("evt_fwd")
        assert detail is not None
        [forward] = detail.forwards
        assert forward.url == receiver.url
        assert forward.status == 202
        assert forward.latency_ms is not None and forward.latency_ms >= 0
        assert forward.body == "r" * 10_000  # kept whole up to 64 KiB
        assert forward.headers is not None  # its answer's headers (tests/tools: their values)
        assert forward.error is None
    finally:
        await listener.stop()


async def test_duplicates_and_rejected_attempts_are_not_forwarded(
    tmp_path: Path, receiver: Receiver, client: httpx.AsyncClient
) -> None:
    listener = Listener(tmp_path / "l", [SECRET], forward_to=receiver.url)
    url = await listener.start(port=0)
    try:
        body = event_body("evt_once")
        for _ in range(3):
            await post_signed(client, url, body)
        await post_signed(client, url, event_body("evt_forged"), secret="wrong")
        await listener.forwarder.drain(5)
        assert [r.body for r in receiver.requests] == [body]
    finally:
        await listener.stop()


async def test_routes_pick_the_target_by_event_type(
    tmp_path: Path, receiver: Receiver, client: httpx.AsyncClient
) -> None:
    refunds = Receiver()
    from payscope.core.asgi_server import EmbeddedServer

    refunds_server = EmbeddedServer(refunds, "127.0.0.1", 0)
    refunds.url = await refunds_server.start() + "/refunds"
    listener = Listener(
        tmp_path / "l", [SECRET], forward_to=receiver.url, routes={"refund_*": refunds.url}
    )
    url = await listener.start(port=0)
    try:
        payment = event_body("evt_pay")
        refund = event_body(
            "evt_ref",
            event_type="refund_succeeded",
            object_id="ref_1",
            content_type="refund_details",
            id_field="refund_id",
        )
        await post_signed(client, url, payment)
        await post_signed(client, url, refund)
        await listener.forwarder.drain(5)
        assert [r.body for r in receiver.requests] == [payment]
        assert [r.body for r in refunds.requests] == [refund]
        detail = listener.journal.get("evt_ref")
        assert detail is not None and detail.event.object_id == "ref_1"
    finally:
        await listener.stop()
        await refunds_server.stop()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_an_unreachable_target_is_recorded_and_the_ack_is_unaffected(
    tmp_path: Path, client: httpx.AsyncClient
) -> None:
    target = f"http://127.0.0.1:{_closed_port()}/hooks"
    listener = Listener(tmp_path / "l", [SECRET], forward_to=target)
    url = await listener.start(port=0)
    try:
        assert (await post_signed(client, url, event_body("evt_nowhere"))).status_code == 200
        await listener.forwarder.drain(5)
        detail = listener.journal.get("evt_nowhere")
        assert detail is not None
        [forward] = detail.forwards
        assert forward.status is None
        assert forward.error is not None and "could not reach" in forward.error
    finally:
        await listener.stop()


async def test_replay_resends_a_journaled_event(
    tmp_path: Path, receiver: Receiver, client: httpx.AsyncClient
) -> None:
    listener = Listener(tmp_path / "l", [SECRET])
    url = await listener.start(port=0)
    try:
        body = event_body("evt_replay")
        await post_signed(client, url, body)
        with pytest.raises(NoForwardTarget, match="no forward URL"):
            await listener.replay("evt_replay")
        with pytest.raises(LookupError, match="evt_missing"):
            await listener.replay("evt_missing", receiver.url)

        record = await listener.replay("evt_replay", receiver.url)
        assert record.status == 202
        [sent] = receiver.requests
        assert sent.body == body
        assert sent.headers[SIGNATURE_HEADER.lower()] == hmac_sha512(body, SECRET)
        detail = listener.journal.get("evt_replay")
        assert detail is not None and len(detail.forwards) == 1
    finally:
        await listener.stop()
