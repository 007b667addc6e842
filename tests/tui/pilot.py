"""Helpers shared by the pilot tests of forms, events and settings (not a test module)."""

from __future__ import annotations

import os
from typing import Any, TypeVar

import pytest

from payscope.widgets.keys import key_name
from tests.waits import on_screen
from tests.waits import until as until  # the suite's one wait, for the pilot tests too

_CARD = {
    "card_exp_month": "12",
    "card_exp_year": "2030",
    "card_cvc": "123",
    "card_holder_name": "Test Customer",
}
_BILLING = {"address": {"line1": "1 Test Street", "city": "Testville", "country": "US"}}


async def type_text(pilot: Any, text: str) -> None:
    """Type `text` into what has the focus, as a terminal sends it: one key event per character,
    posted to the app in order (what Textual's driver does with a user's keys), with one wait at
    the end instead of the two `pilot.press` makes after every key (at least 40 ms each, 60-200
    ms on a busy machine: typing an id cost seconds). The first pause lets the app pass the keys
    on, the second lets the widget (and what it told its parents) handle them."""
    from textual import events

    app = pilot.app
    for character in text:
        event = events.Key(key_name(character), character)
        event.set_sender(app)
        app.post_message(event)
    await pilot.pause()
    await pilot.pause()


async def run_command(pilot: Any, text: str) -> None:
    """Run `:text` the way a user types it: `:`, the text, Enter."""
    await pilot.press("colon")
    await type_text(pilot, text)
    await pilot.press("enter")


async def create_payment(
    client: Any,
    *,
    card: str = "4242424242424242",
    amount: int = 4200,
    capture_method: str = "automatic",
    confirm: bool = True,
    authentication_type: str = "no_three_ds",
    payment_id: str | None = None,
) -> Any:
    """A payment made through the client (the tests then act on it through the screens)."""
    from payscope.api.models.payments import PaymentCreateRequest

    body: dict[str, Any] = {
        "amount": amount,
        "currency": "USD",
        "capture_method": capture_method,
        "authentication_type": authentication_type,
        "confirm": confirm,
        "return_url": "https://example.com/return",
    }
    if payment_id is not None:
        body["payment_id"] = payment_id
    if confirm:
        body |= {
            "payment_method": "card",
            "payment_method_type": "credit",
            "payment_method_data": {"card": {"card_number": card, **_CARD}},
            "billing": _BILLING,
        }
    return await client.payments.create(PaymentCreateRequest.model_validate(body))


async def open_detail(pilot: Any, payment_id: str) -> Any:
    """Open a payment's detail screen the way `:pay <id>` does, and wait for it to load."""
    from payscope.areas.payments.detail import PaymentDetailScreen

    app = pilot.app
    await run_command(pilot, f"pay {payment_id}")
    await until(lambda: on_screen(app, PaymentDetailScreen))
    screen = app.screen
    await until(lambda: screen.payment is not None and not screen.busy)
    await pilot.pause()
    return screen


async def submit(pilot: Any, form_type: type) -> None:
    """Send the open form (Ctrl+S) and wait until it closed."""
    app = pilot.app
    await until(lambda: on_screen(app, form_type))
    await pilot.press("ctrl+s")
    await until(lambda: not isinstance(app.screen, form_type))


def field_error(screen: Any, name: str) -> str:
    """The error shown under a form field ("" when none is shown)."""
    line = screen.query_one(f"#error-{name}")
    return str(line.render()) if line.has_class("-shown") else ""


# The four looks a snapshot can be taken in: two sizes, a dark and a light theme. Each look starts
# the app in that look (the `snap_looks` fixture of tests/tui/conftest.py).
ALL_LOOKS = [
    pytest.param(((120, 40), "payscope-dark"), id="120x40-dark"),
    pytest.param(((120, 40), "payscope-light"), id="120x40-light"),
    pytest.param(((80, 24), "payscope-dark"), id="80x24-dark"),
    pytest.param(((80, 24), "payscope-light"), id="80x24-light"),
]
# What a suite run takes: each size once and each theme once (the wide layout dark, the small one
# light), which leaves out only the crossed pairs (the wide layout light, the small one dark): a
# theme's colours do not depend on the terminal's size, and a layout not on the theme. Each app
# run costs about a second of CPU now that every frame is drawn, so the two crossed looks of the
# 40 screens were 80 s of CPU, a fifth of the suite's wall time on 2 cores.
# `PAYSCOPE_LOOKS=all` takes all four (run it when styles or layouts change); their snapshots are
# kept, and `--snapshot-update` with it refreshes them.
SUITE_LOOKS = ("120x40-dark", "80x24-light")
LOOKS = (
    ALL_LOOKS
    if os.environ.get("PAYSCOPE_LOOKS") == "all"
    else [look for look in ALL_LOOKS if look.id in SUITE_LOOKS]
)

# A look reached at run time, as a user reaches it with `:theme` or by resizing the terminal: the
# app starts in the first look (120x40, dark), is driven there, then switched to the light theme
# and 80x24. It must show what the app started in that look shows (its snapshot, `SWITCHED_TO`).
SWITCHED_TO = "80x24-light"
SWITCHED = pytest.param(
    ((80, 24), "payscope-light", "switched"), id=f"{SWITCHED_TO}-switched-at-run-time"
)
LOOKS_AND_SWITCHED = [*LOOKS, SWITCHED]


def shown_text(widget: Any) -> str:
    """What a Static shows, as plain text (a Rich renderable printed 200 cells wide)."""
    import io

    from rich.console import Console

    if isinstance(widget.content, str):
        return str(widget.render())  # markup, as shown
    console = Console(width=200, record=True, color_system=None, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def screen_text(app: Any) -> str:
    """The screen's text as Textual's own screenshot of it draws it (spaces as spaces)."""
    import html
    import re

    svg = app.export_screenshot()
    return html.unescape(" ".join(re.findall(r"<text [^>]*>([^<]*)</text>", svg))).replace(
        "\xa0", " "
    )


async def apply_filter(pilot: Any, view: Any, text: str) -> None:
    """Type a filter after `/` in a list area and wait until it is applied or refused."""
    await pilot.press("slash")
    box = view.query_one(".filter-box")
    box.value = text
    await pilot.press("enter")
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def filter_problem(view: Any) -> str:
    """What a list area says is wrong with the filter typed ("" when nothing)."""
    line = view.query_one(".filter-error")
    return str(line.render()) if line.has_class("-shown") else ""


V = TypeVar("V")
S = TypeVar("S")


async def open_list(pilot: Any, area: str, view_type: type[V], *, start: bool = True) -> V:
    """Start (unless `start` is False: already started), go to `:area` the way a user types it,
    and wait for the view of `view_type` to show its first page."""
    from tests.tui.snapshot_app import ready

    app = pilot.app
    if start:
        await ready(pilot)
    await run_command(pilot, area)
    view = app.screen.query_one(view_type)
    await until(lambda: bool(getattr(view, "loaded", False)))
    await app.workers.wait_for_complete()
    await pilot.pause()
    return view


async def open_record(pilot: Any, command: str, screen_type: type[S]) -> S:
    """Open a record the way `:<command>` does (e.g. `ref ref_123`), and wait for the detail
    screen of `screen_type` to load it."""
    app = pilot.app
    await run_command(pilot, command)
    await until(lambda: on_screen(app, screen_type))
    screen = app.screen
    assert isinstance(screen, screen_type)
    await until(lambda: screen.record is not None and not screen.busy)
    await app.workers.wait_for_complete()
    await pilot.pause()
    return screen


def stub_browser(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Stand in for the user's browser (the only stand-in): a display is said to be there, and
    every URL `webbrowser.open` is given is kept in the list returned instead of opened."""
    import webbrowser

    opened: list[str] = []

    def browser(url: str, new: int = 0, autoraise: bool = True) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", browser)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("BROWSER", raising=False)
    return opened
