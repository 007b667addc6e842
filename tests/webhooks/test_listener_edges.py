"""Hostile and broken input over real HTTP: raw sockets where a client library would tidy it up.

Every signature here is computed with `hmac` (tests/webhooks/conftest.py), never by the code
under test.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from payscope.cli.listen_run import format_text
from payscope.core.asgi_server import EmbeddedServer
from payscope.webhooks.deliveries import Delivery
from payscope.webhooks.listener import MAX_BODY_BYTES, Listener
from tests.waits import REQUEST_TIMEOUT, awaited, until
from tests.webhooks.conftest import (
    SECRET,
    SIGNATURE_HEADER,
    Receiver,
    event_body,
    hmac_sha512,
    post_signed,
)

Headers = Sequence[tuple[str, str]]


def _request(path: str, body: bytes, headers: Headers, length: int | None = None) -> bytes:
    size = len(body) if length is None else length
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", *(f"{k}: {v}" for k, v in headers)]
    lines.append(f"Content-Length: {size}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def _signed_headers(body: bytes) -> list[tuple[str, str]]:
    return [("Content-Type", "application/json"), (SIGNATURE_HEADER, hmac_sha512(body, SECRET))]


async def _exchange(url: str, data: bytes, *, hang_up: bool = False) -> bytes:
    """Write `data` on a fresh connection; read everything answered (or hang up at once)."""
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    writer.write(data)
    await writer.drain()
    if hang_up:
        writer.close()
        await writer.wait_closed()
        return b""
    answer = await awaited(reader.read())
    writer.close()
    return answer


def _path(listener: Listener) -> str:
    assert listener.url is not None
    return urlsplit(listener.url).path


def _status_and_body(answer: bytes) -> tuple[int, dict[str, object]]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


# -- bodies that never fully arrive ------------------------------------------------------------


@pytest.mark.parametrize("sent", ["everything", "half"])
async def test_a_sender_that_hangs_up_before_its_body_ends_is_recorded_but_never_processed(
    listener: Listener, sent: str
) -> None:
    assert listener.url is not None
    body = event_body("evt_cut")
    # The announced length is longer than the body: even the whole signed body, followed by a
    # hang-up, is an incomplete request and must not be verified, stored as an event or acked.
    part = body if sent == "everything" else body[: len(body) // 2]
    data = _request(_path(listener), part, [*_signed_headers(body), ("Connection", "close")])
    data = data.replace(f"Content-Length: {len(part)}".encode(), b"Content-Length: 9999")
    seen: list[Delivery] = []
    listener.add_subscriber(seen.append)

    await _exchange(listener.url, data, hang_up=True)
    await until(lambda: listener.journal.count_deliveries() == 1)

    assert listener.journal.count() == 0
    [attempt] = listener.journal.deliveries()
    assert attempt.status == 499 and attempt.body == b"" and not attempt.verified
    assert attempt.reason is not None and "closed the connection" in attempt.reason
    assert "9999" in attempt.reason
    await until(lambda: len(seen) == 1)
    assert (seen[0].status, seen[0].accepted) == (499, False)
    assert (listener.stats.accepted, listener.stats.rejected) == (0, 1)

    # The sender retries properly: processed once, as new.
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as client:
        again = await post_signed(client, listener.url, body)
    assert again.status_code == 200 and again.json()["duplicate"] is False


async def test_pipelined_chunked_and_trickled_requests_are_each_acknowledged(
    listener: Listener,
) -> None:
    assert listener.url is not None
    path = _path(listener)
    first, second = event_body("evt_pipe_1"), event_body("evt_pipe_2")
    pipelined = _request(path, first, _signed_headers(first)) + _request(
        path, second, [*_signed_headers(second), ("Connection", "close")]
    )
    answer = await _exchange(listener.url, pipelined)
    assert answer.count(b"HTTP/1.1 200 OK") == 2

    chunked_body = event_body("evt_chunked")
    head = [
        f"POST {path} HTTP/1.1",
        "Host: 127.0.0.1",
        *(f"{k}: {v}" for k, v in _signed_headers(chunked_body)),
        "Transfer-Encoding: chunked",
        "Connection: close",
    ]
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(piece), piece)
        for piece in (chunked_body[:7], chunked_body[7:50], chunked_body[50:])
    )
    chunked = ("\r\n".join(head) + "\r\n\r\n").encode() + chunks + b"0\r\n\r\n"
    assert (await _exchange(listener.url, chunked)).startswith(b"HTTP/1.1 200")

    # A slow sender: the body arrives in small pieces with pauses between them.
    slow_body = event_body("evt_slow")
    slow = _request(path, slow_body, [*_signed_headers(slow_body), ("Connection", "close")])
    parts = urlsplit(listener.url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    for start in range(0, len(slow), 25):
        writer.write(slow[start : start + 25])
        await writer.drain()
        await asyncio.sleep(0.01)
    assert (await awaited(reader.read())).startswith(b"HTTP/1.1 200")
    writer.close()

    stored = {e.event_id for e in listener.journal.recent()}
    assert stored == {"evt_pipe_1", "evt_pipe_2", "evt_chunked", "evt_slow"}


async def test_one_byte_over_the_limit_sent_in_full_still_gets_its_413(listener: Listener) -> None:
    """Closing on unread data resets the connection, which can destroy the 413 unread."""
    assert listener.url is not None
    body = b'{"event_id":"evt_over","pad":"' + b"p" * MAX_BODY_BYTES + b'"}'
    parts = urlsplit(listener.url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    # The whole body is written before the answer is read, as simple clients do.
    writer.write(_request(_path(listener), body, _signed_headers(body)))
    await writer.drain()
    await asyncio.sleep(0.2)
    head = await awaited(reader.readuntil(b"\r\n\r\n"))
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    error = json.loads(await reader.readexactly(length))
    assert head.startswith(b"HTTP/1.1 413") and error["error"] == "payload_too_large"

    # The same connection still works: the rest of the big body was discarded, not parsed.
    small = event_body("evt_after_413")
    writer.write(
        _request(_path(listener), small, [*_signed_headers(small), ("Connection", "close")])
    )
    assert (await awaited(reader.read())).startswith(b"HTTP/1.1 200")
    writer.close()
    assert [e.event_id for e in listener.journal.recent()] == ["evt_after_413"]


# -- headers -----------------------------------------------------------------------------------


@pytest.mark.parametrize("good_first", [True, False])
async def test_two_signature_headers_are_refused_whichever_comes_first(
    listener: Listener, good_first: bool
) -> None:
    assert listener.url is not None
    body = event_body("evt_two_sigs")
    good, bad = hmac_sha512(body, SECRET), "0" * 128
    values = [good, bad] if good_first else [bad, good]
    headers = [("Content-Type", "application/json"), ("Connection", "close")]
    headers += [(SIGNATURE_HEADER, v) for v in values]

    status, error = _status_and_body(
        await _exchange(listener.url, _request(_path(listener), body, headers))
    )

    assert status == 401 and "more than once" in str(error["message"])
    assert listener.journal.count() == 0
    [attempt] = listener.journal.deliveries()
    # Both values are kept for whoever debugs it, joined as HTTP joins repeated fields.
    assert attempt.headers[SIGNATURE_HEADER.lower()] == ", ".join(values)


async def test_two_different_content_types_are_a_415_naming_both(listener: Listener) -> None:
    assert listener.url is not None
    body = event_body("evt_two_types")
    headers = [
        ("Content-Type", "text/plain"),
        ("Content-Type", "application/json"),
        (SIGNATURE_HEADER, hmac_sha512(body, SECRET)),
        ("Connection", "close"),
    ]
    status, error = _status_and_body(
        await _exchange(listener.url, _request(_path(listener), body, headers))
    )
    assert status == 415 and "text/plain, application/json" in str(error["message"])
    assert listener.journal.count() == 0


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ("prefixed", "starts with 'sha512='"),
        ("empty", "is empty"),
        ("truncated", "is 64 characters"),
        ("other-secret", "does not match"),
    ],
)
async def test_a_refused_signature_says_what_is_wrong_with_it(
    listener: Listener, client: httpx.AsyncClient, shape: str, expected: str
) -> None:
    assert listener.url is not None
    body = event_body(f"evt_sig_{shape}")
    good = hmac_sha512(body, SECRET)
    given = {
        "prefixed": "sha512=" + good,
        "empty": "",
        "truncated": good[:64],
        "other-secret": hmac_sha512(body, "another-secret"),
    }[shape]
    headers = {"Content-Type": "application/json", SIGNATURE_HEADER: given}
    response = await client.post(listener.url, content=body, headers=headers)

    assert response.status_code == 401
    assert expected in response.json()["message"]
    assert SECRET not in response.text
    assert listener.journal.count() == 0


async def test_a_signature_in_capitals_with_spaces_around_it_is_accepted(
    listener: Listener,
) -> None:
    assert listener.url is not None
    body = event_body("evt_caps")
    headers = [
        ("Content-Type", "APPLICATION/JSON; charset=utf-8"),
        (SIGNATURE_HEADER, "  " + hmac_sha512(body, SECRET).upper() + "  "),
        ("Connection", "close"),
    ]
    answer = await _exchange(listener.url, _request(_path(listener), body, headers))
    assert answer.startswith(b"HTTP/1.1 200")
    assert listener.journal.count() == 1


# -- bodies ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"", "body is empty"),
        (b"[1, 2]", "not an object (got an array)"),
        (b'"evt_x"', "not an object (got a string)"),
        (b'{"event_id": "evt_\xff"}', "not UTF-8"),
        (b'{"event_id": ""}', "event_id is empty"),
        (b'{"event_id": 42}', "must be a string, got a number"),
        (b'{"event_id": "evt_\\u0000nul"}', "control or invisible characters"),
        (b'{"event_id": "evt_\\u001b[2J\\nforged line"}', "control or invisible characters"),
        (json.dumps({"event_id": "e" * 1_000_000}).encode(), "1000000 characters long"),
    ],
    ids=["empty", "array", "string", "not-utf8", "id-empty", "id-number", "id-nul", "id-escape",
         "id-1mb"],
)  # fmt: skip
async def test_a_signed_body_that_is_no_event_is_a_400_saying_why(
    listener: Listener, client: httpx.AsyncClient, body: bytes, expected: str
) -> None:
    assert listener.url is not None
    response = await post_signed(client, listener.url, body)

    assert response.status_code == 400
    assert expected in response.json()["message"]
    assert listener.journal.count() == 0
    [attempt] = listener.journal.deliveries()
    assert attempt.verified and attempt.body == body  # the signature was fine; kept to debug


async def test_a_unicode_event_id_is_accepted_and_found_again(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    event_id = "evt_é中😀"
    body = event_body(event_id)
    first = await post_signed(client, listener.url, body)
    second = await post_signed(client, listener.url, body)

    assert (first.json()["duplicate"], second.json()["duplicate"]) == (False, True)
    detail = listener.journal.get(event_id)
    assert detail is not None and detail.body == body


async def test_fifty_senders_of_one_event_at_once_get_it_processed_exactly_once(
    listener: Listener,
) -> None:
    assert listener.url is not None
    body = event_body("evt_stampede")
    data = _request(_path(listener), body, [*_signed_headers(body), ("Connection", "close")])
    new: list[Delivery] = []
    listener.add_subscriber(lambda d: new.append(d) if d.accepted and not d.duplicate else None)

    answers = await asyncio.gather(*(_exchange(listener.url, data) for _ in range(50)))

    decided = [_status_and_body(a) for a in answers]
    assert all(status == 200 for status, _ in decided)
    assert [answer["duplicate"] for _, answer in decided].count(False) == 1
    assert (listener.stats.accepted, listener.stats.duplicates) == (1, 49)
    assert listener.journal.count() == 1 and listener.journal.count_deliveries() == 50
    await until(lambda: len(new) == 1)


# -- the journal failing -----------------------------------------------------------------------


async def test_a_journal_that_cannot_commit_answers_503_and_says_so_to_subscribers(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    seen: list[Delivery] = []
    listener.add_subscriber(seen.append)
    body = event_body("evt_disk_full")
    # A real SQLite failure on every insert, as a full disk gives, from another connection.
    with sqlite3.connect(listener.journal.path) as db:
        db.execute(
            "CREATE TRIGGER full BEFORE INSERT ON deliveries"
            " BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END"
        )
    refused = await post_signed(client, listener.url, body)
    with sqlite3.connect(listener.journal.path) as db:
        db.execute("DROP TRIGGER full")
    retried = await post_signed(client, listener.url, body)

    assert refused.status_code == 503 and refused.headers["retry-after"]
    message = refused.json()["message"]
    assert "disk is full" in message and "send it again" in message
    assert (retried.status_code, retried.json()["duplicate"]) == (200, False)
    assert listener.journal.count() == 1
    assert (listener.stats.failed, listener.stats.accepted) == (1, 1)
    await until(lambda: len(seen) == 2)
    assert (seen[0].status, seen[0].event_id, seen[0].accepted) == (503, "evt_disk_full", False)
    assert seen[0].reason is not None and "disk is full" in seen[0].reason
    assert (seen[1].status, seen[1].duplicate) == (200, False)


def test_a_journal_path_taken_by_a_directory_or_another_file_is_named(tmp_path: Path) -> None:
    from payscope.webhooks.listener import ListenerError

    (tmp_path / "dir" / "journal.sqlite3").mkdir(parents=True)
    with pytest.raises(ListenerError, match="is a directory"):
        Listener(tmp_path / "dir", [SECRET]).open()


@pytest.mark.parametrize(
    "damage",
    [b"not sqlite at all " * 100, os.urandom(49152), b"SQLite format 3\x00" + os.urandom(8000)],
    ids=["text", "random", "torn-header"],
)
async def test_a_damaged_journal_is_moved_aside_and_a_fresh_one_started(
    tmp_path: Path, damage: bytes, client: httpx.AsyncClient
) -> None:
    (tmp_path / "journal.sqlite3").write_bytes(damage)
    (tmp_path / "journal.sqlite3-wal").write_bytes(b"old wal")
    listener = Listener(tmp_path, [SECRET])
    await listener.start("127.0.0.1", 0)
    try:
        moved = listener.journal.moved_aside
        assert moved is not None and moved.parent == tmp_path
        assert moved.name.startswith("journal.sqlite3.damaged-")
        assert moved.read_bytes() == damage  # kept whole, never deleted
        assert (tmp_path / f"{moved.name}-wal").read_bytes() == b"old wal"
        assert listener.url is not None
        stored = await post_signed(client, listener.url, event_body("evt_after_damage"))
        assert stored.status_code == 200
        assert listener.journal.count() == 1
    finally:
        await listener.stop()
    again = Listener(tmp_path, [SECRET])
    again.open()  # the fresh journal is sound: nothing moved the next time
    try:
        assert again.journal.moved_aside is None and again.journal.count() == 1
    finally:
        again.journal.close()


# -- forwarding --------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["http://[::1/hooks", "ftp://127.0.0.1/x", "http:///nohost"])
def test_an_unusable_forward_url_is_refused_when_the_listener_is_made(
    tmp_path: Path, url: str
) -> None:
    with pytest.raises(ValueError, match=r"URL|host"):
        Listener(tmp_path, [SECRET], forward_to=url)
    with pytest.raises(ValueError, match=r"URL|host"):
        Listener(tmp_path, [SECRET], routes={"refund_*": url})


async def test_replaying_to_an_unusable_url_is_refused_before_sending(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    from payscope.core.forward_urls import InvalidForwardUrl

    assert listener.url is not None
    await post_signed(client, listener.url, event_body("evt_bad_target"))

    with pytest.raises(InvalidForwardUrl, match="not a valid URL"):
        await listener.replay("evt_bad_target", "http://[::1/hooks")

    detail = listener.journal.get("evt_bad_target")
    assert detail is not None and detail.forwards == []  # nothing was sent


class _Hanging(Receiver):
    """A merchant server that accepts the request and never answers (`held`: how many it holds)."""

    held = 0

    async def __call__(self, scope: dict[str, object], receive: object, send: object) -> None:
        if scope["type"] == "lifespan":
            await super().__call__(scope, receive, send)
            return
        self.held += 1
        with contextlib.suppress(asyncio.CancelledError):  # cancelled when its server stops
            await asyncio.Event().wait()


async def test_a_target_that_never_answers_is_cut_off_and_recorded(
    tmp_path: Path, client: httpx.AsyncClient
) -> None:
    hanging = _Hanging()
    # A bounded graceful stop: the hanging request would otherwise hold the server forever.
    server = EmbeddedServer(hanging, "127.0.0.1", 0, timeout_graceful_shutdown=0.5)
    target = await server.start() + "/hooks"
    listener = Listener(tmp_path, [SECRET], forward_to=target)
    listener.forwarder.timeout = 0.3
    await listener.start(port=0)
    try:
        assert listener.url is not None
        ack = await post_signed(client, listener.url, event_body("evt_hang"))
        assert ack.status_code == 200

        def forwards() -> list[str | None]:
            detail = listener.journal.get("evt_hang")
            return [] if detail is None else [f.error for f in detail.forwards]

        await until(lambda: len(forwards()) == 1)
        [error] = forwards()
        assert error is not None and "no answer from" in error and "0.3 s" in error

        # Stopping while a forward is still waiting leaves a record of it too.
        listener.forwarder.timeout = 60
        await post_signed(client, listener.url, event_body("evt_cut_by_stop"))
        await until(lambda: hanging.held == 2, "the second forward at the target")
    finally:
        await listener.stop(forward_grace=0.1)
        await server.stop()
    detail = listener.journal.get("evt_cut_by_stop")
    assert detail is not None
    [cut] = detail.forwards
    assert cut.error is not None and "listener stopped" in cut.error


async def test_a_target_answering_500_is_recorded_with_its_answer(
    tmp_path: Path, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    receiver.status, receiver.reply = 500, b'{"error":"boom"}'
    listener = Listener(tmp_path, [SECRET], forward_to=receiver.url)
    await listener.start(port=0)
    try:
        assert listener.url is not None
        await post_signed(client, listener.url, event_body("evt_500"))

        def forwards() -> list[tuple[int | None, str | None]]:
            detail = listener.journal.get("evt_500")
            return [] if detail is None else [(f.status, f.body) for f in detail.forwards]

        await until(lambda: len(forwards()) == 1)
        assert forwards() == [(500, '{"error":"boom"}')]
    finally:
        await listener.stop()


async def test_replaying_an_unknown_event_says_which_journal_was_searched(
    listener: Listener,
) -> None:
    with pytest.raises(LookupError, match=r"evt_never_seen.*journal\.sqlite3"):
        await listener.replay("evt_never_seen", "http://127.0.0.1:9/")


# -- what `payscope listen` prints -------------------------------------------------------------


def test_text_lines_cannot_be_forged_or_broken_by_a_senders_fields() -> None:
    delivery = Delivery(
        delivery_id=1, received_at=0.0, status=200, verified=True, reason=None,
        event_id="evt_ok", event_type="payment_succeeded\n12:00:00  ✓ forged",
        object_id="pay_\x1b[2J", object_status="succeeded", duplicate=False,
        duplicate_count=0, headers={}, body=b"",
    )  # fmt: skip
    line = format_text(delivery)
    assert "\n" not in line and "\x1b" not in line
    assert "\\n12:00:00" in line and "pay_\\x1b[2J" in line


async def test_a_start_in_its_own_thread_given_up_on_leaves_no_thread_serving(
    tmp_path: Path,
) -> None:
    """The app closing while its listener starts (the start cancelled): the thread, once it
    has started serving, is stopped and ended; nothing waits on it for ever (a test run's
    loop could not close)."""
    import threading

    # Another test's listener thread may still be ending in this process: only this one counts.
    before = set(threading.enumerate())
    listener = Listener(tmp_path / "listener", [SECRET])
    starting = asyncio.ensure_future(listener.start(port=0, own_thread=True))
    await asyncio.sleep(0)  # the thread is started; the start waits for it
    thread = listener._thread
    assert thread is not None and thread.is_alive()
    starting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await awaited(starting, "the cancelled start to end")
    assert not thread.is_alive()
    assert listener._thread is None and listener._loop is None
    started = [t for t in threading.enumerate() if t not in before]
    assert not [t for t in started if t.name == "payscope-listener"]
