"""The README stays short and shows the app's own pictures; the figures live in bench/results/
and docs/performance.md is written from them; the command line says where the docs are.

(`mkdocs build --strict`, run by `make lint`, fails on a broken link or a page left out of the
navigation; tests/test_docs_pictures.py checks the pictures against what the app draws.)
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from payscope.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BENCH = ROOT / "bench"


def test_the_readme_is_at_most_12_kb() -> None:
    assert len(README.read_bytes()) <= 12 * 1024


def test_the_readme_shows_at_least_three_of_the_apps_own_pictures() -> None:
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README.read_text(encoding="utf-8"))
    assert len(pictures) >= 3
    for picture in pictures:
        # The app's own drawing (SVG), or the one photo of a browser showing `payscope serve`,
        # which the app cannot draw itself.
        drawn = picture.startswith("docs/images/") and picture.endswith(".svg")
        assert drawn or picture == "docs/images/serve.png", picture
        assert (ROOT / picture).is_file(), picture


def test_the_readme_links_to_files_that_exist() -> None:
    text = README.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_the_readme_carries_no_benchmark_history() -> None:
    text = README.read_text(encoding="utf-8")
    figure = re.search(r"\d[\d,.]* ?(ms|µs|req/s|events/s|payments/s|MiB)\b", text)
    assert figure is None, f"{figure and figure.group()!r}: figures belong in bench/results/"


def _benches() -> list[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    block = makefile.split("BENCHES :=", 1)[1].split("\nbench:", 1)[0]
    return re.findall(r"bench/(\w+)\.py", block)


def test_every_benchmark_make_bench_runs_records_its_figures() -> None:
    names = _benches()
    assert names
    for name in names:
        source = (BENCH / f"{name}.py").read_text(encoding="utf-8")
        assert f'record(\n        "{name}"' in source or f'record("{name}"' in source, name


def test_the_results_on_record_have_what_the_page_needs() -> None:
    for path in sorted((BENCH / "results").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["name"] == path.stem
        assert data["date"] and data["machine"]["cores"] and data["machine"]["python"]
        assert data["versions"]["payscope"] and data["versions"]["textual"]
        for figure in data["figures"]:
            assert {"name", "value", "unit", "compare", "target", "met"} <= set(figure)


def test_performance_page_is_what_bench_report_writes() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "report.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr + " (run `python bench/report.py`)"


@pytest.mark.parametrize("argv", [[], ["sandbox"], ["listen"], ["keys"]])
def test_every_help_says_where_the_docs_are(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args([*argv, "--help"])
    out = capsys.readouterr().out
    pages = re.findall(r"docs/([\w-]+)\.md", out)
    assert pages, out
    for page in pages:
        assert (ROOT / "docs" / f"{page}.md").is_file(), page


# A count of the project's own parts (its tests, snapshots, files, lines) is made false by the
# next commit that adds one: "runs its 2,433 tests" stayed in the README while 2,453 ran.
_OWN_COUNT = re.compile(
    r"\b\d[\d,]*\s+(?:(?:unit|pilot|snapshot|property)\s+)?"
    r"(?:tests?|test (?:files|cases|modules)|snapshots?|assertions|test functions|"
    r"lines of (?:code|python)|source files|python files|modules|commits)\b",
    re.IGNORECASE,
)


def own_counts(text: str) -> list[str]:
    """The counts of the project's own parts that `text` states."""
    return [match.group() for match in _OWN_COUNT.finditer(text)]


def test_a_count_the_next_commit_makes_false_is_caught() -> None:
    assert own_counts("`make test` runs its 2,433 tests in parallel") == ["2,433 tests"]
    assert own_counts("412 snapshot tests and 9 modules") == ["412 snapshot tests", "9 modules"]
    assert own_counts("a page of 100 rows, 90 days of data, the last 4 digits") == []


def test_the_readme_and_the_docs_state_no_count_of_the_projects_own_parts() -> None:
    # The changelog is history: what it says was true on its day.
    pages = [README, *sorted((ROOT / "docs").glob("*.md"))]
    found = {
        str(page.relative_to(ROOT)): counts
        for page in pages
        if (counts := own_counts(page.read_text(encoding="utf-8")))
    }
    assert found == {}
