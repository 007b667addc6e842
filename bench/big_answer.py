"""How the client holds up against a remote service that answers big (issue 30, section 5).

A stub service, in a process of its own (a remote host cannot be real here), answers:
- 38.9 MB with its Content-Length (the answer that froze the TUI for 10-21 s);
- 38.9 MB with no length, sent in chunks;
- a 12 MB page of 40,000 payments, under the limit: read, parsed and validated. Not a target
  (a real page holds at most 100 payments): printed to show what is left, the parse itself,
  which holds the GIL throughout (orjson, about 0.1 s here), while the validation goes in
  slices of 500 records.

The client runs in this process on one event loop, as in the TUI, beside a ticker that wakes
every 5 ms. For each answer the script prints the loop's longest stall (what a key pressed
meanwhile waits, at most) and the time to close the client afterwards (quitting).

Targets: a stall under 100 ms (keys answer within 100 ms) and closing under 1 s.

    .venv/bin/python bench/big_answer.py
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path

from results import Figure, record  # bench/ is on the path when run as a script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STALL_TARGET_MS = 100.0
CLOSE_TARGET_S = 1.0
RUNS = 5

STUB = r"""
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HUGE = b"[" + b"0," * 19_450_000 + b"0]"
row = {"payment_id": "pay_{:08d}", "merchant_id": "merchant_1", "status": "succeeded",
       "amount": 1000, "currency": "USD", "client_secret": "pay_x_secret_y",
       "description": "d" * 180}
PAGE = json.dumps({"size": 40000, "data": [
    {**row, "payment_id": row["payment_id"].format(i)} for i in range(40000)]}).encode()

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if self.path.startswith("/chunked"):
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            step = 1 << 20
            try:
                for i in range(0, len(HUGE), step):
                    part = HUGE[i:i + step]
                    self.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass
            return
        body = PAGE if self.path.startswith("/page") else HUGE
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass

server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
print("ready", flush=True)
server.serve_forever()
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def one(url: str, path: str) -> tuple[float, float, str]:
    """(longest loop stall in ms, close time in s, outcome) for one call to `path`."""
    import httpx

    from payscope.api import errors
    from payscope.api.client import ApiClient

    # httpx's own transport: what a remote profile uses.
    client = ApiClient(url, "snd_bench0000000000", transport=httpx.AsyncHTTPTransport())
    stall = 0.0
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal stall
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            stall = max(stall, now - last - 0.005)
            last = now

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.02)
    try:
        if path.startswith("/page"):
            from payscope.api.models.payments import PaymentListResponse

            page = await client.call("GET", path, PaymentListResponse)
            outcome = f"read {len(page.data)} records"
        else:
            await client.request("GET", path)
            outcome = "read (not refused!)"
    except errors.ResponseTooLargeError as exc:
        outcome = "refused: " + str(exc).split(",")[0]
    began = time.perf_counter()
    await client.aclose()
    closed = time.perf_counter() - began
    stop.set()
    await tick
    return stall * 1000, closed, outcome


def main() -> int:
    port = free_port()
    stub = subprocess.Popen(
        [sys.executable, "-c", STUB, str(port)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert stub.stdout is not None and stub.stdout.readline().strip() == "ready"
        url = f"http://127.0.0.1:{port}"
        figures: list[Figure] = []
        ok = True
        for name, path in (
            ("38.9 MB with its length", "/huge"),
            ("38.9 MB in chunks, no length", "/chunked"),
            ("12 MB page of 40,000 payments", "/page"),
        ):
            runs = [asyncio.run(one(url, path)) for _ in range(RUNS)]
            stalls = sorted(r[0] for r in runs)
            closes = sorted(r[1] for r in runs)
            worst_stall, worst_close = stalls[-1], closes[-1]
            judged = not path.startswith("/page")
            met = worst_stall < STALL_TARGET_MS and worst_close < CLOSE_TARGET_S
            ok &= met or not judged
            print(
                f"{name:32s} {runs[0][2]}\n"
                f"{'':32s} loop stall: median {stalls[RUNS // 2]:.1f} ms, worst {worst_stall:.1f} "
                f"ms (target < {STALL_TARGET_MS:.0f}); close: worst {worst_close * 1000:.1f} ms "
                f"(target < {CLOSE_TARGET_S * 1000:.0f}) "
                f"{('ok' if met else 'MISSED') if judged else '(not a target)'}",
                flush=True,
            )
            outcome = runs[0][2]
            figures += [
                Figure(
                    f"{name}: loop stall, worst",
                    worst_stall,
                    "ms",
                    *(("<", STALL_TARGET_MS) if judged else (None, None)),
                    note=outcome,
                ),
                Figure(f"{name}: loop stall, median", stalls[RUNS // 2], "ms"),
                Figure(
                    f"{name}: closing the client, worst",
                    worst_close * 1000,
                    "ms",
                    *(("<", CLOSE_TARGET_S * 1000) if judged else (None, None)),
                ),
            ]
    finally:
        stub.terminate()
        stub.wait()
    record(
        "big_answer",
        figures,
        what=f"the client against a remote service that answers big (worst of {RUNS} runs each): "
        "the event loop's longest stall and the time to close the client",
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
