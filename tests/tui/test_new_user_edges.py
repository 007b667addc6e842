"""Issue 33 (items 1-10, 22, 23): what a new user stumbled on. Values a user copies are whole,
support paths lead somewhere, and the smaller edges."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from payscope.areas.payments.detail import PaymentDetailScreen
from tests.tui.pilot import create_payment, open_detail, screen_text, until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]
SIZES = [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")]


def lines_of(widget: Any) -> list[str]:
    """The lines a widget shows, as text (the public Line API)."""
    return [widget.render_line(y).text for y in range(widget.size.height)]


async def _refunded(pilot: Any, reason: str = "requested_by_customer") -> tuple[Any, Any]:
    """A payment with one refund, its detail open."""
    from payscope.api.models.refunds import RefundCreateRequest

    client = pilot.app.runtime.client
    payment = await create_payment(client)
    refund = await client.refunds.create(
        RefundCreateRequest(payment_id=payment.payment_id, amount=1000, reason=reason)
    )
    detail = await open_detail(pilot, payment.payment_id)
    await until(lambda: bool(detail.payment.refunds))
    return detail, refund


# -- 4. the rows of a detail's related panels open ------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_a_payments_refund_row_opens_with_enter_and_esc_comes_back(
    dirs: Dirs, size: tuple[int, int]
) -> None:
    from payscope.areas.refunds.view import RefundDetailScreen

    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        detail, refund = await _refunded(pilot)
        table = detail.related_section("refunds").table
        for _ in range(12):  # Tab reaches the rows
            if app.focused is table:
                break
            await pilot.press("tab")
        assert app.focused is table, app.focused
        await pilot.press("enter")
        await until(lambda: on_screen(app, RefundDetailScreen))
        assert app.screen.record_id == refund.refund_id
        await pilot.press("escape")
        await until(lambda: app.screen is detail)


async def test_a_payments_event_row_opens_the_event(dirs: Dirs) -> None:
    from payscope.areas.events.view import EventDetailScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        client = app.runtime.client
        payment = await create_payment(client)
        detail = await open_detail(pilot, payment.payment_id)
        # The payment's story holds its webhooks: a webhook's line opens the event.
        table = detail.related_section("story").table
        await until(lambda: any(r.record.kind == "webhook" for r in table.records.values()))
        line = next(r.record for r in table.records.values() if r.record.kind == "webhook")
        table.focus()
        table.move_cursor(row=table.get_row_index(line.key))
        await pilot.press("enter")
        await until(lambda: on_screen(app, EventDetailScreen))
        assert app.screen.record_id == line.record_id
        await pilot.press("escape")
        await until(lambda: on_screen(app, PaymentDetailScreen))


# -- 2. a long refund reason keeps the refund's status and amount in view ------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_a_long_refund_reason_keeps_status_and_amount_in_view(
    dirs: Dirs, size: tuple[int, int]
) -> None:
    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        reason = "the customer wrote a long letter about it " * 3
        detail, _refund = await _refunded(pilot, reason.strip())
        await pilot.pause()
        table = detail.related_section("refunds").table
        row = lines_of(table)[1]
        assert "pending" in row or "succeeded" in row
        assert "10.00 USD" in row
        assert "…" in row  # what is cut is marked


# -- 3. command mode on a detail screen ------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_colon_on_a_detail_opens_command_mode_and_ref_opens_the_refund(
    dirs: Dirs, size: tuple[int, int]
) -> None:
    from payscope.areas.refunds.view import RefundDetailScreen
    from tests.tui.pilot import type_text

    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        _detail, refund = await _refunded(pilot)
        await pilot.press("colon")
        await pilot.pause()
        await type_text(pilot, f"ref {refund.refund_id}")
        await pilot.press("enter")
        await until(lambda: on_screen(app, RefundDetailScreen))
        assert app.screen.record_id == refund.refund_id


# -- 22. `:theme` and Tab list the theme names ---------------------------------------------------


async def test_tab_after_theme_lists_the_theme_names(dirs: Dirs) -> None:
    from tests.tui.pilot import type_text

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("colon")
        await type_text(pilot, "theme ")
        await pilot.press("tab")
        prompt = app.screen.query_one("#command-prompt")
        listed = str(prompt.border_subtitle).split(" · ")
        assert set(listed) == set(app.available_themes)
        await type_text(pilot, "payscope-l")
        await pilot.press("tab")
        assert prompt.value == "theme payscope-light"
        assert not prompt.border_subtitle  # one left: nothing to list


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_command_prompt_lies_over_the_list_and_moves_nothing(
    dirs: Dirs, size: tuple[int, int]
) -> None:
    """`:` opens the prompt over the last rows of the body: the table, the rail and the bars
    keep their places (taking rows instead laid out and drew every row again, for each `:`
    and each Esc), and Esc gives the rows back as they were."""
    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        screen = app.screen
        table = screen.query_one("#payments-table")
        status = screen.query_one("#status")
        before = (table.region, status.region, table.scroll_offset)
        await pilot.press("colon")
        prompt = screen.query_one("#command-prompt")
        await until(lambda: prompt.has_focus and prompt.region.height == 3)
        assert (table.region, status.region, table.scroll_offset) == before
        # Over the body's last rows, just above the status bar, as wide as the screen.
        assert prompt.region.bottom == status.region.y
        assert prompt.region.width == size[0]
        assert screen.get_widget_at(prompt.region.x + 2, prompt.region.y + 1)[0] is prompt
        _overlays_come_first(screen.query_one("#body"))
        await pilot.press("escape")
        await until(lambda: table.has_focus)
        assert (table.region, status.region, table.scroll_offset) == before
        assert screen.get_widget_at(1, prompt.region.y + 1)[0] is not prompt


def _overlays_come_first(body: Any) -> None:
    """What lies over the body (its `prompt` layer) comes before the rail and the views among
    its children: Textual numbers the painting order from the last child placed, so an overlay
    after them would renumber them, and draw them all again, each time it shows or goes."""
    layers = [child.styles.layer or "default" for child in body.children]
    assert "prompt" in layers
    assert layers == sorted(layers, key=lambda layer: layer != "prompt"), layers


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_start_up_progress_lies_over_the_body_and_moves_nothing(
    dirs: Dirs, size: tuple[int, int]
) -> None:
    """What the runtime says while it starts (a first run's seeding with its bar) shows over
    the body's last rows, just above the status bar's "starting": the rail, the table and the
    bars keep their places as it comes and goes (taking a row laid out and drew the whole body
    again, twice in every start)."""
    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        screen = app.screen
        table, status = screen.query_one("#payments-table"), screen.query_one("#status")
        title = screen.query_one("#payments-header")
        before = (table.region, status.region, title.region)
        box = screen.query_one("#startup")
        screen.show_progress("Seeding the demo data: 1,200 of 20,000 payments", 0.06)
        await until(lambda: box.region.height >= 2 and "Seeding" in screen_text(app))
        assert (table.region, status.region, title.region) == before
        assert box.region.bottom == status.region.y and box.region.width == size[0]
        assert screen.get_widget_at(2, box.region.y)[0] in box.query("*")
        _overlays_come_first(screen.query_one("#body"))
        screen.show_progress("", None)
        await until(lambda: "Seeding" not in screen_text(app))
        assert (table.region, status.region, title.region) == before
        assert status.state == ""


async def test_theme_alone_opens_the_picker_that_lists_them(dirs: Dirs) -> None:
    from textual.command import CommandPalette

    from tests.tui.pilot import run_command

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await run_command(pilot, "theme")
        await until(lambda: on_screen(app, CommandPalette))


# -- 23. Esc from a record opened by Trigger -------------------------------------------------------


async def test_esc_from_a_record_opened_by_trigger_returns_to_the_sandbox(dirs: Dirs) -> None:
    from payscope.areas.disputes.view import DisputeDetailScreen
    from payscope.areas.sandbox.view import SandboxView
    from tests.tui.pilot import run_command

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await run_command(pilot, "sandbox")
        view = app.screen.query_one(SandboxView)
        await until(lambda: bool(view.values_table.records))
        await pilot.press("7")  # a dispute
        await until(lambda: on_screen(app, DisputeDetailScreen))
        await pilot.press("escape")
        main = app.get_screen_main()
        await until(lambda: app.screen is main)
        assert main is not None and main.current_area() == "sandbox"


# -- 10. a failed refund is explained in a refund's words ---------------------------------------


async def test_a_failed_refund_is_explained_as_a_refund(dirs: Dirs) -> None:
    from payscope.api.models.refunds import RefundCreateRequest
    from payscope.areas.refunds.view import RefundDetailScreen
    from tests.tui.pilot import run_command, shown_text

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        client = app.runtime.client
        payment = await create_payment(client, card="4000000000005126")  # refunds fail
        refund = await client.refunds.create(
            RefundCreateRequest(payment_id=payment.payment_id, amount=1000)
        )
        await client.sandbox.advance_clock(60)
        await run_command(pilot, f"ref {refund.refund_id}")
        await until(lambda: on_screen(app, RefundDetailScreen))
        screen = app.screen
        await until(lambda: screen.record is not None and screen.record.status == "failed")
        await pilot.pause()
        text = " ".join(shown_text(screen.section("failure")).split())
        assert "refund failed" in text and "not been paid back" in text
        assert "declined the payment" not in text and "another card" not in text


# -- 6. a bare word the screen shows (a status, a currency) filters Payments ---------------------


@pytest.mark.parametrize("real", [False, True], ids=["spec", "real"])
def test_a_bare_status_or_currency_filters_payments(real: bool) -> None:
    from payscope.areas.payments.spec import payment_grammar

    grammar = payment_grammar(real=real)
    for typed, word in (("failed", "status:failed"), ("usd", "currency:usd")):
        bare, keyed = grammar.parse(typed), grammar.parse(word)
        assert bare.server == keyed.server
        assert len(bare.local) == len(keyed.local)
    assert grammar.parse("failed usd").server == grammar.parse("status:failed currency:usd").server
    # Other words are still ids or parts of ids.
    assert grammar.parse("pay_abcdefghijklmnopqrstuvwx").server == {
        "payment_id": "pay_abcdefghijklmnopqrstuvwx"
    }
    assert "failed" in grammar.help


# -- 9. a refund's status history on one clock ----------------------------------------------------


async def test_a_refunds_history_is_in_order_on_the_services_clock(dirs: Dirs) -> None:
    """Issue 33.9: after the sandbox clock moved, webhook rows showed the listener's wall-clock
    time and the others the sandbox's, out of order, and the "created" row lost its status.
    Every row is on the service's clock, in order; "created" says `pending`."""
    import re
    from datetime import UTC, datetime, timedelta

    from payscope.api.models.refunds import RefundCreateRequest
    from payscope.areas.refunds.view import RefundDetailScreen
    from tests.tui.pilot import run_command, shown_text

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        client = app.runtime.client
        # Refunds of this card start pending and settle on the clock (others settle at once).
        payment = await create_payment(client, card="4000000000007726")
        await client.sandbox.advance_clock(3 * 86400)  # the clock moves on, as the user's did
        refund = await client.refunds.create(
            RefundCreateRequest(payment_id=payment.payment_id, amount=1000)
        )
        await client.sandbox.advance_clock(60)  # it settles, and its webhook is sent
        await run_command(pilot, f"ref {refund.refund_id}")
        await until(lambda: on_screen(app, RefundDetailScreen))
        detail = app.screen
        await until(lambda: "refund_succeeded" in shown_text(detail.section("history")))
        lines = [
            " ".join(line.split())
            for line in shown_text(detail.section("history")).splitlines()
            if re.match(r"\s*\d{4}-\d\d-\d\d ", line)
        ]
        assert [line.split()[2] for line in lines] == ["created", "refund_succeeded", "modified"]
        assert lines[0].split()[3] == "pending"
        assert lines[1].split()[3] == lines[2].split()[3] == "succeeded"
        times = [datetime.fromisoformat(" ".join(line.split()[:2])) for line in lines]
        assert times == sorted(times)
        created = datetime.fromisoformat(refund.created_time.replace("Z", "+00:00"))
        sandbox_now = created.replace(tzinfo=None) + timedelta(seconds=60)
        assert times[0] == created.replace(tzinfo=None)
        # The webhook row is the sandbox's time it was sent, not this machine's.
        assert created.replace(tzinfo=None) <= times[1] <= sandbox_now
        assert abs(datetime.now(UTC).replace(tzinfo=None) - times[1]) > timedelta(days=1)


# -- 8. after a lost dispute ----------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_a_lost_dispute_shows_what_it_took_and_is_not_refunded_again(
    dirs: Dirs, size: tuple[int, int]
) -> None:
    """Issue 33.8: after a lost dispute the payment offered a full refund and another
    full-amount dispute, and its amounts showed no chargeback. The amounts say what the
    chargeback took; the refund form offers what is left; once nothing is left, neither Refund
    nor Open dispute is offered."""
    from payscope.areas.payments.forms import OpenDisputeForm, RefundForm
    from tests.tui.pilot import shown_text

    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        client = app.runtime.client
        payment = await create_payment(client, amount=4200)
        dispute = await client.sandbox.open_dispute(
            payment.payment_id, reason="fraudulent", stage="dispute", amount=3000
        )
        await client.sandbox.resolve_dispute(dispute.dispute_id, "lost")
        detail = await open_detail(pilot, payment.payment_id)
        amounts = " ".join(shown_text(detail.section("amounts")).split())
        assert "Charged back 30.00 USD" in amounts
        assert "Refundable 12.00 USD" in amounts
        offered = {a.name for a in detail.allowed()}
        assert {"refund", "dispute"} <= offered  # 12.00 is left
        await pilot.press("f")
        await until(lambda: on_screen(app, RefundForm))
        form = app.screen
        assert form.remaining == 1200
        assert "30.00 USD" in form.intro and "not refundable again" in form.intro
        await pilot.press("escape")
        await until(lambda: app.screen is detail)
        await pilot.press("D")
        await until(lambda: on_screen(app, OpenDisputeForm))
        assert app.screen.received == 1200
        await pilot.press("escape")
        await until(lambda: app.screen is detail)

        # The rest lost too: nothing is left to refund or dispute.
        second = await client.sandbox.open_dispute(
            payment.payment_id, reason="fraudulent", stage="dispute", amount=1200
        )
        await client.sandbox.resolve_dispute(second.dispute_id, "lost")
        await pilot.press("r")
        await until(lambda: "42.00 USD" in " ".join(shown_text(detail.section("amounts")).split()))
        await until(lambda: "refund" not in {a.name for a in detail.allowed()})
        offered = {a.name for a in detail.allowed()}
        assert "dispute" not in offered
        amounts = " ".join(shown_text(detail.section("amounts")).split())
        assert "Charged back 42.00 USD" in amounts and "Refundable 0.00 USD" in amounts


# -- 2. a 64-character payment id: the detail's title keeps status and amount; find and :pay ------

LONG_ID = "order_" + "0123456789abcdefghij" * 2 + "ABCDEFGHIJklmnopqr"  # 64 characters


@pytest.mark.parametrize("size", SIZES)
async def test_a_64_character_ids_detail_title_keeps_status_and_amount(
    dirs: Dirs, size: tuple[int, int]
) -> None:
    assert len(LONG_ID) == 64
    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await create_payment(app.runtime.client, payment_id=LONG_ID)
        detail = await open_detail(pilot, LONG_ID)
        await pilot.pause()
        title = detail.query_one("#detail-title")
        shown = " ".join(lines_of(title))
        assert LONG_ID in shown
        assert "succeeded" in shown and "42.00 USD" in shown
        # Nothing is drawn past the screen's edge.
        assert title.region.right <= size[0]


@pytest.mark.parametrize("command", ["find", "pay"])
async def test_find_and_pay_take_a_64_character_id_whole(dirs: Dirs, command: str) -> None:
    from payscope.shell.find import FindScreen
    from tests.tui.pilot import run_command

    app = build(*dirs)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await create_payment(app.runtime.client, payment_id=LONG_ID)
        # Another whose id is the first 63 characters of it: a cut id would find that one too.
        await create_payment(app.runtime.client, payment_id=LONG_ID[:63])
        await run_command(pilot, f"{command} {LONG_ID}")
        if command == "find":
            await until(lambda: isinstance(app.screen, FindScreen) and app.screen.done)
            assert [(f.kind, f.object_id, f.matched_on) for f in app.screen.found] == [
                ("payment", LONG_ID, "id")
            ]
            await pilot.press("enter")
        await until(lambda: on_screen(app, PaymentDetailScreen))
        assert app.screen.record_id == LONG_ID
        await until(lambda: app.screen.payment is not None)
        assert app.screen.payment.payment_id == LONG_ID


# -- 19. JSON wraps at punctuation, never inside a word --------------------------------------------


def _words_whole(lines: list[str], text: str) -> list[str]:
    """The words (keys, ids, values) of `text` that no single line of `lines` shows whole."""
    import re

    return [w for w in set(re.findall(r"[A-Za-z0-9_]+", text)) if not any(w in ln for ln in lines)]


@pytest.mark.parametrize("size", SIZES)
async def test_a_webhooks_raw_body_and_json_wrap_at_punctuation(
    dirs: Dirs, size: tuple[int, int]
) -> None:
    """Issue 33.19: the raw webhook body wrapped mid-word ("custome" / "r"). The raw body,
    the event's JSON and a detail's raw JSON (`v`) break lines only at punctuation or spaces:
    every key, id and value of the body is whole on one line, and nothing is wider than the
    screen."""
    import json

    from payscope.areas.events.view import EventDetailScreen

    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        payment = await create_payment(app.runtime.client)
        detail = await open_detail(pilot, payment.payment_id)
        await pilot.press("v")  # the payment's raw JSON
        await pilot.pause()
        raw = detail.query_one("#raw")
        shown = lines_of(raw)
        assert max(len(line.rstrip()) for line in shown) <= size[0]
        dumped = detail.payment.model_dump_json(exclude_none=True, exclude={"client_secret"})
        assert _words_whole(shown, dumped) == []
        await pilot.press("v")
        # The payment's story holds its webhooks: a webhook's line opens the event.
        table = detail.related_section("story").table
        await until(lambda: any(r.record.kind == "webhook" for r in table.records.values()))
        line = next(r.record for r in table.records.values() if r.record.kind == "webhook")
        table.focus()
        table.move_cursor(row=table.get_row_index(line.key))
        await pilot.press("enter")
        await until(lambda: on_screen(app, EventDetailScreen))
        screen = app.screen
        await until(lambda: screen.record is not None)
        await pilot.pause()
        body = screen.record.body.decode()
        assert len(body) > size[0]  # one line of it would not fit
        for key in ("raw-body", "json"):
            shown = lines_of(screen.section(key))
            assert len(shown) > 1
            assert _words_whole(shown, body) == [], key
        # The raw body is shown exactly: its lines put together are the body.
        joined = "".join(line.strip(" │╭╮╰╯─") for line in lines_of(screen.section("raw-body")))
        assert json.loads(joined) == json.loads(body)
