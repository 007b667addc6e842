"""Wording (issue 41): errors keep currency codes in capitals; an empty card field is required,
not "may hold digits only"."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from payscope.views.forms import in_sentence
from tests.tui.pilot import create_payment, field_error, open_detail, until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]


def test_a_label_in_a_sentence_keeps_its_codes_in_capitals() -> None:
    assert in_sentence("Amount (USD)") == "amount (USD)"
    assert in_sentence("Amount to capture (EUR)") == "amount to capture (EUR)"
    assert in_sentence("CVC") == "CVC"
    assert in_sentence("Card number") == "card number"


async def test_the_forms_check_line_says_the_currency_in_capitals(dirs: Dirs) -> None:
    from payscope.areas.payments.forms import RefundForm

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        created = await create_payment(app.runtime.client, amount=2500)
        await open_detail(pilot, created.payment_id)
        await pilot.press("f")
        await until(lambda: on_screen(app, RefundForm))
        form = app.screen
        form.query_one("#field-amount", Input).value = "lots"
        await pilot.press("ctrl+s")
        await pilot.pause()
        line = str(form.query_one("#form-error").render())
        assert "check amount (USD)" in line, line
        assert "(usd)" not in line


async def test_an_empty_card_field_is_required(dirs: Dirs) -> None:
    from payscope.areas.payments.forms import NewPaymentScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("n")
        await until(lambda: on_screen(app, NewPaymentScreen))
        form = app.screen
        await until(lambda: form.is_mounted and bool(form.query("#field-card")))
        form.query_one("#field-card", Input).value = ""  # as a remote profile's form starts
        await pilot.press("ctrl+s")
        await until(lambda: field_error(form, "card") != "")
        error = field_error(form, "card")
        assert "required" in error.lower(), error
        assert "digits only" not in error
