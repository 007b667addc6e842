"""One build step pyproject.toml cannot say: the theme files (`themes/`, at the repository's root)
go into the package as `payscope/widgets/themes/`, so an installed payscope finds them beside
`payscope/widgets/theming.py`.

A checkout (and an editable install, a plain path entry) reads them from `themes/` itself
(`payscope.widgets.theming.BUILTIN_THEME_DIR`). Everything else is configured in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

THEMES = Path(__file__).resolve().parent / "themes"


class BuildWithThemes(build_py):
    """`build_py`, then the theme files copied into the built package's `widgets/themes/`."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "payscope" / "widgets" / "themes"
        target.mkdir(parents=True, exist_ok=True)
        for theme in sorted(THEMES.glob("*.toml")):
            shutil.copyfile(theme, target / theme.name)


setup(cmdclass={"build_py": BuildWithThemes})
