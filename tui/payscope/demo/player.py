"""Plays a story (`payscope.demo.story`) in the real TUI, with a caption line at the bottom.

`DemoApp` is payscope itself plus a player: each step's keys are posted to the app as key
events of the player's own (the person's keys are told apart from them), then the player waits
for the step's text on screen, saves a screenshot of a captioned step when asked, and pauses.
While it plays, the person's keys are the player's: Space pauses and resumes, → goes on to the
next step at once, ← shows the previous step's caption again (and pauses), Esc hands the TUI
over (the story stops, everything stays usable) and q quits. After Esc, or at the end, every
key is payscope's again.

The demo runs on a sandbox of its own (`demo_dirs`): a fresh data and config directory, an
in-process sandbox whose clock starts at the same instant every time, seeded with the same
number of payments, so a story sees the same data on every run, and never the user's.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import html
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from textual import events
from textual.keys import key_to_character
from textual.widgets import Input, Static

from payscope.app import PayscopeApp, make_app
from payscope.core.private_files import private_dir
from payscope.core.waiting import within
from payscope.demo.story import Step, Story
from payscope.shell.command_prompt import CommandPrompt
from payscope.views.access import Guarded
from payscope.widgets.keys import key_name
from payscope.widgets.text import safe

DEMO_SEED = 60  # payments seeded in the demo sandbox
DEMO_EPOCH = 1_767_225_600.0  # 2026-01-01 00:00 UTC: the demo sandbox's clock starts here
KEY_GAP = 0.12  # seconds between two keys of a step, at pace 1.0
SETTLE = 0.25  # seconds the screen must stay the same to count as loaded
MIN_PAUSE = 0.3  # seconds a step stays at least, whatever the pace (the screen settles)
_CONTROL_KEYS = ("space", "right", "left", "escape", "q")


_CELL_WIDTH = 12.2  # px per cell in Textual's SVG screenshots
_SVG_TEXT = re.compile(r'<text class="[^"]*-r\d+" x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)</text>')


def screen_text(app: Any) -> str:
    """The text on screen, line by line, from Textual's own screenshot of it (each run of text
    put back at its cell, so words split across styles read whole)."""
    lines: dict[float, list[str]] = {}
    for x, y, text in _SVG_TEXT.findall(app.export_screenshot()):
        line = lines.setdefault(float(y), [])
        column = round(float(x) / _CELL_WIDTH)
        if len(line) < column:
            line.extend(" " * (column - len(line)))
        line[column:] = list(html.unescape(text).replace("\xa0", " ").rstrip("\n"))
    return "\n".join("".join(lines[y]).rstrip() for y in sorted(lines))


class Caption(Static):
    """The caption line: the step, and what is happening and why."""

    said = ""  # the text it shows

    DEFAULT_CSS = """
    Caption {
        dock: bottom;
        height: auto;
        max-height: 3;
        padding: 0 1;
        background: $accent;
        color: $text;
        text-style: bold;
    }
    """


@dataclass
class Played:
    """What a step showed: its caption and the screen's text once it was on screen."""

    step: Step
    text: str
    screenshot: Path | None = None


@dataclass
class DemoState:
    """The player's state (what the tests and the CLI read back)."""

    played: list[Played] = field(default_factory=list)
    finished: bool = False  # every step played
    handed_over: bool = False  # Esc: the person has the TUI
    failed: str = ""  # why the story stopped early (a text that never came)
    refused: list[str] = field(default_factory=list)  # what the story tried and was refused


class DemoApp(PayscopeApp):
    """payscope playing a story; see the module docstring."""

    story: ClassVar[Story | None] = None
    pace: ClassVar[float] = 1.0
    # How many times the story's own time limits the player waits for what a step awaits (the
    # text, the focus, the caption) before it gives up. The tests wait without a limit
    # (math.inf): a step ends when its text is there, however slow the machine.
    patience: ClassVar[float] = 1.0
    screenshots: ClassVar[Path | None] = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.demo = DemoState()
        # The key events the player posted (the last ones: a key bubbles back up to the app).
        self._demo_ours: collections.deque[events.Key] = collections.deque(maxlen=256)
        self._demo_go = asyncio.Event()
        self._demo_go.set()
        self._demo_skip = asyncio.Event()
        self._demo_stopped = False
        self._demo_caption = ""
        self._demo_text = ""  # what the caption line says now
        self._demo_step = 0  # the number of the step playing
        self._demo_refused_in = -1  # the step during which something was last refused

    # -- what a story may not do ------------------------------------------------------------

    def refuses(self, what: Guarded) -> bool:
        """While the story plays, everything `Guarded` is refused (a story is someone else's
        code: no file written, no fixture run, no other profile, no key shown or copied), and
        said on the caption line; once the person has the TUI (Esc, the end), nothing is."""
        if self._demo_stopped:
            return False
        self.demo.refused.append(str(what))
        self._demo_refused_in = self._demo_step
        said = f"A demo story may not {what}: refused. (Esc hands payscope over to you.)"
        self.notify(said, title="Demo", severity="warning", markup=False)
        return True

    # -- the person's keys ------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        if (
            isinstance(event, events.Key)
            and not self._demo_stopped
            and not any(ours is event for ours in self._demo_ours)
            and event.key in _CONTROL_KEYS
        ):
            event.stop()
            event.prevent_default()
            self._control(event.key)
            return
        await super().on_event(event)

    def _control(self, key: str) -> None:
        if key == "space":
            if self._demo_go.is_set():
                self._demo_go.clear()
                self._show(f"{self._demo_caption}   ⏸ paused: Space goes on")
            else:
                self._demo_go.set()
                self._show(self._demo_caption)
        elif key == "right":
            self._demo_go.set()
            self._demo_skip.set()
        elif key == "left":
            self._demo_go.clear()
            if len(self.demo.played) >= 2:
                previous = self.demo.played[-2].step
                self._show(f"{self._label(previous)}   ⏸ paused: Space goes on")
        elif key == "escape":
            self.hand_over()
        elif key == "q":
            self._demo_stopped = True
            self.exit(0)

    def hand_over(self) -> None:
        """Stop the story; the TUI is the person's from here, everything usable."""
        self._demo_stopped = True
        self.demo.handed_over = True
        self._demo_go.set()
        self._demo_skip.set()
        self._show("The demo is over: payscope is yours (q quits as usual with ctrl+q).")

    # -- playing ----------------------------------------------------------------------------

    def on_mount(self) -> None:
        super().on_mount()
        self.set_interval(0.2, self._place_caption)
        self.run_worker(self._play_or_say(), group="demo", exit_on_error=False)

    async def _play_or_say(self) -> None:
        """Play; a step that cannot run (a screenshot that cannot be written, say) stops the
        story with the reason said, and the TUI is the person's."""
        try:
            await self._play()
        except Exception as exc:
            self.demo.failed = f"The demo stopped: {type(exc).__name__}: {exc}"
            self.hand_over()
            self._show(self.demo.failed)
            self.notify(self.demo.failed, title="Demo", severity="error", markup=False)

    def _label(self, step: Step) -> str:
        story = self.story
        total = len(story.steps) if story else 0
        return f"{step.number}/{total}  {step.caption}" if step.caption else ""

    def _show(self, text: str) -> None:
        self._demo_text = text
        self._place_caption()

    def _place_caption(self) -> None:
        """The caption on the screen on show: a key of the story (or the person's) may open
        or close a screen after the caption was shown, so this runs again every 0.2 s."""
        text = self._demo_text
        caption = next(iter(self.screen.query(Caption)), None)
        for old in self.query(Caption):
            if old is not caption:
                old.remove()
        if caption is None:
            if not text:
                return
            caption = Caption(id="demo-caption")
            self.screen.mount(caption)
        else:
            # Docked at the bottom over the footer: drawn on top only while it is the screen's
            # last child (a footer a screen mounts again later would hide it).
            last = self.screen.children[-1]
            if last is not caption:
                self.screen.move_child(caption, after=last)
        if caption.said != text:
            caption.said = text
            caption.update(safe(text, multiline=True))  # a story file's words, literally
        caption.display = bool(text)

    def _post_key(self, key: str, character: str | None = None) -> None:
        if character is None:
            character = key_to_character(key)
        event = events.Key(key, character)
        self._demo_ours.append(event)
        self.post_message(event)

    def _type(self, text: str) -> None:
        for character in text:
            self._post_key(key_name(character), character)

    async def _sleep(self, seconds: float) -> None:
        """Wait `seconds` (scaled by the pace) unless → skips it; never while paused."""
        self._demo_skip.clear()
        with contextlib.suppress(TimeoutError):
            await within(self._demo_skip.wait(), max(seconds / self.pace, MIN_PAUSE))
        await self._demo_go.wait()

    async def _play(self) -> None:
        story = self.story
        if story is None:
            return
        if not self.runtime.options.is_local:  # its demo sandbox only, never a profile's
            raise RuntimeError("a demo story plays on its own demo sandbox only")
        await self.runtime.ready.wait()
        # The first page of payments on screen: the shell takes keys from here.
        loop = asyncio.get_running_loop()
        deadline = self._after(30)
        while "pay_" not in screen_text(self) and loop.time() < deadline:
            await asyncio.sleep(0.1)
        for step in story.steps:
            if self._demo_stopped:
                return
            await self._demo_go.wait()
            self._demo_step = step.number
            if step.caption:
                self._demo_caption = self._label(step)
                self._show(self._demo_caption)
            if step.command:
                self._post_key("colon", ":")
                if not await self._prompt_focused():
                    if not self._demo_stopped:
                        self._stop_story(
                            f"Step {step.number}: the command prompt did not open for "
                            f"{step.command!r}; the demo stops here and payscope is yours."
                        )
                    return
                self._type(step.command)
                await asyncio.sleep(KEY_GAP / self.pace)
                self._post_key("enter")
            for key in step.keys:
                await asyncio.sleep(KEY_GAP / self.pace)
                self._post_key(key)
            if step.type and not await self._type_into_field(step):
                return
            if not await self._wait_for(step):
                return
            await self._settle()  # what the step opened has loaded (a screenshot shows it whole)
            if step.caption:
                # On the screen the step ended on (a record it opened is a screen of its own).
                self._show(self._demo_caption)
                loop = asyncio.get_running_loop()
                shown = self._after(15)  # a loaded machine can take seconds to draw it
                while step.caption[:20] not in screen_text(self) and loop.time() < shown:
                    await asyncio.sleep(0.05)
                    self._place_caption()
            shot = None
            if step.caption and self.screenshots is not None:
                shot = Path(
                    self.save_screenshot(
                        filename=f"{story.name}-{step.number:02d}.svg",
                        path=str(self.screenshots),
                    )
                )
            self.demo.played.append(Played(step, screen_text(self), shot))
            await self._sleep(step.pause)
        if not self._demo_stopped:
            self.hand_over()
            self._show(f"The end of “{story.title}”: payscope is yours now.")
            # Finished once the last caption is on screen (a screen the last keys close may
            # still be on show for a moment).
            shown = self._after(3)
            while "payscope is yours" not in screen_text(self) and loop.time() < shown:
                await asyncio.sleep(0.05)
                self._place_caption()
            self.demo.finished = True

    def _after(self, seconds: float) -> float:
        """The loop's time at which a wait of `seconds` (times the patience) gives up."""
        return asyncio.get_running_loop().time() + seconds * self.patience

    async def _settle(self, limit: float = 3.0) -> None:
        """Wait until the screen stops changing (a detail's sections load one after another),
        at most `limit` seconds (a spinner never stops)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        last = screen_text(self)
        while loop.time() < deadline and not self._demo_stopped:
            await asyncio.sleep(SETTLE)
            now = screen_text(self)
            if now == last:
                return
            last = now

    async def _prompt_focused(self) -> bool:
        """Wait until the command prompt has the focus (it is mounted on first use)."""
        return await self._focused(CommandPrompt)

    async def _type_into_field(self, step: Step) -> bool:
        """Type the step's text into the text field that has the focus, never into anything
        else (a list would take each letter as a key: `n` a new payment, `/` a filter).

        After a refusal in this step or the one before, no field is waited for: what would
        have opened it was refused, so the text is dropped at once and the story goes on.
        Otherwise no field within the step's wait stops the story, saying why. False when the
        story stops here."""
        refused = 0 <= step.number - self._demo_refused_in <= 1
        if await self._focused(Input, wait=not refused):
            self._type(step.type)
            return True
        if self._demo_stopped:
            return False
        if refused:
            self.notify(
                f"Step {step.number}: nothing to type into (what would open it was refused); "
                "the text is dropped.",
                title="Demo",
                severity="warning",
                markup=False,
            )
            return True
        self._stop_story(
            f"Step {step.number}: no text field had the focus to type {step.type!r} into; "
            "the demo stops here and payscope is yours."
        )
        return False

    async def _focused(self, kind: type, *, wait: bool = True) -> bool:
        """Whether a `kind` has the focus, waiting for it unless `wait` is false."""
        # Generous: it returns as soon as the focus is there, and keys typed before it would
        # go elsewhere (a loaded machine can take seconds to mount a form).
        loop = asyncio.get_running_loop()
        deadline = self._after(10)
        await asyncio.sleep(KEY_GAP / self.pace)
        while wait and not isinstance(self.focused, kind) and loop.time() < deadline:
            if self._demo_stopped:
                return False
            await asyncio.sleep(0.02)
        return isinstance(self.focused, kind)

    def _stop_story(self, why: str) -> None:
        """The story cannot go on: say why, and the TUI is the person's."""
        self.demo.failed = why
        self.hand_over()
        self._show(why)
        self.notify(why, title="Demo", severity="warning", markup=False)

    async def _wait_for(self, step: Step) -> bool:
        loop = asyncio.get_running_loop()
        deadline = self._after(step.timeout)
        await asyncio.sleep(0.05)
        while step.wait_for and step.wait_for not in screen_text(self):
            if self._demo_stopped:
                return False
            if loop.time() > deadline:
                self._stop_story(
                    f"Step {step.number}: {step.wait_for!r} was not on screen after "
                    f"{step.timeout:g} s; the demo stops here and payscope is yours."
                )
                return False
            await asyncio.sleep(0.1)
        return True


def demo_dirs(base: Path | None = None) -> Path:
    """A fresh directory for one demo (its data and config), never the user's."""
    return Path(tempfile.mkdtemp(prefix="payscope-demo-", dir=base))


def make_demo_app(
    story: Story,
    *,
    pace: float = 1.0,
    patience: float = 1.0,
    screenshots: Path | None = None,
    directory: Path,
    clock: Callable[[], float] | None = None,
) -> DemoApp:
    """payscope playing `story` on a demo sandbox in `directory` (see the module docstring)."""
    began = time.time()
    app_class = type(
        "DemoApp",
        (DemoApp,),
        {"story": story, "pace": max(pace, 0.01), "patience": patience, "screenshots": screenshots},
    )

    private_dir(directory / "config")
    app = make_app(
        seed=DEMO_SEED,
        config_dir=directory / "config",
        data_dir=directory / "data",
        app_class=app_class,
        time_source=clock or (lambda: DEMO_EPOCH + (time.time() - began)),
        merchant_id="merchant_demo",
        profile_id="pro_demo",
    )
    assert isinstance(app, DemoApp)
    return app
