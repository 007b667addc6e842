"""A screen's snapshots in the two themes of one size show the same text.

`make test` takes each snapshot in two of its four looks (`SUITE_LOOKS` in tests/tui/pilot.py);
CI takes all four. When a screen changes, `--snapshot-update` without `PAYSCOPE_LOOKS=all`
refreshes only the two looks the run took, and the crossed pair (120x40 light, 80x24 dark) goes
stale: CI then fails on pictures nobody looked at. A theme changes colours, never words, so a
screen's two pictures at one size must read the same; this catches the stale one in every run,
for the cost of reading the files.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from pathlib import Path

import pytest

SNAPSHOTS = Path(__file__).parent / "__snapshots__"
LOOK = re.compile(r"^(?P<screen>.*)-(?P<size>120x40|80x24)-(?P<theme>dark|light)\]\.svg$")
TEXT = re.compile(r'<text [^>]*x="(?P<x>[\d.]+)" y="(?P<y>[\d.]+)"[^>]*>(?P<text>[^<]*)</text>')


def words(svg: Path) -> str:
    """The picture's text, row by row, spaces left out (a theme may split a row's spans apart)."""
    rows: dict[float, list[tuple[float, str]]] = defaultdict(list)
    for match in TEXT.finditer(svg.read_text(encoding="utf-8")):
        rows[float(match["y"])].append((float(match["x"]), html.unescape(match["text"])))
    lines = ("".join(text for _, text in sorted(row)) for _, row in sorted(rows.items()))
    return "\n".join(re.sub(r"\s", "", line) for line in lines)


def looks() -> dict[tuple[str, str], dict[str, Path]]:
    """Each screen's snapshots by (screen, size), then theme."""
    found: dict[tuple[str, str], dict[str, Path]] = defaultdict(dict)
    for svg in SNAPSHOTS.rglob("*.svg"):
        look = LOOK.match(svg.name)
        if look:
            found[(f"{svg.parent.name}/{look['screen']}", look["size"])][look["theme"]] = svg
    return found


def pairs() -> list[tuple[Path, Path]]:
    both = [themes for _, themes in sorted(looks().items()) if len(themes) == 2]
    return [(themes["dark"], themes["light"]) for themes in both]


def test_every_screen_has_both_themes_at_each_size() -> None:
    """`--snapshot-update` without `PAYSCOPE_LOOKS=all` deletes the looks it did not take (they
    look unused to it): restore them from git, or run it with all the looks."""
    lone = sorted(f"{key}: {sorted(themes)}" for key, themes in looks().items() if len(themes) != 2)
    assert not lone, lone


def test_there_are_pairs_to_compare() -> None:
    assert len(pairs()) >= 40


def test_words_reads_the_text_of_a_picture() -> None:
    dark, _ = pairs()[0]
    assert len(words(dark)) > 100


@pytest.mark.parametrize(
    ("dark", "light"),
    [pytest.param(dk, lt, id=dk.name.replace("-dark]", "]")) for dk, lt in pairs()],
)
def test_both_themes_of_a_size_show_the_same_text(dark: Path, light: Path) -> None:
    assert words(dark) == words(light), (
        f"{dark.name} and {light.name} read differently: one was not refreshed. "
        "Run the screen's test with PAYSCOPE_LOOKS=all --snapshot-update, and look at both."
    )
