"""`POST /_sandbox/reset`: the seeded demo data and the clock come back after the clock moved on
and records were made; keys, the profile and the webhook settings stay."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import httpx

from payscope.sandbox import daemon
from payscope.sandbox.files import DB_FILE
from tests.daemons import wait_ready
from tests.sandbox.conftest import API_KEY, make_sandbox, payment_body
from tests.sandbox.test_daemon import _cli
from tests.waits import REQUEST_TIMEOUT

SEED = 12


async def _all(raw: httpx.AsyncClient, path: str, key: str) -> list[dict]:
    answer = await raw.post(path, json={"limit": 100})
    assert answer.status_code == 200, answer.text
    return sorted(answer.json()["data"], key=lambda row: row[key])


async def test_reset_brings_back_the_seeded_data_and_the_clock(tmp_path: Path) -> None:
    box = make_sandbox(tmp_path / "sandbox", time_source=lambda: 1_714_564_800.0)
    box.seed(SEED)
    transport = httpx.ASGITransport(app=box.app)
    headers = {"api-key": API_KEY}
    async with httpx.AsyncClient(
        transport=transport, base_url="http://sandbox.test", headers=headers
    ) as raw:
        payments = await _all(raw, "/payments/list", "payment_id")
        disputes = (await raw.get("/disputes/list")).json()
        assert len(payments) >= SEED and disputes
        before = {p["payment_id"]: p["status"] for p in payments}

        # A demo spent: the clock a month on (disputes pass their deadline), a payment more.
        moved = await raw.post("/_sandbox/clock/advance", json={"seconds": 31 * 86400})
        assert moved.status_code == 200 and moved.json()["ran"]
        extra = (await raw.post("/payments", json=payment_body())).json()["payment_id"]
        changed = await _all(raw, "/payments/list", "payment_id")
        assert extra in {p["payment_id"] for p in changed}

        reset = await raw.post("/_sandbox/reset")
        assert reset.status_code == 200, reset.text
        said = reset.json()
        assert said["seeded_payments"] == SEED
        assert said["offset_seconds"] == 0.0
        assert said["clock_offset_seconds"] >= 31 * 86400
        assert said["now"].startswith("2024-05-01T12:00:00")

        after = await _all(raw, "/payments/list", "payment_id")
        assert {p["payment_id"]: p["status"] for p in after} == before
        assert (await raw.get("/disputes/list")).json() == disputes
        assert (await raw.get(f"/payments/{extra}")).status_code == 404
        clock = (await raw.get("/_sandbox/clock")).json()
        assert clock["offset_seconds"] == 0.0
        # The same key still works (it answered above); the profile is still there.
        assert (await raw.get("/health")).status_code == 200
    await box.stop()
    # The clock's return is kept: a sandbox opened on the same data starts at real time.
    again = make_sandbox(tmp_path / "sandbox", time_source=lambda: 1_714_564_800.0)
    assert again.state.clock.offset == 0.0
    await again.stop()


async def test_reset_of_a_sandbox_never_seeded_empties_it(raw: httpx.AsyncClient) -> None:
    made = (await raw.post("/payments", json=payment_body())).json()["payment_id"]
    reset = await raw.post("/_sandbox/reset")
    assert reset.status_code == 200 and reset.json()["seeded_payments"] == 0
    assert (await raw.get(f"/payments/{made}")).status_code == 404


def _payment_ids(directory: Path) -> set[str]:
    conn = sqlite3.connect(directory / DB_FILE)
    try:
        return {row[0] for row in conn.execute("SELECT payment_id FROM payments")}
    finally:
        conn.close()


def test_the_reset_command_on_files_and_through_the_background_sandbox(tmp_path: Path) -> None:
    directory = tmp_path / "data" / "sandbox"
    env = {"PAYSCOPE_DATA_DIR": str(tmp_path / "data")}
    none = _cli("reset", env=env)
    assert none.returncode == 0 and "nothing to reset" in none.stdout

    # No sandbox serving: the files themselves.
    box = make_sandbox(directory)
    box.seed(6)
    seeded = _payment_ids(directory)
    box.state.clock.offset = 40 * 86400.0
    box.state.db.set_meta("clock_offset", repr(box.state.clock.offset))
    box.state.db.flush()
    with box.state.db.transaction() as conn:
        conn.execute("DELETE FROM payments WHERE rowid IN (SELECT rowid FROM payments LIMIT 2)")
    box.state.db.flush()
    asyncio.run(box.stop())
    assert len(_payment_ids(directory)) == len(seeded) - 2
    done = _cli("reset", env=env)
    assert done.returncode == 0, done.stderr
    assert "its 6 seeded demo payments" in done.stdout and "40.0 days ahead" in done.stdout
    assert _payment_ids(directory) == seeded

    # The background sandbox serving it: reset through it, and it serves on.
    try:
        daemon.spawn(directory)
        state = wait_ready(directory)
        creds = daemon.read_credentials(directory)
        assert creds is not None
        headers = {"api-key": creds.api_key}
        made = httpx.post(
            f"{state.url}/payments", timeout=REQUEST_TIMEOUT, json=payment_body(), headers=headers
        )
        assert made.status_code == 200, made.text
        done = _cli("reset", env=env)
        assert done.returncode == 0, done.stderr
        assert "Resetting the background sandbox on" in done.stderr
        assert "its 6 seeded demo payments" in done.stdout
        gone = httpx.get(
            f"{state.url}/payments/{made.json()['payment_id']}",
            timeout=REQUEST_TIMEOUT,
            headers=headers,
        )
        assert gone.status_code == 404
        assert daemon.read_state(directory) is not None  # still serving
    finally:
        daemon.stop(directory)
    assert _payment_ids(directory) == seeded
