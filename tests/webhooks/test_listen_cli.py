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

from payscope.cli.listen_run import format_text
from payscope.webhooks.deliveries import Delivery
from tests.waits import HANG, REQUEST_TIMEOUT
from tests.webhooks.conftest import SECRET, event_body, post_signed

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _listen(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "payscope", "listen", *args],
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
        proc.wait(HANG)


def _print_secret(
    data: Path, *extra: str, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "payscope", "listen", "--data", str(data), "--print-secret", *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG,
        check=check,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.keyring
def test_print_secret_generates_one_into_the_keyring_and_reuses_it(
    tmp_path: Path, real_keyring: object
) -> None:
    import keyring

    try:
        first = _print_secret(tmp_path)
        generated = first.stdout.strip()
        assert re.fullmatch(r"[A-Za-z0-9]{64}", generated)
        assert "stored it in the OS keyring" in first.stderr
        assert keyring.get_password("payscope", "listener:webhook") == generated
        assert _print_secret(tmp_path).stdout.strip() == generated  # kept, not regenerated
        assert _print_secret(tmp_path, "--secret", "given-one").stdout.strip() == "given-one"
        env = {"PAYSCOPE_WEBHOOK_SECRET": "from-env"}
        assert _print_secret(tmp_path, env=env).stdout.strip() == "from-env"
        # Never in a file: nothing under the data dir holds it.
        assert not any(
            generated.encode() in p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()
        )
    finally:
        keyring.delete_password("payscope", "listener:webhook")


def test_without_a_secret_or_a_keyring_it_says_how_to_give_one(tmp_path: Path) -> None:
    done = _print_secret(
        tmp_path, env={"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}, check=False
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert "--secret" in done.stderr and "PAYSCOPE_WEBHOOK_SECRET" in done.stderr
    # The listener's own ways, not the API key's: it never reads PAYSCOPE_API_KEY.
    assert "PAYSCOPE_API_KEY" not in done.stderr
    assert "gnome-keyring" in done.stderr  # how to get a keyring that can keep it


def test_json_format_prints_one_object_per_delivery_and_stops_cleanly(tmp_path: Path) -> None:
    with running(
        "--port", "0", "--data", str(tmp_path), "--secret", SECRET, "--format", "json"
    ) as (proc, url, _header):

        async def send() -> None:
            async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as client:
                body = event_body("evt_cli", object_id="pay_cli")
                await post_signed(client, url, body)
                await post_signed(client, url, body)
                await post_signed(client, url, body, secret="not-it")

        asyncio.run(send())
        assert proc.stdout is not None
        lines = [json.loads(proc.stdout.readline()) for _ in range(3)]
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=HANG)

    first, dup, rejected = lines
    expected_keys = {"event_id", "event_type", "object_id", "status", "verified", "duplicate"}
    assert expected_keys <= first.keys()
    assert (first["event_id"], first["event_type"]) == ("evt_cli", "payment_succeeded")
    assert (first["object_id"], first["status"]) == ("pay_cli", "succeeded")
    assert (first["verified"], first["duplicate"]) == (True, False)
    assert (dup["event_id"], dup["duplicate"]) == ("evt_cli", True)
    assert rejected["verified"] is False and "does not match" in rejected["reason"]
    assert proc.returncode == 0
    assert "stopped; 1 event in" in err
    assert SECRET not in err


def test_text_header_masks_the_secret(tmp_path: Path) -> None:
    secret = "s3cr3t-" + "x" * 40 + "-tail"
    with running(
        "--port", "0", "--data", str(tmp_path), "--secret", secret, header_on="stdout"
    ) as (proc, _, out):
        proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=HANG)
    out += rest
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
            [
                sys.executable,
                "-m",
                "payscope",
                "listen",
                "--port",
                str(port),
                "--data",
                str(tmp_path),
                "--secret",
                SECRET,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=HANG,
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
            async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT, limits=limits) as client:
                pending = iter(range(1500))

                async def sender() -> None:
                    nonlocal failures
                    for i in pending:
                        event_id = f"evt_burst_{i:05d}"
                        try:
                            response = await post_signed(client, url, event_body(event_id))
                        except httpx.HTTPError:
                            failures += 1
                            continue
                        if response.status_code == 200:
                            acked.append(event_id)
                            if len(acked) == 300:
                                os.kill(proc.pid, signal.SIGKILL)

                # 40 senders at once, each sending one event after another.
                await asyncio.gather(*(sender() for _ in range(40)))
            return failures

        failures = asyncio.run(burst())
        proc.wait(HANG)

    assert proc.returncode == -signal.SIGKILL
    assert len(acked) >= 300 and failures > 0, "the kill did not land mid-burst"
    with sqlite3.connect(tmp_path / "journal.sqlite3") as db:
        stored = {row[0] for row in db.execute("SELECT event_id FROM events")}
    assert set(acked) <= stored

    # Restarted on the same journal: it opens, and knows what it already acknowledged.
    with running(*args) as (proc, url, _header):

        async def again() -> tuple[bool, bool]:
            async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as client:
                old = await post_signed(client, url, event_body(acked[0]))
                new = await post_signed(client, url, event_body("evt_after_restart"))
                return old.json()["duplicate"], new.json()["duplicate"]

        assert asyncio.run(again()) == (True, False)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=HANG)


def test_ctrl_c_during_a_burst_with_a_stuck_sender_exits_cleanly_with_the_journal_intact(
    tmp_path: Path,
) -> None:
    """SIGINT mid-burst, while one sender has announced a body it never finishes."""
    args = ("--port", "0", "--data", str(tmp_path), "--secret", SECRET, "--format", "json")
    acked: list[str] = []
    with running(*args) as (proc, url, _header):
        host, port = url.split("/")[2].split(":")
        # Holds a request open (the body never ends): stopping must not wait for it forever.
        stuck = socket.create_connection((host, int(port)))
        stuck.sendall(
            b"POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b'Content-Length: 500\r\n\r\n{"event_id":'
        )

        async def burst() -> None:
            async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as client:

                async def sender(n: int) -> None:
                    for i in range(200):
                        event_id = f"evt_sigint_{n}_{i:04d}"
                        try:
                            response = await post_signed(client, url, event_body(event_id))
                        except httpx.HTTPError:
                            return
                        if response.status_code == 200:
                            acked.append(event_id)
                        if len(acked) == 150:
                            proc.send_signal(signal.SIGINT)

                await asyncio.gather(*(sender(n) for n in range(10)))

        try:
            asyncio.run(burst())
            out, err = proc.communicate(timeout=HANG)
        finally:
            stuck.close()

    assert proc.returncode == 0, err
    assert re.search(r"stopped; \d+ events? in", err)
    with sqlite3.connect(tmp_path / "journal.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        stored = {row[0] for row in db.execute("SELECT event_id FROM events")}
    assert len(acked) >= 150 and set(acked) <= stored
    records = [json.loads(line) for line in out.splitlines()]
    documented = {
        "received_at", "event_id", "event_type", "object_id", "status", "verified",
        "duplicate", "duplicate_count", "http_status",
    }  # fmt: skip
    for record in records:
        expected = documented if record["http_status"] == 200 else documented | {"reason"}
        assert record.keys() == expected
    # The stuck sender never finished its body; if stopping reached it, it is shown as such.
    assert all(r["http_status"] in (200, 499) for r in records)


def test_an_unusable_forward_url_is_refused_before_listening(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "payscope", "listen", "--port", "0", "--data", str(tmp_path),
         "--secret", SECRET, "--forward-to", "http://[::1/hooks"],
        cwd=ROOT, capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--forward-to" in done.stderr and "not a valid URL" in done.stderr
