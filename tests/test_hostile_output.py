"""No raw control byte reaches the terminal from outside (tui/payscope/api/terminal.py, issue 38): a
remote that answers with escape sequences (OSC 52 that sets the clipboard, CSI 2J that clears
the screen), one-character C1 controls (U+009B, U+009D) and bidi overrides (U+202E), in its error
messages, its headers (with obs-text bytes) and its bodies, is run through every headless
command's output path, in the real command, and what it printed (stdout and stderr) holds no raw
control character: each is shown escaped, and the JSON outputs stay valid JSON. The remote is a
real server on a loopback port writing its bytes raw (tests/hostile_server.py); the webhook
carrying them to `payscope listen` is really signed and sent."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest

from payscope.api.terminal import safe_json, safe_text
from payscope.core import config
from tests.api.conftest import KEY
from tests.hostile_server import HOSTILE, Answer, envelope, raw_controls, raw_server
from tests.tools.conftest import Done, payscope
from tests.waits import HANG, REQUEST_TIMEOUT
from tests.webhooks.conftest import SECRET, post_signed
from tests.webhooks.test_listen_cli import running

# The hostile text as it must be shown (escaped; the rest of it kept).
SHOWN = safe_text(HOSTILE)
OBS_HEADER = (b"X-Note", b"caf\xe9 \x9b2J \xe2\x80\xae")


def clean(done: Done) -> None:
    """Nothing the command printed holds a raw control character (newline and tab aside)."""
    assert raw_controls(done.out) == [], done.out
    assert raw_controls(done.err) == [], done.err
    assert "Traceback" not in done.err


def hostile_error(_request: Any) -> Answer:
    return Answer(400, envelope(HOSTILE), reason=b"Bad \xe9", headers=[OBS_HEADER])


@pytest.fixture
def hostile_profile(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Profile "hostile" on a raw server that answers every call with the hostile error."""

    async def start(answer: Any = hostile_error) -> Any:
        context = raw_server(answer)
        server = await context.__aenter__()
        profile = config.Profile(
            name="hostile",
            base_url=server.url,
            merchant_id="merchant_hostile",
            profile_id="pro_hostile",
            contract="spec",
        )
        config.save_settings(config.add_profile(config.load_settings(), profile))
        monkeypatch.setenv("PAYSCOPE_API_KEY", KEY)
        return context, server

    return start


async def test_export_says_a_hostile_remote_s_error_escaped(
    hostile_profile: Any, tmp_path: Path
) -> None:
    context, server = await hostile_profile()
    try:
        done = await payscope(
            "export", "payments", "--profile", "hostile", "--output", str(tmp_path / "p.csv")
        )
    finally:
        await context.__aexit__(None, None, None)
    assert server.seen, "the command never reached the remote"
    assert done.status == 1
    clean(done)
    assert SHOWN in done.err  # said, escaped, not dropped


@pytest.mark.parametrize("fmt", ["text", "json"])
async def test_fixtures_run_says_a_hostile_remote_s_error_escaped(
    hostile_profile: Any, tmp_path: Path, fmt: str
) -> None:
    fixture = tmp_path / "one.toml"
    fixture.write_text(
        f'name = "n{HOSTILE}"\n'.replace("\x1b", "\\u001b")
        .replace("\x07", "\\u0007")
        .replace("\x08", "\\b")
        .replace("\r", "\\r")
        + '[[steps]]\nname = "make"\nmethod = "POST"\npath = "/payments"\n'
        'body = { amount = 100, currency = "USD" }\n'
    )
    context, server = await hostile_profile()
    try:
        done = await payscope(
            "fixtures", "run", str(fixture), "--profile", "hostile", "--format", fmt
        )
    finally:
        await context.__aexit__(None, None, None)
    assert server.seen
    assert done.status == 1
    clean(done)
    assert SHOWN in done.err
    if fmt == "json":
        (failure,) = [json.loads(line) for line in done.out.splitlines()]
        assert HOSTILE in failure["error"]  # valid JSON, the value kept exactly
    else:
        assert SHOWN in done.out  # the fixture's own name, from the file


@pytest.mark.parametrize("fmt", ["text", "json"])
async def test_send_event_prints_a_hostile_target_s_answer_escaped(
    tmp_path: Path, fmt: str
) -> None:
    secret = tmp_path / "secret"
    secret.write_text(SECRET)

    def answer(_request: Any) -> Answer:
        body = (HOSTILE + "\n" + HOSTILE).encode()
        return Answer(500, body, reason=b"Oops \x9b", headers=[OBS_HEADER, (b"X-Echo", b"\x1b]52")])

    async with raw_server(answer) as server:
        done = await payscope(
            "send-event",
            "--type",
            "payment_succeeded",
            "--to",
            server.url + "/webhooks",
            "--secret-file",
            str(secret),
            "--format",
            fmt,
        )
    assert server.seen
    assert done.status == 1
    clean(done)
    if fmt == "json":
        said = json.loads(done.out)
        assert said["status"] == 500 and said["body"] == HOSTILE + "\n" + HOSTILE
    else:
        assert SHOWN in done.out and "500" in done.out


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_listen_prints_a_hostile_webhook_escaped(tmp_path: Path, fmt: str) -> None:
    args = ["--port", "0", "--data", str(tmp_path), "--secret", SECRET, "--format", fmt]
    header_on = "stderr" if fmt == "json" else "stdout"
    with running(*args, header_on=header_on) as (proc, url, _header):
        accepted = {
            "merchant_id": "m",
            "event_id": "evt_hostile",
            "event_type": "payment_succeeded",
            "content": {
                "type": "payment_details",
                "object": {"payment_id": HOSTILE, "status": HOSTILE},
            },
            "timestamp": _now(),
        }
        refused = {**accepted, "event_id": "evt_" + HOSTILE, "timestamp": "not " + HOSTILE}

        async def send() -> list[int]:
            async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as client:
                statuses = []
                for body in (accepted, refused):
                    raw = json.dumps(body).encode()
                    statuses.append((await post_signed(client, url, raw)).status_code)
                statuses.append((await post_signed(client, url, b"{", secret="not-it")).status_code)
                return statuses

        statuses = asyncio.run(send())
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=HANG)
    done = Done(proc.returncode, out, err)
    assert statuses[0] == 200 and statuses[1] >= 400
    clean(done)
    lines = [line for line in out.splitlines() if line.strip()]
    if fmt == "json":
        records = [json.loads(line) for line in lines]
        assert records[0]["object_id"] == HOSTILE and records[0]["status"] == HOSTILE
        assert len(records) == 3
    else:
        assert any(safe_text(HOSTILE, one_line=True) in line for line in lines), out


def _now() -> str:
    from tests.webhooks.conftest import iso_now

    return iso_now()


def test_the_neutraliser_escapes_every_control_and_keeps_the_rest() -> None:
    every = "".join(chr(c) for c in range(0x00, 0xA0)) + "\u202a\u202b\u202c\u202d\u202e"
    every += "\u2066\u2067\u2068\u2069 é 日本 \U0001f600"
    shown = safe_text(every)
    assert raw_controls(shown) == [] and "\t" in shown and "\n" in shown
    assert "\\x1b" in shown and "\\x9b" in shown and "\\u202e" in shown and "\\x07" in shown
    assert "é 日本 \U0001f600" in shown
    one_line = safe_text(every, one_line=True)
    assert "\n" not in one_line and "\t" not in one_line and "\\n" in one_line
    as_json = safe_json({"k": every})
    assert raw_controls(as_json) == [] and json.loads(as_json) == {"k": every}
    assert "\\u001b" in as_json and "\\u009b" in as_json and "\\u202e" in as_json
    assert safe_text(shown) == shown  # escaping twice changes nothing
    assert safe_text("\ud800") == "\\ud800"  # a lone surrogate, which no terminal can take
