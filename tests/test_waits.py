"""The suite's one wait (`tests.waits.until`): it goes on the moment its condition holds, and
at its one deadline it says what it waited for."""

from __future__ import annotations

import asyncio

import pytest

from tests import waits
from tests.waits import awaited, until, until_sync


async def test_it_returns_what_the_condition_gave_once_it_holds() -> None:
    seen: list[int] = []

    def third() -> list[int] | None:
        seen.append(len(seen))
        return seen if len(seen) == 3 else None

    assert await until(third) == [0, 1, 2]

    async def checked() -> str:  # a coroutine function is awaited
        return "yes"

    assert await until(checked) == "yes"
    assert until_sync(lambda: 7) == 7


async def test_a_hang_says_what_was_awaited_and_what_was_seen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(waits, "HANG", 0.05)
    screen = "Payments"
    with pytest.raises(AssertionError) as hung:
        await until(lambda: "Customers" in screen and bool(screen))
    assert str(hung.value) == 'waited 0.05 s for "Customers" in screen and bool(screen)'
    with pytest.raises(AssertionError) as hung:
        await until(lambda: False, "the listener's first event", detail=lambda: f"shown: {screen}")
    assert str(hung.value) == "waited 0.05 s for the listener's first event; shown: Payments"
    with pytest.raises(AssertionError, match=r"for never\(\) \(Never holds\.\)"):

        def never() -> bool:
            """Never holds."""
            return False

        until_sync(never)


async def test_awaited_gives_the_result_or_says_what_hung(monkeypatch: pytest.MonkeyPatch) -> None:
    done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    done.set_result(3)
    assert await awaited(done) == 3
    monkeypatch.setattr(waits, "HANG", 0.05)
    with pytest.raises(AssertionError, match=r"^waited 0.05 s for the listener's line$"):
        await awaited(asyncio.Event().wait(), "the listener's line")
