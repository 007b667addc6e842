"""Reading what comes from outside within bounds: every file payscope reads (fixtures, demo
stories, `profiles.toml`) has a size and a nesting depth it will not go past, and so does every
JSON answer (the client caps an answer's size itself). Past a bound the reader says so, naming
the file or the URL, instead of a parser's RecursionError (a few thousand `[` are enough).

    text = read_text(path)                        # TooLarge (over MAX_FILE_BYTES), OSError
    data = loads_toml(text, source=str(path))     # TooDeep, TOMLDecodeError
    data = loads_json(raw, source=url)            # TooDeep, ValueError (not JSON)

`TooDeep` and `TooLarge` are `ValueError`s whose message is for a person. No Textual here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "OutOfBounds",
    "TooDeep",
    "TooLarge",
    "check_depth",
    "loads_json",
    "loads_toml",
    "read_text",
]

# The deepest nesting payscope reads: above what the local sandbox can store (its parser stops
# at 201 levels: a payment's metadata that deep comes back inside a list page's three), far
# below what makes Python's own recursion give up (1000 frames, a few per level).
MAX_DEPTH = 256
# A fixture, a story or profiles.toml larger than this is not one a person wrote.
MAX_FILE_BYTES = 4 * 1024 * 1024


class OutOfBounds(ValueError):
    """Input past one of payscope's bounds: `problem` said for a person, after its `source`
    (a file or a URL) when there is one."""

    def __init__(self, source: str, problem: str) -> None:
        self.source = source
        self.problem = problem
        super().__init__(f"{source}: {problem}" if source else problem)


class TooDeep(OutOfBounds):
    def __init__(self, source: str, limit: int = MAX_DEPTH) -> None:
        self.limit = limit
        super().__init__(
            source,
            f"nested too deeply (payscope reads at most {limit} levels of lists and tables), "
            "so it was not read",
        )


class TooLarge(OutOfBounds):
    def __init__(self, source: str, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(
            source,
            f"the file is over {limit / 1_048_576:.0f} MiB, larger than payscope reads, so it "
            "was not read",
        )


def read_text(path: Path | str, *, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of `path`, read only up to `max_bytes` (`TooLarge` past it). OSError and
    UnicodeDecodeError as `Path.read_text` raises them."""
    path = Path(path)
    with path.open("rb") as stream:
        raw = stream.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise TooLarge(str(path), len(raw), max_bytes)
    return raw.decode("utf-8")


def check_depth(value: Any, *, source: str = "", limit: int = MAX_DEPTH) -> Any:
    """`value` itself, once it is known to nest at most `limit` lists and dicts deep; `TooDeep`
    naming `source` otherwise. Walked a level at a time, without recursion (a list page of 20,000
    payments: about 0.1 s, an eighth of parsing it)."""
    level: list[Any] = [value] if type(value) is dict or type(value) is list else []
    depth = 1
    while level:
        below: list[Any] = []
        for item in level:
            children = item.values() if type(item) is dict else item
            below += [c for c in children if type(c) is dict or type(c) is list]
        if below and depth >= limit:
            raise TooDeep(source, limit)
        level = below
        depth += 1
    return value


def loads_json(raw: bytes | str, *, source: str = "", limit: int = MAX_DEPTH) -> Any:
    """JSON text parsed, nested at most `limit` deep: `TooDeep` past it, ValueError (a
    json.JSONDecodeError with its line and column) when it is not JSON."""
    import orjson

    try:
        # orjson: fast, and it stops at 1024 levels by itself. What it refuses that JSON
        # allows (NaN, integers past 64 bits) goes to the standard parser.
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "recursion" in str(exc).lower() or "depth" in str(exc).lower():
            raise TooDeep(source, limit) from None
        try:
            data = json.loads(raw)
        except RecursionError:
            raise TooDeep(source, limit) from None
    return _checked(data, source, limit)


def loads_toml(text: str, *, source: str = "", limit: int = MAX_DEPTH) -> dict[str, Any]:
    """TOML text parsed, nested at most `limit` deep: `TooDeep` past it (the standard parser
    recurses on each nested array or inline table), tomllib.TOMLDecodeError when not TOML."""
    # Imported by the first read that needs it: a start with no settings file reads no TOML
    # before it spawns the background sandbox (`payscope.app.launch`).
    import tomllib

    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise TooDeep(source, limit) from None
    result: dict[str, Any] = _checked(data, source, limit)
    return result


def _checked(data: Any, source: str, limit: int) -> Any:
    return check_depth(data, source=source, limit=limit)
