"""Copying to the clipboard where people work: every copy payscope makes goes through here.

A copy is sent every way the terminal may take it, and the toast says which ones did:

- OSC 52, always (`App.copy_to_clipboard`): most terminals put it on the clipboard, and served
  in a browser (`payscope serve`) the page hands it to the browser's. Nothing answers it, so
  it is said as "sent", never as done;
- inside tmux (`$TMUX` set), `tmux load-buffer -w -`: the paste buffer (prefix + ]), and, with
  `-w`, the outer terminal's clipboard as tmux's `set-clipboard` allows (tmux passes on an
  application's OSC 52 only with `set-clipboard on`; `external`, the default, drops it);
- the desktop's own tool when present: `wl-copy` (Wayland), `xclip` (X), `pbcopy` (macOS).

When no command took it (OSC 52 alone is no proof), the text is shown to select by hand and
written to a private file (0600) whose path is shown, unless it is a secret (a key is never
written to a file: it is only shown).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from payscope.core.private_files import write_private
from payscope.widgets.text import safe

OSC52 = "the terminal (OSC 52)"
# A command that takes longer than this to take a copy is taken as not there.
COMMAND_TIMEOUT = 3.0


@dataclass(frozen=True)
class Tool:
    """A command that takes text on stdin and puts it where `place` says."""

    place: str
    argv: tuple[str, ...]


def tools(env: Mapping[str, str], platform: str = sys.platform) -> list[Tool]:
    """The commands worth trying here, in order, found on `env`'s PATH."""
    path = env.get("PATH", "")
    found: list[Tool] = []

    def add(place: str, *argv: str) -> None:
        command = shutil.which(argv[0], path=path)
        if command is not None:
            found.append(Tool(place, (command, *argv[1:])))

    if env.get("TMUX"):
        add("the tmux paste buffer", "tmux", "load-buffer", "-w", "-")
    if env.get("WAYLAND_DISPLAY"):
        add("the Wayland clipboard (wl-copy)", "wl-copy")
    if env.get("DISPLAY"):
        add("the X clipboard (xclip)", "xclip", "-selection", "clipboard", "-in")
    if platform == "darwin":
        add("the macOS clipboard (pbcopy)", "pbcopy")
    return found


def run_tool(tool: Tool, text: str, env: Mapping[str, str]) -> bool:
    """Hand `text` to `tool`; True when it took it (exit status 0 in time)."""
    try:
        done = subprocess.run(
            tool.argv,
            input=text.encode("utf-8"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=dict(env),
            timeout=COMMAND_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    if done.returncode != 0 and tool.argv[1:2] == ("load-buffer",) and "-w" in tool.argv:
        # tmux before 3.2 has no -w: the buffer alone, then.
        plain = Tool(tool.place, tuple(a for a in tool.argv if a != "-w"))
        return run_tool(plain, text, env)
    return done.returncode == 0


@dataclass
class Copied:
    """Where one copy went: `places` took it (besides OSC 52, always sent); `file` holds it
    when none did (None for a secret, or when the file could not be written: `problem`)."""

    text: str
    what: str
    places: list[str] = field(default_factory=list)
    file: Path | None = None
    problem: str = ""

    @property
    def reached(self) -> bool:
        """Whether a command took it (OSC 52 alone may or may not have arrived)."""
        return bool(self.places)

    def summary(self) -> str:
        """One line: what went where."""
        where = [*self.places, f"{OSC52}, if it allows"]
        return f"Copied {self.what} to " + _joined(where) + "."


def _joined(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def deliver(
    text: str,
    what: str,
    env: Mapping[str, str],
    fallback_dir: Path | None,
    *,
    secret: bool = False,
    platform: str = sys.platform,
) -> Copied:
    """Try each command of `tools` (all of them: tmux's buffer and the desktop's clipboard are
    different places); when none took it, write the text to a private file in `fallback_dir`
    (never a secret). Blocking: run it in a thread."""
    copied = Copied(text, what)
    for tool in tools(env, platform):
        if run_tool(tool, text, env):
            copied.places.append(tool.place)
    if copied.reached or secret or fallback_dir is None:
        return copied
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = fallback_dir / f"copied-{stamp}-{os.getpid()}.txt"
    try:
        write_private(path, text if text.endswith("\n") else text + "\n")
    except OSError as exc:
        copied.problem = f"could not write {path}: {exc.strerror or exc}"
    else:
        copied.file = path
    return copied


def copy_text(
    app: Any,
    text: str,
    what: str,
    *,
    secret: bool = False,
    show: bool = False,
    note: str = "",
    environ: Mapping[str, str] | None = None,
) -> None:
    """Copy `text` every way there is (see the module docstring) and say where it went, in a
    toast, or with `show` on a screen with the text (`CopiedScreen`). When no command took it,
    the toast shows the text to select by hand and the file that holds it (for a secret,
    neither: `note` says how to reach it). `environ` is the environment looked in (the
    process's by default)."""
    app.copy_to_clipboard(text)  # OSC 52: at once, whatever follows
    runtime = getattr(app, "runtime", None)
    options = getattr(runtime, "options", None)
    data_dir = getattr(options, "data_dir", None)
    fallback = Path(data_dir) / "copied" if data_dir is not None else None
    env = dict(os.environ if environ is None else environ)

    def work() -> None:
        copied = deliver(text, what, env, fallback, secret=secret)
        app.call_from_thread(said, copied)

    def said(copied: Copied) -> None:
        app.last_copy = copied  # where the latest copy went (what tests and screens read)
        if show:
            app.push_screen(CopiedScreen(copied, secret=secret, hint=note))
            return
        lines = [copied.summary()]
        if not copied.reached:
            if not secret:
                shown = text if len(text) <= 400 else text[:400] + "…"
                lines.insert(0, shown)
            lines.append(NO_COMMAND)
            if copied.file is not None:
                lines.append(f"Also written to {copied.file}")
            elif copied.problem:
                lines.append(f"Not written to a file: {copied.problem}.")
        if note:
            lines.append(note)
        app.notify(
            "\n".join(lines),
            title="Copied" if copied.reached else f"Copied {what}: select it if it did not arrive",
            markup=False,
            timeout=5 if copied.reached else 15,
        )

    app.run_worker(work, thread=True, group="clipboard", description="Copying", exit_on_error=False)


NO_COMMAND = (
    "No clipboard command took it here (none of tmux, wl-copy, xclip, pbcopy): if your terminal "
    "refuses OSC 52, select the text."
)


class CopiedScreen(ModalScreen[None]):
    """What was copied, on screen to select by hand, with where it went (and its file)."""

    DEFAULT_CSS = """
    CopiedScreen { align: center middle; }
    CopiedScreen > VerticalScroll {
        width: 90%; height: auto; max-height: 80%; border: round $primary;
        background: $surface; padding: 0 1;
    }
    CopiedScreen .copied-hint { color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "close", "Close", id="copied.close", tooltip="Close"),
    ]

    def __init__(self, copied: Copied, *, secret: bool = False, hint: str = "") -> None:
        super().__init__()
        self.copied = copied
        self.secret = secret
        self.hint = hint

    def compose(self) -> ComposeResult:
        copied = self.copied
        with VerticalScroll() as box:
            box.border_title = f"Copied {copied.what}"
            yield Static(safe(copied.text, multiline=True), id="copied-text")
            lines = [copied.summary()]
            if not copied.reached:
                lines.append(NO_COMMAND.replace("the text.", "the text above."))
            if copied.file is not None:
                lines.append(f"Also written to {copied.file}")
            elif copied.problem:
                lines.append(f"Not written to a file: {copied.problem}.")
            elif self.secret and not copied.reached:
                lines.append("A secret is never written to a file.")
            if self.hint:
                lines.append(self.hint)
            yield Static("\n".join(lines), classes="copied-hint", id="copied-where", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
