"""`payscope listen --forward-to` as a real subprocess: a `kill -9` while a slow target holds the
forwards, a restart, and every journaled event forwarded at least once; the forward lines."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from tests.waits import HANG, REQUEST_TIMEOUT, until_sync
from tests.webhooks.conftest import SECRET, event_body, post_signed
from tests.webhooks.test_listen_cli import running

pytestmark = pytest.mark.slow


class Target:
    """A merchant server in its own threads: records each event_id it is sent, answers 200
    after `delay` seconds (so the listener's own loop is never the one slowed down)."""

    def __init__(self) -> None:
        self.delay = 0.0
        self.received: list[str] = []
        self._lock = threading.Lock()
        target = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with target._lock:
                    target.received.append(json.loads(body)["event_id"])
                time.sleep(target.delay)
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def seen(self) -> set[str]:
        with self._lock:
            return set(self.received)


@contextmanager
def serving(target: Target) -> Iterator[Target]:
    thread = threading.Thread(target=target.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield target
    finally:
        target.server.shutdown()
        target.server.server_close()


def test_every_journaled_event_is_forwarded_after_a_kill_9_with_a_slow_target(
    tmp_path: Path,
) -> None:
    target = Target()
    target.delay = 2.0  # slower than the burst: most forwards are still owed at the kill
    args = (
        "--port", "0", "--data", str(tmp_path), "--secret", SECRET, "--format", "json",
        "--forward-to", target.url,
    )  # fmt: skip
    ids = [f"evt_k9_{i:03d}" for i in range(100)]
    with serving(target):
        with running(*args) as (proc, url, _header):

            async def burst() -> list[str]:
                acked: list[str] = []
                async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as client:

                    async def one(event_id: str) -> None:
                        response = await post_signed(client, url, event_body(event_id))
                        if response.status_code == 200:
                            acked.append(event_id)

                    for start in range(0, len(ids), 20):
                        await asyncio.gather(*(one(e) for e in ids[start : start + 20]))
                return acked

            acked = asyncio.run(burst())
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(HANG)
        assert sorted(acked) == ids

        with sqlite3.connect(tmp_path / "journal.sqlite3") as db:
            stored = {row[0] for row in db.execute("SELECT event_id FROM events")}
            owed = dict(db.execute("SELECT event_id, state FROM forward_queue").fetchall())
        # Killed: every event journaled, and for every one a forward on record as owed.
        assert stored == set(ids)
        assert set(owed) == stored
        not_sent = stored - target.seen()
        assert len(not_sent) >= 50, "the kill did not land while forwards were owed"
        assert all(owed[e] == "pending" for e in not_sent)

        target.delay = 0.0
        with running(*args) as (proc, url, header):
            assert "owed by an earlier run, resumed" in header
            until_sync(lambda: stored <= target.seen(), detail=lambda: stored - target.seen())
            until_sync(lambda: _delivered(tmp_path) == len(ids))
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=HANG)

    assert proc.returncode == 0, err
    assert "forwards: 100 delivered, 0 owed" in err
    # Each resumed forward is printed with its status and time.
    printed = [json.loads(line) for line in out.splitlines()]
    forwards = {p["event_id"]: p["forward"] for p in printed if "forward" in p}
    assert not_sent <= set(forwards)
    for event_id in not_sent:
        shown = forwards[event_id]
        assert shown["state"] == "delivered" and shown["http_status"] == 200
        assert shown["sent_at"].endswith("Z") and shown["latency_ms"] >= 0
        assert shown["url"] == target.url and shown["error"] is None
    with sqlite3.connect(tmp_path / "journal.sqlite3") as db:
        answered = {
            row[0] for row in db.execute("SELECT event_id FROM forwards WHERE status = 200")
        }
    assert answered == stored  # every attempt recorded, a 200 for every event


def _delivered(directory: Path) -> int:
    with sqlite3.connect(directory / "journal.sqlite3") as db:
        row = db.execute("SELECT count(*) FROM forward_queue WHERE state = 'delivered'")
        return int(row.fetchone()[0])


def test_text_output_prints_each_forward_attempt_with_its_status_and_time(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = f"http://127.0.0.1:{port}/hooks"
    args = ("--port", "0", "--data", str(tmp_path), "--secret", SECRET, "--forward-to", down)
    with running(*args, header_on="stdout") as (proc, url, header):
        assert f"forward  {down}" in header

        async def send() -> None:
            async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as client:
                assert (await post_signed(client, url, event_body("evt_txt"))).status_code == 200

        asyncio.run(send())
        assert proc.stdout is not None
        accepted = proc.stdout.readline()
        first_try = proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=HANG)
    assert "evt_txt" in accepted and "✓" in accepted
    assert first_try.startswith(tuple("0123456789"))  # the time of the attempt
    assert f"→ forward evt_txt to {down}: could not reach" in first_try
    assert "attempt 1; retry in 1 s" in first_try and first_try.rstrip().endswith("[retrying]")
    assert "forwards: 0 delivered, 1 owed (sent on the next start), 0 failed" in err


def test_forwards_owed_by_an_earlier_run_are_announced_and_wait_for_forward_to(
    tmp_path: Path,
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = f"http://127.0.0.1:{port}/hooks"
    args = ("--port", "0", "--data", str(tmp_path), "--secret", SECRET, "--format", "json")
    with running(*args, "--forward-to", down) as (proc, url, _header):

        async def send() -> None:
            async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as client:
                for i in range(3):
                    response = await post_signed(client, url, event_body(f"evt_wait_{i}"))
                    assert response.status_code == 200

        asyncio.run(send())
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=HANG)
    # Without --forward-to: said, and nothing is sent or given up.
    with running(*args) as (proc, _url, header):
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=HANG)
    assert "3 forwards owed by an earlier run wait in the journal" in header + err
    with sqlite3.connect(tmp_path / "journal.sqlite3") as db:
        states = {row[0] for row in db.execute("SELECT state FROM forward_queue")}
    assert states == {"pending"}
