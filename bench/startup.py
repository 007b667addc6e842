"""Start-up benchmark: time until the first payment row is visible in a 120x40 tmux pane.

Method of ../shared/tools/first-paint: launch in a fresh tmux pane, poll the screen for a
marker. Warm start on an embedded sandbox holding 10,000 payments, divided by the same measure
for a bare Textual app in the same run. Target: ratio <= 1.5. Prints the figures.
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
RUNS = int(os.environ.get("BENCH_RUNS", "3"))

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


def first_paint(marker: str, command: str, env: dict[str, str]) -> float:
    """Seconds from launch to `marker` on screen (tmux, 120x40), like tools/first-paint."""
    session = f"bench{os.getpid()}"
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    env_prefix = " ".join(f"{k}={v}" for k, v in env.items())
    start = time.perf_counter()
    subprocess.run(
        [
            "tmux",
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
    try:
        deadline = start + 60
        while time.perf_counter() < deadline:
            screen = subprocess.run(
                ["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True
            ).stdout
            if marker in screen:
                return time.perf_counter() - start
            time.sleep(0.01)
        raise SystemExit(f"marker {marker!r} not seen; last screen:\n{screen}")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def main() -> int:
    """Seed once, warm once, then alternate bare and payscope runs; print medians and ratio."""
    if shutil.which("tmux") is None:
        print("bench/startup.py needs tmux (apt-get install tmux)", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="payscope-bench-"))
    env = {"PAYSCOPE_DATA_DIR": str(work / "data"), "PAYSCOPE_CONFIG_DIR": str(work / "config")}
    bare = work / "bare.py"
    bare.write_text(BARE_APP)
    app_cmd = f"{PYTHON} -m tui --seed {PAYMENTS}"
    print(f"seeding {PAYMENTS:,} payments (first run, not timed)...", flush=True)
    first_paint("pay_", app_cmd, env)  # seeds, then shows the first row
    first_paint("pay_", app_cmd, env)  # warm the OS caches
    bare_times, app_times = [], []
    for _ in range(RUNS):
        bare_times.append(first_paint("pay_bare_marker", f"{PYTHON} {bare}", {}))
        app_times.append(first_paint("pay_", app_cmd, env))
    b, a = statistics.median(bare_times), statistics.median(app_times)
    print(f"bare textual app first paint: {b:.3f}s (median of {RUNS})")
    print(f"payscope first payment row:   {a:.3f}s (median of {RUNS}, {PAYMENTS:,} payments)")
    print(f"ratio: {a / b:.2f} (target <= 1.5)")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
