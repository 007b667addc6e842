"""Issue 33 (items 1-10, 22, 23): what a new user stumbled on. Values a user copies are whole,
support paths lead somewhere, and the smaller edges."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.tui.pilot import create_payment, open_detail, until
from tests.tui.snapshot_app import build, ready
from tui.areas.payments.detail import PaymentDetailScreen

Dirs = tuple[Path, Path]
SIZES = [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")]


def lines_of(widget: Any) -> list[str]:
    """The lines a widget shows, as text (the public Line API)."""
    return [widget.render_line(y).text for y in range(widget.size.height)]


async def _refunded(pilot: Any, reason: str = "requested_by_customer") -> tuple[Any, Any]:
    """A payment with one refund, its detail open."""
    from tui.api.models.refunds import RefundCreateRequest

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
    from tui.areas.refunds.view import RefundDetailScreen

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
        await until(lambda: isinstance(app.screen, RefundDetailScreen))
        assert app.screen.record_id == refund.refund_id
        await pilot.press("escape")
        await until(lambda: app.screen is detail)


async def test_a_payments_event_row_opens_the_event(dirs: Dirs) -> None:
    from tui.areas.events.view import EventDetailScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        client = app.runtime.client
        payment = await create_payment(client)
        detail = await open_detail(pilot, payment.payment_id)
        table = detail.related_section("events").table
        await until(lambda: bool(table.records))
        first = next(iter(table.records))
        table.focus()
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, EventDetailScreen))
        assert app.screen.record_id == first
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen, PaymentDetailScreen))


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
    from tests.tui.pilot import type_text
    from tui.areas.refunds.view import RefundDetailScreen

    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        _detail, refund = await _refunded(pilot)
        await pilot.press("colon")
        await pilot.pause()
        await type_text(pilot, f"ref {refund.refund_id}")
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, RefundDetailScreen))
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


async def test_theme_alone_opens_the_picker_that_lists_them(dirs: Dirs) -> None:
    from textual.command import CommandPalette

    from tests.tui.pilot import run_command

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await run_command(pilot, "theme")
        await until(lambda: isinstance(app.screen, CommandPalette))


# -- 23. Esc from a record opened by Trigger -------------------------------------------------------


async def test_esc_from_a_record_opened_by_trigger_returns_to_the_sandbox(dirs: Dirs) -> None:
    from tests.tui.pilot import run_command
    from tui.areas.disputes.view import DisputeDetailScreen
    from tui.areas.sandbox.view import SandboxView

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await run_command(pilot, "sandbox")
        view = app.screen.query_one(SandboxView)
        await until(lambda: bool(view.values_table.records))
        await pilot.press("7")  # a dispute
        await until(lambda: isinstance(app.screen, DisputeDetailScreen), 15)
        await pilot.press("escape")
        main = app.get_screen_main()
        await until(lambda: app.screen is main)
        assert main is not None and main.current_area() == "sandbox"


# -- 10. a failed refund is explained in a refund's words ---------------------------------------


async def test_a_failed_refund_is_explained_as_a_refund(dirs: Dirs) -> None:
    from tests.tui.pilot import run_command, shown_text
    from tui.api.models.refunds import RefundCreateRequest
    from tui.areas.refunds.view import RefundDetailScreen

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
        await until(lambda: isinstance(app.screen, RefundDetailScreen))
        screen = app.screen
        await until(lambda: screen.record is not None and screen.record.status == "failed")
        await pilot.pause()
        text = " ".join(shown_text(screen.section("failure")).split())
        assert "refund failed" in text and "not been paid back" in text
        assert "declined the payment" not in text and "another card" not in text


# -- 6. a bare word the screen shows (a status, a currency) filters Payments ---------------------


@pytest.mark.parametrize("real", [False, True], ids=["spec", "real"])
def test_a_bare_status_or_currency_filters_payments(real: bool) -> None:
    from tui.areas.payments.spec import payment_grammar

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
