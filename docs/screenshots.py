"""The pictures of the docs, drawn by payscope itself: `make screenshots` writes them.

Each picture is one run of the real app (`App.run_test(size=...)`, Textual's own
`export_screenshot`) on the same deterministic set-up as the snapshot tests: a copy of one
seeded sandbox (ids from a seeded generator, 40 payments spread evenly), its clock frozen at
2024-05-01 12:00 UTC, and the `STABLE` display policy hiding ports and receive times. Nothing is
drawn by hand. `tests/test_docs_pictures.py` draws them again and fails when one in docs/images/
no longer matches what the app draws (the SVG text compared as pytest-textual-snapshot
compares it), so a picture cannot go stale.

    python docs/screenshots.py            # every picture
    python docs/screenshots.py payments   # some of them, by name
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

# The snapshot tests' seeded sandbox and clock: one definition for both.
from tests.conftest import ids_seeded_with  # noqa: E402
from tests.tui.conftest import build_template, frozen_clock  # noqa: E402

Drive = Callable[[Any], Awaitable[None]]


class Shot(NamedTuple):
    """One picture: what the app is driven to before it is drawn, and at what size."""

    drive: Drive
    size: tuple[int, int] = (120, 40)
    theme: str = "payscope-dark"
    read_only: bool = False
    story: str | None = None  # a `payscope demo` story (TOML) the app plays, caption line and all


# -- driving the app as a user does ------------------------------------------------------------


async def settle(pilot: Any) -> None:
    """Wait until what was asked is done and drawn: workers finished (but a demo's player,
    which plays on), nothing scheduled."""
    app = pilot.app
    for _ in range(2):
        await pilot.pause()
        from textual.worker import WorkerError

        for worker in list(app.workers):
            if worker.group != "demo":
                with contextlib.suppress(WorkerError):  # ended, however it ended
                    await worker.wait()
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def until(condition: Callable[[], Any], timeout: float = 180.0) -> None:
    """Wait for `condition`; the deadline only catches a hang (the tests' one, tests/waits.py:
    the docs' pictures are drawn by a test too, on machines of any speed)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise TimeoutError(f"the app did not get there in {timeout:g} s")
        await asyncio.sleep(0.02)


async def started(pilot: Any) -> None:
    """Start-up done and the first page of Payments on screen."""
    await pilot.app.runtime.ready.wait()
    await settle(pilot)


async def type_keys(pilot: Any, text: str) -> None:
    keys = {" ": "space", ":": "colon", "/": "slash", "-": "minus", "_": "underscore"}
    await pilot.press(*(keys.get(c, c) for c in text))


async def command(pilot: Any, text: str) -> None:
    """`:text` and Enter, as typed."""
    await pilot.press("colon")
    await type_keys(pilot, text)
    await pilot.press("enter")
    await settle(pilot)


async def area(pilot: Any, name: str) -> None:
    await started(pilot)
    await command(pilot, name)
    view = pilot.app.get_screen_main().current_view()
    await until(lambda: bool(getattr(view, "loaded", True)))
    await settle(pilot)


async def trigger(pilot: Any, key: str) -> Any:
    """A Trigger of the Sandbox area (`key` there): it makes a record and opens it."""
    app = pilot.app
    main = app.get_screen_main()
    app.trigger(key)
    await until(lambda: app.screen is not main)
    screen = app.screen
    await until(lambda: getattr(screen, "record", None) is not None)
    await settle(pilot)
    return screen


# -- the pictures ------------------------------------------------------------------------------


async def payments(pilot: Any) -> None:
    await started(pilot)


async def payment_story(pilot: Any) -> None:
    """A paid payment, refunded in part: attempts, the refund, and its events as they came."""
    await started(pilot)
    await trigger(pilot, "1")
    journal = pilot.app.runtime.listener.journal
    await until(lambda: journal.count() >= 1)  # payment_succeeded, shown under Events
    await pilot.press("f")  # refund
    await settle(pilot)
    form = pilot.app.screen
    form.query_one("#field-amount").value = "10.00"
    await pilot.press("ctrl+s")
    await until(lambda: pilot.app.screen is not form)
    # The refund settles at once and says so by webhook (refund_succeeded): the story is whole
    # once that has arrived, however long a loaded machine takes to deliver it.
    await until(lambda: journal.count() >= 2)
    # ... and the story tells it: the detail reads itself again a moment after a webhook (a
    # burst becomes one read, on a timer), so the picture waits for that read, not the time.
    screen = pilot.app.screen
    events = {event.event_id for event in journal.recent()}

    def told() -> bool:
        lines = [row.record for row in screen.related_section("story").table.records.values()]
        shown = {line.record_id for line in lines if line.kind == "webhook"}
        # Its status bar takes up the main one's (the event count) every half second.
        counted = screen.query_one("#detail-status").event_count >= len(events)
        return counted and not screen.busy and events <= shown

    await until(told)
    await settle(pilot)
    await settle(pilot)


def triggered(area_name: str, *steps: tuple[str, int]) -> Drive:
    """Trigger scenarios one after the other (each `(key, webhooks received by then)`, so they
    arrive in the same order every run), then the list of `area_name`."""

    async def drive(pilot: Any) -> None:
        await started(pilot)
        journal = pilot.app.runtime.listener.journal
        for key, received in steps:
            await trigger(pilot, key)
            await until(lambda received=received: journal.count() >= received)
            await pilot.press("escape")
            await settle(pilot)
        await command(pilot, area_name)
        view = pilot.app.get_screen_main().current_view()
        await until(lambda: len(view.rows) >= 1)
        await settle(pilot)

    return drive


def in_area(name: str) -> Drive:
    async def drive(pilot: Any) -> None:
        await area(pilot, name)

    return drive


def pressing(*keys: str) -> Drive:
    """Payments on screen, then `keys` pressed."""

    async def drive(pilot: Any) -> None:
        await started(pilot)
        await pilot.press(*keys)
        await settle(pilot)

    return drive


async def filtered(pilot: Any) -> None:
    await started(pilot)
    await pilot.press("slash")
    await type_keys(pilot, "status:failed currency:USD")
    await pilot.press("enter")
    await settle(pilot)


async def find(pilot: Any) -> None:
    await started(pilot)
    await command(pilot, "find 4242")


async def palette(pilot: Any) -> None:
    await started(pilot)
    await pilot.press("ctrl+p")
    await settle(pilot)
    await type_keys(pilot, "trigger")
    await settle(pilot)


async def clock(pilot: Any) -> None:
    await area(pilot, "sandbox")
    await pilot.press("t")
    await settle(pilot)


# A fixture whose second step fails: the dialog shows the step that made something, then the
# mistake with its step, its field and what was already made.
_BROKEN_FIXTURE = """name = "Capture before confirming"

[[steps]]
name = "payment"
method = "POST"
path = "/payments"
body = { amount = 1500, currency = "EUR", confirm = false }

[[steps]]
name = "capture"
method = "POST"
path = "/payments/${payment.payment_id}/capture"
"""

_COMPOSED = {
    "merchant_id": "merchant_snapshot",
    "event_id": "evt_composed0123456789",
    "event_type": "payment_succeeded",
    "content": {
        "type": "payment_details",
        "object": {"payment_id": "pay_composed01", "status": "succeeded", "amount": 1000,
                   "currency": "USD"},
    },
    "timestamp": "2024-05-01T12:00:00.000000Z",
}  # fmt: skip


async def fixture(pilot: Any) -> None:
    from textual.widgets import Input

    await area(pilot, "sandbox")
    # Written where the picture runs (`draw` works in its own folder), named as a user names it:
    # the error shows the path as typed, the same on every machine.
    Path("capture-first.toml").write_text(_BROKEN_FIXTURE)
    await pilot.press("f")
    await settle(pilot)
    pilot.app.screen.query_one(Input).value = "capture-first.toml"
    screen = pilot.app.screen
    screen.run_file("capture-first.toml")
    await until(lambda: bool(screen.error))
    await settle(pilot)


# `payscope demo`: the tour's first step, held on screen with its caption line.
_DEMO_STORY = """title = "A tour of payscope"

[[step]]
caption = "Payments: every payment in the sandbox, newest first, live as webhooks arrive"
wait_for = "succeeded"
pause = 60
"""


async def demo(pilot: Any) -> None:
    from payscope.demo.player import Caption

    await started(pilot)
    await until(lambda: "1/1" in str(pilot.app.screen.query_one(Caption).render()))
    await settle(pilot)


async def export(pilot: Any) -> None:
    from textual.widgets import Input

    await filtered(pilot)
    pilot.app.screen.query_one("#payments").table.focus()
    await settle(pilot)
    await pilot.press("E")
    await settle(pilot)
    pilot.app.screen.query_one(Input).value = "failed-payments.csv"


async def composer(pilot: Any) -> None:
    import json

    from textual.widgets import Input, TextArea

    await area(pilot, "events")
    await pilot.press("c")
    await settle(pilot)
    screen = pilot.app.screen
    screen.query_one(TextArea).load_text(json.dumps(_COMPOSED, indent=2))
    screen.query_one("#composer-to", Input).value = "http://127.0.0.1:3000/webhooks"
    await settle(pilot)


SHOTS: dict[str, Shot] = {
    "payments": Shot(payments),
    "payment-story": Shot(payment_story),
    # Webhooks arriving: three payments made by Trigger, each event verified on arrival.
    "events": Shot(triggered("events", ("1", 1), ("3", 2), ("5", 3))),
    "customers": Shot(in_area("customers")),
    "refunds": Shot(in_area("refunds")),
    # A dispute opened by Trigger, as the card network would (payment_succeeded, dispute_opened).
    "disputes": Shot(triggered("disputes", ("7", 2))),
    "subscriptions": Shot(in_area("subscriptions")),
    "payouts": Shot(in_area("payouts")),
    "links": Shot(in_area("links")),
    "analytics": Shot(in_area("analytics")),
    "users": Shot(in_area("users")),
    "codes": Shot(in_area("codes")),
    "requests": Shot(in_area("requests")),
    "sandbox": Shot(in_area("sandbox")),
    "settings": Shot(in_area("settings")),
    "command-mode": Shot(pressing("colon", "r", "e")),
    "key-help": Shot(pressing("question_mark")),
    "filter": Shot(filtered),
    "find": Shot(find),
    "new-payment": Shot(pressing("n")),
    "palette": Shot(palette),
    "clock": Shot(clock),
    "payments-light": Shot(payments, theme="payscope-light"),
    "payments-80x24": Shot(payments, size=(80, 24)),
    "fixture": Shot(fixture),
    "export": Shot(export),
    "composer": Shot(composer),
    "read-only": Shot(payments, read_only=True),
    "demo": Shot(demo, story=_DEMO_STORY),
}


# -- drawing -----------------------------------------------------------------------------------


def normalise(svg: str) -> str:
    """The SVG text as compared: Rich's per-export id taken out of its class names (as
    pytest-textual-snapshot's `normalize_svg` does), one newline at the end."""
    import re

    return re.sub(r"\bterminal-\d+-([\w-]+)", r"terminal-\1", svg).rstrip("\n") + "\n"


def make_template(directory: Path) -> Path:
    """The seeded sandbox every picture starts from (the snapshot tests' own)."""
    return build_template(directory)


async def draw(shot: Shot, template: Path, work: Path) -> str:
    """Run the app on a copy of `template`, drive it, and return its picture (normalised)."""
    import os

    from payscope.app import make_app
    from payscope.core.display import STABLE

    data, config = work / "data", work / "config"
    shutil.copytree(template, data)
    config.mkdir(mode=0o700)  # payscope's own: private (else it is made so, and said)
    names = ("PAYSCOPE_CONFIG_DIR", "PAYSCOPE_DATA_DIR", "PAYSCOPE_CURSOR_BLINK")
    saved_env = {k: os.environ.get(k) for k in names}
    os.environ["PAYSCOPE_CONFIG_DIR"], os.environ["PAYSCOPE_DATA_DIR"] = str(config), str(data)
    os.environ["PAYSCOPE_CURSOR_BLINK"] = "off"  # a cursor shown, never caught mid-blink
    saved_cwd = Path.cwd()
    os.chdir(work)  # files a shot writes, and the paths it shows, are relative to here
    try:
        with ids_seeded_with(2025):  # the ids a picture makes repeat
            app = make_app(
                app_class=_player(shot.story),
                theme=shot.theme,
                config_dir=config,
                data_dir=data,
                display=STABLE,
                time_source=frozen_clock,
                read_only=shot.read_only,
            )
            async with app.run_test(size=shot.size) as pilot:
                await shot.drive(pilot)
                app.clear_notifications()
                await settle(pilot)
                return normalise(app.export_screenshot(title="payscope", simplify=True))
    finally:
        os.chdir(saved_cwd)
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _player(story: str | None) -> Any:
    """`payscope demo`'s app class playing `story` (None: payscope itself)."""
    if story is None:
        return None
    import tomllib

    from payscope.demo.player import DemoApp
    from payscope.demo.story import parse_story

    played = parse_story(tomllib.loads(story), "picture", "docs/screenshots.py")
    return type("DemoApp", (DemoApp,), {"story": played, "pace": 1.0, "screenshots": None})


def render(names: list[str]) -> dict[str, str]:
    """The pictures of `names`, each drawn by a fresh app."""
    with tempfile.TemporaryDirectory(prefix="payscope-shots-") as tmp:
        template = make_template(Path(tmp) / "template")
        shots: dict[str, str] = {}
        for index, name in enumerate(names):
            work = Path(tmp) / f"run-{index}"
            work.mkdir()
            shots[name] = asyncio.run(draw(SHOTS[name], template, work))
        return shots


def main(argv: list[str]) -> int:
    names = argv or list(SHOTS)
    unknown = [n for n in names if n not in SHOTS]
    if unknown:
        print(f"unknown picture(s): {', '.join(unknown)}; known: {', '.join(SHOTS)}")
        return 2
    IMAGES.mkdir(parents=True, exist_ok=True)
    for name, svg in render(names).items():
        path = IMAGES / f"{name}.svg"
        path.write_text(svg, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
