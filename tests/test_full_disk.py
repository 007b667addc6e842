"""Issue 38: a full disk, for real: a tmpfs of a few MiB mounted for the test (`mount -t tmpfs
-o size=...`, as root or through `sudo -n`; elsewhere the test is skipped saying why, and
PAYSCOPE_REQUIRE_TMPFS=1 makes that a failure, as CI sets it where it can mount), filled to its
last page by a file of the test's own.

The sandbox on it answers writes 503 with the spec's envelope and `Retry-After`, logs one line
(no traceback per request), loses nothing it acknowledged (read back after a restart), and
writes again once there is room. A first run whose sandbox cannot start there says the disk is
full and which path, not "its log is empty"."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from payscope.api.errors import ApiError
from payscope.api.models.payments import PaymentCreateRequest
from payscope.core.disk import full_disk, is_disk_full
from payscope.widgets.errors import describe_error
from tests.sandbox.conftest import API_KEY, api_client, envelope, make_sandbox, payment_body
from tests.waits import REQUEST_TIMEOUT

pytestmark = pytest.mark.slow

REQUIRED = os.environ.get("PAYSCOPE_REQUIRE_TMPFS") == "1"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of 8 MiB at a directory of this test's own, unmounted after it."""
    mount = tmp_path / "disk"
    mount.mkdir()
    # As root, or through a sudo that asks no password (-n): never a prompt.
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    options = f"size=8m,mode=0700,uid={os.getuid()},gid={os.getgid()}"
    done = subprocess.run(
        [*sudo, "mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        message = f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode})"
        if REQUIRED:
            pytest.fail(message + " (PAYSCOPE_REQUIRE_TMPFS=1)")
        pytest.skip(message + ": the full-disk tests need root or a sudo without a password")
    try:
        yield mount
    finally:
        # The mount this fixture made, at its own path (lazily: a closed file may linger).
        subprocess.run([*sudo, "umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    """Fill `disk` to its last byte with a file of our own; returns it."""
    filler = disk / "filler"
    chunk = b"\0" * 65536
    with filler.open("wb", buffering=0) as out:
        for size in (65536, 4096, 512, 1):
            piece = chunk[:size]
            while True:
                try:
                    out.write(piece)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc
                    break
    return filler


async def test_a_full_disk_is_503_said_once_and_nothing_acknowledged_is_lost(
    small_disk: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    data = small_disk / "sandbox"
    box = make_sandbox(data)
    url = await box.start()
    acknowledged: list[str] = []
    refused: list[httpx.Response] = []
    try:
        async with httpx.AsyncClient(
            timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
        ) as http:
            first = await http.post("/payments", json=payment_body())
            assert first.status_code == 200, first.text
            acknowledged.append(first.json()["payment_id"])
            filler = fill(small_disk)
            assert full_disk(data) is not None
            caplog.clear()
            for _ in range(8):  # one by one, then many at once (one group commit)
                answers = [await http.post("/payments", json=payment_body())]
                answers += await asyncio.gather(
                    *(http.post("/payments", json=payment_body()) for _ in range(10))
                )
                for answer in answers:
                    if answer.status_code == 200:
                        acknowledged.append(answer.json()["payment_id"])
                    else:
                        refused.append(answer)
            assert len(refused) >= 60, [r.status_code for r in refused]
            for answer in refused:
                assert answer.status_code == 503, answer.text
                error = envelope(answer)
                assert error["type"] == "api_error"
                assert "disk is full" in error["message"] and str(data) in error["message"]
                assert answer.headers["retry-after"] == "30"
            # What the TUI shows of such an answer: the disk is full, and which file.
            api = api_client(box, base_url=url)
            try:
                with pytest.raises(ApiError) as failed:
                    await api.payments.create(PaymentCreateRequest.model_validate(payment_body()))
            finally:
                await api.aclose()
            title, message = describe_error(failed.value)
            assert "disk is full" in message and str(data) in message, (title, message)
            said = [r for r in caplog.records if r.levelno >= logging.WARNING]
            assert len(said) == 1, [r.getMessage() for r in said]
            assert "disk full" in said[0].getMessage() and said[0].exc_info is None
            # Reads still work on a full disk.
            listed = await http.get("/payments/list", params={"limit": 100})
            assert listed.status_code == 200
            # Room again: writes are answered, and that is said once.
            filler.unlink()
            again = await http.post("/payments", json=payment_body())
            assert again.status_code == 200, again.text
            acknowledged.append(again.json()["payment_id"])
            assert any("room again" in r.getMessage() for r in caplog.records)
    finally:
        await box.stop()
    # Everything acknowledged is there after a restart; nothing refused was kept.
    box = make_sandbox(data)
    url = await box.start()
    try:
        async with httpx.AsyncClient(
            timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
        ) as http:
            for payment_id in acknowledged:
                found = await http.get(f"/payments/{payment_id}")
                assert found.status_code == 200, (payment_id, found.text)
            listed = (await http.get("/payments/list", params={"limit": 100})).json()
            ours = {p["payment_id"] for p in listed["data"]}
            assert set(acknowledged) <= ours
    finally:
        await box.stop()


def test_disk_full_errors_are_told_apart() -> None:
    import sqlite3

    assert is_disk_full(OSError(errno.ENOSPC, "No space left on device"))
    assert is_disk_full(sqlite3.OperationalError("database or disk is full"))
    assert not is_disk_full(sqlite3.OperationalError("database is locked"))
    assert not is_disk_full(OSError(errno.EACCES, "Permission denied"))
    with contextlib.suppress(RuntimeError):
        try:
            raise OSError(errno.ENOSPC, "full")
        except OSError as inner:
            wrapped = RuntimeError("wrapped")
            wrapped.__cause__ = inner
            assert is_disk_full(wrapped)


async def test_a_first_run_on_a_full_disk_says_so_and_where(
    small_disk: Path, tmp_path: Path
) -> None:
    from payscope.app.runtime.connection import StartupError
    from payscope.sandbox import daemon
    from tests.daemons import daemon_runtime

    data = small_disk / "data"
    fill(small_disk)
    runtime = daemon_runtime(tmp_path, data)
    try:
        with pytest.raises(StartupError) as failed:
            await runtime.start()
    finally:
        await runtime.stop()
        daemon.stop(data / "sandbox")  # proven to be this directory's daemon first
    _title, message = describe_error(failed.value)
    assert "log is empty" not in message
    assert "disk" in message and "full" in message, message
    assert str(data) in message, message
