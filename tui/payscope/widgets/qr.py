"""A QR code drawn in the terminal: half blocks, dark modules on a light ground in every theme.

Each character cell holds two modules, one above the other (upper half block, lower half block,
full block or space), so in a cell twice as tall as it is wide each module comes out square.
The colours are fixed, black on white, whatever the theme: phone scanners look for dark modules
on a light ground, and many cannot read a dark theme's inverted code. The quiet zone (4 modules
all round) is drawn white too. Where there is not room for the whole code, the drawing says so
instead of showing a cut one that cannot scan.

`QRDrawing(data)` is a Rich renderable (a detail section shows it); `QRScreen` shows the code
alone, centred on a white screen, for a terminal where a section has no room for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby
from typing import TYPE_CHECKING, ClassVar

from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center
from textual.screen import Screen
from textual.widgets import Static

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult

# Four light modules round the code: what the QR standard asks for.
QUIET_ZONE = 4
DARK = "#000000"
LIGHT = "#ffffff"
# Glyphs for (top module dark, bottom module dark), drawn in DARK on LIGHT.
FULL, UPPER, LOWER, BLANK = "\u2588", "\u2580", "\u2584", " "
_GLYPHS = {(True, True): FULL, (True, False): UPPER, (False, True): LOWER, (False, False): BLANK}
STYLE = Style(color=DARK, bgcolor=LIGHT)
# A cell of two light modules: light on light. A run of them is a segment of its own, so every
# run of glyphs starts with a glyph (SVG renderers drop the no-break spaces that start a text
# run, which would shift a screenshot's code sideways; a terminal draws both alike).
LIGHT_STYLE = Style(color=LIGHT, bgcolor=LIGHT)


def qr_matrix(data: str) -> list[list[bool]]:
    """The modules of `data`'s QR code, quiet zone included (True: dark).

    Error correction L or M, whichever makes the smaller symbol (M when they tie): on a screen
    nothing smudges the code, and a smaller one fits more terminals."""
    import segno

    low = segno.make(data, error="l", boost_error=False, micro=False)
    medium = segno.make(data, error="m", boost_error=False, micro=False)
    code = low if low.symbol_size()[0] < medium.symbol_size()[0] else medium
    return [[bool(m) for m in row] for row in code.matrix_iter(scale=1, border=QUIET_ZONE)]


def cell_rows(matrix: list[list[bool]]) -> list[str]:
    """The matrix as lines of half-block glyphs, two module rows to a line (an odd last row
    is paired with a light one: more quiet zone)."""
    lines = []
    for y in range(0, len(matrix), 2):
        top = matrix[y]
        bottom = matrix[y + 1] if y + 1 < len(matrix) else [False] * len(top)
        lines.append("".join(_GLYPHS[(t, b)] for t, b in zip(top, bottom, strict=True)))
    return lines


def too_small(width: int, height: int, has_width: int, has_height: int | None = None) -> str:
    """What a space too small for the code says (None height: only the width was short)."""
    where = f"{has_width} columns" if has_height is None else f"{has_width}x{has_height}"
    return (
        f"Not enough room to draw the QR code: it needs {width}x{height} cells, this space is "
        f"{where}. Widen the terminal (or make the font smaller); o opens the link and y "
        "copies it meanwhile."
    )


class QRDrawing:
    """`data`'s QR code as a Rich renderable: the code where it fits, else why it does not."""

    def __init__(self, data: str) -> None:
        self.data = data
        self.lines = cell_rows(qr_matrix(data))
        self.width = len(self.lines[0])
        self.height = len(self.lines)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(self.width, options.max_width), self.width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width < self.width:
            yield Text(too_small(self.width, self.height, options.max_width), style="italic")
            return
        yield from self.segments()

    def segments(self) -> Iterable[Segment]:
        """The code, line by line, in fixed colours."""
        for line in self.lines:
            for blank, run in groupby(line, key=lambda glyph: glyph == BLANK):
                yield Segment("".join(run), LIGHT_STYLE if blank else STYLE)
            yield Segment.line()


class QRScreen(Screen[None]):
    """The code alone, centred on a white screen, with the link under it; Esc closes."""

    DEFAULT_CSS = f"""
    QRScreen {{ background: {LIGHT}; align: center middle; }}
    QRScreen > Center {{ height: auto; background: {LIGHT}; }}
    QRScreen #qr-code {{ width: auto; height: auto; background: {LIGHT}; }}
    QRScreen > #qr-caption {{
        width: 100%; height: auto; max-height: 2; background: {LIGHT}; color: {DARK};
        text-align: center; padding: 0 1;
    }}
    QRScreen.-too-small #qr-code {{ width: 100%; color: {DARK}; padding: 0 2; }}
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="qr.close", tooltip="Back to the link"),
        Binding("q", "close", "Close", id="qr.close-q", tooltip="Back to the link", show=False),
    ]

    def __init__(self, data: str, caption: Text | str = "") -> None:
        super().__init__()
        self.drawing = QRDrawing(data)
        self.caption = caption

    def compose(self) -> ComposeResult:
        with Center():
            yield Static(id="qr-code")
        yield Static(self.caption, id="qr-caption")

    def on_mount(self) -> None:
        # Inline: the app's own `Screen` rule would win over this class's CSS.
        self.styles.background = LIGHT
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """The code if the whole of it fits on screen (with the caption when there is room),
        else what it needs."""
        width, height = self.size
        drawing = self.drawing
        fits = drawing.width <= width and drawing.height <= height
        code = self.query_one("#qr-code", Static)
        code.update(
            drawing if fits else Text(too_small(drawing.width, drawing.height, width, height))
        )
        self.set_class(not fits, "-too-small")
        self.query_one("#qr-caption").display = not fits or drawing.height + 1 <= height

    def action_close(self) -> None:
        self.dismiss(None)
