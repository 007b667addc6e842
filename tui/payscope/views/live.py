"""Live updates: one app-level signal of changes, fed by the listener's accepted webhooks.

A view or screen subscribes with `watch_changes(node, callback)`; Textual ends the subscription
with the node, so no screen writes its own unsubscribe code. Each `Change` names the object the
webhook is about and the other ids its payload mentions (a refund's payment, a payment's
customer), so a payment detail reloads when one of its refunds settles.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.signal import Signal

# Payload fields that name other objects worth refreshing.
_RELATED_FIELDS = (
    "payment_id",
    "refund_id",
    "dispute_id",
    "customer_id",
    "subscription_id",
    "payout_id",
    "payment_link_id",
)


@dataclass(frozen=True)
class Change:
    """An accepted webhook, as the views see it."""

    object_id: str | None
    event_type: str | None
    status: str | None
    related: frozenset[str] = field(default_factory=frozenset)
    delivery: Any = field(default=None, repr=False, compare=False)

    def concerns(self, ids: Iterable[str]) -> bool:
        """True if this change is about one of `ids` (as its object or a related object)."""
        wanted = set(ids)
        return bool(self.object_id in wanted or self.related & wanted)

    @property
    def ids(self) -> frozenset[str]:
        """Every id the change is about."""
        return self.related | ({self.object_id} if self.object_id else set())


class Feeds(Protocol):
    """The app's signals the views follow (payscope's app has them: `AppHost` is a `Feeds`)."""

    changes: Signal[Change]  # a record changed (webhooks, or payscope's own announcements)
    deliveries: Signal[Any]  # every webhook delivery, refused ones included
    requests: Signal[Any]  # every request the shared client journals


def feeds_of(node: DOMNode) -> Feeds:
    """The signals of the app `node` runs in (every payscope node runs in payscope's app)."""
    return cast("Feeds", node.app)


def change_of(delivery: Any) -> Change | None:
    """The change an accepted, first-time delivery brings (None for refusals and duplicates)."""
    if not delivery.accepted or delivery.duplicate:
        return None
    return Change(
        object_id=delivery.object_id,
        event_type=delivery.event_type,
        status=delivery.object_status,
        related=_related(delivery.body),
        delivery=delivery,
    )


def _related(body: bytes) -> frozenset[str]:
    try:
        data = json.loads(body)
        obj = data["content"]["object"]
    except (ValueError, KeyError, TypeError):
        return frozenset()
    if not isinstance(obj, dict):
        return frozenset()
    return frozenset(v for k in _RELATED_FIELDS if isinstance(v := obj.get(k), str) and v)


def announce(app: Any, object_id: str, event_type: str, status: str | None = None) -> None:
    """Tell every view of a change payscope itself made and no webhook will report (the service
    sends none for customers): the list row and the open detail of `object_id` read it again,
    and a deleted record leaves its list."""
    app.changes.publish(Change(object_id=object_id, event_type=event_type, status=status))


def watch_changes(node: DOMNode, callback: Callable[[Change], Any]) -> None:
    """Call `callback` on `node` for every change, for as long as `node` is mounted."""
    feeds_of(node).changes.subscribe(node, callback)


def watch_deliveries(node: DOMNode, callback: Callable[[Any], Any]) -> None:
    """Call `callback` for every delivery, refused ones included (the Events area)."""
    feeds_of(node).deliveries.subscribe(node, callback)


def watch_requests(node: DOMNode, callback: Callable[[Any], Any]) -> None:
    """Call `callback` for every request the shared client journals (the Requests area)."""
    feeds_of(node).requests.subscribe(node, callback)
