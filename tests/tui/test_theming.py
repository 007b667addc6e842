"""The fast path that loads only the active theme before the first frame."""

from __future__ import annotations

from pathlib import Path

from payscope.widgets.theming import load_one_theme, load_themes


def test_the_active_shipped_theme_loads_alone_and_equals_the_full_load() -> None:
    one = load_one_theme("payscope-light")
    assert one is not None
    full = load_themes().themes["payscope-light"]
    assert (one.name, one.primary, one.background, one.variables) == (
        full.name,
        full.primary,
        full.background,
        full.variables,
    )


def test_unknown_names_take_the_full_path() -> None:
    assert load_one_theme("no-such-theme") is None


def test_any_user_theme_file_takes_the_full_path(tmp_path: Path) -> None:
    # A user file may redefine a shipped theme by name, so the fast path must not guess.
    (tmp_path / "payscope-dark.toml").write_text('name = "payscope-dark"\nprimary = "#112233"\n')
    assert load_one_theme("payscope-dark", tmp_path) is None
    assert load_themes(tmp_path).themes["payscope-dark"].primary == "#112233"


def test_an_empty_user_dir_keeps_the_fast_path(tmp_path: Path) -> None:
    assert load_one_theme("payscope-dark", tmp_path) is not None


def test_textual_themes_colour_statuses_with_their_own_palette() -> None:
    from textual.color import Color
    from textual.theme import BUILTIN_THEMES

    from payscope.widgets.theming import theme_defaults

    dracula = theme_defaults(BUILTIN_THEMES["dracula"])
    generated = BUILTIN_THEMES["dracula"].to_color_system().generate()
    assert dracula["status-succeeded"] == generated["success"] == "#50FA7B"
    assert dracula["status-failed"] == generated["error"]
    assert dracula["status-processing"] == generated["primary"]
    latte = theme_defaults(BUILTIN_THEMES["catppuccin-latte"])
    # Light theme: muted text sits between its dark foreground and light background.
    muted = Color.parse(latte["muted"])
    foreground = Color.parse(BUILTIN_THEMES["catppuccin-latte"].foreground or "")
    background = Color.parse(BUILTIN_THEMES["catppuccin-latte"].background or "")
    assert foreground.brightness < muted.brightness < background.brightness
    ansi = theme_defaults(BUILTIN_THEMES["ansi-dark"])
    assert ansi["status-succeeded"] == "ansi_green"  # the terminal's own palette is kept


async def test_every_theme_gives_rich_a_colour_it_can_read(dirs: tuple[Path, Path]) -> None:
    """Statuses, amounts and badges are coloured in every theme of the picker (a value Rich
    cannot parse would leave them uncoloured without an error)."""
    from rich.style import Style

    from payscope.widgets.format import theme_colour
    from payscope.widgets.theming import APP_VARIABLE_DEFAULTS
    from tests.tui.snapshot_app import build

    app = build(*dirs)
    async with app.run_test(size=(80, 24)) as pilot:
        app.load_all_themes()
        names = sorted(app.available_themes)
        assert {"dracula", "catppuccin-latte", "ansi-light", "payscope-light"} <= set(names)
        for name in names:
            app.theme = name
            await pilot.pause()
            for variable in APP_VARIABLE_DEFAULTS:
                if variable.endswith("-style"):
                    continue
                colour = theme_colour(app.theme_variables, variable)
                assert Style.parse(colour).color is not None, (name, variable, colour)


def _luminance(colour: object) -> float:
    """WCAG relative luminance of a Rich colour."""
    red, green, blue = colour.get_truecolor()  # type: ignore[attr-defined]

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)


def _contrast(a: object, b: object) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


async def test_the_footer_is_readable_in_every_theme(dirs: tuple[Path, Path]) -> None:
    """The footer's keys and their descriptions stand out from its background in every theme
    of the picker. Themes design their footer as a whole (solarized-light: light text on
    blue); an app rule that changed only its background made the text vanish there."""
    FooterKey = "FooterKey"  # Textual's footer key widget, not exported: its CSS type

    from tests.tui.pilot import until
    from tests.tui.snapshot_app import build

    app = build(*dirs)
    measured = []
    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: app.screen.query(FooterKey))  # mounted once the bindings are ready
        app.load_all_themes()
        for name in sorted(app.available_themes):
            app.theme = name
            await pilot.pause()
            key = app.screen.query(FooterKey).first()
            for part in ("footer-key--key", "footer-key--description"):
                style = key.get_component_rich_style(part)
                assert style.color is not None and style.bgcolor is not None, (name, part)
                if style.color.triplet is None or style.bgcolor.triplet is None:
                    continue  # ansi-*: the terminal's own palette decides, nothing to measure
                ratio = _contrast(style.color, style.bgcolor)
                # Textual's own palettes go down to 2.1 (atom-one's accent); the footer that
                # vanished in solarized-light measured 1.1.
                assert ratio >= 2.0, (name, part, style.color.name, style.bgcolor.name, ratio)
                measured.append(name)
    assert {"payscope-dark", "payscope-light", "solarized-light", "dracula"} <= set(measured)


WCAG_AA = 4.5  # normal-size text


async def test_every_bundled_theme_keeps_status_colours_readable_on_every_row(
    dirs: tuple[Path, Path],
) -> None:
    """Each status colour measures 4.5:1 or better (WCAG AA) against every background a table
    row takes in each theme shipped in themes/: plain rows and zebra stripes, focused (tinted)
    or not, and under the mouse; the cursor row's own text against the cursor. Measured from
    the colours Textual computes for the table (presentation's red on its stripe was 2.5:1)."""
    from rich.style import Style

    from payscope.views.line_table import LineTable
    from payscope.widgets.format import theme_colour
    from payscope.widgets.theming import APP_VARIABLE_DEFAULTS, BUILTIN_THEME_DIR
    from tests.tui.pilot import until
    from tests.tui.snapshot_app import build, ready

    bundled = sorted(path.stem for path in BUILTIN_THEME_DIR.glob("*.toml"))
    assert len(bundled) >= 4
    statuses = [v for v in APP_VARIABLE_DEFAULTS if v.startswith("status-") and "style" not in v]
    rows = ("line-table--odd-row", "line-table--even-row", "line-table--hover")
    app = build(*dirs)
    poor: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.load_all_themes()
        table = app.screen.query(LineTable).first()
        for name in bundled:
            app.theme = name
            await pilot.pause()
            for focused in (True, False):
                if focused:
                    table.focus()
                else:
                    await pilot.press("colon")  # the command prompt takes the focus
                await until(lambda f=focused: table.has_focus is f)
                await pilot.pause()
                backgrounds = {row: table.get_component_rich_style(row).bgcolor for row in rows}
                for status in statuses:
                    colour = Style.parse(theme_colour(app.theme_variables, status)).color
                    for row, background in backgrounds.items():
                        ratio = _contrast(colour, background)
                        if ratio < WCAG_AA:
                            poor.append(f"{name} {status} on {row} (focus {focused}): {ratio:.2f}")
                cursor = table.get_component_rich_style("line-table--cursor")
                ratio = _contrast(cursor.color, cursor.bgcolor)
                if ratio < WCAG_AA:
                    poor.append(f"{name} cursor text (focus {focused}): {ratio:.2f}")
                if not focused:
                    await pilot.press("escape")
    assert not poor, "\n".join(poor)
