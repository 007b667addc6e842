"""The suite's one wait (`tests.waits.until`): it goes on the moment its condition holds, and
at its one deadline it says what it waited for."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

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


# httpx's module functions and clients that talk over the network (a `transport=` given is the
# test's own, in-process: no time passes on a wire).
_HTTPX_CALLS = {"Client", "AsyncClient", "get", "post", "put", "patch", "delete", "head"}
_HTTPX_CALLS |= {"options", "request", "stream"}


def _httpx_calls_left_to_its_default_timeout(source: str) -> list[int]:
    """The lines of `source` where an httpx client is made, or a request sent, with httpx's
    own 5 s timeout: neither `timeout=` nor `transport=` given."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        func = node.func
        if not (isinstance(func.value, ast.Name) and func.value.id == "httpx"):
            continue
        given = {keyword.arg for keyword in node.keywords}
        if func.attr in _HTTPX_CALLS and not given & {"timeout", "transport"}:
            lines.append(node.lineno)
    return lines


def test_the_check_finds_a_client_or_a_request_left_to_httpxs_own_timeout() -> None:
    source = (
        "httpx.AsyncClient(base_url=url)\n"
        "httpx.get(url, headers=h)\n"
        "httpx.AsyncClient(timeout=REQUEST_TIMEOUT, base_url=url)\n"
        "httpx.post(url, timeout=5.0)\n"
        "httpx.AsyncClient(transport=httpx.ASGITransport(app))\n"
        "httpx.Timeout(5.0)\n"
    )
    assert _httpx_calls_left_to_its_default_timeout(source) == [1, 2]


def test_every_http_client_and_request_in_the_suite_waits_as_long_as_any_wait() -> None:
    """httpx's default timeout (5 s) made an answer that a loaded machine gave late a failure
    that named a timeout (test_freshness's clock test, under 5 workers on 2 cores)."""
    root = Path(__file__).resolve().parent
    left = {
        f"{path.relative_to(root.parent)}:{line}"
        for path in sorted(root.rglob("*.py"))
        for line in _httpx_calls_left_to_its_default_timeout(path.read_text(encoding="utf-8"))
    }
    assert not left, f"give these timeout=REQUEST_TIMEOUT (tests/waits.py): {sorted(left)}"
