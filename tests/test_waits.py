"""The suite's one wait (`tests.waits.until`): it goes on the moment its condition holds, and
at its one deadline it says what it waited for."""

from __future__ import annotations

import ast
import asyncio
import functools
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
# The code under test's own timeouts (a webhook sender's), which its tests set on purpose.
_OWN_TIMEOUTS = {"Sender", "sender"}
ROOT = Path(__file__).resolve().parent


@functools.cache
def _suite() -> dict[str, str]:
    """Every module of the suite's source, by its path (this one's own examples left out)."""
    return {
        str(path.relative_to(ROOT.parent)): path.read_text(encoding="utf-8")
        for path in sorted(ROOT.rglob("*.py"))
        if path.name not in ("test_waits.py", "waits.py")
    }


@functools.cache
def _tree(source: str) -> ast.Module:
    return ast.parse(source)  # once for both checks


def _name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _is_httpx(call: ast.Call) -> bool:
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and _name(func.value) == "httpx"
        and func.attr in _HTTPX_CALLS
    )


def _number(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _grace_periods(tree: ast.AST) -> set[int]:
    """The nodes inside a `try` whose `TimeoutExpired` handler kills the process: a stop's grace
    period before the kill, not a wait that decides an outcome."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            handler.type is not None
            and "TimeoutExpired" in ast.unparse(handler.type)
            and any(isinstance(c, ast.Call) and _name(c.func) == "kill" for c in ast.walk(handler))
            for handler in node.handlers
        ):
            inside.update(id(n) for statement in node.body for n in ast.walk(statement))
    return inside


def _httpx_calls_left_to_its_default_timeout(source: str) -> list[int]:
    """The lines of `source` where an httpx client is made, or a request sent, with httpx's
    own 5 s timeout: neither `timeout=` nor `transport=` given."""
    return [
        node.lineno
        for node in ast.walk(_tree(source))
        if isinstance(node, ast.Call)
        and _is_httpx(node)
        and not {keyword.arg for keyword in node.keywords} & {"timeout", "transport"}
    ]


def _deadlines_of_their_own(source: str) -> list[int]:
    """The lines of `source` that give a wait a number of seconds of its own instead of the one
    deadline (`HANG`, `REQUEST_TIMEOUT`): a `timeout=` argument or default, `wait_for`'s and
    `wait`'s seconds. A line that says "not a deadline" is one that nothing may answer."""
    tree = _tree(source)
    grace = _grace_periods(tree)
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and id(node) not in grace
            and _name(node.func) not in _OWN_TIMEOUTS
        ):
            found += [k.value for k in node.keywords if k.arg == "timeout"]
            if _name(node.func) == "wait_for" and len(node.args) == 2:
                found.append(node.args[1])
            if _name(node.func) == "wait" and len(node.args) == 1:
                found.append(node.args[0])
        elif (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name not in _OWN_TIMEOUTS
        ):
            arguments = [*node.args.posonlyargs, *node.args.args]
            defaults = zip(
                arguments[len(arguments) - len(node.args.defaults) :],
                node.args.defaults,
                strict=True,
            )
            named = zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True)
            found += [value for arg, value in (*defaults, *named) if arg.arg == "timeout" and value]
    lines = source.splitlines()
    return sorted(
        n.lineno for n in found if _number(n) and "not a deadline" not in lines[n.lineno - 1]
    )


def test_the_checks_find_a_client_left_to_httpxs_timeout_and_a_deadline_of_its_own() -> None:
    source = (
        "httpx.AsyncClient(base_url=url)\n"
        "httpx.get(url, headers=h)\n"
        "httpx.AsyncClient(timeout=REQUEST_TIMEOUT, base_url=url)\n"
        "httpx.post(url, timeout=5.0)\n"
        "httpx.AsyncClient(transport=httpx.ASGITransport(app))\n"
        "httpx.Timeout(5.0)\n"
        "proc.communicate(timeout=10)\n"
        "asyncio.wait_for(task, 2.0)\n"
        "proc.wait(15)\n"
        "def run(*args, timeout: float = 60): ...\n"
        "proc.communicate(timeout=HANG)\n"
        "sender(timeout=0.3)\n"
        "httpx.get(url, timeout=2)  # not a deadline: nothing may answer\n"
        "try:\n"
        "    proc.wait(5)\n"
        "except subprocess.TimeoutExpired:\n"
        "    proc.kill()\n"
    )
    assert _httpx_calls_left_to_its_default_timeout(source) == [1, 2]
    assert _deadlines_of_their_own(source) == [4, 7, 8, 9, 10]


def test_every_http_client_and_request_in_the_suite_waits_as_long_as_any_wait() -> None:
    """httpx's default timeout (5 s) made an answer that a loaded machine gave late a failure
    that named a timeout (test_freshness's clock test, under 5 workers on 2 cores)."""
    left = [
        f"{path}:{line}"
        for path, source in _suite().items()
        for line in _httpx_calls_left_to_its_default_timeout(source)
    ]
    assert not left, f"give these timeout=REQUEST_TIMEOUT (tests/waits.py): {left}"


def test_every_wait_in_the_suite_has_the_one_deadline() -> None:
    """A wait given seconds of its own (10 s for a process to exit, 20 s for an answer) fails on a
    machine slow enough, for a reason it does not name; the one deadline only catches a hang."""
    own = [
        f"{path}:{line}"
        for path, source in _suite().items()
        for line in _deadlines_of_their_own(source)
    ]
    assert not own, f"give these HANG or REQUEST_TIMEOUT (tests/waits.py): {own}"
