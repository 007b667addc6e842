"""What the new commands print (tui/payscope/cli/output.py): text from outside neutralised,
JSON
pretty or compact, the start's progress on a terminal only."""

from __future__ import annotations

import io
import json

import pytest

from payscope.cli.output import StartProgress, json_text, neutralise


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain Zoë 😀", "plain Zoë 😀"),
        ("\x1b[2Jgone", "\\x1b[2Jgone"),
        ("a\r\nb\tc", "a\\r\\nb\\tc"),
        ("\x9b31m", "\\x9b31m"),
        ("\u202eevil\u200b", "\\u202eevil\\u200b"),
        ("\U000e0041tag", "\\U000e0041tag"),
    ],
)
def test_neutralise_shows_what_a_terminal_would_obey(text: str, shown: str) -> None:
    assert neutralise(text) == shown
    assert neutralise(shown) == shown  # what it makes is safe as it is


def test_json_is_neutralised_losslessly() -> None:
    value = {"name": "Zoë \x1b]0;x\x07 \u202e\U000e0041", "n": [1, 2.5, True, None]}
    for pretty in (True, False):
        text = json_text(value, pretty=pretty)
        assert all(ch.isprintable() or ch == "\n" for ch in text)
        assert json.loads(text) == value  # a JSON reader reads the same value back
    assert "\n" not in json_text(value, pretty=False)
    coloured = json_text(value, pretty=True, colour=True)
    assert '\x1b[34;1m"name"\x1b[0m:' in coloured and "\x1b[36m2.5\x1b[0m" in coloured


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_start_progress_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    err = _Terminal()
    monkeypatch.setattr("sys.stderr", err)
    progress = StartProgress("get")
    progress("Starting the local sandbox…", None)
    progress("seeding, 0 of 300", 0.0)
    progress("seeding, 0 of 300", 0.0)  # said once
    progress("seeding, 300 of 300", 1.0)
    progress.finish()
    assert err.getvalue() == (
        "payscope get: Starting the local sandbox…\n"
        "\rpayscope get: seeding, 0 of 300\x1b[K"
        "\rpayscope get: seeding, 300 of 300\x1b[K\n"
    )
    piped = io.StringIO()
    monkeypatch.setattr("sys.stderr", piped)
    quiet = StartProgress("get")
    quiet("Starting the local sandbox…", None)
    assert piped.getvalue() == ""
