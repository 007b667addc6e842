"""The snapshot tests every area has, made once: its screens in every look, and its forms at
80x24 in one theme each. An area's test module names its screens (what drives the app to each,
`SCREENS`) and assigns the tests:

    test_refund_screens = screens_in_every_look(SCREENS, ["list", "detail"])
    test_refund_forms = forms_at_80x24(SCREENS, [("new_refund_errors", "payscope-dark"), ...])

The test's name is the name it is assigned to (pytest collects it by that name, and its snapshots
are kept under it), so a test keeps its snapshots when it moves here. The ids a screen creates
repeat from run to run (`seeded_ids`) unless `seeded=False`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.tui.pilot import LOOKS_AND_SWITCHED
from tests.tui.snapshot_app import build

RunBefore = Callable[[Any], Any]


def screens_in_every_look(
    screens: Mapping[str, RunBefore],
    shown: Iterable[str] | None = None,
    *,
    seeded: bool = True,
) -> Callable[..., None]:
    """A test of each of `shown` (names in `screens`, all of them by default) in every look
    (`LOOKS_AND_SWITCHED`)."""

    @pytest.mark.parametrize("look", LOOKS_AND_SWITCHED)
    @pytest.mark.parametrize("screen", list(screens if shown is None else shown))
    def test(
        screen: str, look: tuple[tuple[int, int], str], dirs: tuple[Path, Path], snap_looks: Any
    ) -> None:
        assert snap_looks(lambda t: build(*dirs, theme=t), screens[screen])

    return pytest.mark.usefixtures("seeded_ids")(test) if seeded else test


def forms_at_80x24(
    screens: Mapping[str, RunBefore], forms: Iterable[tuple[str, str]], *, seeded: bool = True
) -> Callable[..., None]:
    """A test of each (screen name, theme) of `forms` at 80x24, the size forms are tightest."""

    @pytest.mark.parametrize(("form", "theme"), list(forms))
    def test(form: str, theme: str, dirs: tuple[Path, Path], snap_compare: Any) -> None:
        app = build(*dirs, theme=theme)
        assert snap_compare(app, terminal_size=(80, 24), run_before=screens[form])

    return pytest.mark.usefixtures("seeded_ids")(test) if seeded else test
