"""Pilot tests of every way to pay in the TUI against the embedded sandbox: the new-payment form
whose fields follow the family and type, the test-value picker, the customer's step completed
from the TUI, and the method's part of the payment detail."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select

from tests.tui.pilot import field_error, submit, until
from tests.tui.snapshot_app import build, ready
from tui.areas.payments.detail import PaymentDetailScreen
from tui.areas.payments.forms import NewPaymentScreen, ThreeDSForm
from tui.widgets.method_picker import TestValuePicker

Dirs = tuple[Path, Path]


async def _new_payment(pilot, family: str, kind: str | None = None) -> NewPaymentScreen:  # type: ignore[no-untyped-def]
    app = pilot.app
    await pilot.press("n")
    await until(lambda: isinstance(app.screen, NewPaymentScreen))
    form = app.screen
    assert isinstance(form, NewPaymentScreen)
    form.query_one("#field-method", Select).value = family
    await pilot.pause()
    if kind is not None:
        form.query_one(f"#field-{family}-kind", Select).value = kind
        await pilot.pause()
    return form


async def _send(pilot, form: NewPaymentScreen, payment_id: str) -> PaymentDetailScreen:  # type: ignore[no-untyped-def]
    app = pilot.app
    form.query_one("#field-payment_id", Input).value = payment_id
    await submit(pilot, NewPaymentScreen)
    await until(
        lambda: isinstance(app.screen, PaymentDetailScreen) and app.screen.payment is not None
    )
    detail = app.screen
    assert isinstance(detail, PaymentDetailScreen)
    return detail


@pytest.mark.parametrize(
    ("result", "status", "code"),
    [
        ("authorize", "succeeded", None),
        ("fail", "failed", "UE_1007"),
        ("abandon", "failed", "UE_1017"),
    ],
)
async def test_a_bank_redirect_is_answered_from_the_tui(
    dirs: Dirs, result: str, status: str, code: str | None
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        form = await _new_payment(pilot, "bank_redirect", "ideal")
        # The fields follow the type: iDEAL's bank, prefilled on the local sandbox.
        assert form.shown("ideal-bank_name") and not form.shown("card")
        assert form.query_one("#field-ideal-bank_name", Input).value == "ing"
        detail = await _send(pilot, form, f"pay_ideal_{result}")
        assert detail.payment.status == "requires_action"
        assert detail.payment.payment_method == "bank_redirect"
        assert detail.payment.payment_method_type == "ideal"
        await pilot.press("3")
        await until(lambda: isinstance(app.screen, ThreeDSForm))
        app.screen.query_one("#field-result", Select).value = result
        await submit(pilot, ThreeDSForm)
        await until(lambda: detail.payment.status == status)
        assert detail.payment.unified_code == code


async def test_a_wallet_declines_by_the_test_value_picked(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        rows = await app.runtime.client.sandbox.test_methods()
        google = next(r for r in rows if r["payment_method_type"] == "google_pay")
        form = await _new_payment(pilot, "wallet", "google_pay")
        await until(lambda: bool(form.method_rows))
        await pilot.press("ctrl+t")
        await until(lambda: isinstance(app.screen, TestValuePicker))
        table = app.screen.query_one(DataTable)
        assert table.row_count == len(google["test_values"])
        table.move_cursor(row=table.get_row_index("sandbox_insufficient_funds"))
        await pilot.press("enter")
        await until(lambda: app.screen is form)
        token = form.query_one("#field-google_pay-tokenization_data-token", Input)
        assert token.value == "sandbox_insufficient_funds"
        assert "UE_1001" in str(form.query_one("#hint-wallet-kind").render())
        detail = await _send(pilot, form, "pay_gpay_funds")
        assert detail.payment.status == "failed"
        assert detail.payment.unified_code == "UE_1001"


async def test_a_required_method_field_left_blank_is_refused_at_the_field(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        form = await _new_payment(pilot, "bank_debit", "sepa_bank_debit")
        form.query_one("#field-sepa_bank_debit-iban", Input).value = ""
        await pilot.press("ctrl+s")
        await until(lambda: bool(field_error(form, "sepa_bank_debit-iban")))
        assert app.screen is form
        assert field_error(form, "sepa_bank_debit-iban") == "Required."
