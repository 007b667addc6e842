"""Write docs/performance.md from the latest figures in bench/results/*.json (`make bench`).

    python bench/report.py            # writes docs/performance.md
    python bench/report.py --check    # exits 1 when docs/performance.md is not what it would write

Every script under bench/ writes its figures with `results.record`; this page shows the latest
run of each, with its date, machine and versions, and each figure against its target. What a
missed target costs and why is said under its script (NOTES); what changed and when is in
CHANGELOG.md, not here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
PAGE = ROOT / "docs" / "performance.md"

# The scripts `make bench` runs, in its order (the Makefile's BENCHES), with what each measures.
SCRIPTS = {
    "client_overhead": "the API client's own cost over bare httpx",
    "sandbox": "the local sandbox: create+confirm throughput, seeding, listing a large store",
    "sandbox_analytics": "analytics queries over a million payments",
    "listener": "the webhook listener's throughput and latency",
    "startup": "payscope's start-up against a bare Textual app",
    "events_memory": "the Events area's memory over a large journal",
    "events_latency": "a webhook's arrival until its row is on screen",
    "hardening": "hostile traffic against both servers",
    "analytics_chart": "the Analytics area's charts over a million payments",
    "faults": "exactly-once creation through lost answers and faults",
    "listener_forward": "durable forwarding from the listener",
    "delivery": "the sandbox's webhook delivery under load and to a silent endpoint",
    "big_answer": "the client against a remote service that answers big",
    "uvicorn_overrides": "why each override of uvicorn stays, against uvicorn as it ships",
    "routing": "the sandbox's per-request cost: plain Starlette routes against FastAPI's",
}

NOTES = {
    "live_feed_datatable": (
        "The baseline of `live_feed` (issue 43): the same feed with Events drawn by the "
        "DataTable-based ResourceTable (`--table datatable`), run alternately with it, 120 s "
        "each. On 2 cores at a load average of 16-20 the TUI is starved (its CPU is what it was "
        "given) and both measured about 21% of a core; at a load average of 10, 28.9% for the "
        "DataTable against 22.4% for the line table. In every pair the line table's screen "
        "kept closer to the journal and its keys answered sooner; the DataTable missed events "
        "in two runs of four, the line table in none. On a quiet machine (load average under "
        "1, 2026-12-04), one after the other: 19.8% of a core for the line table, 25.0% for "
        "the DataTable, its p99 key latency 22.8 ms against 32.0 ms."
    ),
    "key_costs": (
        "CPU per everyday key and what undoes it (issue 43), this checkout against another "
        "(`--against`: main before the issue's work, 3632240), alternately in fresh "
        "processes. The `:` prompt lies over the list instead of taking its rows, a list keeps "
        "the rows it drew in each look (focused or not), and the footer's keys are styled once "
        "as they mount."
    ),
    "line_table": (
        "CPU of the table's own drawing (`render_lines`, thread time) and of the whole process "
        "for a key and its frame, at 100,000 rows, in alternated rounds of one run."
    ),
    "sandbox": (
        "The create ratio is far from 0.5, and that is the runtime's cost, not a fault to fix: "
        "to reach it a durable create+confirm would have to cost at most twice a trivial "
        "request, about 110 µs of server CPU. uvicorn and the middleware take the same 55 µs "
        "as `/health`; the SQLite part alone (three inserts into indexed tables, savepoints, a "
        "share of the group commit) costs about 80 µs; validation, card rules and building the "
        "answer about 170 µs more in Python. Time-ordered ids and orjson are in; a writer "
        "thread would leave the Python part on the loop, which is already above the budget."
    ),
    "listener": (
        "The ratio to a bare ASGI app that answers 200 stays under 0.6: the listener's own work "
        "on the event loop (verify, parse, hand to the journal writer) is about 50 µs per event "
        "against 31 µs for the bare app, which caps the ratio near 0.62 however fast storage "
        "is; the wait for the commit before answering (`synchronous=FULL`, the guarantee) and "
        "the hand-over between threads take the rest. A journal writer in its own process was "
        "built and measured: it kept the guarantees but did not gain."
    ),
    "startup": (
        "The targets are guards (issue 43): the first row at most 1.6x a bare Textual app's "
        "first paint, usable at most 3.0x, quit at most 1.0x, and no regression (each ratio at "
        "most 15% above the last recorded run's). A single pair of runs spreads widely on a "
        "shared 2-core machine, so a median of nine can land above its guard when the machine "
        "is busy; the same run times a plain Textual app made of Textual's own widgets for the "
        "same screen, printed for reference (not a guard). "
        "The live page with its actions usable measures 2.6-2.8x on a quiet machine and "
        "2.2-2.5x on a busy one (profiled 2026-11-28): the process is CPU-bound from launch to "
        "the live page, and after a first frame of 1.4-1.5x the bare app's come the client's "
        "imports, about "
        "150 ms of CPU (httpx 22 ms and the click, pygments and rich modules of its command "
        "line 17 ms, pydantic 36 ms and its plugins' lookup 10 ms, the models 41 ms, payscope's "
        "client 6 ms), then the first page (its validator built, the request log's redaction, "
        "the table: about 25 ms) and the listener's imports (30 ms, overlapping the first page); "
        "Textual's own work after a first frame (the focus, the footer's keys, layouts: about "
        "40 ms) shares the same interpreter lock. Imported before the first frame instead, "
        "they delay it as much (measured: the first row 0.36 to 0.51 s)."
    ),
}


def _number(value: float, unit: str) -> str:
    if unit == "x":
        return f"{value:.3f}" if abs(value) < 10 else f"{value:,.1f}"
    if float(value).is_integer():
        return f"{int(value):,}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"


def _with_unit(value: float, unit: str) -> str:
    text = _number(value, unit)
    if not unit:
        return text
    return f"{text}{unit}" if unit == "x" else f"{text} {unit}"


def _figure_row(figure: dict[str, Any]) -> str:
    unit = figure.get("unit", "")
    value = _with_unit(figure["value"], unit)
    if figure.get("compare"):
        target = f"{figure['compare']} {_with_unit(figure['target'], unit)}"
        mark = "✓" if figure.get("met") else "✗ missed"
        value = f"**{value}**"
    else:
        target, mark = "not judged", ""
    note = f" ({figure['note']})" if figure.get("note") else ""
    return f"| {figure['name']}{note} | {value} | {target} | {mark} |"


def _section(name: str, result: dict[str, Any] | None) -> list[str]:
    lines = [f"## {name}", ""]
    if result is None:
        lines += [
            f"`bench/{name}.py`: {SCRIPTS.get(name, '')}. No figures yet on record: "
            f"run `python bench/{name}.py` (or `make bench`).",
            "",
        ]
        return lines
    machine, versions = result["machine"], result["versions"]
    deps = ", ".join(f"{k} {v}" for k, v in versions.items() if v and k != "payscope")
    lines += [
        f"`{result['command']}`: {result.get('what') or SCRIPTS.get(name, '')}.",
        "",
        f"Run {result['date']} on {machine['cores']} cores, {machine.get('implementation', '')} "
        f"{machine['python']}; payscope {versions.get('payscope')}; {deps}.",
        "",
        "| figure | value | target | |",
        "|---|---|---|---|",
        *(_figure_row(f) for f in result["figures"]),
        "",
    ]
    if name in NOTES:
        lines += [NOTES[name], ""]
    return lines


def render() -> str:
    results: dict[str, dict[str, Any]] = {}
    for path in sorted((BENCH / "results").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        results[data["name"]] = data
    names = list(SCRIPTS) + sorted(set(results) - set(SCRIPTS))
    summary = ["| script | what | latest run | targets |", "|---|---|---|---|"]
    for name in names:
        result = results.get(name)
        if result is None:
            summary.append(f"| [`{name}`](#{name}) | {SCRIPTS.get(name, '')} | not yet | |")
            continue
        judged = [f for f in result["figures"] if f.get("compare")]
        met = sum(1 for f in judged if f.get("met"))
        state = f"{met} of {len(judged)} met" + ("" if met == len(judged) else " ✗")
        summary.append(
            f"| [`{name}`](#{name}) | {SCRIPTS.get(name, result.get('what', ''))} | "
            f"{result['date'][:10]} | {state} |"
        )
    head = [
        "# Performance",
        "",
        "<!-- Written by bench/report.py from bench/results/*.json: edit those, not this. -->",
        "",
        "Every script under `bench/` measures its own baseline in the same run where it has one "
        "(a bare Textual app, bare httpx, a bare ASGI app), so a figure is read against what the "
        "machine could do at that moment. Each run writes its figures to "
        "`bench/results/<name>.json`: the date, the machine, the versions of payscope and its "
        "main dependencies, and each figure against its target. `make bench` runs them all and "
        "writes this page; `python bench/<name>.py` runs one (then `python bench/report.py`).",
        "",
        "The figures below are the latest run of each script on the machine named with it; a "
        "shared machine's load moves them, which is why ratios to a baseline are what is judged. "
        "What changed and why is in the changelog.",
        "",
        *summary,
        "",
    ]
    body: list[str] = []
    for name in names:
        body += _section(name, results.get(name))
    return "\n".join(head + body).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare with the page")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != text:
            print("docs/performance.md is not what bench/report.py writes: run it", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
