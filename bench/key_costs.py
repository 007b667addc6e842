"""The CPU an everyday key costs in the TUI, at 120x40 on the seeded sandbox (issue 43).

Each key is pressed, with what undoes it, in a headless app built as the pilot tests build it
(`tests/tui/snapshot_app.py`, on the seeded template of `tests/tui/conftest.py`), and the
process's CPU (user and system: the embedded sandbox's threads included) is taken over many
repetitions after a first one that is not counted:

- `:` and Esc: the command prompt opened and closed over the Payments list;
- `/` and Esc: the filter box opened and closed;
- a cursor move: Down then Up;
- a record: Enter on the first payment (its detail loaded) and Esc back to the list;
- an area: `:customers` then `:payments`.

With `--against DIR` (another checkout of payscope: an older main, say) each round measures
this checkout and then that one, alternately, in fresh processes: both see the same machine
in the same minutes; the ratio is this checkout's figure over the other's, from the same run.

    .venv/bin/python bench/key_costs.py [--rounds 3] [--repeat 20] [--against DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZE = (120, 40)
ACTIONS = ("`:` and Esc", "`/` and Esc", "a cursor move", "a record and back", "an area and back")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _seeded(work: Path) -> tuple[Path, Path]:
    """(config dir, data dir) in `work`: an empty config and the tests' seeded sandbox."""
    from tests.tui.conftest import build_template

    data = build_template(work / "data")
    config = work / "config"
    config.mkdir(mode=0o700)
    return config, data


async def _measure(config: Path, data: Path, repeat: int) -> dict[str, float]:
    """Milliseconds of CPU per action (one process, one checkout: the one on sys.path)."""
    from payscope.core import gc_pause
    from tests.tui.pilot import run_command
    from tests.tui.snapshot_app import build, ready

    # As `payscope` does at launch (the app resumes it once its runtime is up); the tests'
    # `build` does it too, an older checkout's did not: both are measured as users run them.
    gc_pause.pause()
    app = build(config, data)
    costs: dict[str, float] = {}
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)

        async def settled() -> None:
            await app.workers.wait_for_complete()
            await pilot.pause()

        async def prompt() -> None:
            await pilot.press("colon")
            await pilot.press("escape")

        async def filter_box() -> None:
            await pilot.press("slash")
            await pilot.press("escape")

        async def cursor() -> None:
            await pilot.press("down")
            await pilot.press("up")

        async def record() -> None:
            main = app.screen
            await pilot.press("enter")
            while app.screen is main:  # the detail is pushed by the list's worker
                await settled()
            await settled()
            await pilot.press("escape")
            while app.screen is not main:
                await pilot.pause()
            await settled()

        async def area() -> None:
            await run_command(pilot, "customers")
            await settled()
            await run_command(pilot, "payments")
            await settled()

        steps: dict[str, Callable[[], Awaitable[None]]] = dict(
            zip(ACTIONS, (prompt, filter_box, cursor, record, area), strict=True)
        )
        for name, step in steps.items():
            await step()  # the first: whatever is built once is built
            await settled()
            start = _cpu()
            for _ in range(repeat):
                await step()
            await settled()
            costs[name] = (_cpu() - start) / repeat * 1000
    return costs


def _one(checkout: Path, repeat: int) -> dict[str, float]:
    """The figures of `checkout`, measured in a fresh process that imports payscope from it."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(checkout / "tui"), str(checkout)]),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
    }
    # The bench measures its checkout's code with this script, whichever checkout that is.
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--one", "--repeat", str(repeat)],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"measuring {checkout} failed:\n{done.stderr[-3000:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--against", type=Path, help="another checkout, measured alternately")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        with tempfile.TemporaryDirectory(prefix="payscope-keys-") as work:
            config, data = _seeded(Path(work))
            print(json.dumps(asyncio.run(_measure(config, data, args.repeat))))
        return 0
    against: Path | None = args.against.resolve() if args.against else None
    if against is not None and not (against / "tui" / "payscope").is_dir():
        parser.error(f"--against {against}: not a checkout of payscope (no tui/payscope)")
    ours: dict[str, list[float]] = {name: [] for name in ACTIONS}
    theirs: dict[str, list[float]] = {name: [] for name in ACTIONS}
    for round_ in range(1, args.rounds + 1):
        for checkout, into in ((ROOT, ours), (against, theirs)):
            if checkout is None:
                continue
            for name, value in _one(checkout, args.repeat).items():
                into[name].append(value)
        print(f"round {round_} of {args.rounds} measured", file=sys.stderr)

    sys.path.insert(0, str(ROOT / "bench"))
    from results import Figure, record

    figures: list[Figure] = []
    print(f"CPU per action at {SIZE[0]}x{SIZE[1]}, median of {args.rounds} rounds:")
    for name in ACTIONS:
        mine = statistics.median(ours[name])
        line = f"  {name:<20} {mine:7.1f} ms"
        figures.append(Figure(f"{name}: CPU", round(mine, 1), "ms"))
        if against is not None:
            other = statistics.median(theirs[name])
            line += f"   {against.name}: {other:7.1f} ms   ratio {mine / other:.2f}"
            figures.append(Figure(f"{name}: CPU, {against.name}", round(other, 1), "ms"))
            figures.append(Figure(f"{name}: ratio to {against.name}", round(mine / other, 2), "x"))
        print(line)
    path = record(
        "key_costs",
        figures,
        what="the CPU of everyday keys at 120x40 on the seeded sandbox",
        command="python bench/key_costs.py" + (f" --against {against}" if against else ""),
    )
    print(f"figures in {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
