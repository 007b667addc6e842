"""Disputes against the embedded sandbox: the list (rows, deadlines judged by the sandbox's
clock, filters, live rows), opening a dispute from a payment's detail, challenging it with
evidence by category (and its validation), the evidence in the detail, accept, the sandbox
network's decision, actions offered only where the state allows them, hostile text, the
deadline colours in both themes, and snapshots at two sizes in two themes.

The 40 seeded payments of the test sandbox draw no dispute, so each test makes its own through
the client (`_demo`): one of every status, with deadlines far, near and passed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Button, Input, Select, Static

from payscope.areas.disputes.actions import DISPUTE_ACTIONS
from payscope.areas.disputes.detail import DisputeDetailScreen
from payscope.areas.disputes.forms import EvidenceForm
from payscope.areas.disputes.view import DisputesView
from payscope.areas.payments.detail import PaymentDetailScreen
from payscope.areas.payments.forms import OpenDisputeForm
from payscope.views.forms import ConfirmScreen
from payscope.widgets.format import format_amount
from tests.tui.area_snapshots import screens_in_every_look
from tests.tui.conftest import FROZEN_TIME
from tests.tui.pilot import (
    apply_filter,
    create_payment,
    field_error,
    filter_problem,
    open_detail,
    open_record,
    run_command,
    shown_text,
    submit,
    until,
)
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]
DAY = 86400
HOSTILE = "[b]x[/b]\x1b[5m"
HOSTILE_SHOWN = "[b]x[/b]\\x1b[5m"  # ESC shown escaped, brackets kept
EVIDENCE = {
    "customer_name": "Jane Doe",
    "receipt": "file_receipt_0042",
    "product_description": "Blue mug, 350 ml, delivered as described",
    "shipping_carrier": "UPS",
    "shipping_tracking_number": "1Z999AA10123456784",
    "refund_policy_disclosure": "Shown at checkout; accepted by the customer",
}


# -- helpers ---------------------------------------------------------------------------------------


async def _demo(app: Any) -> dict[str, str]:
    """Disputes of every status on seeded payments (their ids by name), made through the client.

    Sandbox clock: at 2024-05-01 12:00 `late`, `expired`, `accepted`, `challenged`, `won` and
    `lost` open (7 days to answer; `late` is kept from expiring, as a slow service would);
    8 days on, `soon` opens; 5 days more, `new`. So now (May 14 12:00) `late` is 6 days
    overdue, `soon` has 2 days left and `new` 7.
    """
    from payscope.api.models.disputes import DisputeEvidenceSubmit
    from payscope.api.models.payments import PaymentListRequest

    client = app.runtime.client
    page = await client.payments.list(PaymentListRequest(status=["succeeded"], limit=20))
    payments = [p for p in page.data if (p.amount_received or 0) > 0]
    made: dict[str, str] = {}

    async def opened(name: str, **fields: Any) -> str:
        payment = payments[len(made)]
        dispute = await client.sandbox.open_dispute(payment.payment_id, **fields)
        made[name] = dispute.dispute_id
        return str(dispute.dispute_id)

    late = await opened("late", reason="fraudulent")
    with app.runtime.sandbox.state.db.transaction() as conn:
        conn.execute("UPDATE disputes SET expires_at = NULL WHERE dispute_id = ?", (late,))
    await opened("expired", reason="general")
    await client.disputes.accept(await opened("accepted", reason="duplicate", stage="pre_dispute"))
    challenged = await opened("challenged", reason="product_not_received", stage="pre_arbitration")
    await client.disputes.submit_evidence(DisputeEvidenceSubmit(dispute_id=challenged, **EVIDENCE))
    won = await opened("won", reason="credit_not_processed")
    await client.disputes.submit_evidence(
        DisputeEvidenceSubmit(dispute_id=won, product_description="Refund was issued")
    )
    await client.sandbox.resolve_dispute(won, "won")
    await client.sandbox.resolve_dispute(
        await opened("lost", reason="subscription_canceled"), "lost"
    )
    await client.sandbox.advance_clock(8 * DAY)
    await opened("soon", reason="product_unacceptable", stage="pre_dispute")
    await client.sandbox.advance_clock(5 * DAY)
    await opened("new", reason="fraudulent")
    # Every status change's webhook is in before the screens are looked at.
    journal = app.runtime.listener.journal
    await until(lambda: sum(journal.count(object_id=i) for i in made.values()) >= 14)
    return made


async def _disputes(pilot: Any) -> DisputesView:
    """Go to Disputes (`:disputes`) and wait for its first page."""
    app = pilot.app
    await run_command(pilot, "disputes")
    view = app.screen.query_one(DisputesView)
    await until(lambda: view.loaded)
    await app.workers.wait_for_complete()
    await pilot.pause()
    return view


async def _start(pilot: Any) -> tuple[dict[str, str], DisputesView]:
    await ready(pilot)
    made = await _demo(pilot.app)
    return made, await _disputes(pilot)


async def _open(pilot: Any, dispute_id: str) -> DisputeDetailScreen:
    """Open a dispute the way `:dp <id>` does, and wait for it to load."""
    return await open_record(pilot, f"dp {dispute_id}", DisputeDetailScreen)


def _cell(view: DisputesView, dispute_id: str, column: str) -> Any:
    return view.table.get_cell(dispute_id, column)


def _buttons(screen: DisputeDetailScreen) -> set[str]:
    """The actions the detail offers as buttons now."""
    return {
        str(b.id).removeprefix("act-")
        for b in screen.query("#detail-actions Button").results(Button)
        if b.display
    }


# -- the list --------------------------------------------------------------------------------------


async def test_rows_newest_first_with_status_stage_amount_payment_and_deadline(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(160, 40)) as pilot:
        made, view = await _start(pilot)
        assert len(view.rows) == 8
        # Newest first: `new`, then `soon`, then the six of the first day (last made on top).
        order = list(view.rows)
        assert order[:2] == [made["new"], made["soon"]]
        assert set(order[2:]) == {
            made[k] for k in ("late", "expired", "accepted", "challenged", "won", "lost")
        }
        assert str(view.query_one("#disputes-header", Static).render()).startswith(
            "Disputes  1-8 of 8"
        )
        status = {name: _cell(view, i, "status").plain for name, i in made.items()}
        assert status == {
            "late": "opened",
            "expired": "expired",
            "accepted": "accepted",
            "challenged": "challenged",
            "won": "won",
            "lost": "lost",
            "soon": "opened",
            "new": "opened",
        }
        deadline = {name: _cell(view, i, "deadline").plain for name, i in made.items()}
        assert deadline["late"] == "overdue 6d"
        assert deadline["soon"] == "in 2d"
        assert deadline["new"] == "in 7d"
        # No answer is due any more: the date it was due by, muted.
        assert deadline["expired"] == deadline["won"] == "May 08"
        assert _cell(view, made["challenged"], "stage").plain == "pre_arbitration"
        dispute = await app.runtime.client.disputes.retrieve(made["soon"])
        assert _cell(view, made["soon"], "payment_id").plain == dispute.payment_id
        assert _cell(view, made["soon"], "amount").plain.strip("\u00a0").endswith(" USD")


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        ((120, 40), ["dispute_id", "status", "deadline", "amount", "payment_id"]),
        ((80, 24), ["dispute_id", "status", "deadline", "amount"]),
    ],
)
async def test_narrow_terminals_keep_the_deadline_and_the_status(
    dirs: Dirs, size: tuple[int, int], shown: list[str]
) -> None:
    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        _made, view = await _start(pilot)
        assert [key for key, _width in view.table.fitted] == shown


async def test_deadlines_follow_the_sandbox_clock_not_the_wall_clock(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        made, view = await _start(pilot)
        assert app.runtime.now() == FROZEN_TIME + 13 * DAY
        await app.runtime.client.sandbox.advance_clock(DAY + 3600)
        # The sandbox expires what is due; the view reads the new time on its next paint.
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await until(lambda: _cell(view, made["soon"], "deadline").plain == "in 23h")
        assert _cell(view, made["new"], "deadline").plain == "in 5d 23h"


@pytest.mark.parametrize("theme", ["payscope-dark", "payscope-light"])
async def test_deadline_colours_stand_out_and_read_in_both_themes(dirs: Dirs, theme: str) -> None:
    from rich.color import Color

    from payscope.widgets.format import theme_colour

    def contrast(a: str, b: str) -> float:
        def luminance(value: str) -> float:
            red, green, blue = Color.parse(value).get_truecolor()
            channels = [c / 255 for c in (red, green, blue)]
            linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
            return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

        high, low = sorted((luminance(a), luminance(b)), reverse=True)
        return (high + 0.05) / (low + 0.05)

    app = build(*dirs, theme=theme)
    async with app.run_test(size=(120, 40)) as pilot:
        made, view = await _start(pilot)
        variables = app.theme_variables
        warning, error = theme_colour(variables, "warning"), theme_colour(variables, "error")
        background = theme_colour(variables, "background")
        soon = _cell(view, made["soon"], "deadline")
        late = _cell(view, made["late"], "deadline")
        far = _cell(view, made["new"], "deadline")
        assert soon.style == f"bold {warning}"
        assert late.style == f"bold {error}" and late.plain.startswith("overdue")
        assert far.style == ""  # the table's text colour: nothing to worry about yet
        assert warning != error
        for colour in (warning, error):
            assert contrast(colour, background) >= 3.0, (theme, colour, background)
        # The detail says the same, in words and colour.
        detail = await _open(pilot, made["soon"])
        assert "1d" not in shown_text(detail.section("summary"))
        assert "2d left to accept or challenge" in shown_text(detail.section("summary"))
        assert "2d left" in shown_text(detail.query_one("#detail-title"))
        await pilot.press("escape")
        detail = await _open(pilot, made["late"])
        assert "overdue by 6d" in shown_text(detail.section("summary"))
        assert "overdue" in shown_text(detail.query_one("#detail-title"))


async def test_a_fresh_start_shows_the_seeded_disputes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first run's demo seed (300 payments) draws disputes, answered by the sandbox's clock.
    config, data = tmp_path / "config", tmp_path / "data"
    config.mkdir(mode=0o700)  # payscope's own: private (else it is made so, and said)
    monkeypatch.setenv("PAYSCOPE_CONFIG_DIR", str(config))
    monkeypatch.setenv("PAYSCOPE_DATA_DIR", str(data))
    monkeypatch.delenv("PAYSCOPE_API_KEY", raising=False)
    app = build(config, data)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        view = await _disputes(pilot)
        page = await app.runtime.client.disputes.list()
        assert page.total_count > 0 and len(view.rows) == page.total_count
        for dispute_id, dispute in view.rows.items():
            deadline = _cell(view, dispute_id, "deadline").plain
            if dispute.status == "dispute_opened":
                assert deadline.startswith("in "), deadline  # none is due at start
            else:
                assert deadline[:3] in ("Apr", "May"), deadline


async def test_empty_list_says_how_a_dispute_comes(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        view = await _disputes(pilot)
        assert view.rows == {} and view.has_class("-empty")
        assert "succeeded payment's detail with D" in str(view.query_one(".empty", Static).render())


# -- filters ---------------------------------------------------------------------------------------


async def test_filters_short_status_stage_payment_id_fragment_amount_and_mistakes(
    dirs: Dirs,
) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        made, view = await _start(pilot)
        client = app.runtime.client

        # A short status form is the service's long one.
        await apply_filter(pilot, view, "status:won")
        assert list(view.rows) == [made["won"]]
        assert view.filter.server == {"status": "dispute_won"}
        await apply_filter(pilot, view, "s:opened")
        assert set(view.rows) == {made["late"], made["soon"], made["new"]}

        await apply_filter(pilot, view, "stage:pre_arbitration")
        assert list(view.rows) == [made["challenged"]]
        await apply_filter(pilot, view, "stage:pre-dispute status:opened")
        assert list(view.rows) == [made["soon"]]

        # A whole payment id goes to the service; a dispute id or a part of one is matched here.
        soon = await client.disputes.retrieve(made["soon"])
        await apply_filter(pilot, view, str(soon.payment_id))
        assert list(view.rows) == [made["soon"]]
        assert view.filter.server == {"payment_id": soon.payment_id}
        await apply_filter(pilot, view, f"payment:{soon.payment_id}")
        assert list(view.rows) == [made["soon"]]
        await apply_filter(pilot, view, made["lost"])
        assert list(view.rows) == [made["lost"]]
        await apply_filter(pilot, view, made["lost"][3:12].lower())
        assert list(view.rows) == [made["lost"]]
        assert "1 match in all 8 disputes" in str(view.query_one("#disputes-header").render())

        # Amount and currency are the view's (the list route filters on neither).
        typed = format_amount(soon.amount, soon.currency, code=False)
        await apply_filter(pilot, view, f"amount:{typed} currency:{str(soon.currency).lower()}")
        assert made["soon"] in view.rows
        assert all(d.amount == soon.amount for d in view.rows.values())
        await apply_filter(pilot, view, f"amount:-{typed} currency:{soon.currency}")
        assert made["soon"] in view.rows
        assert all((d.amount or 0) <= (soon.amount or 0) for d in view.rows.values())
        absent = next(
            c
            for c in ("CHF", "SEK", "NOK", "PLN")
            if c not in {d.currency for d in view.rows.values()}
        )
        await apply_filter(pilot, view, f"currency:{absent}")
        assert view.rows == {} and view.has_class("-empty")
        await apply_filter(pilot, view, "from:2024-05-09 to:2024-05-10")
        assert list(view.rows) == [made["soon"]]

        # Mistakes are said under the box; the rows stay as they were.
        before = list(view.rows)
        for text, said in [
            ("status:winner", "`winner` is not a dispute status."),
            ("status:open", "Did you mean dispute_opened?"),
            ("status:won,lost", "Disputes filter on one status at a time."),
            ("stage:final", "`final` is not a dispute stage. Stages: pre_dispute, dispute,"),
            ("stage:arb", "Did you mean pre_arbitration, arbitration?"),
            ("currency:XXQ", "`XXQ` is not an ISO 4217 currency code"),
            ("amount:ten", "`amount:ten`"),
            ("dp_", "type at least 4 characters of an id"),
            ("reason:fraud", "Unknown filter `reason:`"),
        ]:
            await apply_filter(pilot, view, text)
            assert said in filter_problem(view), (text, filter_problem(view))
            assert list(view.rows) == before
            await pilot.press("escape")
            await pilot.pause()


# -- a dispute's life: open on a payment, challenge, accept, resolve -------------------------------


async def test_open_a_dispute_from_a_payment_detail_and_it_appears_live(dirs: Dirs) -> None:
    from payscope.areas.payments.actions import ROW_ACTIONS
    from payscope.views.actions import find

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        view = await _disputes(pilot)  # on show once, so it is there to take the webhook
        await create_payment(app.runtime.client, amount=4200, payment_id="pay_dispute_demo")
        detail = await open_detail(pilot, "pay_dispute_demo")
        assert "dispute" in {a.name for a in detail.allowed()}
        assert "Open dispute (D)" in [str(b.label) for b in detail.query(Button) if b.display]

        await pilot.press("D")
        await until(lambda: on_screen(app, OpenDisputeForm))
        form = app.screen
        assert str(form.query_one("#form-submit", Button).label) == "Open dispute for 42.00 USD"
        form.query_one("#field-amount", Input).value = "50.00"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "0.01 USD and 42.00 USD (the amount received)" in field_error(form, "amount")
        form.query_one("#field-amount", Input).value = "30.00"
        form.query_one("#field-reason", Select).value = "product_not_received"
        form.query_one("#field-stage", Select).value = "pre_dispute"
        await pilot.pause()
        assert str(form.query_one("#form-submit", Button).label) == "Open dispute for 30.00 USD"
        await submit(pilot, OpenDisputeForm)

        # The payment shows its dispute, and offers no second one while it is open.
        await until(lambda: bool(detail.payment.disputes) and not detail.busy)
        dispute = detail.payment.disputes[0]
        assert (dispute.amount, dispute.reason, dispute.dispute_stage) == (
            3000,
            "product_not_received",
            "pre_dispute",
        )
        assert "dispute" not in {a.name for a in detail.allowed()}
        # The dispute's webhook put it on top of Disputes, though the area was not on show.
        await until(lambda: dispute.dispute_id in view.rows)
        assert next(iter(view.rows)) == dispute.dispute_id
        assert view.total == 1
        assert _cell(view, dispute.dispute_id, "status").plain == "opened"
        assert _cell(view, dispute.dispute_id, "deadline").plain == "in 7d"

        # A payment that took no money cannot be disputed; nor anything on a remote profile.
        action = find(ROW_ACTIONS, "dispute")
        assert action is not None
        failed = await create_payment(app.runtime.client, card="4000000000000002")
        assert failed.status == "failed" and not action.allows(failed, local=True)
        fresh = await create_payment(app.runtime.client)
        assert action.allows(fresh, local=True) and not action.allows(fresh, local=False)


async def test_challenge_with_evidence_by_category_after_a_validation_error(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        made, view = await _start(pilot)
        detail = await _open(pilot, made["soon"])
        assert "No evidence submitted yet." in shown_text(detail.section("evidence"))
        assert _buttons(detail) == {"payment", "accept", "challenge", "won", "lost"}

        await pilot.press("c")
        await until(lambda: on_screen(app, EvidenceForm))
        form = app.screen
        assert isinstance(form, EvidenceForm)
        headings = [str(s.render()) for s in form.query(".field-group").results(Static)]
        assert headings == [
            "Customer",
            "Product",
            "Shipping",
            "Refund policy",
            "Cancellation policy",
            "Uncategorized",
        ]
        assert "Receipt (file id)" in [str(label.render()) for label in form.query(".field-label")]

        # Nothing filled, sent from the bottom of the form: the model's error is said under the
        # first field, scrolled back into view.
        scroll = form.query_one(VerticalScroll)
        scroll.scroll_end(animate=False)
        await until(lambda: scroll.scroll_y > 0)  # scrolled once laid out
        await pilot.press("ctrl+s")
        await until(lambda: bool(field_error(form, "customer_name")))
        assert "No evidence given: fill at least one evidence field" in field_error(
            form, "customer_name"
        )
        error = form.query_one("#error-customer_name")
        await until(lambda: scroll.region.contains_region(error.region))
        assert isinstance(app.screen, EvidenceForm)

        values = {
            "customer_purchase_ip": "300.1.2.3",
            "receipt": "file_receipt_0042",
            "product_description": "Blue mug, as described",
            "shipping_tracking_number": "1Z999AA10123456784",
        }
        for name, value in values.items():
            form.query_one(f"#field-{name}", Input).value = value
        await pilot.pause()
        assert str(form.query_one("#form-submit", Button).label) == "Challenge with 4 fields"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "'300.1.2.3' is not an IP address" in field_error(form, "customer_purchase_ip")
        assert field_error(form, "customer_name") == ""
        form.query_one("#field-customer_purchase_ip", Input).value = "203.0.113.7"
        await submit(pilot, EvidenceForm)

        # Challenged: the evidence shows grouped by category, the answer actions are gone.
        await until(lambda: detail.record.status == "dispute_challenged" and not detail.busy)
        await pilot.pause()
        shown = " ".join(shown_text(detail.section("evidence")).split())
        assert shown.startswith("Submitted 2024-05-14 12:00:00 Customer Customer purchase IP")
        assert shown.index("Customer") < shown.index("Product") < shown.index("Shipping")
        assert "Customer purchase IP 203.0.113.7" in shown
        assert "Receipt file_receipt_0042 (file)" in shown
        assert "Shipping Shipping tracking number 1Z999AA10123456784" in shown
        assert "Refund policy" not in shown  # empty categories are left out
        assert _buttons(detail) == {"payment", "evidence", "won", "lost"}
        await until(lambda: _cell(view, made["soon"], "status").plain == "challenged")
        assert _cell(view, made["soon"], "deadline").plain == "May 16"
        sent = await app.runtime.client.disputes.evidence(made["soon"])
        assert sent.flat() == values | {"customer_purchase_ip": "203.0.113.7"}


async def test_no_evidence_yet_is_said_plainly_when_the_service_answers_404(
    dirs: Dirs, monkeypatch: pytest.MonkeyPatch
) -> None:
    from payscope.api.errors import NotFoundError

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        made, _view = await _start(pilot)

        async def none_yet(dispute_id: str) -> Any:
            raise NotFoundError(404, "invalid_request", "IR_05", f"No evidence for {dispute_id}")

        monkeypatch.setattr(app.runtime.client.disputes, "evidence", none_yet)
        detail = await _open(pilot, made["late"])
        assert shown_text(detail.section("evidence")).startswith("No evidence submitted yet.")
        assert detail.record.status == "dispute_opened"


async def test_replace_evidence_starts_from_what_was_sent(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        made, _view = await _start(pilot)
        detail = await _open(pilot, made["challenged"])
        shown = " ".join(shown_text(detail.section("evidence")).split())
        assert "Submitted 2024-05-01 12:00:00" in shown
        assert "Refund policy Refund policy disclosure Shown at checkout" in shown

        await pilot.press("e")
        await until(lambda: on_screen(app, EvidenceForm))
        form = app.screen
        assert form.query_one("#field-shipping_carrier", Input).value == "UPS"
        assert str(form.query_one("#form-submit", Button).label) == "Replace evidence (6 fields)"
        form.query_one("#field-shipping_carrier", Input).value = "DHL"
        form.query_one("#field-customer_name", Input).value = ""
        await submit(pilot, EvidenceForm)
        await until(lambda: "DHL" in shown_text(detail.section("evidence")))
        sent = await app.runtime.client.disputes.evidence(made["challenged"])
        expected = {k: v for k, v in EVIDENCE.items() if k != "customer_name"}
        assert sent.flat() == expected | {"shipping_carrier": "DHL"}
        assert detail.record.status == "dispute_challenged"


async def test_accept_from_the_detail_then_only_the_payment_is_offered(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        made, view = await _start(pilot)
        detail = await _open(pilot, made["new"])
        amount = format_amount(detail.record.amount, detail.record.currency)
        await pilot.press("a")
        await until(lambda: on_screen(app, ConfirmScreen))
        assert (
            str(app.screen.query_one("#form-submit", Button).label) == f"Accept, concede {amount}"
        )
        await submit(pilot, ConfirmScreen)
        await until(lambda: detail.record.status == "dispute_accepted" and not detail.busy)
        await pilot.pause()
        assert _buttons(detail) == {"payment"}
        assert "no answer due (accepted)" in shown_text(detail.section("summary"))
        # The keys of what is no longer allowed do nothing.
        await pilot.press("c")
        await pilot.pause()
        assert app.screen is detail
        await until(lambda: _cell(view, made["new"], "status").plain == "accepted")


@pytest.mark.parametrize(("key", "outcome"), [("w", "won"), ("l", "lost")])
async def test_resolve_won_or_lost_from_the_list(dirs: Dirs, key: str, outcome: str) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        made, view = await _start(pilot)
        view.table.move_cursor(row=view.table.get_row_index(made["challenged"]))
        await pilot.pause()
        await pilot.press(key)
        await until(lambda: on_screen(app, ConfirmScreen))
        assert str(app.screen.query_one("#form-submit", Button).label) == f"Resolve {outcome}"
        await submit(pilot, ConfirmScreen)
        await until(lambda: _cell(view, made["challenged"], "status").plain == outcome)
        dispute = await app.runtime.client.disputes.retrieve(made["challenged"])
        assert dispute.status == f"dispute_{outcome}"
        await pilot.pause()
        assert not view.check_action("act", ("won",))
        assert not view.check_action("act", ("lost",))


async def test_actions_are_offered_only_in_the_states_that_allow_them(dirs: Dirs) -> None:
    answerable = {"payment", "accept", "challenge", "won", "lost"}
    expected = {
        "late": answerable,
        "soon": answerable,
        "new": answerable,
        "challenged": {"payment", "evidence", "won", "lost"},
        "accepted": {"payment"},
        "expired": {"payment"},
        "won": {"payment"},
        "lost": {"payment"},
    }
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        made, view = await _start(pilot)
        for name, dispute_id in made.items():
            view.table.move_cursor(row=view.table.get_row_index(dispute_id))
            await pilot.pause()
            offered = {a.name for a in DISPUTE_ACTIONS if view.check_action("act", (a.name,))}
            assert offered == expected[name], name
        # The palette offers the same.
        view.table.move_cursor(row=view.table.get_row_index(made["challenged"]))
        await pilot.pause()
        titles = {c.title for c in view.context_commands()}
        assert "Replace the evidence" in titles and "Accept this dispute" not in titles

        for name in ("challenged", "won"):
            detail = await _open(pilot, made[name])
            assert _buttons(detail) == expected[name]
            await pilot.press("escape")
            await pilot.pause()

        # On a remote profile the sandbox network's decisions are offered nowhere; a status
        # this app does not know (a newer service's) allows what the service may allow.
        record = view.rows[made["soon"]]
        assert {a.name for a in DISPUTE_ACTIONS if a.allows(record, local=False)} == {
            "payment",
            "accept",
            "challenge",
        }
        newer = record.model_copy(update={"status": "dispute_escalated"})
        assert all(a.allows(newer, local=True) for a in DISPUTE_ACTIONS)


async def test_enter_and_g_open_the_disputed_payment(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        made, view = await _start(pilot)
        detail = await _open(pilot, made["won"])
        payment_id = detail.record.payment_id
        payment = shown_text(detail.section("payment"))
        assert payment_id in payment and "Enter or g opens it" in payment
        assert "succeeded" in payment
        await pilot.press("enter")
        await until(lambda: on_screen(app, PaymentDetailScreen))
        assert app.screen.payment_id == payment_id
        # The payment lists its dispute.
        await until(lambda: app.screen.payment is not None)
        assert made["won"] in app.screen.related_section("disputes").table.records

        await pilot.press("escape")
        view = await _disputes(pilot)
        view.table.move_cursor(row=view.table.get_row_index(made["lost"]))
        await pilot.pause()
        lost = view.rows[made["lost"]]
        await pilot.press("g")
        await until(lambda: on_screen(app, PaymentDetailScreen))
        assert app.screen.payment_id == lost.payment_id


async def test_hostile_text_shows_literally_in_the_list_and_the_detail(dirs: Dirs) -> None:
    from payscope.api.models.disputes import DisputeEvidenceSubmit

    app = build(*dirs)
    # Wide enough for the reason column.
    async with app.run_test(size=(160, 40)) as pilot:
        made, view = await _start(pilot)
        client = app.runtime.client
        # Evidence is the merchant's text, sent through the client as it is.
        await client.disputes.submit_evidence(
            DisputeEvidenceSubmit(
                dispute_id=made["soon"], product_description=HOSTILE, shipping_carrier=HOSTILE
            )
        )
        # The reasons are the network's: the sandbox's control takes known ones only, so the
        # record is written as a network could send it.
        with app.runtime.sandbox.state.db.transaction() as conn:
            conn.execute(
                "UPDATE disputes SET data = json_set(data, '$.reason', ?, '$.connector_reason', "
                "?, '$.connector_reason_code', ?) WHERE dispute_id = ?",
                (HOSTILE, f"network {HOSTILE}", HOSTILE, made["new"]),
            )
        await pilot.press("r")
        await until(lambda: _cell(view, made["new"], "reason").plain == HOSTILE_SHOWN)
        await pilot.pause()
        assert HOSTILE_SHOWN in app.export_screenshot().replace("&#160;", " ")

        detail = await _open(pilot, made["new"])
        assert shown_text(detail.section("summary")).count(HOSTILE_SHOWN) == 3
        await pilot.press("escape")
        detail = await _open(pilot, made["soon"])
        assert shown_text(detail.section("evidence")).count(HOSTILE_SHOWN) == 2
        screen = app.export_screenshot()
        assert "\x1b[5m" not in screen
        assert "[b]x[/b]" in screen.replace("&#91;", "[").replace("&#93;", "]")


# -- snapshots -------------------------------------------------------------------------------------


async def _snap_list(pilot: Any) -> None:
    await _start(pilot)


def _snap_detail(name: str) -> Any:
    async def drive(pilot: Any) -> None:
        made, _view = await _start(pilot)
        await _open(pilot, made[name])

    return drive


async def _snap_evidence_form(pilot: Any) -> None:
    made, _view = await _start(pilot)
    app = pilot.app
    await _open(pilot, made["soon"])
    await pilot.press("c")
    await until(lambda: on_screen(app, EvidenceForm))
    app.screen.query_one("#field-customer_name", Input).value = "Jane Doe"
    app.screen.query_one("#field-customer_email_address", Input).value = "jane@example.com"
    await pilot.pause()


SCREENS = {
    "list": _snap_list,
    "detail_evidence": _snap_detail("challenged"),  # evidence by category
    "detail_due": _snap_detail("soon"),  # 2 days left: every answer offered
    "evidence_form": _snap_evidence_form,
}


test_dispute_screens = screens_in_every_look(SCREENS, list(SCREENS))
