"""`payscope send-event`: a composed event, signed, verified by `payscope listen` running in
another process; a wrong secret is refused there, and its answer is printed here."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from payscope.webhooks import compose
from tests.tools.conftest import ROOT, Service, payscope
from tests.waits import HANG

SECRET = "composer-test-secret-0123456789abcdefghijklmnop"


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str, Path]]:
    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET + "\n")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "payscope",
            "listen",
            "--port",
            "0",
            "--data",
            str(tmp_path / "l"),
            "--secret-file",
            str(secret_file),
            "--format",
            "json",
            "--no-freshness",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stderr is not None
        header = ""
        while "Ctrl+C stops." not in header:
            line = proc.stderr.readline()
            assert line, header
            header += line
        found = re.search(r"(http://\S+/webhooks)", header)
        assert found, header
        yield proc, found.group(1), secret_file
    finally:
        proc.kill()  # ours: started above
        proc.wait(HANG)


def next_line(proc: subprocess.Popen[str]) -> dict[str, object]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, "the listener printed nothing"
    loaded: dict[str, object] = json.loads(line)
    return loaded


async def test_a_template_event_is_verified_by_payscope_listen(
    listener: tuple[subprocess.Popen[str], str, Path],
) -> None:
    proc, url, secret_file = listener
    done = await payscope(
        "send-event",
        "--type",
        "payment_succeeded",
        "--to",
        url,
        "--secret-file",
        str(secret_file),
        "--format",
        "json",
    )
    assert done.status == 0, done.err
    answer = json.loads(done.out)
    assert answer["status"] == 200 and answer["latency_ms"] > 0
    assert "content-type" in answer["headers"]
    seen = next_line(proc)
    assert seen["event_id"] == answer["event_id"]
    assert seen["event_type"] == "payment_succeeded"
    assert seen["verified"] is True and seen["http_status"] == 200
    assert SECRET not in done.out + done.err


async def test_a_file_is_sent_byte_for_byte_and_a_wrong_secret_is_refused(
    listener: tuple[subprocess.Popen[str], str, Path], tmp_path: Path
) -> None:
    proc, url, secret_file = listener
    event = compose.template("refund_failed", obj={"refund_id": "ref_x1", "status": "failed"})
    body = tmp_path / "event.json"
    body.write_text(json.dumps(event, indent=2))
    done = await payscope(
        "send-event", "--file", str(body), "--to", url, "--secret-file", str(secret_file)
    )
    assert done.status == 0, done.err
    assert done.out.startswith(f"{event['event_id']} -> {url}: 200 in ")
    assert next_line(proc)["event_id"] == event["event_id"]

    wrong = tmp_path / "wrong"
    wrong.write_text("not-the-secret-at-all-0123456789")
    event2 = compose.template("payout_failed")
    body.write_text(json.dumps(event2))
    done = await payscope(
        "send-event",
        "--file",
        str(body),
        "--to",
        url,
        "--secret-file",
        str(wrong),
        "--format",
        "json",
    )
    assert done.status == 1
    assert json.loads(done.out)["status"] == 401
    refused = next_line(proc)
    assert refused["verified"] is False and refused["http_status"] == 401  # not read: unsigned


async def test_bad_input_is_said_and_nothing_is_sent(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"event_id": "evt_1", "event_type": "payment_failed",}')
    done = await payscope("send-event", "--file", str(bad), "--to", "http://127.0.0.1:9/x")
    assert done.status == 2 and "line 1, column" in done.err
    done = await payscope("send-event", "--type", "weird_thing", "--to", "http://127.0.0.1:9/x")
    assert done.status == 2 and "no content type" in done.err
    done = await payscope("send-event", "--type", "payment_failed", "--to", "http://127.0.0.1:9/x")
    assert done.status == 2 and "no signing secret" in done.err


def test_problems_are_said_as_the_user_types() -> None:
    assert compose.problems("{").startswith("line 1, column 2")
    assert compose.problems("[]") == "an event is a JSON object"
    assert "event_type" in compose.problems('{"event_id": "e"}')
    assert "content.object" in compose.problems('{"event_id": "e", "event_type": "t"}')
    assert compose.problems(json.dumps(compose.template("dispute_won"))) == ""


async def test_a_saved_event_step_is_sent_again_by_fixtures_run(
    listener: tuple[subprocess.Popen[str], str, Path], tmp_path: Path, service: Service
) -> None:
    from payscope.api.fixtures.files import append_event_step, load_fixture

    proc, url, secret_file = listener
    saved = tmp_path / "events.toml"
    first = compose.template("payment_failed")
    assert append_event_step(saved, first) == "payment_failed"
    second = compose.template("payment_failed")
    assert append_event_step(saved, second, url) == "payment_failed_2"
    steps = load_fixture(saved).steps
    assert [(s.method, s.path) for s in steps] == [("EVENT", ""), ("EVENT", url)]
    done = await payscope(
        "fixtures",
        "run",
        str(saved),
        "--secret-file",
        str(secret_file),
        "--event-to",
        url,
        "--format",
        "json",
        "--profile",
        "box",
    )
    assert done.status == 0, done.err
    ran = [json.loads(line) for line in done.out.splitlines()]
    assert [r["status"] for r in ran] == [200, 200]
    assert [r["made"] for r in ran] == [[first["event_id"]], [second["event_id"]]]
    seen = [next_line(proc), next_line(proc)]
    assert [s["event_id"] for s in seen] == [first["event_id"], second["event_id"]]
    assert all(s["verified"] is True for s in seen)
    # Without the secret, nothing is sent and the run says what it needs.
    done = await payscope("fixtures", "run", str(saved), "--profile", "box")
    assert done.status == 2 and "--secret-file" in done.err
