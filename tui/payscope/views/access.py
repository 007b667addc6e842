"""`AppAccess`: the typed way a widget or screen reaches the app and its runtime.

Textual types `self.app` as a plain `App`; payscope's screens need more of it (its signals,
`goto`, `runtime`). The layers below the app (shell, areas, views) never import `payscope.app`: they
see it through `AppHost`, a Protocol of what they use, and `payscope.app` checks that `PayscopeApp`
is one. Mixed in before the Textual base, `AppAccess` changes nothing at run time: it only tells
the type checker which app this is, in one place (posting's `cast("Posting", self.app)`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, cast

from payscope.views.lifetime import guard_callback, guard_work, guarded_event

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.widget import Widget
    from textual.worker import Worker

    from payscope.app.runtime import Runtime
    from payscope.views.live import Feeds


class Guarded(StrEnum):
    """What an action asks the app's leave for first (`AppHost.refuses`): what a demo story,
    someone else's code, may not do while it plays. Each value says it in words."""

    WRITE_FILES = "write files"
    RUN_FIXTURES = "run fixtures"
    OTHER_PROFILE = "open or change another profile"
    REVEAL_KEYS = "reveal or copy keys"


def refused(node: DOMNode, what: Guarded) -> bool:
    """Whether the app refuses `what` now (it has said so to the user when it does)."""
    return host_of(node).refuses(what)


# Types only: nothing at run time asks for them, and `Feeds` (the signals the views follow)
# is declared beside what follows them (payscope.views.live), which needs this module.
if TYPE_CHECKING:

    class ShownArea(Protocol):
        """The main screen as areas see it: the area view on show (an `AreaView`: who wants a
        kind of area checks for it)."""

        def current_view(self) -> Widget: ...

    class AppHost(Feeds, Protocol):
        """What the shell, the areas and the views use of payscope's app beyond Textual's `App`:
        its signals (`Feeds`), and these."""

        @property
        def runtime(self) -> Runtime: ...

        def goto(self, area: str, record_id: str | None = None) -> None: ...

        def get_screen_main(self) -> ShownArea | None: ...

        def on_worker_state_changed(self, event: Worker.StateChanged) -> None: ...

        def first_frame_out(self) -> None: ...

        def start_runtime(self) -> Worker[None]: ...  # a @work method: it returns its worker

        def action_help(self) -> None: ...

        def refuses(self, what: Guarded) -> bool: ...  # see `Guarded`

        def choose_theme(self, name: str) -> None: ...

    class HostApp(App[int], AppHost):
        """Textual's `App` as payscope runs it: a type only (the app is
        `payscope.app.app.PayscopeApp`)."""


def host_of(node: DOMNode) -> HostApp:
    """The app `node` runs in, typed as payscope's (every payscope node runs in one)."""
    return cast("HostApp", node.app)


class AppAccess:
    """`app` typed as payscope's app (`HostApp`), and `runtime` (sandbox, listener, client);
    and work that does nothing once its screen has gone (`payscope.views.lifetime`): the workers,
    timers and callbacks a payscope screen or view starts, and its events.

    The classes that mix it in say `# type: ignore[misc]`: Textual types `app` as `App[object]`,
    and `App` is invariant in its return type, so the checker calls the narrower type
    incompatible although every payscope node runs in a `PayscopeApp`.
    """

    # Textual's own methods, with the work or callback given guarded by the node's screen:
    # whoever starts it (a `@work` method, a timer, the areas' actions) needs do nothing more.
    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any:
        return super().run_worker(guard_work(self, work), *args, **kwargs)  # type: ignore[misc, arg-type]

    def set_timer(self, delay: float, callback: Any = None, **kwargs: Any) -> Any:
        guarded = None if callback is None else guard_callback(self, callback)  # type: ignore[arg-type]
        return super().set_timer(delay, guarded, **kwargs)  # type: ignore[misc]

    def set_interval(self, interval: float, callback: Any = None, **kwargs: Any) -> Any:
        guarded = None if callback is None else guard_callback(self, callback)  # type: ignore[arg-type]
        return super().set_interval(interval, guarded, **kwargs)  # type: ignore[misc]

    def call_later(self, callback: Any, *args: Any, **kwargs: Any) -> Any:
        return super().call_later(guard_callback(self, callback), *args, **kwargs)  # type: ignore[misc, arg-type]

    def call_after_refresh(self, callback: Any, *args: Any, **kwargs: Any) -> Any:
        return super().call_after_refresh(guard_callback(self, callback), *args, **kwargs)  # type: ignore[misc, arg-type]

    def call_next(self, callback: Any, *args: Any, **kwargs: Any) -> Any:
        return super().call_next(guard_callback(self, callback), *args, **kwargs)  # type: ignore[misc, arg-type]

    async def on_event(self, event: Any) -> None:
        await guarded_event(self, super().on_event(event))  # type: ignore[misc, arg-type]

    if TYPE_CHECKING:

        @property
        def app(self) -> HostApp: ...

    @property
    def runtime(self) -> Runtime:
        """The sandbox, listener and client this app works with."""
        return self.app.runtime
