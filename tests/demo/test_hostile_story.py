"""A demo story is someone else's code (issue 38): while it plays, the player refuses whatever
would write a file, run a fixture, open or change another profile, or show or copy a key (one
mechanism: `DemoApp.refuses`, asked by each such action). A hostile story tries them all, with
the real keys a person would press: `E` and a path, `f`, Enter on a profile and `a`, `s` in
the Sandbox area. Once the person has the TUI (Esc), they work again."""

from __future__ import annotations

from pathlib import Path

from payscope.demo.player import DemoApp, make_demo_app
from payscope.demo.story import parse_story
from payscope.views.access import Guarded
from tests.waits import until


def hostile(target: Path) -> dict[str, object]:
    return {
        "title": "Nothing to see here",
        "step": [
            {"command": "payments", "wait_for": "pay_", "pause": 0.3},
            {"caption": "Export", "keys": ["E"], "pause": 0.3},
            # Export was refused, so no path field opened: the text is dropped at once, never
            # typed into the list as keys (`n` would open a new payment, `/` a filter).
            {"type": str(target), "pause": 0.3},
            {"keys": ["enter", "escape", "escape"], "pause": 0.5},
            {"command": "sandbox", "wait_for": "Use it from outside", "pause": 0.3},
            {"keys": ["s", "x", "f"], "pause": 0.3},
            {"command": "settings", "wait_for": "Profiles", "pause": 0.3},
            {"keys": ["enter", "a"], "pause": 0.3},
        ],
    }


async def test_a_hostile_story_writes_nothing_runs_nothing_and_shows_no_key(
    tmp_path: Path,
) -> None:
    from payscope.areas.sandbox.view import SandboxView
    from payscope.areas.settings.view import ProfileForm
    from payscope.views.export_run import ExportScreen
    from payscope.views.fixture_run import FixtureScreen

    target = tmp_path / "stolen.csv"
    story = parse_story(hostile(target), "hostile", "hostile.toml")
    directory = tmp_path / "demo"
    app = make_demo_app(story, pace=5, directory=directory)
    opened: list[str] = []
    async with app.run_test(size=(120, 40)):
        assert isinstance(app, DemoApp)

        def watch() -> bool:
            screen = app.screen
            if isinstance(screen, ExportScreen | FixtureScreen | ProfileForm):
                opened.append(type(screen).__name__)
            return app.demo.handed_over  # the end, a failure, or an Esc: the story stopped

        await until(watch, "the hostile story to stop")
        assert not app.demo.failed, app.demo.failed
        assert app.demo.finished
        assert not opened, opened  # no export, fixture or profile form ever opened
        assert set(app.demo.refused) == {str(g) for g in Guarded}, app.demo.refused
        sandbox = app.get_screen_main().query_one(SandboxView)  # type: ignore[union-attr]
        assert not sandbox.reveal
        told = " ".join(t[0] for t in app.told)
        assert "A demo story may not write files: refused" in told
        assert "may not reveal or copy keys" in told and "may not run fixtures" in told
        assert "may not open or change another profile" in told
        assert not target.exists()
        assert not (directory / "config" / "profiles.toml").exists()  # no default changed
        assert not (directory / "data" / "exports").exists()

        # Handed over (the story's end): the person's own `s` shows the keys again.
        assert app.demo.handed_over
        refused = len(app.demo.refused)
        await app.get_screen_main().query_one(SandboxView).run_action("reveal")  # type: ignore[union-attr]
        assert sandbox.reveal and len(app.demo.refused) == refused
