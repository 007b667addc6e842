"""Pure pieces of the TUI: themes, amounts, command mode, filters, error messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from payscope.api.vocabulary import PAYMENT_STATUSES
from payscope.areas.events.spec import parse_event_filter
from payscope.areas.payments.spec import payment_grammar
from payscope.shell.command_prompt import complete, parse_command
from payscope.widgets.errors import describe_error
from payscope.widgets.format import format_amount, parse_amount
from payscope.widgets.theming import ThemeFileError, load_themes, parse_theme, status_variable


def test_shipped_themes_load_with_every_status_colour() -> None:
    loaded = load_themes()
    assert loaded.problems == []
    assert {
        "payscope-dark",
        "payscope-light",
        "payscope-high-contrast",
        "payscope-presentation",
    } <= set(loaded.themes)
    for theme in loaded.themes.values():
        for status in PAYMENT_STATUSES:
            assert status_variable(status) in theme.variables, (theme.name, status)
        assert "amount" in theme.variables


def test_broken_user_theme_is_reported_and_skipped(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text('name = "bad"\nprimary = "not-a-colour"\n')
    (tmp_path / "mine.toml").write_text('name = "mine"\nprimary = "#112233"\n')
    loaded = load_themes(tmp_path)
    assert "mine" in loaded.themes and "bad" not in loaded.themes
    assert len(loaded.problems) == 1
    assert "bad.toml" in loaded.problems[0] and "not-a-colour" in loaded.problems[0]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("name = ", "not valid TOML"),
        ('primary = "#000000"', "needs a `name"),
        ('name = "x"', "needs a `primary`"),
        ('name = "x"\nprimary = "#000000"\ncolour = "#fff"', "unknown keys colour"),
    ],
)
def test_theme_errors_say_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(ThemeFileError, match=fragment):
        parse_theme(text, "t.toml")


@pytest.mark.parametrize(
    ("amount", "currency", "shown"),
    [
        (123450, "USD", "1,234.50 USD"),
        (1500, "JPY", "1,500 JPY"),
        (1234, "KWD", "1.234 KWD"),
        (-5, "EUR", "-0.05 EUR"),
        (None, "USD", "-"),
    ],
)
def test_amounts_follow_the_currency_minor_unit(
    amount: int | None, currency: str, shown: str
) -> None:
    assert format_amount(amount, currency) == shown


def test_typed_amounts_become_minor_units_or_a_clear_error() -> None:
    assert parse_amount("12.5", "USD") == 1250
    assert parse_amount("1,200", "JPY") == 1200
    with pytest.raises(ValueError, match="no minor unit"):
        parse_amount("12.5", "JPY")
    with pytest.raises(ValueError, match="2 decimal places"):
        parse_amount("1.234", "EUR")
    with pytest.raises(ValueError, match="not an amount"):
        parse_amount("ten", "USD")


def test_command_mode_words() -> None:
    assert parse_command("events").area == "events"
    assert parse_command("ev").area == "events"
    opened = parse_command("pay pay_123")
    assert (opened.kind, opened.area, opened.argument) == ("open", "payments", "pay_123")
    assert parse_command("payout_abc").area == "payouts"
    assert parse_command("q").kind == "quit"
    assert parse_command("theme payscope-light").argument == "payscope-light"
    unknown = parse_command("frobnicate")
    assert unknown.kind == "error" and "Unknown command `frobnicate`" in (unknown.message or "")
    ambiguous = parse_command("pa")
    assert ambiguous.kind == "error" and "payments" in (ambiguous.message or "")


def test_tab_completion() -> None:
    assert complete("ev") == "events"
    assert complete("sett") == "settings"
    assert complete("theme payscope-l", ("payscope-light", "payscope-dark")) == (
        "theme payscope-light"
    )
    assert complete("zzz") is None


def parse_filter(text: str) -> dict[str, object]:
    return payment_grammar().parse(text).server


def test_payment_filter_words() -> None:
    fields = parse_filter("status:failed,cancelled currency:eur from:2024-05-01 cus_abc")
    assert fields == {
        "status": ["failed", "cancelled"],
        "currency": ["EUR"],
        "created_gte": "2024-05-01T00:00:00Z",
        "customer_id": "cus_abc",
    }
    with pytest.raises(ValueError, match="Unknown filter `colour:`"):
        parse_filter("colour:red")


@pytest.mark.parametrize(
    ("text", "bounds"),
    [
        ("amount:42.00", {"start_amount": 4200, "end_amount": 4200}),
        ("amount:10-50", {"start_amount": 1000, "end_amount": 5000}),
        ("amount:1,000-", {"start_amount": 100000}),
        ("amt:-9.99", {"end_amount": 999}),
        # In the one currency filtered on, whichever comes first: JPY has no minor unit.
        ("amount:500 currency:JPY", {"start_amount": 500, "end_amount": 500}),
        ("currency:KWD amount:1.5", {"start_amount": 1500, "end_amount": 1500}),
    ],
)
def test_payment_amount_filter(text: str, bounds: dict[str, int]) -> None:
    assert parse_filter(text)["amount_filter"] == bounds


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("amount:-", "needs an amount or a range"),
        ("amount:ten", "is not an amount"),
        ("amount:50-10", "from the smaller amount to the larger"),
        ("amount:1.5 currency:JPY", "JPY has no minor unit"),
    ],
)
def test_payment_amount_filter_mistakes_say_what_to_type(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_filter(text)


def test_event_filter_words() -> None:
    assert parse_event_filter("type:payment_failed pay_x") == ("payment_failed", "pay_x")
    assert parse_event_filter("refund_succeeded") == ("refund_succeeded", None)


def test_unknown_errors_still_tell_the_user_what_to_do() -> None:
    title, message = describe_error(RuntimeError("boom"))
    assert title == "Something went wrong"
    assert "RuntimeError: boom" in message and "What to do" in message
    title, _ = describe_error(PermissionError("denied"))
    assert title == "Permission denied"


def test_a_missing_profile_setting_points_to_settings_not_to_the_client() -> None:
    from payscope.api.errors import MissingMerchantIdError, MissingProfileIdError

    title, message = describe_error(MissingMerchantIdError("Listing events"))
    assert title == "Merchant id missing"
    assert message.startswith("Listing events needs the merchant id")
    assert "merchant_id" in message and "Settings" in message and "ApiClient" not in message
    title, message = describe_error(MissingProfileIdError("Creating a subscription"))
    assert title == "Profile id missing"
    assert "profile_id" in message and "ApiClient" not in message


def test_payments_cache_keeps_only_what_the_table_shows(tmp_path: Path) -> None:
    from payscope.api.models.payments import Payment
    from payscope.areas.payments.cache import cache_path, load_page, save_page

    payment = Payment.model_validate(
        {
            "payment_id": "pay_" + "a" * 20,
            "status": "succeeded",
            "amount": 1250,
            "currency": "EUR",
            "created": "2024-05-01T12:00:00Z",
            "customer_id": "cus_" + "b" * 20,
            "client_secret": "pay_" + "a" * 20 + "_secret_xyz",
            "metadata": {"note": "private"},
        }
    )
    path = cache_path(tmp_path, "my/profile")
    assert path.parent == tmp_path / "cache" and "/" not in path.name
    save_page(path, [payment])
    text = path.read_text()
    assert "secret" not in text and "private" not in text
    (row,) = load_page(path)
    assert (row.payment_id, row.status, row.amount, row.currency) == (
        payment.payment_id,
        "succeeded",
        1250,
        "EUR",
    )
    assert row.customer_id == payment.customer_id


def test_a_damaged_payments_cache_is_ignored(tmp_path: Path) -> None:
    from payscope.areas.payments.cache import load_page

    path = tmp_path / "payments-local.json"
    assert load_page(path) == []
    path.write_text('{"version": 1, "rows": [{"payment_id": "pay_x", "amount": "12"}]}')
    assert load_page(path) == []
    path.write_text("{not json")
    assert load_page(path) == []


@pytest.mark.parametrize(
    ("status", "like"),
    [
        ("failure", "failed"),
        ("charged", "succeeded"),
        ("authorized", "requires_capture"),
        # The real service's states: coloured like their nearest spec state, not "other".
        ("partially_authorized_and_requires_capture", "requires_capture"),
        ("cancelled_post_capture", "cancelled"),
        ("conflicted", "requires_merchant_action"),
    ],
)
def test_attempt_statuses_take_the_colour_of_their_payment_status(status: str, like: str) -> None:
    assert status_variable(status) == status_variable(like)


@pytest.mark.parametrize(
    ("url", "short"),
    [
        ("http://127.0.0.1:8787/webhooks", ":8787"),
        ("http://[::1]:9000/webhooks", ":9000"),
        ("http://127.0.0.1:PORT/webhooks", ":PORT"),  # the stable display of snapshots
        ("https://hooks.example.com/webhooks", "hooks.example.com"),
        ("http://[::1]/webhooks", "[::1]"),
    ],
)
def test_status_bar_shortens_the_listener_url_to_its_port(url: str, short: str) -> None:
    from payscope.widgets.status_bar import _short_url

    assert _short_url(url) == short


@pytest.mark.parametrize(
    ("brand", "label"),
    [
        ("AmericanExpress", "American Express"),
        ("DinersClub", "Diners Club"),
        ("CartesBancaires", "Cartes Bancaires"),
        ("visa", "Visa"),
        ("JCB", "JCB"),
        ("RuPay", "RuPay"),
        (None, "Card"),
        ("", "Card"),
    ],
)
def test_card_networks_are_named_as_people_write_them(brand: str | None, label: str) -> None:
    from payscope.widgets.format import brand_label

    assert brand_label(brand) == label


@pytest.mark.parametrize(
    ("width", "status"),
    [(40, 12), (57, 12), (60, 15), (63, 18), (103, 18), (104, 19), (109, 24), (140, 24)],
)
def test_spare_width_goes_to_the_status_column(width: int, status: int) -> None:
    # ... and a short one is taken from it first, so the amount stays in view.
    from payscope.areas.payments.spec import COLUMNS
    from payscope.views.columns import fit

    assert dict(fit(COLUMNS, width))["status"] == status


@pytest.mark.parametrize(("width", "event_type"), [(50, 12), (59, 21), (62, 12), (120, 22)])
def test_a_narrow_events_table_takes_its_room_from_the_event_type(
    width: int, event_type: int
) -> None:
    from payscope.areas.events.spec import COLUMNS
    from payscope.views.columns import fit

    widths = dict(fit(COLUMNS, width))
    # Below 62 columns only the event's type, its object and the two marks are shown; from
    # there the status comes first, its room taken from the type, and the time from 76.
    assert tuple(widths) == ("event_type", "object_id", "verified", "dups") or width >= 62
    assert "status" in widths or width < 62
    assert "time" in widths or width < 76
    assert widths["event_type"] == event_type


@pytest.mark.parametrize(
    "metadata",
    [
        {"[b]x[/b]\x1b[5m": "[b]x[/b]\x1b[5m"},
        {"k": "right\u202eto left"},
        {"bell": "\x07", "c1": "\x9b31m", "del": "\x7f"},
    ],
)
def test_metadata_with_control_characters_prefills_as_json_escapes_and_reads_back(
    metadata: dict[str, str],
) -> None:
    import re

    from payscope.views.forms import metadata_text, parse_metadata

    text = metadata_text(metadata)
    # Nothing the terminal would act on, nothing that reorders the text area's lines...
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]", text)
    assert "\\u" in text
    # ...and what is sent back unchanged is the metadata as it was.
    assert parse_metadata(text) == metadata


def test_plain_metadata_still_prefills_as_lines() -> None:
    from payscope.views.forms import metadata_text

    assert metadata_text({"order_id": "42", "note": "two words"}) == "order_id=42\nnote=two words"


def test_a_customers_payments_say_when_the_service_gives_no_total() -> None:
    from payscope.areas.customers.detail import CustomerDetailScreen, Payments

    screen = CustomerDetailScreen("cus_1")
    rows: list = [object()] * 20
    screen.payments = Payments(rows, 57)  # the spec's list: a total
    assert screen.payments_summary().plain.startswith("The newest 20 of 57 payments")
    screen.payments = Payments(rows, 20, more=True)  # the real service's: a full page, no total
    assert screen.payments_summary().plain.startswith(
        "The newest 20 payments (the service gives no total"
    )
    screen.payments = Payments(rows[:3], 3)
    assert screen.payments_summary().plain.startswith("3 payments")
