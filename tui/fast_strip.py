"""Textual's `Strip` (one line of a rendered widget), cheaper to create.

Every `Strip` builds seven `FIFOCache`s in its `__init__`, each through a Python `__init__`, so
a frame of the Payments page (about a thousand strips) spent a tenth of its rendering making
caches that most strips never use (measured: the first frame's render 4 ms shorter, 2026-11-26).
Here each cache is a `dict` subclass, created in C, looked up with `dict.get` (C) and evicting
the oldest key in Python only when storing into a full one, as `FIFOCache.set` does. Same sizes,
same first-in-first-out eviction, same lookups: `Strip` only ever calls `get(key)` and
`cache[key] = value` on them. `install()` is idempotent; `tui.app` installs it on import, before
any strip is made. `tests/tui/test_fast_strip.py` checks the caches against Textual's own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.segment import Segment
from textual.strip import Strip


class _Fifo4(dict[Any, Any]):
    """A FIFOCache(4) of Textual's, as a dict."""

    __slots__ = ()
    maxsize = 4

    def __setitem__(self, key: Any, value: Any) -> None:
        if len(self) >= self.maxsize and key not in self:
            del self[next(iter(self))]
        dict.__setitem__(self, key, value)


class _Fifo16(_Fifo4):
    """A FIFOCache(16) of Textual's, as a dict."""

    __slots__ = ()
    maxsize = 16


def _init(self: Strip, segments: Iterable[Segment], cell_length: int | None = None) -> None:
    """`Strip.__init__` (textual 8.2), with the caches above."""
    self._segments = list(segments)
    self._cell_length = cell_length
    self._divide_cache = _Fifo4()  # type: ignore[assignment]
    self._crop_cache = _Fifo16()  # type: ignore[assignment]
    self._style_cache = _Fifo16()  # type: ignore[assignment]
    self._filter_cache = _Fifo4()  # type: ignore[assignment]
    self._line_length_cache = _Fifo4()  # type: ignore[assignment]
    self._crop_extend_cache = _Fifo4()  # type: ignore[assignment]
    self._offsets_cache = _Fifo4()  # type: ignore[assignment]
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


TEXTUAL_INIT = Strip.__init__


def install() -> None:
    """Make every Strip created from now on use the cheaper caches."""
    Strip.__init__ = _init  # type: ignore[method-assign]
