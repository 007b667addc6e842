"""Rejected attempts cannot fill the disk: a body prefix each, and a cap on their history.

Real HTTP against a real listener; the signatures are computed by the test (see conftest).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import httpx

from payscope.webhooks.intake import REJECTED_BODY_PREFIX
from payscope.webhooks.journal import JOURNAL_FILE, Journal
from payscope.webhooks.listener import MAX_BODY_BYTES, Listener
from payscope.webhooks.records import Attempt
from tests.waits import until
from tests.webhooks.conftest import SIGNATURE_HEADER, event_body, post_signed


def _unsigned_body(size: int, tag: int = 0) -> bytes:
    head = b'{"event_id":"evt_flood_%d","pad":"' % tag
    return head + b"x" * (size - len(head) - 2) + b'"}'


def _journal_bytes(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.glob(JOURNAL_FILE + "*"))


async def test_a_rejected_body_is_kept_as_a_prefix_with_its_full_length(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    body = _unsigned_body(MAX_BODY_BYTES)
    answer = await client.post(
        listener.url,
        content=body,
        headers={"Content-Type": "application/json", "X-Trace": "kept"},
    )
    assert answer.status_code == 401

    [attempt] = listener.journal.deliveries(rejected_only=True)
    assert attempt.status == 401 and not attempt.verified
    assert attempt.body == body[:REJECTED_BODY_PREFIX]
    assert attempt.body_length == len(body) and attempt.truncated
    assert attempt.headers["x-trace"] == "kept"
    assert attempt.headers["content-length"] == str(len(body))


async def test_an_accepted_body_is_kept_whole(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    body = event_body("evt_big_and_signed")[:-1] + b', "pad": "' + b"y" * 50_000 + b'"}'
    assert (await post_signed(client, listener.url, body)).status_code == 200

    detail = listener.journal.get("evt_big_and_signed")
    assert detail is not None
    assert detail.body == body and detail.delivery.body_length is None
    assert not detail.delivery.truncated


async def test_a_flood_of_unsigned_posts_drops_old_rejections_and_keeps_every_event(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    cap = 256 * 1024
    listener.journal.rejected_cap_bytes = cap
    accepted = []
    for i in range(300):
        answer = await client.post(
            listener.url,
            content=_unsigned_body(256 * 1024, i),
            headers={"Content-Type": "application/json", SIGNATURE_HEADER: "0" * 128},
        )
        assert answer.status_code == 401
        if i % 30 == 0:
            event_id = f"evt_kept_{i}"
            assert (
                await post_signed(client, listener.url, event_body(event_id))
            ).status_code == 200
            accepted.append(event_id)

    def rejected_bytes() -> int:
        with sqlite3.connect(listener.journal.path) as db:
            row = db.execute(
                "SELECT sum(length(headers) + length(body)) FROM deliveries"
                " WHERE verified = 0 OR status >= 300"
            ).fetchone()
        return int(row[0])

    await until(lambda: rejected_bytes() <= cap)
    assert sorted(e.event_id for e in listener.journal.recent(limit=100)) == sorted(accepted)
    for event_id in accepted:
        assert listener.journal.get(event_id) is not None
    rejected = listener.journal.deliveries(limit=1000, rejected_only=True)
    assert 0 < len(rejected) < 300
    # The newest rejections are the ones kept.
    assert rejected[0].body.startswith(b'{"event_id":"evt_flood_299"')
    # 300 x 256 KiB went in (75 MiB); the file holds about the cap, not the flood.
    assert _journal_bytes(listener.journal.directory) < 8 * 1024 * 1024


async def test_the_rejected_history_is_measured_again_after_a_restart(tmp_path: Path) -> None:
    journal = Journal(tmp_path, rejected_cap_bytes=10_000)
    journal.open()
    for i in range(3):
        attempt = Attempt(time.time(), {"n": str(i)}, b"z" * 4000, False, 401, "unsigned")
        await journal.record(attempt)
    journal.close()
    # Reopened with a smaller cap: the stored history counts, so the next rejection prunes it.
    journal = Journal(tmp_path, rejected_cap_bytes=6_000)
    journal.open()
    await journal.record(Attempt(time.time(), {"n": "3"}, b"z" * 4000, False, 401, "unsigned"))
    journal.close()
    kept = [d.headers["n"] for d in journal.deliveries(rejected_only=True)]
    assert kept == ["3"]


def test_a_journal_from_before_body_length_opens_and_reads(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / JOURNAL_FILE) as db:
        db.execute(
            "CREATE TABLE deliveries (id INTEGER PRIMARY KEY, received_at REAL NOT NULL,"
            " event_id TEXT, headers TEXT NOT NULL, body BLOB NOT NULL,"
            " verified INTEGER NOT NULL, reason TEXT, duplicate INTEGER NOT NULL DEFAULT 0,"
            " status INTEGER NOT NULL)"
        )
        db.execute("INSERT INTO deliveries VALUES (1, 0, NULL, '{}', x'3f3f', 0, 'old', 0, 415)")
    journal = Journal(tmp_path)
    [old] = journal.deliveries()
    assert (old.body, old.body_length, old.reason) == (b"??", None, "old")
    journal.close()
