"""The key footer: changed when the keys on offer change, and only then, in place; what it
shows is what Textual's `Footer` shows."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import Footer, Static
from textual.widgets._footer import FooterKey

from tests.tui.pilot import until
from tui.widgets.footer import KeyFooter


class Keys(App[None]):
    BINDINGS = [Binding("c", "capture", "Capture"), Binding("r", "reload", "Reload")]

    def __init__(self) -> None:
        super().__init__()
        self.capturable = True

    def compose(self) -> ComposeResult:
        yield Static("payments")
        yield KeyFooter(show_command_palette=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "capture" and not self.capturable else True


def _keys(app: Keys) -> list[FooterKey]:
    return list(app.query_one(KeyFooter).query(FooterKey))


async def _until_keys(pilot: Pilot[None], count: int) -> None:
    """Wait until the footer shows `count` keys: it mounts them once the screen's bindings
    are ready, which can take more than one refresh on a loaded machine."""
    await until(lambda: len(pilot.app.screen.query(FooterKey)) == count)
    await pilot.pause()


async def test_the_footer_is_rebuilt_only_when_its_keys_change() -> None:
    app = Keys()
    async with app.run_test() as pilot:
        await _until_keys(pilot, 2)
        shown = _keys(app)
        assert [key.key for key in shown] == ["c", "r"]
        assert not any(key.has_class("-disabled") for key in shown)

        for _ in range(5):  # refreshes that change nothing keep the same widgets
            app.refresh_bindings()
            await pilot.pause()
        assert _keys(app) == shown and all(key.is_attached for key in shown)

        app.capturable = False  # Capture is offered, but not now: shown disabled
        app.refresh_bindings()
        await pilot.pause()
        now = _keys(app)
        assert [key.key for key in now] == ["c", "r"]
        assert now == shown  # changed in place, not mounted anew
        assert now[0].has_class("-disabled") and not now[1].has_class("-disabled")

        app.capturable = True
        app.refresh_bindings()
        await pilot.pause()
        assert not any(key.has_class("-disabled") for key in _keys(app))


async def test_the_keys_are_styled_once_and_follow_the_footers_compact(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    changes: list[bool] = []
    watch = FooterKey._watch_compact

    def counted(key: FooterKey, compact: bool) -> None:
        if key.has_class("-compact") != compact:  # a class change: the key is styled again
            changes.append(compact)
        watch(key, compact)

    monkeypatch.setattr(FooterKey, "_watch_compact", counted)
    app = Keys()
    async with app.run_test() as pilot:
        await _until_keys(pilot, 2)
        footer = app.query_one(KeyFooter)
        # Born with the footer's value: no compact class put on, then taken off again.
        assert changes == []
        assert not any(key.has_class("-compact") for key in _keys(app))
        footer.compact = True  # the binding to the footer still holds
        await pilot.pause()
        assert all(key.has_class("-compact") for key in _keys(app)) and changes == [True, True]


def test_every_screen_yields_the_key_footer() -> None:
    """No screen builds Textual's own Footer (rebuilt on every bindings refresh)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "tui"
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "footer.py" and path.parent.name == "widgets":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and "textual" in node.module:
                found += [f"{path.name}: {a.name}" for a in node.names if a.name == "Footer"]
    assert found == []
    assert "KeyFooter" in (root / "shell" / "main.py").read_text(encoding="utf-8")


class Offers(App[None]):
    """Keys shown (True), shown disabled (None) or hidden (False) as `offers` says; the footer is
    ours or Textual's."""

    BINDINGS = [
        Binding("c", "capture", "Capture", tooltip="Capture the payment"),
        Binding("x", "cancel", "Cancel"),
        Binding("a", "approve", "Approve a long description"),
        Binding("e", "refund", "Refund"),
        Binding("f2", "reload", "Reload"),
    ]

    def __init__(self, footer: type[Footer], offers: dict[str, bool | None]) -> None:
        super().__init__()
        self.footer = footer
        self.offers = offers

    def compose(self) -> ComposeResult:
        yield Static("payments")
        yield self.footer(show_command_palette=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.offers.get(action, True)


OFFERS: list[dict[str, bool | None]] = [
    {},
    {"capture": False, "cancel": None},  # fewer keys, one disabled
    {"capture": False, "cancel": False, "approve": False, "refund": False},  # one key left
    {"reload": None},  # more keys than before
    {"capture": False},
    {"reload": False},  # as many keys, each another
    {"capture": None, "approve": False},
]


async def test_keys_changed_in_place_show_what_textuals_footer_shows() -> None:
    """Each change is made in place on one app and compared, as a picture and key by key,
    with Textual's own footer built for that state in another."""
    app = Offers(KeyFooter, dict(OFFERS[0]))
    async with app.run_test(size=(90, 6)) as pilot:
        await _until_keys(pilot, 5)
        first = list(app.query(FooterKey))
        for offers in OFFERS[1:]:
            app.offers = offers
            app.refresh_bindings()
            await pilot.pause()
            mine = app.export_screenshot()
            keys = [
                (k.key, k.description, k.has_class("-disabled"), k.tooltip)
                for k in app.query(FooterKey)
            ]
            reference = Offers(Footer, offers)
            async with reference.run_test(size=(90, 6)) as theirs:
                await _until_keys(theirs, len(keys))
                assert keys == [
                    (k.key, k.description, k.has_class("-disabled"), k.tooltip)
                    for k in reference.query(FooterKey)
                ]
                assert mine == reference.export_screenshot(), offers
        # The first keys were kept through every change that left room for them.
        assert first[0] is app.query(FooterKey).first()


def _widths_agree(app: App[object]) -> list[FooterKey]:
    """Each mounted key's width as `key_width` measures it and as Textual does (its label
    built and styled), both from scratch; returns the keys compared."""
    from textual.widgets._footer import FooterKey

    from tui.widgets.footer import TEXTUAL_KEY_WIDTH, key_width

    keys = list(app.screen.query(FooterKey))
    for key in keys:
        container, viewport = key.parent.size, app.size  # type: ignore[union-attr]
        key.clear_cached_dimensions()
        ours = key_width(key, container, viewport)
        key.clear_cached_dimensions()
        assert ours == TEXTUAL_KEY_WIDTH(key, container, viewport), (key.key, key.description)
    return keys


class Wide(App[None]):
    BINDINGS = [
        Binding("enter", "open", "Öffnen ⏎"),
        Binding("ctrl+q", "quit", "終了"),
        Binding("question_mark", "help", ""),
        Binding("f5", "reload", "Reload\tall"),
    ]

    def compose(self) -> ComposeResult:
        yield Static("wide")
        yield KeyFooter(show_command_palette=False)


async def test_a_keys_width_is_what_textual_measures_in_every_theme_and_compactness() -> None:
    app = Wide()
    async with app.run_test(size=(100, 6)) as pilot:
        await _until_keys(pilot, 3)
        for theme in ("textual-dark", "textual-light", "payscope-dark", "payscope-light"):
            if theme in app.available_themes:
                app.theme = theme
            for compact in (False, True):
                app.query_one(KeyFooter).compact = compact
                await pilot.pause()
                assert len(_widths_agree(app)) == 3  # a key without a description is not shown


class LinePadded(Wide):
    CSS = "FooterKey { line-pad: 2; }"


async def test_a_keys_line_pad_counts_as_textual_counts_it() -> None:
    app = LinePadded()
    async with app.run_test(size=(100, 6)) as pilot:
        await _until_keys(pilot, 3)
        assert len(_widths_agree(app)) == 3


async def test_the_areas_keys_are_as_wide_as_textual_measures_them(dirs) -> None:  # type: ignore[no-untyped-def]
    from tests.tui.pilot import run_command
    from tests.tui.snapshot_app import build, ready

    app = build(*dirs, theme="payscope-light")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        seen = len(_widths_agree(app))
        for area in ("customers", "refunds", "events", "requests", "settings"):
            await run_command(pilot, area)
            await app.workers.wait_for_complete()
            await pilot.pause()
            seen += len(_widths_agree(app))
        assert seen > 30
