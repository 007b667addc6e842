"""k9s-style command mode: `:payments`, `:pay pay_123`, `:theme payscope-light`, Tab completes."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input

from payscope.areas import AREA_BY_KEY, AREAS, ID_COMMANDS, area_for_id

OTHER_COMMANDS = ("theme", "quit", "help", "new", "find")


@dataclass(frozen=True)
class Command:
    """A parsed command line: what to do, and with what."""

    kind: str  # "area", "open", "find", "theme", "quit", "help", "new", "error"
    area: str | None = None
    argument: str | None = None
    message: str | None = None


def parse_command(text: str) -> Command:
    """Read one command line (without the leading colon) into a `Command`, or an error to show."""
    words = text.strip().lstrip(":").split()
    if not words:
        return Command("error", message="Type an area (payments, events...) or `pay <id>`.")
    head, rest = words[0].lower(), words[1:]
    if head in ("q", "quit", "exit"):
        return Command("quit")
    if head in ("help", "?"):
        return Command("help")
    if head == "new":
        return Command("new", area="payments")
    if head in ("find", "f", "search"):
        if not rest:
            return Command(
                "error",
                message="Say what to find: `find pay_01J`, `find ada@example.com`, `find 4242`.",
            )
        return Command("find", argument=" ".join(rest))
    if head == "theme":
        # Alone: the theme picker, which lists them all (a live preview as you move).
        return Command("theme", argument=rest[0] if rest else None)
    if head in ID_COMMANDS:
        if rest:
            return Command("open", area=ID_COMMANDS[head], argument=rest[0])
        return Command("area", area=ID_COMMANDS[head])
    by_id = area_for_id(words[0])
    if by_id is not None and len(words[0]) > len(by_id.id_prefix or ""):
        return Command("open", area=by_id.key, argument=words[0])
    matches = [area.key for area in AREAS if area.key.startswith(head)]
    if head in AREA_BY_KEY:
        matches = [head]
    if len(matches) == 1:
        area = matches[0]
        if rest:
            return Command("open", area=area, argument=rest[0])
        return Command("area", area=area)
    if len(matches) > 1:
        return Command("error", message=f"`{head}` could be {', '.join(matches)}: type more.")
    return Command(
        "error",
        message=f"Unknown command `{head}`. Try an area name (payments, events, requests, "
        "settings...), `pay <id>`, `theme <name>` or `quit`.",
    )


def theme_choices(text: str, themes: tuple[str, ...]) -> list[str]:
    """The theme names `theme …` may still become (all of them after `theme `)."""
    head, sep, rest = text.partition(" ")
    if head != "theme" or not sep:
        return []
    return [name for name in themes if name.startswith(rest.strip())]


def complete(text: str, themes: tuple[str, ...] = ()) -> str | None:
    """The completed command line for `text`, or None when nothing fits."""
    head, sep, rest = text.partition(" ")
    if head == "theme" and sep:
        choices = theme_choices(text, themes)
        if len(choices) == 1:
            return f"theme {choices[0]}" if choices[0] != rest else None
        prefix = choices[0] if choices else ""
        for name in choices:
            while not name.startswith(prefix):
                prefix = prefix[:-1]
        return f"theme {prefix}" if len(prefix) > len(rest) else None
    if not text or (text.endswith(" ") and " " not in text.strip()):
        return None
    if not sep:
        # What Enter would do comes first: `pay` opens Payments (its own word), so the
        # suggestion is `payments`, never `payouts`; `dp` opens Disputes and suggests nothing.
        meant = parse_command(head)
        if meant.kind == "area" and meant.area:
            lowered = head.lower()
            return meant.area if meant.area.startswith(lowered) and meant.area != lowered else None
        # Area names first: `ev` means events more often than the `evt <id>` form.
        areas = sorted((a.key for a in AREAS), key=lambda w: (len(w), w))
        for word in [*areas, *ID_COMMANDS, *OTHER_COMMANDS]:
            if word.startswith(head.lower()) and word != head.lower():
                return word
        return None
    return None


class CommandSuggester(Suggester):
    """Suggests the completion of the command being typed (shown dimmed; Tab accepts)."""

    def __init__(self, themes: tuple[str, ...] = ()) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.themes = themes

    async def get_suggestion(self, value: str) -> str | None:
        return complete(value, self.themes)


class CommandPrompt(Input):
    """The `:` prompt. Posts `CommandPrompt.Submitted`-like `Run` messages; Esc closes it."""

    BINDINGS = [
        Binding(
            "tab",
            "complete",
            "Complete",
            id="prompt.complete",
            tooltip="Complete the command",
            priority=True,
        ),
        Binding("escape", "close", "Close", id="prompt.close", tooltip="Close the command prompt"),
    ]

    class Run(Message):
        """The user entered a command."""

        def __init__(self, command: Command) -> None:
            super().__init__()
            self.command = command

    class Closed(Message):
        """The prompt was dismissed without a command."""

    def __init__(self, themes: tuple[str, ...] = ()) -> None:
        super().__init__(
            placeholder="payments · refunds · pay <id> · find <id, email or last 4> · theme · quit",
            suggester=CommandSuggester(themes),
            id="command-prompt",
        )
        self.border_title = "command"

    def action_complete(self) -> None:
        themes = getattr(self.suggester, "themes", ())
        suggestion = complete(self.value, themes)
        if suggestion is not None:
            self.value = suggestion + ("" if suggestion.startswith("theme ") else " ")
            self.cursor_position = len(self.value)
        # Several themes still fit: their names, under the prompt, as the palette lists them.
        choices = theme_choices(self.value, themes)
        self.border_subtitle = " · ".join(choices) if len(choices) > 1 else ""

    def on_input_changed(self) -> None:
        if not self.value.startswith("theme "):
            self.border_subtitle = ""

    def action_close(self) -> None:
        self.value = ""
        self.post_message(self.Closed())

    async def action_submit(self) -> None:
        text = self.value
        self.value = ""
        self.post_message(self.Run(parse_command(text)))


class CommandScreen(ModalScreen["Command | None"]):
    """The `:` prompt over a screen other than the main one (a record's detail): the command
    typed, or None when Esc closed it. Command mode works on every screen."""

    DEFAULT_CSS = """
    CommandScreen { align: center bottom; }
    CommandScreen > CommandPrompt { border: round $accent; height: 3; width: 1fr; margin: 0 0 1 0; }
    """

    def __init__(self, themes: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.themes = themes

    def compose(self) -> ComposeResult:
        yield CommandPrompt(themes=self.themes)

    @on(CommandPrompt.Run)
    def _command_entered(self, event: CommandPrompt.Run) -> None:
        event.stop()
        self.dismiss(event.command)

    @on(CommandPrompt.Closed)
    def _command_dismissed(self, event: CommandPrompt.Closed) -> None:
        event.stop()
        self.dismiss(None)
