"""The key footer: rebuilt when the keys on offer change, and only then."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Static
from textual.widgets._footer import FooterKey

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


async def test_the_footer_is_rebuilt_only_when_its_keys_change() -> None:
    app = Keys()
    async with app.run_test() as pilot:
        await pilot.pause()
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
        assert now[0] is not shown[0]
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
        await pilot.pause()
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
    assert "KeyFooter" in (root / "screens" / "main.py").read_text(encoding="utf-8")
