"""What the TUI's widgets render of hostile text from outside holds no raw control character
(tui/payscope/api/terminal.py, issue 38): a payment's Raw JSON view, an event's raw body and JSON
sections (a really signed webhook), and the error toast of a remote that answers every call
with escape sequences, C1 controls and bidi overrides in its message and obs-text bytes in its
headers (a real server on a loopback port: tests/hostile_server.py)."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import httpx

from payscope.core.display import STABLE
from tests.api.conftest import KEY
from tests.hostile_server import HOSTILE, Answer, envelope, raw_controls, raw_server
from tests.tui.pilot import (
    create_payment,
    open_detail,
    run_command,
    screen_text,
    shown_text,
    until,
)
from tests.tui.snapshot_app import build, ready
from tests.waits import REQUEST_TIMEOUT, on_screen
from tests.webhooks.conftest import post_signed

Dirs = tuple[Path, Path]


async def test_raw_json_and_the_events_json_show_hostile_text_escaped(dirs: Dirs) -> None:
    from payscope.api.models.payments import PaymentUpdateRequest
    from payscope.areas.events.detail import EventDetailScreen
    from payscope.areas.events.view import EventsView

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        client = app.runtime.client
        payment = await create_payment(client, confirm=False)
        update = PaymentUpdateRequest(description=HOSTILE, metadata={"note": HOSTILE})
        await client.payments.update(payment.payment_id, update)
        detail = await open_detail(pilot, payment.payment_id)
        raw = shown_text(detail.query_one("#raw"))
        assert raw_controls(raw) == [], raw
        # JSON's own escapes, the rest of the text kept.
        assert (
            "\\u001b]52;c;aGFja2Vk\\u0007" in raw and "\\u009b31m" in raw and "\\u202eevil" in raw
        )
        await pilot.press("escape")

        body = json.dumps(
            {
                "merchant_id": "m",
                "event_id": "evt_hostile_json",
                "event_type": "payment_succeeded",
                "content": {
                    "type": "payment_details",
                    "object": {"payment_id": "pay_h", "status": HOSTILE},
                },
                "note": HOSTILE,
            },
            ensure_ascii=False,  # the raw bytes of each control, as a hostile sender writes them
        ).encode()
        secret = app.runtime.sandbox.credentials.webhook_secret
        async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as http:
            answer = await post_signed(http, app.runtime.listener.url, body, secret)
        assert answer.status_code == 200
        await run_command(pilot, "events")
        events = app.screen.query_one(EventsView)
        await until(lambda: "evt_hostile_json" in events.rows)
        events.table.move_cursor(row=events.table.get_row_index("evt_hostile_json"))
        await pilot.press("enter")
        await until(lambda: on_screen(app, EventDetailScreen))
        event = app.screen
        await until(lambda: event.record is not None)
        await pilot.pause()
        exact = shown_text(event.section("raw-body"))
        pretty = shown_text(event.section("json"))
        for shown in (exact, pretty, shown_text(event.query_one("#raw"))):
            assert raw_controls(shown) == [], shown
        # As it came (JSON writes C0 as its own escapes; C1 and bidi came raw, shown escaped).
        assert "\\u001b]52;c;aGFja2Vk\\u0007" in exact
        assert "\\x9b31m\\x9d0;title\\x9c\\u202eevil" in exact
        assert "\\u001b[2J" in pretty and "\\u009b31m" in pretty and "\\u2066x\\u2069" in pretty
        assert raw_controls(html.unescape(app.export_screenshot())) == []


async def test_a_hostile_remote_s_error_is_said_escaped(dirs: Dirs) -> None:
    from payscope.app import make_app
    from payscope.core import config, secrets

    config_dir, data = dirs

    def answer(_request: Any) -> Answer:
        headers = [(b"X-Note", b"caf\xe9 \x9b2J"), (b"X-Request-Id", b"req_\xff")]
        return Answer(400, envelope(HOSTILE), reason=b"Bad \xe9", headers=headers)

    async with raw_server(answer) as server:
        profile = config.Profile(
            name="remote",
            base_url=server.url,
            merchant_id="merchant_hostile",
            profile_id="pro_hostile",
            listener_port=0,
            contract="spec",
        )
        config.save_settings(config.add_profile(config.load_settings(), profile))
        secrets.set_secret("remote", KEY)
        app = make_app(profile="remote", config_dir=config_dir, data_dir=data, display=STABLE)
        async with app.run_test(size=(120, 40)) as pilot:
            await app.runtime.ready.wait()
            await until(lambda: bool(server.seen) and bool(app.told))
            await pilot.pause()
            (told,) = app.told  # the list's failure, once
            said = told.title + "\n" + told.message
            assert "Request refused" in said and "Something went wrong" not in said, said
            assert raw_controls(said) == [], said
            assert "\\x1b]52;c;aGFja2Vk\\x07\\x1b[2J\\x9b31m" in said and "\\u202eevil" in said
            drawn = screen_text(app)  # the toast and the list's title bar as drawn
            assert "Request refused" in drawn and raw_controls(drawn) == []


async def test_a_fixture_run_shows_a_hostile_file_and_its_failure_escaped(
    dirs: Dirs, tmp_path: Path
) -> None:
    from textual.widgets import Input, Static

    from payscope.views.fixture_run import FixtureScreen

    # TOML writes each control as an escape; the loaded names hold the raw characters.
    name = "pwn\\u001b]52;c;aGk=\\u0007\\u001b[2J\\u009b31m\\u202eevil"
    fixture = tmp_path / "hostile.toml"
    fixture.write_text(
        f'name = "{name}"\n'
        f'[[steps]]\nname = "{name}"\nmethod = "POST"\npath = "/payments"\n'
        'body = { amount = 700, currency = "USD", confirm = false }\n'
        f'[[steps]]\nname = "{name}2"\nmethod = "POST"\n'
        'path = "/payments/pay_missing/capture"\n'
    )
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.call_later(app.action_run_fixture)
        await until(lambda: on_screen(app, FixtureScreen))
        screen = app.screen
        assert isinstance(screen, FixtureScreen)
        screen.query_one(Input).value = str(fixture)
        await pilot.press("enter")
        await until(lambda: bool(screen.error), 15)
        steps = shown_text(screen.query_one("#fixture-steps", Static))
        title = shown_text(screen.query_one("#fixture-title", Static))
        for shown in (steps, title, html.unescape(app.export_screenshot())):
            assert raw_controls(shown) == [], shown
        assert "pwn\\x1b]52;c;aGk=\\x07\\x1b[2J\\x9b31m\\u202eevil" in steps
