"""Find anything: `:find TEXT` across areas, and partial ids in `:pay <id>`, end to end."""

from __future__ import annotations

from pathlib import Path

from payscope.areas.payments.detail import PaymentDetailScreen
from payscope.shell.find import FindScreen
from tests.tui.pilot import create_payment, run_command, until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]


async def _find(pilot, text: str) -> FindScreen:  # type: ignore[no-untyped-def]
    app = pilot.app
    await run_command(pilot, f"find {text}")
    await until(lambda: isinstance(app.screen, FindScreen) and app.screen.done)
    await pilot.pause()
    return app.screen


async def test_a_partial_id_lists_the_payment_and_enter_opens_it(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        payment = await create_payment(app.runtime.client, payment_id="pay_findme_0123456789")
        screen = await _find(pilot, "findme_01")
        assert [(f.kind, f.object_id) for f in screen.found] == [("payment", payment.payment_id)]
        assert screen.found[0].matched_on in ("id prefix", "id part")
        await pilot.press("enter")
        await until(lambda: on_screen(app, PaymentDetailScreen))
        assert app.screen.record_id == payment.payment_id


async def test_last_4_and_email_find_across_areas(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        declined = await create_payment(app.runtime.client, card="4000000000000002")
        screen = await _find(pilot, "0002")
        assert declined.payment_id in {f.object_id for f in screen.found if f.kind == "payment"}
        assert any(f.matched_on == "last 4" for f in screen.found)
        await pilot.press("escape")
        customers = await app.runtime.client.customers.list()
        email = customers.data[0].email
        screen = await _find(pilot, email.upper())
        assert ("customer", customers.data[0].customer_id) in {
            (f.kind, f.object_id) for f in screen.found
        }


async def test_nothing_found_and_too_short_say_what_find_takes(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await _find(pilot, "zzzzzzzz")
        assert screen.found == [] and screen.has_class("-empty")
        assert "last 4 digits" in str(screen.query_one("#find-empty").render())
        await pilot.press("escape")
        screen = await _find(pilot, "ab")
        assert "at least 4 characters" in str(screen.query_one("#find-notes").render())


async def test_pay_with_part_of_an_id_opens_the_one_match(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        payment = await create_payment(app.runtime.client, payment_id="pay_partial_abcdefghij")
        await run_command(pilot, "pay partial_abc")
        await until(lambda: on_screen(app, PaymentDetailScreen))
        assert app.screen.record_id == payment.payment_id


async def test_evt_with_part_of_an_event_id_finds_it_in_the_journal(dirs: Dirs) -> None:
    from payscope.areas.events.detail import EventDetailScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await create_payment(app.runtime.client)
        journal = app.runtime.listener.journal
        await until(lambda: journal.count() >= 1)
        event_id = journal.recent(1)[0].event_id
        await run_command(pilot, f"evt {event_id[-8:]}")
        await until(lambda: on_screen(app, EventDetailScreen))
        assert app.screen.record_id == event_id


async def test_last_4_shows_every_match_paged_and_says_how_many_it_looked_at(dirs: Dirs) -> None:
    """Issue 33.5: `:find 1117` listed the first 20 of 52 matches, said "20 matches" and told
    the user to type more of a 4-digit number. Every match is listed, a page at a time, and the
    notes say how many records were read."""
    import asyncio

    from payscope.api.models.payments import PaymentListRequest
    from payscope.shell.find import PAGE_SIZE

    discover = "6011111111111117"  # ends in 1117, as in the issue

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        client = app.runtime.client
        made = [
            await asyncio.gather(
                *(create_payment(client, card=discover, amount=100 + n) for n in range(15))
            )
            for _ in range(7)
        ]
        ids = {p.payment_id for batch in made for p in batch}
        listed = await client.payments.list(PaymentListRequest(limit=100, offset=0))
        total = listed.total_count
        assert len(ids) > PAGE_SIZE
        screen = await _find(pilot, "1117")
        found = {f.object_id for f in screen.found if f.kind == "payment"}
        assert ids <= found  # all of them, not the first 20
        title = str(screen.query_one("#find-title").render())
        assert f"{len(screen.found)} matches" in title
        assert f"1-{PAGE_SIZE}" in title and "page 1/2" in title
        notes = str(screen.query_one("#find-notes").render())
        assert f"Looked at {total:,} payments" in notes
        assert "type more" not in notes
        table = screen.query_one("ResourceTable")
        assert len(table.records) == PAGE_SIZE
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert len(table.records) == len(screen.found) - PAGE_SIZE
        assert "page 2/2" in str(screen.query_one("#find-title").render())
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert len(table.records) == PAGE_SIZE
