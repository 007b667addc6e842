"""payscope's `LineTable` (tui/payscope/views/line_table.py) against the DataTable-based
`ResourceTable` it replaces, at 100,000 rows (issue 43).

Each table is given the same 100,000 payments (five columns as the Payments list draws them:
id, coloured status, amount justified right, date, customer), mounted in a 120x40 headless app
and focused; then the cursor goes down 20 rows one at a time, and 5 pages down. Timed per table,
in alternated rounds of the same run (each sees the same machine load):

- fill: `fit_to` and `show` of the 100,000 records (before the table is mounted), CPU seconds;
- first frame: the table's first drawing of every visible line (its `render_lines`, CPU);
- cursor frame: the table's drawing after a cursor move (median of the 20 moves), and the CPU
  the whole process used for a move and its frame (Textual's compositor included);
- page frame: the same for a page down.

A ratio is the line table's figure over the DataTable's, from the same run.

    .venv/bin/python bench/line_table.py [--rounds 3] [--rows 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import App
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tui"))

from payscope.views.columns import CellContext, Column  # noqa: E402
from payscope.views.line_table import LineTable  # noqa: E402
from payscope.views.table import ResourceTable  # noqa: E402

SIZE = (120, 40)
MOVES = 20
PAGES = 5
STATUS = ("succeeded", "failed", "requires_capture", "processing", "cancelled")
COLOURS = ("green", "red", "yellow", "cyan", "bright_black")
TARGET_RATIO = 0.5  # the line table draws a cursor move in at most half the DataTable's time

COLUMNS: list[Column[int]] = [
    Column[int]("id", "Payment", 24, lambda n, _c: Text(f"pay_{n:020d}")),
    Column[int]("status", "Status", 18, lambda n, _c: Text(STATUS[n % 5], style=COLOURS[n % 5])),
    Column[int](
        "amount",
        "Amount",
        14,
        lambda n, _c: Text(f"{(n * 7919) % 100000 / 100:,.2f} GBP", justify="right"),
    ),
    Column[int]("created", "Created", 12, lambda n, _c: Text(f"Nov {1 + n % 28:2d} 19:47")),
    Column[int]("customer", "Customer", 24, lambda n, _c: Text(f"cus_{n % 37:020d}")),
]


def _context() -> CellContext:
    return CellContext({})


class Timed:
    """Mixed into each table: the CPU time of every `render_lines` call, into `drawn` (the
    thread's CPU, not the wall clock: a busy machine's other work is not counted)."""

    drawn: list[float]

    def render_lines(self, crop: Region) -> list[Strip]:
        start = time.thread_time()
        lines: list[Strip] = super().render_lines(crop)  # type: ignore[misc]
        self.drawn.append(time.thread_time() - start)
        return lines


class TimedData(Timed, ResourceTable[int]):
    pass


class TimedLine(Timed, LineTable[int]):
    pass


KINDS: dict[str, type[Any]] = {"DataTable": TimedData, "LineTable": TimedLine}


class Bench(App[None]):
    CSS = "ResourceTable, LineTable { height: 1fr; }"


async def _measure(rows: int, rounds: int) -> dict[str, list[float]]:
    records = list(range(rows))
    times: dict[str, list[float]] = {}
    app = Bench()
    async with app.run_test(size=SIZE) as pilot:
        for n in range(rounds):
            order = list(KINDS.items())
            for name, kind in order if n % 2 == 0 else reversed(order):

                def add(what: str, value: float, name: str = name) -> None:
                    times.setdefault(f"{name} {what}", []).append(value)

                cpu = time.process_time()
                table = kind(COLUMNS, str, _context)
                table.drawn = []
                table.fit_to(SIZE[0] - 2)
                table.show(records)
                add("fill CPU s", time.process_time() - cpu)
                widget: Widget = table
                await app.mount(widget)
                table.focus()
                await pilot.pause()
                await pilot.pause()
                add("first frame ms", 1000 * sum(table.drawn))
                for what, key, count in (("cursor", "down", MOVES), ("page", "pagedown", PAGES)):
                    drawn, used = [], []
                    for _ in range(count):
                        table.drawn.clear()
                        cpu = time.process_time()
                        await pilot.press(key)
                        await pilot.pause()
                        used.append(time.process_time() - cpu)
                        drawn.append(sum(table.drawn))
                    add(f"{what} frame ms", 1000 * statistics.median(drawn))
                    add(f"{what} CPU ms", 1000 * statistics.median(used))
                assert table.cursor_row > MOVES, "the keys did not move the cursor"
                await widget.remove()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternated rounds (3)")
    parser.add_argument("--rows", type=int, default=100_000, help="rows (100000)")
    args = parser.parse_args(argv)
    times = asyncio.run(_measure(args.rows, args.rounds))
    median = {name: statistics.median(values) for name, values in times.items()}
    print(
        f"{args.rows:,} rows x {len(COLUMNS)} columns at {SIZE[0]}x{SIZE[1]}, {args.rounds} rounds"
    )
    print(f"{'':<28}{'median':>10}{'min':>10}")
    for name, values in times.items():
        print(f"{name:<28}{median[name]:>10.3f}{min(values):>10.3f}")
    ratios = {
        what: median[f"LineTable {what}"] / median[f"DataTable {what}"]
        for what in (
            "fill CPU s",
            "first frame ms",
            "cursor frame ms",
            "cursor CPU ms",
            "page frame ms",
            "page CPU ms",
        )
    }
    for what, ratio in ratios.items():
        print(f"LineTable / DataTable, {what:<18}{ratio:>8.2f}")
    sys.path.insert(0, str(ROOT / "bench"))
    from results import Figure, record

    figures = []
    for what in ratios:
        unit = "s" if what.endswith(" s") else "ms"
        label = what.rsplit(" ", 1)[0]
        figures.append(Figure(f"DataTable {label}", median[f"DataTable {what}"], unit))
        figures.append(Figure(f"LineTable {label}", median[f"LineTable {what}"], unit))
        compare = "<=" if what == "cursor frame ms" else None
        figures.append(
            Figure(
                f"LineTable / DataTable, {label}",
                ratios[what],
                "x",
                compare,
                TARGET_RATIO if compare else None,
            )
        )
    record(
        "line_table",
        figures,
        what=f"payscope's LineTable against the DataTable-based ResourceTable at {args.rows:,} "
        f"rows ({SIZE[0]}x{SIZE[1]}, {args.rounds} alternated rounds)",
        command=f"python bench/line_table.py --rounds {args.rounds} --rows {args.rows}",
    )
    met = ratios["cursor frame ms"] <= TARGET_RATIO
    print("all targets met" if met else "missed: cursor frame ratio")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
