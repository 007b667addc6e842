"""The import-linter contracts (pyproject.toml, `lint-imports` in `make lint`) hold the layers;
these tests keep the contracts whole: every area and every module below the UI is named in the
contracts that must name it, so a new one cannot slip past them. What lint-imports cannot see is
checked here: reading the areas' registry loads no Textual, one class is named Area."""

from __future__ import annotations

import ast
import re
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


def _covered(areas: set[str], named: set[str]) -> set[str]:
    """The areas that the contract's module expressions name (`*` stands for one segment)."""
    return {
        area
        for area in areas
        for expression in named
        if re.fullmatch(re.escape(expression).replace(r"\*", r"[^.]+"), area)
    }


def test_every_area_is_in_the_independence_contract() -> None:
    named = set(_contract("Areas never import each other")["modules"])  # type: ignore[arg-type]
    assert _areas(), "no area packages found"
    # One expression for every folder under areas/: a new area is in the contract by being one.
    assert named == {f"{NAME}.areas.*"}, named
    assert _covered(_areas(), named) == _areas()
    # Everything under areas/ that the expression reaches is an area package.
    assert {p.name for p in (PACKAGE / "areas").iterdir() if p.suffix == ".py"} == {"__init__.py"}


def test_every_area_is_in_the_inside_an_area_contract() -> None:
    named = set(_contract("Inside an area")["containers"])  # type: ignore[arg-type]
    assert named == {f"{NAME}.areas.*"}, named
    assert _covered(_areas(), named) == _areas()


def test_every_module_below_the_ui_is_kept_free_of_textual() -> None:
    named = set(_contract("Layers below the UI never import Textual")["source_modules"])  # type: ignore[arg-type]
    for below in ("api", "sandbox", "webhooks", "core"):
        assert f"{NAME}.{below}" in named, f"{NAME}.{below} is not in the contract"


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


def _resources() -> set[str]:
    """Every sandbox resource: a module or package under sandbox/resources/ (the `_` ones are
    the pieces they share)."""
    folder = PACKAGE / "sandbox" / "resources"
    modules = {p.stem for p in folder.glob("*.py")} | {
        p.parent.name for p in folder.glob("*/__init__.py")
    }
    return {f"{NAME}.sandbox.resources.{m}" for m in modules if not m.startswith("_")}


def test_every_resource_routes_module_imports_no_other_resource() -> None:
    """Each resource package with a `routes.py` has its contract, naming every other resource."""
    folder = PACKAGE / "sandbox" / "resources"
    packages = {p.parent.name for p in folder.glob("*/routes.py")}
    assert packages, "no resource packages found"
    for name in packages:
        contract = _contract(f"A resource's routes import no other resource: {name}")
        own = f"{NAME}.sandbox.resources.{name}"
        assert contract["source_modules"] == [f"{own}.routes"]
        forbidden = set(contract["forbidden_modules"])  # type: ignore[arg-type]
        assert forbidden == _resources() - {own}, f"{name}'s contract does not name the others"


def test_the_shared_pieces_of_the_resources_import_no_resource() -> None:
    contract = _contract("The resources' shared pieces import no resource")
    shared = {
        f"{NAME}.sandbox.resources.{p.stem}"
        for p in (PACKAGE / "sandbox" / "resources").glob("_*.py")
        if p.stem != "__init__"
    }
    assert set(contract["source_modules"]) == shared  # type: ignore[arg-type]
    assert set(contract["forbidden_modules"]) == _resources()  # type: ignore[arg-type]


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every payscope module `name` imports anywhere: at its top, inside a function, or for the
    type checker only."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names if alias.name in modules}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package[: len(package) - node.level + 1] + base.split(".") * bool(base)
                )
            for alias in node.names:
                out.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return (out & modules.keys()) - {name}


def test_no_two_modules_import_each_other_even_inside_functions() -> None:
    """An import inside a function still ties two modules together: a circle of them, however
    it is hidden (in a function, under TYPE_CHECKING), is a design to undo, not to defer."""
    modules = _modules()
    graph = {name: _imported(name, path, modules) for name, path in modules.items()}
    # Tarjan's strongly connected components, iteratively.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                circle = []
                while True:
                    member = stack.pop()
                    circle.append(member)
                    if member == node:
                        break
                if len(circle) > 1:
                    circles.append(sorted(circle))
    assert not circles, circles
