"""Start-up benchmark: time until the first payment row is visible in a 120x40 tmux pane.

Method of ../shared/tools/first-paint: launch in a fresh tmux pane, poll the screen for a
marker. Warm start on an embedded sandbox holding 10,000 payments (run once first to seed it and
fill the page cache), divided by the same measure for a bare Textual app in the same run.
Target: ratio <= 1.5 (medians of 9 alternated runs); exits 1 when missed. Also prints when the
live page replaced the cached one, so the cache is never mistaken for the whole story.

Bytecode: a warm start runs from compiled modules, as every installed Python program does (pip
compiles on install; a normal run writes them itself), and the bare app's Textual is compiled in
site-packages. Where PYTHONDONTWRITEBYTECODE is set (CI, some sandboxes) payscope's own modules
would be compiled from source on every timed run instead, so they are compiled once up front.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
PAYMENTS = int(os.environ.get("BENCH_PAYMENTS", "10000"))
RUNS = int(os.environ.get("BENCH_RUNS", "9"))  # medians of 9: a shared machine is noisy
# A private tmux server, kept alive by an idle session: other people's tmux is left alone, and
# killing a run's session never takes the server down under the next run.
TMUX = ["tmux", "-L", f"payscope-bench-{os.getpid()}"]

BARE_APP = textwrap.dedent(
    """
    from textual.app import App
    from textual.widgets import Static

    class Bare(App):
        def compose(self):
            yield Static("pay_bare_marker")

    Bare().run()
    """
)


def first_paint(markers: list[str], command: str, env: dict[str, str]) -> list[float]:
    """Seconds from launch until each marker is on screen (tmux, 120x40), like tools/first-paint.

    Markers are waited for in order; each time is measured from the launch.
    """
    session = "run"
    subprocess.run([*TMUX, "kill-session", "-t", session], capture_output=True)
    env_prefix = " ".join(f"{k}={v}" for k, v in env.items())
    start = time.perf_counter()
    subprocess.run(
        [
            *TMUX,
            "new-session",
            "-d",
            "-s",
            session,
            "-x",
            "120",
            "-y",
            "40",
            f"{env_prefix} {command}; sleep 30",
        ],
        check=True,
    )
    seen: list[float] = []
    screen = ""
    try:
        deadline = start + 120
        while time.perf_counter() < deadline and len(seen) < len(markers):
            screen = subprocess.run(
                [*TMUX, "capture-pane", "-p", "-t", session], capture_output=True, text=True
            ).stdout
            now = time.perf_counter() - start
            while len(seen) < len(markers) and markers[len(seen)] in screen:
                seen.append(now)
            if len(seen) < len(markers):
                time.sleep(0.01)
        if len(seen) < len(markers):
            missing = markers[len(seen)]
            raise SystemExit(f"marker {missing!r} not seen; last screen:\n{screen}")
        return seen
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], capture_output=True)


# A payment id on screen: a row of the table (the cache's on a warm start).
ROW_MARKER = "pay_"
# Only the live page's header says which page of the total it is; the cached one says
# "cached · refreshing…" instead, so this marks the moment the live page replaced the cache.
LIVE_MARKER = "page 1/"


def main() -> int:
    """Seed once, warm once, then alternate bare and payscope runs; print medians and ratio.

    Exits 1 when the ratio misses the target, so CI or a person sees it at once.
    """
    if shutil.which("tmux") is None:
        print("bench/startup.py needs tmux (apt-get install tmux)", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="payscope-bench-"))
    env = {"PAYSCOPE_DATA_DIR": str(work / "data"), "PAYSCOPE_CONFIG_DIR": str(work / "config")}
    bare = work / "bare.py"
    bare.write_text(BARE_APP)
    app_cmd = f"{PYTHON} -m tui --seed {PAYMENTS}"
    subprocess.run([*TMUX, "new-session", "-d", "-s", "hold", "sleep 3600"], check=True)
    try:
        compiled = subprocess.run(
            [PYTHON, "-m", "compileall", "-q", str(ROOT / "tui")], capture_output=True, text=True
        )
        print(
            "bytecode of tui/ compiled up front"
            + ("" if compiled.returncode == 0 else f" (failed: {compiled.stdout.strip()})"),
            flush=True,
        )
        print(f"seeding {PAYMENTS:,} payments (first run, not timed)...", flush=True)
        # Seeds, then shows the live first page, which also fills the page cache.
        (seeded,) = first_paint([LIVE_MARKER], app_cmd, env)
        print(
            f"first run (seeding {PAYMENTS:,} payments): {seeded:.3f}s to the live page", flush=True
        )
        first_paint([LIVE_MARKER], app_cmd, env)  # warm the OS caches
        bare_times, row_times, live_times = [], [], []
        for _ in range(RUNS):
            bare_times.append(first_paint(["pay_bare_marker"], f"{PYTHON} {bare}", {})[0])
            row, live = first_paint([ROW_MARKER, LIVE_MARKER], app_cmd, env)
            row_times.append(row)
            live_times.append(live)
    finally:
        subprocess.run([*TMUX, "kill-server"], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    b = statistics.median(bare_times)
    a = statistics.median(row_times)
    live = statistics.median(live_times)
    ratio = a / b
    # Each payscope run against the bare run just before it: the spread of the ratio on a
    # shared, noisy machine.
    pairs = sorted(row / bare for row, bare in zip(row_times, bare_times, strict=True))
    print(f"bare textual app first paint:   {b:.3f}s {_spread(bare_times)}")
    print(f"payscope first payment row:     {a:.3f}s {_spread(row_times)} (warm, from the cache)")
    print(f"payscope live page on screen:   {live:.3f}s {_spread(live_times)} (replaces the cache)")
    print(f"ratio first row / bare: {ratio:.2f} (target <= 1.5; medians of {RUNS} alternated runs)")
    print(f"  run by run: {', '.join(f'{r:.2f}' for r in pairs)}")
    print(f"ratio live page / bare: {live / b:.2f} (for information)", flush=True)
    if ratio > 1.5:
        print("FAIL: start-up misses its target", file=sys.stderr)
        return 1
    return 0


def _spread(times: list[float]) -> str:
    return f"(median of {len(times)}; min {min(times):.3f}, max {max(times):.3f})"


if __name__ == "__main__":
    sys.exit(main())
