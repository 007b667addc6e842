"""payscope and its tests use the public API of Textual, Rich, httpx, httpcore, uvicorn,
starlette and asyncio only: no private module or name of theirs is imported or read, and
nothing of theirs is assigned to (a class's or a module's attribute, directly, with `setattr`
or `monkeypatch.setattr`, or with `mock.patch`). A user gets these libraries as they ship;
code that reaches into them can break silently on any release, and tests that patch them test
a program nobody runs.

Checked on the source with `ast`: names imported from those packages are followed through
aliases (`import textual.widgets as w`, `from textual.screen import Screen`, `S = Screen`), so
`w._input`, `Screen._refresh` or `monkeypatch.setattr(S, "x", ...)` are seen. What cannot be
seen without running the code is an attribute of an instance (`app._running`): review catches
those.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WATCHED = ("textual", "rich", "httpx", "httpcore", "uvicorn", "starlette", "asyncio")

# Reviewed exceptions: (file, the dotted name it touches) -> why it is allowed.
# Empty: the one there was (the input cursor's blink, set on Textual's Input class for the tests)
# became a setting of payscope's own (`cursor_blink = false`, `PAYSCOPE_CURSOR_BLINK=off`).
EXCEPTIONS: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Problem:
    line: int
    name: str  # the dotted name touched, e.g. "textual.screen.Screen._compositor_refresh"
    what: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.what} {self.name}"


def _watched(module: str) -> bool:
    return module.split(".")[0] in WATCHED


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def _has_private_part(dotted: str) -> bool:
    return any(_private(part) for part in dotted.split("."))


class _Checker:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.names: dict[str, str] = {}  # local name -> dotted name in a watched package
        self.problems: list[Problem] = []

    # Names ------------------------------------------------------------------------------------

    def _bind_imports(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if not _watched(alias.name):
                        continue
                    if _has_private_part(alias.name):
                        self._add(node, alias.name, "imports the private module")
                    if alias.asname:
                        self.names[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.names[top] = top
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if not _watched(node.module):
                    continue
                if _has_private_part(node.module):
                    self._add(node, node.module, "imports from the private module")
                for alias in node.names:
                    dotted = f"{node.module}.{alias.name}"
                    if _private(alias.name):
                        self._add(node, dotted, "imports the private name")
                    if alias.name != "*":
                        self.names[alias.asname or alias.name] = dotted

    def _bind_aliases(self) -> None:
        """`S = Screen` or `S = textual.screen.Screen`: S names it too (until nothing changes)."""
        changed = True
        while changed:
            changed = False
            for node in ast.walk(self.tree):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target = node.targets[0]
                    dotted = self.resolve(node.value)
                    if isinstance(target, ast.Name) and dotted and target.id not in self.names:
                        self.names[target.id] = dotted
                        changed = True

    def resolve(self, node: ast.AST) -> str | None:
        """The dotted name an expression stands for, when it is rooted in a watched package."""
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    # Checks -----------------------------------------------------------------------------------

    def _add(self, node: ast.AST, name: str, what: str) -> None:
        self.problems.append(Problem(getattr(node, "lineno", 0), name, what))

    def _assigned(self, target: ast.AST, node: ast.AST) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._assigned(element, node)
        elif isinstance(target, ast.Attribute):
            dotted = self.resolve(target)
            if dotted:
                self._add(node, dotted, "assigns to")

    @staticmethod
    def _call_name(func: ast.AST) -> str:
        if isinstance(func, ast.Name):
            return func.id
        if isinstance(func, ast.Attribute):
            return func.attr
        return ""

    def _call(self, node: ast.Call) -> None:
        name = self._call_name(node.func)
        if not node.args:
            return
        first = node.args[0]
        second = node.args[1] if len(node.args) > 1 else None
        attribute = (
            second.value
            if isinstance(second, ast.Constant) and isinstance(second.value, str)
            else "?"
        )
        dotted = self.resolve(first)
        # setattr(Screen, "x", v), monkeypatch.setattr(Screen, "x", v), patch.object(Screen, "x")
        if name in {"setattr", "delattr", "object"} and dotted:
            self._add(node, f"{dotted}.{attribute}", "assigns to")
        # monkeypatch.setattr("textual.screen.Screen.x", v), mock.patch("textual....")
        if (
            name in {"setattr", "delattr", "patch"}
            and isinstance(first, ast.Constant)
            and isinstance(first.value, str)
            and _watched(first.value)
            and "." in first.value
        ):
            self._add(node, first.value, "assigns to")
        # getattr(Screen, "_x"), importlib.import_module("textual._doc")
        if name == "getattr" and dotted and _private(attribute):
            self._add(node, f"{dotted}.{attribute}", "reads the private name")
        if (
            name in {"import_module", "__import__"}
            and isinstance(first, ast.Constant)
            and isinstance(first.value, str)
            and _watched(first.value)
            and _has_private_part(first.value)
        ):
            self._add(node, first.value, "imports the private module")

    def run(self) -> list[Problem]:
        self._bind_imports()
        self._bind_aliases()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._assigned(target, node)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                self._assigned(node.target, node)
            elif isinstance(node, ast.Delete):
                for target in node.targets:
                    self._assigned(target, node)
            elif isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.Attribute) and _private(node.attr):
                dotted = self.resolve(node)
                # Only the outermost private step: `textual._doc.x` is one problem, not two.
                if dotted and not _has_private_part(self.resolve(node.value) or ""):
                    self._add(node, dotted, "reads the private name")
        # One problem per line and name: `Screen.x = Screen.x` is said once per kind.
        unique = {(p.line, p.name, p.what): p for p in self.problems}
        return sorted(unique.values(), key=lambda p: (p.line, p.name, p.what))


def problems_in(source: str) -> list[Problem]:
    """What in `source` reaches into the watched packages' internals or assigns to them."""
    return _Checker(ast.parse(source)).run()


def _files(folder: str) -> list[Path]:
    return sorted(
        path for path in (ROOT / folder).rglob("*.py") if "__snapshots__" not in path.parts
    )


@functools.cache
def _found(folder: str) -> dict[tuple[str, str], list[str]]:
    found: dict[tuple[str, str], list[str]] = {}
    for path in _files(folder):
        rel = path.relative_to(ROOT).as_posix()
        for problem in problems_in(path.read_text(encoding="utf-8")):
            found.setdefault((rel, problem.name), []).append(f"{rel}: {problem}")
    return found


@pytest.mark.parametrize("folder", ["tui", "tests"])
def test_only_public_api_of_the_dependencies(folder: str) -> None:
    assert _files(folder), f"{folder}/ has no Python files to check"
    found = _found(folder)
    unreviewed = [line for key, lines in found.items() if key not in EXCEPTIONS for line in lines]
    assert unreviewed == [], "private internals or assignments:\n" + "\n".join(unreviewed)


def test_every_reviewed_exception_is_still_needed() -> None:
    found = {key for folder in ("tui", "tests") for key in _found(folder)}
    assert [key for key in EXCEPTIONS if key not in found] == []


# The checker itself: it must see each kind of reach, and pass plain public use ---------------

BAD = {
    "import textual._doc": "textual._doc",
    "import textual._doc as d": "textual._doc",
    "from textual._on import on": "textual._on",
    "from textual.widgets._footer import FooterKey": "textual.widgets._footer",
    "from textual.keys import _character_to_key": "textual.keys._character_to_key",
    "from httpx._transports import default": "httpx._transports",
    "import httpx\nhttpx._transports.default.x = 1": "httpx._transports",
    "from textual.screen import Screen\nScreen._compositor_refresh = f": (
        "textual.screen.Screen._compositor_refresh"
    ),
    "from textual.screen import Screen\nScreen.refresh = f": "textual.screen.Screen.refresh",
    "from textual.screen import Screen as S\nS.refresh = f": "textual.screen.Screen.refresh",
    "from textual import screen\nscreen.Screen.refresh = f": "textual.screen.Screen.refresh",
    "import textual.screen\ntextual.screen.Screen.refresh = f": "textual.screen.Screen.refresh",
    "import rich.console as c\nc.Console.x, y = 1, 2": "rich.console.Console.x",
    "from textual.app import App\nA = App\nA.x = 1": "textual.app.App.x",
    "from textual.app import App\nA = App\ndef f(m):\n    m.setattr(A, 'run_test', g)": (
        "textual.app.App.run_test"
    ),
    "import uvicorn\nsetattr(uvicorn, 'run', f)": "uvicorn.run",
    "import starlette\ndelattr(starlette, 'x')": "starlette.x",
    "def f(monkeypatch):\n    monkeypatch.setattr('asyncio.sleep', g)": "asyncio.sleep",
    "from unittest import mock\nmock.patch('httpcore.AsyncConnectionPool.x', 1)": (
        "httpcore.AsyncConnectionPool.x"
    ),
    "from unittest import mock\nfrom textual.app import App\nmock.patch.object(App, 'x')": (
        "textual.app.App.x"
    ),
    "from textual.css.stylesheet import Stylesheet\nf = Stylesheet._parse_rules": (
        "textual.css.stylesheet.Stylesheet._parse_rules"
    ),
    "from textual.app import App\ngetattr(App, '_running')": "textual.app.App._running",
    "import importlib\nimportlib.import_module('textual._doc')": "textual._doc",
    "import asyncio\nasyncio.StreamReader.feed_data = f": "asyncio.StreamReader.feed_data",
}

GOOD = [
    "from textual.app import App\nclass Mine(App):\n    x = 1\n",
    "from textual.widgets import Input\ndef f(i: Input):\n    i.value = 'x'\n"
    "    i.cursor_blink = False\n",
    "from textual.app import App\napp = App()\napp.theme = 'textual-dark'\n",
    "import asyncio\nasyncio.run(main())\n",
    "from textual import __version__\n",
    "import payscope._private\nfrom tests import _helpers\n",
    "def f(monkeypatch, ids):\n    monkeypatch.setattr(ids, 'secrets', 1)\n",
    "def f(monkeypatch):\n    monkeypatch.setattr('payscope.sandbox.ids.secrets', 1)\n",
    "from textual.widgets import Static\nclass S(Static):\n    def _private(self):\n"
    "        self._x = 1\n",
    "from rich.text import Text\nt = Text('x')\nt.stylize('bold')\n",
]


@pytest.mark.parametrize("source", list(BAD))
def test_the_checker_sees_a_reach_into_a_dependency(source: str) -> None:
    names = [problem.name for problem in problems_in(source)]
    assert BAD[source] in names, names


@pytest.mark.parametrize("source", GOOD)
def test_the_checker_passes_public_use(source: str) -> None:
    assert problems_in(source) == []


# An instance's private attribute (`select._options`) is not seen by the names above: a test
# reads no private attribute that a watched dependency defines and payscope does not. -------


def _own_private_names() -> frozenset[str]:
    """Every `_name` payscope, its tests and benchmarks define (functions, classes, attributes)."""
    return frozenset(
        name
        for folder in ("tui", "tests", "bench")
        for path in _files(folder)
        for name in _defined_private(path)
    )


def _defined_private(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if _private(name)}


@functools.cache
def _dependency_private_names() -> frozenset[str]:
    """Every `_name` the watched packages define: functions, classes, assigned attributes."""
    import importlib.util

    names: set[str] = set()
    for package in WATCHED:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        for folder in spec.submodule_search_locations:
            for path in Path(folder).rglob("*.py"):
                names |= _defined_private(path)
    return frozenset(names)


def _private_reads(source: str, theirs: frozenset[str]) -> list[str]:
    return [
        f"line {node.lineno}: .{node.attr}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and node.attr in theirs
        and not (isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"})
    ]


def test_the_tests_read_no_private_attribute_of_a_dependency() -> None:
    assert "_options" in _dependency_private_names(), "the dependencies' names were not read"
    theirs = _dependency_private_names() - _own_private_names()
    found = [
        f"{path.relative_to(ROOT).as_posix()}: {line}"
        for path in _files("tests")
        for line in _private_reads(path.read_text(encoding="utf-8"), theirs)
    ]
    assert found == [], "private attributes of a dependency read by the tests:\n" + "\n".join(found)


def test_the_private_read_checker_sees_one() -> None:
    theirs = frozenset({"_options", "_rows"})
    assert _private_reads("options = select._options\n", theirs) == ["line 1: ._options"]
    assert _private_reads("self._rows = []\nrows = self._rows\n", theirs) == []
