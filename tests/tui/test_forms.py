"""Pilot tests of every payment form against the embedded sandbox: the picker, 3-D Secure, each
action end to end, and errors shown at the field they are about."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Input, Select, Static

from payscope.areas.payments.detail import PaymentDetailScreen
from payscope.areas.payments.forms import (
    CancelForm,
    CaptureForm,
    ConfirmForm,
    NewPaymentScreen,
    RefundForm,
    ThreeDSForm,
    UpdateForm,
)
from payscope.areas.payments.view import PaymentsView
from payscope.views.forms import ConfirmScreen
from payscope.widgets.card_picker import TestCardPicker
from tests.tui.pilot import create_payment, field_error, open_detail, submit, until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]


async def _pick(pilot, number: str) -> None:  # type: ignore[no-untyped-def]
    """In the new-payment form: open the picker, move to `number`'s row, Enter."""
    app = pilot.app
    await pilot.press("ctrl+t")
    await until(lambda: on_screen(app, TestCardPicker))
    picker = app.screen
    table = picker.query_one(DataTable)
    await until(lambda: table.row_count > 0)
    table.move_cursor(row=table.get_row_index(number))
    await pilot.press("enter")
    await until(lambda: on_screen(app, NewPaymentScreen))


async def _created(pilot) -> str:  # type: ignore[no-untyped-def]
    """Send the new-payment form; the id of the payment it made (the row that appeared)."""
    app = pilot.app
    form = app.screen
    form.query_one("#field-payment_id", Input).value = "pay_forms_test"
    await submit(pilot, NewPaymentScreen)
    return "pay_forms_test"


async def test_picker_lists_the_sandbox_cards_and_fills_the_form(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        rows = await app.runtime.client.sandbox.test_cards()
        await pilot.press("n")
        await until(lambda: on_screen(app, NewPaymentScreen))
        await pilot.press("ctrl+t")
        await until(lambda: on_screen(app, TestCardPicker))
        table = app.screen.query_one(DataTable)
        await until(lambda: table.row_count > 0)
        assert table.row_count == len(rows)
        row = table.get_row("4000000000000002")
        assert [str(cell) for cell in row[2:4]] == ["declined", "UE_1007"]

        table.move_cursor(row=table.get_row_index("4000000000000002"))
        await pilot.press("enter")
        await until(lambda: on_screen(app, NewPaymentScreen))
        form = app.screen
        assert form.query_one("#field-card", Input).value == "4000 0000 0000 0002"
        assert "UE_1007" in str(form.query_one("#hint-card").render())

        payment_id = await _created(pilot)
        payment = await app.runtime.client.payments.retrieve(payment_id)
        assert payment.status == "failed"
        assert payment.unified_code == "UE_1007"


async def test_the_highlighted_cards_whole_description_shows_under_the_table(dirs: Dirs) -> None:
    """At 80x24 the table has no room for "What it does": the line under it says it whole."""
    from textual.widgets import Static

    app = build(*dirs)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        rows = await app.runtime.client.sandbox.test_cards()
        longest = max(rows, key=lambda row: len(row["description"]))
        await pilot.press("n")
        await until(lambda: on_screen(app, NewPaymentScreen))
        await pilot.press("ctrl+t")
        await until(lambda: on_screen(app, TestCardPicker))
        picker = app.screen
        table = picker.query_one(DataTable)
        await until(lambda: table.row_count > 0)
        detail = picker.query_one("#picker-detail", Static)
        await until(lambda: "4242 4242 4242 4242" in str(detail.render()))
        table.move_cursor(row=table.get_row_index(longest["card_number"]))
        await until(lambda: longest["description"] in " ".join(str(detail.render()).split()))
        assert detail.region.height > 1  # wrapped, not cut


async def test_picker_closed_without_choosing_keeps_the_card(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("n")
        await until(lambda: on_screen(app, NewPaymentScreen))
        await pilot.press("ctrl+t")
        await until(lambda: on_screen(app, TestCardPicker))
        await pilot.press("escape")
        await until(lambda: on_screen(app, NewPaymentScreen))
        assert app.screen.query_one("#field-card", Input).value == "4242 4242 4242 4242"


@pytest.mark.parametrize(
    ("result", "status", "code"),
    [
        ("authorize", "succeeded", None),
        ("fail", "failed", "UE_5001"),
        ("abandon", "failed", "UE_5003"),
    ],
)
async def test_three_ds_card_then_completion_from_the_detail(
    dirs: Dirs, result: str, status: str, code: str | None
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("n")
        await until(lambda: on_screen(app, NewPaymentScreen))
        await _pick(pilot, "4000003800000446")
        # A challenge card switches the form to 3-D Secure by itself.
        assert app.screen.query_one("#field-authentication_type", Select).value == "three_ds"
        payment_id = await _created(pilot)

        # The new payment's detail opens by itself, offering the challenge.
        await until(
            lambda: isinstance(app.screen, PaymentDetailScreen) and app.screen.payment is not None
        )
        detail = app.screen
        assert detail.payment_id == payment_id
        assert detail.payment.status in ("requires_customer_action", "requires_action")
        await pilot.press("3")
        await until(lambda: on_screen(app, ThreeDSForm))
        app.screen.query_one("#field-result", Select).value = result
        await submit(pilot, ThreeDSForm)
        await until(lambda: detail.payment.status == status)
        assert detail.payment.unified_code == code


async def test_confirm_a_payment_created_for_later(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        created = await create_payment(app.runtime.client, confirm=False)
        detail = await open_detail(pilot, created.payment_id)
        await pilot.press("o")
        await until(lambda: on_screen(app, ConfirmForm))
        form = app.screen
        assert str(form.query_one("#form-submit").label) == "Confirm 42.00 USD"
        await submit(pilot, ConfirmForm)
        await until(lambda: detail.payment.status == "succeeded")


async def test_partial_capture_and_an_amount_over_the_limit(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        created = await create_payment(app.runtime.client, capture_method="manual")
        detail = await open_detail(pilot, created.payment_id)
        await pilot.press("c")
        await until(lambda: on_screen(app, CaptureForm))
        form = app.screen
        form.query_one("#field-amount", Input).value = "50.00"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is form  # refused before sending, at the field
        assert "At most 42.00 USD" in field_error(form, "amount")

        form.query_one("#field-amount", Input).value = "10.00"
        await submit(pilot, CaptureForm)
        await until(lambda: detail.payment.amount_received == 1000)
        assert detail.payment.status.startswith("partially_captured")


async def test_cancel_with_a_reason(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        created = await create_payment(app.runtime.client, capture_method="manual")
        detail = await open_detail(pilot, created.payment_id)
        await pilot.press("x")
        await until(lambda: on_screen(app, CancelForm))
        app.screen.query_one("#field-reason", Input).value = "requested_by_customer"
        await submit(pilot, CancelForm)
        await until(lambda: detail.payment.status == "cancelled")
        raw = detail.payment.model_dump()
        assert raw.get("cancellation_reason") == "requested_by_customer"


async def test_service_refusal_is_shown_in_the_form_which_stays_open(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        created = await create_payment(app.runtime.client, capture_method="manual")
        detail = await open_detail(pilot, created.payment_id)
        await pilot.press("x")
        await until(lambda: on_screen(app, CancelForm))
        form = app.screen
        # Meanwhile the payment is captured elsewhere: the cancel is refused by the service.
        from payscope.api.models.payments import PaymentCaptureRequest

        await app.runtime.client.payments.capture(created.payment_id, PaymentCaptureRequest())
        await pilot.press("ctrl+s")
        error = form.query_one("#form-error")
        await until(lambda: error.has_class("-shown"))
        assert app.screen is form
        assert "What to do" in str(error.render())
        assert not form.query_one("#form-submit").disabled  # fix and send again
        await pilot.press("escape")
        assert detail.payment is not None


@pytest.mark.parametrize(("key", "status"), [("a", "succeeded"), ("d", "failed")])
async def test_approve_or_reject_a_payment_held_for_review(
    dirs: Dirs, key: str, status: str
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        created = await create_payment(app.runtime.client, card="4000000000009235")
        assert created.status == "requires_merchant_action"
        detail = await open_detail(pilot, created.payment_id)
        await pilot.press(key)
        await submit(pilot, ConfirmScreen)
        await until(lambda: detail.payment.status == status)


async def test_full_refund_and_an_over_refund_refused_at_the_field(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        created = await create_payment(app.runtime.client, amount=2500)
        detail = await open_detail(pilot, created.payment_id)
        await pilot.press("f")
        await until(lambda: on_screen(app, RefundForm))
        form = app.screen
        assert str(form.query_one("#form-submit").label) == "Refund 25.00 USD"
        form.query_one("#field-amount", Input).value = "25.01"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "At most 25.00 USD" in field_error(form, "amount")
        form.query_one("#field-amount", Input).value = "25.00"
        form.query_one("#field-reason", Input).value = "duplicate order"
        await submit(pilot, RefundForm)
        await until(lambda: bool(detail.payment.refunds))
        (refund,) = detail.payment.refunds
        assert (refund.amount, refund.reason) == (2500, "duplicate order")


async def test_update_an_unconfirmed_payment_and_a_bad_amount_at_the_field(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        created = await create_payment(app.runtime.client, confirm=False)
        detail = await open_detail(pilot, created.payment_id)
        await pilot.press("e")
        await until(lambda: on_screen(app, UpdateForm))
        form = app.screen
        form.query_one("#field-amount", Input).value = "12.345"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "2 decimal places" in field_error(form, "amount")
        form.query_one("#field-amount", Input).value = "30.00"
        form.query_one("#field-description", Input).value = "two mugs"
        await submit(pilot, UpdateForm)
        await until(lambda: detail.payment.amount == 3000)
        assert detail.payment.description == "two mugs"


async def test_duplicate_payment_id_is_shown_at_its_field(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        existing = next(iter(app.screen.query_one(PaymentsView).rows))
        await pilot.press("n")
        await until(lambda: on_screen(app, NewPaymentScreen))
        form = app.screen
        form.query_one("#field-payment_id", Input).value = existing
        await pilot.press("ctrl+s")
        await until(lambda: bool(field_error(form, "payment_id")))
        assert app.screen is form
        assert existing in field_error(form, "payment_id")


@pytest.mark.parametrize(
    ("status", "offered"),
    [
        ("failed", set()),
        ("expired", set()),
        ("cancelled", set()),
        ("succeeded", {"refund", "dispute"}),
        ("requires_capture", {"capture", "cancel"}),
        ("requires_merchant_action", {"approve", "reject", "cancel"}),
        ("requires_payment_method", {"confirm", "update", "cancel"}),
        ("requires_customer_action", {"3ds", "cancel"}),
    ],
)
def test_detail_offers_only_the_actions_a_status_allows(status: str, offered: set[str]) -> None:
    from types import SimpleNamespace

    from payscope.areas.payments.actions import ROW_ACTIONS

    payment = SimpleNamespace(status=status)
    assert {a.name for a in ROW_ACTIONS if a.allows(payment, local=True)} == offered


async def test_detail_hides_actions_the_payment_cannot_take(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        created = await create_payment(app.runtime.client, card="4000000000000002")
        assert created.status == "failed"
        detail = await open_detail(pilot, created.payment_id)
        shown = {b.binding.action for b in detail.active_bindings.values() if b.enabled}
        assert "toggle_raw" in shown
        assert "act('refund')" not in shown and "act('capture')" not in shown
        await pilot.press("c")  # nothing to capture: no form opens
        await pilot.pause()
        assert app.screen is detail
        titles = [c.title for c in detail.context_commands()]
        assert "Capture this payment" not in titles and "Toggle raw JSON" in titles


async def test_reloads_asked_together_share_reads(
    dirs: Dirs, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        created = await create_payment(app.runtime.client)
        detail = await open_detail(pilot, created.payment_id)
        client = app.runtime.client
        path = f"/payments/{created.payment_id}"
        # Its webhook reloads the detail too: let that happen before counting.
        journal = app.runtime.listener.journal
        await until(lambda: journal.count(object_id=created.payment_id) >= 1)
        await pilot.pause()
        await until(lambda: not detail.busy)

        def reads() -> int:
            return sum(1 for e in client.journal if e.method == "GET" and e.url.endswith(path))

        # Asked three times before the read starts: one read sees the latest state.
        before = reads()
        detail.load()
        detail.load()
        detail.load()
        await until(lambda: not detail.busy)
        assert reads() - before == 1

        # Asked again while a read is in flight (webhooks arriving): exactly one more read.
        real_retrieve = client.payments.retrieve
        calls = 0

        async def retrieve(payment_id: str) -> Any:
            nonlocal calls
            calls += 1
            if calls == 1:
                detail.load()
                detail.load()
            return await real_retrieve(payment_id)

        monkeypatch.setattr(client.payments, "retrieve", retrieve)
        before = reads()
        detail.load()
        await until(lambda: not detail.busy)
        assert reads() - before == 2


class _Host(App[None]):
    """An app with one line on screen, for a form pushed over it alone."""

    def compose(self) -> ComposeResult:
        yield Static("under the form")


async def test_a_form_gives_the_focus_to_its_first_field_only() -> None:
    """The fields' scroll never takes the focus on the way: each focus change of it restyles
    every widget under it (about 225 ms for the payout form's 280)."""
    from textual.containers import VerticalScroll
    from textual.events import DescendantFocus

    from payscope.views.forms import Field, FormScreen

    class Two(FormScreen):
        title_text = "Two fields"
        submit_label = "Send"

        def __init__(self) -> None:
            super().__init__()
            self.focused_on: list[object] = []

        def fields(self) -> list[Field]:
            return [Field("a", "A", Input(id="a")), Field("b", "B", Input(id="b"))]

        def on_descendant_focus(self, event: DescendantFocus) -> None:
            self.focused_on.append(event.widget)

    app = _Host()
    async with app.run_test(size=(80, 24)) as pilot:
        form = Two()
        await app.push_screen(form)
        await pilot.pause()
        assert form.focused is form.query_one("#a", Input)
        assert form.focused_on == [form.query_one("#a", Input)]
        assert not any(isinstance(widget, VerticalScroll) for widget in form.focused_on)


async def test_fields_out_of_sight_are_mounted_in_their_place_when_first_shown() -> None:
    """A choice form mounts only the fields in sight; a field a choice shows later is mounted
    then, in its place (after its group's heading, before the next field's), and a field
    hidden again keeps what was typed."""
    from payscope.views.choices import Choice, ChoiceFormScreen
    from payscope.views.forms import Field

    def pick(name: str, values: list[str]) -> Select[str]:
        return Select([(v, v) for v in values], allow_blank=False, id=f"field-{name}")

    class Choices(ChoiceFormScreen):
        title_text = "Choices"

        def fields(self) -> list[Field]:
            return [
                Field("kind", "Kind", pick("kind", ["a", "b"])),
                Field("x", "X", Input(id="field-x"), group="One"),
                Field("y", "Y", Input(id="field-y"), group="One"),
                Field("z", "Z", Input(id="field-z"), "z's hint", group="Two"),
                Field("w", "W", pick("w", ["p", "q"]), group="Two"),
                Field("wp", "WP", Input(id="field-wp"), group="Two"),
                Field("wq", "WQ", Input(id="field-wq"), group="Two"),
                Field("first", "First", Input(id="field-first"), group="Three"),
                Field("last", "Last", Input(id="field-last"), group="Three"),
            ]

        def choices(self) -> list[Choice]:
            return [
                Choice("kind", {"a": ["x", "first"], "b": ["z", "w"]}),
                Choice("w", {"p": ["wp"], "q": ["wq"]}),
            ]

    def expected(form: Choices) -> list[str]:
        """The scroll's parts as an eagerly built form orders them, held-back fields left out."""
        parts: list[str] = []
        group = ""
        for field in form.fields():
            if field.group != group:
                parts.append(f"# {field.group}")
            group = field.group
            if form.mounted(field.name):
                hint = [f"hint-{field.name}"] if field.hint else []
                parts += [f"label-{field.name}", f"field-{field.name}", *hint]
                parts.append(f"error-{field.name}")
        return parts

    def actual(form: Choices) -> list[str]:
        from textual.containers import VerticalScroll

        scroll = form.query_one(VerticalScroll)
        return [
            f"# {child.render()}" if child.has_class("field-group") else str(child.id)
            for child in scroll.children
        ]

    app = _Host()
    async with app.run_test(size=(80, 40)) as pilot:
        form = Choices()
        await app.push_screen(form)
        await pilot.pause()
        held = {"z", "w", "wp", "wq"}
        assert {f.name for f in form.fields() if not form.mounted(f.name)} == held
        assert actual(form) == expected(form)

        form.query_one("#field-x", Input).value = "typed in x"
        form.query_one("#field-kind", Select).value = "b"
        await until(lambda: form.mounted("wp") and actual(form) == expected(form))
        assert {f.name for f in form.fields() if not form.mounted(f.name)} == {"wq"}
        assert actual(form) == expected(form)
        assert form.shown_fields() == {"kind", "y", "z", "w", "wp", "last"}
        assert form.query_one("#field-x").has_class("-off")

        form.query_one("#field-w", Select).value = "q"
        await until(lambda: form.mounted("wq") and actual(form) == expected(form))
        assert all(form.mounted(f.name) for f in form.fields())
        assert actual(form) == expected(form)
        assert form.query_one("#field-wp").has_class("-off")

        form.query_one("#field-kind", Select).value = "a"
        await until(lambda: not form.query_one("#field-x").has_class("-off"))
        assert form.shown_value("x") == "typed in x"
        assert not form.query_one("#field-x").has_class("-off")

    # An error about a field never mounted goes to the form's own line.
    app = _Host()
    async with app.run_test(size=(80, 40)) as pilot:
        form = Choices()
        await app.push_screen(form)
        await pilot.pause()
        form.show_errors({"wq": "not this", "x": "nor this"})
        await pilot.pause()
        # A label in capitals keeps them in the sentence (as a currency code does).
        assert "WQ: not this" in str(form.query_one("#form-error", Static).render())
        assert "nor this" in str(form.query_one("#error-x", Static).render())


async def test_a_field_held_back_never_takes_the_first_focus() -> None:
    from payscope.views.choices import Choice, ChoiceFormScreen
    from payscope.views.forms import Field

    class HeldFirst(ChoiceFormScreen):
        title_text = "Held first"

        def fields(self) -> list[Field]:
            kind = Select([("a", "a"), ("b", "b")], allow_blank=False, id="field-kind")
            return [
                Field("only-b", "Only for b", Input(id="field-only-b")),
                Field("kind", "Kind", kind),
            ]

        def choices(self) -> list[Choice]:
            return [Choice("kind", {"b": ["only-b"]})]

    app = _Host()
    async with app.run_test(size=(80, 24)) as pilot:
        form = HeldFirst()
        await app.push_screen(form)
        await pilot.pause()
        assert not form.mounted("only-b")
        assert form.focused is form.query_one("#field-kind", Select)


async def test_a_fields_error_goes_once_the_field_is_edited(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        created = await create_payment(app.runtime.client, amount=2500)
        await open_detail(pilot, created.payment_id)
        await pilot.press("f")
        await until(lambda: on_screen(app, RefundForm))
        form = app.screen
        form.query_one("#field-amount", Input).value = "customer request"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "is not an amount" in field_error(form, "amount")
        assert "Not sent: check" in str(form.query_one("#form-error").render())
        form.query_one("#field-amount", Input).value = "10.00"
        await pilot.pause()
        # What it said was about the old value: gone without another send.
        assert field_error(form, "amount") == ""
        assert not form.query_one("#form-error").has_class("-shown")
