"""`payscope logs tail` (tui/payscope/cli/logs.py) and the shared request log it follows
(tui/payscope/api/request_log.py): the calls of every payscope on the profile, made here by other
processes, as they happen; filters; redaction and neutralisation; Ctrl+C."""

from __future__ import annotations

import json
import os
import queue
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from payscope.api.request_log import (
    RequestLogFollower,
    RequestLogWriter,
    request_log_path,
)
from payscope.core import paths
from tests.cli.conftest import Remote, payscope, spawn, stop
from tests.sandbox.conftest import API_KEY
from tests.waits import HANG

WAIT = 60.0  # a bound on a wait for an event, never a pause: each wait ends at the event


class Tail:
    """A running `payscope logs tail`: its lines, read off its output as they come."""

    def __init__(self, *args: str) -> None:
        self.proc = spawn("logs", "tail", *args)
        self.lines: queue.Queue[str] = queue.Queue()
        assert self.proc.stdout is not None and self.proc.stderr is not None
        threading.Thread(target=self._read, daemon=True).start()
        started = self.proc.stderr.readline()  # said once the log is being followed
        assert "following the requests" in started, started + self.proc.stderr.read()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def next(self) -> str:
        try:
            return self.lines.get(timeout=WAIT)
        except queue.Empty:
            raise AssertionError("no line from payscope logs tail") from None

    def interrupt(self) -> tuple[int, str]:
        """Ctrl+C: its exit status and what it said on standard error."""
        self.proc.send_signal(signal.SIGINT)
        status = self.proc.wait(HANG)
        assert self.proc.stderr is not None
        return status, self.proc.stderr.read()


@pytest.fixture
def tails() -> Iterator[list[Tail]]:
    started: list[Tail] = []
    yield started
    for tail in started:
        stop(tail.proc)


def _fixture(tmp_path: Path) -> Path:
    path = tmp_path / "one.toml"
    path.write_text(
        'name = "one"\n[[steps]]\nname = "list"\nmethod = "GET"\npath = "/payments/list"\n'
    )
    return path


async def test_every_payscope_on_the_profile_as_it_happens(
    remote: Remote, tails: list[Tail], tmp_path: Path
) -> None:
    tail = Tail("--profile", "box", "--format", "json")
    tails.append(tail)
    # Another process: a command of the command line.
    assert payscope("get", "/payments/list", "--profile", "box").returncode == 0
    first = json.loads(tail.next())
    assert (first["source"], first["method"], first["path"], first["status"]) == (
        "get",
        "GET",
        "/payments/list",
        200,
    )
    assert first["pid"] != os.getpid() and first["latency_ms"] >= 0
    # A fixture run, in another process too.
    done = payscope("fixtures", "run", str(_fixture(tmp_path)), "--profile", "box")
    assert done.returncode == 0, done.stderr
    fixture = json.loads(tail.next())
    assert fixture["source"] == "fixtures" and fixture["path"] == "/payments/list"
    # The TUI's client, as the TUI starts it (a runtime on the profile), in this process.
    from payscope.app.runtime import Runtime
    from payscope.cli.headless import runtime_options

    class Args:
        profile = "box"
        command = None

    options = runtime_options(Args())  # type: ignore[arg-type]
    options.request_log_source = "tui"
    runtime = Runtime(options)
    client = await runtime.start_client()
    try:
        from payscope.api import errors

        with pytest.raises(errors.NotFoundError):
            await client.request("GET", "/payments/snd_looks_like_a_key_0123456789")
    finally:
        await client.aclose()
    tui = json.loads(tail.next())
    assert tui["source"] == "tui" and tui["pid"] == os.getpid() and tui["status"] == 404
    assert tui["code"] == "IR_05" and tui["message"]
    # Redacted as the journal redacts: the key-shaped id, and never the profile's key.
    assert "snd_looks_like" not in json.dumps(tui) and "[REDACTED]" in tui["path"]
    assert API_KEY not in request_log_path(paths.data_dir(), "box").read_text()
    status, said = tail.interrupt()
    assert status in (0, 130) and "Traceback" not in said


def test_filters_let_through_only_what_they_name(remote: Remote, tails: list[Tail]) -> None:
    tail = Tail("--profile", "box", "--status", "4xx", "--method", "GET", "--path", "/payments")
    tails.append(tail)
    calls = [
        ("get", "/customers/list"),  # 200
        ("get", "/customers/cus_missing_0000000"),  # 404, another path
        ("delete", "/payments/pay_missing_000000"),  # 4xx, another method
        ("get", "/payments/list"),  # 200 on the path
        ("get", "/payments/pay_missing_000000"),  # what the filters let through
    ]
    for method, path in calls:
        payscope(method, path, "--profile", "box")
    line = tail.next()
    # Lines come in order, so every call above was read and refused but the last.
    assert " GET    404  /payments/pay_missing_000000 " in line and "IR_05" in line
    assert "[get " in line
    assert tail.lines.empty()
    status, said = tail.interrupt()
    assert status in (0, 130) and "Traceback" not in said


def test_a_bad_filter_or_profile_is_said() -> None:
    bad = payscope("logs", "tail", "--status", "4x")
    assert bad.returncode == 2 and "is not a status" in bad.stderr
    unknown = payscope("logs", "tail", "--profile", "nobody")
    assert (
        unknown.returncode == 2 and "nobody" in unknown.stderr and "Traceback" not in unknown.stderr
    )


def test_text_from_outside_is_neutralised(tails: list[Tail]) -> None:
    """The log is a file: whatever is in it reaches the terminal only as visible text."""
    tail = Tail()
    tails.append(tail)
    hostile = {
        "v": 1,
        "at": time.time(),
        "source": "get\x1b]0;owned\x07",
        "pid": 1,
        "method": "GET",
        "path": "/payments/\u202eevil",
        "status": 404,
        "latency_ms": 1.0,
        "attempt": 1,
        "code": "IR_05",
        "message": "no \x1b[2Jsuch\rthing\x9b31m",
        "error": None,
        "request_id": None,
    }
    log = request_log_path(paths.data_dir(), None)
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a", encoding="utf-8") as handle:
        deep = "[" * 8000 + "]" * 8000  # under the longest line, past what a parse takes
        handle.write(f"not json\n{'x' * 100_000}\n{deep}\n{json.dumps(hostile)}\n")
    line = tail.next()
    assert not any(ch in line for ch in "\x1b\x07\r\u202e\x9b")
    assert "\\x1b[2Jsuch\\rthing\\x9b31m" in line and "/payments/\\u202eevil" in line


def test_ctrl_c_ends_it_cleanly_while_it_waits() -> None:
    tail = Tail("--format", "json")
    status, said = tail.interrupt()
    assert status in (0, 130) and "Traceback" not in said


def test_the_follower_reads_whole_lines_across_a_rotation(tmp_path: Path) -> None:
    from payscope.api.journal import JournalEntry, RequestJournal

    path = tmp_path / "requests" / "local.jsonl"
    follower = RequestLogFollower(path)  # before the log exists: it is waited for
    writer = RequestLogWriter(path, "test", max_bytes=2000)
    journal = RequestJournal()
    writer.attach(journal)

    def call(number: int) -> None:
        journal.record(
            JournalEntry(
                id=number,
                call_id=number,
                attempt=1,
                method="GET",
                url=f"http://x/payments/{number}",
                path=f"/payments/{number}",
                request_headers={},
                request_body=None,
                started_at=time.time(),
                latency_ms=1.0,
                status=200,
            )
        )

    read: list[str] = []
    for number in range(40):  # several rotations' worth
        call(number)
        if number % 3 == 2:
            read += [r.path for r in follower.poll()]
    read += [r.path for r in follower.poll()]
    follower.close()
    # Every line read once, in order, across the rotations (a follower that went on reading
    # the renamed file, or started the new one at its end, would miss or repeat some).
    assert read == [f"/payments/{number}" for number in range(40)]
    assert path.with_name("local.jsonl.1").exists()  # it was rotated
    assert path.stat().st_size <= 2000 and writer.broken is None
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert oct(path.parent.stat().st_mode & 0o777) == "0o700"


def test_a_partial_line_waits_for_its_end(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text("")
    follower = RequestLogFollower(path)
    record = {
        "v": 1,
        "at": 1.0,
        "source": "get",
        "pid": 2,
        "method": "GET",
        "path": "/x",
        "status": 200,
        "latency_ms": 1.0,
    }
    text = json.dumps(record) + "\n"
    with path.open("a") as handle:
        handle.write(text[:20])
        handle.flush()
        assert follower.poll() == []
        handle.write(text[20:])
    (got,) = follower.poll()
    assert got.path == "/x" and got.status == 200
    follower.close()


def test_on_the_embedded_sandbox(embedded: Path, tails: list[Tail]) -> None:
    tail = Tail()
    tails.append(tail)
    done = payscope("--seed", "0", "trigger", "one_step")  # starts the background sandbox
    assert done.returncode == 0, done.stderr
    line = tail.next()
    assert " POST   200  /payments " in line and "[trigger " in line
    status, said = tail.interrupt()
    assert status in (0, 130) and "Traceback" not in said
