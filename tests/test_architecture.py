"""The import-linter contracts (pyproject.toml, `lint-imports` in `make lint`) hold the layers;
these tests keep the contracts whole: every area and every module below the UI is named in the
contracts that must name it, so a new one cannot slip past them. And importing the layers
below the UI really loads no Textual."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tui" / "payscope"
NAME = PACKAGE.name  # the package's import name


def _contracts() -> dict[str, dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["name"]: c for c in config["tool"]["importlinter"]["contracts"]}


def _contract(start: str) -> dict[str, object]:
    found = [c for name, c in _contracts().items() if name.startswith(start)]
    assert len(found) == 1, f"no one contract named {start!r}…"
    return found[0]


def _areas() -> set[str]:
    return {f"{NAME}.areas.{p.parent.name}" for p in (PACKAGE / "areas").glob("*/__init__.py")}


def test_every_area_is_in_the_independence_contract() -> None:
    named = set(_contract("Areas never import each other")["modules"])  # type: ignore[arg-type]
    assert _areas(), "no area packages found"
    assert _areas() - named == set(), "areas missing from the independence contract"
    assert named - _areas() == set(), "the contract names areas that do not exist"


def test_every_area_is_in_the_inside_an_area_contract() -> None:
    named = set(_contract("Inside an area")["containers"])  # type: ignore[arg-type]
    assert _areas() - named == set(), "areas missing from the inside-an-area contract"


def test_every_module_below_the_ui_is_kept_free_of_textual() -> None:
    named = set(_contract("Layers below the UI never import Textual")["source_modules"])  # type: ignore[arg-type]
    for below in ("api", "sandbox", "webhooks", "core"):
        assert f"{NAME}.{below}" in named, f"{NAME}.{below} is not in the contract"


def test_importing_the_lower_layers_does_not_load_textual() -> None:
    code = (
        "import sys, importlib\n"
        "for m in ['payscope.api', 'payscope.api.client', 'payscope.core.config',"
        " 'payscope.core.secrets', 'payscope.webhooks.signing']:\n"
        "    try: importlib.import_module(m)\n"
        "    except ModuleNotFoundError as e:\n"
        "        if not e.name.startswith('payscope'): raise\n"
        "print('textual' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "False"


def test_every_area_package_is_in_the_registry() -> None:
    """Each folder under areas/ says what it is in one AREA, and the registry holds them all: an
    area added as a folder reaches the rail, command mode, find and export with nothing else."""
    code = (
        "import sys\n"
        f"from {NAME}.areas import AREAS\n"
        "print(' '.join(a.key for a in AREAS))\n"
        "print('textual' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    keys, textual = out.stdout.split("\n")[:2]
    assert sorted(keys.split()) == sorted(a.rsplit(".", 1)[1] for a in _areas())
    assert textual == "False", "reading the areas' registry loaded Textual"


def test_one_class_is_named_area() -> None:
    named = [
        path.relative_to(ROOT)
        for path in PACKAGE.rglob("*.py")
        if "\nclass Area(" in path.read_text(encoding="utf-8")
        or "\nclass Area:" in path.read_text(encoding="utf-8")
    ]
    assert named == [(PACKAGE / "views" / "areas.py").relative_to(ROOT)]
