"""The Events area's form: replaying an event to the listener or another URL."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Input

from payscope.app.runtime.connection import NotStarted
from payscope.core import config
from payscope.core.forward_urls import url_problem
from payscope.views.forms import Field, FormErrors, FormScreen

if TYPE_CHECKING:
    from payscope.webhooks.records import ForwardRecord


class ReplayForm(FormScreen[str, "ForwardRecord"]):
    """Replay an event to a URL: the forward target, or one typed here (remembered)."""

    title_text = "Replay event"
    submit_label = "Replay"

    def __init__(self, event_id: str) -> None:
        super().__init__()
        self.event_id = event_id
        self.intro = (
            f"Re-POST {event_id} exactly as it was signed to a URL of yours. The URL is "
            "remembered for this profile."
        )

    def _known_url(self) -> str:
        listener = self.runtime.listener
        target = listener.forward_target(None) if listener is not None else None
        try:
            return target or config.get_forward_url(self.runtime.profile_name) or ""
        except Exception:  # an unreadable config: the field starts empty, nothing lost
            return ""

    def fields(self) -> list[Field]:
        return [
            Field(
                "url",
                "Forward URL",
                # Empty, and it looks empty: a greyed example URL in the box read as a value.
                Input(self._known_url(), placeholder="none yet: type it", id="field-url"),
                "Your server's webhook endpoint, http:// or https://, e.g. "
                "http://127.0.0.1:3000/webhooks.",
            )
        ]

    def submit_text(self) -> str | None:
        url = self.value("url")
        return f"Replay to {url}" if url else None

    def build(self) -> str:
        url = self.value("url")
        problem = "Type the URL to send it to." if not url else url_problem(url)
        if problem:
            raise FormErrors({"url": problem})
        return str(url)

    async def send(self, url: str) -> ForwardRecord:
        listener = self.runtime.listener
        if listener is None:
            raise NotStarted("The webhook listener is not running: nothing to replay from.")
        record = await listener.replay(self.event_id, url)
        try:
            config.set_forward_url(self.runtime.profile_name, url)
        except Exception as exc:  # the replay happened; only remembering the URL failed
            self.app.notify(f"The URL was not remembered: {exc}", severity="warning")
        outcome = f"HTTP {record.status}" if record.status else (record.error or "no answer")
        latency = f" in {record.latency_ms:.0f} ms" if record.latency_ms is not None else ""
        self.app.notify(f"{self.event_id} -> {record.url}: {outcome}{latency}", title="Replayed")
        return record
