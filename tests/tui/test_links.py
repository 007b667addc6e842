"""Payment links against the embedded sandbox: the seeded list, filters, a new link end to end,
the detail's QR code read back from the screen module by module (and decoded), paying on the
hosted checkout page over real HTTP (the row and the open detail turn paid live), expiry on the
sandbox clock, open and copy, hostile text, and snapshots at two sizes in two themes."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.style import Style
from textual.widgets import Input, Select, Static

from payscope.app import PayscopeApp, make_app
from payscope.areas.links.detail import LinkDetailScreen
from payscope.areas.links.forms import NewLinkForm
from payscope.areas.links.spec import expiry_cell, short_span
from payscope.areas.links.view import LinksView
from payscope.areas.payments.detail import PaymentDetailScreen
from payscope.core.display import USER
from payscope.widgets.qr import DARK, LIGHT, QRScreen
from tests.tui.area_snapshots import forms_at_80x24, screens_in_every_look
from tests.tui.conftest import frozen_clock
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
from tests.waits import REQUEST_TIMEOUT, on_screen

Dirs = tuple[Path, Path]
HOSTILE = "[b]x[/b]\x1b[5m"
HOSTILE_SHOWN = "[b]x[/b]\\x1b[5m"  # ESC shown escaped, brackets kept
NOW = datetime.fromtimestamp(frozen_clock(), UTC)


async def _links(pilot: Any) -> LinksView:
    """Start, go to `:links` and wait for its first page."""
    return await open_list(pilot, "links", LinksView)


async def _open(pilot: Any, link_id: str) -> LinkDetailScreen:
    """Open a link the way `:plink <id>` does, and wait for it to load."""
    return await open_record(pilot, f"plink {link_id}", LinkDetailScreen)


async def _make_link(client: Any, **fields: Any) -> Any:
    from payscope.api.models.links import PaymentLinkCreateRequest

    body = {"amount": 4200, "currency": "EUR", **fields}
    return await client.payment_links.create(PaymentLinkCreateRequest.model_validate(body))


def _header(view: LinksView) -> str:
    return str(view.query_one("#links-header", Static).render())


def _state(view: LinksView, link_id: str) -> str:
    return view.table.get_cell(link_id, "status").plain


async def pay_on_the_page(
    link_to_pay: str, card: str = "4242424242424242", *, email: str = "", holder: str = ""
) -> dict[str, Any]:
    """What the hosted page's script does, over real HTTP and with no secret key: read the
    link's data from the page, confirm its payment with the publishable key and the
    payment's client_secret (tui/payscope/sandbox/static/checkout.html), with the buyer's e-mail and
    name on card in `billing` (the name split at its first space) as the page sends them."""
    import json
    import re

    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as browser:
        page = await browser.get(link_to_pay)
        assert page.status_code == 200, page.text
        found = re.search(r'<script id="link" type="application/json">(.*?)</script>', page.text)
        assert found is not None
        link = json.loads(found.group(1))
        base = link_to_pay.split("/pay/", 1)[0]
        billing: dict[str, Any] = {"email": email} if email else {}
        if holder:
            first, _, last = holder.partition(" ")
            billing["address"] = {"first_name": first} | ({"last_name": last} if last else {})
        answer = await browser.post(
            f"{base}/payments/{link['payment_id']}/confirm",
            headers={"api-key": link["publishable_key"]},
            json={
                "client_secret": link["client_secret"],
                "payment_method": "card",
                "payment_method_type": "credit",
                "payment_method_data": {
                    "card": {
                        "card_number": card,
                        "card_exp_month": "12",
                        "card_exp_year": "2040",
                        "card_cvc": "123",
                        "card_holder_name": holder or None,
                    }
                },
                "billing": billing,
            },
        )
        assert answer.status_code == 200, answer.text
        paid: dict[str, Any] = answer.json()
        return paid


# -- the QR code, read back from the screen ------------------------------------------------------


# Textual's screenshot (Rich's SVG export) draws each cell 12.2 wide and each line 24.4 high,
# backgrounds as rects from y 1.5 and text with its baseline at y 20.
_CELL_W, _LINE_H = 12.2, 24.4
_RECT = re.compile(r'<rect fill="(#[0-9a-f]{6})" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"')
_TEXT = re.compile(
    r'<text class="([\w-]+)" x="([\d.]+)" y="([\d.]+)" textLength="[\d.]+"[^>]*>([^<]*)</text>'
)
_CLASS = re.compile(r"\.([\w-]+) \{ fill: (#[0-9a-f]{6})")


def screen_cells(app: PayscopeApp) -> list[list[tuple[str, Any]]]:
    """Every cell of the screen as the terminal gets it: (character, Rich style), read from
    Textual's own screenshot of it (`App.export_screenshot`)."""
    svg = app.export_screenshot()
    width, height = app.size
    chars = [[" "] * width for _ in range(height)]
    fgs: list[list[str | None]] = [[None] * width for _ in range(height)]
    bgs: list[list[str | None]] = [[None] * width for _ in range(height)]
    for fill, x, y, w in _RECT.findall(svg):
        row, col = round((float(y) - 1.5) / _LINE_H), round(float(x) / _CELL_W)
        if 0 <= row < height:
            for c in range(col, min(width, col + round(float(w) / _CELL_W))):
                bgs[row][c] = fill
    colours = dict(_CLASS.findall(svg))
    for name, x, y, text in _TEXT.findall(svg):
        row, col = round((float(y) - 20) / _LINE_H), round(float(x) / _CELL_W)
        if 0 <= row < height:
            for offset, ch in enumerate(html.unescape(text).replace("\xa0", " ")):
                if col + offset < width:
                    chars[row][col + offset] = ch
                    fgs[row][col + offset] = colours.get(name)
    return [
        [(chars[r][c], Style(color=fgs[r][c], bgcolor=bgs[r][c])) for c in range(width)]
        for r in range(height)
    ]


def _rgb(colour: Any) -> tuple[int, int, int]:
    assert colour is not None, "a QR cell without an explicit colour"
    triplet = colour.get_truecolor()
    return (triplet.red, triplet.green, triplet.blue)


def _dark(colour: Any) -> bool:
    red, green, blue = _rgb(colour)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue < 128


# (top module, bottom module) of a half-block cell: each glyph says which half is the
# foreground colour and which the background one.
def _modules(char: str, style: Any) -> tuple[bool, bool]:
    fg, bg = style.color, style.bgcolor
    if char == "\u2588":
        return _dark(fg), _dark(fg)
    if char == "\u2580":
        return _dark(fg), _dark(bg)
    if char == "\u2584":
        return _dark(bg), _dark(fg)
    assert char == " ", f"{char!r} is not a half-block cell"
    return _dark(bg), _dark(bg)


def drawn_modules(app: PayscopeApp, size: int) -> list[list[bool]]:
    """The QR code on screen, read back into modules: found by its dark glyphs, whose top-left
    one is the finder pattern's corner (4 modules in from the quiet zone), then every cell of
    a `size`-module symbol decoded from its glyph and its two colours."""
    cells = screen_cells(app)
    dark = [
        (y, x)
        for y, row in enumerate(cells)
        for x, (ch, style) in enumerate(row)
        if ch in "\u2588\u2580\u2584" and style.color is not None and _rgb(style.color) == (0, 0, 0)
    ]
    assert dark, "no QR code on screen"
    top = min(y for y, _ in dark) - 2  # the finder's first row is module row 4: cell row 2
    left = min(x for _, x in dark) - 4
    assert top >= 0 and left >= 0
    matrix: list[list[bool]] = []
    for y in range(top, top + (size + 1) // 2):
        pairs = [_modules(ch, style) for ch, style in cells[y][left : left + size]]
        assert len(pairs) == size, "the code is cut"
        matrix.append([t for t, _ in pairs])
        matrix.append([b for _, b in pairs])
    assert not any(any(row) for row in matrix[size:]), "the half row under the code is light"
    return matrix[:size]


def segno_matrix(data: str) -> list[list[bool]]:
    """segno's own matrix of `data` (quiet zone 4), at the level of the smaller symbol."""
    import segno

    low = segno.make(data, error="l", boost_error=False, micro=False)
    medium = segno.make(data, error="m", boost_error=False, micro=False)
    code = low if low.symbol_size()[0] < medium.symbol_size()[0] else medium
    return [[bool(m) for m in row] for row in code.matrix_iter(scale=1, border=4)]


def decode(matrix: list[list[bool]]) -> list[str]:
    """What a QR reader makes of the modules drawn dark on light (never tried inverted)."""
    import zxingcpp

    scale = 4
    size = len(matrix) * scale
    pixels = bytearray()
    for row in matrix:
        line = b"".join((b"\x00" if dark else b"\xff") * scale for dark in row)
        pixels += line * scale
    image = memoryview(bytes(pixels)).cast("B", (size, size))
    return [found.text for found in zxingcpp.read_barcodes(image, try_invert=False)]


def _real_app(dirs: Dirs, theme: str) -> PayscopeApp:
    """The app as people run it (ports shown, the QR of the real link), clock frozen."""
    config_dir, data_dir = dirs
    return make_app(
        theme=theme,
        config_dir=config_dir,
        data_dir=data_dir,
        display=USER,
        time_source=frozen_clock,
    )


# -- the list --------------------------------------------------------------------------------------


async def test_seeded_links_show_newest_first_with_their_state(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _links(pilot)
        page = await app.runtime.api.payment_links.list()
        assert page.total_count and len(view.rows) == page.total_count
        created = [r.created_at for r in view.rows.values()]
        assert created == sorted(created, reverse=True)
        assert f"1-{page.total_count} of {page.total_count}" in _header(view)
        states = {key: _state(view, key) for key in view.rows}
        # The seed's links: waiting ones, and one paid on its page (then past its expiry).
        assert set(states.values()) == {"active", "paid"}
        paid = next(r for r in view.rows.values() if r.state == "paid")
        assert (paid.status, paid.payment_status) == ("expired", "succeeded")
        active = next(r for r in view.rows.values() if r.state == "active")
        left = view.table.get_cell(active.payment_link_id, "expiry").plain
        assert left.startswith("in ") and left.endswith("d")
        # A paid link's expiry is a muted date: it no longer matters.
        assert view.table.get_cell(paid.payment_link_id, "expiry").plain[:3].isalpha()


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_narrow_keeps_link_state_amount_and_expiry(dirs: Dirs, size: tuple[int, int]) -> None:
    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        view = await _links(pilot)
        shown = [key for key, _width in view.table.fitted]
        assert shown[:4] == ["payment_link_id", "status", "amount", "expiry"]
        if size[0] >= 120:
            assert {"description", "created"} <= set(shown)


async def test_filters_by_state_currency_amount_ids_and_words(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _links(pilot)
        seeded = list(view.rows.values())
        paid = next(r for r in seeded if r.state == "paid")
        active = [r for r in seeded if r.state == "active"]

        await apply_filter(pilot, view, "status:paid")
        assert list(view.rows) == [paid.payment_link_id]
        await apply_filter(pilot, view, "status:active")
        assert set(view.rows) == {r.payment_link_id for r in active}
        await apply_filter(pilot, view, "status:expired")  # paid beats expired
        assert view.rows == {}
        assert "Nothing matches this filter" in shown_text(view.query_one(".empty", Static))

        target = active[-1]
        await apply_filter(pilot, view, f"currency:{target.currency.lower()}")
        assert target.payment_link_id in view.rows
        assert {r.currency for r in view.rows.values()} == {target.currency}
        amount = f"{target.amount // 100}.{target.amount % 100:02d}"
        await apply_filter(pilot, view, f"currency:{target.currency} amount:{amount}")
        assert list(view.rows) == [target.payment_link_id]
        assert "in all" in _header(view)  # matched in the view: it says how far it looked

        await apply_filter(pilot, view, target.payment_link_id[6:14])  # part of the id
        assert list(view.rows) == [target.payment_link_id]
        await apply_filter(pilot, view, f"payment:{paid.payment_id}")
        assert list(view.rows) == [paid.payment_link_id]
        await apply_filter(pilot, view, str(target.description).lower())  # a word of it
        assert target.payment_link_id in view.rows
        assert all(r.description == target.description for r in view.rows.values())

        # The time window is the service's.
        await apply_filter(pilot, view, "to:2000-01-01")
        assert view.rows == {}
        await apply_filter(pilot, view, "from:2000-01-01 to:2099-12-31")
        assert len(view.rows) == len(seeded)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("status:paied", "is not a link status"),
        ("currency:EURO", "ISO 4217"),
        ("from:2024-06-01 to:2024-05-01", "Swap them"),
        ("amount:12.345", "2 decimal places"),
        ("customer:pay_123", "starts with cus_"),
        ("payment:pay/1", "only letters, digits"),
        ("colour:red", "Unknown filter"),
        ("ab", "at least 3 characters"),
    ],
)
async def test_a_filter_mistake_is_said_and_the_rows_stay(dirs: Dirs, text: str, said: str) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _links(pilot)
        before = list(view.rows)
        await apply_filter(pilot, view, text)
        assert said in filter_problem(view)
        assert list(view.rows) == before


# -- a new link ------------------------------------------------------------------------------------


async def test_new_link_end_to_end(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _links(pilot)
        client = app.runtime.api
        customer = (await client.customers.list()).data[0]
        await pilot.press("n")
        await until(lambda: on_screen(app, NewLinkForm))
        form = app.screen
        assert isinstance(form, NewLinkForm)

        def typed(name: str, value: str) -> None:
            form.query_one(f"#field-{name}", Input).value = value

        # The service's default expiry is what the form starts with.
        assert form.query_one("#field-expiry", Input).value == "15m"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "Type what the customer pays" in field_error(form, "amount")

        typed("amount", "12.345")
        typed("currency", "eu")
        typed("expiry", "soon")
        typed("return_url", "shop.example/thanks")
        typed("customer_id", "cus/1")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "is not an ISO 4217 code" in field_error(form, "currency")
        assert "is not a time" in field_error(form, "expiry")
        assert "https://" in field_error(form, "return_url")
        assert "only letters, digits" in field_error(form, "customer_id")
        assert app.screen is form

        typed("currency", "eur")
        await pilot.pause()
        assert "Amount (EUR)" in str(form.query_one("#label-amount").render())
        typed("expiry", "2024-04-30T12:00Z")  # before the sandbox's now
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "2 decimal places" in field_error(form, "amount")
        assert "not after the service's now (2024-05-01 12:00 UTC)" in field_error(form, "expiry")

        # The service's own refusal lands under its field.
        typed("amount", "0")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "above 0" in field_error(form, "amount")
        typed("amount", "42.00")
        typed("expiry", "2h")
        typed("return_url", "https://shop.example/thanks")
        typed("customer_id", "cus_NobodyHasThisId00001")
        await pilot.press("ctrl+s")
        await until(lambda: "No customer has this id" in field_error(form, "customer_id"))
        assert app.screen is form

        typed("customer_id", customer.customer_id)
        typed("description", "Workshop seat")
        typed("seller_name", "Payscope Demo Shop")
        form.query_one("#field-sdk_layout", Select).value = "accordion"
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Make a 42.00 EUR link (2h)"
        await submit(pilot, NewLinkForm)

        # Its detail opens, with what was asked.
        await until(lambda: on_screen(app, LinkDetailScreen))
        detail = app.screen
        assert isinstance(detail, LinkDetailScreen)
        await until(lambda: detail.record is not None and not detail.busy)
        link = detail.record
        assert (link.amount, link.currency, link.description) == (4200, "EUR", "Workshop seat")
        assert link.expiry.startswith("2024-05-01T14:00:00")  # 2 h by the sandbox's clock
        assert link.customer_id == customer.customer_id and link.state == "active"
        assert link.payment_link_config == {
            "seller_name": "Payscope Demo Shop",
            "sdk_layout": "accordion",
        }
        payment = await client.payments.retrieve(link.payment_id)
        assert payment.return_url == "https://shop.example/thanks"
        summary = shown_text(detail.section("link"))
        assert "2h left" in summary and "Workshop seat" in summary
        look = shown_text(detail.section("look"))
        assert "Payscope Demo Shop" in look and "accordion" in look

        # Back on the list, it is the top row, under the cursor.
        await pilot.press("escape")
        await until(lambda: link.payment_link_id in view.rows)
        assert next(iter(view.rows)) == link.payment_link_id
        assert view.table.selected_id() == link.payment_link_id
        assert view.table.get_cell(link.payment_link_id, "expiry").plain == "in 2h"


async def test_a_blank_expiry_is_the_services_default(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(80, 24)) as pilot:
        await _links(pilot)
        await pilot.press("n")
        await until(lambda: on_screen(app, NewLinkForm))
        form = app.screen
        form.query_one("#field-amount", Input).value = "5"
        form.query_one("#field-expiry", Input).value = ""
        await pilot.pause()
        assert str(form.query_one("#form-submit").label) == "Make a 5.00 USD link (15 min)"
        await submit(pilot, NewLinkForm)
        await until(lambda: on_screen(app, LinkDetailScreen))
        detail = app.screen
        await until(lambda: detail.record is not None)
        assert detail.record.expiry.startswith("2024-05-01T12:15:00")


# -- the detail: the QR code ----------------------------------------------------------------------


@pytest.mark.parametrize("theme", ["payscope-dark", "payscope-light"])
@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_qr_on_screen_is_the_links_code(
    dirs: Dirs, theme: str, size: tuple[int, int]
) -> None:
    """Beside the summary (wide) or in its own section (80 columns, scrolled to): every module
    read back from the half blocks and their colours is segno's for the link, black on white
    in either theme, and a reader decodes it to the link."""
    app = _real_app(dirs, theme)
    async with app.run_test(size=size) as pilot:
        view = await _links(pilot)
        link = next(iter(view.rows.values()))
        detail = await _open(pilot, link.payment_link_id)
        url = detail.record.link_to_pay
        assert url.startswith("http://127.0.0.1:") and ":PORT" not in url  # the real link
        section = detail.section("qr")
        assert section.display == (size[0] < 120)
        if size[0] < 120:
            detail.query_one("#detail-body").scroll_to_widget(section, animate=False, top=True)
            await pilot.pause()
        expected = segno_matrix(url)
        drawn = drawn_modules(app, len(expected))
        assert drawn == expected
        assert decode(drawn) == [url]


def test_the_drawing_is_dark_on_light_half_blocks() -> None:
    from payscope.widgets.qr import LIGHT_STYLE, STYLE, QRDrawing

    drawing = QRDrawing("http://127.0.0.1:8080/pay/plink_abcdefghijklmnopqrst")
    assert (STYLE.color.name, STYLE.bgcolor.name) == (DARK, LIGHT)
    assert (LIGHT_STYLE.color.name, LIGHT_STYLE.bgcolor.name) == (LIGHT, LIGHT)
    assert set("".join(drawing.lines)) <= set("\u2588\u2580\u2584 ")
    # Two module rows to a line: a square code is twice as wide (in cells) as it is tall.
    assert drawing.width == 37 and drawing.height == 19
    # Four light modules all round: two blank lines on top, four blank columns each side.
    assert drawing.lines[0].strip() == drawing.lines[1].strip() == ""
    assert all(line[:4] == line[-4:] == "    " for line in drawing.lines)


async def test_q_shows_the_code_alone_and_a_screen_too_small_says_so(dirs: Dirs) -> None:
    app = _real_app(dirs, "payscope-light")
    async with app.run_test(size=(80, 24)) as pilot:
        view = await _links(pilot)
        link = next(iter(view.rows.values()))
        await pilot.press("q")
        await until(lambda: on_screen(app, QRScreen))
        await pilot.pause()
        expected = segno_matrix(link.link_to_pay)
        assert decode(drawn_modules(app, len(expected))) == [link.link_to_pay]
        assert link.link_to_pay in shown_text(app.screen.query_one("#qr-caption"))
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, QRScreen))

        # Too small a terminal: the code is not drawn cut, the screen says what it needs.
        await pilot.resize_terminal(60, 16)
        await pilot.press("q")
        await until(lambda: on_screen(app, QRScreen))
        await pilot.pause()
        said = shown_text(app.screen.query_one("#qr-code"))
        assert "Not enough room to draw the QR code" in said and "60x16" in said
        assert not any(ch in "\u2588\u2580\u2584" for row in screen_cells(app) for ch, _ in row)


async def test_a_detail_too_short_for_the_code_says_so(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(80, 20)) as pilot:
        view = await _links(pilot)
        detail = await _open(pilot, next(iter(view.rows)))
        said = shown_text(detail.section("qr"))
        assert "too short to show the whole code here" in said and "q shows it alone" in said
        assert not any(ch in "\u2588\u2580\u2584" for row in screen_cells(app) for ch, _ in row)


# -- live: paid on the hosted page, expired on the clock ------------------------------------------


async def test_paying_on_the_hosted_page_turns_the_row_and_the_detail_paid(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _links(pilot)
        link = await _make_link(app.runtime.api, description="Deposit")
        await pilot.press("r")
        await until(lambda: link.payment_link_id in view.rows)
        assert _state(view, link.payment_link_id) == "active"
        detail = await _open(pilot, link.payment_link_id)
        assert "waiting for the customer" in shown_text(detail.section("link"))

        paid = await pay_on_the_page(link.link_to_pay)
        assert paid["status"] == "succeeded"
        # The payment's webhook reloads the open detail, then the row under it.
        await until(lambda: detail.record.state == "paid")
        await until(lambda: "succeeded" in shown_text(detail.section("payment")))
        assert "paid" in shown_text(detail.query_one("#detail-title"))
        assert "its payment: succeeded" in shown_text(detail.section("link"))
        await until(lambda: view.rows[link.payment_link_id].state == "paid")
        await pilot.press("escape")
        await pilot.pause()
        assert _state(view, link.payment_link_id) == "paid"
        errors = [n.message for n in app.told if n.severity == "error"]
        assert errors == []


async def test_a_link_buyers_billing_email_and_name_show_and_find_the_payment(
    dirs: Dirs,
) -> None:
    """Issue 33.7: the buyer's e-mail, given on the hosted page, showed as "Email -" and
    `:find` could not find it. The payment detail shows the billing e-mail and name, and
    `:find` finds the payment by the e-mail."""
    from payscope.shell.find import FindScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _links(pilot)
        link = await _make_link(app.runtime.api, description="Deposit")
        paid = await pay_on_the_page(
            link.link_to_pay, email="buyer.linked@example.com", holder="Grace Brewster Hopper"
        )
        assert paid["status"] == "succeeded"
        assert paid["email"] is None  # the buyer's e-mail is in billing alone
        await run_command(pilot, "find buyer.linked@")
        await until(lambda: isinstance(app.screen, FindScreen) and app.screen.done)
        found = [(f.kind, f.object_id, f.matched_on) for f in app.screen.found]
        assert found == [("payment", link.payment_id, "email")]
        assert "Grace Brewster Hopper" in app.screen.found[0].summary
        await pilot.press("enter")
        await until(lambda: on_screen(app, PaymentDetailScreen))
        detail = app.screen
        await until(lambda: "buyer.linked@example.com" in shown_text(detail.section("card")))
        card = shown_text(detail.section("card"))
        assert "Grace Brewster Hopper" in card
        assert "Email -" not in " ".join(card.split())


async def test_a_link_expires_when_the_sandbox_clock_passes_it(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _links(pilot)
        client = app.runtime.api
        due = NOW + timedelta(minutes=30)
        link = await _make_link(client, expiry=due.strftime("%Y-%m-%dT%H:%M:%SZ"))
        await pilot.press("r")
        await until(lambda: link.payment_link_id in view.rows)
        assert view.table.get_cell(link.payment_link_id, "expiry").plain == "in 30m"
        detail = await _open(pilot, link.payment_link_id)
        assert "30m left" in shown_text(detail.section("link"))

        await client.sandbox.advance_clock(29 * 60)
        await until(lambda: "1m left" in shown_text(detail.section("link")))
        assert detail.record.state == "active"
        # No webhook says a link expired: the screens see it by the sandbox's clock.
        await client.sandbox.advance_clock(2 * 60)
        await until(lambda: detail.record.state == "expired")
        assert "passed 1m ago" in shown_text(detail.section("link"))
        await until(lambda: view.rows[link.payment_link_id].state == "expired")
        await pilot.press("escape")
        await pilot.pause()
        assert _state(view, link.payment_link_id) == "expired"


# -- open, copy, the payment ----------------------------------------------------------------------


async def test_o_opens_the_link_in_the_browser_and_y_copies_it(
    dirs: Dirs, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.tui.pilot import stub_browser

    opened = stub_browser(monkeypatch)
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _links(pilot)
        link = next(iter(view.rows.values()))
        await pilot.press("o")  # on the list's row
        await until(lambda: opened == [link.link_to_pay])
        await until(lambda: any("Opened" in str(n.title) for n in app.told))

        detail = await _open(pilot, link.payment_link_id)
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == detail.record.link_to_pay
        assert any(
            str(n.title).startswith("Copied") and "the payment link" in f"{n.title} {n.message}"
            for n in app.told
        )
        await pilot.press("o")
        await until(lambda: len(opened) == 2)

        # With no display a browser would take over this terminal: said, not started.
        monkeypatch.delenv("DISPLAY")
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        await pilot.press("o")
        await until(lambda: any(n.title == "Not opened" for n in app.told))
        assert len(opened) == 2


@pytest.mark.parametrize("key", ["enter", "g"])
async def test_the_detail_opens_its_payment(dirs: Dirs, key: str) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _links(pilot)
        link = next(iter(view.rows.values()))
        detail = await _open(pilot, link.payment_link_id)
        shown = shown_text(detail.section("payment"))
        assert link.payment_id in shown and "requires_payment_method" in shown
        await pilot.press(key)
        await until(lambda: on_screen(app, PaymentDetailScreen))
        assert app.screen.payment_id == link.payment_id


async def test_find_by_a_whole_link_id_opens_the_link(dirs: Dirs) -> None:
    from payscope.shell.find import FindScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _links(pilot)
        link_id = next(iter(view.rows))
        await run_command(pilot, f"find {link_id}")
        await until(lambda: isinstance(app.screen, FindScreen) and app.screen.done)
        await pilot.pause()
        assert [(f.kind, f.object_id) for f in app.screen.found] == [("payment_link", link_id)]
        await pilot.press("enter")
        await until(lambda: on_screen(app, LinkDetailScreen))
        assert app.screen.record_id == link_id


async def test_an_unknown_link_says_not_found(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await _links(pilot)
        await run_command(pilot, "plink plink_NobodyHasThisId000001")
        await until(lambda: on_screen(app, LinkDetailScreen))
        detail = app.screen
        await until(lambda: detail.missing)
        assert "not found" in shown_text(detail.query_one("#detail-title"))


async def test_hostile_text_shows_literally(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _links(pilot)
        link = await _make_link(
            app.runtime.api,
            description=HOSTILE,
            payment_link_config={"seller_name": HOSTILE, "sdk_layout": HOSTILE},
        )
        await pilot.press("r")
        await until(lambda: link.payment_link_id in view.rows)
        await pilot.pause()
        assert view.table.get_cell(link.payment_link_id, "description").plain == HOSTILE_SHOWN
        detail = await _open(pilot, link.payment_link_id)
        assert HOSTILE_SHOWN in shown_text(detail.section("link"))
        assert shown_text(detail.section("look")).count(HOSTILE_SHOWN) == 2
        screen = app.export_screenshot()
        assert "\x1b[5m" not in screen
        assert "[b]x[/b]" in screen.replace("&#91;", "[").replace("&#93;", "]")


# -- units ----------------------------------------------------------------------------------------


def test_paid_is_the_links_payment_and_beats_expired() -> None:
    from payscope.api.models.links import PaymentLink

    def state(status: str, payment_status: str | None) -> str | None:
        link = PaymentLink(payment_link_id="plink_1", status=status, payment_status=payment_status)
        return link.state

    assert state("active", "requires_payment_method") == "active"
    assert state("active", "succeeded") == "paid"
    assert state("expired", "requires_capture") == "paid"
    assert state("expired", "failed") == "expired"
    assert state("expired", None) == "expired"  # the real service's record: no payment


def test_time_left_fits_its_column() -> None:
    assert [short_span(s) for s in (59, 90, 3600, 5400, 36000, 86400 * 3 + 7200, 86400 * 29)] == [
        "59s",
        "1m 30s",
        "1h",
        "1h 30m",
        "10h",
        "3d 2h",
        "29d",
    ]
    assert max(len("in " + short_span(s)) for s in range(0, 86400 * 40, 1799)) <= 9
    from payscope.api.models.links import PaymentLink

    link = PaymentLink(payment_link_id="plink_1", status="active", expiry="2024-05-01T12:30:00Z")
    variables: dict[str, str] = {"warning": "#ff0000"}
    cell = expiry_cell(link, frozen_clock(), variables)
    assert cell.plain == "in 30m" and "bold" in str(cell.style)  # within the hour


# -- snapshots -------------------------------------------------------------------------------------


async def _list(pilot: Any) -> None:
    await _links(pilot)


async def _detail(pilot: Any) -> None:
    """The newest seeded link: active, with a seller's look; its QR code."""
    view = await _links(pilot)
    await _open(pilot, next(iter(view.rows)))
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def _detail_qr(pilot: Any) -> None:
    """The same, scrolled to its QR code (80 columns: a section of its own)."""
    await _detail(pilot)
    detail = pilot.app.screen
    section = detail.section("qr")
    detail.query_one("#detail-body").scroll_to_widget(section, animate=False, top=True)
    await pilot.pause()


async def _paid_detail(pilot: Any) -> None:
    view = await _links(pilot)
    paid = next(r for r in view.rows.values() if r.state == "paid")
    await _open(pilot, paid.payment_link_id)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def _qr_alone(pilot: Any) -> None:
    await _detail(pilot)
    await pilot.press("q")
    await until(lambda: on_screen(pilot.app, QRScreen))
    await pilot.pause()


async def _new_link_errors(pilot: Any) -> None:
    await _links(pilot)
    await pilot.press("n")
    await until(lambda: on_screen(pilot.app, NewLinkForm))
    form = pilot.app.screen
    form.query_one("#field-amount", Input).value = "12.345"
    form.query_one("#field-expiry", Input).value = "soon"
    await pilot.press("ctrl+s")
    await until(lambda: bool(field_error(form, "expiry")))
    await pilot.pause()


SCREENS = {
    "list": _list,
    "detail": _detail,
    "detail_qr": _detail_qr,
    "paid_detail": _paid_detail,
    "qr_alone": _qr_alone,
    "new_link_errors": _new_link_errors,
}


test_link_screens = screens_in_every_look(SCREENS, ["list", "detail"])


test_link_screens_at_80x24 = forms_at_80x24(
    SCREENS,
    [
        ("detail_qr", "payscope-dark"),
        ("detail_qr", "payscope-light"),
        ("qr_alone", "payscope-dark"),
        ("paid_detail", "payscope-light"),
        ("new_link_errors", "payscope-dark"),
    ],
)
