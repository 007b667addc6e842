"""Payouts against the embedded sandbox: the seeded list (paging, filters and their mistakes,
live rows), a new payout per method family (card, bank schemes, wallet, bank redirect,
passthrough) with per-field errors from the models and the service, the flow through the
detail's steps (update -> confirm -> fulfil -> settled, cancel, reverse), actions offered only in
the states that allow them, the real service's shapes, hostile text, and snapshots at two
sizes in two themes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Checkbox, Input, Select, Static, TextArea

from payscope.areas.payouts.detail import PayoutDetailScreen
from payscope.areas.payouts.forms.payout import NewPayoutForm, PayoutUpdateForm, account_said
from payscope.areas.payouts.spec import list_request, method_of, method_text
from payscope.areas.payouts.view import PayoutsView
from payscope.views.forms import ConfirmScreen
from payscope.views.model_fields import ACCOUNT_NUMBERS
from payscope.widgets.inputs import MaskedInput, Picker, last_digits, mask
from tests.tui.area_snapshots import screens_in_every_look
from tests.tui.pilot import (
    apply_filter,
    field_error,
    filter_problem,
    open_list,
    open_record,
    run_command,
    screen_text,
    shown_text,
    submit,
    type_text,
    until,
)
from tests.tui.snapshot_app import build
from tests.waits import on_screen

Dirs = tuple[Path, Path]
HOSTILE = "[b]x[/b]\x1b[5m"
HOSTILE_SHOWN = "[b]x[/b]\\x1b[5m"  # ESC shown escaped, brackets kept
SEEDED = 12  # payouts the conftest's seeded sandbox holds (40 payments: at least 12)


async def _payouts(pilot: Any) -> PayoutsView:
    """Start, go to `:payouts` and wait for its first page."""
    return await open_list(pilot, "payouts", PayoutsView)


def _header(view: PayoutsView) -> str:
    return str(view.query_one("#payouts-header", Static).render())


async def _open(pilot: Any, payout_id: str) -> PayoutDetailScreen:
    """Open a payout the way `:payout <id>` does, and wait for it to load."""
    return await open_record(pilot, f"payout {payout_id}", PayoutDetailScreen)


async def _payout(client: Any, **fields: Any) -> Any:
    """A payout made through the client (the tests then act on it through the screens)."""
    from payscope.api.models.payouts import PayoutCreateRequest

    body: dict[str, Any] = {"amount": 1250, "currency": "USD", **fields}
    return await client.payouts.create(PayoutCreateRequest.model_validate(body))


CARD = {
    "card": {
        "card_number": "4242424242424242",
        "expiry_month": "10",
        "expiry_year": "2030",
        "card_holder_name": "Ada Lovelace",
    }
}


async def _new_form(pilot: Any) -> NewPayoutForm:
    app = pilot.app
    await pilot.press("n")
    await until(lambda: on_screen(app, NewPayoutForm))
    form = app.screen
    assert isinstance(form, NewPayoutForm)
    await pilot.pause()
    return form


async def _choose(pilot: Any, form: Any, name: str, value: str) -> None:
    form.query_one(f"#field-{name}", Select).value = value
    await pilot.pause()


def _type(form: Any, values: dict[str, str]) -> None:
    for name, value in values.items():
        form.query_one(f"#field-{name}", Input).value = value


def _steps(detail: PayoutDetailScreen) -> str:
    return shown_text(detail.section("flow"))


def _current_step(detail: PayoutDetailScreen) -> str:
    line = next(line for line in _steps(detail).splitlines() if "▶" in line)
    return line.split("▶", 1)[1].strip()


def _offered(detail: PayoutDetailScreen) -> set[str]:
    return {a.name for a in detail.allowed()}


def _buttons(detail: PayoutDetailScreen) -> set[str]:
    from textual.widgets import Button

    return {
        (b.id or "").removeprefix("act-")
        for b in detail.query("#detail-actions Button").results(Button)
        if b.display
    }


# -- the list --------------------------------------------------------------------------------------


async def test_seeded_payouts_show_on_a_fresh_start_newest_first(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _payouts(pilot)
        page = await app.runtime.client.payouts.list()
        assert page.total_count == SEEDED == len(view.rows)
        created = [p.created for p in view.rows.values()]
        assert created == sorted(created, reverse=True)
        assert f"1-{SEEDED} of {SEEDED}" in _header(view)
        # The method: its type and masked last digits, never a whole number.
        methods = {view.table.get_cell(i, "method").plain for i in view.rows}
        assert {"card •••• 4242", "ACH •••• 6789", "SEPA •••• 3000", "BACS •••• 9911"} <= methods
        screen = app.export_screenshot()
        assert "4242424242424242" not in screen and "000123456789" not in screen


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_narrow_keeps_payout_status_and_amount(dirs: Dirs, size: tuple[int, int]) -> None:
    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        view = await _payouts(pilot)
        shown = [key for key, _width in view.table.fitted]
        assert shown[:3] == ["payout_id", "status", "amount"]
        if size[0] >= 120:
            assert {"method", "created"} <= set(shown)


async def test_pages_forward_and_back(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _payouts(pilot)
        everything = list(view.rows)
        view.page_size = 5
        await pilot.press("r")
        await until(lambda: len(view.rows) == 5)
        assert "1-5 of 12" in _header(view) and "page 1/3" in _header(view)
        await pilot.press("right_square_bracket")
        await until(lambda: view.page_offset == 5 and list(view.rows) == everything[5:10])
        assert "page 2/3" in _header(view)
        await pilot.press("right_square_bracket")
        await until(lambda: list(view.rows) == everything[10:])
        await pilot.press("left_square_bracket")
        await until(lambda: list(view.rows) == everything[5:10])


async def test_filters_by_status_currency_method_time_amount_and_id(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _payouts(pilot)
        seeded = list(view.rows.values())

        await apply_filter(pilot, view, "status:failed")
        assert {p.status for p in view.rows.values()} == {"failed"}
        assert len(view.rows) == sum(p.status == "failed" for p in seeded)
        await apply_filter(pilot, view, "status:requires_fulfillment")
        assert view.rows == {}
        assert "Nothing matches this filter" in shown_text(view.query_one(".empty", Static))

        await apply_filter(pilot, view, "currency:eur")
        assert view.rows and {p.currency for p in view.rows.values()} == {"EUR"}
        assert len(view.rows) == sum(p.currency == "EUR" for p in seeded)

        await apply_filter(pilot, view, "method:wallet")
        wallets = [p for p in seeded if p.payout_type == "wallet"]
        assert wallets and set(view.rows) == {p.payout_id for p in wallets}
        await apply_filter(pilot, view, "method:card,bank_redirect")
        assert {p.payout_type for p in view.rows.values()} == {"card", "bank_redirect"}

        # The time window is the service's (time_range); a day holds only its own payouts.
        target = seeded[3]
        day = str(target.created)[:10]
        await apply_filter(pilot, view, f"from:{day} to:{day}")
        assert target.payout_id in view.rows
        assert all(str(p.created)[:10] == day for p in view.rows.values())
        await apply_filter(pilot, view, f"to:{day}")
        assert set(view.rows) == {p.payout_id for p in seeded if str(p.created)[:10] <= day}

        # No amount filter in the service: matched in the view, over the newest payouts.
        amount = f"{target.amount // 100}.{target.amount % 100:02d}"
        await apply_filter(pilot, view, f"amount:{amount}")
        assert target.payout_id in view.rows
        assert all(p.amount == target.amount for p in view.rows.values())
        assert "in all" in _header(view)
        await apply_filter(pilot, view, "amount:2000- currency:USD")
        assert all(p.amount >= 200000 and p.currency == "USD" for p in view.rows.values())

        await apply_filter(pilot, view, target.payout_id)  # a whole payout_… id
        assert list(view.rows) == [target.payout_id]
        await apply_filter(pilot, view, target.payout_id[7:15])  # part of one
        assert list(view.rows) == [target.payout_id]
        await apply_filter(pilot, view, f"customer:{target.customer_id}")
        assert target.payout_id in view.rows
        assert {p.customer_id for p in view.rows.values()} == {target.customer_id}

        # Esc clears the filter: every payout again.
        await pilot.press("escape")
        await until(lambda: len(view.rows) == SEEDED)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("status:paid", "is not a payout status"),
        ("status:requires", "Did you mean requires_creation"),
        ("method:crypto", "is not a payout method"),
        ("currency:EURO", "ISO 4217"),
        ("from:2024-06-01 to:2024-05-01", "Swap them"),
        ("from:yesterday", "is not a date"),
        ("amount:12.345", "2 decimal places"),
        ("entity:alien", "is not an entity type"),
        ("colour:red", "Unknown filter"),
        ("pa", "at least 4 characters"),
    ],
)
async def test_a_filter_mistake_is_said_and_the_rows_stay(dirs: Dirs, text: str, said: str) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _payouts(pilot)
        before = list(view.rows)
        await apply_filter(pilot, view, text)
        assert said in filter_problem(view)
        assert list(view.rows) == before


def test_list_request_turns_from_and_to_into_the_time_range() -> None:
    request = list_request({"start_time": "2024-04-01T00:00:00Z", "status": ["success"]}, 0, 20)
    assert request.to_body()["time_range"] == {"start_time": "2024-04-01T00:00:00Z"}
    assert request.to_body()["status"] == ["success"] and request.limit == 20
    only_end = list_request({"end_time": "2024-04-30T23:59:59Z"}, 40, 20).to_body()
    assert only_end["time_range"]["end_time"] == "2024-04-30T23:59:59Z"
    assert only_end["time_range"]["start_time"] == "1970-01-01T00:00:00Z"
    assert only_end["offset"] == 40


# -- live rows -------------------------------------------------------------------------------------


async def test_a_payout_webhook_updates_its_row_and_a_new_one_comes_on_top(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _payouts(pilot)
        client = app.runtime.client
        # Made elsewhere (not through payscope): only its webhook tells the list.
        payout = await _payout(
            client,
            payout_type="card",
            payout_method_data=CARD,
            confirm=True,
            auto_fulfill=True,
            priority="instant",
        )
        assert payout.status == "initiated"
        await until(lambda: payout.payout_id in view.rows)  # payout_initiated
        assert next(iter(view.rows)) == payout.payout_id
        assert view.rows[payout.payout_id].status == "initiated"
        assert f"of {SEEDED + 1}" in _header(view)
        # An instant payout settles 10 seconds on: payout_success redraws the row.
        await client.sandbox.advance_clock(11)
        await until(lambda: view.rows[payout.payout_id].status == "success")
        cell = view.table.get_cell(payout.payout_id, "status")
        assert cell.plain == "success"
        errors = [n.message for n in app.told if n.severity == "error"]
        assert errors == []


# -- new payouts, per method family ----------------------------------------------------------------


async def test_new_card_payout_end_to_end(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _payouts(pilot)
        form = await _new_form(pilot)
        # Card is the first method: its fields show, no other method's.
        shown = form.shown_fields()
        assert {"card-card_number", "card-expiry_month", "card-card_holder_name"} <= shown
        assert not any(n.startswith(("ach-", "sepa-", "paypal-")) for n in shown)
        assert "bank_transfer-kind" not in shown
        assert form.query_one("#field-payout_type", Select).value == "card"

        number = form.query_one("#field-card-card_number", MaskedInput)
        number.focus()
        await type_text(pilot, "4242 4242 4242 4242")
        assert number.shown(number.value) == "4242 4242 4242 4242"  # readable while typed
        _type(form, {"card-expiry_month": "10", "card-expiry_year": "2030"})
        _type(form, {"card-card_holder_name": "Ada Lovelace", "amount": "42.50"})
        form.query_one("#field-description", Input).focus()
        await pilot.pause()
        # Masked once the focus moved on (the value itself is whole).
        assert number.shown(number.value) == "•••• •••• •••• 4242"
        assert "4242 4242 4242 4242" not in screen_text(app)
        form.query_one("#field-description", Input).value = "Seller settlement"
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Create payout · 42.50 USD"
        await submit(pilot, NewPayoutForm)

        await until(lambda: on_screen(app, PayoutDetailScreen))
        detail = app.screen
        assert isinstance(detail, PayoutDetailScreen)
        await until(lambda: detail.record is not None and not detail.busy)
        payout = detail.record
        assert (payout.amount, payout.currency, payout.status) == (
            4250,
            "USD",
            "requires_confirmation",
        )
        assert payout.payout_type == "card" and payout.description == "Seller settlement"
        assert method_text(payout) == "card •••• 4242"
        method = shown_text(detail.section("method"))
        assert "•••• 4242" in method and "4242424242424242" not in method
        assert _current_step(detail).startswith("Confirmed")
        # Back on the list, the new payout is the top row.
        await pilot.press("escape")
        await until(lambda: payout.payout_id in view.rows)
        assert next(iter(view.rows)) == payout.payout_id


@pytest.mark.parametrize(
    ("scheme", "values", "shown"),
    [
        (
            "ach",
            {"ach-bank_account_number": "000123456789", "ach-bank_routing_number": "110000000"},
            "ACH •••• 6789",
        ),
        (
            "sepa",
            {"sepa-iban": "DE89370400440532013000", "sepa-bic": "COBADEFFXXX"},
            "SEPA •••• 3000",
        ),
        (
            "bacs",
            {"bacs-bank_account_number": "55779911", "bacs-bank_sort_code": "200000"},
            "BACS •••• 9911",
        ),
        (
            "pix",
            {
                "pix-bank_account_number": "12345678",
                "pix-pix_key": "a1f4102e-6fa4-8899-c1d1-000000001234",
                "pix-emv": "00020126580014br.gov.bcb.pix0136a1f4",
            },
            "Pix •••• 5678",
        ),
    ],
)
async def test_new_bank_payout_per_scheme_confirmed_at_once(
    dirs: Dirs, scheme: str, values: dict[str, str], shown: str
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _payouts(pilot)
        form = await _new_form(pilot)
        await _choose(pilot, form, "method", "bank_transfer")
        assert form.shown("bank_transfer-kind")
        assert form.query_one("#field-payout_type", Select).value == "bank"
        await _choose(pilot, form, "bank_transfer-kind", scheme)
        # Only this scheme's fields show; the scheme says what it is (the model's words).
        fields = {n for n in form.shown_fields() if "-" in n and not n.startswith("customer")}
        assert {n.split("-")[0] for n in fields} == {scheme, "bank_transfer"}
        assert set(values) <= fields
        assert shown_text(form.query_one("#hint-bank_transfer-kind")).strip()
        _type(form, values)
        form.query_one("#field-currency", Input).value = "EUR"
        form.query_one("#field-confirm", Checkbox).value = True
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Create and confirm · 25.00 EUR"
        await submit(pilot, NewPayoutForm)
        await until(lambda: on_screen(app, PayoutDetailScreen))
        detail = app.screen
        await until(lambda: detail.record is not None and not detail.busy)
        payout = detail.record
        assert payout.status == "requires_fulfillment" and payout.payout_type == "bank"
        assert method_text(payout) == shown
        # Stored and shown masked: no whole account number anywhere on screen.
        screen = app.export_screenshot()
        for name, value in values.items():
            if name.split("-", 1)[1] in ACCOUNT_NUMBERS:
                assert value not in screen
        assert _current_step(detail).startswith("Fulfilled")


async def test_new_wallet_payout_sent_at_once_with_auto_fulfil(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _payouts(pilot)
        form = await _new_form(pilot)
        await _choose(pilot, form, "method", "wallet")
        await _choose(pilot, form, "wallet-kind", "paypal")
        assert {
            "paypal-email",
            "paypal-telephone_number",
            "paypal-paypal_id",
        } <= form.shown_fields()
        assert "venmo-telephone_number" not in form.shown_fields()
        _type(
            form,
            {
                "paypal-email": "payee@example.com",
                "paypal-telephone_number": "5551234567",
                "paypal-paypal_id": "PAYPAL123",
            },
        )
        await _choose(pilot, form, "priority", "instant")
        form.query_one("#field-auto_fulfill", Checkbox).value = True
        form.query_one("#field-confirm", Checkbox).value = True
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Create and send · 25.00 USD"
        await submit(pilot, NewPayoutForm)
        await until(lambda: on_screen(app, PayoutDetailScreen))
        detail = app.screen
        await until(lambda: detail.record is not None and not detail.busy)
        assert detail.record.status == "initiated" and detail.record.payout_type == "wallet"
        assert method_text(detail.record) == "PayPal •••• 4567"
        assert _current_step(detail).startswith("Sent")
        assert len(detail.record.attempts) == 1
        await app.runtime.client.sandbox.advance_clock(11)
        await until(lambda: detail.record.status == "success")
        assert "✓ Paid out" in _steps(detail)


@pytest.mark.parametrize(
    ("method", "kind", "values", "shown"),
    [
        ("bank_redirect", "interac", {"interac-email": "payee@example.ca"}, "Interac"),
        (
            "passthrough",
            None,
            {
                "passthrough-psp_token": "tok_psp_0000009876",
                "passthrough-psp_customer_id": "psp_cus_1",
                "passthrough-token_type": "card",
            },
            "passthrough •••• 9876",
        ),
    ],
)
async def test_new_redirect_and_passthrough_payouts(
    dirs: Dirs, method: str, kind: str | None, values: dict[str, str], shown: str
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _payouts(pilot)
        form = await _new_form(pilot)
        await _choose(pilot, form, "method", method)
        if kind is not None:
            await _choose(pilot, form, f"{method}-kind", kind)
        else:
            # A token fits any payout type: none is implied, the user picks one.
            await _choose(pilot, form, "payout_type", "card")
        _type(form, values)
        await submit(pilot, NewPayoutForm)
        await until(lambda: on_screen(app, PayoutDetailScreen))
        detail = app.screen
        await until(lambda: detail.record is not None and not detail.busy)
        assert detail.record.status == "requires_confirmation"
        assert method_text(detail.record) == shown


async def test_the_method_is_picked_with_the_keyboard(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _payouts(pilot)
        form = await _new_form(pilot)
        form.query_one("#field-method", Select).focus()
        await pilot.press("enter", "down", "enter")  # Card -> Bank account
        await until(lambda: form.value("method") == "bank_transfer")
        await until(lambda: form.shown("ach-bank_routing_number"))
        assert form.query_one("#field-card-card_number").has_class("-off")
        assert not form.query_one("#field-ach-bank_routing_number").has_class("-off")


async def test_missing_and_wrong_fields_are_said_under_each_field(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _payouts(pilot)
        form = await _new_form(pilot)
        # A card: a short number, a month that is none, no holder; a bad amount (the form
        # opens filled with a test card that pays out: the holder is emptied here).
        _type(
            form,
            {
                "card-card_number": "4242",
                "card-expiry_month": "13",
                "card-card_holder_name": "",
                "amount": "1.234",
            },
        )
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "12 to 19 digits" in field_error(form, "card-card_number")
        assert "01 to 12" in field_error(form, "card-expiry_month")
        assert field_error(form, "card-card_holder_name") == "Required."
        assert "2 decimal places" in field_error(form, "amount")
        assert "Not sent: check" in str(form.query_one("#form-error").render())
        assert app.screen is form

        # SEPA without its BIC: the model's rule, under the BIC.
        await _choose(pilot, form, "method", "bank_transfer")
        await _choose(pilot, form, "bank_transfer-kind", "sepa")
        _type(form, {"sepa-iban": "DE89370400440532013000", "amount": "10.00"})
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert field_error(form, "sepa-bic") == "Required."
        assert field_error(form, "sepa-iban") == "" and field_error(form, "amount") == ""
        # The card's errors went with its fields.
        assert field_error(form, "card-card_number") == ""

        # The request model's own checks: a bad e-mail under the customer's e-mail.
        _type(form, {"sepa-bic": "COBADEFFXXX", "customer-email": "nobody"})
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "e-mail address" in field_error(form, "customer-email")
        form.query_one("#field-metadata", TextArea).text = "not a pair"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "Line 1" in field_error(form, "metadata")
        assert app.screen is form
        page = await app.runtime.client.payouts.list()
        assert page.total_count == SEEDED == len(view.rows)  # nothing was sent


async def test_a_refusal_of_the_service_is_said_at_its_field(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _payouts(pilot)
        form = await _new_form(pilot)
        # No method yet, but confirmed at once: the service refuses (a payout needs one).
        await _choose(pilot, form, "method", "none")
        assert not any(n.startswith("card-") for n in form.shown_fields())
        form.query_one("#field-confirm", Checkbox).value = True
        await pilot.press("ctrl+s")
        await until(lambda: bool(field_error(form, "method")))
        assert "payout_method_data" in field_error(form, "method")
        assert "see method" in str(form.query_one("#form-error").render())
        assert app.screen is form
        # Without confirming, it is made: it waits for its method.
        form.query_one("#field-confirm", Checkbox).value = False
        await submit(pilot, NewPayoutForm)
        await until(lambda: on_screen(app, PayoutDetailScreen))
        detail = app.screen
        await until(lambda: detail.record is not None and not detail.busy)
        assert detail.record.status == "requires_payout_method_data"


def test_test_accounts_are_said_in_a_few_words() -> None:
    from payscope.sandbox.resources.payouts.engine import TEST_ACCOUNTS

    said = [account_said(r) for r in TEST_ACCOUNTS]
    assert said[0] == "…0002 → failed when it settles"
    assert said[1] == "…0005 → ineligible at confirmation"
    assert said[2] == "fail@… → failed when it settles"


async def test_the_new_form_names_the_sandbox_test_accounts(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _payouts(pilot)
        form = await _new_form(pilot)
        await until(lambda: "Sandbox:" in shown_text(form.query_one("#hint-method")))
        assert "…0005 → ineligible" in shown_text(form.query_one("#hint-method"))


async def test_a_real_service_profile_is_offered_only_the_bank_schemes_it_takes(dirs: Dirs) -> None:

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _payouts(pilot)
        form = await _new_form(pilot)
        await _choose(pilot, form, "method", "bank_transfer")
        schemes = form.query_one("#field-bank_transfer-kind", Picker)
        spec = [value for _label, value in schemes.choices]
        assert {"trustly", "pix_key", "pix_emv", "open_banking"} <= set(spec)  # the spec's
        await pilot.press("escape")

        app.runtime.api.contract_setting = "real"  # a profile speaking the real contract
        form = await _new_form(pilot)
        await _choose(pilot, form, "method", "bank_transfer")
        schemes = form.query_one("#field-bank_transfer-kind", Picker)
        real = [value for _label, value in schemes.choices]
        assert real == ["ach", "bacs", "sepa", "pix"]


# -- the flow through the detail -------------------------------------------------------------------


async def test_update_confirm_fulfill_through_the_steps(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _payouts(pilot)
        client = app.runtime.client
        payout = await _payout(client, description="no method yet", priority="instant")
        await pilot.press("r")
        await until(lambda: payout.payout_id in view.rows)
        detail = await _open(pilot, payout.payout_id)

        # 1. Method data: only Update (and Cancel) are offered.
        assert _current_step(detail).startswith("Method data")
        assert _offered(detail) == {"update", "cancel", "customer"}
        assert _buttons(detail) == {"update", "cancel", "customer"}
        assert "e Update" in _steps(detail) and "No method yet" in shown_text(
            detail.section("method")
        )
        await pilot.press("o")  # not offered now: nothing opens
        await pilot.press("f")
        await pilot.pause()
        assert app.screen is detail

        await pilot.press("e")
        await until(lambda: on_screen(app, PayoutUpdateForm))
        form = app.screen
        assert isinstance(form, PayoutUpdateForm)
        assert form.value("method") == "keep"
        assert str(form.query_one("#form-submit").label) == "Nothing changed yet"
        await _choose(pilot, form, "method", "bank_transfer")
        await _choose(pilot, form, "bank_transfer-kind", "ach")
        _type(
            form,
            {"ach-bank_account_number": "000123456789", "ach-bank_routing_number": "110000000"},
        )
        form.query_one("#field-amount", Input).value = "20.00"
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Save amount, type, method"
        await submit(pilot, PayoutUpdateForm)

        # 2. Confirmed is next: o confirms (e still changes it).
        await until(lambda: detail.record.status == "requires_confirmation" and not detail.busy)
        assert detail.record.amount == 2000 and method_text(detail.record) == "ACH •••• 6789"
        assert _current_step(detail).startswith("Confirmed")
        assert _offered(detail) == {"update", "confirm", "cancel", "customer"}
        await until(lambda: view.rows[payout.payout_id].status == "requires_confirmation")
        await pilot.press("o")
        await until(lambda: on_screen(app, ConfirmScreen))
        assert str(app.screen.query_one("#form-submit").label) == "Confirm payout"
        await submit(pilot, ConfirmScreen)

        # 3. Fulfilled is next: f sends it.
        await until(lambda: detail.record.status == "requires_fulfillment" and not detail.busy)
        assert _current_step(detail).startswith("Fulfilled")
        assert _offered(detail) == {"fulfill", "cancel", "customer"}
        await pilot.press("f")
        await until(lambda: on_screen(app, ConfirmScreen))
        assert str(app.screen.query_one("#form-submit").label) == "Send 20.00 USD"
        await submit(pilot, ConfirmScreen)

        # 4. Sent: it settles by itself; its webhook brings the outcome.
        await until(lambda: detail.record.status == "initiated" and not detail.busy)
        assert _current_step(detail).startswith("Sent")
        assert _offered(detail) == {"cancel", "customer"}
        assert "sandbox" in shown_text(detail.section("attempts"))
        await client.sandbox.advance_clock(11)
        await until(lambda: detail.record.status == "success")
        assert "▶" not in _steps(detail) and "✓ Paid out" in _steps(detail)
        assert _offered(detail) == {"reverse", "customer"}
        await pilot.press("escape")
        await until(lambda: view.rows[payout.payout_id].status == "success")


async def test_a_closed_account_fails_and_its_code_is_explained(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _payouts(pilot)
        client = app.runtime.client
        closed = {
            "bank_transfer": {
                "bank_account_number": "000123450002",
                "bank_routing_number": "110000000",
            }
        }
        payout = await _payout(
            client,
            payout_type="bank",
            payout_method_data=closed,
            confirm=True,
            auto_fulfill=True,
            priority="instant",
        )
        detail = await _open(pilot, payout.payout_id)
        assert not detail.section("failure").display
        await client.sandbox.advance_clock(11)
        await until(lambda: detail.record.status == "failed" and not detail.busy)
        failure = shown_text(detail.section("failure"))
        assert "account_closed" in failure and "Recipient account closed" in failure
        assert "Retry" in failure and "account is closed" in failure
        assert "✗ Failed" in _steps(detail)
        assert _offered(detail) == {"customer"}


async def test_an_ineligible_account_stops_at_confirmation(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _payouts(pilot)
        ineligible = {"bank_transfer": {"iban": "DE89370400440532010005", "bic": "COBADEFFXXX"}}
        payout = await _payout(
            app.runtime.client, payout_type="bank", payout_method_data=ineligible
        )
        detail = await _open(pilot, payout.payout_id)
        await pilot.press("o")
        await submit(pilot, ConfirmScreen)
        await until(lambda: detail.record.status == "ineligible" and not detail.busy)
        assert "✗ Confirmed" in _steps(detail)
        assert "account_ineligible" in shown_text(detail.section("failure"))


async def test_cancel_where_allowed(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _payouts(pilot)
        payout = await _payout(
            app.runtime.client, payout_type="card", payout_method_data=CARD, confirm=True
        )
        await pilot.press("r")
        await until(lambda: payout.payout_id in view.rows)
        detail = await _open(pilot, payout.payout_id)
        assert detail.record.status == "requires_fulfillment"
        await pilot.press("x")
        await until(lambda: on_screen(app, ConfirmScreen))
        confirm = app.screen
        assert "Nothing more is sent" in shown_text(confirm.query_one("#form-intro"))
        await submit(pilot, ConfirmScreen)
        await until(lambda: detail.record.status == "cancelled" and not detail.busy)
        assert "✗ Fulfilled" in _steps(detail) and "cancelled" in _steps(detail)
        assert _offered(detail) == {"customer"}
        assert _buttons(detail) == {"customer"}
        await pilot.press("x")  # no longer offered
        await pilot.pause()
        assert app.screen is detail
        await pilot.press("escape")
        await until(lambda: view.rows[payout.payout_id].status == "cancelled")


async def test_reverse_a_paid_out_payout_on_the_sandbox(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _payouts(pilot)
        paid = next(p for p in view.rows.values() if p.status == "success")
        detail = await _open(pilot, paid.payout_id)
        assert "R: the sandbox bank" in _steps(detail)
        await pilot.press("R")
        await submit(pilot, ConfirmScreen)
        await until(lambda: detail.record.status == "reversed" and not detail.busy)
        assert "✗ Reversed" in _steps(detail)
        await pilot.press("escape")
        await until(lambda: view.rows[paid.payout_id].status == "reversed")


async def test_row_actions_follow_the_selected_payouts_state(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _payouts(pilot)
        client = app.runtime.client
        ready_to_send = await _payout(
            client, payout_type="card", payout_method_data=CARD, confirm=True
        )
        await pilot.press("r")
        await until(lambda: ready_to_send.payout_id in view.rows)
        failed = next(i for i, p in view.rows.items() if p.status == "failed")

        def offered(payout_id: str) -> set[str]:
            view.table.move_cursor(row=view.table.get_row_index(payout_id))
            names = ("update", "confirm", "fulfill", "cancel", "reverse", "customer")
            return {n for n in names if view.check_action("act", (n,))}

        assert offered(ready_to_send.payout_id) == {"fulfill", "cancel", "customer"}
        assert offered(failed) == {"customer"}
        # A key the state allows opens its confirmation from the list; one it does not, nothing.
        view.table.move_cursor(row=view.table.get_row_index(failed))
        await pilot.press("f")
        await pilot.pause()
        assert app.screen.query(PayoutsView)
        view.table.move_cursor(row=view.table.get_row_index(ready_to_send.payout_id))
        await pilot.press("f")
        await until(lambda: on_screen(app, ConfirmScreen))
        await submit(pilot, ConfirmScreen)
        await until(lambda: view.rows[ready_to_send.payout_id].status == "initiated")


async def test_g_opens_the_payouts_customer(dirs: Dirs) -> None:
    from payscope.areas.customers.detail import CustomerDetailScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _payouts(pilot)
        payout = next(iter(view.rows.values()))
        detail = await _open(pilot, payout.payout_id)
        # The seeded payout names its customer by id: the customer is read for who it is.
        customer = await app.runtime.client.customers.retrieve(payout.customer_id)
        assert customer.name and customer.name in shown_text(detail.section("customer"))
        await pilot.press("g")
        await until(lambda: on_screen(app, CustomerDetailScreen))
        assert app.screen.record_id == payout.customer_id


async def test_update_changes_only_what_differs(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _payouts(pilot)
        payout = await _payout(
            app.runtime.client,
            payout_type="card",
            payout_method_data=CARD,
            description="before",
            metadata={"order": "A-1"},
        )
        detail = await _open(pilot, payout.payout_id)
        await pilot.press("e")
        await until(lambda: on_screen(app, PayoutUpdateForm))
        form = app.screen
        assert form.query_one("#field-description", Input).value == "before"
        assert form.query_one("#field-metadata", TextArea).text == "order=A-1"
        assert form.value("method") == "keep"
        assert "card •••• 4242" in shown_text(form.query_one("#form-intro"))
        form.query_one("#field-description", Input).value = "after"
        form.query_one("#field-metadata", TextArea).text = "order=A-2"
        form.query_one("#field-confirm", Checkbox).value = True
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Save description, metadata and confirm"
        await submit(pilot, PayoutUpdateForm)
        await until(lambda: detail.record.status == "requires_fulfillment" and not detail.busy)
        assert detail.record.description == "after" and detail.record.metadata == {"order": "A-2"}
        assert method_text(detail.record) == "card •••• 4242"  # kept


async def test_an_unknown_payout_says_not_found(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _payouts(pilot)
        await run_command(pilot, "payout payout_NobodyHasThisId000001")
        await until(lambda: on_screen(app, PayoutDetailScreen))
        detail = app.screen
        await until(lambda: detail.missing)
        assert "not found" in shown_text(detail.query_one("#detail-title"))


async def test_hostile_text_shows_literally(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(140, 40)) as pilot:
        view = await _payouts(pilot)
        payout = await _payout(
            app.runtime.client,
            payout_type="card",
            payout_method_data={"card": {**CARD["card"], "card_holder_name": HOSTILE}},
            description=HOSTILE,
            metadata={HOSTILE: HOSTILE},
            customer={"name": HOSTILE, "email": "payee@example.com"},
        )
        await pilot.press("r")
        await until(lambda: payout.payout_id in view.rows)
        detail = await _open(pilot, payout.payout_id)
        assert HOSTILE_SHOWN in shown_text(detail.section("summary"))
        assert HOSTILE_SHOWN in shown_text(detail.section("method"))
        assert HOSTILE_SHOWN in shown_text(detail.section("customer"))
        assert shown_text(detail.section("metadata")).count(HOSTILE_SHOWN) == 2
        screen = app.export_screenshot()
        assert "\x1b[5m" not in screen
        assert "[b]x[/b]" in screen.replace("&#91;", "[").replace("&#93;", "]")
        # The update form holds it as it is, and shows no escape sequence either.
        await pilot.press("e")
        await until(lambda: on_screen(app, PayoutUpdateForm))
        await pilot.pause()
        assert app.screen.query_one("#field-description", Input).value == HOSTILE
        assert "\x1b[5m" not in app.export_screenshot()


# -- the real service's shapes ---------------------------------------------------------------------


def test_method_data_is_read_in_the_spec_and_the_real_shapes() -> None:
    from payscope.api.models.payouts import Payout

    def payout(data: dict[str, Any]) -> Payout:
        return Payout.model_validate(
            {"payout_id": "p", "status": "success", "amount": 1, "currency": "USD", **data}
        )

    # The spec's (the local sandbox's) shapes.
    spec = payout({"payout_method_data": {"bank_transfer": {"iban": "******0532013000"}}})
    assert method_text(spec) == "SEPA •••• 3000"
    # The real service's: `bank` and `card {last4}`, wallets and redirects without a kind key.
    real = {"bank": {"bank_account_number": "0001****3456", "bank_routing_number": "110***000"}}
    assert method_text(payout({"payout_method_data": real})) == "ACH •••• 3456"
    assert method_of(real)[:2] == ("bank", "ach")
    sepa = {"bank": {"iban": "DE8937******013000", "bic": "HSBCGB2LXXX"}}
    assert method_text(payout({"payout_method_data": sepa})) == "SEPA •••• 3000"
    pix = {"bank": {"pix_key": "a1f4102e ****** 6fa48899c1d1", "cpf": "**** 124689"}}
    assert method_text(payout({"payout_method_data": pix})) == "Pix •••• c1d1"
    card = {"card": {"last4": "4242", "card_network": "Visa", "card_exp_month": "01"}}
    assert method_text(payout({"payout_method_data": card})) == "card •••• 4242"
    paypal = {"wallet": {"email": "a@b.co", "telephone_number": "******* 3349", "paypal_id": "x"}}
    assert method_text(payout({"payout_method_data": paypal})) == "PayPal •••• 3349"
    venmo = {"wallet": {"telephone_number": "******* 3349"}}
    assert method_of(venmo)[1] == "venmo"
    assert method_of({"bank_redirect": {"email": "a@b.co"}})[1] == "interac"
    assert method_text(payout({"payout_type": "bank"})) == "bank"


def test_the_real_list_shape_is_read() -> None:
    from payscope.api.models.payouts import PayoutListResponse

    row = {"payout_id": "p1", "status": "success", "amount": 5, "currency": "EUR"}
    page = PayoutListResponse.model_validate({"size": 1, "data": [row]})
    assert page.total_count is None and [p.payout_id for p in page.data] == ["p1"]
    with_total = PayoutListResponse.model_validate({"size": 1, "data": [row], "total_count": 30})
    assert with_total.total_count == 30


def test_numbers_are_masked_whatever_the_service_sent() -> None:
    assert mask("4242 4242 4242 4242") == "•••• •••• •••• 4242"
    assert mask("DE89370400440532013000") == "••••••••••••••••••3000"
    assert mask("1234") == "1234"
    assert last_digits("************4242") == "•••• 4242"
    assert last_digits("0001****3456") == "•••• 3456"
    assert last_digits("4242424242424242") == "•••• 4242"
    assert last_digits("12345678****") == "••••"
    assert last_digits("") == ""


# -- snapshots -------------------------------------------------------------------------------------


async def _list(pilot: Any) -> None:
    """The seeded payouts under five made now, one in each state of the flow."""
    view = await _payouts(pilot)
    client = pilot.app.runtime.client
    sepa = {"bank_transfer": {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX"}}
    venmo = {"wallet": {"venmo": {"telephone_number": "5559876543"}}}
    cancelled = await _payout(client, amount=990, payout_type="card", payout_method_data=CARD)
    await client.payouts.cancel(cancelled.payout_id)
    await _payout(
        client,
        amount=5000,
        payout_type="wallet",
        payout_method_data=venmo,
        confirm=True,
        auto_fulfill=True,
    )
    await _payout(
        client,
        amount=184250,
        currency="EUR",
        payout_type="bank",
        payout_method_data=sepa,
        confirm=True,
    )
    await _payout(client, amount=7300, payout_type="card", payout_method_data=CARD)
    await _payout(client, amount=2500, currency="GBP")
    await pilot.press("r")
    await until(lambda: len(view.rows) == SEEDED + 5)
    # The wallet payout, sent and fulfilled at once, says so by two webhooks: the status bar
    # counts them once they have arrived, however long a loaded machine takes to deliver them.
    from payscope.widgets.status_bar import StatusBar

    status = pilot.app.screen.query_one(StatusBar)
    await until(lambda: status.event_count == 2, "the wallet payout's two webhooks")
    await pilot.app.workers.wait_for_complete()
    # Where the cursor ends depends on whether the reload or the payouts' webhooks came first
    # (a cursor at the top follows new rows; one lower stays on its record): put it on the top.
    view.table.move_cursor(row=0, animate=False)
    await pilot.pause()


async def _detail(pilot: Any) -> None:
    """A payout waiting to be fulfilled: the flow's current step, its key and buttons."""
    await _payouts(pilot)
    payout = await _payout(
        pilot.app.runtime.client,
        amount=184250,
        currency="EUR",
        payout_type="bank",
        payout_method_data={
            "bank_transfer": {
                "iban": "DE89370400440532013000",
                "bic": "COBADEFFXXX",
                "bank_name": "Commerzbank",
            }
        },
        customer={"id": "cus_snapshot_payee", "name": "Grace Hopper", "email": "grace@example.com"},
        description="April seller settlement",
        priority="fast",
        metadata={"seller": "S-1042", "period": "2024-04"},
        confirm=True,
    )
    detail = await _open(pilot, payout.payout_id)
    await until(lambda: "Fulfilled" in _current_step(detail))
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def _new_sepa(pilot: Any) -> None:
    """The new-payout form on a bank account, SEPA: its own fields, the IBAN masked, the BIC
    missing and said under it."""
    await _payouts(pilot)
    form = await _new_form(pilot)
    await until(lambda: "Sandbox:" in shown_text(form.query_one("#hint-method")))
    await _choose(pilot, form, "method", "bank_transfer")
    await _choose(pilot, form, "bank_transfer-kind", "sepa")
    _type(form, {"amount": "1,842.50", "currency": "EUR"})
    _type(form, {"sepa-iban": "DE89370400440532013000", "sepa-account_holder_name": "Grace Hopper"})
    await pilot.press("ctrl+s")
    await until(lambda: bool(field_error(form, "sepa-bic")))
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


SCREENS = {"list": _list, "detail": _detail, "new_sepa": _new_sepa}


test_payout_screens = screens_in_every_look(SCREENS, ["list", "detail", "new_sepa"])
