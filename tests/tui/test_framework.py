"""The resource framework as its users meet it: live related rows, coalesced reloads, forms
that say what they send, errors scrolled into view, the rail giving its room back, hostile text,
and replays that ask for their URL."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from payscope.views.live import Change
from tests.tui.pilot import create_payment, open_detail, run_command, shown_text, until
from tests.tui.snapshot_app import build, ready
from tests.waits import REQUEST_TIMEOUT, on_screen

Dirs = tuple[Path, Path]


async def test_a_pending_refund_turns_succeeded_on_the_payment_detail_by_itself(
    dirs: Dirs,
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        client = app.runtime.client
        # Refunds of this card start pending (a refund of any other settles at once).
        payment = await create_payment(client, card="4000000000007726")
        detail = await open_detail(pilot, payment.payment_id)
        from payscope.api.models.refunds import RefundCreateRequest

        refund = await client.refunds.create(
            RefundCreateRequest(payment_id=payment.payment_id, amount=1000)
        )
        assert refund.status == "pending"
        detail.action_reload()
        await until(lambda: bool(detail.payment.refunds) and not detail.busy)
        assert detail.payment.refunds[0].status == "pending"
        # The refund settles on the sandbox clock; its webhook names the refund, not the
        # payment: the detail watches the refunds it shows.
        await client.sandbox.advance_clock(60)
        await until(lambda: detail.payment.refunds[0].status == "succeeded")
        cells = detail.related_section("refunds").table.get_row(refund.refund_id)
        assert "succeeded" in map(str, cells)


async def test_a_burst_of_webhooks_becomes_one_read(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        client = app.runtime.client
        payment = await create_payment(client)
        detail = await open_detail(pilot, payment.payment_id)
        # Its own webhooks reload it once more: let them, then count.
        journal = app.runtime.listener.journal
        await until(lambda: journal.count(object_id=payment.payment_id) >= 1)
        await pilot.pause(0.3)
        await until(lambda: not detail.busy)
        path = f"/payments/{payment.payment_id}"

        def reads() -> int:
            return sum(1 for e in client.journal if e.method == "GET" and e.url.endswith(path))

        before = reads()
        for status in ("processing", "succeeded", "succeeded", "succeeded", "succeeded"):
            app.changes.publish(Change(payment.payment_id, "payment_succeeded", status))
        await pilot.pause(0.3)
        await until(lambda: not detail.busy)
        await app.workers.wait_for_complete()
        # One read for the detail and one for the payment's row in the list below it: a read
        # per place that shows it, not one per webhook.
        assert reads() - before == 2
        # A change about something else reads nothing.
        app.changes.publish(Change("pay_someone_else", "payment_failed", "failed"))
        await pilot.pause(0.3)
        assert reads() - before == 2


async def test_the_refund_button_says_the_amount_as_it_is_typed(dirs: Dirs) -> None:
    from payscope.areas.payments.forms import RefundForm

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        payment = await create_payment(app.runtime.client, amount=3000)
        detail = await open_detail(pilot, payment.payment_id)
        await pilot.press("f")
        await until(lambda: on_screen(app, RefundForm))
        form = app.screen
        button = form.query_one("#form-submit")
        await until(lambda: str(button.label) == "Refund 30.00 USD")
        form.query_one("#field-amount").value = "5"
        await pilot.pause()
        assert str(button.label) == "Refund 5.00 USD"
        form.query_one("#field-amount").value = "five"
        await pilot.pause()
        assert str(button.label) == "Refund"  # nothing it could send yet: no amount claimed
        assert detail is not None


async def test_an_error_on_a_field_out_of_view_is_scrolled_to_and_announced(
    dirs: Dirs,
) -> None:
    from textual.containers import VerticalScroll

    from payscope.areas.payments.forms import NewPaymentScreen

    app = build(*dirs)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("n")
        await until(lambda: on_screen(app, NewPaymentScreen))
        form = app.screen
        form.query_one("#field-card").value = "4242 4242 4242 4241"  # fails Luhn
        scroll = form.query_one(VerticalScroll)
        scroll.scroll_home(animate=False)
        await pilot.pause()
        error_line = form.query_one("#error-card")
        assert not scroll.region.contains_region(error_line.region)  # out of view at 80x24
        await pilot.press("ctrl+s")
        await until(lambda: error_line.has_class("-shown"))
        await pilot.pause()
        assert scroll.region.contains_region(error_line.region)
        assert app.focused is form.query_one("#field-card")
        # Announced beside the buttons, which stay in sight however the fields scroll.
        announced = str(form.query_one("#form-error").render())
        assert "Not sent: check card" in announced


async def test_hiding_the_rail_gives_events_its_columns_back(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await create_payment(app.runtime.client)
        await run_command(pilot, "events")
        from payscope.areas.events.view import EventsView

        view = app.screen.query_one(EventsView)
        await until(lambda: bool(view.rows))
        # At 80 columns the rail starts hidden; Ctrl+B shows it, taking the table's room.
        await pilot.press("ctrl+b")
        await until(lambda: "time" not in dict(view.table.fitted))
        before = dict(view.table.fitted)
        await pilot.press("ctrl+b")  # hidden again
        await pilot.pause()
        await until(lambda: "time" in dict(view.table.fitted))
        after = dict(view.table.fitted)
        assert sum(after.values()) > sum(before.values())
        assert "time" in after and "time" not in before


async def test_service_text_shows_literally_in_payments_and_events(dirs: Dirs) -> None:
    import json

    import httpx

    from payscope.api.models.payments import PaymentUpdateRequest
    from payscope.areas.events.view import EventsView
    from payscope.webhooks.signing import SIGNATURE_HEADER, sign

    hostile = "[b]x[/b]\x1b[5m:warning:"
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        client = app.runtime.client
        payment = await create_payment(client, confirm=False)
        await client.payments.update(payment.payment_id, PaymentUpdateRequest(description=hostile))
        detail = await open_detail(pilot, payment.payment_id)
        shown = shown_text(detail.section("summary"))
        assert "[b]x[/b]\\x1b[5m:warning:" in shown and "\x1b" not in shown
        await pilot.press("escape")
        # A signed webhook whose ids and status carry markup and escapes, as a hostile or
        # broken sender would send them.
        body = json.dumps(
            {
                "event_id": "evt_[red]x[/red]",
                "event_type": "payment_[b]failed[/b]",
                "content": {"object": {"payment_id": "pay_[i]y[/i]\x1b[2J", "status": hostile}},
            }
        ).encode()
        secret = app.runtime.sandbox.credentials.webhook_secret
        async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as http:
            answer = await http.post(
                app.runtime.listener.url,
                content=body,
                headers={"Content-Type": "application/json", SIGNATURE_HEADER: sign(body, secret)},
            )
        assert answer.status_code == 200
        await run_command(pilot, "events")
        events = app.screen.query_one(EventsView)
        await until(lambda: "evt_[red]x[/red]" in events.rows)
        cells = [events.table.get_cell("evt_[red]x[/red]", key) for key, _ in events.table.fitted]
        plain = " ".join(c.plain for c in cells if isinstance(c, Text))
        assert "payment_[b]failed[/b]" in plain and "pay_[i]y[/i]\\x1b[2J" in plain
        assert "\x1b" not in plain


async def test_replay_asks_for_a_url_remembers_it_and_shows_the_result(dirs: Dirs) -> None:
    from payscope.areas.events.detail import EventDetailScreen
    from payscope.areas.events.forms import ReplayForm
    from payscope.areas.events.view import EventsView
    from payscope.core import config
    from payscope.webhooks.listener import Listener

    target = Listener(dirs[1] / "target", secrets=None)
    url = await target.start("127.0.0.1", 0)
    try:
        app = build(*dirs)
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            await create_payment(app.runtime.client)
            await run_command(pilot, "events")
            view = app.screen.query_one(EventsView)
            await until(lambda: bool(view.rows))
            await pilot.press("enter")
            await until(lambda: on_screen(app, EventDetailScreen))
            detail = app.screen
            await until(lambda: detail.record is not None)
            await pilot.press("p")
            await until(lambda: on_screen(app, ReplayForm))
            form = app.screen
            assert form.query_one("#field-url").value == ""  # no forward target yet
            # It looks empty too: no URL greyed in the box, the example is in the hint.
            assert "://" not in form.query_one("#field-url").placeholder
            assert "http://127.0.0.1:3000/webhooks" in shown_text(form.query_one("#hint-url"))
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert "Type the URL" in str(form.query_one("#error-url").render())
            form.query_one("#field-url").value = url
            await pilot.pause()
            assert str(form.query_one("#form-submit").label) == f"Replay to {url}"
            await pilot.press("ctrl+s")
            await until(lambda: app.screen is detail)
            await until(lambda: bool(detail.record.forwards))
            (forward,) = detail.record.forwards
            assert forward.url == url and forward.status is not None
            assert url in shown_text(detail.section("forwards"))
            assert config.get_forward_url("local") == url
            # Next time the URL is already there.
            await pilot.press("p")
            await until(lambda: on_screen(app, ReplayForm))
            assert app.screen.query_one("#field-url").value == url
    finally:
        await target.stop()
