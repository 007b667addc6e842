"""`payscope demo` (issue 34): every shipped story plays to its end headless, on a demo
sandbox of its own, each captioned step's screen holding the text the step promises; the
player's keys; a broken story refused before it starts, naming the step and the field."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest

from payscope.demo.player import DemoApp, make_demo_app, screen_text
from payscope.demo.story import STORIES, StoryError, load_story, parse_story
from tests.waits import until


async def _play_to_end(app: DemoApp) -> None:
    """Wait for the story to end (or fail); on a hang, say the step it was on."""
    story = app.story
    assert story is not None

    def on() -> str:
        played = len(app.demo.played)
        if played == len(story.steps):
            return f"all {played} steps played; the end was not reached"
        step = story.steps[played]
        return f"{played} steps played; step {step.number} waits for {step.wait_for!r}"

    await until(lambda: app.demo.finished or app.demo.failed, "the story to end", detail=on)


@pytest.mark.long
@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
@pytest.mark.parametrize("name", STORIES)
async def test_every_shipped_story_plays_to_its_end(
    name: str, size: tuple[int, int], tmp_path: Path
) -> None:
    story = load_story(name)
    shots = tmp_path / "shots"
    shots.mkdir()
    app = make_demo_app(
        story, pace=20, patience=math.inf, screenshots=shots, directory=tmp_path / "demo"
    )
    async with app.run_test(size=size):
        await _play_to_end(app)
        assert app.demo.failed == ""
        assert app.demo.finished
        assert [p.step.number for p in app.demo.played] == [s.number for s in story.steps]
        for played in app.demo.played:
            # The screen of each step holds the text it promised (what it waited for).
            assert played.step.wait_for in played.text, (played.step.number, played.text)
            if played.step.caption.startswith("Events"):
                # Events shows what its caption says: webhooks, not an empty feed.
                assert "No webhooks yet" not in played.text, played.text
            if played.step.caption:
                # Its caption on screen, and its screenshot saved as a picture.
                assert played.step.caption[:20] in played.text, played.text
                assert played.screenshot is not None
                assert played.screenshot.read_text().startswith("<svg")
        # Handed over at the end: every key is payscope's again (`:` opens its prompt).
        assert app.demo.handed_over
        assert "payscope is yours" in screen_text(app)
    # Its own data, never the user's: the demo sandbox lived under the directory it was given.
    assert (tmp_path / "demo" / "data" / "sandbox").is_dir()


async def test_space_pauses_escape_hands_over(tmp_path: Path) -> None:
    app = make_demo_app(load_story("tour"), pace=1, patience=math.inf, directory=tmp_path / "demo")
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: app.demo.played, "the first step played")
        await pilot.press("space")
        assert "paused" in screen_text(app)
        count = len(app.demo.played)
        await asyncio.sleep(4)  # the first step's pause is 3 s: paused, nothing moves on
        assert len(app.demo.played) == count
        await pilot.press("space")
        await pilot.press("right")  # on to the next step at once
        await until(lambda: len(app.demo.played) != count, "the next step played")
        await pilot.press("escape")
        assert app.demo.handed_over and not app.demo.finished
        played = len(app.demo.played)
        await asyncio.sleep(1)
        assert len(app.demo.played) == played  # the story stopped
        # The TUI is the person's: Esc now closes what the story opened, `:` opens the prompt.
        from payscope.shell.command_prompt import CommandPrompt

        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("colon")
        await until(
            lambda: isinstance(app.focused, CommandPrompt), detail=lambda: f"focused: {app.focused}"
        )


@pytest.mark.parametrize(
    ("data", "named"),
    [
        (
            {"step": [{"caption": "ok"}, {"keys": "enter", "wiat_for": "x"}]},
            "step 2, field 'wiat_for'",
        ),
        ({"step": [{"caption": "a"}, {"caption": "b"}, {"keys": [1]}]}, "step 3, field 'keys'"),
        ({"step": [{"caption": "a", "pause": -1}]}, "step 1, field 'pause'"),
        ({"step": [{"wait_for": "x"}]}, "step 1: does nothing"),
        ({"title": "t"}, "no steps"),
        ({"step": [{"caption": "a"}], "colour": 1}, "unknown field 'colour'"),
    ],
)
def test_a_broken_story_is_refused_naming_step_and_field(
    data: dict[str, object], named: str
) -> None:
    with pytest.raises(StoryError) as refused:
        parse_story(data, "broken", "broken.toml")
    assert named in str(refused.value)
    assert "broken.toml" in str(refused.value)


def test_a_broken_story_file_is_refused_by_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from payscope.cli import main

    story = tmp_path / "mine.toml"
    story.write_text('[[step]]\ncaption = "one"\n[[step]]\nkeys = ["enter"]\ntimeout = "soon"\n')
    assert main(["demo", str(story)]) == 2
    err = capsys.readouterr().err
    assert "step 2, field 'timeout'" in err and "mine.toml" in err
    assert main(["demo", "no-such-story"]) == 2
    assert "developer, support, tour" in capsys.readouterr().err


async def test_a_caption_is_shown_literally_whatever_it_holds(tmp_path: Path) -> None:
    # A story is a file anyone writes: its caption is text, never markup for Rich.
    caption = "[bold red]not markup[/] [link=x]and[/link] [/]"
    story = parse_story({"step": [{"caption": caption, "pause": 0}]}, "literal", "test")
    app = make_demo_app(story, pace=20, patience=math.inf, directory=tmp_path / "demo")
    async with app.run_test(size=(120, 40)):
        await _play_to_end(app)
        assert not app.demo.failed
        # The screen's text while the step showed: its caption with every bracket in it.
        assert caption in app.demo.played[0].text


async def test_text_with_no_field_to_take_it_stops_the_story_and_is_never_typed_as_keys(
    tmp_path: Path,
) -> None:
    # On the payments list nothing takes text: typed as keys, `n` would open a new payment.
    story = parse_story({"step": [{"type": "no new payment", "pause": 0}]}, "typing", "test")
    app = make_demo_app(story, pace=20, directory=tmp_path / "demo")
    async with app.run_test(size=(120, 40)):
        await _play_to_end(app)
        assert app.demo.failed == (
            "Step 1: no text field had the focus to type 'no new payment' into; "
            "the demo stops here and payscope is yours."
        )
        assert app.demo.handed_over and not app.demo.finished
        assert type(app.screen).__name__ == "MainScreen"  # no form opened
        await until(lambda: "no text field had the focus" in screen_text(app), "the reason said")
