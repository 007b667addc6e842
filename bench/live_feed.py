"""Benchmark: the live feed at speed (issue 30, section 6).

    python bench/live_feed.py [--duration 600] [--rate 100] [--table line|datatable] [--out FILE]

The TUI runs headless (120x40) in a process of its own, as `payscope` runs it: on the background
sandbox, its listener serving from a process of its own (tui/payscope/webhooks/process.py), with the
Events screen open. This process POSTs signed webhooks to the TUI's listener over loopback at
`--rate` a second for `--duration` seconds, each at its own time (not one after the other:
a slow answer does not slow the feed), and times every acknowledgement. Meanwhile the TUI's
process measures itself, sampling every 0.1 s:

- its CPU (all its threads) over the feed; the listener's process's CPU is given beside it;
- its resident memory at the start of the feed and at the end (growth);
- how far the screen is behind the journal: how long the oldest stored event not yet on screen
  has been in the journal (0 when the newest is shown; the window follows the newest with the
  cursor on top). An event is counted as stored from the sample before the one that first saw
  it (so the figure errs long, by up to one sample). Beside it, the same from the event's
  receipt by the listener, which adds the journal's commit (the disk's fsync) to it;
- key latency: every 0.25 s a key (`down`, then `ctrl+home`) through Textual's pilot, timed until
  the screen has handled it;
- which events entered the Events table, so each is shown exactly once (none missed, none
  twice).

Targets (exit 1 when one is missed): CPU under 30% of a core; memory growth under 20 MiB; the
screen within 1 s of the journal; key latency p99 under 100 ms; acknowledgement p99 under
50 ms; every event shown exactly once. The figures go to `--out` as JSON (date, cores, Python).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import hashlib
import hmac
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGETS = {
    "cpu_percent": 30.0,
    "memory_growth_mib": 20.0,
    "screen_lag_s": 1.0,
    "key_p99_ms": 100.0,
    "ack_p99_ms": 50.0,
}
SAMPLE_EVERY = 0.1
KEY_EVERY = 0.25


def _rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _p(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(len(ordered) * q) - 1))]


# -- the TUI's process ---------------------------------------------------------------------------


async def _tui(tmp: Path, table: str) -> None:
    """Run the TUI with Events open; say where its listener is; measure until told to stop."""
    from payscope.app import make_app

    if table == "datatable":  # the baseline: Events drawn by Textual's DataTable, as before
        from payscope.areas.events.view import EventsView
        from payscope.views.table import ResourceTable

        EventsView.table_class = ResourceTable

    app = make_app(config_dir=tmp / "config", data_dir=tmp / "data", seed=50, daemon=True)
    try:
        await _measure(app)
    finally:
        from payscope.sandbox import daemon

        daemon.stop(tmp / "data" / "sandbox")  # the one this run started, in its own data dir


def _cpu_of(pid: int) -> float:
    """Seconds of CPU a process has used (bench/sandbox.py reads it); nan when unknown."""
    from sandbox import server_cpu_seconds  # bench/ is on the path when run as a script

    used = server_cpu_seconds(pid)
    return float("nan") if used is None else used


async def _measure(app: Any) -> None:
    from payscope.areas.events.view import EventsView

    async with app.run_test(size=(120, 40)) as pilot:
        await app.runtime.ready.wait()
        await _settled(app)
        app.screen.show_area("events")  # type: ignore[attr-defined]
        await pilot.pause(0.3)
        await _settled(app)
        view = app.screen.query_one(EventsView)
        view.table.focus()
        await pilot.pause()
        listener: Any = app.runtime.listener
        journal = listener.journal
        hello = {"url": listener.url, "secret": listener.secrets[0]}
        sys.stdout.write(json.dumps(hello) + "\n")
        sys.stdout.flush()

        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        started = asyncio.Event()

        def read_commands() -> None:
            for line in sys.stdin:
                command = line.strip()
                if command == "start":
                    loop.call_soon_threadsafe(started.set)
                elif command == "stop":
                    loop.call_soon_threadsafe(stop.set)
                    return

        reader = loop.run_in_executor(None, read_commands)
        # The collector's passes stop every thread, the listener's too: each full one is timed.
        full_collections: list[float] = []
        collecting = [0.0]

        def timed(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                collecting[0] = time.perf_counter()
            elif info["generation"] == 2:
                full_collections.append(time.perf_counter() - collecting[0])

        gc.callbacks.append(timed)
        await started.wait()
        rss_start = _rss_mib()
        listener_pid = listener.pid  # its own process (tui/payscope/webhooks/process.py)
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        listener_cpu_start = _cpu_of(listener_pid)
        # How many times each event entered the table, by the number in its id (the sender
        # numbers them): a byte each, so the count itself is not memory the TUI is charged
        # with (a dict of 60,000 ids took about 8 MiB of the "growth").
        entries = bytearray()
        others: dict[str, int] = {}

        def entered(event_id: str) -> None:
            head, _, number = event_id.rpartition("_")
            if head != "evt_feed" or not number.isdigit():
                others[event_id] = others.get(event_id, 0) + 1
                return
            n = int(number)
            if n >= len(entries):
                entries.extend(bytes(n + 1 - len(entries) + 4096))
            entries[n] = min(entries[n] + 1, 255)

        shown: set[str] = set()
        lags: list[float] = []
        receipt_lags: list[float] = []
        # (the newest seq the journal held at a sample, the time of the sample before it): when
        # each event was first known stored, at the latest; the ones shown are dropped.
        stored: collections.deque[tuple[int, float]] = collections.deque()
        newest_seq, last_sample = 0, time.time()
        keys: list[float] = []
        rss_max = rss_start
        next_key = time.perf_counter() + KEY_EVERY
        while not stop.is_set():
            await asyncio.sleep(SAMPLE_EVERY)
            now = time.time()
            current = set(view.rows)
            for event_id in current - shown:
                entered(event_id)
            shown = current
            top = next(iter(view.rows.values()), None)
            newest = journal.newer(newest_seq, 1)
            if newest:
                newest_seq = newest[0].seq
                stored.append((newest_seq, last_sample))
            last_sample = now
            behind = journal.newer(top.seq if top else 0, 1, nearest=True)
            if behind and view.page_offset == 0:
                while len(stored) > 1 and stored[0][0] < behind[0].seq:
                    stored.popleft()
                lags.append(now - stored[0][1] if stored else 0.0)
                receipt_lags.append(now - behind[0].first_seen)
            else:
                lags.append(0.0)
                receipt_lags.append(0.0)
            rss_max = max(rss_max, _rss_mib())
            if time.perf_counter() >= next_key:
                key = "down" if view.table.cursor_row == 0 else "ctrl+home"
                elapsed = await _key(app, view, key)
                if elapsed is not None:
                    keys.append(elapsed)
                next_key = time.perf_counter() + KEY_EVERY
        cpu = time.process_time() - cpu_start
        wall = time.perf_counter() - wall_start
        listener_cpu = _cpu_of(listener_pid) - listener_cpu_start
        # The last events: until the screen has them (or 5 s).
        await _key(app, view, "ctrl+home")
        settle = time.perf_counter() + 5
        while time.perf_counter() < settle:
            await asyncio.sleep(SAMPLE_EVERY)
            for event_id in set(view.rows) - shown:
                entered(event_id)
            shown = set(view.rows)
            top = next(iter(view.rows.values()), None)
            if not journal.newer(top.seq if top else 0, 1):
                break
        rss_end = _rss_mib()
        gc.callbacks.remove(timed)
        result = {
            "cpu_percent": 100 * cpu / wall,
            "listener_cpu_percent": 100 * listener_cpu / wall,
            "rss_start_mib": rss_start,
            "rss_end_mib": rss_end,
            "rss_max_mib": rss_max,
            "memory_growth_mib": rss_end - rss_start,
            "screen_lag_max_s": max(lags, default=0.0),
            "screen_lag_p99_s": _p(lags, 0.99),
            "screen_receipt_lag_max_s": max(receipt_lags, default=0.0),
            "screen_receipt_lag_p99_s": _p(receipt_lags, 0.99),
            "key_p50_ms": statistics.median(keys) if keys else float("nan"),
            "key_p99_ms": _p(keys, 0.99),
            "key_max_ms": max(keys, default=float("nan")),
            "keys": len(keys),
            "rows_held_max": view.table.row_count,
            "full_collections": len(full_collections),
            "full_collection_max_ms": 1000 * max(full_collections, default=0.0),
            "rows_touched": view.table.rows_touched,
            "entries": {
                **{f"evt_feed_{n:07d}": c for n, c in enumerate(entries) if c},
                **others,
            },
            "journal_events": journal.count(),
        }
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()
        await reader


async def _settled(app: Any) -> None:
    """Until every worker is done but the watch on the background sandbox (it runs as long as
    the app does)."""
    while [w for w in app.workers if w.is_running and w.group != "health"]:
        await asyncio.sleep(0.02)


async def _key(app: Any, view: Any, key: str) -> float | None:
    """Milliseconds from a key reaching the app until the Events table has moved its cursor:
    `down` off the top row (live rows never move it from there: they go above the others),
    `ctrl+home` back onto it (live rows only ever move it down). The key is posted as the terminal
    driver posts it (Pilot.press also waits for the whole process to be idle, which a feed of
    100 events a second never is). None when the cursor is not where the key starts from."""
    from textual import events

    table = view.table
    if table.row_count < 2 or (table.cursor_row == 0) != (key == "down"):
        return None
    began = time.perf_counter()
    app.post_message(events.Key(key, None))
    while (table.cursor_row == 0) == (key == "down"):
        await asyncio.sleep(0.001)
        if time.perf_counter() - began > 10:
            print(
                f"key {key} not handled in 10 s: focus {app.focused!r}, cursor {table.cursor_row}",
                file=sys.stderr,
            )
            break
    return (time.perf_counter() - began) * 1000


def _child(table: str) -> None:
    from payscope.core import gc_pause

    # As `payscope` runs (tui/payscope/cli/__init__.py): the collector paused from launch, and
    # resumed with what start-up made frozen once the app's runtime is up, so full collections
    # skip it.
    gc_pause.pause()
    with tempfile.TemporaryDirectory(prefix="payscope-bench-") as tmp:
        asyncio.run(_tui(Path(tmp), table))


# -- the sender (this process) ----------------------------------------------------------------


def _signed(secret: str, n: int) -> tuple[str, bytes, dict[str, str]]:
    event_id = f"evt_feed_{n:07d}"
    body = json.dumps(
        {
            "merchant_id": "bench",
            "event_id": event_id,
            "event_type": "payment_succeeded",
            "content": {
                "type": "payment_details",
                "object": {"payment_id": f"pay_feed_{n:07d}", "status": "succeeded"},
            },
            "timestamp": datetime.now(UTC).isoformat(),
        }
    ).encode()
    signature = hmac.new(secret.encode(), body, hashlib.sha512).hexdigest()
    headers = {"Content-Type": "application/json", "X-Webhook-Signature-512": signature}
    return event_id, body, headers


async def _post(
    pool: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]],
    head: bytes,
    body: bytes,
) -> tuple[int, float]:
    """One POST on a kept-alive connection of `pool`: (status, milliseconds to the answer).

    A raw HTTP/1.1 exchange rather than httpx: the sender shares the machine with the TUI, and
    at 100 a second httpx's own work per request would be a large part of what is measured."""
    reader, writer = await pool.get()
    try:
        began = time.perf_counter()
        writer.write(head + str(len(body)).encode() + b"\r\n\r\n" + body)
        answer = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in answer.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        await reader.readexactly(length)
        elapsed = (time.perf_counter() - began) * 1000
        return int(answer.split(b" ", 2)[1]), elapsed
    finally:
        pool.put_nowait((reader, writer))


async def _send(url: str, secret: str, duration: float, rate: float) -> dict[str, Any]:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    total = int(duration * rate)
    acks: list[float] = []
    failed: list[str] = []
    sent: list[str] = []
    pool: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()
    for _ in range(32):
        pool.put_nowait(await asyncio.open_connection(host, port))

    async def one(n: int) -> None:
        event_id, body, headers = _signed(secret, n)
        head = (
            f"POST {parts.path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
            + "Content-Length: "
        ).encode()
        try:
            status, elapsed = await _post(pool, head, body)
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            failed.append(f"{event_id}: {exc!r}")
            return
        acks.append(elapsed)
        if status == 200:
            sent.append(event_id)
        else:
            failed.append(f"{event_id}: HTTP {status}")

    tasks = []
    start = time.perf_counter()
    for n in range(total):
        delay = start + n / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(n)))
    await asyncio.gather(*tasks)
    while not pool.empty():
        _reader, writer = pool.get_nowait()
        writer.close()
    return {"acks": acks, "failed": failed, "sent": sent}


class _FsyncProbe:
    """How long the disk takes to make a small write durable, 10 times a second during the feed,
    in the same temporary directory's filesystem as the journal: the journal commits with
    synchronous=FULL (an acknowledged event survives a power cut), so no acknowledgement can be
    faster than this disk's fsync."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._probe, daemon=True)

    def __enter__(self) -> _FsyncProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _probe(self) -> None:
        with tempfile.NamedTemporaryFile(prefix="payscope-fsync-") as probe:
            while not self._stop.wait(0.1):
                probe.write(b"x" * 4096)
                probe.flush()
                began = time.perf_counter()
                os.fsync(probe.fileno())
                self.times.append((time.perf_counter() - began) * 1000)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=600.0, help="seconds (600)")
    parser.add_argument("--rate", type=float, default=100.0, help="events a second (100)")
    parser.add_argument(
        "--out", type=Path, default=None, help="write here instead of bench/results/live_feed.json"
    )
    parser.add_argument(
        "--table",
        choices=("line", "datatable"),
        default="line",
        help="the Events table: payscope's LineTable (line, as shipped) or the DataTable-based "
        "ResourceTable it replaced (datatable: a baseline; give --out)",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.table)
        return 0
    child = subprocess.Popen(
        [sys.executable, __file__, "--child", "--table", args.table],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        hello = json.loads(child.stdout.readline() or "{}")
        if "url" not in hello:
            print("the TUI did not start", file=sys.stderr)
            return 1
        child.stdin.write("start\n")
        child.stdin.flush()
        with _FsyncProbe() as fsyncs:
            sent = asyncio.run(_send(hello["url"], hello["secret"], args.duration, args.rate))
        child.stdin.write("stop\n")
        child.stdin.flush()
        app_figures = json.loads(child.stdout.readline() or "{}")
    finally:
        if child.poll() is None:
            child.stdin.close()
            child.wait(timeout=60)
    entries: dict[str, int] = app_figures.pop("entries", {})
    acked = set(sent["sent"])
    missed = sorted(acked - set(entries))
    twice = sorted(event_id for event_id, count in entries.items() if count > 1)
    acks = sent["acks"]
    figures = {
        **app_figures,
        "ack_p50_ms": statistics.median(acks) if acks else float("nan"),
        "ack_p99_ms": _p(acks, 0.99),
        "ack_max_ms": max(acks, default=float("nan")),
        "fsync_p50_ms": statistics.median(fsyncs.times) if fsyncs.times else float("nan"),
        "fsync_p99_ms": _p(fsyncs.times, 0.99),
        "fsync_max_ms": max(fsyncs.times, default=float("nan")),
        "events_sent": int(args.duration * args.rate),
        "events_acked": len(acked),
        "send_failures": len(sent["failed"]),
        "events_shown": len(entries),
        "missed": len(missed),
        "shown_twice": len(twice),
    }
    command = f"python bench/live_feed.py --duration {args.duration:g} --rate {args.rate:g}"
    if args.table != "line":
        command += f" --table {args.table}"
    checks = {
        "cpu_percent": figures["cpu_percent"] < TARGETS["cpu_percent"],
        "memory_growth_mib": figures["memory_growth_mib"] < TARGETS["memory_growth_mib"],
        "screen_lag_s": figures["screen_lag_max_s"] <= TARGETS["screen_lag_s"],
        "key_p99_ms": figures["key_p99_ms"] < TARGETS["key_p99_ms"],
        "ack_p99_ms": figures["ack_p99_ms"] < TARGETS["ack_p99_ms"],
        "exactly_once": not missed and not twice and not sent["failed"],
    }
    if args.out is not None:  # a side run (an A/B comparison): its own file, not the record
        report = {"command": command, "figures": figures, "met": checks}
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    else:
        from results import Figure, record

        # The baseline (`--table datatable`) is recorded beside the feed's own figures.
        name = "live_feed" if args.table == "line" else f"live_feed_{args.table}"
        record(
            name,
            [
                Figure(
                    "TUI CPU", figures["cpu_percent"], "% of a core", "<", TARGETS["cpu_percent"]
                ),
                Figure(
                    "memory growth",
                    figures["memory_growth_mib"],
                    "MiB",
                    "<",
                    TARGETS["memory_growth_mib"],
                ),
                Figure(
                    "screen behind the journal, max",
                    figures["screen_lag_max_s"],
                    "s",
                    "<=",
                    TARGETS["screen_lag_s"],
                ),
                Figure("screen behind the journal, p99", figures["screen_lag_p99_s"], "s"),
                Figure(
                    "screen behind the listener's receipt, max (adds the journal's commit)",
                    figures["screen_receipt_lag_max_s"],
                    "s",
                ),
                Figure("key latency p99", figures["key_p99_ms"], "ms", "<", TARGETS["key_p99_ms"]),
                Figure("key latency p50", figures["key_p50_ms"], "ms"),
                Figure(
                    "acknowledgement p99", figures["ack_p99_ms"], "ms", "<", TARGETS["ack_p99_ms"]
                ),
                Figure("acknowledgement p50", figures["ack_p50_ms"], "ms"),
                Figure(
                    "the disk's fsync p99 meanwhile (a durable commit's floor)",
                    figures["fsync_p99_ms"],
                    "ms",
                ),
                Figure("events missed", figures["missed"], "", "==", 0),
                Figure("events shown twice", figures["shown_twice"], "", "==", 0),
                Figure("events acknowledged", figures["events_acked"], ""),
                Figure(
                    "the listener's process's CPU (beside the TUI's)",
                    figures["listener_cpu_percent"],
                    "% of a core",
                ),
                Figure(
                    "longest full garbage collection in the TUI (the listener has its own)",
                    figures["full_collection_max_ms"],
                    "ms",
                ),
            ],
            what=f"Events open while {args.rate:g} signed webhooks a second arrive for "
            f"{args.duration:g} s"
            + ("" if args.table == "line" else f" (the baseline: Events in a {args.table})"),
            command=command,
        )
    f = figures
    print(
        f"{f['events_acked']:,} of {f['events_sent']:,} events acknowledged, "
        f"{f['events_shown']:,} shown ({f['missed']} missed, {f['shown_twice']} twice)"
    )
    print(
        f"TUI CPU {f['cpu_percent']:.1f}% of a core (target < {TARGETS['cpu_percent']:.0f}%); "
        f"its listener's process {f['listener_cpu_percent']:.1f}%"
    )
    print(
        f"memory {f['rss_start_mib']:.1f} -> {f['rss_end_mib']:.1f} MiB: "
        f"{f['memory_growth_mib']:+.1f} MiB (target < {TARGETS['memory_growth_mib']:.0f})"
    )
    print(
        f"screen behind the journal: max {f['screen_lag_max_s']:.2f} s, "
        f"p99 {f['screen_lag_p99_s']:.2f} s (target <= {TARGETS['screen_lag_s']:.0f} s); "
        f"behind the listener's receipt: max {f['screen_receipt_lag_max_s']:.2f} s, "
        f"p99 {f['screen_receipt_lag_p99_s']:.2f} s"
    )
    print(
        f"key latency: p50 {f['key_p50_ms']:.1f} ms, p99 {f['key_p99_ms']:.1f} ms, "
        f"max {f['key_max_ms']:.1f} ms over {f['keys']} keys (target p99 < 100 ms)"
    )
    print(
        f"acknowledgement: p50 {f['ack_p50_ms']:.1f} ms, p99 {f['ack_p99_ms']:.1f} ms, "
        f"max {f['ack_max_ms']:.1f} ms (target p99 < 50 ms)"
    )
    print(
        f"the disk's fsync meanwhile: p50 {f['fsync_p50_ms']:.1f} ms, p99 "
        f"{f['fsync_p99_ms']:.1f} ms, max {f['fsync_max_ms']:.1f} ms (an acknowledgement waits "
        "for one: the journal's commits are durable)"
    )
    print(
        f"full garbage collections: {f['full_collections']}, "
        f"the longest {f['full_collection_max_ms']:.0f} ms "
        "(the TUI's process; its listener's process answers meanwhile)"
    )
    print(
        f"rows held at the end {f['rows_held_max']}; "
        f"figures in {args.out or 'bench/results/live_feed.json'}"
    )
    print(
        "all targets met"
        if all(checks.values())
        else "missed: " + ", ".join(k for k, ok in checks.items() if not ok)
    )
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
