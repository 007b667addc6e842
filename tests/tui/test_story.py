"""A payment's story (issue 41): one timeline in time order on its detail, with the requests
payscope made, every status change, every webhook it caused (its refund's and dispute's too)
with each delivery and its answer; each line opens what it names."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from payscope.views.timeline import Line
from tests.tui.pilot import LOOKS, create_payment, open_detail, until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]
MINUTE = 60.0


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then let go): a delivery there fails."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def lived(app: Any, *, fixed: bool = False) -> tuple[Any, Any, Any]:
    """A payment with a partial refund, a dispute and a failed delivery (an attached endpoint
    that refuses), a minute of the sandbox's clock between each step."""
    from payscope.api.models.refunds import RefundCreateRequest

    client = app.runtime.client
    listener = app.runtime.listener
    await client.sandbox.attach_webhook(f"http://127.0.0.1:{_closed_port()}/hook")
    payment = await create_payment(
        client, amount=4200, payment_id="pay_story_snapshot" if fixed else None
    )
    await until(lambda: listener.journal.count(object_id=payment.payment_id) > 0)
    await client.sandbox.advance_clock(MINUTE)
    refund = await client.refunds.create(
        RefundCreateRequest(
            payment_id=payment.payment_id,
            amount=1000,
            reason="one cup back",
            refund_id="ref_story_snapshot" if fixed else None,
        )
    )
    await client.sandbox.advance_clock(MINUTE)  # a refund settles at once (the real service's way)
    await until(lambda: listener.journal.count(object_id=refund.refund_id) > 0)
    dispute = await client.sandbox.open_dispute(payment.payment_id)
    await until(lambda: listener.journal.count(object_id=dispute.dispute_id) > 0)
    return payment, refund, dispute


def _lines(detail: Any) -> list[Line]:
    table = detail.related_section("story").table
    return [row.record for row in table.records.values()]


def _index(lines: list[Line], kind: str, what: str) -> int:
    return next(i for i, line in enumerate(lines) if line.kind == kind and what in line.what)


async def test_a_payments_story_is_one_timeline_in_time_order(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        payment, refund, dispute = await lived(app)
        detail = await open_detail(pilot, payment.payment_id)
        await until(lambda: any(line.what == "dispute_opened" for line in _lines(detail)))
        lines = _lines(detail)
        kinds = [(line.kind, line.what) for line in lines]

        # In time order, and what shares a moment in cause order.
        assert [line.order for line in lines] == sorted(line.order for line in lines)
        assert [line.when for line in lines if line.kind != "delivery"] == sorted(
            line.when for line in lines if line.kind != "delivery"
        )
        # The requests payscope made that acted on it, its refund's and its dispute's.
        made = _index(lines, "request", "POST /payments")
        refunded = _index(lines, "request", "POST /refunds")
        disputed = _index(lines, "request", "POST /_sandbox/disputes")
        assert made < refunded < disputed, kinds
        # Reads are not lines (the detail reads the payment at every reload).
        assert not any(line.what.startswith("GET ") for line in lines)
        # Every status change: the payment's, the refund's, the dispute's.
        statuses = [(line.what, line.status) for line in lines if line.kind == "status"]
        assert ("payment", "succeeded") in statuses, statuses
        assert (f"refund {refund.refund_id}", "succeeded") in statuses, statuses
        assert any(what == f"dispute {dispute.dispute_id}" for what, _ in statuses), statuses
        # Every webhook it caused, each with its deliveries and their answers.
        succeeded = _index(lines, "webhook", "payment_succeeded")
        assert made < succeeded < refunded
        assert refunded < _index(lines, "webhook", "refund_succeeded") < disputed
        assert disputed < _index(lines, "webhook", "dispute_opened")
        deliveries = [line for line in lines if line.kind == "delivery"]
        assert any(line.ok and line.detail.startswith("HTTP 200") for line in deliveries)
        failed = [line for line in deliveries if not line.ok]
        assert failed, [line.detail for line in deliveries]
        assert failed[0].detail.startswith("no answer")
        # A delivery line follows its webhook's line.
        first_failed = lines.index(failed[0])
        event_line = next(
            line
            for line in lines
            if line.kind == "webhook" and line.record_id == failed[0].record_id
        )
        assert lines.index(event_line) < first_failed


async def test_each_line_of_the_story_opens_what_it_names(dirs: Dirs) -> None:
    from payscope.areas.events.detail import EventDetailScreen
    from payscope.areas.payments.detail import PaymentDetailScreen
    from payscope.areas.refunds.view import RefundDetailScreen
    from payscope.areas.requests.view import RequestDetailScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        payment, refund, _dispute = await lived(app)
        detail = await open_detail(pilot, payment.payment_id)
        await until(lambda: any(line.what == "dispute_opened" for line in _lines(detail)))
        table = detail.related_section("story").table

        async def open_line(kind: str, what: str, screen_type: type) -> Any:
            lines = _lines(detail)
            line = lines[_index(lines, kind, what)]
            table.focus()
            table.move_cursor(row=table.get_row_index(line.key))
            await pilot.press("enter")
            await until(lambda: on_screen(app, screen_type))
            opened = app.screen
            await until(lambda: opened.record is not None or opened.missing)
            await pilot.pause()
            assert not opened.missing
            await pilot.press("escape")
            await until(lambda: on_screen(app, PaymentDetailScreen))
            return opened, line

        opened, line = await open_line("request", "POST /refunds", RequestDetailScreen)
        assert opened.record.method == "POST" and refund.refund_id in opened.record.response_body
        opened, line = await open_line("webhook", "refund_succeeded", EventDetailScreen)
        assert opened.record_id == line.record_id
        opened, line = await open_line("delivery", "↳ 1.", EventDetailScreen)
        assert opened.record_id == line.record_id
        opened, _ = await open_line("status", f"refund {refund.refund_id}", RefundDetailScreen)
        assert opened.record_id == refund.refund_id


async def test_events_filter_takes_part_of_an_id_as_find_does(dirs: Dirs) -> None:
    from payscope.areas.events.view import EventsView
    from tests.tui.pilot import apply_filter, filter_problem, open_list

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        payment, _refund, dispute = await lived(app)
        view = await open_list(pilot, "events", EventsView, start=False)
        part = dispute.dispute_id[:7]  # `dp_odpQ`
        await apply_filter(pilot, view, part)
        assert filter_problem(view) == ""
        await until(lambda: bool(view.rows))
        assert {e.object_id for e in view.rows.values()} == {dispute.dispute_id}
        # Any part, any case; the whole id still finds exactly its own.
        await apply_filter(pilot, view, f"object:{dispute.dispute_id[3:12].lower()}")
        await until(lambda: bool(view.rows))
        assert {e.object_id for e in view.rows.values()} == {dispute.dispute_id}
        await apply_filter(pilot, view, payment.payment_id)
        await until(lambda: bool(view.rows))
        assert {e.object_id for e in view.rows.values()} == {payment.payment_id}


async def _story_shot(pilot: Any) -> None:
    """The story of a payment with a partial refund, a dispute and a failed delivery, scrolled
    into view."""
    app = pilot.app
    await ready(pilot)
    payment, _refund, _dispute = await lived(app, fixed=True)
    detail = await open_detail(pilot, payment.payment_id)
    await until(lambda: any(line.what == "dispute_opened" for line in _lines(detail)))
    # Every webhook's delivery is in, the one that failed too, before the picture.
    await until(
        lambda: (
            any(line.kind == "delivery" and line.ok is False for line in _lines(detail))
            and sum(line.kind == "webhook" for line in _lines(detail))
            <= sum(line.kind == "delivery" for line in _lines(detail))
        )
    )
    await app.workers.wait_for_complete()
    detail.query_one("#detail-body").scroll_end(animate=False)
    await pilot.pause()


@pytest.mark.parametrize("look", LOOKS)
def test_story_snapshot(
    look: Any, dirs: Dirs, snap_looks: Any, seeded_ids: Callable[[int], None]
) -> None:
    seeded_ids(2041)  # the ids the story makes repeat from run to run
    assert snap_looks(lambda theme: build(*dirs, theme=theme), _story_shot)


async def test_a_detail_keeps_the_status_bar_and_its_toasts_leave_the_sections_free(
    dirs: Dirs,
) -> None:
    from payscope.widgets.status_bar import StatusBar

    app = build(*dirs)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await ready(pilot)
        payment = await create_payment(app.runtime.client)
        detail = await open_detail(pilot, payment.payment_id)
        bar = detail.query_one(StatusBar)
        assert bar.display and bar.region.height == 1
        assert bar.region.y == 22  # above the footer, as on the main screen
        assert bar.profile == "local"
        main_bar = app.get_screen_main().query_one(StatusBar)
        await until(lambda: bar.clock == main_bar.clock and bar.listener_url)
        detail.notify("A toast a detail shows", title="Told")
        await until(lambda: bool(detail.query("Toast")))
        await pilot.pause()
        toast = detail.query("Toast").first()
        await until(lambda: toast.region.height > 0)
        # Under the title line, at the top right: the sections below it stay in sight.
        assert toast.region.y <= 3
        assert toast.region.right >= 76


async def test_a_payment_without_an_email_shows_its_customers_marked_as_such(dirs: Dirs) -> None:
    from payscope.api.models.customers import CustomerCreateRequest
    from payscope.api.models.payments import PaymentCreateRequest
    from tests.tui.pilot import shown_text

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        client = app.runtime.client
        customer = await client.customers.create(
            CustomerCreateRequest(name="Ada Lovelace", email="ada@example.com")
        )
        own = await client.payments.create(
            PaymentCreateRequest.model_validate(
                {"amount": 500, "currency": "USD", "customer_id": customer.customer_id}
            )
        )
        detail = await open_detail(pilot, own.payment_id)
        text = shown_text(detail.section("card"))
        assert "ada@example.com" in text
        assert "the customer's" in text
        await pilot.press("escape")
        # A payment's own e-mail is its own: no mark.
        with_email = await client.payments.create(
            PaymentCreateRequest.model_validate(
                {
                    "amount": 500,
                    "currency": "USD",
                    "customer_id": customer.customer_id,
                    "email": "grace@example.com",
                }
            )
        )
        detail = await open_detail(pilot, with_email.payment_id)
        text = shown_text(detail.section("card"))
        assert "grace@example.com" in text and "the customer's" not in text


def test_a_list_sent_as_a_post_is_a_read_not_a_line() -> None:
    from types import SimpleNamespace

    from payscope.views.timeline import Subject, request_lines

    def entry(number: int, method: str, path: str, answer: str) -> SimpleNamespace:
        return SimpleNamespace(
            id=number, method=method, path=path, request_body="{}", response_body=answer,
            status=200, ok=True, error=None, started_at=0.0,
        )  # fmt: skip

    body = '{"payment_id": "pay_x", "status": "succeeded"}'
    lines, seen, reads = request_lines(
        [
            entry(1, "POST", "/payments", body),
            entry(2, "POST", "/payments/list", f'{{"data": [{body}]}}'),
            entry(3, "GET", "/payments/pay_x", body),
        ],
        [Subject("payment", "pay_x", "payments")],
        lambda e: float(e.id),
    )
    assert [line.what for line in lines] == ["POST /payments"]
    assert reads == 2
    assert [status for *_, status, _moving in seen] == ["succeeded"]
