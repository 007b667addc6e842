"""Pilot tests of every way to pay in the TUI against the embedded sandbox: the new-payment form
whose fields follow the family and type, the test-value picker, the customer's step completed
from the TUI, and the method's part of the payment detail."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select

from payscope.areas.payments.detail import PaymentDetailScreen
from payscope.areas.payments.forms import ConfirmForm, NewPaymentScreen, ThreeDSForm
from payscope.widgets.method_picker import TestValuePicker
from tests.tui.pilot import create_payment, field_error, open_detail, submit, until
from tests.tui.snapshot_app import build, ready
from tests.waits import REQUEST_TIMEOUT, on_screen

Dirs = tuple[Path, Path]


async def _new_payment(pilot, family: str, kind: str | None = None) -> NewPaymentScreen:  # type: ignore[no-untyped-def]
    app = pilot.app
    await pilot.press("n")
    await until(lambda: on_screen(app, NewPaymentScreen))
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


async def _answer(pilot, result: str) -> None:  # type: ignore[no-untyped-def]
    """Answer the customer's step from the TUI (`3`), as the customer would on the page."""
    app = pilot.app
    await pilot.press("3")
    await until(lambda: on_screen(app, ThreeDSForm))
    app.screen.query_one("#field-result", Select).value = result
    await submit(pilot, ThreeDSForm)


async def _saw_event(detail: PaymentDetailScreen, event: str) -> None:
    """Wait for the payment's `event` webhook to show in its detail's story."""
    story = detail.related_section("story").table
    await until(
        lambda: any(
            row.record.kind == "webhook" and row.record.what == event
            for row in story.records.values()
        )
    )


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
        await _answer(pilot, result)
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
        await until(lambda: on_screen(app, TestValuePicker))
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


_BILLING = {"address": {"line1": "1 Test Street", "city": "Testville", "country": "US"}}


async def _pay(client, family: str, type_: str, data: object, **extra: object):  # type: ignore[no-untyped-def]
    """A payment with a non-card method made through the client."""
    from payscope.api.models.payments import PaymentCreateRequest

    body = {
        "amount": 2500,
        "currency": "EUR",
        "confirm": True,
        "payment_method": family,
        "payment_method_type": type_,
        "payment_method_data": {family: data},
        "billing": _BILLING,
        "return_url": "https://example.com/return",
        **extra,
    }
    return await client.payments.create(PaymentCreateRequest.model_validate(body))


async def test_the_detail_shows_a_transfers_instructions_and_the_keys_to_answer(
    dirs: Dirs,
) -> None:
    from tests.tui.pilot import open_detail, shown_text

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        paid = await _pay(
            app.runtime.client,
            "bank_transfer",
            "sepa_bank_transfer",
            {"sepa_bank_transfer": {"country": "DE"}},
        )
        assert paid.next_action is not None
        steps = paid.next_action.model_dump()["bank_transfer_steps_and_charges_details"]
        iban = steps["sepa_bank_instructions"]["iban"]
        detail = await open_detail(pilot, paid.payment_id)
        method = shown_text(detail.section("card"))
        assert "bank_transfer · sepa_bank_transfer" in method
        assert detail.section("card").border_title == "Method and customer"
        instructions = shown_text(detail.section("next"))
        assert "display_bank_transfer_information" in instructions
        assert iban in instructions
        assert "3 answers it as the customer" in instructions
        assert "o opens" not in instructions  # a transfer has no page of the service
        assert detail.section("mandate").has_class("-hidden")


async def test_the_detail_shows_the_wallet_and_the_mandate_it_set_up(dirs: Dirs) -> None:
    from payscope.api.models.customers import CustomerCreateRequest
    from tests.tui.pilot import open_detail, shown_text

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        client = app.runtime.client
        customer = await client.customers.create(CustomerCreateRequest(name="Ada"))
        rows = await client.sandbox.test_methods()
        apple = next(r for r in rows if r["payment_method_type"] == "apple_pay")
        paid = await _pay(
            client,
            "wallet",
            "apple_pay",
            apple["payment_method_data"]["wallet"],
            customer_id=customer.customer_id,
            setup_future_usage="off_session",
            customer_acceptance={"acceptance_type": "offline"},
        )
        assert paid.status == "succeeded" and paid.mandate_id
        detail = await open_detail(pilot, paid.payment_id)
        method = shown_text(detail.section("card"))
        assert "wallet · apple_pay" in method
        assert "Visa 1111" in method
        assert "sandbox_success" not in method  # the token is masked by the service
        mandate = shown_text(detail.section("mandate"))
        assert paid.mandate_id in mandate
        assert "off_session" in mandate
        assert "offline" in mandate
        assert detail.section("next").has_class("-hidden")


# -- snapshots of the new screens --------------------------------------------------------------

SIZES = [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")]


async def _wallet_form(pilot) -> None:  # type: ignore[no-untyped-def]
    await ready(pilot)
    form = await _new_payment(pilot, "wallet", "google_pay")
    await until(lambda: bool(form.method_rows))
    form.query_one("#field-google_pay-tokenization_data-token", Input).focus()
    await pilot.pause()
    await pilot.pause()


async def _value_picker(pilot) -> None:  # type: ignore[no-untyped-def]
    await _wallet_form(pilot)
    await pilot.press("ctrl+t")
    await until(lambda: on_screen(pilot.app, TestValuePicker))
    await pilot.pause()


async def _transfer_detail(pilot) -> None:  # type: ignore[no-untyped-def]
    from tests.tui.pilot import open_detail

    await ready(pilot)
    paid = await _pay(
        pilot.app.runtime.client,
        "bank_transfer",
        "sepa_bank_transfer",
        {"sepa_bank_transfer": {"country": "DE"}},
        payment_id="pay_snapshot_transfer",
    )
    await open_detail(pilot, paid.payment_id)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


SHOTS = {
    "wallet_form": _wallet_form,
    "value_picker": _value_picker,
    "transfer_detail": _transfer_detail,
}


@pytest.mark.usefixtures("seeded_ids")
@pytest.mark.parametrize("shot", list(SHOTS))
@pytest.mark.parametrize("size", SIZES)
def test_snapshot(
    shot: str,
    size: tuple[int, int],
    dirs: Dirs,
    snap_compare: object,
) -> None:

    assert snap_compare(build(*dirs), terminal_size=size, run_before=SHOTS[shot])  # type: ignore[operator]


async def test_o_opens_the_methods_page_which_the_sandbox_serves(
    dirs: Dirs, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    from tests.tui.pilot import open_detail, shown_text, stub_browser

    opened = stub_browser(monkeypatch)
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        paid = await _pay(app.runtime.client, "pay_later", "affirm", {"affirm_redirect": {}})
        assert paid.next_action is not None and paid.next_action.redirect_to_url
        detail = await open_detail(pilot, paid.payment_id)
        assert "O opens the customer's page" in shown_text(detail.section("next"))
        await pilot.press("o")
        await until(lambda: opened == [paid.next_action.redirect_to_url])
        async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as browser_client:
            page = await browser_client.get(opened[0])
        assert page.status_code == 200
        assert "Authorize" in page.text


async def test_the_payments_list_filters_by_family_and_by_type(dirs: Dirs) -> None:
    from payscope.areas.payments.view import PaymentsView
    from tests.tui.pilot import apply_filter, filter_problem

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        client = app.runtime.client
        ideal = await _pay(client, "bank_redirect", "ideal", {"ideal": {"bank_name": "ing"}})
        eps = await _pay(client, "bank_redirect", "eps", {"eps": {"country": "AT"}})
        rows = await client.sandbox.test_methods()
        apple = next(r for r in rows if r["payment_method_type"] == "apple_pay")
        wallet = await _pay(client, "wallet", "apple_pay", apple["payment_method_data"]["wallet"])
        view = app.screen.query_one(PaymentsView)

        await apply_filter(pilot, view, "method:wallet")
        await until(lambda: set(view.rows) == {wallet.payment_id})
        await apply_filter(pilot, view, "method:ideal")
        await until(lambda: set(view.rows) == {ideal.payment_id})
        await apply_filter(pilot, view, "method:bank_redirect")
        await until(lambda: set(view.rows) == {ideal.payment_id, eps.payment_id})
        await apply_filter(pilot, view, "method:ideal,apple_pay")
        await until(lambda: set(view.rows) == {ideal.payment_id, wallet.payment_id})
        await apply_filter(pilot, view, "method:idael")
        assert "`idael` is not a payment method" in filter_problem(view)


@pytest.mark.parametrize(
    "family", ["wallet", "pay_later", "bank_redirect", "bank_transfer", "bank_debit", "crypto",
               "upi", "voucher", "gift_card", "reward", "open_banking", "mobile_payment",
               "real_time_payment", "card_redirect", "network_token"],
)  # fmt: skip
async def test_every_family_end_to_end_through_the_tui_with_its_webhook(
    dirs: Dirs, family: str
) -> None:
    """The form's first type of the family with its prefilled (succeeding) values; the customer's
    step answered from the TUI, or the sandbox clock moved on for what settles by itself; the
    payment succeeds and its webhook shows in the detail."""
    from payscope.api.models.methods import FAMILIES

    assert family in FAMILIES
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        form = await _new_payment(pilot, family)
        form.query_one("#field-currency", Input).value = "EUR"
        detail = await _send(pilot, form, f"pay_e2e_{family}")
        assert detail.payment.payment_method == family
        if detail.payment.status == "requires_action":
            await pilot.press("3")
            await until(lambda: on_screen(app, ThreeDSForm))
            await submit(pilot, ThreeDSForm)
            await until(lambda: detail.payment.status != "requires_action")
        if detail.payment.status == "processing":
            await app.runtime.client.sandbox.advance_clock(3 * 86400)
        await until(lambda: detail.payment.status == "succeeded")
        await _saw_event(detail, "payment_succeeded")


async def _confirm_later(pilot, family: str, kind: str) -> tuple[PaymentDetailScreen, ConfirmForm]:  # type: ignore[no-untyped-def]
    """A payment created without confirming, its detail open, and its confirm form (`o`) on
    `family`/`kind`."""
    app = pilot.app
    created = await create_payment(app.runtime.client, confirm=False)
    assert created.status == "requires_payment_method"
    detail = await open_detail(pilot, created.payment_id)
    await pilot.press("o")
    await until(lambda: on_screen(app, ConfirmForm))
    form = app.screen
    assert isinstance(form, ConfirmForm)
    # The card is the default, as on New payment; the 3-D Secure choice is the create's.
    assert form.shown("card") and not form.shown("authentication_type")
    form.query_one("#field-method", Select).value = family
    await pilot.pause()
    form.query_one(f"#field-{family}-kind", Select).value = kind
    await pilot.pause()
    return detail, form


@pytest.mark.parametrize(("result", "status"), [("authorize", "succeeded"), ("fail", "failed")])
async def test_a_two_step_payment_is_confirmed_with_a_bank_redirect_completed_from_the_tui(
    dirs: Dirs, result: str, status: str
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        detail, form = await _confirm_later(pilot, "bank_redirect", "ideal")
        # The same fields as New payment: iDEAL's bank, prefilled on the local sandbox.
        assert form.shown("ideal-bank_name") and not form.shown("card")
        assert form.query_one("#field-ideal-bank_name", Input).value == "ing"
        assert "pay with iDEAL" in str(form.query_one("#form-submit").label)
        await submit(pilot, ConfirmForm)
        await until(lambda: detail.payment.status == "requires_action" and not detail.busy)
        assert detail.payment.payment_method == "bank_redirect"
        assert detail.payment.payment_method_type == "ideal"
        await _answer(pilot, result)
        await until(lambda: detail.payment.status == status)
        await _saw_event(detail, f"payment_{status}")


async def test_a_two_step_payment_is_confirmed_with_a_wallet_and_its_test_value(
    dirs: Dirs,
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        detail, form = await _confirm_later(pilot, "wallet", "google_pay")
        assert form.shown("google_pay-tokenization_data-token")
        await until(lambda: bool(form.method_rows))
        await pilot.press("ctrl+t")
        await until(lambda: on_screen(app, TestValuePicker))
        table = app.screen.query_one(DataTable)
        table.move_cursor(row=table.get_row_index("sandbox_insufficient_funds"))
        await pilot.press("enter")
        await until(lambda: app.screen is form)
        assert "UE_1001" in str(form.query_one("#hint-wallet-kind").render())
        await submit(pilot, ConfirmForm)
        await until(lambda: detail.payment.status == "failed" and not detail.busy)
        assert detail.payment.payment_method == "wallet"
        assert detail.payment.payment_method_type == "google_pay"
        assert detail.payment.unified_code == "UE_1001"

        # Another two-step payment, the wallet's prefilled (succeeding) token.
        detail, form = await _confirm_later(pilot, "wallet", "google_pay")
        await submit(pilot, ConfirmForm)
        await until(lambda: detail.payment.status == "succeeded" and not detail.busy)
        assert detail.payment.payment_method_type == "google_pay"
        await _saw_event(detail, "payment_succeeded")


async def test_a_confirm_with_a_method_field_left_blank_is_refused_at_the_field(
    dirs: Dirs,
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        detail, form = await _confirm_later(pilot, "bank_debit", "sepa_bank_debit")
        form.query_one("#field-sepa_bank_debit-iban", Input).value = ""
        await pilot.press("ctrl+s")
        await until(lambda: bool(field_error(form, "sepa_bank_debit-iban")))
        assert app.screen is form
        assert field_error(form, "sepa_bank_debit-iban") == "Required."
        assert (await app.runtime.client.payments.retrieve(detail.payment.payment_id)).status == (
            "requires_payment_method"
        )
