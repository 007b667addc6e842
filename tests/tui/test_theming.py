"""The fast path that loads only the active theme before the first frame."""

from __future__ import annotations

from pathlib import Path

from tui.theming import load_one_theme, load_themes


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
