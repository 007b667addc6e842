"""Codes against the embedded sandbox: every unified code of `payscope.api.codes` listed, the text
and `retry:` filters, the detail (the payment detail's explanation and the test cards), the
card action making the declined payment and opening it, and snapshots at two sizes in two
themes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from payscope.api.codes import ALL_UNIFIED_CODES, explain
from payscope.areas.codes.view import CodeDetailScreen, CodeRow, CodesView, code_grammar
from payscope.areas.payments.detail import PaymentDetailScreen
from payscope.views.actions import find
from tests.tui.area_snapshots import screens_in_every_look
from tests.tui.pilot import (
    apply_filter,
    filter_problem,
    open_list,
    shown_text,
    until,
)
from tests.tui.snapshot_app import build
from tests.waits import on_screen

Dirs = tuple[Path, Path]


async def _codes(pilot: Any) -> CodesView:
    """Start, go to `:codes` and wait for its first page."""
    return await open_list(pilot, "codes", CodesView)


def _header(view: CodesView) -> str:
    return shown_text(view.query_one("#codes-header", Static))


async def _open(pilot: Any, view: CodesView, code: str) -> CodeDetailScreen:
    app = pilot.app
    view.table.move_cursor(row=view.table.get_row_index(code))
    await pilot.press("enter")
    await until(lambda: on_screen(app, CodeDetailScreen))
    screen = app.screen
    assert isinstance(screen, CodeDetailScreen)
    await until(lambda: screen.record is not None and not screen.busy)
    await pilot.pause()
    return screen


async def test_every_unified_code_is_listed_with_its_test_card(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(160, 40)) as pilot:
        view = await _codes(pilot)
        assert sorted(view.rows) == sorted(ALL_UNIFIED_CODES)
        assert f"{len(ALL_UNIFIED_CODES)} of {len(ALL_UNIFIED_CODES)}" in _header(view)
        row = view.rows["UE_1001"]
        assert row.info == explain("UE_1001")
        # Wide: every column, the test card read from the sandbox's /_sandbox/test-cards.
        assert [k for k, _w in view.table.fitted] == ["code", "title", "retry", "advice", "card"]
        assert view.table.get_cell("UE_1001", "card").plain == "4000000000010019"
        assert view.table.get_cell("UE_3001", "retry").plain == "yes"
        assert view.table.get_cell("UE_1001", "retry").plain == "no"
        assert view.table.get_cell("UE_1018", "retry").plain == "depends"
        # Two reference cards and the code's own decline with UE_1007.
        assert view.table.get_cell("UE_1007", "card").plain.endswith("+2")


@pytest.mark.parametrize(
    ("size", "shown"),
    [((80, 24), ["code", "title", "retry"]), ((120, 40), ["code", "title", "retry", "advice"])],
)
async def test_narrow_keeps_code_title_and_retry(
    dirs: Dirs, size: tuple[int, int], shown: list[str]
) -> None:
    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        view = await _codes(pilot)
        assert [k for k, _w in view.table.fitted] == shown


async def test_filter_by_text_and_by_retry(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _codes(pilot)
        every = len(view.rows)

        await apply_filter(pilot, view, "funds")
        assert list(view.rows) == ["UE_1001"]
        assert "1 match in all" in _header(view)
        # Words of the meaning count too, and every word must match.
        await apply_filter(pilot, view, "3-D secure")
        assert set(view.rows) >= {"UE_2002", "UE_5003"}
        assert all(c.startswith(("UE_2", "UE_5")) for c in view.rows)
        await apply_filter(pilot, view, "ue_30")
        assert list(view.rows) == ["UE_3000", "UE_3001", "UE_3002", "UE_3003"]

        await apply_filter(pilot, view, "retry:yes")
        retryable = {c for c in ALL_UNIFIED_CODES if explain(c).retryable is True}
        assert set(view.rows) == retryable and "UE_3001" in retryable
        await apply_filter(pilot, view, "retry:no")
        assert set(view.rows) == {c for c in ALL_UNIFIED_CODES if explain(c).retryable is False}
        assert "UE_1001" in view.rows and "UE_3001" not in view.rows
        await apply_filter(pilot, view, "retry:depends")
        assert "UE_1018" in view.rows and "UE_1001" not in view.rows
        await apply_filter(pilot, view, "retry:yes timed")
        # Both "Timed out"; only the availability one (UE_3xxx) is retried as it is.
        assert list(view.rows) == ["UE_3003"]

        await pilot.press("escape")  # the filter goes, every code is back
        await until(lambda: len(view.rows) == every)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("retry:often", "retry:yes, retry:no or retry:depends"),
        ("x", "at least 2 characters"),
        ("colour:red", "Unknown filter"),
    ],
)
async def test_a_filter_mistake_is_said_and_the_rows_stay(dirs: Dirs, text: str, said: str) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _codes(pilot)
        before = list(view.rows)
        await apply_filter(pilot, view, text)
        assert said in filter_problem(view)
        assert list(view.rows) == before


async def test_detail_explains_as_the_payment_detail_and_names_the_cards(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _codes(pilot)
        detail = await _open(pilot, view, "UE_1006")
        info = explain("UE_1006")
        text = shown_text(detail.section("code"))
        assert info.title in text and info.advice in text and "no — " in text
        cards = shown_text(detail.section("cards"))
        # The reference's lost and stolen cards and the code's own.
        for number in ("4000000000009987", "4000000000009979", "4000000000010068"):
            assert number in cards
        assert "c makes a payment with 4000000000009987" in cards


async def test_the_card_action_makes_the_declined_payment_and_opens_it(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _codes(pilot)
        detail = await _open(pilot, view, "UE_1001")
        assert "card" in {a.name for a in detail.allowed()}
        await pilot.press("c")
        await until(lambda: on_screen(app, PaymentDetailScreen))
        payment_screen = app.screen
        assert isinstance(payment_screen, PaymentDetailScreen)
        await until(lambda: payment_screen.payment is not None and not payment_screen.busy)
        payment = payment_screen.payment
        assert payment is not None
        assert (payment.status, payment.unified_code) == ("failed", "UE_1001")
        # The payment detail explains it with the same text the Codes area shows.
        decline = shown_text(payment_screen.section("decline"))
        assert explain("UE_1001").advice in decline


async def test_the_card_action_from_the_list(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _codes(pilot)
        view.table.move_cursor(row=view.table.get_row_index("UE_3002"))
        await pilot.pause()
        await pilot.press("c")
        await until(lambda: on_screen(app, PaymentDetailScreen))
        screen = app.screen
        await until(lambda: screen.payment is not None)
        assert screen.payment.unified_code == "UE_3002"


def test_the_card_action_needs_a_card_and_the_local_sandbox() -> None:
    action = find(CodesView.actions, "card")
    assert action is not None
    with_card = CodeRow(explain("UE_1001"), ({"card_number": "4000000000010019"},))
    without = CodeRow(explain("UE_1001"))
    assert action.allows(with_card, local=True)
    assert not action.allows(without, local=True)
    assert not action.allows(with_card, local=False)


def test_retry_words_and_text_match_in_any_case() -> None:
    grammar = code_grammar()
    rows = [CodeRow(explain(c)) for c in ALL_UNIFIED_CODES]
    chosen = grammar.parse("RETRY:No FUNDS")
    assert [r.code for r in rows if chosen.matches(r)] == ["UE_1001"]


# -- snapshots -------------------------------------------------------------------------------------


async def _list(pilot: Any) -> None:
    await _codes(pilot)


async def _detail(pilot: Any) -> None:
    view = await _codes(pilot)
    await _open(pilot, view, "UE_1007")


async def _filtered(pilot: Any) -> None:
    view = await _codes(pilot)
    await apply_filter(pilot, view, "retry:yes")


SCREENS = {"list": _list, "detail": _detail, "filtered": _filtered}


test_code_screens = screens_in_every_look(SCREENS, ["list", "detail"])


def test_code_filtered_snapshot(dirs: Dirs, snap_compare: Any) -> None:
    app = build(*dirs, theme="payscope-light")
    assert snap_compare(app, terminal_size=(120, 40), run_before=SCREENS["filtered"])
