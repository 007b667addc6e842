"""The key footer: rebuilt when the keys on offer change, and only then; what it shows is what
Textual's `Footer` shows. Keys are found by their CSS type name (`FooterKey`), Textual's public
way to query a widget whose class it does not export."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Footer, Static

from payscope.widgets.footer import KeyFooter
from tests.tui.pilot import until


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


KEY = "FooterKey"


def _keys(app: Keys) -> list[Any]:
    return list(app.query_one(KeyFooter).query(KEY))


def _described(keys: Iterable[Widget]) -> list[tuple[Any, ...]]:
    """Each key as it is shown: its key, description, whether disabled, its tooltip."""
    return [
        (getattr(k, "key"), getattr(k, "description"), k.has_class("-disabled"), k.tooltip)  # noqa: B009
        for k in keys
    ]


def _keys_and_disabled(app: App[None]) -> list[tuple[str, bool]]:
    """Each key the footer shows, and whether it is shown disabled."""
    return [(str(getattr(k, "key")), k.has_class("-disabled")) for k in app.query(KEY)]  # noqa: B009


async def _until_keys(pilot: Pilot[None], count: int) -> None:
    """Wait until the footer shows `count` keys: it mounts them once the screen's bindings
    are ready, which can take more than one refresh on a loaded machine."""
    await until(lambda: len(pilot.app.screen.query(KEY)) == count)
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
        assert now != shown and not any(key.is_attached for key in shown)  # rebuilt
        assert now[0].has_class("-disabled") and not now[1].has_class("-disabled")

        app.capturable = True
        app.refresh_bindings()
        await pilot.pause()
        assert not any(key.has_class("-disabled") for key in _keys(app))


def test_every_screen_yields_the_key_footer() -> None:
    """No screen builds Textual's own Footer (rebuilt on every bindings refresh)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "tui" / "payscope"
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
    """Each change is made on one app and compared, as a picture and key by key,
    with Textual's own footer built for that state in another."""
    app = Offers(KeyFooter, dict(OFFERS[0]))
    async with app.run_test(size=(90, 6)) as pilot:
        await _until_keys(pilot, 5)
        for offers in OFFERS[1:]:
            app.offers = offers
            app.refresh_bindings()
            # The keys the offers leave, and which are disabled: the footer shows them once
            # the screen has said its bindings changed (a refresh later, or more).
            wanted = [
                (b.key, offers.get(b.action, True) is None)
                for b in Offers.BINDINGS
                if isinstance(b, Binding) and offers.get(b.action, True) is not False
            ]
            await until(lambda w=wanted: _keys_and_disabled(app) == w, f"the keys of {offers}")
            await pilot.pause()
            mine = app.export_screenshot()
            keys = _described(app.query(KEY))
            reference = Offers(Footer, offers)
            async with reference.run_test(size=(90, 6)) as theirs:
                await _until_keys(theirs, len(keys))
                assert keys == _described(reference.query(KEY))
                assert mine == reference.export_screenshot(), offers
