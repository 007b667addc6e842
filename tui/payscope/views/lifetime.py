"""Work that outlives its screen does nothing.

A screen starts work that ends later: a worker waiting for the sandbox's answer, a timer, a
callback after the next refresh, its own `on_mount` while its children mount. The person may
close the screen first (Esc, another area, quitting). Textual cancels a node's workers and stops
its timers when the node is unmounted, but a screen closes from the top down: between the moment
it leaves the screen stack and the moment each of its widgets is unmounted, work of theirs can
still run and find its widgets gone (`NoMatches`), and an error in a worker ends the app.

`gone(node)` says whether the screen `node` is on has closed (or is closing). Every payscope
screen and view (`AppAccess`) starts its workers, timers and callbacks through `guard_work` and
`guard_callback`, and handles its events through `guarded_event`: work of a screen that has
gone is not started, and an error raised by it once its screen has gone is dropped (the person
has left: there is nothing to tell). While the screen is open, an error is raised as before.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from textual.dom import DOMNode
from textual.screen import Screen


def gone(node: DOMNode) -> bool:
    """True when `node` is no longer in the app's DOM, or the screen it is on has left the
    screen stack (it closes), or the app is exiting."""
    if not node.is_attached:
        return True
    screen: DOMNode | None = node
    while screen is not None and not isinstance(screen, Screen):
        screen = screen.parent
    if screen is None:
        return False  # the app itself: it lives as long as the program
    return screen not in node.app.screen_stack


def guard_work(node: DOMNode, work: Any) -> Any:
    """`work` (a coroutine, an awaitable, an async or a plain function, as `run_worker` takes)
    that does nothing once `node`'s screen has gone."""
    if inspect.iscoroutinefunction(work) or (
        isinstance(work, functools.partial) and inspect.iscoroutinefunction(work.func)
    ):

        async def run_async() -> Any:
            if gone(node):
                return None
            try:
                return await work()
            except Exception:
                if gone(node):
                    return None
                raise

        return run_async
    if inspect.isawaitable(work):

        async def run_awaitable() -> Any:
            if gone(node):
                if inspect.iscoroutine(work):
                    work.close()  # never started: not a "coroutine was never awaited"
                return None
            try:
                return await work
            except Exception:
                if gone(node):
                    return None
                raise

        return run_awaitable
    if callable(work):

        def run() -> Any:
            if gone(node):
                return None
            try:
                return work()
            except Exception:
                if gone(node):
                    return None
                raise

        return run
    return work


def guard_callback(node: DOMNode, callback: Callable[..., Any]) -> Callable[..., Any]:
    """`callback` (plain or async, as Textual's timers and `call_later` take it) that does
    nothing once `node`'s screen has gone."""
    if inspect.iscoroutinefunction(callback):

        async def run_async(*args: Any, **kwargs: Any) -> Any:
            if _dropped(node):
                _drop(callback)
                return None
            try:
                return await callback(*args, **kwargs)
            except Exception:
                if gone(node):
                    return None
                raise

        return run_async

    def run(*args: Any, **kwargs: Any) -> Any:
        if _dropped(node):
            _drop(callback)
            return None
        try:
            result = callback(*args, **kwargs)
        except Exception:
            if gone(node):
                return None
            raise
        if inspect.isawaitable(result):
            return _awaited(node, result)
        return result

    return run


def _dropped(node: DOMNode) -> bool:
    """A callback of a screen that has gone is not run, unless the app is exiting: then every
    callback still runs (what waits for them, such as a test's pilot, is told), and an error it
    raises is dropped."""
    return gone(node) and node.app.return_code is None


def _drop(callback: Callable[..., Any]) -> None:
    """A callback not run may hold a coroutine made for it (a watcher's, awaited by a partial):
    closed, as it will never be awaited."""
    if isinstance(callback, functools.partial):
        for held in (*callback.args, *callback.keywords.values()):
            if inspect.iscoroutine(held):
                held.close()


async def _awaited(node: DOMNode, result: Awaitable[Any]) -> Any:
    try:
        return await result
    except Exception:
        if gone(node):
            return None
        raise


async def guarded_event(node: DOMNode, handle: Awaitable[None]) -> None:
    """Handle an event (`handle`: the base class's `on_event`); an error raised once `node`'s
    screen has gone (a `Mount` handled as the screen closes) is dropped."""
    try:
        await handle
    except Exception:
        if gone(node):
            return
        raise
