"""The handler's answer kept on every forward and replay: status, headers, body (up to 64 KiB)
and latency, in the journal; the event's detail shows the last one and how it differs from the
one before; `payscope listen --forward-to --format json` prints it. Real signed requests to a
real listener, forwarded to a real HTTP handler."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import httpx

from payscope.areas.events.detail import answer_text
from payscope.core.asgi_server import EmbeddedServer
from payscope.webhooks.listener import Listener
from tests.waits import awaited
from tests.webhooks.conftest import SECRET, client, event_body, post_signed  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]


class Handler:
    """A merchant's handler whose answer changes from call to call."""

    def __init__(self) -> None:
        self.calls = 0
        self.url = ""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        while (await receive()).get("more_body"):
            pass
        self.calls += 1
        if self.calls == 1:
            status, body = 500, b'{"error":"db down"}\nretry later\n'
        else:
            status, body = 200, b'{"ok":true}\n' + b"x" * 70_000  # over 64 KiB
        headers = [
            (b"content-type", b"application/json"),
            (b"x-handler-call", str(self.calls).encode()),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


async def test_every_replay_keeps_the_answer_and_the_detail_shows_what_changed(
    tmp_path: Path,
    client: httpx.AsyncClient,  # noqa: F811
) -> None:
    handler = Handler()
    server = EmbeddedServer(handler, "127.0.0.1", 0)
    handler.url = await server.start() + "/hooks"
    listener = Listener(tmp_path / "l", [SECRET])
    url = await listener.start(port=0)
    try:
        assert (await post_signed(client, url, event_body("evt_answer"))).status_code == 200
        first = await listener.replay("evt_answer", handler.url)
        second = await listener.replay("evt_answer", handler.url)
        assert (first.status, second.status) == (500, 200)
        detail = listener.journal.get("evt_answer")
        assert detail is not None
        kept = detail.forwards
        assert [f.status for f in kept] == [500, 200]
        assert kept[0].headers is not None and kept[0].headers["x-handler-call"] == "1"
        assert kept[0].body == '{"error":"db down"}\nretry later\n'
        assert kept[1].body is not None and len(kept[1].body) == 64 * 1024
        assert all(f.latency_ms is not None and f.latency_ms > 0 for f in kept)

        shown = answer_text(kept[1], kept[0]).plain
        assert "Last answer: 200" in shown and "x-handler-call: 2" in shown
        assert "status 500 -> 200" in shown
        assert "x-handler-call: 1 -> 2" in shown
        assert '-{"error":"db down"}' in shown and '+{"ok":true}' in shown
        assert "Against the answer before it: the same" in answer_text(kept[1], kept[1]).plain
    finally:
        await listener.stop()
        await server.stop()


async def test_listen_forward_to_prints_the_answer_as_json(
    tmp_path: Path,
    client: httpx.AsyncClient,  # noqa: F811
) -> None:
    handler = Handler()
    server = EmbeddedServer(handler, "127.0.0.1", 0)
    handler.url = await server.start() + "/hooks"
    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET)
    proc = await asyncio.create_subprocess_exec(
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
        "--forward-to",
        handler.url,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        limit=2**20,  # a line holds a 64 KiB answer
    )
    try:
        assert proc.stderr is not None and proc.stdout is not None
        header = ""
        while "Ctrl+C stops." not in header:
            line = (await awaited(proc.stderr.readline())).decode()
            assert line, header
            header += line
        found = re.search(r"(http://\S+/webhooks)", header)
        assert found, header
        assert (await post_signed(client, found.group(1), event_body("evt_cli"))).status_code == 200
        forwards: list[dict[str, Any]] = []
        while len(forwards) < 2:  # the first answer is a 500: retried in 1 s, then a 200
            line = json.loads(await awaited(proc.stdout.readline()))
            if "forward" in line:
                forwards.append(line["forward"])
        assert [f["http_status"] for f in forwards] == [500, 200]
        assert forwards[0]["headers"]["x-handler-call"] == "1"
        assert forwards[0]["body"] == '{"error":"db down"}\nretry later\n'
        assert len(forwards[1]["body"]) == 64 * 1024 and forwards[1]["latency_ms"] > 0
    finally:
        proc.kill()  # ours: started above
        await proc.wait()
        await server.stop()
