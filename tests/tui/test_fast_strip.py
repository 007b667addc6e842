"""`tui.fast_strip`: Textual's `Strip` with caches that are cheaper to create, the same in use."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.cache import FIFOCache
from textual.strip import Strip

from tui import app as _app  # noqa: F401  (installs it, as the app does)
from tui.fast_strip import TEXTUAL_INIT, _Fifo4, _Fifo16, _init

SEGMENTS = [Segment("hello ", Style(bold=True)), Segment("world", Style(italic=True))]


def test_the_app_installs_it() -> None:
    assert Strip.__init__ is _init
    assert TEXTUAL_INIT is not _init


def test_every_attribute_is_what_textuals_init_sets() -> None:
    """Each slot set as Textual sets it: the same values, and a cache of the same size where
    Textual makes a FIFOCache (a new slot or another size in a Textual upgrade fails here)."""
    theirs, ours = Strip.__new__(Strip), Strip.__new__(Strip)
    TEXTUAL_INIT(theirs, SEGMENTS, 11)
    _init(ours, SEGMENTS, 11)
    caches = 0
    for name in Strip.__slots__:
        mine, textuals = getattr(ours, name), getattr(theirs, name)
        if isinstance(textuals, FIFOCache):
            caches += 1
            assert isinstance(mine, _Fifo4) and mine.maxsize == textuals._maxsize, name
            assert len(mine) == 0
        else:
            assert mine == textuals, name
    assert caches == 7


def test_eviction_is_first_in_first_out_as_in_fifocache() -> None:
    for ours in (_Fifo4(), _Fifo16()):
        theirs: FIFOCache[int, int] = FIFOCache(ours.maxsize)
        for step, key in enumerate([1, 2, 3, 1, 4, 5, 2, 6, 7, 8, 9, *range(10, 40), 12, 39]):
            ours[key] = step
            theirs[key] = step
            assert list(ours.keys()) == list(theirs.keys()), (ours.maxsize, step)
            assert all(ours.get(k) == theirs.get(k) for k in range(45))
        assert len(ours) == ours.maxsize
        assert ours.get(-1) is None


def test_strips_draw_the_same() -> None:
    """The operations that use the caches give what Textual's own strips give, twice (the
    second time from the cache)."""

    def run(strip: Strip) -> list[object]:
        out: list[object] = []
        for _ in range(2):
            out += [
                strip.crop(2, 9).text,
                [s.text for s in strip.divide([3, 7, 11])],
                strip.apply_style(Style(underline=True)),
                strip.adjust_cell_length(20, Style(bgcolor="red")),
                strip.crop_extend(1, 15, None),
                strip.apply_offsets(1, 2).render(_app_console()),
                strip.render(_app_console()),
            ]
        return out

    theirs = Strip.__new__(Strip)
    TEXTUAL_INIT(theirs, SEGMENTS)
    assert run(Strip(SEGMENTS)) == run(theirs)


def _app_console():  # type: ignore[no-untyped-def]
    from rich.console import Console

    return Console(color_system="truecolor", width=40)
