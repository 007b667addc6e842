"""Helpers shared by the pilot tests of forms, events and settings (not a test module)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

import pytest

_CARD = {
    "card_exp_month": "12",
    "card_exp_year": "2030",
    "card_cvc": "123",
    "card_holder_name": "Test Customer",
}
_BILLING = {"address": {"line1": "1 Test Street", "city": "Testville", "country": "US"}}


async def type_text(pilot: Any, text: str) -> None:
    """Type `text` into what has the focus: the key events `pilot.press(*text)` sends, posted
    the same way and in the same order, with one wait at the end instead of one per key.

    `press` waits for the process to go idle twice after every key (at least 40 ms, 60-200 ms
    on a busy machine), so typing an id cost seconds. Here the keys are queued at once; the app
    hands them in order to the focused widget. The first pause lets the app pass them all on,
    the second that the widget (and what it told its parents) handled them and all is idle.
    """
    import unicodedata

    from textual import events
    from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

    app = pilot.app
    for character in text:
        # The key and character `App._press_keys` makes of a one-character key.
        key = character if character.isalnum() else _character_to_key(character)
        char: str | None
        try:
            char = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
        except KeyError:
            char = key if len(key) == 1 else None
        event = events.Key(key, char)
        event.set_sender(app)
        app.post_message(event)
    await pilot.pause()
    await pilot.pause()


async def run_command(pilot: Any, text: str) -> None:
    """Run `:text` the way a user types it: `:`, the text, Enter."""
    await pilot.press("colon")
    await type_text(pilot, text)
    await pilot.press("enter")


async def until(condition: Callable[[], Any], timeout: float = 10.0) -> None:
    """Wait for `condition()` to hold (the app keeps running meanwhile); fail after `timeout`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


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
    from tui.api.models.payments import PaymentCreateRequest

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
    from tui.areas.payments.detail import PaymentDetailScreen

    app = pilot.app
    await run_command(pilot, f"pay {payment_id}")
    await until(lambda: isinstance(app.screen, PaymentDetailScreen))
    screen = app.screen
    await until(lambda: screen.payment is not None and not screen.busy)
    await pilot.pause()
    return screen


async def submit(pilot: Any, form_type: type) -> None:
    """Send the open form (Ctrl+S) and wait until it closed."""
    app = pilot.app
    await until(lambda: isinstance(app.screen, form_type))
    await pilot.press("ctrl+s")
    await until(lambda: not isinstance(app.screen, form_type))


def field_error(screen: Any, name: str) -> str:
    """The error shown under a form field ("" when none is shown)."""
    line = screen.query_one(f"#error-{name}")
    return str(line.render()) if line.has_class("-shown") else ""


# The four looks every snapshot is taken in: two sizes, a dark and a light theme.
LOOKS = [
    pytest.param(((120, 40), "payscope-dark"), id="120x40-dark"),
    pytest.param(((120, 40), "payscope-light"), id="120x40-light"),
    pytest.param(((80, 24), "payscope-dark"), id="80x24-dark"),
    pytest.param(((80, 24), "payscope-light"), id="80x24-light"),
]


# Every look of one screen, taken in one run of the app: {looks_key: {(size, theme): svg}}.
_SHOTS: dict[str, dict[Any, str]] = {}


def looks_key(item: Any) -> str:
    """What the looks of one screen share: the test and its parameters but the look."""
    params = sorted(f"{k}={v}" for k, v in item.callspec.params.items() if k != "look")
    # Also an xdist group name, which xdist appends to the node id: no "::" (syrupy would read
    # a class name out of it) and no brackets.
    return ".".join([item.module.__name__, item.originalname, *params])


async def _take_looks(app: Any, run_before: Callable[[Any], Any]) -> dict[Any, str]:
    """Run the app once in the first look, then switch theme and size for each look in turn
    (as a user does with `:theme` or by resizing the terminal) and take its screenshot."""
    shots: dict[Any, str] = {}
    async with app.run_test(size=LOOKS[0].values[0][0]) as pilot:
        await run_before(pilot)
        # Dark, light, light smaller, dark smaller: two theme changes (each restyles every
        # widget) rather than the three of the parameters' order.
        for look in (LOOKS[0], LOOKS[1], LOOKS[3], LOOKS[2]):
            size, theme = look.values[0]
            if app.theme != theme:
                app.theme = theme
            if tuple(app.size) != size:
                await pilot.resize_terminal(*size)
            # What `take_svg_screenshot` waits for before its shot.
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            await pilot.pause()
            shots[look.values[0]] = app.export_screenshot(title=app.title, simplify=True)
        # The last shot drew the whole last frame: the pilot's own last frame
        # (`_last_frame_drawn` in tests/tui/conftest.py) would draw it again.
        app._payscope_last_frame_drawn = True
    return shots


def compare_in_looks(
    snap_compare: Any,
    request: Any,
    monkeypatch: pytest.MonkeyPatch,
    build_app: Callable[[str], Any],
    run_before: Callable[[Any], Any],
    *,
    separate: bool = False,
) -> bool:
    """`snap_compare` for a test parametrized by `look` (one of LOOKS), with the
    app run once per screen rather than once per look (tests call it as the `snap_looks`
    fixture of `tests/tui/conftest.py`).

    The first look of a screen to run builds the app in the first look (`build_app(theme)`),
    drives it with `run_before`, and takes all four screenshots, switching theme and terminal
    size between them; the other looks compare their stored shot. So every light snapshot also
    checks that a theme chosen at run time redraws everything (it must equal an app started in
    that theme), and every 80x24 one that a resize lays the screen out again. The looks of a
    screen share an xdist group (`tests/tui/conftest.py`), so one worker runs them.
    """
    import asyncio

    import textual._doc
    from textual.app import App

    params = request.node.callspec.params
    size, theme = params["look"]
    if separate:  # a screen that a resize or a theme change rightly leaves otherwise
        return bool(snap_compare(build_app(theme), terminal_size=size, run_before=run_before))
    key = looks_key(request.node)
    shots = _SHOTS.get(key)
    if shots is None:
        first_theme = LOOKS[0].values[0][1]
        shots = _SHOTS[key] = asyncio.run(_take_looks(build_app(first_theme), run_before))
    shot = shots[params["look"]]
    monkeypatch.setattr(textual._doc, "take_svg_screenshot", lambda **_options: shot)
    return bool(snap_compare(App(), terminal_size=size))


def shown_text(widget: Any) -> str:
    """What a Static shows, as plain text (a Rich renderable printed 200 cells wide)."""
    import io

    from rich.console import Console

    if isinstance(widget.content, str):
        return str(widget.render())  # markup, as shown
    console = Console(width=200, record=True, color_system=None, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


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
    await until(lambda: isinstance(app.screen, screen_type))
    screen = app.screen
    assert isinstance(screen, screen_type)
    await until(lambda: screen.record is not None and not screen.busy)
    await app.workers.wait_for_complete()
    await pilot.pause()
    return screen
