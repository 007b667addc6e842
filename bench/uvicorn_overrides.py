"""Benchmark: why each of payscope's uvicorn overrides stays (tui/payscope/core/asgi_server.py).

    .venv/bin/python bench/uvicorn_overrides.py [--stops 20] [--slow 100]

uvicorn is used through `Config` and `Server`, as documented. Three things of it are overridden,
and each is measured here against uvicorn as it ships (same app, same machine, same run):

1. Stopping (`_QuietServer.main_loop`, `shutdown`): uvicorn looks at `should_exit` every 0.1 s
   and sleeps 0.1 s after asking its connections to close, so every stop of an idle server
   costs 0.1-0.2 s, and the TUI stops its sandbox and listener on every quit. Printed: the
   median time from asking an idle server to stop until it has stopped, both ways.
2. The request head's size (`LimitedHttpToolsProtocol`): httptools has no bound; uvicorn
   buffers a head however long it is. Printed: the server process's peak RSS growth while 4
   clients each send a 16 MiB header line, and what each was answered.
3. Slow senders (`LimitedHttpToolsProtocol.head_timeout`): uvicorn has no deadline for a
   request head (`timeout_keep_alive` is only between requests). Printed: of `--slow`
   connections that send a head one byte a second, how many are still held open 12 s later.

Signals (`capture_signals`) are overridden for embedding only (the TUI owns Ctrl+C), which no
figure measures. Exits 1 when an override no longer makes the difference it is kept for.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from results import Figure, record  # bench/ is on the path when run as a script

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MIB = 1024 * 1024


async def _app(scope: dict, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


# -- 1. stopping an idle server ----------------------------------------------------------------


async def _stop_plain() -> float:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(_app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.005)
    began = time.perf_counter()
    server.should_exit = True
    await task
    took = time.perf_counter() - began
    sock.close()
    return took


async def _stop_ours() -> float:
    from payscope.core.asgi_server import EmbeddedServer

    server = EmbeddedServer(_app)
    await server.start()
    began = time.perf_counter()
    await server.stop()
    return time.perf_counter() - began


def stopping(runs: int) -> tuple[float, float]:
    plain, ours = [], []
    for _ in range(runs):  # alternated, so both see the same load
        plain.append(asyncio.run(_stop_plain()))
        ours.append(asyncio.run(_stop_ours()))
    return statistics.median(plain) * 1000, statistics.median(ours) * 1000


# -- the other two: a server in a process of its own -----------------------------------------


def _serve_child(kind: str) -> None:
    """Serve `_app` on a free port (its number on stdout) until stdin ends."""
    import threading

    import uvicorn

    from payscope.core.asgi_server import LimitedHttpToolsProtocol

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    http = LimitedHttpToolsProtocol if kind == "limited" else "httptools"
    config = uvicorn.Config(_app, log_level="critical", access_log=False, http=http)
    server = uvicorn.Server(config)
    sock.listen(2048)  # connections queue from now on, before uvicorn accepts them
    print(sock.getsockname()[1], flush=True)

    def until_stdin_ends() -> None:
        sys.stdin.read()
        server.should_exit = True

    threading.Thread(target=until_stdin_ends, daemon=True).start()
    asyncio.run(server.serve(sockets=[sock]))


class _Child:
    def __init__(self, kind: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--child", kind],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert self.process.stdout is not None
        self.port = int(self.process.stdout.readline())

    def rss_mib(self, field: str = "VmRSS") -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError(f"no {field}")

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


async def _long_header(port: int) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: ")
        chunk = b"a" * MIB
        for _ in range(16):
            writer.write(chunk)
            try:
                await asyncio.wait_for(writer.drain(), 10)
            except (ConnectionError, TimeoutError):
                break
        with contextlib.suppress(ConnectionError):
            writer.write(b"\r\n\r\n")
            await writer.drain()
        try:
            answer = await asyncio.wait_for(reader.readline(), 10)
        except (ConnectionError, TimeoutError):
            answer = b""
        return answer.strip() or b"(no answer)"
    finally:
        writer.close()


def head_size(kind: str) -> tuple[float, list[str]]:
    child = _Child(kind)
    try:
        before = child.rss_mib()

        async def four() -> list[bytes]:
            return list(await asyncio.gather(*(_long_header(child.port) for _ in range(4))))

        answers = asyncio.run(four())
        peak = child.rss_mib("VmHWM")
        return peak - before, sorted({a.decode("latin-1") for a in answers})
    finally:
        child.close()


async def _slow_senders(port: int, count: int, hold: float) -> int:
    """Open `count` connections that send a head a byte a second; how many are open at `hold`."""
    open_ones: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    for _ in range(count):
        open_ones.append(await asyncio.open_connection("127.0.0.1", port))
    head = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"b" * 64
    began = time.monotonic()
    sent = 0
    while time.monotonic() - began < hold:
        for _, writer in open_ones:
            if not writer.is_closing():
                with contextlib.suppress(ConnectionError):
                    writer.write(head[sent % len(head) : sent % len(head) + 1])
        sent += 1
        await asyncio.sleep(1)
    held = 0
    for reader, writer in open_ones:
        try:
            writer.write(b"c")
            await writer.drain()
            # A server that closed the connection has sent EOF (and maybe a 408) by now.
            data = await asyncio.wait_for(reader.read(1024), 0.05)
            if data == b"":
                continue
            if data.startswith(b"HTTP/1.1 408"):
                continue
            held += 1
        except TimeoutError:
            held += 1  # nothing came back: still held open, waiting for the rest of the head
        except ConnectionError:
            pass
        finally:
            writer.close()
    return held


def slow(kind: str, count: int) -> int:
    child = _Child(kind)
    try:
        return asyncio.run(_slow_senders(child.port, count, hold=12.0))
    finally:
        child.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stops", type=int, default=20)
    parser.add_argument("--slow", type=int, default=100)
    parser.add_argument("--child", choices=["plain", "limited"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _serve_child(args.child)
        return 0

    plain_stop, our_stop = stopping(args.stops)
    print(f"1. stop an idle server: uvicorn {plain_stop:.1f} ms, payscope's {our_stop:.1f} ms")
    plain_rss, plain_answers = head_size("plain")
    our_rss, our_answers = head_size("limited")
    print(
        f"2. four 16 MiB header lines: uvicorn +{plain_rss:.1f} MiB ({', '.join(plain_answers)}), "
        f"payscope's +{our_rss:.1f} MiB ({', '.join(our_answers)})"
    )
    plain_held = slow("plain", args.slow)
    our_held = slow("limited", args.slow)
    print(
        f"3. {args.slow} slow senders, 12 s on: uvicorn holds {plain_held} open, "
        f"payscope's {our_held}"
    )
    figures = [
        Figure("stop an idle server, uvicorn as shipped", plain_stop, "ms"),
        Figure("stop an idle server, payscope's", our_stop, "ms", "<", plain_stop / 4),
        Figure("RSS growth, four 16 MiB header lines, uvicorn as shipped", plain_rss, "MiB"),
        Figure("RSS growth, four 16 MiB header lines, payscope's", our_rss, "MiB", "<=", 8.0),
        Figure(f"slow senders held open after 12 s (of {args.slow}), uvicorn", plain_held, ""),
        Figure(
            f"slow senders held open after 12 s (of {args.slow}), payscope's", our_held, "", "==", 0
        ),
    ]
    record(
        "uvicorn_overrides",
        figures,
        what="each override of uvicorn in tui/payscope/core/asgi_server.py against uvicorn as it "
        "ships",
    )
    return 0 if all(f.met is not False for f in figures) else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.exit(main())
