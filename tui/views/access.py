"""`AppAccess`: the typed way a widget or screen reaches the app and its runtime.

Textual types `self.app` as a plain `App`; payscope's widgets need `PayscopeApp` (its signals,
`goto`, `runtime`). Mixed in before the Textual base, it changes nothing at run time: it only
tells the type checker which app this is, in one place (posting's `cast("Posting", self.app)`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.app import PayscopeApp
    from tui.runtime import Runtime


class AppAccess:
    """`app` typed as `PayscopeApp`, and `runtime` (the sandbox, listener and client).

    The classes that mix it in say `# type: ignore[misc]`: Textual types `app` as `App[object]`,
    and `App` is invariant in its return type, so the checker calls the narrower type
    incompatible although every payscope node runs in a `PayscopeApp`.
    """

    if TYPE_CHECKING:

        @property
        def app(self) -> PayscopeApp: ...

    @property
    def runtime(self) -> Runtime:
        """The sandbox, listener and client this app works with."""
        return self.app.runtime
