"""`payscope listen` as a real subprocess: the header, JSON lines, --print-secret, kill -9."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import httpx
import pytest

from tests.webhooks.conftest import SECRET, event_body, post_signed
from tui.webhooks.cli import format_text
from tui.webhooks.listener import Delivery

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _listen(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tui", "listen", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def _read_header(stream: TextIO | None) -> list[str]:
    """The header lines, up to "Ctrl+C stops." (read here: communicate() skips our buffer)."""
    assert stream is not None
    lines: list[str] = []
    while not lines or not lines[-1].startswith("Ctrl+C stops."):
        line = stream.readline()
        if not line:
            raise AssertionError(f"the listener stopped while starting: {lines}")
        lines.append(line)
    return lines


@contextmanager
def running(
    *args: str, header_on: str = "stderr"
) -> Iterator[tuple[subprocess.Popen[str], str, str]]:
    proc = _listen(*args)
    try:
        header = "".join(_read_header(proc.stderr if header_on == "stderr" else proc.stdout))
        found = re.search(r"(http://\S+/webhooks)", header)
        assert found, header
        yield proc, found.group(1), header
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def test_print_secret_prints_the_stored_secret_and_exits(tmp_path: Path) -> None:
    def print_secret(*extra: str) -> str:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "tui",
                "listen",
                "--data",
                str(tmp_path),
                "--print-secret",
                *extra,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        return out.stdout.strip()

    generated = print_secret()
    assert re.fullmatch(r"[A-Za-z0-9]{64}", generated)
    assert print_secret() == generated  # stored, not regenerated
    assert print_secret("--secret", "given-one") == "given-one"


def test_json_format_prints_one_object_per_delivery_and_stops_cleanly(tmp_path: Path) -> None:
    with running(
        "--port", "0", "--data", str(tmp_path), "--secret", SECRET, "--format", "json"
    ) as (proc, url, _header):

        async def send() -> None:
            async with httpx.AsyncClient(timeout=10) as client:
                body = event_body("evt_cli", object_id="pay_cli")
                await post_signed(client, url, body)
                await post_signed(client, url, body)
                await post_signed(client, url, body, secret="not-it")

        asyncio.run(send())
        assert proc.stdout is not None
        lines = [json.loads(proc.stdout.readline()) for _ in range(3)]
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)

    first, dup, rejected = lines
    expected_keys = {"event_id", "event_type", "object_id", "status", "verified", "duplicate"}
    assert expected_keys <= first.keys()
    assert (first["event_id"], first["event_type"]) == ("evt_cli", "payment_succeeded")
    assert (first["object_id"], first["status"]) == ("pay_cli", "succeeded")
    assert (first["verified"], first["duplicate"]) == (True, False)
    assert (dup["event_id"], dup["duplicate"]) == ("evt_cli", True)
    assert rejected["verified"] is False and "does not match" in rejected["reason"]
    assert proc.returncode == 0
    assert "stopped; 1 events" in err
    assert SECRET not in err


def test_text_header_masks_a_generated_secret(tmp_path: Path) -> None:
    with running("--port", "0", "--data", str(tmp_path), header_on="stdout") as (proc, _, out):
        proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=10)
    out += rest
    secret = (tmp_path / "signing-secret").read_text().strip()
    assert proc.returncode == 0
    assert secret not in out and secret not in err
    assert secret[-4:] in out  # masked, but recognisable
    assert str(tmp_path / "journal.sqlite3") in out


def test_a_taken_explicit_port_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "tui", "listen", "--port", str(port), "--data", str(tmp_path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert done.returncode == 1
    assert f"port {port} on 127.0.0.1 is already in use" in done.stderr
    assert "--port 0" in done.stderr


def test_text_lines_show_what_happened() -> None:
    def delivery(**changes: object) -> Delivery:
        base: dict[str, object] = dict(
            delivery_id=1, received_at=0.0, status=200, verified=True, reason=None,
            event_id="evt_t", event_type="refund_succeeded", object_id="ref_9",
            object_status="succeeded", duplicate=False, duplicate_count=0, headers={}, body=b"",
        )  # fmt: skip
        base.update(changes)
        return Delivery(**base)  # type: ignore[arg-type]

    line = format_text(delivery())
    assert all(part in line for part in ("✓", "refund_succeeded", "ref_9", "succeeded", "evt_t"))
    assert "duplicate x3" in format_text(delivery(duplicate=True, duplicate_count=3))
    rejected = format_text(
        delivery(status=401, verified=False, reason="missing X-Webhook-Signature-512 header")
    )
    assert "✗" in rejected and "401" in rejected and "missing X-Webhook" in rejected


def test_every_acknowledged_event_survives_kill_9(tmp_path: Path) -> None:
    """SIGKILL in the middle of a burst; restart; the journal has every event answered 200."""
    args = ("--port", "0", "--data", str(tmp_path), "--secret", SECRET, "--format", "json")
    acked: list[str] = []
    with running(*args) as (proc, url, _header):

        async def burst() -> int:
            failures = 0
            limits = httpx.Limits(max_connections=40)
            async with httpx.AsyncClient(timeout=10, limits=limits) as client:

                async def one(i: int) -> None:
                    nonlocal failures
                    event_id = f"evt_burst_{i:05d}"
                    try:
                        response = await post_signed(client, url, event_body(event_id))
                    except httpx.HTTPError:
                        failures += 1
                        return
                    if response.status_code == 200:
                        acked.append(event_id)
                        if len(acked) == 300:
                            os.kill(proc.pid, signal.SIGKILL)

                await asyncio.gather(*(one(i) for i in range(1500)))
            return failures

        failures = asyncio.run(burst())
        proc.wait(10)

    assert proc.returncode == -signal.SIGKILL
    assert len(acked) >= 300 and failures > 0, "the kill did not land mid-burst"
    with sqlite3.connect(tmp_path / "journal.sqlite3") as db:
        stored = {row[0] for row in db.execute("SELECT event_id FROM events")}
    assert set(acked) <= stored

    # Restarted on the same journal: it opens, and knows what it already acknowledged.
    with running(*args) as (proc, url, _header):

        async def again() -> tuple[bool, bool]:
            async with httpx.AsyncClient(timeout=10) as client:
                old = await post_signed(client, url, event_body(acked[0]))
                new = await post_signed(client, url, event_body("evt_after_restart"))
                return old.json()["duplicate"], new.json()["duplicate"]

        assert asyncio.run(again()) == (True, False)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)
