"""Every key binding can be remapped (it has an id) and explained (it has a tooltip)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _binding_calls() -> list[tuple[str, int, set[str]]]:
    found = []
    for path in sorted((ROOT / "tui").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name == "Binding":
                    keywords = {k.arg for k in node.keywords if k.arg}
                    found.append((str(path.relative_to(ROOT)), node.lineno, keywords))
    return found


def test_the_ui_declares_bindings() -> None:
    assert len(_binding_calls()) >= 20


@pytest.mark.parametrize(("where", "line", "keywords"), _binding_calls())
def test_every_binding_has_an_id_and_a_tooltip(where: str, line: int, keywords: set[str]) -> None:
    missing = {"id", "tooltip"} - keywords
    assert not missing, f"{where}:{line} Binding without {', '.join(sorted(missing))}"


def test_no_bindings_list_holds_a_bare_tuple() -> None:
    # ("q", "quit", "Quit") tuples cannot carry an id, so a user could not remap them.
    tuples = []
    for path in sorted((ROOT / "tui").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            target = node.target if isinstance(node, ast.AnnAssign) else None
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
            if getattr(target, "id", None) == "BINDINGS" and isinstance(node.value, ast.List):
                tuples += [
                    f"{path.name}:{e.lineno}" for e in node.value.elts if isinstance(e, ast.Tuple)
                ]
    assert tuples == []
