"""Where every benchmark writes its latest figures: `bench/results/<name>.json`.

Each script under bench/ ends by calling `record(name, figures)`: the date, the machine (cores,
Python, platform), the versions of payscope and its main dependencies, and each figure against
its target. Only the latest run of a script is kept (the history of what changed and why is in
CHANGELOG.md). `bench/report.py` (`make bench`) turns the files into docs/performance.md.

    from results import Figure, record
    record("client_overhead", [Figure("ratio ApiClient / bare httpx", 1.106, "", "<=", 1.15)])
"""

from __future__ import annotations

import json
import os
import platform
import sys
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"

# The dependencies whose versions move the figures.
MAIN_DEPENDENCIES = (
    "textual",
    "rich",
    "httpx",
    "httpcore",
    "pydantic",
    "fastapi",
    "starlette",
    "uvicorn",
    "httptools",
    "orjson",
    "textual-plotext",
)

COMPARISONS = {
    "<=": lambda value, target: value <= target,
    "<": lambda value, target: value < target,
    ">=": lambda value, target: value >= target,
    ">": lambda value, target: value > target,
    "==": lambda value, target: value == target,
}


@dataclass(frozen=True)
class Figure:
    """One measured figure; with `compare` and `target`, judged against its target.

    `compare` is one of `<=`, `<`, `>=`, `>`, `==`; without it the figure is printed, not judged
    (a baseline, a reference). `unit` is how to read `value` ("ms", "events/s", "x" for a
    ratio, "" for a count).
    """

    name: str
    value: float
    unit: str = ""
    compare: str | None = None
    target: float | None = None
    note: str = ""

    @property
    def met(self) -> bool | None:
        if self.compare is None or self.target is None:
            return None
        return bool(COMPARISONS[self.compare](self.value, self.target))


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def machine() -> dict[str, object]:
    return {
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(terse=True),
        "load_average": [round(x, 2) for x in os.getloadavg()]
        if hasattr(os, "getloadavg")
        else None,
    }


def versions() -> dict[str, str | None]:
    found = {"payscope": _version("payscope")}
    if found["payscope"] is None:  # run from a source tree without an install
        sys.path.insert(0, str(RESULTS.parent.parent))
        from payscope import __version__

        found["payscope"] = __version__
    found.update({name: _version(name) for name in MAIN_DEPENDENCIES})
    return found


def record(name: str, figures: list[Figure], *, what: str = "", command: str = "") -> Path:
    """Write `bench/results/<name>.json` with `figures` and the run's context; return its path.

    `what` says in a line what the script measures; `command` how it was run (default: the
    script and its arguments as given).
    """
    for figure in figures:
        if figure.compare is not None and figure.compare not in COMPARISONS:
            raise ValueError(f"{figure.name}: unknown comparison {figure.compare!r}")
    RESULTS.mkdir(exist_ok=True)
    document = {
        "name": name,
        "what": what,
        "command": command or " ".join(["python", *_script_args()]),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "versions": versions(),
        "figures": [{**asdict(f), "met": f.met} for f in figures],
        "all_met": all(f.met is not False for f in figures),
    }
    path = RESULTS / f"{name}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    print(f"figures written to {path.relative_to(RESULTS.parent.parent)}")
    return path


def _script_args() -> list[str]:
    script = Path(sys.argv[0])
    try:
        shown = str(script.resolve().relative_to(RESULTS.parent.parent))
    except ValueError:
        shown = script.name
    return [shown, *sys.argv[1:]]
