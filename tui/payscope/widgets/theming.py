"""Themes as data files: TOML under `themes/` (shipped in the package) and the user's config dir.

A theme file holds Textual's base colours plus payscope's own variables (one colour per payment
status, the amount colour, the environment badges). A file that does not parse or misses a colour
is reported and skipped, so a broken user theme never stops the app: the caller falls back to
the default and tells the user why.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import NamedTuple

from textual.color import Color, ColorParseError
from textual.theme import Theme

from payscope.core import bounded

DEFAULT_THEME = "payscope-dark"
# Installed, the theme files are package data beside this module (setup.py copies them there);
# in a checkout or an editable install they are read from `themes/` at the repository's root.
_PACKAGED_THEMES = Path(__file__).parent / "themes"
BUILTIN_THEME_DIR = (
    _PACKAGED_THEMES if _PACKAGED_THEMES.is_dir() else Path(__file__).parents[3] / "themes"
)

_BASE_COLOURS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "success",
    "warning",
    "error",
    "boost",
)

# Every app variable with the value used when a theme (e.g. one of Textual's built-ins) lacks it.
# CSS refers to these, so they must always exist whatever theme is active.
APP_VARIABLE_DEFAULTS: dict[str, str] = {
    "status-succeeded": "ansi_green",
    "status-failed": "ansi_red",
    "status-cancelled": "ansi_bright_black",
    "status-expired": "ansi_bright_black",
    "status-processing": "ansi_blue",
    "status-requires-capture": "ansi_cyan",
    "status-requires-action": "ansi_yellow",
    "status-requires-review": "ansi_magenta",
    "status-requires-payment-method": "ansi_white",
    "status-requires-confirmation": "ansi_white",
    "status-partially-captured": "ansi_green",
    "status-pending": "ansi_yellow",
    "status-other": "ansi_white",
    "status-text-style": "none",
    "amount": "ansi_white",
    "amount-refund": "ansi_yellow",
    "muted": "ansi_bright_black",
    "env-local": "ansi_green",
    "env-sandbox": "ansi_yellow",
    "env-production": "ansi_red",
    "env-text": "ansi_black",
    "event-verified": "ansi_green",
    "event-rejected": "ansi_red",
}

# Statuses of every resource the app colours, mapped to the variable that colours them.
_STATUS_TO_VARIABLE: dict[str, str] = {
    "succeeded": "status-succeeded",
    "success": "status-succeeded",
    "charged": "status-succeeded",  # attempt statuses, as the service records them
    "failure": "status-failed",
    "authorized": "status-requires-capture",
    "partial_charged": "status-partially-captured",
    "partial_charged_and_chargeable": "status-partially-captured",
    "active": "status-succeeded",
    "invoice_paid": "status-succeeded",
    "dispute_won": "status-succeeded",
    "won": "status-succeeded",
    "failed": "status-failed",
    "dispute_lost": "status-failed",
    "lost": "status-failed",
    "unpaid": "status-failed",
    "payment_failed": "status-failed",  # a subscription invoice's
    "trial": "status-processing",
    "paused": "status-expired",
    "in_active": "status-expired",
    "cancelled": "status-cancelled",
    "dispute_cancelled": "status-cancelled",
    "expired": "status-expired",
    "dispute_expired": "status-expired",
    "processing": "status-processing",
    "initiated": "status-processing",
    "requires_capture": "status-requires-capture",
    # The real service's states the spec does not list (the sandbox's test cards reach some).
    "partially_authorized_and_requires_capture": "status-requires-capture",
    "partially_captured_and_processing": "status-partially-captured",
    "cancelled_post_capture": "status-cancelled",
    "conflicted": "status-requires-review",
    "dispute_accepted": "status-failed",  # the merchant conceded: lost, as far as money goes
    "requires_action": "status-requires-action",
    "requires_customer_action": "status-requires-action",
    "dispute_opened": "status-requires-action",
    "requires_merchant_action": "status-requires-review",
    "review": "status-requires-review",
    "dispute_challenged": "status-requires-review",
    "challenged": "status-requires-review",
    "requires_payment_method": "status-requires-payment-method",
    "requires_confirmation": "status-requires-confirmation",
    "partially_captured": "status-partially-captured",
    "partially_captured_and_capturable": "status-partially-captured",
    "pending": "status-pending",
    "invitation_sent": "status-pending",
    # Payouts: waiting on the merchant like a payment's counterparts; sent back or refused
    # is a failure to the merchant.
    "requires_creation": "status-requires-confirmation",
    "requires_payout_method_data": "status-requires-payment-method",
    "requires_vendor_account_creation": "status-requires-action",
    "requires_fulfillment": "status-requires-capture",
    "ineligible": "status-failed",
    "reversed": "status-failed",
}


def status_variable(status: str) -> str:
    """The theme variable that colours `status` (any resource's status; unknown ones included)."""
    return _STATUS_TO_VARIABLE.get(status, "status-other")


class ThemeFileError(ValueError):
    """A theme file that cannot be used, with a message naming the file and the problem."""


# A NamedTuple: made at import, before the first frame (why: docs/architecture.md).
class ThemeLoad(NamedTuple):
    """What loading the theme directories produced: usable themes and problems to tell the user."""

    themes: dict[str, Theme]
    problems: list[str]


def parse_theme(text: str, source: str) -> Theme:
    """One theme file's TOML text -> a `Theme`; `ThemeFileError` says what is wrong."""
    try:
        data = bounded.loads_toml(text)
    except bounded.TooDeep as exc:
        raise ThemeFileError(f"{source}: {exc.problem}.") from None
    except tomllib.TOMLDecodeError as exc:
        raise ThemeFileError(f"{source}: not valid TOML ({exc}).") from None
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ThemeFileError(f'{source}: needs a `name = "..."` line.')
    if not isinstance(data.get("primary"), str):
        raise ThemeFileError(f'{source}: needs a `primary` colour, e.g. primary = "#7AA2F7".')
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in variables.items()
    ):
        raise ThemeFileError(f"{source}: [variables] must map names to colour strings.")
    unknown = sorted(set(data) - {*_BASE_COLOURS, "name", "dark", "variables", "luminosity-spread"})
    if unknown:
        raise ThemeFileError(f"{source}: unknown keys {', '.join(unknown)}.")
    colours = {key: data[key] for key in _BASE_COLOURS if key in data}
    for key, value in colours.items():
        if not isinstance(value, str):
            raise ThemeFileError(f'{source}: `{key}` must be a colour string like "#RRGGBB".')
    _check_colours(source, {**colours, **_colour_variables(variables)})
    spread = data.get("luminosity-spread", 0.15)
    if not isinstance(spread, int | float):
        raise ThemeFileError(f"{source}: luminosity-spread must be a number.")
    return Theme(
        name=name.strip(),
        dark=bool(data.get("dark", True)),
        luminosity_spread=float(spread),
        # What the file leaves out follows its own colours (`theme_defaults`).
        variables=variables,
        **colours,
    )


# App variables that follow one of the theme's own colours when the theme does not set them.
_FOLLOW = {
    "status-succeeded": "success",
    "status-partially-captured": "success",
    "event-verified": "success",
    "env-local": "success",
    "status-failed": "error",
    "event-rejected": "error",
    "env-production": "error",
    "status-requires-action": "warning",
    "status-pending": "warning",
    "amount-refund": "warning",
    "env-sandbox": "warning",
    "status-processing": "primary",
    "status-requires-capture": "secondary",
    "status-requires-review": "accent",
    "status-requires-payment-method": "foreground",
    "status-requires-confirmation": "foreground",
    "status-other": "foreground",
    "amount": "foreground",
}
_MUTED = ("muted", "status-cancelled", "status-expired")


def theme_defaults(theme: Theme) -> dict[str, str]:
    """Every app variable for `theme`, for what the theme itself does not set.

    Textual's own themes (dracula, catppuccin-latte, ...) set none of payscope's variables: their
    statuses, amounts and badges then take the theme's success, error, warning, primary,
    secondary and accent colours, and muted text is its foreground blended into its background.
    So every theme in the picker reads well, light or dark, truecolour or ANSI.
    """
    generated = theme.to_color_system().generate()
    values = dict(APP_VARIABLE_DEFAULTS)
    for name, source in _FOLLOW.items():
        if generated.get(source):
            values[name] = generated[source]
    try:
        foreground = Color.parse(generated["foreground"])
        background = Color.parse(generated["background"])
        badge = Color.parse(values["env-local"])
    except (KeyError, ColorParseError):
        return values  # ANSI themes: the terminal's own palette, kept as it is
    if foreground.ansi is None and background.ansi is None:
        muted = background.blend(foreground, 0.55).hex
        for name in _MUTED:
            values[name] = muted
    if badge.ansi is None:
        values["env-text"] = badge.get_contrast_text(1.0).hex
    return values


def _colour_variables(variables: dict[str, str]) -> dict[str, str]:
    # Style variables ("bold", "none") are not colours and are left to Textual's CSS parser.
    return {k: v for k, v in variables.items() if not k.endswith("-style")}


def _check_colours(source: str, colours: dict[str, str]) -> None:
    for key, value in colours.items():
        try:
            Color.parse(value)
        except ColorParseError:
            raise ThemeFileError(
                f'{source}: `{key} = "{value}"` is not a colour (use "#RRGGBB" or a colour name).'
            ) from None


def load_theme_dir(directory: Path) -> ThemeLoad:
    """Load every `*.toml` theme in `directory` (missing directory: nothing, no problem)."""
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    if not directory.is_dir():
        return ThemeLoad(themes, problems)
    for path in sorted(directory.glob("*.toml")):
        try:
            theme = parse_theme(bounded.read_text(path), str(path))
        except bounded.TooLarge as exc:
            problems.append(f"{path}: {exc.problem}.")
            continue
        except (ThemeFileError, OSError, UnicodeDecodeError) as exc:
            problems.append(str(exc))
            continue
        themes[theme.name] = theme
    return ThemeLoad(themes, problems)


def load_one_theme(name: str, user_dir: Path | None = None) -> Theme | None:
    """The shipped theme `name` alone, when nothing else can decide what `name` means.

    For a fast first frame: None whenever the user has theme files (one may replace a shipped
    theme by name) or the file is missing or broken, so the caller loads every theme instead and
    reports problems as usual.
    """
    if user_has_themes(user_dir):
        return None
    path = BUILTIN_THEME_DIR / f"{name}.toml"
    try:
        theme = parse_theme(path.read_text(encoding="utf-8"), str(path))
    except (ThemeFileError, OSError, UnicodeDecodeError):
        return None
    return theme if theme.name == name else None


def user_has_themes(user_dir: Path | None) -> bool:
    """True when the user's theme directory holds theme files."""
    return user_dir is not None and user_dir.is_dir() and any(user_dir.glob("*.toml"))


def load_themes(user_dir: Path | None = None) -> ThemeLoad:
    """The shipped themes, then the user's (a user theme may replace a shipped one by name)."""
    builtin = load_theme_dir(BUILTIN_THEME_DIR)
    if user_dir is None:
        return builtin
    user = load_theme_dir(user_dir)
    return ThemeLoad({**builtin.themes, **user.themes}, builtin.problems + user.problems)
