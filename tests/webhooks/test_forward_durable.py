"""Durable forwarding: owed from the event's own commit, retried with backoff, resumed after a
restart, every attempt recorded. Real listeners, real targets over loopback HTTP."""

from __future__ import annotations

import asyncio
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from payscope.core.asgi_server import EmbeddedServer
from payscope.webhooks.forward import GIVE_UP_AFTER, RETRY_DELAYS, Forwarder
from payscope.webhooks.journal import Journal
from payscope.webhooks.listener import Listener
from tests.waits import HANG, until
from tests.webhooks.conftest import (
    SECRET,
    SIGNATURE_HEADER,
    Receiver,
    event_body,
    hmac_sha512,
    post_signed,
)

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    """A port nothing listens on now (a target that is down), to be served on later."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _queue_rows(directory: Path) -> dict[str, tuple[str, int]]:
    """event_id -> (state, attempts), read from the journal file itself."""
    with sqlite3.connect(directory / "journal.sqlite3") as db:
        rows = db.execute("SELECT event_id, state, attempts FROM forward_queue").fetchall()
    return {row[0]: (row[1], row[2]) for row in rows}


async def test_events_accepted_while_the_target_is_down_are_all_forwarded_once_it_is_back(
    tmp_path: Path, client: httpx.AsyncClient
) -> None:
    port = _free_port()
    target = f"http://127.0.0.1:{port}/hooks"
    listener = Listener(tmp_path / "l", [SECRET], forward_to=target)
    listener.forwarder.retry_delays = (0.2, 0.4)  # the default schedule, shortened for a test
    url = await listener.start(port=0)
    journal = listener.journal
    bodies = {f"evt_down_{i:02d}": event_body(f"evt_down_{i:02d}") for i in range(50)}
    try:
        for body in bodies.values():
            assert (await post_signed(client, url, body)).status_code == 200

        def all_tried() -> bool:
            states = [journal.forward_state(e) for e in bodies]
            return all(s is not None and s.attempts >= 1 for s in states)

        await until(all_tried)
        assert journal.forward_counts() == {"pending": 50, "delivered": 0, "failed": 0}
        down = journal.forward_state("evt_down_00")
        assert down is not None and down.last_status is None
        assert down.last_error is not None and "could not reach" in down.last_error
        assert down.next_at is not None and down.last_at is not None

        receiver = Receiver()
        server = EmbeddedServer(receiver, "127.0.0.1", port)
        await server.start()
        try:
            await until(lambda: journal.forward_counts()["delivered"] == 50)
        finally:
            await server.stop()
    finally:
        await listener.stop()

    # Each event once, byte for byte with its signature (none is owed any more).
    assert sorted(r.body for r in receiver.requests) == sorted(bodies.values())
    for r in receiver.requests:
        assert r.headers[SIGNATURE_HEADER.lower()] == hmac_sha512(r.body, SECRET)
    reopened = Journal(tmp_path / "l")
    try:
        for event_id in bodies:
            detail = reopened.get(event_id)
            assert detail is not None and detail.forward is not None
            *failed, last = detail.forwards
            # Every attempt is recorded: the refusals with their error, then the 202.
            assert failed and all(f.status is None and f.error for f in failed)
            assert last.status == 202 and last.error is None and last.latency_ms is not None
            assert detail.forward.state == "delivered"
            assert detail.forward.attempts == len(detail.forwards)
            assert detail.forward.last_status == 202
    finally:
        reopened.close()


async def test_an_error_answer_is_retried_until_a_2xx(
    tmp_path: Path, receiver: Receiver, client: httpx.AsyncClient
) -> None:
    receiver.status = 500
    listener = Listener(tmp_path / "l", [SECRET], forward_to=receiver.url)
    listener.forwarder.retry_delays = (0.1,)
    url = await listener.start(port=0)
    try:
        await post_signed(client, url, event_body("evt_500"))
        await until(lambda: len(receiver.requests) >= 2)
        receiver.status = 200
        await until(
            lambda: getattr(listener.journal.forward_state("evt_500"), "state", "") == "delivered",
        )
        detail = listener.journal.get("evt_500")
    finally:
        await listener.stop()
    assert detail is not None
    statuses = [f.status for f in detail.forwards]
    assert statuses[-1] == 200 and set(statuses[:-1]) == {500} and len(statuses) >= 3


async def test_a_forward_failing_past_the_give_up_age_is_marked_failed_and_left_alone(
    tmp_path: Path, client: httpx.AsyncClient
) -> None:
    target = f"http://127.0.0.1:{_free_port()}/hooks"
    listener = Listener(tmp_path / "l", [SECRET], forward_to=target)
    listener.forwarder.retry_delays = (0.1,)
    listener.forwarder.give_up_after = 0.5
    url = await listener.start(port=0)
    try:
        await post_signed(client, url, event_body("evt_never"))
        await until(lambda: listener.journal.forward_counts()["failed"] == 1)
        state = listener.journal.forward_state("evt_never")
        assert state is not None and state.next_at is None and state.attempts >= 2
        tried = state.attempts
        # Given up: no more attempts, however long the listener runs.
        await asyncio.sleep(0.5)
        after = listener.journal.get("evt_never")
        assert after is not None and len(after.forwards) == tried
    finally:
        await listener.stop()


async def test_forwards_left_owed_by_a_stopped_listener_are_sent_by_the_next_start(
    tmp_path: Path, receiver: Receiver, client: httpx.AsyncClient
) -> None:
    data = tmp_path / "l"
    down = f"http://127.0.0.1:{_free_port()}/hooks"
    first = Listener(data, [SECRET], forward_to=down)
    first.forwarder.retry_delays = (0.3,)
    url = await first.start(port=0)
    bodies = [event_body(f"evt_owed_{i}") for i in range(5)]
    try:
        for body in bodies:
            assert (await post_signed(client, url, body)).status_code == 200
        await first.forwarder.drain(5)
    finally:
        await first.stop()
    assert {state for state, _n in _queue_rows(data).values()} == {"pending"}

    # The next run: no new events at all, and the owed five reach the (new) target.
    second = Listener(data, [SECRET], forward_to=receiver.url)
    await second.start(port=0)
    try:
        await until(lambda: len(receiver.requests) == 5)
        await until(lambda: second.journal.forward_counts()["delivered"] == 5)
    finally:
        await second.stop()
    assert second.stats.accepted == 0
    assert sorted(r.body for r in receiver.requests) == sorted(bodies)


async def test_the_forward_is_owed_from_the_same_commit_as_the_event(
    tmp_path: Path, client: httpx.AsyncClient
) -> None:
    """Once the 200 is out, the journal file already holds the owed forward of that event."""
    listener = Listener(
        tmp_path / "l", [SECRET], forward_to=f"http://127.0.0.1:{_free_port()}/hooks"
    )
    listener.forwarder.retry_delays = (60,)
    url = await listener.start(port=0)
    try:
        for i in range(20):
            assert (await post_signed(client, url, event_body(f"evt_c_{i}"))).status_code == 200
            assert f"evt_c_{i}" in _queue_rows(tmp_path / "l")
        # Duplicates and refusals owe nothing.
        await post_signed(client, url, event_body("evt_c_0"))
        await post_signed(client, url, event_body("evt_forged"), secret="wrong")
        assert set(_queue_rows(tmp_path / "l")) == {f"evt_c_{i}" for i in range(20)}
    finally:
        await listener.stop()


async def test_without_forwarding_nothing_is_owed(
    tmp_path: Path, client: httpx.AsyncClient
) -> None:
    listener = Listener(tmp_path / "l", [SECRET])
    url = await listener.start(port=0)
    try:
        await post_signed(client, url, event_body("evt_plain"))
        detail = listener.journal.get("evt_plain")
        assert detail is not None and detail.forward is None
    finally:
        await listener.stop()
    assert _queue_rows(tmp_path / "l") == {}


async def test_a_replay_is_recorded_but_leaves_the_automatic_forward_as_it_was(
    tmp_path: Path, receiver: Receiver, client: httpx.AsyncClient
) -> None:
    listener = Listener(tmp_path / "l", [SECRET], forward_to=receiver.url)
    url = await listener.start(port=0)
    try:
        await post_signed(client, url, event_body("evt_r"))
        await until(lambda: listener.journal.forward_counts()["delivered"] == 1)
        await listener.replay("evt_r", receiver.url)
        detail = listener.journal.get("evt_r")
    finally:
        await listener.stop()
    assert detail is not None and len(detail.forwards) == 2
    assert detail.forward is not None and detail.forward.attempts == 1


def test_the_retry_schedule_is_the_documented_one_and_help_states_it(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    forwarder = Forwarder(journal, "http://127.0.0.1:9/hooks")
    assert [forwarder.delay_after(n) for n in range(1, 10)] == [
        1, 5, 30, 120, 600, 1800, 3600, 3600, 3600,
    ]  # fmt: skip
    assert RETRY_DELAYS[-1] == 3600 and GIVE_UP_AFTER == 24 * 3600
    shown = subprocess.run(
        [sys.executable, "-m", "payscope", "listen", "--help"],
        cwd=ROOT, capture_output=True, text=True, timeout=HANG, check=True,
    ).stdout  # fmt: skip
    text = " ".join(shown.split())
    assert "1 s, 5 s, 30 s, 2 min, 10 min, 30 min, then hourly" in text
    assert "marked failed 24 h after the event arrived" in text


@pytest.mark.parametrize("status", [200, 204, 299])
async def test_any_2xx_counts_as_delivered(
    tmp_path: Path, receiver: Receiver, client: httpx.AsyncClient, status: int
) -> None:
    receiver.status = status
    listener = Listener(tmp_path / "l", [SECRET], forward_to=receiver.url)
    url = await listener.start(port=0)
    try:
        await post_signed(client, url, event_body("evt_2xx"))
        await until(lambda: listener.journal.forward_counts()["delivered"] == 1)
    finally:
        await listener.stop()
    assert len(receiver.requests) == 1
