"""Fixtures for the TUI tests: one seeded sandbox built per session, copied into each test.

Everything that moves is frozen: the sandbox clock (`time_source`), the ids of seeded records
(a seeded generator stands in for `secrets.choice` while the template is built), the cursor
blink, and the display of ports and wall-clock times (`stable_display`).
"""

from __future__ import annotations

import asyncio
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FROZEN_TIME = 1_714_564_800.0  # 2024-05-01 12:00:00 UTC
SEEDED_PAYMENTS = 40


def frozen_clock() -> float:
    """The sandbox's time source in tests."""
    return FROZEN_TIME


class SeededSecrets:
    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choice(self, seq):  # type: ignore[no-untyped-def]
        return self._rng.choice(seq)

    def token_bytes(self, n: int = 32) -> bytes:
        return self._rng.randbytes(n)

    def token_hex(self, n: int = 32) -> str:
        return self._rng.randbytes(n).hex()

    def randbelow(self, n: int) -> int:
        return self._rng.randrange(n)


async def _build_template(directory: Path) -> None:
    from tui.runtime import listener_dir_for
    from tui.sandbox.config import SandboxConfig
    from tui.sandbox.server import Sandbox
    from tui.webhooks.journal import Journal

    sandbox = Sandbox(
        SandboxConfig(
            data_dir=directory / "sandbox",
            time_source=frozen_clock,
            # Fixed, as they show in raw JSON: generated ones come from the unseeded `random`.
            merchant_id="merchant_snapshot",
            profile_id="pro_snapshot",
        )
    )
    await sandbox.start("127.0.0.1", 0)
    try:
        # Evenly spread (not the first run's lifelike layout): every snapshot is built on it.
        result = sandbox.seed(SEEDED_PAYMENTS, lifelike=False)
        if asyncio.iscoroutine(result):
            await result
    finally:
        result = sandbox.stop()
        if asyncio.iscoroutine(result):
            await result
    # The local listener's journal too, empty: made afresh, its schema cost each app 10-20 ms
    # (about half in fsyncs); copied, opening it checks the schema and writes nothing.
    journal = Journal(listener_dir_for(directory, None))
    journal.open()
    journal.close()


def build_template(directory: Path) -> Path:
    """A data dir with the seeded sandbox at `directory` (also the docs' pictures' start:
    docs/screenshots.py)."""
    import tui.sandbox.ids as ids

    saved = ids.secrets
    ids.secrets = SeededSecrets(2024)  # type: ignore[assignment]
    try:
        asyncio.run(_build_template(directory))
    finally:
        ids.secrets = saved
    return directory


@pytest.fixture(scope="session")
def sandbox_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir with a seeded sandbox, built once; tests get copies."""
    return build_template(tmp_path_factory.mktemp("template"))


@pytest.fixture
def dirs(
    tmp_path: Path, sandbox_template: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, Path]]:
    """(config dir, data dir) for one test: an empty config and a copy of the seeded data."""
    data = tmp_path / "data"
    shutil.copytree(sandbox_template, data)
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("PAYSCOPE_CONFIG_DIR", str(config))
    monkeypatch.setenv("PAYSCOPE_DATA_DIR", str(data))
    monkeypatch.delenv("PAYSCOPE_API_KEY", raising=False)
    yield config, data


@pytest.fixture(autouse=True)
def _no_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.reactive import reactive
    from textual.widgets import Input

    still = reactive(False, init=False)
    still.__set_name__(Input, "cursor_blink")
    monkeypatch.setattr(Input, "cursor_blink", still)


@pytest.fixture(autouse=True)
def _last_frame_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Headless, a pilot test's app draws its last frame only, in full.

    Textual's headless mode composes every frame and then throws it away (nothing is written
    to a terminal): 40% of a pilot test's CPU. Here the frames in between are skipped (layout,
    focus, scrolling and clicks are computed as always), and when the test's body is done the
    screen on top is drawn in full, over the screens below it, so a widget that cannot render
    still fails its test. Screenshots (`snap_compare`, `compare_in_looks`) draw their own
    frame in full, so snapshots are what they were; after the last look's screenshot, which
    drew the last frame in full, it is not drawn again.
    """
    from contextlib import asynccontextmanager

    from textual.app import App
    from textual.screen import Screen

    refresh = Screen._compositor_refresh
    run_test = App.run_test

    def skip_headless_frames(screen: Any) -> None:
        app = screen.app
        if app.is_headless and not app.is_inline and screen is app.screen:
            compositor = screen._compositor
            # Drawing asks each widget its size, which brings the compositor's map of every
            # widget up to date; a later layout compares against that map to tell widgets
            # they were resized (a stale one would tell no one, e.g. when the rail hides).
            compositor.full_map  # noqa: B018
            screen._dirty_widgets.clear()
            compositor._dirty_regions.clear()
            app._update_mouse_over(screen)
            return
        refresh(screen)

    @asynccontextmanager
    async def run_and_draw_the_last_frame(app: Any, *args: Any, **kwargs: Any) -> Any:
        async with run_test(app, *args, **kwargs) as pilot:
            yield pilot
            drawn = getattr(app, "_payscope_last_frame_drawn", False)
            if app._running and not app._exit and app._screen_stack and not drawn:
                app.screen._compositor.render_update(
                    full=True, screen_stack=app._background_screens
                )

    monkeypatch.setattr(Screen, "_compositor_refresh", skip_headless_frames)
    monkeypatch.setattr(App, "run_test", run_and_draw_the_last_frame)


# Every app of a worker parses the same widgets' CSS with the same theme variables: parsed once.
_PARSED_CSS: dict[Any, Any] = {}


@pytest.fixture(autouse=True)
def _css_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual caches parsed CSS per app; the tests start hundreds of apps per worker, so the
    cache is kept for the worker, keyed by the source and the theme's variables as well (the
    parsed rules hold the variables' values). Rules are only read once parsed."""
    from textual.css.stylesheet import Stylesheet

    parse_rules = Stylesheet._parse_rules

    def parsed_once(
        sheet: Any,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> Any:
        key = (css, read_from, is_default_rules, tie_breaker, scope, *sheet._variables.items())
        try:
            return _PARSED_CSS[key]
        except KeyError:
            rules = parse_rules(sheet, css, read_from, is_default_rules, tie_breaker, scope)
            _PARSED_CSS[key] = rules
            return rules

    monkeypatch.setattr(Stylesheet, "_parse_rules", parsed_once)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The looks of one screen (`@pytest.mark.looks`, see `compare_in_looks`) go to one xdist
    worker (`--dist loadgroup`), which runs the app once for all of them."""
    for item in items:
        if item.get_closest_marker("looks") is None:
            continue
        from tests.tui.pilot import looks_key

        item.add_marker(pytest.mark.xdist_group(looks_key(item)))


@pytest.fixture
def snap_looks(
    snap_compare: Any, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Any:
    """`snap_looks(build_app, run_before, separate=False)`: `compare_in_looks` for this test."""
    from tests.tui.pilot import compare_in_looks

    def compare(build_app: Any, run_before: Any, *, separate: bool = False) -> bool:
        return compare_in_looks(
            snap_compare, request, monkeypatch, build_app, run_before, separate=separate
        )

    return compare
