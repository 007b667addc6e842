"""Benchmark: `payscope export` of 10,000 payments (tui/payscope/api/export.py), time and memory.

    python bench/export.py [--payments 10000]

A local sandbox runs in its own process (`payscope sandbox --seed N`), so only the export is
measured here: every payment read through the API client page by page, written as CSV and as
JSON Lines. Printed: the wall time of each (target: within 5 s for 10,000 payments) and the peak
of Python's allocations during a CSV export (tracemalloc, a second run: it slows the run down),
which must stay bounded (target: 32 MiB: a page of records and the ids seen, never the whole
export). Exits non-zero when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from results import Figure, record  # bench/ is on the path when run as a script

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KEY = "snd_benchexportkey000000000000000000"
MAX_SECONDS = 5.0
MAX_PEAK_MIB = 32.0


def start_sandbox(data: Path, payments: int) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "payscope",
            "sandbox",
            "--port",
            "0",
            "--data",
            str(data),
            "--seed",
            str(payments),
            "--rate-limit",
            "0",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PAYSCOPE_SANDBOX_API_KEY": KEY},
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"listening on (http://\S+)", line)
        if found:
            return proc, found.group(1)
    proc.kill()
    raise SystemExit("the sandbox did not start")


async def export_once(url: str, path: Path, fmt: str) -> tuple[float, int]:
    from payscope.api.client import ApiClient
    from payscope.api.export import export_records
    from payscope.areas import AREA_BY_KEY

    source = AREA_BY_KEY["payments"].export_source()
    async with ApiClient(url, KEY) as client:

        async def fetch(offset: int, limit: int):  # type: ignore[no-untyped-def]
            return await source.read(client, {}, offset, limit)

        started = time.perf_counter()
        result = await export_records(fetch, path, fmt, key=source.key)
        return time.perf_counter() - started, result.count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--payments", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"seeding {args.payments} payments in a sandbox process…", flush=True)
        proc, url = start_sandbox(folder / "sandbox", args.payments)
        try:
            asyncio.run(export_once(url, folder / "warm.csv", "csv"))  # imports, connections
            csv_s, csv_n = asyncio.run(export_once(url, folder / "p.csv", "csv"))
            jsonl_s, jsonl_n = asyncio.run(export_once(url, folder / "p.jsonl", "jsonl"))
            tracemalloc.start()
            asyncio.run(export_once(url, folder / "traced.csv", "csv"))
            _current, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            size_mib = (folder / "p.csv").stat().st_size / 2**20
        finally:
            proc.terminate()
            proc.wait(10)
    peak_mib = peak / 2**20
    print(f"CSV: {csv_n} payments in {csv_s:.2f} s ({size_mib:.1f} MiB)")
    print(f"JSON Lines: {jsonl_n} payments in {jsonl_s:.2f} s")
    print(f"peak traced memory of a CSV export: {peak_mib:.1f} MiB")
    figures = [
        Figure(f"CSV export of {csv_n:,} payments", round(csv_s, 2), "s", "<=", MAX_SECONDS),
        Figure(
            f"JSON Lines export of {jsonl_n:,} payments", round(jsonl_s, 2), "s", "<=", MAX_SECONDS
        ),
        Figure(
            "peak Python memory during the CSV export",
            round(peak_mib, 1),
            "MiB",
            "<=",
            MAX_PEAK_MIB,
            note=f"tracemalloc; the file itself was {size_mib:.1f} MiB",
        ),
        Figure("payments exported", float(csv_n), "", "==", float(args.payments)),
    ]
    record("export", figures, what="payscope export of every payment: time and peak memory")
    return 0 if all(f.met is not False for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
