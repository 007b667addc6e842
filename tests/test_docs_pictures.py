"""The docs' pictures are what the app draws today (`make screenshots` draws them again).

Each picture of docs/images/ is drawn afresh by `docs/screenshots.py`, on the snapshot tests'
seeded sandbox and frozen clock, and compared as SVG text with Rich's export id taken out (as
pytest-textual-snapshot compares). A change to a screen that a picture shows fails here until
`make screenshots` is run and the new picture looked at.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"


def _load_screenshots() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_screenshots", ROOT / "docs/screenshots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


screenshots = _load_screenshots()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return screenshots.make_template(tmp_path_factory.mktemp("pictures") / "template")


def test_every_picture_in_docs_is_one_the_app_draws() -> None:
    """No picture in docs/images/ that the script does not draw (it would never be checked)."""
    on_disk = {p.stem for p in IMAGES.glob("*.svg")}
    assert on_disk == set(screenshots.SHOTS)


def test_every_picture_is_shown_on_a_page() -> None:
    pages = "\n".join(p.read_text() for p in (ROOT / "docs").glob("*.md"))
    readme = (ROOT / "README.md").read_text()
    unused = [n for n in screenshots.SHOTS if f"images/{n}.svg" not in pages + readme]
    assert unused == []


@pytest.mark.slow
@pytest.mark.parametrize("name", list(screenshots.SHOTS))
async def test_picture_matches_what_the_app_draws(
    name: str, template: Path, tmp_path: Path
) -> None:
    drawn = await screenshots.draw(screenshots.SHOTS[name], template, tmp_path)
    stored = screenshots.normalise((IMAGES / f"{name}.svg").read_text(encoding="utf-8"))
    assert drawn == stored, (
        f"docs/images/{name}.svg is no longer what the app draws: run `make screenshots`, "
        "look at the picture, and commit it"
    )
