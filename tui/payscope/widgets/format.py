"""How values look on screen: amounts per currency, statuses in theme colours, times, ids."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from rich.text import Text

from payscope.api.models._iso import format_minor_units, minor_units
from payscope.widgets.text import visible
from payscope.widgets.theming import APP_VARIABLE_DEFAULTS, status_variable


def format_amount(amount: int | None, currency: str | None, *, code: bool = True) -> str:
    """Minor units as people read them: 123450 USD -> "1,234.50 USD"; JPY has no decimals."""
    if amount is None:
        return "-"
    return format_minor_units(amount, currency or "", grouping=True, code=code)


# The service names card networks in one word (`AmericanExpress`); people write some in two.
_BRAND_NAMES = {
    "americanexpress": "American Express",
    "amex": "American Express",
    "dinersclub": "Diners Club",
    "cartesbancaires": "Cartes Bancaires",
    "mastercard": "Mastercard",
    "visa": "Visa",
    "discover": "Discover",
    "maestro": "Maestro",
}


def brand_label(brand: str | None) -> str:
    """A card network as people write it: `AmericanExpress` -> American Express, `JCB` stays."""
    if not brand:
        return "Card"
    return _BRAND_NAMES.get(brand.lower().replace(" ", "").replace("_", ""), brand)


def parse_amount(text: str, currency: str) -> int:
    """What a person typed ("12.50", "1,200") in `currency` -> minor units; ValueError says why."""
    cleaned = text.strip().replace(",", "").replace("_", "")
    if not cleaned:
        raise ValueError("Enter an amount.")
    try:
        exponent = minor_units(currency)
    except ValueError:
        raise ValueError(f"{currency!r} is not a currency code (e.g. USD, EUR, JPY).") from None
    whole, _, fraction = cleaned.partition(".")
    if not (whole or fraction).isdigit() or (whole and not whole.isdigit()):
        raise ValueError(f"{text!r} is not an amount; type digits like 12.50.")
    if fraction and not fraction.isdigit():
        raise ValueError(f"{text!r} is not an amount; type digits like 12.50.")
    if len(fraction) > exponent:
        if exponent == 0:
            raise ValueError(f"{currency} has no minor unit: type a whole number.")
        raise ValueError(f"{currency} has {exponent} decimal places at most.")
    minor = int((fraction or "0").ljust(exponent, "0") or "0")
    return int(whole or "0") * int(10**exponent) + minor


def rich_colour(value: str) -> str:
    """A theme value as Rich styles read it: `ansi_green` -> `green`, `#RRGGBBAA` -> `#RRGGBB`.

    Textual's CSS and Rich name colours differently; a value Rich cannot read would leave the
    text uncoloured without a word.
    """
    if value.startswith("ansi_"):
        return value[5:]  # "green", "bright_black", "default"
    if value.startswith("#") and len(value) == 9:
        return value[:7]
    return value


def theme_colour(variables: Mapping[str, str], name: str) -> str:
    """The Rich colour of app variable `name` (e.g. "muted", "event-verified") in this theme."""
    return rich_colour(variables.get(name) or APP_VARIABLE_DEFAULTS.get(name, "default"))


def status_colour(status: str, variables: Mapping[str, str]) -> str:
    """The theme colour of a status (any resource)."""
    return theme_colour(variables, status_variable(status))


def status_text(status: str | None, variables: Mapping[str, str]) -> Text:
    """A status word coloured by the active theme (bold in themes that ask for it)."""
    if not status:
        return Text("-")
    style = status_colour(status, variables)
    extra = variables.get("status-text-style", "none")
    if extra and extra != "none":
        style = f"{extra} {style}"
    # A long status ("partially_captured_and_capturable") ends in "…" rather than being cut.
    # A status is the service's text: shown literally, control characters made visible.
    return Text(visible(status), style=style, no_wrap=True, overflow="ellipsis")


def amount_text(
    amount: int | None, currency: str | None, variables: Mapping[str, str], width: int = 0
) -> Text:
    """An amount in the theme's amount colour, padded to `width` so decimals line up."""
    return Text(
        # No-break spaces: the table trims ordinary leading spaces and ignores `justify`.
        format_amount(amount, currency).rjust(width, "\u00a0"),
        style=theme_colour(variables, "amount"),
        no_wrap=True,
        overflow="ellipsis",
    )


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def format_time(value: str | datetime | None, *, seconds: bool = True, short: bool = False) -> str:
    """An ISO 8601 timestamp as "2024-05-01 14:03:22" (UTC as the service sends it).

    `short` gives "May 01 14:03" for tables: unambiguous in every locale, and the year is in
    the detail view.
    """
    if value is None or value == "":
        return "-"
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    else:
        moment = value
    if short:
        # Month names spelled here, not by strftime: they must not follow the process locale.
        return f"{_MONTHS[moment.month - 1]} {moment:%d %H:%M}"
    return moment.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
