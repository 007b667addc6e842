"""Demo stories: TOML data files of steps, checked whole before anything plays.

A story::

    title = "A short tour"
    [[step]]
    caption = "Payments: every payment in the sandbox"   # the caption line while it plays
    command = "payments"        # typed after `:` and run (command mode)
    keys = ["enter"]            # keys pressed in order (Textual key names: "enter", "escape", "j")
    type = "pay_"               # text typed character by character
    wait_for = "Payments"       # text that must be on screen before the story goes on
    timeout = 10                # seconds to wait for it (default 10)
    pause = 2.0                 # seconds to leave it on screen (at --pace 1.0; default 1.5)

Every field is optional but a step does something (a command, keys, text or a caption). A
mistake (an unknown field, a wrong type, an empty step) is refused with the step's number and
the field named, before the story starts. The shipped stories are `STORIES`.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from payscope.core import bounded

STORY_DIR = Path(__file__).parent / "stories"
STORIES = ("developer", "support", "tour")
DEFAULT_PAUSE = 1.5
DEFAULT_TIMEOUT = 10.0
_STEP_FIELDS = ("caption", "command", "keys", "type", "wait_for", "timeout", "pause")


class StoryError(ValueError):
    """A story that cannot be played: the message names the file, the step and the field."""


@dataclass(frozen=True)
class Step:
    """One step of a story (see the module docstring)."""

    number: int  # 1-based, as the error messages and the caption line count
    caption: str = ""
    command: str = ""
    keys: tuple[str, ...] = ()
    type: str = ""
    wait_for: str = ""
    timeout: float = DEFAULT_TIMEOUT
    pause: float = DEFAULT_PAUSE


@dataclass(frozen=True)
class Story:
    """A story's title and steps, in order."""

    name: str
    title: str
    steps: tuple[Step, ...]


def find_story(name_or_file: str) -> Path:
    """The file of a shipped story's name, or `name_or_file` as a path."""
    if name_or_file in STORIES:
        return STORY_DIR / f"{name_or_file}.toml"
    path = Path(name_or_file).expanduser()
    if not path.is_file():
        raise StoryError(
            f"No story {name_or_file!r}: name one of {', '.join(STORIES)}, or a story file "
            "(.toml) that exists."
        )
    return path


def load_story(name_or_file: str) -> Story:
    """Read and check a story; `StoryError` names the step and the field of any mistake."""
    path = find_story(name_or_file)
    try:
        data = bounded.loads_toml(bounded.read_text(path))
    except bounded.OutOfBounds as exc:  # too large, or nested too deeply
        raise StoryError(f"{path}: {exc.problem}.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise StoryError(f"{path}: cannot be read ({exc}).") from None
    except tomllib.TOMLDecodeError as exc:
        raise StoryError(f"{path}: not valid TOML ({exc}).") from None
    return parse_story(data, path.stem, str(path))


def parse_story(data: dict[str, Any], name: str, where: str) -> Story:
    """Check a story's data (a TOML document) and build it."""
    unknown = sorted(set(data) - {"title", "step"})
    if unknown:
        raise StoryError(f"{where}: unknown field {unknown[0]!r} (a story has title and [[step]]).")
    title = data.get("title", name)
    if not isinstance(title, str):
        raise StoryError(f"{where}: title must be text, got {title!r}.")
    raw_steps = data.get("step")
    if not isinstance(raw_steps, list) or not raw_steps:
        raise StoryError(f"{where}: no steps (add [[step]] tables).")
    return Story(name, title, tuple(_step(raw, n, where) for n, raw in enumerate(raw_steps, 1)))


def _step(raw: Any, number: int, where: str) -> Step:
    def bad(field: str, expected: str, value: Any) -> StoryError:
        return StoryError(
            f"{where}: step {number}, field {field!r}: expected {expected}, got {value!r}."
        )

    if not isinstance(raw, dict):
        raise StoryError(f"{where}: step {number} is not a table.")
    unknown = sorted(set(raw) - set(_STEP_FIELDS))
    if unknown:
        raise StoryError(
            f"{where}: step {number}, field {unknown[0]!r}: unknown (a step has "
            f"{', '.join(_STEP_FIELDS)})."
        )
    texts: dict[str, str] = {}
    for field in ("caption", "command", "type", "wait_for"):
        value = raw.get(field, "")
        if not isinstance(value, str):
            raise bad(field, "text", value)
        texts[field] = value
    keys = raw.get("keys", [])
    if isinstance(keys, str):
        keys = [keys]
    if not isinstance(keys, list) or not all(isinstance(k, str) and k.strip() for k in keys):
        raise bad("keys", 'a list of key names, e.g. ["enter", "j"]', keys)
    numbers: dict[str, float] = {}
    for field, default, most in (
        ("timeout", DEFAULT_TIMEOUT, 120.0),
        ("pause", DEFAULT_PAUSE, 60.0),
    ):
        value = raw.get(field, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= most:
            raise bad(field, f"a number of seconds from 0 to {most:g}", value)
        numbers[field] = float(value)
    if not (texts["caption"] or texts["command"] or texts["type"] or keys):
        raise StoryError(
            f"{where}: step {number}: does nothing (give it a caption, a command, keys or type)."
        )
    return Step(
        number,
        caption=texts["caption"],
        command=texts["command"],
        keys=tuple(keys),
        type=texts["type"],
        wait_for=texts["wait_for"],
        timeout=numbers["timeout"],
        pause=numbers["pause"],
    )
