"""Export a list from the TUI (`E` in any list): every record the current filter matches, all
pages, to CSV or JSON Lines at a path the user chooses, with progress; Esc cancels and leaves
nothing under that name. The writer is `payscope.api.export`, shared with `payscope export`: only a
regular file is written (a FIFO, a device, a directory is refused), a file already there is
replaced only once the user confirms (Enter again), and the notice gives the whole path."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, ProgressBar, Static

from payscope.api.export import (
    ExportError,
    ExportExists,
    ExportResult,
    check_target,
    export_records,
)
from payscope.views.access import AppAccess
from payscope.widgets.errors import describe_error
from payscope.widgets.text import safe

if TYPE_CHECKING:
    from payscope.views.filters import Filter


def format_of(path: str) -> str | None:
    """csv or jsonl, from the file's suffix (None: neither)."""
    suffix = Path(path).suffix.lower()
    return {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}.get(suffix)


class Exported(Protocol):
    """What the screen uses of the list it exports (a `ResourceListView`, which opens it)."""

    @property
    def noun(self) -> str: ...  # plural, lower case

    @property
    def scope(self) -> str: ...  # the file's name starts with it

    @property
    def page_size(self) -> int: ...

    @property
    def filter(self) -> Filter: ...

    def key_of(self, record: Any) -> str: ...

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[Any], int | None]: ...


class ExportScreen(AppAccess, ModalScreen[None]):  # type: ignore[misc]
    """The path (its suffix says the format), then the export's progress."""

    DEFAULT_CSS = """
    ExportScreen { align: center middle; }
    ExportScreen > Vertical {
        width: 90; max-width: 96%; height: auto;
        border: round $primary; background: $surface; padding: 0 1;
    }
    ExportScreen #export-title { text-style: bold; padding: 0 0 1 0; }
    ExportScreen #export-hint { color: $text-muted; padding: 1 0 0 0; }
    ExportScreen #export-state { padding: 1 0 0 0; }
    ExportScreen ProgressBar { display: none; }
    ExportScreen ProgressBar.-running { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop", "Cancel", id="export.cancel", tooltip="Cancel or close"),
    ]

    def __init__(self, view: Exported) -> None:
        super().__init__()
        self.view = view
        self.result: ExportResult | None = None
        self.error = ""
        self.running = False
        self.read = 0
        # The file the user confirmed may be replaced (Enter again on the same path).
        self.replace_ok: Path | None = None

    def compose(self) -> ComposeResult:
        view = self.view
        stamp = time.strftime("%Y%m%d-%H%M%S")
        matched = f"matching “{view.filter.text}”" if view.filter else ""
        with Vertical():
            yield Static(
                Text.assemble(
                    (
                        f"Export every {view.noun[:-1] if view.noun.endswith('s') else view.noun}",
                        "bold",
                    ),
                    " ",
                    safe(matched, empty=""),
                    " (all pages)" if matched else "(all pages)",
                ),
                id="export-title",
            )
            yield Input(f"{view.scope}-{stamp}.csv", id="export-path")
            yield ProgressBar(total=None, show_eta=False, id="export-progress")
            yield Static(id="export-state")
            yield Static(
                "Enter exports · .csv or .jsonl says the format · Esc cancels (nothing is left "
                "under the name)",
                id="export-hint",
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#export-path")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.running:
            return
        path = event.value.strip()
        fmt = format_of(path)
        if fmt is None:
            self._say("The file's name ends in .csv or .jsonl (the format).", error=True)
            return
        chosen = Path(path).expanduser().absolute()
        force = self.replace_ok == chosen
        try:
            check_target(chosen, force=force)
        except ExportExists:
            self.replace_ok = chosen
            self._say(
                f"{chosen} already exists. Enter again replaces it; change the name to keep it.",
                error=True,
            )
            return
        except ExportError as exc:
            self.replace_ok = None
            self._say(str(exc), error=True)
            return
        self.run_export(chosen, fmt, force)

    def _say(self, text: str, *, error: bool = False) -> None:
        self.query_one("#export-state", Static).update(
            Text(text, style="bold red" if error else "")
        )

    def _progress(self, done: int, total: int | None) -> None:
        self.read = done
        bar = self.query_one(ProgressBar)
        bar.update(total=total, progress=done)
        of = f" of {total:,}" if total is not None else ""
        self._say(f"Read {done:,}{of} {self.view.noun}…")

    @work(group="export", exclusive=True, exit_on_error=False, description="Export")
    async def run_export(self, path: Path, fmt: str, force: bool = False) -> None:
        view = self.view
        flt = view.filter
        self.running = True
        self.query_one(ProgressBar).add_class("-running")
        self.query_one(Input).disabled = True
        try:
            self.result = await export_records(
                lambda offset, limit: view.fetch_page(flt.server, offset, limit),
                path,
                fmt,
                matches=flt.matches if flt.local else None,
                key=view.key_of,
                progress=self._progress,
                page_size=view.page_size,
                force=force,
            )
        except ExportError as exc:
            self.error = str(exc)
        except Exception as exc:  # the service's errors, a full disk…
            self.error = describe_error(exc)[1] + " Nothing was written."
        finally:
            self.running = False
            self.query_one(Input).disabled = False
        if self.error:
            self._say(self.error, error=True)
            return
        assert self.result is not None
        self.notify(
            f"{self.result.count:,} {view.noun} written to {self.result.path}",
            title="Export",
            markup=False,  # a path may hold a '['
        )
        self.dismiss(None)

    def action_stop(self) -> None:
        if self.running:
            self.workers.cancel_group(self, "export")
            self.running = False
            self.notify("Export cancelled: nothing was written.", title="Export")
        self.dismiss(None)
