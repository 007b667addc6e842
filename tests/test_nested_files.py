"""Every file payscope reads has a bounded depth and size (tui/payscope/core/bounded.py): a fixture,
a demo story and profiles.toml nested a few thousand levels deep, or larger than payscope reads,
get a clear error naming the file: from the functions that read them and from the real commands
(`payscope fixtures run`, `payscope demo`, `payscope export`), never a RecursionError."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from payscope.api.fixtures.files import load_fixture
from payscope.api.fixtures.steps import FixtureError
from payscope.core import bounded, config
from payscope.demo.story import StoryError, load_story
from tests.waits import HANG

ROOT = Path(__file__).resolve().parents[1]
LEVELS = 5000
STEP = '[[steps]]\nname = "one"\nmethod = "GET"\npath = "/payments"\n'

# The ways TOML nests: arrays, inline tables, and table headers with dotted keys (which the
# standard parser builds without recursing, but whoever walks the result would).
DEEP_TOML = {
    "arrays": "x = " + "[" * LEVELS + "]" * LEVELS + "\n",
    "inline_tables": "x = " + "{a = " * LEVELS + "1" + "}" * LEVELS + "\n",
    "dotted_header": "[" + ".".join(["a"] * LEVELS) + "]\nb = 1\n",
}
DEEP_JSON = '{"a":' * LEVELS + "1" + "}" * LEVELS


def payscope(*args: str, timeout: float = HANG) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "payscope", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=os.environ,
    )


def said_plainly(done: subprocess.CompletedProcess[str], path: Path) -> None:
    assert done.returncode in (1, 2), done
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    assert str(path) in done.stderr and "nested too deeply" in done.stderr


@pytest.mark.parametrize("shape", DEEP_TOML)
def test_a_deep_toml_fixture_is_refused_naming_the_file(tmp_path: Path, shape: str) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(DEEP_TOML[shape] + STEP)
    with pytest.raises(FixtureError) as caught:
        load_fixture(path)
    assert caught.value.source == str(path)
    assert f"at most {bounded.MAX_DEPTH} levels" in str(caught.value)


def test_a_deep_json_fixture_and_a_deep_json_body_are_refused(tmp_path: Path) -> None:
    whole = tmp_path / "deep.json"
    whole.write_text(
        '{"steps": [{"name": "one", "method": "GET", "path": "/", "x": ' + DEEP_JSON + "}]}"
    )
    with pytest.raises(FixtureError, match="nested too deeply") as caught:
        load_fixture(whole)
    assert caught.value.source == str(whole)
    body = tmp_path / "body.toml"
    body.write_text(
        STEP.replace('path = "/payments"', 'path = "/payments"\nbody = ' + json.dumps(DEEP_JSON))
    )
    with pytest.raises(FixtureError, match="nested too deeply") as caught:
        load_fixture(body)
    assert caught.value.field_name == "body" and caught.value.source == str(body)


def test_a_fixture_larger_than_payscope_reads_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_text(STEP + "# " + "x" * bounded.MAX_FILE_BYTES + "\n")
    with pytest.raises(FixtureError, match="larger than payscope reads") as caught:
        load_fixture(path)
    assert caught.value.source == str(path)


def test_a_fixture_as_deep_as_payscope_reads_is_read(tmp_path: Path) -> None:
    depth = bounded.MAX_DEPTH - 3  # the document, steps, the step, then the body's levels
    body = '{"a":' * depth + "1" + "}" * depth
    path = tmp_path / "ok.toml"
    path.write_text(
        STEP.replace('path = "/payments"', 'path = "/payments"\nbody = ' + json.dumps(body))
    )
    assert load_fixture(path).steps[0].path == "/payments"


def test_fixtures_run_says_a_deep_fixture_plainly(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(DEEP_TOML["arrays"] + STEP)
    said_plainly(payscope("fixtures", "run", str(path)), path)


@pytest.mark.parametrize("shape", DEEP_TOML)
def test_a_deep_story_is_refused_naming_the_file(tmp_path: Path, shape: str) -> None:
    path = tmp_path / "deep.toml"
    path.write_text('title = "deep"\n' + DEEP_TOML[shape] + '[[step]]\nkeys = ["j"]\n')
    with pytest.raises(StoryError, match="nested too deeply") as caught:
        load_story(str(path))
    assert str(path) in str(caught.value)


def test_payscope_demo_says_a_deep_story_plainly(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(DEEP_TOML["inline_tables"])
    said_plainly(payscope("demo", str(path)), path)


@pytest.mark.parametrize("shape", DEEP_TOML)
def test_a_deep_profiles_toml_is_refused_naming_the_file(shape: str) -> None:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(DEEP_TOML[shape])
    with pytest.raises(config.ConfigError, match="nested too deeply") as caught:
        config.load_settings()
    assert str(path) in str(caught.value)


def test_a_profiles_toml_larger_than_payscope_reads_is_refused() -> None:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('theme = "dark"\n# ' + "x" * bounded.MAX_FILE_BYTES + "\n")
    with pytest.raises(config.ConfigError, match="larger than payscope reads") as caught:
        config.load_settings()
    assert str(path) in str(caught.value)


@pytest.mark.parametrize("command", ["export", "fixtures"])
def test_the_commands_say_a_deep_profiles_toml_plainly(tmp_path: Path, command: str) -> None:
    fixture = tmp_path / "one.toml"
    fixture.write_text(STEP)
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(DEEP_TOML["arrays"])
    args = ["export", "payments"] if command == "export" else ["fixtures", "run", str(fixture)]
    said_plainly(payscope(*args), path)


@pytest.mark.parametrize("shape", DEEP_TOML)
def test_a_deep_theme_file_is_a_problem_said_not_a_crash(tmp_path: Path, shape: str) -> None:
    from payscope.widgets.theming import load_theme_dir

    (tmp_path / "deep.toml").write_text('name = "deep"\n' + DEEP_TOML[shape])
    (tmp_path / "big.toml").write_text('name = "big"\n# ' + "x" * bounded.MAX_FILE_BYTES)
    loaded = load_theme_dir(tmp_path)
    assert loaded.themes == {}
    deep, big = sorted(loaded.problems, key=lambda p: "deep" in p)[::-1]
    assert str(tmp_path / "deep.toml") in deep and "nested too deeply" in deep
    assert str(tmp_path / "big.toml") in big and "larger than payscope reads" in big


def test_send_event_says_a_deep_or_large_event_file_plainly(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"event_id": "e", "x": ' + DEEP_JSON + "}")
    said_plainly(payscope("send-event", "--file", str(deep), "--to", "http://127.0.0.1:9/"), deep)
    big = tmp_path / "big.json"
    big.write_text('{"x": "' + "x" * bounded.MAX_FILE_BYTES + '"}')
    done = payscope("send-event", "--file", str(big), "--to", "http://127.0.0.1:9/")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert str(big) in done.stderr and "larger than payscope reads" in done.stderr


def test_a_deep_payments_cache_is_no_cache(tmp_path: Path) -> None:
    from payscope.areas.payments.cache import load_page

    path = tmp_path / "payments-local.json"
    path.write_text('{"version": 1, "rows": [' + DEEP_JSON + "]}")
    assert load_page(path) == []
