"""Benchmark: the Events screen over a listener journal of 100,000 events.

    python bench/events_memory.py [--events 100000]

Each case runs in its own process so resident memory is its own: the TUI (headless, 120x40) on
the embedded sandbox, opened on Payments, then switched to Events. Printed, for a journal with
no events (the baseline, same run) and for one with `--events` events: resident memory before
and after Events opens, the time until its first rows are on screen, and how many rows the
screen loaded (lazy loading must keep that to a page, never the whole journal).

Exits non-zero when the Events screen loads more than a few pages or its memory grows by more
than 64 MiB over the baseline: the journal is read in pages, so neither may grow with it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from results import Figure, record  # bench/ is on the path when run as a script

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MAX_ROWS_LOADED = 1_000
MAX_EXTRA_MIB = 64.0


def _rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _fill_journal(directory: Path, events: int) -> None:
    """Write `events` journaled events the way the listener stores them, in bulk."""
    from payscope.webhooks.journal import Journal

    journal = Journal(directory)
    journal.open()  # creates the schema
    journal.close()
    conn = sqlite3.connect(directory / "journal.sqlite3")
    now = time.time() - events
    headers = json.dumps({"content-type": "application/json", "x-webhook-signature-512": "0" * 128})
    types = ("payment_succeeded", "payment_failed", "refund_succeeded", "payment_authorized")
    with conn:
        conn.executemany(
            "INSERT INTO deliveries (id, received_at, event_id, headers, body, verified, reason,"
            " duplicate, status) VALUES (?, ?, ?, ?, ?, 1, NULL, 0, 200)",
            (
                (
                    i + 1,
                    now + i,
                    f"evt_{i:020d}",
                    headers,
                    json.dumps(
                        {
                            "event_id": f"evt_{i:020d}",
                            "event_type": types[i % 4],
                            "content": {
                                "type": "payment_details",
                                "object": {"payment_id": f"pay_{i:020d}", "status": "succeeded"},
                            },
                        }
                    ).encode(),
                )
                for i in range(events)
            ),
        )
        conn.executemany(
            "INSERT INTO events (event_id, event_type, object_id, object_status, first_seen,"
            " delivery_id) VALUES (?, ?, ?, 'succeeded', ?, ?)",
            (
                (f"evt_{i:020d}", types[i % 4], f"pay_{i:020d}", now + i, i + 1)
                for i in range(events)
            ),
        )
    conn.close()


async def _measure(data_dir: Path, config_dir: Path) -> dict[str, Any]:
    from textual.widgets import DataTable

    from payscope.app import make_app

    app = make_app(config_dir=config_dir, data_dir=data_dir, seed=50)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.runtime.ready.wait()
        await app.workers.wait_for_complete()
        await pilot.pause()
        before = _rss_mib()
        started = time.perf_counter()
        app.screen.show_area("events")  # type: ignore[attr-defined]
        table: Any = None
        while time.perf_counter() - started < 30:
            await pilot.pause(0.005)
            tables = [t for t in app.screen.query(DataTable) if t.id == "events-table"]
            if tables and tables[0].row_count:
                table = tables[0]
                break
        opened = time.perf_counter() - started
        await app.workers.wait_for_complete()
        await pilot.pause()
        rows = table.row_count if table is not None else 0
        after = _rss_mib()
    return {"rss_before": before, "rss_after": after, "open_s": opened, "rows": rows}


def _child(events: int) -> None:
    with tempfile.TemporaryDirectory(prefix="payscope-bench-") as tmp:
        data_dir, config_dir = Path(tmp) / "data", Path(tmp) / "config"
        listener_dir = data_dir / "listener"
        listener_dir.mkdir(parents=True)
        if events:
            _fill_journal(listener_dir, events)
        else:
            # One event so that the baseline also has a first row to wait for.
            _fill_journal(listener_dir, 1)
        result = asyncio.run(_measure(data_dir, config_dir))
    result["events"] = events
    sys.stdout.write(json.dumps(result))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        _child(args.child)
        return 0
    results = []
    for events in (0, args.events):
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(events)],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        if done.returncode != 0:
            print(done.stderr[-2000:], file=sys.stderr)
            return 1
        results.append(json.loads(done.stdout))
    for r in results:
        label = "baseline (1 event)" if r["events"] == 0 else f"{r['events']:,} events"
        print(
            f"{label:>20}: RSS {r['rss_before']:6.1f} MiB on Payments, "
            f"{r['rss_after']:6.1f} MiB with Events open; "
            f"first rows in {r['open_s'] * 1000:5.0f} ms; {r['rows']} rows loaded"
        )
    base, big = results
    extra = big["rss_after"] - base["rss_after"]
    print(
        f"extra memory for {big['events']:,} events: {extra:+.1f} MiB (bound {MAX_EXTRA_MIB:.0f})"
    )
    ok = big["rows"] <= MAX_ROWS_LOADED and extra <= MAX_EXTRA_MIB and big["rows"] > 0
    print("bounded: lazy loading holds" if ok else "NOT BOUNDED")
    record(
        "events_memory",
        [
            Figure(f"extra RSS for {big['events']:,} events", extra, "MiB", "<=", MAX_EXTRA_MIB),
            Figure("rows loaded", big["rows"], "rows", "<=", MAX_ROWS_LOADED),
            Figure("RSS with Events open", big["rss_after"], "MiB"),
            Figure("first rows in", big["open_s"] * 1000, "ms"),
        ],
        what=f"the Events area over a listener journal of {big['events']:,} events against one "
        "(separate processes)",
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
