"""Customers against the embedded sandbox: the seeded list, the `/` filter matched in the view,
create -> detail, edit, delete (confirmed), the customer's payments, snapshots, hostile text."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from payscope.areas.customers.detail import CustomerDetailScreen
from payscope.areas.customers.forms import EditCustomerForm, NewCustomerForm
from payscope.areas.customers.view import CustomersView
from payscope.views.forms import ConfirmScreen
from tests.tui.area_snapshots import screens_in_every_look
from tests.tui.pilot import (
    field_error,
    run_command,
    shown_text,
    submit,
    type_text,
    until,
)
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]

# The seeded template (tests/tui/conftest.py): six customers, newest first.
NEWEST = "cus_yPAGc0MpDN5b5KcwSgKI"  # Ada Turing, 4 payments
LOVELACE = "cus_zdZTuTtGRsWjKEGkmXaC"  # Margaret Lovelace, 5 payments, one refunded
SEEDED = 6


async def _customers(pilot: Any) -> CustomersView:
    """Start, open Customers (`:customers`) and wait for its first page."""
    app = pilot.app
    await ready(pilot)
    await run_command(pilot, "customers")
    view = app.screen.query_one(CustomersView)
    await until(lambda: view.loaded and not view.workers)
    await pilot.pause()
    return view


async def _filter(pilot: Any, view: CustomersView, text: str) -> None:
    await pilot.press("slash")
    await type_text(pilot, text)
    await pilot.press("enter")
    await pilot.pause()
    await until(lambda: not view.workers)
    await pilot.pause()


async def _detail(pilot: Any, customer_id: str) -> CustomerDetailScreen:
    """Open a customer the way `:cus <id>` does and wait until it and its payments loaded."""
    app = pilot.app
    await run_command(pilot, f"cus {customer_id}")
    await until(lambda: on_screen(app, CustomerDetailScreen))
    screen = app.screen
    assert isinstance(screen, CustomerDetailScreen)
    await until(lambda: screen.customer is not None and not screen.busy)
    await pilot.pause()
    return screen


async def test_seeded_customers_are_listed_newest_first(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _customers(pilot)
        assert len(view.rows) == SEEDED
        assert next(iter(view.rows)) == NEWEST
        created = [c.created for c in view.rows.values()]
        assert created == sorted(created, reverse=True)
        header = shown_text(view.query_one("#customers-header"))
        assert f"1-{SEEDED} of {SEEDED}" in header
        row = [str(cell) for cell in view.table.get_row(NEWEST)]
        assert row[:3] == [NEWEST, "Ada Turing", "ada.turing989@example.com"]
        assert row[3] == "+1 3245553703"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("ada.turing989@example.com", [NEWEST]),
        ("ADA.Turing989@", [NEWEST]),  # an e-mail, or its start, in any case
        ("turing", [NEWEST, "cus_kspfYkpodFnP9tFbNyUZ"]),  # a name, in any case
        ("ada turing", [NEWEST]),  # every word must match
        ("cus_zdZT", [LOVELACE]),  # part of an id
        ("id:ZDZTUTTG", [LOVELACE]),
        ("from:2024-04-01", [NEWEST, LOVELACE]),
        ("to:2024-01-28 hopper", ["cus_C2br7Phv2Bb3iNMC7kLh"]),
    ],
)
async def test_filter_matches_in_the_view_and_says_how_far_it_looked(
    dirs: Dirs, query: str, expected: list[str]
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _customers(pilot)
        await _filter(pilot, view, query)
        assert list(view.rows) == expected
        header = shown_text(view.query_one("#customers-header"))
        found = len(expected)
        assert f"{found} match{'es' * (found != 1)} in all {SEEDED} customers" in header
        assert f"filter {query}" in header

        await pilot.press("escape")  # clears the filter: every customer again
        await until(lambda: not view.filter and not view.workers)
        assert len(view.rows) == SEEDED


async def test_a_whole_id_is_read_directly(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _customers(pilot)
        await _filter(pilot, view, LOVELACE)
        assert list(view.rows) == [LOVELACE]
        assert "1-1 of 1" in shown_text(view.query_one("#customers-header"))
        await pilot.press("escape")
        await until(lambda: not view.filter and not view.workers)
        await _filter(pilot, view, "cus_" + "x" * 20)  # whole, but no such customer
        assert view.rows == {}
        assert "no customers match" in shown_text(view.query_one("#customers-header"))
        assert "Nothing matches this filter" in shown_text(view.query_one(".empty"))


async def test_a_filter_mistake_is_said_under_the_box_and_the_rows_stay(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _customers(pilot)
        await _filter(pilot, view, "status:active")
        error = view.query_one(".filter-error")
        assert error.has_class("-shown")
        assert "Unknown filter `status:`" in shown_text(error)
        assert "name:ada" in shown_text(error)  # ... and what it takes instead
        assert len(view.rows) == SEEDED and not view.filter
        assert view.query_one(".filter-box").has_class("-shown")  # open, to fix it


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("pay_q6MoqRTJp9OLb2kc6Tfl", "is an id of Payments: this filter finds customers"),
        ("pay_q6MoqRTJp9OLb2kc6Tfl", ":pay <id> opens it"),
        ("a", "type at least 2 letters of a name"),
        ("@", "type more of the e-mail address"),
        ("cus_ab", "type at least 4 characters of the id after cus_"),
        ("from:yesterday", "is not a date"),
        ("name:", "needs a value after the colon"),
        ("status:active", "Unknown filter `status:`"),
    ],
)
def test_filter_mistakes_say_what_to_type(query: str, message: str) -> None:
    from payscope.areas.customers.spec import customer_grammar

    with pytest.raises(ValueError, match=re.escape(message)):
        customer_grammar().parse(query)


# -- create, edit, delete -------------------------------------------------------------------------


def _type(form: Any, **values: str) -> None:
    from textual.widgets import TextArea

    for name, value in values.items():
        widget = form.query_one(f"#field-{name}")
        if isinstance(widget, TextArea):
            widget.load_text(value)
        else:
            assert isinstance(widget, Input)
            widget.value = value


async def test_create_opens_the_new_customer_and_the_list_shows_it(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _customers(pilot)
        await pilot.press("n")
        await until(lambda: on_screen(app, NewCustomerForm))
        _type(
            app.screen,
            name="Grace Hopper",
            email="grace@example.com",
            phone_country_code="+44",
            phone="20 7946 0958",
            line1="1 Navy Way",
            city="Arlington",
            country="us",
            metadata="tier=gold\nref=A12",
            customer_id="cus_grace",
        )
        await submit(pilot, NewCustomerForm)

        await until(lambda: on_screen(app, CustomerDetailScreen))
        detail = app.screen
        await until(lambda: detail.customer is not None and not detail.busy)
        assert detail.customer_id == "cus_grace"
        c = detail.customer
        assert (c.name, c.email, c.phone) == ("Grace Hopper", "grace@example.com", "20 7946 0958")
        assert c.address.country == "US" and c.metadata == {"tier": "gold", "ref": "A12"}
        fields = shown_text(detail.section("customer"))
        assert "+44 20 7946 0958" in fields and "tier: gold" in fields
        assert "1 Navy Way" in fields and "Arlington" in fields
        assert "No payments yet" in shown_text(detail.query_one("#payments-summary"))

        # Behind it, the list shows the new customer on top, under the cursor.
        await until(lambda: "cus_grace" in view.rows)
        assert next(iter(view.rows)) == "cus_grace"
        assert view.total == SEEDED + 1
        await pilot.press("escape")
        await until(lambda: app.screen.query(CustomersView))
        assert view.table.selected_id() == "cus_grace"


async def test_create_refusals_are_said_under_their_fields(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _customers(pilot)
        await pilot.press("n")
        await until(lambda: on_screen(app, NewCustomerForm))
        form = app.screen
        _type(
            form,
            email="grace at example",
            phone_country_code="44x",
            country="Neverland",
            metadata="tier gold",
            customer_id="has space",
        )
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is form  # nothing sent
        assert "e-mail address" in field_error(form, "email")
        assert "+1 or +44" in field_error(form, "phone_country_code")
        assert "country code" in field_error(form, "country")  # an address part: its own field
        assert "Line 1 (tier gold) is not key=value" in field_error(form, "metadata")
        assert "contains ' '" in field_error(form, "customer_id")

        # An id the service already has: refused by the service, said at the id field.
        _type(
            form,
            email="grace@example.com",
            phone_country_code="+44",
            country="GB",
            metadata="",
            customer_id=NEWEST,
        )
        await pilot.press("ctrl+s")
        await until(lambda: bool(field_error(form, "customer_id")))
        assert app.screen is form
        assert "already exists" in field_error(form, "customer_id")
        assert not field_error(form, "email")


async def test_edit_is_prefilled_sends_only_what_changed_and_the_list_follows(
    dirs: Dirs,
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _customers(pilot)
        detail = await _detail(pilot, LOVELACE)
        await pilot.press("e")
        await until(lambda: on_screen(app, EditCustomerForm))
        form = app.screen
        value = lambda name: form.query_one(f"#field-{name}", Input).value  # noqa: E731
        assert value("name") == "Margaret Lovelace"
        assert value("email") == "margaret.lovelace247@example.com"
        assert value("phone_country_code") == "+1"
        assert str(form.query_one("#form-submit").label) == "Nothing changed yet"

        await pilot.press("ctrl+s")  # nothing to send: said, not sent
        await pilot.pause()
        assert app.screen is form
        assert "Nothing changed yet" in shown_text(form.query_one("#form-error"))

        _type(form, email="", description="")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "cannot be removed" in field_error(form, "email")

        _type(form, email="ada@example.org", description="", city="London")
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Save 3 changes"
        sent_before = len(app.runtime.client.journal)
        await submit(pilot, EditCustomerForm)

        await until(lambda: detail.customer.email == "ada@example.org")
        c = detail.customer
        assert c.name == "Margaret Lovelace"  # not sent, kept
        assert c.description == "" and c.address.city == "London"
        update = next(
            e for e in list(app.runtime.client.journal)[sent_before:] if e.method == "POST"
        )
        assert update.url.endswith(f"/customers/{LOVELACE}")
        assert "name" not in str(update.request_body)
        # The list (behind) follows the change without a webhook.
        await until(lambda: view.rows[LOVELACE].email == "ada@example.org")
        assert "ada@example.org" in [str(c) for c in view.table.get_row(LOVELACE)]


async def test_delete_confirms_names_the_customer_and_the_row_goes(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _customers(pilot)
        detail = await _detail(pilot, LOVELACE)
        await pilot.press("D")
        await until(lambda: on_screen(app, ConfirmScreen))
        confirm = app.screen
        intro = shown_text(confirm.query_one("#form-intro"))
        assert "Delete Margaret Lovelace (cus_zdZTuTtGRsWjKEGkmXaC)?" in intro
        assert f"Its past payments keep customer_id {LOVELACE}" in intro

        await pilot.press("escape")  # closed: nothing deleted
        await until(lambda: app.screen is detail)
        await app.runtime.client.customers.retrieve(LOVELACE)

        await pilot.press("D")
        await submit(pilot, ConfirmScreen)
        # The detail closes, the row goes, the count follows.
        await until(lambda: app.screen.query(CustomersView) and LOVELACE not in view.rows)
        assert view.total == SEEDED - 1
        assert f"1-{SEEDED - 1} of {SEEDED - 1}" in shown_text(view.query_one("#customers-header"))
        # Its payments keep their customer_id.
        from payscope.api.models.payments import PaymentListRequest

        kept = await app.runtime.client.payments.list(PaymentListRequest(customer_id=LOVELACE))
        assert kept.total_count == 5


async def test_delete_from_the_list(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _customers(pilot)
        view.table.move_cursor(row=view.table.get_row_index(LOVELACE))
        await pilot.press("D")
        await until(lambda: on_screen(app, ConfirmScreen))
        await submit(pilot, ConfirmScreen)
        await until(lambda: LOVELACE not in view.rows)
        assert len(view.rows) == SEEDED - 1


# -- the customer's payments ---------------------------------------------------------------------


async def test_payments_section_lists_the_customers_payments_with_refunds(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _customers(pilot)
        detail = await _detail(pilot, LOVELACE)
        table = detail.section_payments.table
        assert len(table.records) == 5
        refunded = table.records["pay_WY8f5QqDbAdkYJto5aKa"]
        assert (refunded.refunds, refunded.disputes) == (1, 0)
        assert "5 payments" in shown_text(detail.query_one("#payments-summary"))
        # Webhooks about these payments (and their refunds) reload the section.
        assert set(table.records) <= detail.watched_ids(detail.customer)


async def test_a_new_payment_of_the_customer_appears_by_its_webhook(dirs: Dirs) -> None:
    from payscope.api.models.payments import PaymentCreateRequest

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _customers(pilot)
        detail = await _detail(pilot, NEWEST)
        table = detail.section_payments.table
        assert len(table.records) == 4
        card = {"card_number": "4242424242424242", "card_exp_month": "12"}
        card |= {"card_exp_year": "2030", "card_cvc": "123"}
        request = PaymentCreateRequest.model_validate(
            {
                "amount": 1234,
                "currency": "EUR",
                "customer_id": NEWEST,
                "payment_id": "pay_new",
                "confirm": True,
                "payment_method": "card",
                "payment_method_type": "credit",
                "payment_method_data": {"card": card},
                "billing": {"address": {"line1": "1 Test Street", "city": "T", "country": "US"}},
                "return_url": "https://example.com/return",
            }
        )
        await app.runtime.client.payments.create(request)
        await until(lambda: "pay_new" in table.records)
        assert next(iter(table.records)) == "pay_new"  # newest first
        assert "12.34 EUR" in [str(c) for c in table.get_row("pay_new")][2]


async def test_enter_opens_the_selected_payment_and_esc_comes_back(dirs: Dirs) -> None:
    from payscope.areas.payments.detail import PaymentDetailScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _customers(pilot)
        detail = await _detail(pilot, LOVELACE)
        table = detail.section_payments.table
        assert table.has_focus  # up and down pick a payment at once
        await pilot.press("down", "enter")
        await until(lambda: on_screen(app, PaymentDetailScreen))
        assert app.screen.payment_id == list(table.records)[1]
        await pilot.press("escape")
        await until(lambda: app.screen is detail)

        await pilot.press("p")  # the key does the same, for the payment under the cursor
        await until(lambda: on_screen(app, PaymentDetailScreen))
        assert app.screen.payment_id == list(table.records)[1]


async def test_all_payments_shows_payments_filtered_to_the_customer(dirs: Dirs) -> None:
    from payscope.areas.payments.view import PaymentsView

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _customers(pilot)
        await _detail(pilot, LOVELACE)
        await pilot.press("P")
        payments = app.screen.query_one(PaymentsView)
        await until(lambda: payments.display and payments.filter.text == f"customer:{LOVELACE}")
        await until(lambda: not payments.workers)
        assert len(payments.rows) == 5
        assert {p.customer_id for p in payments.rows.values()} == {LOVELACE}


async def test_the_payments_section_follows_the_theme(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _customers(pilot)
        detail = await _detail(pilot, LOVELACE)
        table = detail.section_payments.table
        first = next(iter(table.records))
        before = table.get_row(first)[1].style
        app.theme = "payscope-light"
        await pilot.pause()
        assert table.get_row(first)[1].style != before


async def test_a_list_repaints_in_the_new_themes_colours(dirs: Dirs) -> None:
    """The framework fix this area needed: rows took the old theme's colours on a switch."""
    from payscope.areas.payments.view import PaymentsView

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        view = app.screen.query_one(PaymentsView)
        first = next(iter(view.rows))
        app.theme = "payscope-light"
        await pilot.pause()
        wanted = app.theme_variables["status-" + str(view.rows[first].status)]
        assert str(view.table.get_row(first)[1].style).lower() == wanted.lower()


# -- fresh start, hostile text, errors -------------------------------------------------------------


async def test_a_fresh_start_seeds_customers_that_show(tmp_path: Path, dirs: Dirs) -> None:
    config, _copied = dirs
    app = build(config, tmp_path / "fresh", seed=16)  # an empty data dir: the first run
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _customers(pilot)
        assert len(view.rows) == 16 // 8 + 1
        assert all(c.name and c.email for c in view.rows.values())


HOSTILE = "[b]Mallory[/b] \x1b[5m\u202eevil"


async def test_hostile_text_is_shown_literally_everywhere(
    dirs: Dirs, monkeypatch: pytest.MonkeyPatch
) -> None:
    from payscope.api.models.customers import CustomerCreateRequest

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _customers(pilot)
        request = CustomerCreateRequest(
            customer_id="cus_hostile",
            name=HOSTILE,
            email="[red]m@example.com",
            description="line one\n[link=http://x]two[/link]\x07",
            metadata={"[i]k": "\x1b]8;;http://x\x1b\\v"},
        )
        await app.runtime.client.customers.create(request)
        # A service that sends a time that is not ISO 8601 (the real one's records are its own).
        real_retrieve = app.runtime.client.customers.retrieve

        async def odd_times(customer_id: str) -> Any:
            customer = await real_retrieve(customer_id)
            return customer.model_copy(update={"modified_at": "[blink]soon[/blink]"})

        monkeypatch.setattr(app.runtime.client.customers, "retrieve", odd_times)
        await pilot.press("r")
        await until(lambda: "cus_hostile" in view.rows)
        cells = [str(c) for c in view.table.get_row("cus_hostile")]
        # Literally, ESC visible; cut by its column with a visible mark (the detail has it whole).
        assert cells[1].startswith("[b]Mallory[/b] \\") and cells[1].endswith("…")
        assert "\x1b" not in cells[1]
        assert cells[2] == "[red]m@example.com"

        detail = await _detail(pilot, "cus_hostile")
        title = shown_text(detail.query_one("#detail-title"))
        assert "[b]Mallory[/b] \\x1b[5m" in title and "\x1b" not in title
        fields = shown_text(detail.section("customer"))
        assert "[b]Mallory[/b]" in fields and "[red]m@example.com" in fields
        assert "[link=http://x]two[/link]\\x07" in fields
        assert "[i]k: \\x1b]8;;http://x\\x1b\\v" in fields
        assert "[blink]soon[/blink]" in fields
        assert "\x1b" not in fields and "\u202e" not in fields

        await pilot.press("D")  # the confirmation names it literally too
        await until(lambda: on_screen(app, ConfirmScreen))
        intro = shown_text(app.screen.query_one("#form-intro"))
        assert "Delete [b]Mallory[/b] \\x1b[5m" in intro and "\x1b" not in intro
        await pilot.press("escape")

        await pilot.press("e")  # the edit form starts from what is shown, never from escapes
        await until(lambda: on_screen(app, EditCustomerForm))
        name = app.screen.query_one("#field-name", Input).value
        assert name == "[b]Mallory[/b] \\x1b[5m\\u202eevil"
        assert str(app.screen.query_one("#form-submit").label) == "Nothing changed yet"


async def test_a_failed_row_refresh_is_one_toast_and_the_row_stays(
    dirs: Dirs, monkeypatch: pytest.MonkeyPatch
) -> None:
    from payscope.api.errors import ServerError

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _customers(pilot)

        async def broken(customer_id: str) -> Any:
            raise ServerError(500, "server_error", "HE_00", "Something went wrong")

        monkeypatch.setattr(app.runtime.client.customers, "retrieve", broken)
        before = len(app.told)
        view.refresh_one(LOVELACE)
        await until(lambda: len(app.told) > before)
        await pilot.pause(0.2)
        assert len(app.told) == before + 1
        assert LOVELACE in view.rows


# -- units ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "shown"),
    [
        (63, ["name", "email", "created"]),  # 80 columns, the rail shown
        (79, ["name", "email", "phone", "created"]),  # 80 columns, the rail hidden
        (103, ["customer_id", "name", "email", "phone", "created"]),  # 120 columns
    ],
)
def test_columns_give_way_in_a_narrow_table(width: int, shown: list[str]) -> None:
    from payscope.areas.customers.spec import COLUMNS
    from payscope.views.columns import PADDING, fit

    layout = dict(fit(COLUMNS, width))
    assert list(layout) == shown
    assert sum(w + PADDING for w in layout.values()) <= width
    assert layout.get("customer_id", 24) == 24  # an id is whole or not there
    assert layout["email"] >= 26


async def test_refunds_and_disputes_are_the_payments_own_or_counted() -> None:
    from types import SimpleNamespace

    from payscope.areas.customers.detail import counts

    asked: list[str] = []

    async def count(payment_id: str) -> int | None:
        asked.append(payment_id)
        return 3

    def payment(status: str, received: int, **own: Any) -> Any:
        return SimpleNamespace(
            payment_id=f"pay_{status}", status=status, amount_received=received, **own
        )

    # The list gave them: no request.
    own = payment("succeeded", 500, refunds=[object(), object()], disputes=[])
    assert await counts(own, count, count) == (2, 0)
    # Failed: it took no money, so it has none, and nothing is asked.
    assert await counts(payment("failed", 0), count, count) == (0, 0)
    assert asked == []
    # Charged, lists not given: counted.
    assert await counts(payment("succeeded", 500), count, count) == (3, 3)
    assert asked == ["pay_succeeded", "pay_succeeded"]


def test_phone_address_and_metadata_as_people_read_them() -> None:
    from types import SimpleNamespace

    from payscope.areas.customers.detail import address_text, metadata_text
    from payscope.areas.customers.spec import phone_of

    def person(phone: str | None, code: str | None) -> Any:
        return SimpleNamespace(phone=phone, phone_country_code=code)

    assert phone_of(person("20 7946 0958", "+44")) == "+44 20 7946 0958"
    assert phone_of(person("3245553703", "1")) == "+1 3245553703"
    assert phone_of(person("3245553703", None)) == "3245553703"
    assert phone_of(person(None, "+1")) is None
    address = {"line1": "1 Navy Way", "city": "Arlington", "state": "VA", "zip": "22201"}
    assert address_text({**address, "country": "US"}).plain == (
        "1 Navy Way\nArlington, VA 22201\nUS"
    )
    assert address_text({}).plain == "none"
    assert metadata_text({"tier": "gold", "n": 2}).plain == "tier: gold\nn: 2"


# -- snapshots ----------------------------------------------------------------------------------


async def _snap_list(pilot: Any) -> None:
    await _customers(pilot)


async def _snap_detail(pilot: Any) -> None:
    await _customers(pilot)
    await _detail(pilot, LOVELACE)


async def _snap_new_errors(pilot: Any) -> None:
    await _customers(pilot)
    await pilot.press("n")
    await until(lambda: on_screen(pilot.app, NewCustomerForm))
    _type(pilot.app.screen, name="Grace Hopper", email="grace at example", country="UK")
    await pilot.press("ctrl+s")
    await pilot.pause()


async def _snap_delete(pilot: Any) -> None:
    await _customers(pilot)
    await _detail(pilot, LOVELACE)
    await pilot.press("D")
    await until(lambda: on_screen(pilot.app, ConfirmScreen))
    await pilot.pause()


SNAPSHOTS = {
    "list": _snap_list,
    "detail": _snap_detail,
    "new_errors": _snap_new_errors,
    "delete": _snap_delete,
}


test_snapshot = screens_in_every_look(SNAPSHOTS)
