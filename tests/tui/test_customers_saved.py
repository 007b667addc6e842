"""Pilot tests of a customer's saved payment methods and mandates in its detail, against the
embedded sandbox: listed, and set default, delete and revoke each offered only where it applies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Select

from payscope.areas.customers.methods import ChooseForm
from payscope.areas.customers.view import CustomerDetailScreen
from tests.tui.pilot import shown_text, submit, until
from tests.tui.snapshot_app import build, ready
from tests.tui.test_customers import _detail
from tests.waits import on_screen

Dirs = tuple[Path, Path]
_CARD = {"card_exp_month": "12", "card_exp_year": "2030", "card_holder_name": "Ada"}
_BILLING = {"address": {"line1": "1 Test Street", "city": "Testville", "country": "US"}}


async def _save_card(client: Any, customer: str, **card: str) -> Any:
    """A Mastercard saved for `customer` with POST /payment_methods."""
    from payscope.api.models.payment_methods import PaymentMethodCreateRequest

    body = {"card_number": "5555555555554444", **_CARD, **card}
    return await client.payment_methods.create(
        PaymentMethodCreateRequest.model_validate(
            {"payment_method": "card", "customer_id": customer, "card": body}
        )
    )


async def _mandate_payment(client: Any, customer: str) -> Any:
    """A card payment that saves its card and sets up a mandate (offline acceptance)."""
    from payscope.api.models.payments import PaymentCreateRequest

    card = {"card_number": "4242424242424242", "card_cvc": "123", **_CARD}
    return await client.payments.create(
        PaymentCreateRequest.model_validate(
            {
                "amount": 1500,
                "currency": "USD",
                "confirm": True,
                "customer_id": customer,
                "payment_method": "card",
                "payment_method_data": {"card": card},
                "billing": _BILLING,
                "setup_future_usage": "off_session",
                "customer_acceptance": {"acceptance_type": "offline"},
            }
        )
    )


def _offered(screen: CustomerDetailScreen) -> set[str]:
    return {a.name for a in screen.allowed()}


async def _reloaded(pilot: Any, screen: CustomerDetailScreen) -> None:
    await pilot.press("r")
    await until(lambda: not screen.busy)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_saved_methods_and_mandates_with_only_the_changes_that_apply(dirs: Dirs) -> None:
    from payscope.api.models.customers import CustomerCreateRequest

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        client = app.runtime.client
        customer = (await client.customers.create(CustomerCreateRequest(name="Ada"))).customer_id
        screen = await _detail(pilot, customer)
        assert "No saved payment methods" in shown_text(screen.section("methods"))
        assert "No mandates" in shown_text(screen.section("mandates"))
        assert not _offered(screen) & {"default-method", "delete-method", "revoke-mandate"}

        first = await _save_card(client, customer)
        paid = await _mandate_payment(client, customer)
        assert paid.mandate_id
        await _reloaded(pilot, screen)
        methods = shown_text(screen.section("methods"))
        assert "•••• 4444" in methods and "•••• 4242" in methods
        assert first.payment_method_id in methods
        mandates = shown_text(screen.section("mandates"))
        assert paid.mandate_id in mandates and "active" in mandates
        assert {"default-method", "delete-method", "revoke-mandate"} <= _offered(screen)

        # Set default: only the methods that are not the default are offered.
        listed = await client.payment_methods.list_for_customer(customer)
        other = next(m for m in listed.customer_payment_methods if not m.default_payment_method_set)
        was_default = next(
            m.payment_method_id for m in listed.customer_payment_methods if m is not other
        )
        await pilot.press("s")
        await until(lambda: on_screen(app, ChooseForm))
        choice = app.screen.query_one("#field-choice", Select)
        assert [v for _label, v in app.screen.options] == [other.payment_method_id]
        assert choice.value == other.payment_method_id
        await submit(pilot, ChooseForm)
        # The detail reads them again: the one that was the default is now the one offered.
        await until(
            lambda: [m.payment_method_id for m in screen.saved.not_default()] == [was_default]
        )
        listed = await client.payment_methods.list_for_customer(customer)
        default = [m for m in listed.customer_payment_methods if m.default_payment_method_set]
        assert [m.payment_method_id for m in default] == [other.payment_method_id]

        # Revoke: the mandate is refused afterwards, and R is no longer offered.
        await pilot.press("R")
        await until(lambda: on_screen(app, ChooseForm))
        await submit(pilot, ChooseForm)
        await until(lambda: "revoked" in shown_text(screen.section("mandates")))
        assert (await client.mandates.retrieve(paid.mandate_id)).status == "revoked"
        assert "revoke-mandate" not in _offered(screen)

        # Delete: the method leaves the list.
        await pilot.press("x")
        await until(lambda: on_screen(app, ChooseForm))
        app.screen.query_one("#field-choice", Select).value = first.payment_method_id
        await submit(pilot, ChooseForm)
        await until(lambda: first.payment_method_id not in shown_text(screen.section("methods")))
        listed = await client.payment_methods.list_for_customer(customer)
        assert first.payment_method_id not in {
            m.payment_method_id for m in listed.customer_payment_methods
        }


async def _with_saved(pilot: Any) -> None:

    await ready(pilot)
    client = pilot.app.runtime.client
    customer = "cus_zdZTuTtGRsWjKEGkmXaC"  # a seeded customer (tests/tui/conftest.py)
    await _save_card(client, customer, nick_name="spare")
    await _mandate_payment(client, customer)
    await _detail(pilot, customer)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.usefixtures("seeded_ids")
@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_snapshot_saved_methods_and_mandates(
    size: tuple[int, int], dirs: Dirs, snap_compare: Any
) -> None:

    assert snap_compare(build(*dirs), terminal_size=size, run_before=_with_saved)
