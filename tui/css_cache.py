"""Parsed CSS kept between runs, so a warm start does not tokenize the same CSS again.

Every start parses the app's and each widget's CSS (about 40 sources with the theme's
variables substituted): 25-30 ms of the 0.2 s between Textual's import and the first frame,
the largest single part of it (measured 2026-11-26). The parsed rules depend only on the CSS
text, where it was read from, its flags and the variables, and all of that is the key, so a
changed widget, theme or Textual misses and is parsed again. The rules used by a run are written
in a thread once its first frame is out (only when something was parsed: pickling them takes
10-20 ms, which the runtime's start need not wait for; the app waits for that thread when it
quits); the next start loads them in a few milliseconds.

The file is a pickle in the data dir's `cache/` (0600 in a 0700 directory, as every file
payscope writes). Pickle runs code when it loads, so a file that is not the user's own, or that
others may write, is not loaded; nor is one from another Textual or Python version, one that is
damaged, or one whose objects are not parsed rules. Any problem falls back to parsing: the cache
is only ever a head start. `PAYSCOPE_CSS_CACHE=off` turns it off.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from threading import Thread

FILE_NAME = "css-rules.pickle"
ENV_SWITCH = "PAYSCOPE_CSS_CACHE"
FORMAT = 1

# (css, read_from, is_default_rules, tie_breaker, scope, variables as sorted items)
Key = tuple[Any, ...]


def _stamp() -> tuple[Any, ...]:
    """What the parsed rules were made by: this format, this Python, and Textual's CSS modules
    as installed (their paths and times: an upgrade rewrites them). Not `textual.__version__`,
    which reads the package metadata, 20-25 ms at start-up."""
    import textual

    package = Path(textual.__file__).parent
    files = ("__init__.py", "css/model.py", "css/parse.py", "css/styles.py", "css/tokenize.py")
    made: list[tuple[str, int | None]] = []
    for name in files:
        try:
            made.append((name, os.stat(package / name).st_mtime_ns))
        except OSError:
            made.append((name, None))
    return (FORMAT, sys.version_info[:2], str(package), tuple(made))


class ParsedCss:
    """The rules parsed by earlier runs (loaded on first use) and by this one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._loaded: dict[Key, Any] | None = None
        self._used: dict[Key, Any] = {}
        self._new = False

    def get(self, key: Key) -> Any | None:
        if self._loaded is None:
            self._loaded = self._load()
        rules = self._loaded.get(key)
        if rules is not None:
            self._used[key] = rules
        return rules

    @property
    def pending(self) -> bool:
        """Something was parsed since the last save."""
        return self._new

    def put(self, key: Key, rules: Any) -> None:
        self._used[key] = rules
        self._new = True

    def save(self) -> None:
        """Write the rules this run used, if it parsed any (a failure is ignored)."""
        if not self._new:
            return
        self._new = False  # first: what is parsed from here on makes it pending again
        used = dict(self._used)  # a copy (the app may parse more while a thread saves)
        from tui.private_files import open_private, private_dir

        with contextlib.suppress(OSError, pickle.PicklingError, TypeError, AttributeError):
            private_dir(self.path.parent)
            temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}")
            payload = pickle.dumps((_stamp(), used), protocol=pickle.HIGHEST_PROTOCOL)
            with open_private(temporary, "wb") as out:
                out.write(payload)
            os.replace(temporary, self.path)

    def _load(self) -> dict[Key, Any]:
        try:
            with open(self.path, "rb") as source:
                info = os.fstat(source.fileno())
                if not _trusted(info):
                    return {}
                data = source.read()
        except OSError:
            return {}
        try:
            stamp, rules = pickle.loads(data)  # the user's own file, checked above
        except Exception:  # a damaged or foreign file: parse instead
            return {}
        if stamp != _stamp() or not isinstance(rules, dict):
            return {}
        from textual.css.model import RuleSet

        if not all(
            isinstance(value, list) and all(isinstance(rule, RuleSet) for rule in value)
            for value in rules.values()
        ):
            return {}
        return rules


def _trusted(info: os.stat_result) -> bool:
    """A regular file of this user's that nobody else may write."""
    if not stat.S_ISREG(info.st_mode) or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return False
    return not hasattr(os, "getuid") or info.st_uid == os.getuid()


_active: ParsedCss | None = None


def use(data_dir: Path) -> None:
    """Keep parsed CSS under `data_dir` for this process (unless turned off)."""
    global _active
    if os.environ.get(ENV_SWITCH, "").strip().lower() in {"off", "0", "no", "false"}:
        _active = None
        return
    _active = ParsedCss(data_dir / "cache" / FILE_NAME)


def active() -> ParsedCss | None:
    return _active


def save() -> None:
    if _active is not None:
        _active.save()


_saving: Thread | None = None  # the thread of `save_in_background`, if one was started


def save_in_background() -> None:
    """`save()` in a thread of its own (nothing to do, no thread, when nothing was parsed)."""
    global _saving
    if _active is None or not _active.pending:
        return
    import threading

    _saving = threading.Thread(target=_active.save, name="payscope-css-cache", daemon=True)
    _saving.start()


def finish_saving(timeout: float = 2.0) -> None:
    """Wait for a save in progress (at quit: the file is then whole; it is done long before)."""
    if _saving is not None:
        _saving.join(timeout)
