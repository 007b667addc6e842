"""The journal's group commit on a real SQLite file: dedupe inside a group, failures, closing."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from payscope.webhooks.journal import JOURNAL_FILE, Journal
from payscope.webhooks.records import Attempt, JournalError
from tests.waits import awaited


def accepted(event_id: str, body: bytes = b"{}") -> Attempt:
    return Attempt(
        received_at=time.time(),
        headers={"content-type": "application/json"},
        body=body,
        verified=True,
        status=200,
        event_id=event_id,
        event_type="payment_succeeded",
        object_id="pay_1",
        object_status="succeeded",
    )


def rejected(reason: str) -> Attempt:
    return Attempt(time.time(), {"content-type": "text/plain"}, b"??", False, 415, reason)


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    j = Journal(tmp_path)
    j.open()
    yield j
    j.close()


async def test_copies_of_one_event_in_the_same_group_are_counted_in_arrival_order(
    journal: Journal,
) -> None:
    stored = await journal.record(accepted("evt_old"))
    assert (stored.duplicate, stored.duplicate_count) == (False, 0)

    # Submitted in one turn of the loop: one group, one commit.
    futures = [
        journal.record(accepted("evt_new")),
        journal.record(accepted("evt_old")),
        journal.record(rejected("no signature")),
        journal.record(accepted("evt_new")),
        journal.record(accepted("evt_old")),
    ]
    results = await asyncio.gather(*futures)

    assert [(r.duplicate, r.duplicate_count) for r in results] == [
        (False, 0),
        (True, 1),
        (False, 0),
        (True, 1),
        (True, 2),
    ]
    ids = [r.delivery_id for r in results]
    assert ids == list(range(stored.delivery_id + 1, stored.delivery_id + 6))
    counts = {e.event_id: e.duplicates for e in journal.recent()}
    assert counts == {"evt_old": 2, "evt_new": 1}
    flags = [(d.event_id, d.duplicate, d.status) for d in reversed(journal.deliveries())]
    assert flags == [
        ("evt_old", False, 200),
        ("evt_new", False, 200),
        ("evt_old", True, 200),
        (None, False, 415),
        ("evt_new", True, 200),
        ("evt_old", True, 200),
    ]
    detail = journal.get("evt_new")
    assert detail is not None and detail.delivery.id == ids[0]


async def test_a_group_larger_than_one_statement_is_stored_whole(journal: Journal) -> None:
    futures = [journal.record(accepted(f"evt_{i:04d}")) for i in range(700)]
    results = await asyncio.gather(*futures)

    assert not any(r.duplicate for r in results)
    assert len({r.delivery_id for r in results}) == 700
    assert journal.count() == 700 and journal.count_deliveries() == 700


async def test_a_group_that_cannot_be_stored_fails_its_callers_and_the_writer_goes_on(
    journal: Journal,
) -> None:
    # A lone surrogate cannot be encoded for SQLite: the whole group fails, nothing is half
    # stored, every caller hears about it, and the next group is stored normally.
    futures = [journal.record(accepted("evt_fine")), journal.record(accepted("evt_\ud800"))]
    outcomes = await asyncio.gather(*futures, return_exceptions=True)

    assert all(isinstance(o, JournalError) for o in outcomes)
    assert "could not store" in str(outcomes[0])
    assert journal.count_deliveries() == 0
    later = await journal.record(accepted("evt_fine"))
    assert later.duplicate is False
    assert journal.count() == 1


async def test_closing_stores_what_was_submitted_before_it(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    journal.open()
    future = journal.record(accepted("evt_last"))
    journal.close()  # before the loop had a turn to hand the job over

    result = await awaited(future)
    assert result.duplicate is False
    with sqlite3.connect(tmp_path / JOURNAL_FILE) as db:
        assert db.execute("SELECT event_id FROM events").fetchall() == [("evt_last",)]
    with pytest.raises(JournalError, match="closed"):
        journal.record(accepted("evt_after"))
