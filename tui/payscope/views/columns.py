"""Typed table columns: what each shows, how wide, which give way in a narrow table.

A view declares its columns once; `fit` picks the ones that fit a table of a given width and
sizes the flexible ones (what is spare or short goes to or comes from them, within bounds).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar

from rich.console import RenderableType

from payscope.core.display import USER, DisplayPolicy

T = TypeVar("T")

# Each column takes one cell of padding on both sides.
PADDING = 2


@dataclass(frozen=True)
class CellContext:
    """What a cell renderer may need besides its record: the theme, the display policy (what
    is shown of ports and wall-clock times), and the service's time (`Runtime.now`: a deadline's "2d
    left" is judged by the sandbox's clock, never the wall clock)."""

    variables: Mapping[str, str]
    display: DisplayPolicy = USER
    now: float | None = None

    def service_now(self) -> float:
        """The service's time the table was given, else the wall clock's (a table without one)."""
        return self.now if self.now is not None else time.time()


# A NamedTuple: made at import, before the first frame (why: docs/architecture.md).
class Column(NamedTuple, Generic[T]):
    """One column: its key, heading, width and renderer.

    `shown_from` is the narrowest table width that still shows it (0: always). A column with
    `flex=(minimum, maximum)` absorbs the spare or missing width, in declaration order.
    """

    key: str
    label: str
    width: int
    render: Callable[[T, CellContext], RenderableType]
    shown_from: int = 0
    flex: tuple[int, int] | None = None


def fit(columns: Sequence[Column[T]], width: int) -> tuple[tuple[str, int], ...]:
    """((key, width), ...) of the columns a table `width` cells wide shows."""
    shown = [c for c in columns if width >= c.shown_from]
    spare = width - sum(c.width + PADDING for c in shown)
    widths: dict[str, int] = {}
    for column in shown:
        if column.flex is None:
            continue
        low, high = column.flex
        widths[column.key] = max(low, min(high, column.width + spare))
        spare -= widths[column.key] - column.width
    return tuple((c.key, widths.get(c.key, c.width)) for c in shown)
