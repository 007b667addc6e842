"""Charts drawn in the terminal with plotext (through textual-plotext), in the theme's colours.

`Chart` shows a `TimeFigure` (stacked bars per time bucket, or lines) or a `BarFigure`
(horizontal bars, one per group), or a sentence instead. The plot has no background of its own
(the widget's shows through) and its text is the widget's foreground, so a light theme gets dark
text; the series' colours are theme colours chosen by the caller. A drawing is kept until the
figure, the size or the theme changes: scrolling or a refresh does not draw it again.

Labels are service data: they are made visible (control characters shown, not obeyed) before
plotext sees them, since its output is read back as ANSI.

plotext is imported when the first chart is drawn (start-up never pays for it).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.color import Color
from textual.widget import Widget

from payscope.widgets.text import visible

RGB = tuple[int, int, int]


def rgb(colour: str) -> RGB:
    """A theme colour (`#RRGGBB`, `ansi_green`, a name) as an RGB triple plotext draws in."""
    try:
        parsed = Color.parse(colour)
    except Exception:
        parsed = Color.parse("grey")
    return parsed.rgb


@dataclass(frozen=True)
class Layer:
    """One series of a time chart: a group's value per bucket (None: nothing to draw there)."""

    label: str
    values: tuple[float | None, ...]
    colour: str


@dataclass(frozen=True)
class TimeFigure:
    """Buckets along x; layers stacked as bars (counts, amounts) or drawn as lines (rates)."""

    x_labels: tuple[str, ...]
    layers: tuple[Layer, ...]
    stacked: bool
    y_format: Callable[[float], str]
    y_max: float | None = None  # a fixed top (100 for a rate)
    integer: bool = False  # whole numbers only on the y axis (counts)


@dataclass(frozen=True)
class Bar:
    """One bar of a breakdown: its label, value, colour and the value as people read it."""

    label: str
    value: float
    colour: str
    text: str


@dataclass(frozen=True)
class BarFigure:
    """Horizontal bars, the first on top."""

    bars: tuple[Bar, ...]


Figure = TimeFigure | BarFigure


def nice_ticks(top: float, count: int, *, integer: bool = False) -> list[float]:
    """About `count` round y ticks from 0 covering `top` (1, 2, 2.5 or 5 times a power of 10;
    whole steps only when `integer`)."""
    if top <= 0:
        return [0.0, 1.0]
    count = max(2, count)
    raw = max(top / count, 1.0) if integer else top / count
    power = 10 ** math.floor(math.log10(raw))
    steps = (1, 2, 5, 10) if integer and power < 10 else (1, 2, 2.5, 5, 10)
    step = next(m * power for m in steps if m * power >= raw)
    ticks = [0.0]
    while ticks[-1] < top - 1e-9:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def x_ticks(labels: Sequence[str], width: int) -> tuple[list[int], list[str]]:
    """Evenly spaced bucket positions whose labels fit `width` cells without touching."""
    n = len(labels)
    if n == 0:
        return [], []
    longest = max(len(label) for label in labels) + 4  # labels apart, not touching
    room = max(1, width // longest)
    if n <= room:
        positions = list(range(n))
    else:
        step = math.ceil((n - 1) / max(1, room - 1))
        positions = list(range(0, n, step))
    return positions, [labels[i] for i in positions]


def _segments(values: Sequence[float | None]) -> list[tuple[list[int], list[float]]]:
    """Runs of defined values (a rate has none where nothing happened)."""
    runs: list[tuple[list[int], list[float]]] = []
    xs: list[int] = []
    ys: list[float] = []
    for i, value in enumerate(values):
        if value is None:
            if xs:
                runs.append((xs, ys))
            xs, ys = [], []
            continue
        xs.append(i)
        ys.append(value)
    if xs:
        runs.append((xs, ys))
    return runs


def _bar_width(cells: float) -> float:
    """A bar's share of its bucket: a gap between bars where a bucket is wide enough to show one
    (bars of one colour side by side would read as one)."""
    if cells >= 3:
        return 0.45
    return 0.6 if cells >= 2 else 1.0


def _plot(width: int, height: int, text: RGB) -> Any:
    from textual_plotext.plot import Plot

    plot = Plot()
    plot.plotsize(width, height)
    plot.canvas_color("default")
    plot.axes_color("default")
    plot.ticks_color(text)
    plot.frame(False)
    return plot


def draw_time(figure: TimeFigure, width: int, height: int, text: RGB) -> Text:
    """The time chart as text `width` x `height` cells."""
    plot = _plot(width, height, text)
    n = len(figure.x_labels)
    xs = list(range(n))
    if figure.stacked:
        columns = [[v or 0.0 for v in layer.values] for layer in figure.layers]
        top = max((sum(c) for c in zip(*columns, strict=True)), default=0.0) if columns else 0.0
    else:
        top = max((v for layer in figure.layers for v in layer.values if v is not None), default=0)
    if figure.y_max is not None:
        top = figure.y_max
    ticks = nice_ticks(top, max(2, (height - 2) // 3), integer=figure.integer)
    if figure.stacked and figure.layers:
        plot.stacked_bar(
            xs,
            columns,
            color=[rgb(layer.colour) for layer in figure.layers],
            width=_bar_width((width - 8) / max(1, n)),
        )
    else:
        for layer in figure.layers:
            for seg_x, seg_y in _segments(layer.values):
                marker = "braille" if len(seg_x) > 1 else "●"
                plot.plot(seg_x, seg_y, color=rgb(layer.colour), marker=marker)
    plot.ylim(0, ticks[-1])
    plot.yticks(ticks, [figure.y_format(t) for t in ticks])
    positions, labels = x_ticks(figure.x_labels, width - 8)
    plot.xticks(positions, [visible(label) for label in labels])
    return Text.from_ansi(plot.build(), no_wrap=True, end="")


def draw_bars(figure: BarFigure, width: int, height: int, text: RGB) -> Text:
    """Horizontal bars, labelled on the left with their name and value.

    plotext draws one text row per bar (a thicker bar is rounded onto rows unevenly, and two
    bars could share a row); the rows are then thickened and spaced here when there is room.
    """
    count = min(len(figure.bars), max(1, height))
    bars = figure.bars[:count]
    names = [visible(bar.label)[:16] for bar in bars]
    name_width = max((len(n) for n in names), default=0)
    text_width = max((len(bar.text) for bar in bars), default=0)
    labels = [
        f"{name:<{name_width}} {bar.text:>{text_width}} "
        for name, bar in zip(names, bars, strict=True)
    ]
    plot = _plot(width, count, text)
    top = max((bar.value for bar in bars), default=0.0)
    for i, bar in enumerate(bars):
        plot.bar(
            [count - i],
            [max(0.0, bar.value)],
            orientation="horizontal",
            color=rgb(bar.colour),
            width=0.2,
        )
    plot.yticks([count - i for i in range(count)], labels)
    plot.xticks([])
    plot.xlim(0, top or 1)
    plot.ylim(0.5, count + 0.5)
    drawn = Text.from_ansi(plot.build(), no_wrap=True, end="")
    spacing = max(1, min(4, height // count))
    if spacing == 1:
        return drawn
    # `spacing` rows a bar: the bar `thickness` rows thick (its label on the first), then a gap.
    thickness = spacing - 1
    label_width = len(labels[0]) if labels else 0
    out = Text(no_wrap=True, end="")
    for line in drawn.split("\n")[:count]:
        out.append_text(line)
        out.append("\n")
        for _ in range(thickness - 1):
            out.append(" " * label_width)
            out.append_text(line[label_width:])
            out.append("\n")
        out.append("\n")
    out.rstrip()
    return out


class Chart(Widget):
    """A figure drawn with plotext, or a sentence where there is nothing to draw."""

    DEFAULT_CSS = """
    Chart { width: 1fr; height: 1fr; }
    Chart.-message { content-align: center middle; color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.figure: Figure | None = None
        self.message = ""
        self._drawn: Text | None = None
        self._drawn_for: tuple[Any, ...] = ()
        # perf_counter() when the drawing on screen was made (the benchmark reads it).
        self.drawn_at = 0.0

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw())

    def show(self, figure: Figure) -> None:
        """Draw `figure` (on the next refresh)."""
        self.figure = figure
        self.message = ""
        self.remove_class("-message")
        self._redraw()

    def say(self, message: str) -> None:
        """A sentence instead of a chart (nothing in the range, an error)."""
        self.figure = None
        self.message = message
        self.add_class("-message")
        self._redraw()

    def _redraw(self) -> None:
        self._drawn = None
        self.refresh()

    def render(self) -> Text:
        if self.figure is None:
            return Text(visible(self.message, multiline=True), justify="center")
        width, height = self.size.width, self.size.height
        if width < 10 or height < 3:
            return Text("")
        text_colour = self.colors[3].rgb
        key = (self.figure, width, height, text_colour)
        if self._drawn is None or key != self._drawn_for:
            if isinstance(self.figure, TimeFigure):
                self._drawn = draw_time(self.figure, width, height, text_colour)
            else:
                self._drawn = draw_bars(self.figure, width, height, text_colour)
            self._drawn_for = key
            self.drawn_at = time.perf_counter()
        return self._drawn
