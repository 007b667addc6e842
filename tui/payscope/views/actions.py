"""Actions declared once: name, key, title, the states that allow it, and what it opens.

From one declaration come the key binding (so the footer and the key help), the command
palette entry and the detail screen's button; an action the record's state does not allow is
offered nowhere (`check_action` hides its key, the palette and the buttons leave it out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, Protocol, TypeVar

from textual.binding import Binding

if TYPE_CHECKING:
    from payscope.views.access import HostApp

T = TypeVar("T")


if TYPE_CHECKING:  # a type only: no Protocol class to build before the first paint

    class ActionHost(Protocol):
        """Where an action runs from (a list view or a detail screen)."""

        @property
        def app(self) -> HostApp: ...

        def acted(self, result: Any) -> None:
            """The action finished (`result` is what its form returned; None if closed)."""

        def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any:
            """Textual's: the action's work is the host's, and ends with it."""


# A NamedTuple: made at import, before the first frame (why: docs/architecture.md).
class Action(NamedTuple, Generic[T]):
    """One thing a user can do to a record (or, with `needs_record=False`, in an area).

    `run(host, record_id, record)` opens the action's form or does it; `record` may be None
    when only the id is known (a row shown from a cache), and the action fetches it.
    `statuses` (when given) are the states that allow it; `when` is any further condition.
    A status the area does not know (a newer service's) allows it: the service decides.
    `writes`: running it may change the service (or what it sends on); a read-only profile
    offers no such action. Only actions that go somewhere or copy something say False.
    """

    name: str
    key: str
    title: str
    help: str
    # It may return what opening its form is awaited with (`push_screen`'s answer).
    run: Callable[[ActionHost, str | None, T | None], object]
    statuses: frozenset[str] | None = None
    when: Callable[[T], bool] | None = None
    needs_record: bool = True
    local_only: bool = False
    show: bool = True
    key_display: str | None = None
    palette: str = ""
    known_statuses: frozenset[str] = frozenset()
    writes: bool = True

    def binding(self, scope: str) -> Binding:
        """The key binding of this action in a screen or view named `scope`."""
        return Binding(
            self.key,
            f"act('{self.name}')",
            self.title,
            id=f"{scope}.{self.name}",
            tooltip=self.help,
            show=self.show,
            key_display=self.key_display,
        )

    def hidden(self) -> Action[T]:
        """The same action, out of the footer (its key still works; ? and the palette list it)."""
        return self._replace(show=False)

    def allows(self, record: T | None, *, local: bool, read_only: bool = False) -> bool:
        """Whether this action is offered for `record` (None: no record selected); on a
        read-only profile no action that writes is."""
        if self.local_only and not local:
            return False
        if self.writes and read_only:
            return False
        if not self.needs_record:
            return True
        if record is None:
            return False
        status = status_of(record)
        if self.statuses is not None and status is not None:
            known = self.known_statuses or self.statuses
            if status in known and status not in self.statuses:
                return False
        return self.when is None or self.when(record)


def status_of(record: Any) -> str | None:
    """The record's status as a plain string (enums by value), or None."""
    status = getattr(record, "status", None)
    if status is None:
        return None
    return str(getattr(status, "value", status))


def statuses(*names: str) -> frozenset[str]:
    """A set of status names (reads better in declarations)."""
    return frozenset(names)


def with_known(actions: Sequence[Action[T]], known: Iterable[str]) -> tuple[Action[T], ...]:
    """The actions, each told every status the resource knows (see `Action.allows`)."""
    every = frozenset(known)
    return tuple(a._replace(known_statuses=every) for a in actions)


def find(actions: Sequence[Action[T]], name: str) -> Action[T] | None:
    """The action called `name`."""
    return next((a for a in actions if a.name == name), None)
