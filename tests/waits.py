"""The suite's one wait: `until` a condition holds, with one deadline that only catches a hang.

A test waits for the event it needs (a message arrived, a screen is shown, a line was logged),
never for the clock: the condition is checked while the app, the sandbox and the listeners keep
running, and the test goes on the moment it holds, however slow the machine is. The deadline
(`HANG`) is the same everywhere and far beyond what any wait takes on a loaded machine; when it
is reached the failure says what was awaited (the `what` given, or the condition's own source)
and, when asked, what was seen instead.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import linecache
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from payscope.core.waiting import within

# Seconds. A wait that takes this long is a hang on any machine (on a loaded one the waits take
# seconds, not minutes). PAYSCOPE_TEST_HANG shortens it to find a hang sooner.
HANG = float(os.environ.get("PAYSCOPE_TEST_HANG", "180"))
# Seconds an HTTP client a test makes waits for an answer: as long, as the answer is an event
# too. httpx's own default (5 s) is a speed limit: on a loaded machine a sandbox's or a
# listener's answer can take longer than that and the test failed for a reason it does not name
# (tests/test_waits.py keeps every client and call in the suite to it).
REQUEST_TIMEOUT = HANG
_POLL = 0.02


def described(check: Callable[..., Any]) -> str:
    """What `check` waits for, in words: a lambda's own source text, else its name (and the
    first line of its docstring)."""
    name = getattr(check, "__name__", repr(check))
    if name != "<lambda>":
        doc = (inspect.getdoc(check) or "").split("\n", 1)[0]
        return f"{name}(){f' ({doc})' if doc else ''}"
    code = check.__code__
    lines = linecache.getlines(code.co_filename)[code.co_firstlineno - 1 :][:12]
    text = "".join(lines)
    start = text.find("lambda")
    if start < 0:
        return "a condition"
    text = text[start:]
    # The longest text from `lambda` on that reads as one lambda (what follows it is the call's).
    for end in range(len(text), 0, -1):
        candidate = f"({text[:end]})"
        try:
            tree = ast.parse(candidate, mode="eval")
        except SyntaxError:
            continue
        if isinstance(tree.body, ast.Lambda):
            body = ast.get_source_segment(candidate, tree.body.body) or text[:end]
            return " ".join(body.split())
    return " ".join(lines[0].split())


def _failure(check: Callable[..., Any], what: str | None, detail: Callable[[], Any] | None) -> str:
    said = f"waited {HANG:g} s for {what or described(check)}"
    if detail is not None:
        said += f"; {detail()}"
    return said


async def until(
    check: Callable[[], Any | Awaitable[Any]],
    what: str | None = None,
    *,
    detail: Callable[[], Any] | None = None,
) -> Any:
    """Wait until `check()` is true (it may be a coroutine function) and return what it gave;
    fail after `HANG` seconds saying what was awaited (`what`, else the condition's source)
    and, if `detail` is given, what `detail()` says was seen instead."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + HANG
    while True:
        value = check()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(_failure(check, what, detail))
        await asyncio.sleep(_POLL)


def until_sync(
    check: Callable[[], Any], what: str | None = None, *, detail: Callable[[], Any] | None = None
) -> Any:
    """`until` for a test with no event loop (a process to exit, a file to appear)."""
    deadline = time.monotonic() + HANG
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(_failure(check, what, detail))
        time.sleep(_POLL)


async def awaited(awaitable: Awaitable[Any], what: str | None = None) -> Any:
    """What `awaitable` gives (a read, a process's end, a future), with the one deadline."""
    try:
        return await within(awaitable, HANG)
    except TimeoutError:
        raise AssertionError(f"waited {HANG:g} s for {what or 'an awaited result'}") from None


def on_screen(app: Any, kind: type | tuple[type, ...]) -> bool:
    """`app` shows a screen of `kind` that is composed and mounted, so its widgets can be
    queried (a screen is current as soon as it is pushed, before it has composed)."""
    screen = app.screen
    return isinstance(screen, kind) and screen.is_mounted
