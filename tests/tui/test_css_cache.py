"""`tui.css_cache`: a warm start takes its parsed CSS from the run before, and styles every node
as Textual's own parsing would; a file that is not safe to load, or not right, is parsed over."""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

import pytest
import textual.css.stylesheet as textual_stylesheet
from textual.css.stylesheet import StylesheetParseError

from tests.tui.snapshot_app import build, ready
from tests.tui.test_stylesheet import _styles_agree
from tui import css_cache
from tui.stylesheet import FastStylesheet

Dirs = tuple[Path, Path]


@pytest.fixture(autouse=True)
def _css_parsed_once() -> None:
    """Not the worker-wide parse memo of tests/tui/conftest.py: these tests count parses."""


@pytest.fixture(autouse=True)
def _cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(css_cache.ENV_SWITCH, raising=False)  # the suite runs with it off


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The CSS texts Textual's parser is run on, in order."""
    texts: list[str] = []
    parse = textual_stylesheet.parse

    def counted(scope: str, css: str, *args: Any, **kwargs: Any) -> Any:
        texts.append(css)
        return parse(scope, css, *args, **kwargs)

    monkeypatch.setattr(textual_stylesheet, "parse", counted)
    return texts


def _cache_file(data: Path) -> Path:
    return data / "cache" / css_cache.FILE_NAME


async def _start(dirs: Dirs, parsed: list[str], theme: str = "payscope-dark") -> set[str]:
    """Start the app and wait for its first page; the CSS texts it parsed. Every node's styles
    are then checked against Textual's own parse of the same CSS."""
    parsed.clear()
    app = build(*dirs, theme=theme)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        texts = set(parsed)
        _styles_agree(app)  # parses the app's CSS again, with Textual's plain Stylesheet
    return texts


def _cached_texts(data: Path) -> set[str]:
    _stamp, rules = pickle.loads(_cache_file(data).read_bytes())
    return {key[0] for key in rules}


async def test_a_warm_start_parses_none_of_the_css_the_start_before_kept(
    dirs: Dirs, parsed: list[str]
) -> None:
    first_run = await _start(dirs, parsed)
    path = _cache_file(dirs[1])
    assert path.stat().st_mode & 0o777 == 0o600
    kept = _cached_texts(dirs[1])
    assert len(kept) >= 20 and kept <= first_run
    assert not kept & await _start(dirs, parsed), "CSS the first start kept was parsed again"


async def test_each_theme_is_kept_apart(dirs: Dirs, parsed: list[str]) -> None:
    await _start(dirs, parsed, theme="payscope-light")
    kept = _cached_texts(dirs[1])
    # Other variables: everything parsed again, nothing taken from the light theme's rules.
    assert kept <= await _start(dirs, parsed, theme="payscope-dark")
    assert not _cached_texts(dirs[1]) & await _start(dirs, parsed, theme="payscope-dark")


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda path: path.chmod(0o620), id="others-may-write"),
        pytest.param(lambda path: path.write_bytes(b"\x80\x05not a pickle"), id="damaged"),
        pytest.param(
            lambda path: path.write_bytes(pickle.dumps(((0, "another textual"), {}))),
            id="another-version",
        ),
        pytest.param(
            lambda path: path.write_bytes(
                pickle.dumps((css_cache._stamp(), {("a",): ["not rules"]}))
            ),
            id="not-rules",
        ),
    ],
)
async def test_a_file_not_safe_or_not_right_is_parsed_over(
    dirs: Dirs, parsed: list[str], spoil: Any
) -> None:
    await _start(dirs, parsed)
    kept = _cached_texts(dirs[1])
    spoil(_cache_file(dirs[1]))
    assert kept <= await _start(dirs, parsed)
    assert _cached_texts(dirs[1]) == kept  # written again, whole, from this start
    assert _cache_file(dirs[1]).stat().st_mode & 0o777 == 0o600


async def test_turned_off_it_writes_nothing(dirs: Dirs, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(css_cache.ENV_SWITCH, "off")
    await _start(dirs, [])
    assert not _cache_file(dirs[1]).exists()


def test_css_with_errors_is_never_kept(tmp_path: Path, parsed: list[str]) -> None:
    css_cache.use(tmp_path)
    disk = css_cache.active()
    assert disk is not None
    for attempt in range(2):
        sheet = FastStylesheet()
        sheet.add_source("Label { colr: red; }", read_from=("broken.tcss", ""))
        with pytest.raises(StylesheetParseError):
            sheet.parse()
        assert len(parsed) == attempt + 1  # parsed, and refused, every time
    css_cache.save()
    assert not (tmp_path / "cache" / css_cache.FILE_NAME).exists()
    assert os.environ.get(css_cache.ENV_SWITCH) is None
