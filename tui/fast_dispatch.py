"""Textual's message dispatch, with the handler lookup planned once per class pair.

For every message a widget handles, Textual's `MessagePump._get_dispatch_methods` walks the
widget's whole class hierarchy (a dozen classes for a table or an input), looking in each class
for handlers decorated with `@on` for the message's classes and for a method named after the
message, and `invoke` then asks `inspect.signature` how many arguments a handler takes whenever
it is not a method (a `partial` or a new closure handed to `call_later`, every time). The app
dispatches hundreds of messages a second while it works (`Idle`, `Callback`, `Update`,
`Layout`...); a profile of the TUI's tests put 5% of all their time in these two lookups.

Here the classes that have a handler for a (widget class, message class, handler name) are found
once and kept; dispatching walks only those, in the same order, checking `prevent_default` and
the `@on` selectors at each message exactly as Textual does (both can differ between two
messages of the same class). A plain function's parameter count is kept per code object. What
is found is what Textual finds: `tests/tui/test_fast_dispatch.py` compares both for every pair
the app meets. `install()` is idempotent; `tui.app` installs it on import.

Textual's classes and ours are not changed after they are made, so a plan cannot go stale; a
test that replaces a handler on a class (monkeypatch) must call `forget()`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import FunctionType
from typing import Any

import textual._callback as callback_module
from textual._on import OnNoWidget
from textual.css.match import match
from textual.css.model import SelectorSet
from textual.message import Message
from textual.message_pump import MessagePump
from textual.widget import Widget  # loaded already: `tui.app` imports this after Textual's app

TEXTUAL_GET_DISPATCH_METHODS = MessagePump._get_dispatch_methods
TEXTUAL_COUNT_PARAMETERS = callback_module._count_parameters

_Decorated = tuple[tuple[Callable[..., Any], dict[str, tuple[SelectorSet, ...]]], ...]
# One class of the widget's hierarchy that handles the message: its `@on` handlers (for the
# message's classes, in the message's own order) and its conventionally named method.
_Step = tuple[type, _Decorated, Callable[..., Any] | None]
_PLANS: dict[tuple[type, type, str], tuple[_Step, ...]] = {}
_COUNTS: dict[Any, int] = {}


def _plan(pump_type: type, message_type: type, method_name: str) -> tuple[_Step, ...]:
    """The classes of `pump_type` that handle `message_type`, as Textual looks them up."""
    message_mro = [kind for kind in message_type.__mro__ if issubclass(kind, Message)]
    steps: list[_Step] = []
    for cls in pump_type.__mro__:
        decorated: _Decorated = ()
        table = cls.__dict__.get("_decorated_handlers")
        if table:
            decorated = tuple(handler for kind in message_mro for handler in table.get(kind, ()))
        method = cls.__dict__.get(f"_{method_name}") or cls.__dict__.get(method_name)
        if method is not None and getattr(method, "_textual_on", None):
            method = None
        if decorated or method is not None:
            steps.append((cls, decorated, method))
    return tuple(steps)


def _get_dispatch_methods(
    self: MessagePump, method_name: str, message: Message
) -> Iterator[tuple[type, Callable[..., Any]]]:
    """`MessagePump._get_dispatch_methods`, walking only the classes that handle the message."""
    key = (self.__class__, message.__class__, method_name)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS[key] = _plan(*key)
    if not plan:
        return
    methods_dispatched: set[Callable[..., Any]] = set()
    for cls, decorated, method in plan:
        # Checked before each class, as Textual does: a handler may have prevented the rest.
        if message._no_default_action:
            break
        for handler, selectors in decorated:
            if handler in methods_dispatched:
                continue
            if not selectors:
                yield cls, handler.__get__(self, cls)
                methods_dispatched.add(handler)
                continue
            if not message._sender:
                continue
            for attribute, selector in selectors.items():
                node = getattr(message, attribute)
                if node is None:
                    break
                if not isinstance(node, Widget):
                    raise OnNoWidget(
                        f"on decorator can't match against {attribute!r} as it is not a widget."
                    )
                if not match(selector, node):
                    break
            else:
                yield cls, handler.__get__(self, cls)
                methods_dispatched.add(handler)
        if method is not None:
            yield cls, method.__get__(self, cls)


def _count_parameters(func: Callable[..., Any]) -> int:
    """`len(inspect.signature(func).parameters)`, kept per code object for plain functions
    (a lambda or closure made anew for each `call_later` shares its code with the last one)."""
    code = getattr(func, "__code__", None)
    if (
        code is None
        or type(func) is not FunctionType
        or hasattr(func, "__wrapped__")
        or hasattr(func, "__signature__")
    ):
        return TEXTUAL_COUNT_PARAMETERS(func)
    count = _COUNTS.get(code)
    if count is None:
        count = _COUNTS[code] = TEXTUAL_COUNT_PARAMETERS(func)
    return count


def forget() -> None:
    """Drop every plan (after a handler was replaced on a class)."""
    _PLANS.clear()


def install() -> None:
    """Use the planned lookups from now on (idempotent)."""
    MessagePump._get_dispatch_methods = _get_dispatch_methods  # type: ignore[method-assign]
    callback_module._count_parameters = _count_parameters
