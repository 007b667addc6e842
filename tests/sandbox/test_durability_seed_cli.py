"""The outbox across a SIGKILL, demo seeding, and `payscope sandbox` itself."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from payscope.sandbox.seed import is_seeded
from tests.sandbox.conftest import API_KEY, WEBHOOK_SECRET, Receiver, make_sandbox, payment_body
from tests.waits import HANG, REQUEST_TIMEOUT, until

ROOT = Path(__file__).resolve().parents[2]


def start_cli(data: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "payscope",
            "sandbox",
            "--port",
            "0",
            "--data",
            str(data),
            "--api-key",
            API_KEY,
            *extra,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A process that does not stop can be asked where it is (SIGABRT: every thread's stack).
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )
    assert proc.stdout is not None
    for _ in range(200):
        line = proc.stdout.readline()
        found = re.search(r"listening on (http://\S+)", line)
        if found:
            return proc, found.group(1)
        if not line:
            break
    proc.kill()
    raise AssertionError(f"the sandbox did not start: {proc.stderr.read() if proc.stderr else ''}")


def _exit_status(proc: subprocess.Popen[str], timeout: float) -> int:
    """The process's exit status; if it has not exited within `timeout`, fail with where it
    is stuck (its threads' stacks, from faulthandler) and what it wrote to stderr."""
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        _, stderr = proc.communicate(timeout=HANG)
        pytest.fail(f"no exit {timeout} s after SIGINT; its stderr:\n{stderr}")


@pytest.mark.slow
async def test_every_event_is_delivered_after_a_sigkill(tmp_path: Path, receiver: Receiver) -> None:
    data = tmp_path / "sb"
    # First life: the endpoint refuses everything, so events stay in the outbox.
    receiver.status = 500
    proc, url = start_cli(data, "--webhook-url", receiver.url, "--webhook-secret", WEBHOOK_SECRET)
    made: set[str] = set()
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
    ) as http:
        for number in ("4242424242424242", "4000000000000002", "4000003800000446"):
            made.add((await http.post("/payments", json=payment_body(number))).json()["payment_id"])
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(HANG)
    # Second life: the endpoint works; the retries due a minute later deliver everything.
    receiver.status = 200
    receiver.received.clear()
    proc, url = start_cli(data)
    try:
        async with httpx.AsyncClient(
            timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
        ) as http:
            await http.post("/_sandbox/clock/advance", json={"seconds": 120})
        await until(lambda: len({e["event_id"] for e in receiver.events()}) >= 3)
    finally:
        proc.terminate()
        proc.wait(HANG)
    # At least once: a delivery in flight when the first process died may arrive as well
    # (the receiver dedupes on event_id, as the spec asks), so count distinct events.
    unique = {e["event_id"]: e for e in receiver.events()}
    delivered = {e["content"]["object"]["payment_id"] for e in unique.values()}
    assert delivered == made
    assert sorted(e["event_type"] for e in unique.values()) == [
        "action_required",
        "payment_failed",
        "payment_succeeded",
    ]


@pytest.mark.slow
def test_cli_prints_what_a_user_needs_and_stops_on_sigint(tmp_path: Path) -> None:
    proc, url = start_cli(tmp_path / "sb", "--seed", "50")
    assert proc.stdout is not None
    text = ""
    while "Ctrl+C" not in text:
        text += proc.stdout.readline()
    proc.send_signal(signal.SIGINT)
    assert _exit_status(proc, 15) == 0
    for label in ("merchant id", "profile id", "secret key", "publishable key", "webhook secret"):
        assert label in text
    assert API_KEY in text and f"{url}/docs" in text and "curl" in text
    assert proc.stderr is not None
    assert "50/50 payments" in proc.stderr.read()


def test_cli_refuses_a_production_key(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "payscope",
            "sandbox",
            "--data",
            str(tmp_path),
            "--api-key",
            "prd_x1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "local sandbox" in done.stderr and "prd_x1" not in done.stderr


def _snapshot(data: Path, n: int) -> list[tuple[str, ...]]:
    box = make_sandbox(data, time_source=lambda: 1_750_000_000.0)
    progress: list[tuple[int, int]] = []
    assert box.seed(n, lambda done, total: progress.append((done, total))) == n
    assert progress[-1] == (n, n)
    assert box.is_seeded() and box.seed(n) == 0  # a second run writes nothing
    rows = box.state.db.conn.execute(
        "SELECT payment_id, status, amount, currency, created, customer_id FROM payments "
        "ORDER BY payment_id"
    ).fetchall()
    box.state.db.close()
    return [tuple(str(v) for v in row) for row in rows]


def test_seeding_is_deterministic_and_varied(tmp_path: Path) -> None:
    first = _snapshot(tmp_path / "a", 600)
    second = _snapshot(tmp_path / "b", 600)
    assert first == second and len(first) == 600
    statuses = {row[1] for row in first}
    assert {"succeeded", "failed", "requires_capture", "cancelled"} <= statuses
    assert len({row[3] for row in first}) >= 4
    days = {row[4][:10] for row in first}
    assert len(days) > 60
    assert _snapshot(tmp_path / "c", 601) != first


async def test_seeded_data_answers_lists_and_filters(tmp_path: Path) -> None:
    box = make_sandbox(tmp_path / "sb")
    assert not is_seeded(box.state)
    box.seed(400)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=box.app),
        base_url="http://sandbox.test",
        headers={"api-key": API_KEY},
    ) as http:
        listing = (await http.post("/payments/list", json={"limit": 100})).json()
        assert listing["total_count"] == 400 and listing["count"] == 100
        created = [p["created"] for p in listing["data"]]
        assert created == sorted(created, reverse=True)
        failed = (await http.post("/payments/list", json={"status": "failed"})).json()
        assert failed["total_count"] > 0
        assert all(p["unified_code"] for p in failed["data"])
        refunds = (await http.post("/refunds/list", json={})).json()
        assert refunds["total_count"] > 0
        customers = (await http.get("/customers/list")).json()
        assert customers["total_count"] == 400 // 8 + 1
        one = failed["data"][0]["payment_id"]
        detail = (await http.get(f"/payments/{one}")).json()
        assert detail["attempts"][0]["status"] == "failure"
        events = (await http.post(f"/events/{box.credentials.merchant_id}", json={})).json()
        assert events["total_count"] == 0  # seeded history sends no webhooks
    await box.stop()


async def test_amount_filter_wide_and_narrow_on_many_payments(tmp_path: Path) -> None:
    box = make_sandbox(tmp_path / "sb")
    box.seed(2500)
    rows = box.state.db.conn.execute(
        "SELECT payment_id, amount FROM payments ORDER BY created DESC, rowid DESC"
    ).fetchall()
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=box.app),
        base_url="http://sandbox.test",
        headers={"api-key": API_KEY},
    ) as http:
        for low, high in ((500, 60000), (1000, 1100)):  # most rows, then a few
            expected = [pid for pid, amount in rows if low <= amount <= high]
            body = {"amount_filter": {"start_amount": low, "end_amount": high}, "limit": 20}
            page = (await http.post("/payments/list", json=body)).json()
            assert page["total_count"] == len(expected)
            assert [p["payment_id"] for p in page["data"]] == expected[:20]
    await box.stop()
