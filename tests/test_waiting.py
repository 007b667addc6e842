"""`wait_or_wake` and `within`: what waits with them stops when it is cancelled, even as it is
woken or answered."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

from payscope.core.waiting import wait_or_wake, within
from tests.waits import awaited


async def test_woken_or_timed_out() -> None:
    wake = asyncio.Event()
    assert await wait_or_wake(wake, 0.01) is False
    wake.set()
    assert await wait_or_wake(wake, 10.0) is True


async def test_a_cancel_that_comes_with_the_wake_is_not_lost() -> None:
    """asyncio.wait_for on Python 3.11 loses it: the forwarder of `payscope listen` then ran
    on after Ctrl+C, and the listener hung."""
    wake = asyncio.Event()
    turns = 0

    async def loop() -> None:
        nonlocal turns
        while True:
            turns += 1
            wake.clear()
            await wait_or_wake(wake, 60.0)

    for _ in range(20):
        task = asyncio.create_task(loop())
        await asyncio.sleep(0)  # the loop waits
        wake.set()  # woken and cancelled in the same turn of the event loop
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await awaited(task)


async def test_within_gives_the_result_or_times_out_and_never_loses_a_cancel() -> None:
    """`within` in place of asyncio.wait_for, which on Python 3.11 returns the result when the
    cancel comes in the same turn as it: a Ctrl+C during `payscope export` was lost that way."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    done.set_result("answer")
    assert await within(done, 1.0) == "answer"
    with pytest.raises(TimeoutError):
        await within(loop.create_future(), 0.01)
    for _ in range(20):
        answer = loop.create_future()
        task = asyncio.create_task(within(answer, 60.0))
        await asyncio.sleep(0)  # it awaits the answer
        answer.set_result("page")  # the answer and the cancel in the same turn
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


def test_the_package_awaits_with_a_time_limit_only_through_within() -> None:
    package = Path(__file__).resolve().parents[1] / "tui" / "payscope"
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = node.func if isinstance(node, ast.Call) else None
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "wait_for"
                and isinstance(func.value, ast.Name)
                and func.value.id == "asyncio"
            ):
                found.append(f"{path.relative_to(package.parent)}:{node.lineno}")
    assert not found, f"asyncio.wait_for can lose a cancel on 3.11; use within: {found}"
