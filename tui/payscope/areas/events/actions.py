"""The Events area's actions, declared once for its list and its detail (each opens its
form from `forms`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from payscope.areas.events.composer import ComposerScreen
from payscope.areas.events.forms import ReplayForm
from payscope.views.actions import Action
from payscope.views.areas import registry

if TYPE_CHECKING:
    from payscope.views.actions import ActionHost


# -- actions ---------------------------------------------------------------------------------------


def _goto(host: ActionHost, event_id: str | None, record: Any) -> None:
    event = getattr(record, "event", record)  # a journal row, or an event's detail
    object_id = getattr(event, "object_id", None)
    if not object_id:
        host.app.notify("This event names no object.", severity="warning")
        return

    area = registry().for_id(object_id)
    if area is None:
        host.app.notify(f"{object_id}: no area of payscope shows it.", severity="information")
        return
    host.app.goto(area.key, object_id)


def _compose(host: ActionHost, _event_id: str | None, _record: Any) -> None:
    host.app.push_screen(ComposerScreen())


def _replay(host: ActionHost, event_id: str | None, record: Any) -> None:
    if event_id is not None:
        host.app.push_screen(ReplayForm(event_id), host.acted)


EVENT_ACTIONS: tuple[Action[Any], ...] = (
    Action("goto", "g", "Go to object", "Open the object it is about", _goto, writes=False),
    Action(
        "replay",
        "p",
        "Replay",
        "Re-POST it, signed, to a forward URL (asked once, remembered)",
        _replay,
        palette="Replay this event",
    ),
    Action(
        "compose",
        "c",
        "Compose",
        "Compose an event, sign it and send it to the listener or any URL; see the answer",
        _compose,
        needs_record=False,
        palette="Compose a webhook event",
    ),
)
