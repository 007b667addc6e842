"""`tui.fast_dispatch`: the handlers found for each message are the ones Textual finds."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import pytest
import textual._callback as callback_module
from textual import on
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.message_pump import MessagePump
from textual.widget import Widget
from textual.widgets import Button

from tests.tui.pilot import create_payment, open_detail, open_list, run_command, type_text, until
from tests.tui.snapshot_app import build, ready
from tui import app as _app  # noqa: F401  (installs it, as the app does)
from tui.fast_dispatch import (
    TEXTUAL_COUNT_PARAMETERS,
    TEXTUAL_GET_DISPATCH_METHODS,
    _count_parameters,
    _get_dispatch_methods,
)


def test_the_app_installs_it() -> None:
    assert MessagePump._get_dispatch_methods is _get_dispatch_methods
    assert callback_module._count_parameters is _count_parameters
    assert TEXTUAL_GET_DISPATCH_METHODS is not _get_dispatch_methods


async def test_every_message_of_a_session_finds_what_textual_finds(
    dirs: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both lookups, side by side, for every message the app handles in a session that starts,
    lists, filters, opens a detail, types into a form and quits."""
    compared: set[tuple[type, type, str]] = set()
    mismatches: list[str] = []

    def both(self: Any, method_name: str, message: Any) -> Iterator[Any]:
        theirs = list(TEXTUAL_GET_DISPATCH_METHODS(self, method_name, message))
        ours = list(_get_dispatch_methods(self, method_name, message))
        compared.add((type(self), type(message), method_name))
        if ours != theirs:
            mismatches.append(f"{type(self).__name__} {type(message).__name__}: {ours} {theirs}")
        yield from _get_dispatch_methods(self, method_name, message)

    monkeypatch.setattr(MessagePump, "_get_dispatch_methods", both)
    from tui.areas.customers.view import CustomersView
    from tui.areas.payments.detail import PaymentDetailScreen
    from tui.areas.payments.forms import NewPaymentScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        created = await create_payment(app.runtime.client, capture_method="manual")
        await open_list(pilot, "customers", CustomersView, start=False)
        await run_command(pilot, "payments")
        await pilot.press("slash")
        await type_text(pilot, "status:succeeded")
        await pilot.press("enter")
        await pilot.pause()
        screen = await open_detail(pilot, created.payment_id)
        assert isinstance(screen, PaymentDetailScreen)
        await pilot.press("escape")
        await pilot.press("n")
        await until(lambda: isinstance(app.screen, NewPaymentScreen))
        await type_text(pilot, "4242")
        await pilot.press("escape")
        await pilot.pause()
    assert not mismatches, mismatches[:5]
    # Widgets, screens and the app, with handlers by name and by `@on`, decorated and not.
    assert len(compared) > 300
    assert len({pump for pump, _, _ in compared}) > 25


class Ping(Message):
    pass


class Base(Widget):
    def __init__(self, calls: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.calls = calls

    def on_ping(self, message: Ping) -> None:
        self.calls.append("base")


class Prevents(Base):
    def on_ping(self, message: Ping) -> None:
        self.calls.append("prevents")
        message.prevent_default()


class Passes(Base):
    def _on_ping(self, message: Ping) -> None:
        self.calls.append("passes")


class Decorated(Widget):
    def __init__(self, calls: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.calls = calls

    @on(Ping)
    def on_ping(self, message: Ping) -> None:  # named by the convention too: called once
        self.calls.append("decorated")


class Buttons(Vertical):
    def __init__(self, calls: list[str]) -> None:
        super().__init__()
        self.calls = calls

    def compose(self) -> ComposeResult:
        yield Button("ok", id="ok")
        yield Button("no", id="no")

    @on(Button.Pressed, "#ok")
    def ok(self, message: Button.Pressed) -> None:
        self.calls.append("ok")

    @on(Button.Pressed)
    def any_button(self, message: Button.Pressed) -> None:
        self.calls.append(f"any {message.button.id}")

    def on_button_pressed(self, message: Button.Pressed) -> None:
        self.calls.append("by name")  # after the class's `@on` handlers, as Textual does


class Pings(App[None]):
    CSS = "Base, Decorated { height: 1; }"

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def compose(self) -> ComposeResult:
        yield Prevents(self.calls, id="prevents")
        yield Passes(self.calls, id="passes")
        yield Decorated(self.calls, id="decorated")
        yield Buttons(self.calls)


async def test_prevent_default_and_selectors_are_checked_for_each_message() -> None:
    app = Pings()
    async with app.run_test(size=(40, 12)) as pilot:
        for _ in range(2):  # the second time from the plans kept
            app.calls.clear()
            app.query_one(Prevents).post_message(Ping())
            app.query_one(Passes).post_message(Ping())
            app.query_one(Decorated).post_message(Ping())
            await pilot.pause()
            assert sorted(app.calls) == ["base", "decorated", "passes", "prevents"]
            app.calls.clear()
            await pilot.click("#ok")
            await pilot.click("#no")
            await pilot.pause()
            assert app.calls == [
                "ok",
                "any ok",
                "by name",
                "any no",
                "by name",
            ]


def test_parameters_are_counted_as_inspect_counts_them() -> None:
    def make(n: int) -> Any:
        return [lambda: 0, lambda a: 0, lambda a, b=1, *c, d, **e: 0][n]

    for n, expected in [(0, 0), (1, 1), (2, 5), (1, 1), (0, 0)]:
        assert _count_parameters(make(n)) == expected == TEXTUAL_COUNT_PARAMETERS(make(n))

    def takes_one(a: int) -> None: ...

    def takes_two(a: int, b: int) -> None: ...

    def decorate(func: Any) -> Any:
        @functools.wraps(func)
        def wrapper(*args: Any) -> None: ...

        return wrapper

    # Every wrapper a decorator makes shares its code; each counts as what it wraps (inspect
    # follows __wrapped__). A partial and a method go to Textual's own counting.
    assert _count_parameters(decorate(takes_one)) == 1
    assert _count_parameters(decorate(takes_two)) == 2
    assert _count_parameters(functools.partial(takes_two, 1)) == 1
    assert _count_parameters(Base.on_ping) == 2
