"""One journaled request on a screen of its own: what opens from a payment's story (Esc comes
back to it). The same drawing as the Requests area's lower panel, and its curl copy (`y`)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import RenderableType
from rich.text import Text

from tui.areas.requests.view import REQUEST_ACTIONS, render_entry
from tui.views.detail import DetailScreen, Missing
from tui.widgets.text import safe


class RequestDetailScreen(DetailScreen[Any]):
    """A request payscope made and the answer it got (redacted by the client's journal)."""

    noun = "Request"
    scope = "request"
    actions = tuple(a for a in REQUEST_ACTIONS if a.needs_record)
    sections: ClassVar[tuple[tuple[str, str], ...]] = (("request", "Request and answer"),)

    async def fetch(self) -> Any:
        entry = (
            self.runtime.api.journal.get(int(self.record_id)) if self.record_id.isdigit() else None
        )
        if entry is None:
            raise Missing(self.record_id)
        return entry

    def not_found_text(self) -> str:
        return (
            "The request journal no longer holds this request (it keeps the last "
            f"{self.runtime.api.journal.maxlen}); Esc goes back."
        )

    def watched_ids(self, record: Any) -> set[str]:
        return set()  # a journaled request does not change

    def title_text(self, entry: Any) -> Text:
        answer = str(entry.status) if entry.status is not None else "no answer"
        return Text.assemble(
            ("Request ", "bold"),
            safe(f"{entry.method} {entry.path.split('?', 1)[0]}", "bold"),
            "  ",
            (answer, "bold"),
        )

    def render_record(self, entry: Any) -> None:
        self.section("request").update(render_entry(entry, self.runtime.options.stable_display))

    def raw(self, record: Any) -> RenderableType:
        return render_entry(record, self.runtime.options.stable_display)
