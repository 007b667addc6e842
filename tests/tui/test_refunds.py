"""Refunds against the embedded sandbox: the list (seeded rows, filters, live rows), a new
refund from the list, the detail (payment jump, update, live status, failure explained), the
Events `g` jump, hostile text, and snapshots at two sizes in two themes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static, TextArea

from payscope.areas.payments.detail import PaymentDetailScreen
from payscope.areas.refunds.detail import RefundDetailScreen
from payscope.areas.refunds.forms import NewRefundForm, RefundUpdateForm
from payscope.areas.refunds.view import RefundsView
from payscope.views.forms import parse_metadata
from tests.tui.area_snapshots import forms_at_80x24, screens_in_every_look
from tests.tui.pilot import (
    apply_filter,
    create_payment,
    field_error,
    filter_problem,
    open_list,
    open_record,
    run_command,
    shown_text,
    submit,
    until,
)
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]
REFUND_FAILS_CARD = "4000000000005126"
# A refund settles at once; one of a payment made with this card starts pending (the sandbox's
# asynchronous path) and settles succeeded 10 sandbox-seconds later.
REFUND_PENDING_CARD = "4000000000007726"
HOSTILE = "[b]x[/b]\x1b[5m"
HOSTILE_SHOWN = "[b]x[/b]\\x1b[5m"  # ESC shown escaped, brackets kept


async def _refunds(pilot: Any) -> RefundsView:
    """Start, go to `:refunds` and wait for its first page."""
    return await open_list(pilot, "refunds", RefundsView)


def _header(view: RefundsView) -> str:
    return str(view.query_one("#refunds-header", Static).render())


async def _open(pilot: Any, refund_id: str) -> RefundDetailScreen:
    """Open a refund the way `:ref <id>` does, and wait for it to load."""
    return await open_record(pilot, f"ref {refund_id}", RefundDetailScreen)


async def _refund(client: Any, payment_id: str, **fields: Any) -> Any:
    from payscope.api.models.refunds import RefundCreateRequest

    return await client.refunds.create(RefundCreateRequest(payment_id=payment_id, **fields))


# -- the list --------------------------------------------------------------------------------------


async def test_seeded_refunds_show_newest_first_with_their_count(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _refunds(pilot)
        page = await app.runtime.client.refunds.list()
        assert page.total_count and len(view.rows) == page.total_count
        created = [r.created for r in view.rows.values()]
        assert created == sorted(created, reverse=True)
        assert f"{page.total_count} of {page.total_count}" in _header(view)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_narrow_keeps_refund_status_and_amount(dirs: Dirs, size: tuple[int, int]) -> None:
    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        view = await _refunds(pilot)
        shown = [key for key, _width in view.table.fitted]
        assert shown[:3] == ["refund_id", "status", "amount"]
        if size[0] >= 120:
            assert {"payment_id", "created"} <= set(shown)


async def test_filters_by_status_payment_and_amount(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _refunds(pilot)
        seeded = list(view.rows.values())
        target = seeded[-1]

        await apply_filter(pilot, view, "status:failed")
        assert view.rows == {}
        assert "Nothing matches this filter" in shown_text(view.query_one(".empty", Static))
        await apply_filter(pilot, view, "status:succeeded")
        assert len(view.rows) == len(seeded)

        await apply_filter(pilot, view, f"payment:{target.payment_id}")
        assert {r.payment_id for r in view.rows.values()} == {target.payment_id}
        await apply_filter(pilot, view, target.payment_id)  # a bare pay_… id
        assert target.refund_id in view.rows

        # No amount filter in the service: matched in the view, over the newest refunds.
        amount = f"{target.amount // 100}.{target.amount % 100:02d}"
        await apply_filter(pilot, view, f"amount:{amount}")
        assert target.refund_id in view.rows
        assert all(r.amount == target.amount for r in view.rows.values())
        assert "in all" in _header(view)  # how far the view looked

        # Part of a refund id, matched in the view.
        await apply_filter(pilot, view, target.refund_id[4:12])
        assert list(view.rows) == [target.refund_id]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("status:refunded", "is not a refund status"),
        ("payment:pay/1", "only letters, digits"),
        ("currency:EURO", "ISO 4217"),
        ("from:2024-06-01 to:2024-05-01", "Swap them"),
        ("amount:12.345", "2 decimal places"),
        ("colour:red", "Unknown filter"),
        ("re", "at least 4 characters"),
    ],
)
async def test_a_filter_mistake_is_said_and_the_rows_stay(dirs: Dirs, text: str, said: str) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _refunds(pilot)
        before = list(view.rows)
        await apply_filter(pilot, view, text)
        assert said in filter_problem(view)
        assert list(view.rows) == before


# -- a new refund from the list ------------------------------------------------------------------


async def test_new_refund_from_the_list_end_to_end(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _refunds(pilot)
        payment = await create_payment(app.runtime.client, amount=4200, card=REFUND_PENDING_CARD)
        await pilot.press("n")
        await until(lambda: on_screen(app, NewRefundForm))
        form = app.screen
        assert isinstance(form, NewRefundForm)

        # Mistakes, each under its field, the form staying open.
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "Type the id" in field_error(form, "payment_id")
        form.query_one("#field-payment_id", Input).value = "pay/1"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "only letters, digits, '_' and '-', not /" in field_error(form, "payment_id")
        form.query_one("#field-payment_id", Input).value = "pay_nobody_has_this_id"
        await pilot.press("ctrl+s")
        await until(lambda: "No payment has this id" in field_error(form, "payment_id"))

        form.query_one("#field-payment_id", Input).value = payment.payment_id
        form.query_one("#field-payment_id", Input).focus()
        await pilot.press("enter")  # moves on to the amount, sends nothing
        await pilot.pause()
        assert app.screen is form and form.query_one("#field-amount", Input).has_focus
        # Read as it is typed: the payment's currency and what is left say themselves.
        await until(lambda: "42.00 USD left" in shown_text(form.query_one("#hint-amount")))
        assert str(form.query_one("#form-submit").label) == "Refund in full (42.00 USD)"
        form.query_one("#field-amount", Input).value = "12.345"
        await pilot.press("ctrl+s")
        await until(lambda: bool(field_error(form, "amount")))
        assert "2 decimal places" in field_error(form, "amount")
        form.query_one("#field-amount", Input).value = "50.00"
        await pilot.press("ctrl+s")
        await until(lambda: "At most 42.00 USD" in field_error(form, "amount"))
        assert app.screen is form

        form.query_one("#field-amount", Input).value = "10.00"
        form.query_one("#field-reason", Input).value = "one mug broken"
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Refund 10.00 USD"
        await submit(pilot, NewRefundForm)

        # Its detail opens; back on the list, the new refund is the top row, pending.
        await until(lambda: on_screen(app, RefundDetailScreen))
        detail = app.screen
        assert isinstance(detail, RefundDetailScreen)
        await until(lambda: detail.record is not None)
        refund = detail.record
        assert (refund.amount, refund.reason, refund.status) == (1000, "one mug broken", "pending")
        assert refund.payment_id == payment.payment_id
        await pilot.press("escape")
        await until(lambda: refund.refund_id in view.rows)
        assert view.table.selected_id() == refund.refund_id
        assert next(iter(view.rows)) == refund.refund_id


async def test_a_refund_made_on_the_payment_shows_on_the_list_at_once(dirs: Dirs) -> None:
    from payscope.areas.payments.forms import RefundForm
    from tests.tui.pilot import open_detail

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _refunds(pilot)
        payment = await create_payment(app.runtime.client, amount=2500, card=REFUND_PENDING_CARD)
        await open_detail(pilot, payment.payment_id)
        await pilot.press("f")
        await submit(pilot, RefundForm)
        # No webhook before it settles: the form announces it, and the list puts it on top.
        await until(lambda: any(r.payment_id == payment.payment_id for r in view.rows.values()))
        top = next(iter(view.rows.values()))
        assert (top.payment_id, top.status, top.amount) == (payment.payment_id, "pending", 2500)


async def test_a_payment_not_refundable_is_said_at_its_field(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _refunds(pilot)
        held = await create_payment(app.runtime.client, capture_method="manual")
        await pilot.press("n")
        await until(lambda: on_screen(app, NewRefundForm))
        form = app.screen
        form.query_one("#field-payment_id", Input).value = held.payment_id
        await pilot.press("ctrl+s")
        await until(lambda: "requires_capture" in field_error(form, "payment_id"))


# -- the detail ----------------------------------------------------------------------------------


async def test_update_reason_and_metadata(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _refunds(pilot)
        refund_id = next(iter(view.rows))
        detail = await _open(pilot, refund_id)
        await pilot.press("e")
        await until(lambda: on_screen(app, RefundUpdateForm))
        form = app.screen
        reason = form.query_one("#field-reason", Input)
        assert reason.value == detail.record.reason  # prefilled
        assert str(form.query_one("#form-submit").label) == "Nothing changed yet"

        metadata = form.query_one("#field-metadata", TextArea)
        metadata.text = "order_id=42\nnot a pair"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "Line 2" in field_error(form, "metadata")

        reason.value = "customer kept one item"
        metadata.text = "order_id=42\nticket = T-7"
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Update reason and metadata"
        await submit(pilot, RefundUpdateForm)
        await until(lambda: detail.record.reason == "customer kept one item")
        assert detail.record.metadata == {"order_id": "42", "ticket": "T-7"}
        shown = shown_text(detail.section("metadata"))
        assert "order_id" in shown and "T-7" in shown
        # The list's row follows.
        await pilot.press("escape")
        await until(lambda: view.rows[refund_id].reason == "customer kept one item")

        # JSON is taken too, and prefilled back as key=value lines.
        detail = await _open(pilot, refund_id)
        await pilot.press("e")
        await until(lambda: on_screen(app, RefundUpdateForm))
        form = app.screen
        assert form.query_one("#field-metadata", TextArea).text == "order_id=42\nticket=T-7"
        form.query_one("#field-metadata", TextArea).text = '{"order_id": 42}'
        await submit(pilot, RefundUpdateForm)
        await until(lambda: detail.record.metadata == {"order_id": 42})


def test_metadata_text_reads_lines_and_json() -> None:
    assert parse_metadata("a=1\n\n b = two words \n") == {"a": "1", "b": "two words"}
    assert parse_metadata('{"a": [1]}') == {"a": [1]}
    assert parse_metadata("") == {}
    for wrong, said in [("a", "Line 1"), ("a=1\na=2", "twice"), ("[1]", "Line 1"), ("{", "JSON")]:
        with pytest.raises(ValueError, match=said):
            parse_metadata(wrong)


@pytest.mark.parametrize("key", ["enter", "g"])
async def test_the_detail_jumps_to_its_payment(dirs: Dirs, key: str) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _refunds(pilot)
        refund = next(iter(view.rows.values()))
        detail = await _open(pilot, refund.refund_id)
        shown = shown_text(detail.section("payment"))
        assert refund.payment_id in shown and "Received" in shown
        await pilot.press(key)
        await until(lambda: on_screen(app, PaymentDetailScreen))
        assert app.screen.payment_id == refund.payment_id


async def test_g_on_a_row_jumps_to_its_payment(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _refunds(pilot)
        refund = view.table.selected()
        await pilot.press("g")
        await until(lambda: on_screen(app, PaymentDetailScreen))
        assert app.screen.payment_id == refund.payment_id


@pytest.mark.parametrize(
    ("card", "status"), [(REFUND_PENDING_CARD, "succeeded"), (REFUND_FAILS_CARD, "failed")]
)
async def test_a_pending_refund_settles_live_on_the_list_and_the_detail(
    dirs: Dirs, card: str, status: str
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _refunds(pilot)
        client = app.runtime.client
        payment = await create_payment(client, card=card)
        refund = await _refund(client, payment.payment_id, reason="live")
        await pilot.press("r")
        await until(lambda: refund.refund_id in view.rows)
        assert view.rows[refund.refund_id].status == "pending"
        detail = await _open(pilot, refund.refund_id)
        assert detail.record.status == "pending"
        assert "settles by itself" in shown_text(detail.section("summary"))

        # The sandbox settles an instant refund 10 seconds on: its webhook does the rest.
        await client.sandbox.advance_clock(11)
        await until(lambda: detail.record.status == status)
        await until(lambda: f"refund_{status}" in shown_text(detail.section("history")))
        failure = detail.section("failure")
        assert failure.display == (status == "failed")
        if status == "failed":
            explained = shown_text(failure)
            assert "UE_1016" in explained and "Retry" in explained
        await pilot.press("escape")
        await until(lambda: view.rows[refund.refund_id].status == status)


async def test_a_new_refund_appears_on_top_when_its_webhook_arrives(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await _refunds(pilot)
        client = app.runtime.client
        payment = await create_payment(client)
        refund = await _refund(client, payment.payment_id)  # made elsewhere: no row yet
        await client.sandbox.advance_clock(11)
        await until(lambda: refund.refund_id in view.rows)
        assert next(iter(view.rows)) == refund.refund_id
        assert view.rows[refund.refund_id].status == "succeeded"
        errors = [n.message for n in app.told if n.severity == "error"]
        assert errors == []


async def test_g_on_a_refund_event_opens_the_refund(dirs: Dirs) -> None:
    from payscope.areas.events.view import EventsView

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        client = app.runtime.client
        payment = await create_payment(client)
        refund = await _refund(client, payment.payment_id)
        await client.sandbox.advance_clock(11)
        await run_command(pilot, "events")
        events = app.screen.query_one(EventsView)
        await until(
            lambda: any(
                e.object_id == refund.refund_id and e.event_type == "refund_succeeded"
                for e in events.rows.values()
            )
        )
        await app.workers.wait_for_complete()
        await pilot.pause()
        event_id = next(e.event_id for e in events.rows.values() if e.object_id == refund.refund_id)
        events.table.move_cursor(row=events.table.get_row_index(event_id))
        await pilot.press("g")
        await until(lambda: on_screen(app, RefundDetailScreen))
        detail = app.screen
        assert isinstance(detail, RefundDetailScreen)
        assert detail.record_id == refund.refund_id
        await until(lambda: detail.record is not None and detail.record.status == "succeeded")
        assert event_id in shown_text(detail.section("history"))


async def test_an_unknown_refund_says_not_found(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _refunds(pilot)
        await run_command(pilot, "ref ref_NobodyHasThisId00001")
        await until(lambda: on_screen(app, RefundDetailScreen))
        detail = app.screen
        await until(lambda: detail.missing)
        assert "not found" in shown_text(detail.query_one("#detail-title"))


async def test_hostile_reason_shows_literally_in_the_list_and_the_detail(dirs: Dirs) -> None:
    app = build(*dirs)
    # Wide enough for the reason column.
    async with app.run_test(size=(160, 40)) as pilot:
        view = await _refunds(pilot)
        payment = await create_payment(app.runtime.client)
        refund = await _refund(
            app.runtime.client, payment.payment_id, reason=HOSTILE, metadata={HOSTILE: HOSTILE}
        )
        await pilot.press("r")
        await until(lambda: refund.refund_id in view.rows)
        await pilot.pause()
        cell = view.table.get_cell(refund.refund_id, "reason")
        assert cell.plain == HOSTILE_SHOWN
        assert HOSTILE_SHOWN in app.export_screenshot().replace("&#160;", " ")

        detail = await _open(pilot, refund.refund_id)
        assert HOSTILE_SHOWN in shown_text(detail.section("summary"))
        assert shown_text(detail.section("metadata")).count(HOSTILE_SHOWN) == 2
        screen = app.export_screenshot()
        assert "\x1b[5m" not in screen
        assert "[b]x[/b]" in screen.replace("&#91;", "[").replace("&#93;", "]")

        # The update form holds the reason as it is and shows no escape sequence either.
        await pilot.press("e")
        await until(lambda: on_screen(app, RefundUpdateForm))
        await pilot.pause()
        assert app.screen.query_one("#field-reason", Input).value == HOSTILE
        assert "\x1b[5m" not in app.export_screenshot()


# -- snapshots -------------------------------------------------------------------------------------


async def _list(pilot: Any) -> None:
    await _refunds(pilot)


async def _failed_detail(pilot: Any) -> None:
    """A refund that failed on the refund-fails card: the failure explained, its webhook."""
    await _refunds(pilot)
    client = pilot.app.runtime.client
    payment = await create_payment(
        client, card=REFUND_FAILS_CARD, payment_id="pay_snapshot_refund_fails"
    )
    refund = await _refund(
        client,
        payment.payment_id,
        refund_id="ref_snapshot_failed",
        amount=1500,
        reason="requested_by_customer",
        metadata={"order_id": "A-1042", "ticket": "T-7"},
    )
    await client.sandbox.advance_clock(11)
    detail = await _open(pilot, refund.refund_id)
    await until(lambda: "refund_failed" in shown_text(detail.section("history")))
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def _new_refund_errors(pilot: Any) -> None:
    await _refunds(pilot)
    await pilot.press("n")
    await until(lambda: on_screen(pilot.app, NewRefundForm))
    form = pilot.app.screen
    form.query_one("#field-payment_id", Input).value = "pay/1"
    form.query_one("#field-amount", Input).value = "12.345"
    await pilot.press("ctrl+s")
    await until(lambda: bool(field_error(form, "payment_id")))
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def _update_form(pilot: Any) -> None:
    """The update form of the failed refund: reason and metadata prefilled."""
    await _failed_detail(pilot)
    await pilot.press("e")
    await until(lambda: on_screen(pilot.app, RefundUpdateForm))
    await pilot.pause()


SCREENS = {
    "list": _list,
    "detail": _failed_detail,
    "new_refund_errors": _new_refund_errors,
    "update_form": _update_form,
}


test_refund_screens = screens_in_every_look(SCREENS, ["list", "detail"])


test_refund_forms = forms_at_80x24(
    SCREENS, [("new_refund_errors", "payscope-dark"), ("update_form", "payscope-light")]
)
