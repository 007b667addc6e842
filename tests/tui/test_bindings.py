"""Every key binding can be remapped (it has an id) and explained (it has a tooltip)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def _trees() -> list[tuple[str, ast.Module]]:
    """Every module of `tui/payscope/`, parsed once, for the tests (not at collection: each xdist
    worker
    collects, and parsing them all took 1.5 s there)."""
    return [
        (str(path.relative_to(ROOT)), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted((ROOT / "tui" / "payscope").rglob("*.py"))
    ]


def _binding_calls() -> list[tuple[str, int, set[str]]]:
    found = []
    for where, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name == "Binding":
                    keywords = {k.arg for k in node.keywords if k.arg}
                    found.append((where, node.lineno, keywords))
    return found


def test_the_ui_declares_bindings() -> None:
    assert len(_binding_calls()) >= 20


def test_every_binding_has_an_id_and_a_tooltip() -> None:
    missing = [
        f"{where}:{line} Binding without {', '.join(sorted({'id', 'tooltip'} - keywords))}"
        for where, line, keywords in _binding_calls()
        if not {"id", "tooltip"} <= keywords
    ]
    assert missing == []


def test_no_bindings_list_holds_a_bare_tuple() -> None:
    # ("q", "quit", "Quit") tuples cannot carry an id, so a user could not remap them.
    tuples = []
    for where, tree in _trees():
        for node in ast.walk(tree):
            target = node.target if isinstance(node, ast.AnnAssign) else None
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
            if getattr(target, "id", None) == "BINDINGS" and isinstance(node.value, ast.List):
                tuples += [
                    f"{where}:{e.lineno}" for e in node.value.elts if isinstance(e, ast.Tuple)
                ]
    assert tuples == []
