"""Subscriptions against the embedded sandbox: the seeded list, filters, a new subscription (a
declining card, a saved card), a plan change, pause, resume, cancel, the actions each status
offers, renewals live after advancing the clock (and one that fails, explained), hostile text,
a remote profile's list of the subscriptions payscope has seen, and snapshots at two sizes in
two themes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Input, Select, Static

from payscope.areas.subscriptions.detail import SubscriptionDetailScreen
from payscope.areas.subscriptions.forms import (
    CancelForm,
    NewSubscriptionForm,
    PauseForm,
    ResumeForm,
    UpdatePlanForm,
)
from payscope.areas.subscriptions.view import SubscriptionsView
from payscope.views.forms import ConfirmScreen
from payscope.widgets.inputs import Picker
from tests.tui.area_snapshots import forms_at_80x24, screens_in_every_look
from tests.tui.pilot import (
    apply_filter,
    field_error,
    filter_problem,
    open_list,
    open_record,
    run_command,
    shown_text,
    submit,
    until,
)
from tests.tui.snapshot_app import build
from tests.waits import on_screen

Dirs = tuple[Path, Path]
RENEWAL_FAILS_CARD = "4000000000000341"
DECLINED_CARD = "4000000000010019"  # UE_1001, insufficient funds
HOSTILE = "[b]x[/b]\x1b[5m"
HOSTILE_SHOWN = "[b]x[/b]\\x1b[5m"  # ESC shown escaped, brackets kept
CARD = {
    "card_number": "4242424242424242",
    "card_exp_month": "12",
    "card_exp_year": "2030",
    "card_holder_name": "Ada Lovelace",
    "card_cvc": "123",
}


async def _subscriptions(pilot: Any) -> SubscriptionsView:
    """Start, go to `:subscriptions` and wait for its first page."""
    return await open_list(pilot, "subscriptions", SubscriptionsView)


def _header(view: SubscriptionsView) -> str:
    return str(view.query_one("#subscriptions-header", Static).render())


async def _open(pilot: Any, sub_id: str) -> SubscriptionDetailScreen:
    """Open a subscription the way `:sub <id>` does, and wait for it to load."""
    return await open_record(pilot, f"sub {sub_id}", SubscriptionDetailScreen)


async def _create(
    client: Any,
    customer_id: str,
    price: str = "price_basic_monthly",
    card: str = "4242424242424242",
    **fields: Any,
) -> Any:
    from payscope.api.models.subscriptions import SubscriptionCreateRequest

    body = SubscriptionCreateRequest.model_validate(
        {
            "customer_id": customer_id,
            "item_price_id": price,
            "payment_details": {
                "payment_method": "card",
                "payment_method_data": {"card": {**CARD, "card_number": card}},
            },
            **fields,
        }
    )
    return await client.subscriptions.create(body)


def _seeded(view: SubscriptionsView, status: str) -> Any:
    return next(s for s in view.rows.values() if s.status == status)


def _buttons(screen: SubscriptionDetailScreen) -> set[str]:
    return {
        str(b.id).removeprefix("act-")
        for b in screen.query("#detail-actions Button").results(Button)
        if b.display
    }


async def _advance_to(client: Any, iso: str, extra: float = 60) -> None:
    from datetime import datetime

    due = datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    clock = await client.sandbox.clock()
    now = datetime.fromisoformat(str(clock["now"]).replace("Z", "+00:00")).timestamp()
    await client.sandbox.advance_clock(due - now + extra)


# -- the list --------------------------------------------------------------------------------------


async def test_seeded_subscriptions_show_newest_first_on_a_fresh_start(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        page = await app.runtime.client.sandbox.subscriptions()
        assert page.total_count and list(view.rows) == [s.id for s in page.data]
        assert {"active", "trial", "paused", "cancelled", "unpaid"} <= {
            s.status for s in view.rows.values()
        }
        created = [s.created_at for s in view.rows.values()]
        assert created == sorted(created, reverse=True)
        assert f"1-{page.total_count} of {page.total_count}" in _header(view)
        # The price column reads the catalogue: plan name, amount, cadence.
        trial = _seeded(view, "trial")
        cell = view.table.get_cell(trial.id, "price")
        assert cell.plain == "Pro 29.00 USD/month"
        # A stopped subscription has no next charge.
        assert view.table.get_cell(_seeded(view, "paused").id, "next").plain == "-"


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_narrow_keeps_the_id_status_and_price(dirs: Dirs, size: tuple[int, int]) -> None:
    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        view = await _subscriptions(pilot)
        shown = [key for key, _width in view.table.fitted]
        assert shown[:3] == ["id", "status", "price"]
        if size[0] >= 120:
            assert shown == ["id", "status", "price", "next", "customer"]


async def test_filters_by_status_customer_plan_price_and_id(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        seeded = list(view.rows.values())

        await apply_filter(pilot, view, "status:paused,cancelled")
        assert {s.status for s in view.rows.values()} == {"paused", "cancelled"}
        await apply_filter(pilot, view, "status:failed")
        assert view.rows == {}
        assert "Nothing matches this filter" in shown_text(view.query_one(".empty", Static))

        target = seeded[-1]
        await apply_filter(pilot, view, f"customer:{target.customer_id}")
        assert target.id in view.rows
        assert {s.customer_id for s in view.rows.values()} == {target.customer_id}
        await apply_filter(pilot, view, str(target.customer_id))  # a bare cus_… id
        assert target.id in view.rows

        # A plan by its name or its id (sent to the list route), a price matched in the view.
        pro = {s.id for s in seeded if s.plan_id == "plan_pro"}
        await apply_filter(pilot, view, "plan:Pro")
        assert set(view.rows) == pro
        await apply_filter(pilot, view, "plan:plan_pro")
        assert set(view.rows) == pro
        await apply_filter(pilot, view, "price:price_pro_monthly_trial")
        assert {s.status for s in view.rows.values()} == {"trial"}
        assert "in all" in _header(view)

        await apply_filter(pilot, view, target.id[4:12])
        assert list(view.rows) == [target.id]

        await pilot.press("escape")  # clears the filter
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert list(view.rows) == [s.id for s in seeded]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("status:sleeping", "is not a subscription status"),
        ("status:pause", "Did you mean paused"),
        ("customer:cus/1", "only letters, digits"),
        ("plan:gold", "is not a plan of the catalogue: Basic (plan_basic)"),
        ("price:price_gold", "is not a price of the catalogue"),
        ("colour:red", "Unknown filter"),
        ("ab", "at least 4 characters"),
    ],
)
async def test_a_filter_mistake_is_said_and_the_rows_stay(dirs: Dirs, text: str, said: str) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        before = list(view.rows)
        await apply_filter(pilot, view, text)
        assert said in filter_problem(view)
        assert list(view.rows) == before


# -- a new subscription ----------------------------------------------------------------------------


async def _new_form(pilot: Any) -> NewSubscriptionForm:
    app = pilot.app
    await pilot.press("n")
    await until(lambda: on_screen(app, NewSubscriptionForm))
    form = app.screen
    assert isinstance(form, NewSubscriptionForm)
    picker = form.query_one("#field-customers", Picker)
    await until(lambda: len(picker.choices) > 0)
    await pilot.pause()
    return form


async def test_new_subscription_end_to_end(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        form = await _new_form(pilot)

        # Mistakes, each under its field, the form staying open.
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "Pick a customer" in field_error(form, "customer_id")
        form.query_one("#field-customer_id", Input).value = "cus/1"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "only letters, digits" in field_error(form, "customer_id")
        form.query_one("#field-customer_id", Input).value = "cus_nobody_has_this_id"
        await pilot.press("ctrl+s")
        await until(lambda: "Customer" in field_error(form, "customer_id"))
        assert app.screen is form

        # The picker fills the id, and the customer is read as it is chosen.
        customers = await app.runtime.client.customers.list()
        customer = customers.data[0]
        form.query_one("#field-customers", Select).value = customer.customer_id
        await pilot.pause()
        assert form.query_one("#field-customer_id", Input).value == customer.customer_id
        await until(lambda: str(customer.email) in shown_text(form.query_one("#hint-customer_id")))

        prices = form.query_one("#field-item_price_id", Picker)
        prices.value = "price_pro_monthly_trial"
        await pilot.pause()
        label = str(form.query_one("#form-submit").label)
        assert label == "Start a 14-day trial, then 29.00 USD / month"
        prices.value = "price_team_weekly"
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Subscribe: 49.00 EUR / week"
        form.query_one("#field-merchant_reference_id", Input).value = "order_1042"
        await submit(pilot, NewSubscriptionForm)

        # Its detail opens: active, charged for the first week, invoice paid.
        await until(lambda: on_screen(app, SubscriptionDetailScreen))
        detail = app.screen
        assert isinstance(detail, SubscriptionDetailScreen)
        await until(lambda: detail.record is not None and not detail.busy)
        await app.workers.wait_for_complete()
        await pilot.pause()
        sub = detail.record
        assert (sub.status, sub.customer_id, sub.item_price_id, sub.plan_id) == (
            "active",
            customer.customer_id,
            "price_team_weekly",
            "plan_team",
        )
        assert sub.merchant_reference_id == "order_1042"
        assert sub.payment.status == "succeeded" and sub.invoice.status == "invoice_paid"
        summary = shown_text(detail.section("summary"))
        assert "Team" in summary and "49.00 EUR / week" in summary
        assert "Visa •••• 4242" in summary
        assert sub.payment.payment_id in shown_text(detail.section("payment"))
        assert sub.invoice.id in shown_text(detail.section("invoice"))
        assert "invoice_paid" in shown_text(detail.section("renewals"))
        assert not detail.section("decline").display
        # Back on the list, the new subscription is the top row, under the cursor.
        await pilot.press("escape")
        await until(lambda: sub.id in view.rows)
        assert next(iter(view.rows)) == sub.id
        assert view.table.selected_id() == sub.id


@pytest.mark.parametrize(
    ("card", "expiry", "field", "said"),
    [
        (DECLINED_CARD, "12/30", None, "Declined (UE_1001 Insufficient funds"),
        ("4242 4242 4242 4242", "01/24", "expiry", "UE_1002 Card expired"),
    ],
)
async def test_a_declined_card_is_said_and_the_form_stays_open(
    dirs: Dirs, card: str, expiry: str, field: str | None, said: str
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        form = await _new_form(pilot)
        customer = (await app.runtime.client.customers.list()).data[0]
        form.query_one("#field-customer_id", Input).value = customer.customer_id
        form.query_one("#field-card", Input).value = card
        form.query_one("#field-expiry", Input).value = expiry
        await pilot.press("ctrl+s")
        error_line = form.query_one("#form-error", Static)
        await until(lambda: "Declined" in shown_text(error_line))
        assert app.screen is form
        line = shown_text(error_line)
        assert "was made and is failed" in line
        if field is None:
            assert said in line
        else:
            assert said in field_error(form, field)
        assert not form.query_one("#form-submit", Button).disabled
        # The failed subscription exists: announced, it is on top of the list.
        await until(lambda: any(s.status == "failed" for s in view.rows.values()))
        assert next(iter(view.rows.values())).status == "failed"


async def test_a_saved_card_of_the_customer_pays_without_card_fields(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _subscriptions(pilot)
        client = app.runtime.client
        customer = (await client.customers.list()).data[1]
        first = await _create(client, customer.customer_id, card="5555555555554444")
        form = await _new_form(pilot)
        form.query_one("#field-customer_id", Input).value = customer.customer_id
        method = form.query_one("#field-method", Picker)
        await until(lambda: first.payment_method_id in {v for _p, v in method.choices})
        assert "Mastercard •••• 4444" in str(
            next(p for p, v in method.choices if v == first.payment_method_id)
        )
        method.value = first.payment_method_id
        await pilot.pause()
        assert not form.shown("card") and not form.shown("cvc")
        await submit(pilot, NewSubscriptionForm)
        await until(lambda: on_screen(app, SubscriptionDetailScreen))
        detail = app.screen
        await until(lambda: detail.record is not None and not detail.busy)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert detail.record.status == "active"
        assert detail.record.payment_method_id == first.payment_method_id
        assert "Mastercard •••• 4444" in shown_text(detail.section("summary"))


# -- plan change, pause, resume, cancel ------------------------------------------------------------


async def test_change_plan_charges_the_new_price_and_the_list_follows(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        active = next(s for s in view.rows.values() if s.status == "active")
        detail = await _open(pilot, active.id)
        await pilot.press("e")
        await until(lambda: on_screen(app, UpdatePlanForm))
        form = app.screen
        prices = form.query_one("#field-item_price_id", Picker)
        assert active.item_price_id not in {v for _p, v in prices.choices}
        prices.value = "price_pro_yearly"
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Switch to Pro · 290.00 USD / year"
        await submit(pilot, UpdatePlanForm)
        await until(lambda: detail.record.item_price_id == "price_pro_yearly" and not detail.busy)
        await app.workers.wait_for_complete()
        await pilot.pause()
        sub = detail.record
        assert (sub.status, sub.plan_id) == ("active", "plan_pro")
        assert sub.payment is not None and sub.payment.amount == 29000
        assert "290.00 USD / year" in shown_text(detail.section("summary"))
        await pilot.press("escape")
        await until(lambda: view.rows[active.id].item_price_id == "price_pro_yearly")
        assert view.table.get_cell(active.id, "price").plain == "Pro 290.00 USD/year"


async def test_pause_now_then_resume_with_the_list_following(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        active = _seeded(view, "active")
        detail = await _open(pilot, active.id)
        assert {"pause", "cancel", "update"} <= _buttons(detail)
        assert "resume" not in _buttons(detail)
        await pilot.press("p")
        await until(lambda: on_screen(app, PauseForm))
        form = app.screen
        assert not form.shown("pause_at")  # only for "on a date"
        assert str(form.query_one("#form-submit").label) == "Pause now"
        await submit(pilot, PauseForm)
        await until(lambda: detail.record.status == "paused")
        await until(lambda: "resume" in _buttons(detail))
        assert "pause" not in _buttons(detail)
        assert "no charges while paused" in shown_text(detail.section("summary"))

        await pilot.press("u")
        await until(lambda: on_screen(app, ResumeForm))
        form = app.screen
        # A paused subscription's resume offers the charges of the paused time, not unpaid
        # invoice handling.
        assert form.query("#field-charges_handling")
        assert not form.query("#field-unpaid_invoices_handling")
        form.query_one("#field-charges_handling", Select).value = "add_to_unbilled_charges"
        await submit(pilot, ResumeForm)
        await until(lambda: detail.record.status == "active")
        assert detail.record.next_billing_at
        await pilot.press("escape")
        await until(lambda: view.rows[active.id].status == "active")


async def test_pause_on_a_date_is_checked_and_scheduled(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        active = _seeded(view, "active")
        detail = await _open(pilot, active.id)
        await pilot.press("p")
        await until(lambda: on_screen(app, PauseForm))
        form = app.screen
        form.query_one("#field-pause_option", Select).value = "specific_date"
        await pilot.pause()
        assert form.shown("pause_at")
        date = form.query_one("#field-pause_at", Input)
        date.value = "2024-04-01"  # before the sandbox's now (2024-05-01 12:00)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "is not ahead" in field_error(form, "pause_at")
        date.value = "someday"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "is not a time" in field_error(form, "pause_at")
        date.value = "3d"
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Pause on 2024-05-04 12:00"
        await submit(pilot, PauseForm)
        await until(lambda: bool(detail.record.scheduled_change))
        assert detail.record.status == "active"
        assert "pause at 2024-05-04 12:00:00" in shown_text(detail.section("summary"))
        await pilot.press("escape")
        await until(
            lambda: view.table.get_cell(active.id, "next").plain.startswith("pauses May 04")
        )


async def test_cancel_asks_once_more_and_leaves_no_action(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        trial = _seeded(view, "trial")
        detail = await _open(pilot, trial.id)
        await pilot.press("x")
        await until(lambda: on_screen(app, CancelForm))
        form = app.screen
        options = {v for _p, v in form.query_one("#field-cancel_option", Picker).choices}
        assert options == {"immediately", "end_of_term", "specific_date"}
        await pilot.press("ctrl+s")
        await until(lambda: on_screen(app, ConfirmScreen))
        await pilot.press("escape")  # not sure after all
        await until(lambda: app.screen is form)
        await until(lambda: "Not cancelled" in shown_text(form.query_one("#form-error")))
        assert (await app.runtime.client.subscriptions.retrieve(trial.id)).status == "trial"

        await pilot.press("ctrl+s")
        await until(lambda: on_screen(app, ConfirmScreen))
        confirm = app.screen
        assert trial.id in shown_text(confirm.query_one("#form-intro"))
        await submit(pilot, ConfirmScreen)
        await until(lambda: not isinstance(app.screen, CancelForm))
        await until(lambda: detail.record.status == "cancelled")
        await until(lambda: _buttons(detail) == {"customer", "clock"})
        await pilot.press("escape")
        await until(lambda: view.rows[trial.id].status == "cancelled")


async def test_cancel_at_the_end_of_the_term_shows_on_the_row(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        active = _seeded(view, "active")
        # From the list: the row under the cursor.
        view.table.move_cursor(row=view.table.get_row_index(active.id))
        await pilot.pause()
        await pilot.press("x")
        await until(lambda: on_screen(app, CancelForm))
        form = app.screen
        assert form.sub.id == active.id
        form.query_one("#field-cancel_option", Select).value = "end_of_term"
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Cancel at the end of the term"
        await pilot.press("ctrl+s")
        await until(lambda: on_screen(app, ConfirmScreen))
        await submit(pilot, ConfirmScreen)
        await until(lambda: bool(view.rows[active.id].scheduled_change))
        assert view.table.get_cell(active.id, "next").plain.startswith("ends ")
        assert view.rows[active.id].status == "active"


@pytest.mark.parametrize(
    ("status", "offered"),
    [
        ("active", {"update", "pause", "cancel", "customer", "clock"}),
        ("trial", {"update", "pause", "cancel", "customer", "clock"}),
        ("paused", {"update", "resume", "cancel", "customer", "clock"}),
        ("unpaid", {"update", "resume", "cancel", "customer", "clock"}),
        ("cancelled", {"customer", "clock"}),
    ],
)
async def test_actions_are_offered_only_in_the_states_that_allow_them(
    dirs: Dirs, status: str, offered: set[str]
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        sub = _seeded(view, status)
        view.table.move_cursor(row=view.table.get_row_index(sub.id))
        await pilot.pause()
        for name in ("update", "pause", "resume", "cancel"):
            assert view.check_action("act", (name,)) == (name in offered), name
        detail = await _open(pilot, sub.id)
        assert _buttons(detail) == offered
        # A key not offered does nothing.
        for name, key in (("pause", "p"), ("resume", "u"), ("cancel", "x"), ("update", "e")):
            if name not in offered:
                await pilot.press(key)
                await pilot.pause()
                assert app.screen is detail


# -- renewals on the clock -------------------------------------------------------------------------


async def test_a_renewal_appears_live_after_advancing_the_clock(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        client = app.runtime.client
        customer = (await client.customers.list()).data[0]
        sub = await _create(client, customer.customer_id, "price_team_weekly")
        await until(lambda: sub.id in view.rows)  # its invoice_paid webhook brought it
        detail = await _open(pilot, sub.id)
        assert len(detail.renewals) == 1
        first_invoice = detail.record.invoice.id
        journal = app.runtime.journal
        before = journal.count("invoice_paid", sub.id)

        # A week on: renewed live on the detail, its payment and invoice_paid webhook with it.
        await _advance_to(client, str(sub.next_billing_at))
        await until(lambda: len(detail.renewals) == 2 and not detail.busy)
        await until(lambda: journal.count("invoice_paid", sub.id) == before + 1)
        await app.workers.wait_for_complete()
        await pilot.pause()
        renewed = detail.record
        assert renewed.status == "active" and renewed.invoice.id != first_invoice
        assert renewed.payment.payment_id != sub.payment.payment_id
        assert renewed.payment.status == "succeeded"
        assert renewed.next_billing_at > sub.next_billing_at
        history = shown_text(detail.section("renewals"))
        assert history.count("invoice_paid") == 2
        assert renewed.invoice.id in shown_text(detail.section("invoice"))
        # The list's row followed too.
        await pilot.press("escape")
        await until(lambda: view.rows[sub.id].next_billing_at == renewed.next_billing_at)


async def test_the_clock_control_renews_to_the_next_renewal(dirs: Dirs) -> None:
    from payscope.views.clock import ClockScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        client = app.runtime.client
        customer = (await client.customers.list()).data[0]
        sub = await _create(client, customer.customer_id, "price_team_weekly")
        await until(lambda: sub.id in view.rows)
        detail = await _open(pilot, sub.id)
        await pilot.press("t")
        await until(lambda: on_screen(app, ClockScreen))
        clock = app.screen
        assert clock.next_renewal is not None
        assert clock.value("preset") == "renewal"
        await submit(pilot, ClockScreen)
        await until(lambda: len(detail.renewals) == 2 and not detail.busy)
        assert detail.record.status == "active"
        assert app.runtime.journal.count("invoice_paid", sub.id) == 2

        # From the list, `t` offers the soonest renewal of the page.
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen.query_one(SubscriptionsView), SubscriptionsView))
        await pilot.press("t")
        await until(lambda: on_screen(app, ClockScreen))
        soonest = min(s.next_billing_at for s in view.rows.values() if s.next_billing_at)
        assert app.screen.next_renewal.strftime("%Y-%m-%dT%H:%M:%S") == soonest[:19]


async def test_a_change_the_clock_applies_shows_when_the_list_is_shown_again(dirs: Dirs) -> None:
    from payscope.api.models.subscriptions import SubscriptionPauseRequest

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        client = app.runtime.client
        active = _seeded(view, "active")
        await client.subscriptions.pause(
            active.id,
            SubscriptionPauseRequest.model_validate(
                {"pause_option": "specific_date", "pause_at": "2024-05-01T13:00:00Z"}
            ),
        )
        # The clock is moved elsewhere (another area, curl): the pause takes effect, and no
        # webhook says so.
        await run_command(pilot, "payments")
        await client.sandbox.advance_clock(2 * 3600)
        await pilot.pause()
        assert view.rows[active.id].status == "active"
        await run_command(pilot, "subscriptions")
        await until(lambda: view.rows[active.id].status == "paused")
        assert view.table.get_cell(active.id, "next").plain == "-"

        # An open detail reads it again when it is back on top (here from the key help).
        other = [s for s in view.rows.values() if s.status == "active"][-1]
        await client.subscriptions.pause(
            other.id,
            SubscriptionPauseRequest.model_validate(
                {"pause_option": "specific_date", "pause_at": "2024-05-01T15:00:00Z"}
            ),
        )
        detail = await _open(pilot, other.id)
        assert "pause at" in shown_text(detail.section("summary"))
        await pilot.press("question_mark")
        await until(lambda: app.screen is not detail)
        await client.sandbox.advance_clock(2 * 3600)
        await pilot.press("escape")
        await until(lambda: app.screen is detail)
        await until(lambda: detail.record.status == "paused")


async def test_a_failed_renewal_shows_why_in_the_detail_and_the_list(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        client = app.runtime.client
        customer = (await client.customers.list()).data[0]
        sub = await _create(client, customer.customer_id, "price_team_weekly", RENEWAL_FAILS_CARD)
        await until(lambda: sub.id in view.rows)
        detail = await _open(pilot, sub.id)
        assert detail.record.status == "active"

        await _advance_to(client, str(sub.next_billing_at))
        await until(lambda: detail.record.status == "unpaid" and not detail.busy)
        await app.workers.wait_for_complete()
        await pilot.pause()
        decline = detail.section("decline")
        assert decline.display
        why = shown_text(decline)
        code = detail.record.payment.unified_code
        assert code and code in why and "Retry" in why and "billing stopped" in why
        history = shown_text(detail.section("renewals"))
        assert "payment_failed" in history and code in history
        assert {"resume", "cancel"} <= _buttons(detail) and "pause" not in _buttons(detail)
        # No invoice_paid for a failed renewal: its payment's webhook moved the list's row.
        await pilot.press("escape")
        await until(lambda: view.rows[sub.id].status == "unpaid")

        # Resuming an unpaid subscription asks what to do with the failed invoice (the paused
        # time's charges do not apply); left unpaid, a new term starts without a charge.
        detail = await _open(pilot, sub.id)
        failed_invoice = detail.record.invoice.id
        await pilot.press("u")
        await until(lambda: on_screen(app, ResumeForm))
        form = app.screen
        assert not form.query("#field-charges_handling")
        form.query_one("#field-unpaid_invoices_handling", Select).value = "no_action"
        await submit(pilot, ResumeForm)
        await until(lambda: detail.record.status == "active" and not detail.busy)
        assert detail.record.invoice.id == failed_invoice
        assert detail.record.next_billing_at
        # The failed invoice stays unpaid: its charge's decline is still told.
        assert "payment_failed" in shown_text(detail.section("invoice"))
        assert "The latest charge was declined" in shown_text(detail.section("decline"))


async def test_the_mandate_shows_and_a_revoked_one_fails_the_renewal_with_its_reason(
    dirs: Dirs,
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _subscriptions(pilot)
        client = app.runtime.client
        customer = (await client.customers.list()).data[2]
        acceptance = {
            "acceptance_type": "online",
            "online": {"ip_address": "127.0.0.1", "user_agent": "payscope"},
        }
        sub = await _create(client, customer.customer_id, "price_team_weekly")
        assert sub.mandate_id is None  # no acceptance, no mandate: the section stays hidden
        detail = await _open(pilot, sub.id)
        assert not detail.section("mandate").display
        await pilot.press("escape")

        from payscope.api.models.subscriptions import SubscriptionCreateRequest

        sub = await client.subscriptions.create(
            SubscriptionCreateRequest.model_validate(
                {
                    "customer_id": customer.customer_id,
                    "item_price_id": "price_team_weekly",
                    "payment_details": {
                        "payment_method": "card",
                        "payment_method_data": {"card": CARD},
                        "setup_future_usage": "off_session",
                        "customer_acceptance": acceptance,
                    },
                }
            )
        )
        assert sub.mandate_id
        await until(lambda: sub.id in view.rows)
        detail = await _open(pilot, sub.id)
        await until(lambda: detail.mandate.record is not None)
        await pilot.pause()
        shown = shown_text(detail.section("mandate"))
        assert detail.section("mandate").display
        assert sub.mandate_id in shown and "active" in shown and "card credit" in shown
        assert str(sub.payment_method_id) in shown and "online" in shown

        # Revoked elsewhere: its mandate_revoked event brings the detail up to date.
        await client.mandates.revoke(sub.mandate_id)
        await until(lambda: detail.mandate.record.status == "revoked" and not detail.busy)
        await pilot.pause()
        assert "the next charge will fail" in shown_text(detail.section("mandate"))

        # The renewal on the revoked mandate makes no payment (and so no webhook): the clock
        # control, which reads the detail again when it closes, shows what happened.
        from payscope.views.clock import ClockScreen

        await pilot.press("t")
        await until(lambda: on_screen(app, ClockScreen))
        assert app.screen.value("preset") == "renewal"
        await submit(pilot, ClockScreen)
        await until(lambda: detail.record.status == "unpaid" and not detail.busy)
        await app.workers.wait_for_complete()
        await pilot.pause()
        why = shown_text(detail.section("decline"))
        assert "refused before any payment was made" in why
        assert f"Mandate {sub.mandate_id} is revoked" in why
        assert "No payment" in shown_text(detail.section("payment"))
        assert "IR_04" in shown_text(detail.section("renewals"))


# -- hostile text ----------------------------------------------------------------------------------


async def test_hostile_text_shows_literally_in_the_detail(dirs: Dirs) -> None:
    from payscope.api.models.customers import CustomerCreateRequest

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _subscriptions(pilot)
        client = app.runtime.client
        customer = await client.customers.create(
            CustomerCreateRequest(name=HOSTILE, email="hostile@example.com")
        )
        sub = await _create(client, customer.customer_id, merchant_reference_id=HOSTILE)
        detail = await _open(pilot, sub.id)
        assert HOSTILE_SHOWN in shown_text(detail.section("summary"))
        assert HOSTILE_SHOWN in shown_text(detail.section("customer"))
        screen = app.export_screenshot()
        assert "\x1b[5m" not in screen
        assert "[b]x[/b]" in screen.replace("&#91;", "[").replace("&#93;", "]")


async def test_an_unknown_subscription_says_not_found(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _subscriptions(pilot)
        await run_command(pilot, "sub sub_NobodyHasThisId00001")
        await until(lambda: on_screen(app, SubscriptionDetailScreen))
        detail = app.screen
        await until(lambda: detail.missing)
        assert "not found" in shown_text(detail.query_one("#detail-title"))
        assert _buttons(detail) == set()


# -- snapshots -------------------------------------------------------------------------------------


async def _list(pilot: Any) -> None:
    await _subscriptions(pilot)


async def _failed_renewal(pilot: Any) -> None:
    """A weekly subscription on the renewal-failure card, a week on: unpaid, the decline
    explained, the renewal history with both charges."""
    view = await _subscriptions(pilot)
    app = pilot.app
    client = app.runtime.client
    customer = (await client.customers.list()).data[0]
    sub = await _create(
        client,
        customer.customer_id,
        "price_team_weekly",
        RENEWAL_FAILS_CARD,
        merchant_reference_id="order_1042",
    )
    await until(lambda: sub.id in view.rows)
    await _advance_to(client, str(sub.next_billing_at))
    await until(lambda: view.rows[sub.id].status == "unpaid")
    detail = await _open(pilot, sub.id)
    await until(lambda: detail.record.status == "unpaid" and len(detail.renewals) == 2)
    await app.workers.wait_for_complete()
    await pilot.pause()


async def _new_form_errors(pilot: Any) -> None:
    await _subscriptions(pilot)
    form = await _new_form(pilot)
    form.query_one("#field-customer_id", Input).value = "cus/1"
    form.query_one("#field-card", Input).value = ""
    await pilot.press("ctrl+s")
    await until(lambda: bool(field_error(form, "customer_id")))
    await pilot.app.workers.wait_for_complete()
    await _scrolled(pilot, form)


async def _cancel_on_a_date(pilot: Any) -> None:
    view = await _subscriptions(pilot)
    active = _seeded(view, "active")
    await _open(pilot, active.id)
    await pilot.press("x")
    await until(lambda: on_screen(pilot.app, CancelForm))
    form = pilot.app.screen
    form.query_one("#field-cancel_option", Select).value = "specific_date"
    await pilot.pause()  # the date field is mounted once the option shows it
    form.query_one("#field-cancel_at", Input).value = "2024-04-01"
    await pilot.press("ctrl+s")
    await until(lambda: bool(field_error(form, "cancel_at")))
    await _scrolled(pilot, form)


async def _scrolled(pilot: Any, form: Any) -> None:
    """Wait until the form has scrolled to its first error (after a layout or two)."""
    from textual.containers import VerticalScroll

    scroll = form.query_one(VerticalScroll)
    last = None
    while last != (scroll.scroll_y, scroll.max_scroll_y):
        last = (scroll.scroll_y, scroll.max_scroll_y)
        await pilot.pause()
        await pilot.pause()


SCREENS = {
    "list": _list,
    "detail": _failed_renewal,
    "new_form_errors": _new_form_errors,
    "cancel_on_a_date": _cancel_on_a_date,
}


test_subscription_screens = screens_in_every_look(SCREENS, ["list", "detail"])


test_subscription_forms = forms_at_80x24(
    SCREENS, [("new_form_errors", "payscope-dark"), ("cancel_on_a_date", "payscope-light")]
)
